//! Bit-parallel CPU simulator: one bit per independent playout lane, `64 * W` lanes per
//! block word group, blocks spread over threads.
//!
//! A netlist is compiled ([`program`]) into a flat levelized program (opcode and operand
//! index arrays, n-ary `And`/`Or` as operand ranges, `Not` folded into operand negation),
//! split into the core view phase (legal/terminal), the goal phase and the transition
//! phase. The block simulator (`engine`) steps all lanes together and refills finished
//! lanes from the work queue. Where the cost model says it pays (hex 9×9), the transition
//! phase is *guarded* (`guard`): runs whose latch group is 0 in every lane of the block
//! are skipped, and blocks are refilled together (lockstep) so that the groups no lane
//! has reached stay 0. The core phase of a large program (chess) is guarded too, by *skip
//! guards* (`observe`): a gate is skipped while it is 0 or no output depends on it, e.g.
//! the king-safety test of a square no lane's king stands on, or the moves of the side not
//! to move; a finished lane's latches are cleared so that it keeps no guard live while its
//! block finishes. Where latch names show a *key group* (fluents of which every state
//! holds exactly one: the side to move, a king's square), the core phase also gets *key
//! guards* ([`key`]): a gate is skipped while no lane holds a member it is needed for, as
//! found by specializing the netlist on each member; lanes are then kept in pools (up to
//! 32,768 lanes, latches stored as bits) re-sorted by key before every step and stepped
//! block by block through one engine (`engine::pool`), so that a block holds few king
//! squares, finished lanes are not stepped, and every block shares one set of slots. In large programs (at least 16,384 operands) a two-operand `And`
//! read by one `Or` only is fused into it as a product, and a product led by a latch that
//! is 0 in every lane of the block is skipped ([`program::Tuning`]). Latches take their
//! next values in place, straight from the slots that compute them (a latch fed by another
//! latch through a copy buffer), and a latch fed by a skipped guarded run is cleared only
//! when it is not already 0. Throughput runs choose the block width by measurement
//! ([`tune`]): wide blocks amortize the per-operand instruction cost, narrow ones keep the
//! slots in cache.
//! [`CpuBackend`] implements [`propnet_runtime::backend::Backend`].
//!
//! Cost model per joint move and lane: `instructions / 64` word operations per operand
//! plus the move choice (`legal moves` word reads per block, one Threefry draw per lane and
//! role with two or more legal moves). State per lane: one bit per slot.

#[cfg(target_arch = "x86_64")]
mod avx2;
mod backend;
mod bits;
mod choice;
mod draw;
mod engine;
pub mod eval;
mod fold;
mod guard;
pub mod key;
mod observe;
pub mod probe;
pub mod program;
mod queue;
mod record;
mod slots;
pub mod step;
pub mod tune;

pub use backend::CpuBackend;
pub use step::ProgramEvaluator;

/// Options of the CPU backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuOptions {
    /// Worker threads; 0 = one per core (rayon's default).
    pub threads: usize,
    /// Lanes per block, one of [`SUPPORTED_LANES`] (`64 * W` for `W` words per slot), or
    /// [`CpuOptions::TUNED_LANES`]: measured on the first batches ([`tune`]).
    pub lane_width: usize,
    /// Which instruction-set path steps the blocks.
    pub simd: Simd,
}

/// The instruction-set path of the CPU simulator. Both paths give bit-identical playouts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Simd {
    /// The AVX2 (with POPCNT and BMI1/2) path where the processor has it (detected at run
    /// time), else the portable one.
    #[default]
    Auto,
    /// The portable path on every processor (conformance tests run it on AVX2 machines
    /// too).
    Portable,
}

/// True when this processor runs the AVX2 path under [`Simd::Auto`]: x86-64 with AVX2,
/// POPCNT, BMI1 and BMI2.
pub fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Lane widths the simulator is built for. 4,096 lanes (64 words) would be slower
/// everywhere measured: the accumulator of an operand run no longer fits the registers.
pub const SUPPORTED_LANES: [usize; 6] = [64, 128, 256, 512, 1024, 2048];

impl CpuOptions {
    /// The lane width of flat throughput runs (`propnet run`, `bench`, `compare`): the
    /// first batches measure 512, 1,024 and 2,048 lanes per block and the fastest is kept
    /// ([`tune`]). MCTS keeps the default 256, which its leaf batches fill.
    pub const TUNED_LANES: usize = 0;
}

impl Default for CpuOptions {
    fn default() -> Self {
        CpuOptions {
            threads: 0,
            lane_width: 256,
            simd: Simd::Auto,
        }
    }
}

/// Errors of the CPU backend.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// Unsupported lane width.
    #[error("lane width {0} is not supported (use 64, 128, 256, 512, 1024 or 2048)")]
    LaneWidth(usize),
    /// The rayon thread pool could not be built.
    #[error("thread pool: {0}")]
    ThreadPool(String),
}
