//! Comparing reasoners: ours (interpreter, netlist backends) and anyone's (gdl-perf's
//! process convention) on the same games, on the same machine, in one run, with a
//! correctness gate.
//!
//! - [`claims`], [`verify`], [`terms`]: reading another reasoner's trace (oracle JSON lines
//!   or gdl-perf's `!R!…` lines) and replaying it (`propnet verify`);
//! - [`external`], [`reasoner`]: external commands and reasoner specs;
//! - [`runner`]: the interleaved rounds of `propnet compare`;
//! - [`shard`], [`merge`]: a sweep split over the tasks of a job array (`--shard K/N`),
//!   each task's share of the cells planned alike everywhere, and the shards' reports
//!   merged into one (`propnet compare merge`);
//! - [`report`], [`plot`], [`output`], [`stamp`]: table, CSV, JSON, SVG/PNG plots and the
//!   stamp of the host the figures were taken on.
//!
//! Public API: [`runner::run`] with [`runner::Options`] (reasoners, rounds, seconds, the
//! gate) gives a [`report::Report`]; [`output::write_all`] writes its files.
//!
//! Depends on `propnet-runtime` for everything about backends: the built-in reasoners'
//! backends come from the [`propnet_runtime::factory::BackendFactory`] in the options,
//! their throughput from [`propnet_runtime::measure`] and their traces from
//! [`propnet_runtime::net_trace`]; plotters, png, shlex and nix (process groups of
//! external reasoners) are used here only.

pub mod claims;
pub mod external;
pub mod merge;
pub mod output;
pub mod plot;
pub mod reasoner;
pub mod report;
pub mod runner;
pub mod shard;
pub mod stamp;
pub mod terms;
pub mod verify;
