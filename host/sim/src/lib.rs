//! Bit-parallel CPU simulator: one bit per independent playout lane, `64 * W` lanes per
//! block word group, blocks spread over threads.
//!
//! A netlist is compiled ([`program`], from the `propnet-sim-program` crate, re-exported
//! here) into a flat levelized program (opcode and operand index arrays, n-ary `And`/`Or`
//! as operand ranges, `Not` folded into operand negation), split into the core view phase
//! (legal/terminal), the goal phase and the transition phase. The block stepper (`stepper`) steps all lanes of a block together; the driver
//! (`drive`) gives each thread one stepper and refills finished lanes from the work queue
//! as the program's [`program::Schedule`] says. Where the cost model says it pays (hex
//! 9×9), the transition phase is *guarded* (`guard`): runs whose latch group is 0 in
//! every lane of the block are skipped, and blocks are refilled together (lockstep) so
//! that the groups no lane has reached stay 0. The core phase of a large program (chess)
//! is guarded too, by *skip guards*: a gate is skipped while it is 0 or no
//! output depends on it, e.g. the king-safety test of a square no lane's king stands on,
//! or the moves of the side not to move; a finished lane's latches are cleared so that it
//! keeps no guard live while its block finishes. Where latch names show a *key group*
//! (fluents of which every state holds exactly one: the side to move, a king's square),
//! the core phase also gets *key guards* ([`key`]): a gate is skipped while no lane holds
//! a member it is needed for, as found by specializing the netlist on each member; lanes
//! are then kept in pools (up to 32,768 lanes, latches stored as bits) re-sorted by key
//! before every step and stepped block by block through one stepper (`pool`), so that a
//! block holds few king squares, finished lanes are not stepped, and every block shares
//! one set of slots. In large programs (at least 16,384 operands) a two-operand `And`
//! read by one `Or` only is fused into it as a product, and a product led by a latch that
//! is 0 in every lane of the block is skipped ([`program::Tuning`]). Latches take their
//! next values in place, straight from the slots that compute them (a latch fed by another
//! latch through a copy buffer), and a latch fed by a skipped guarded run is cleared only
//! when it is not already 0. Throughput runs choose the block width by measurement
//! ([`tune`]): wide blocks amortize the per-operand instruction cost, narrow ones keep the
//! slots in cache. The whole loop of a thread runs on one instruction-set path, picked
//! once per run (`isa`: AVX2 or portable, [`Simd`]).
//! [`CpuBackend`] implements [`propnet_runtime::backend::Backend`].
//!
//! Cost model per joint move and lane: `instructions / 64` word operations per operand
//! plus the move choice (`legal moves` word reads per block, one Threefry draw per lane and
//! role with two or more legal moves). State per lane: one bit per slot. Roles of
//! thousands of moves (amazons) are kept sparse where lanes are: their move sets per lane
//! hold only the chunks with a legal move, only the moves set are cleared, and the
//! transition's wide `Or`s of their inputs read input sums ([`program`]'s `sums`) filled
//! from the moves chosen.
//!
//! Modules, lowest first (each uses only modules listed before it and the compiled
//! [`program`]): `options`, `bits`, `draw`, `probe`, `queue`, [`tune`]; [`eval`], `slots`,
//! [`step`], `avx2`, `isa`, `choice`, `batch`, `record`, `amaf` (the moves each lane
//! played, summed per job when a stream asks: [`JobResult::amaf`]); `stepper`; `pool`;
//! `drive`; `stream`; `backend`.
//!
//! [`JobResult::amaf`]: propnet_runtime::backend::JobResult::amaf

#[cfg(target_arch = "x86_64")]
mod amaf;
mod avx2;
mod backend;
mod batch;
mod bits;
mod choice;
mod draw;
mod drive;
pub mod eval;
mod isa;
mod options;
mod pool;
pub mod probe;
mod queue;
mod record;
mod slots;
pub mod step;
mod stepper;
mod stream;
pub mod tune;

pub use backend::{program_size, CpuBackend, SimError};
pub use options::{avx2_available, CpuOptions, Simd, SUPPORTED_LANES};
pub use propnet_sim_program::{key, program};
pub use step::ProgramEvaluator;
