//! The CPU simulator's compiler: a validated netlist becomes a [`Program`], the flat,
//! levelized form that `propnet-sim` executes over lane words (one bit per playout lane).
//!
//! Compiling is done once per netlist, before any playout, in four steps:
//! 1. `fold`: every gate resolved to an operand (`Not` folded into a negate bit, aliases
//!    and constants removed) and every remaining `And`/`Or` to an n-ary instruction, with
//!    two-operand products fused into their single `Or` reader in large programs;
//! 2. [`program`]: instructions levelized and split into the core view phase (legal,
//!    terminal), the goal phase and the transition phase, with the slot layout and the
//!    refill [`Schedule`] (per lane, lockstep or pooled) decided here and nowhere else;
//! 3. `guard`: *zero guards* of the transition phase, latch groups whose being 0 in every
//!    lane of a block lets whole runs be skipped, and `observe`: *skip guards* of the core
//!    phase (a gate skipped while it is 0 or no output depends on it);
//! 4. [`key`]: *key guards*, found by specializing the netlist on each member of a key
//!    group (fluents of which every state holds exactly one, e.g. the side to move);
//! 5. [`sums`]: *input sums*, one slot per wide `Or` of the transition phase standing for
//!    its input operands, filled by the simulator from the moves it chose.
//!
//! Public API: [`Program`] (`Program::new`, `Program::with_tuning`) and its parts
//! ([`Phase`], [`Run`], [`RunKind`], [`Schedule`], [`Tuning`], [`KeyCheck`]), the operand
//! encoding ([`Operand`], [`slot`]) and the guard sentinel [`NONE`]. Depends on
//! `propnet-netlist` only: no threads, no instruction sets, no playouts; the simulator
//! (`propnet-sim`) depends on this crate, never the other way round.
//!
//! Modules, lowest first (each uses only modules listed before it): `operand`, `guard`,
//! `observe`, [`key`], `fold`, [`program`], [`sums`].

mod fold;
mod guard;
pub mod key;
mod observe;
mod operand;
pub mod program;
pub mod sums;

pub use key::KeyCheck;
pub use program::{slot, Operand, Phase, Program, Run, RunKind, Schedule, Tuning, NONE};
pub use sums::InputSums;
