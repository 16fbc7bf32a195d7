//! The propnet netlist IR: one arena of gates that every backend (CPU, WGSL, Verilog) reads.
//!
//! A netlist is a synchronous circuit. Its state is a bank of **latches**, one per base
//! proposition (fluent). Each step, the game's **inputs** (`does` propositions, one per
//! role and move) are driven by the chosen joint move; combinational **gates** compute the
//! views, `legal`, `goal`, `terminal` and, for every latch, its value in the next state.
//!
//! # Invariants (checked by [`validate`])
//! - Gates live in one arena, [`Netlist::gates`], indexed by [`GateId`]. Every operand of a
//!   gate has a *smaller* id than the gate itself: the arena order is a topological order and
//!   the netlist is acyclic. Positive loops of the game rules (legal GDL, e.g. a view that
//!   supports itself) are unrolled by the netlist builder into acyclic rounds that start
//!   from false, which gives the least-fixpoint value (see `ground::build`).
//! - `Gate::Input(i)` appears at most once per input, `Gate::Latch(l)` at most once per latch.
//! - `legal`, `goal` and `terminal` gates do not depend on any `Input` (GDL forbids `does`
//!   reaching them); only latch `next` functions may.
//! - Each role's `legal` list is sorted by the move's text in byte order; this order is the
//!   order in which the choice rule ([`crate::playout`]) indexes legal moves, on every backend.
//! - At most [`rng::MAX_ROLES`] roles (the RNG counter holds the role in 8 bits).
//!
//! # Analysed once
//! [`validate`] returns a [`NetlistInfo`] (levels and depth, move-dependent gates, the cone
//! of gates each [`Output`] needs, the legal/goal layout), and the backends' writers take
//! `(&Netlist, &NetlistInfo)` instead of re-deriving those facts; [`ValidNetlist`] owns both.
//!
//! [`factors`] analyses a netlist for search: its independent subgames (factors), the
//! latches they share, and the moves that can never change the outcome.
//!
//! No GDL types appear here: names are plain strings kept for printing and for mapping back.

#![deny(missing_docs)]

mod cancel;
mod dot;
mod info;
mod ir;
mod json;
pub mod random;
mod text;
mod validate;

pub mod factors;
pub mod passes;
pub mod playout;
pub mod rng;
pub mod scalar;

#[cfg(test)]
mod factors_tests;
#[cfg(test)]
mod serial_tests;

pub use cancel::Cancel;
pub use dot::to_dot;
pub use info::{NetlistInfo, Output, ValidNetlist};
pub use ir::*;
pub use json::{from_json, to_json, JsonError};
pub use text::{from_text, to_text, TextError};
pub use validate::{validate, ValidateError};
