//! Comparing reasoners: ours (interpreter, netlist backends) and anyone's (gdl-perf's
//! process convention) on the same games, on the same machine, in one run, with a
//! correctness gate.
//!
//! - [`engine`]: the compiled netlist as a [`propnet_compiler::interp::trace::TraceEngine`]
//!   (`propnet trace --engine netlist`);
//! - [`claims`], [`verify`], [`terms`]: reading another reasoner's trace (oracle JSON lines
//!   or gdl-perf's `!R!…` lines) and replaying it (`propnet verify`);
//! - [`measure`]: flat Monte Carlo throughput, shared with `propnet run` and `bench`;
//! - [`external`], [`reasoner`]: external commands and reasoner specs;
//! - [`runner`]: the interleaved rounds of `propnet compare`;
//! - [`report`], [`plot`], [`output`], [`machine`]: table, CSV, JSON, SVG/PNG plots and the
//!   machine stamp.

pub mod claims;
pub mod external;
pub mod output;
pub mod plot;
pub mod reasoner;
pub mod report;
pub mod runner;
pub mod stamp;
pub mod terms;
pub mod verify;
