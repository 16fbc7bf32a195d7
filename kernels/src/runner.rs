//! Runs generated playout kernels on a wgpu device: uploads jobs, dispatches, reads back.
//!
//! A batch is a list of [`GpuJob`]s. Its playouts form one sequence (job by job, playout
//! index ascending); the sequence is cut into **chunks** so that each chunk's record buffer
//! fits the device's `max_storage_buffer_binding_size` and `max_buffer_size`, and each
//! chunk is one dispatch of at most `max_compute_workgroups_per_dimension` workgroups.
//! Lanes pull sequence numbers from an atomic counter, so fewer invocations than playouts
//! are fine: finished lanes are refilled until the chunk is done.

mod device;
mod plan;
mod stepper;

pub use device::{
    adapter_for_tests, adapter_text, for_adapter, loop_limit, request_adapter, software_adapter,
    GpuRunner, RunError, CPU_ADAPTER_INLINE_GATES,
};
pub use stepper::{GpuStepper, Stepped};

use propnet_netlist::playout::PlayoutEnd;

/// Playouts from one start state.
#[derive(Clone, Debug)]
pub struct GpuJob<'a> {
    /// Start state, one bool per latch.
    pub start: &'a [bool],
    /// Index of the first playout (RNG counter).
    pub first_playout: u32,
    /// Number of playouts.
    pub count: u32,
}

/// Batch-wide parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RunParams {
    /// RNG seed.
    pub seed: u64,
    /// Step limit (joint moves).
    pub max_steps: u32,
    /// Read back each playout's final state.
    pub want_state: bool,
}

/// One playout's record as read back from the device (borrowed from the mapped buffer).
#[derive(Copy, Clone, Debug)]
pub struct RecordView<'a> {
    /// Index of the job in the request.
    pub job: usize,
    /// Playout index (RNG counter).
    pub index: u32,
    /// Joint moves made.
    pub length: u32,
    /// How it stopped.
    pub end: PlayoutEnd,
    /// Goals, 4 per word (byte `r % 4` of word `r / 4`).
    pub goal_words: &'a [u32],
    /// Final state, 32 latches per word; empty unless [`RunParams::want_state`].
    pub state_words: &'a [u32],
}

impl RecordView<'_> {
    /// Goal value of role `r`.
    pub fn goal(&self, r: usize) -> u8 {
        (self.goal_words[r / 4] >> (8 * (r % 4))) as u8
    }

    /// Final state as 64-bit words (the [`propnet_netlist::playout::PlayoutRecord`] format).
    pub fn state_u64(&self) -> Vec<u64> {
        self.state_words
            .chunks(2)
            .map(|c| u64::from(c[0]) | (u64::from(c.get(1).copied().unwrap_or(0)) << 32))
            .collect()
    }
}

/// Decodes the `end` word of a record (0, "never written", is rejected by the runner first).
pub(crate) fn decode_end(code: u32) -> PlayoutEnd {
    match code {
        1 => PlayoutEnd::Terminal,
        2 => PlayoutEnd::StepLimit,
        r => PlayoutEnd::NoLegalMove(r - 3),
    }
}
