//! Bit-parallel CPU simulator: one bit per independent playout lane, `64 * W` lanes per
//! block word group, blocks spread over threads.
//!
//! A netlist is compiled ([`program`]) into a flat levelized program (opcode and operand
//! index arrays, n-ary `And`/`Or` as operand ranges, `Not` folded into operand negation),
//! split into the core view phase (legal/terminal), the goal phase and the transition
//! phase. The block simulator (`engine`) steps all lanes together and refills finished
//! lanes from the work queue. [`CpuBackend`] implements [`crate::backend::Backend`].
//!
//! Cost model per joint move and lane: `instructions / 64` word operations per operand
//! plus the move choice (`legal moves` word reads per block, one Threefry draw per lane and
//! role with two or more legal moves). State per lane: one bit per slot.

mod backend;
mod bits;
mod draw;
mod engine;
mod eval;
pub mod program;

pub use backend::CpuBackend;

/// Options of the CPU backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuOptions {
    /// Worker threads; 0 = one per core (rayon's default).
    pub threads: usize,
    /// Lanes per block: 64, 128, 256 or 512 (`64 * W` for `W` words per slot).
    pub lane_width: usize,
}

impl Default for CpuOptions {
    fn default() -> Self {
        CpuOptions {
            threads: 0,
            lane_width: 256,
        }
    }
}

/// Errors of the CPU backend.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// Unsupported lane width.
    #[error("lane width {0} is not supported (use 64, 128, 256 or 512)")]
    LaneWidth(usize),
    /// The rayon thread pool could not be built.
    #[error("thread pool: {0}")]
    ThreadPool(String),
}
