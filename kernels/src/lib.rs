//! Netlist → WGSL compute shader code generator and wgpu playout runner.
//!
//! - [`wgsl`]: the code generator. [`wgsl::write_string`] turns a validated
//!   [`propnet_netlist::Netlist`] into a WGSL compute shader that runs whole random
//!   playouts on the GPU with exactly the semantics of [`propnet_netlist::playout`]
//!   (same Threefry-2x32-20 draws, same choice rule, same records).
//! - [`runner`]: uploads a batch of jobs, dispatches the shader (splitting batches that exceed
//!   the device limits) and reads the per-playout records back.
//! - [`backend`]: [`backend::GpuBackend`], the runner as a `propnet-runtime` backend.
//! - [`runner::GpuStepper`] with [`wgsl::step`] (straight-line) or [`wgsl::step_table`]
//!   (interpreted, above 20,000 gates): single transitions (state + joint move → next state
//!   and every role's percepts) for callers that need percepts (GDL-II traces, belief
//!   tracking), many per dispatch.
//!
//! # Layout
//! The shader is **bit-sliced**: one invocation runs `lanes` (default 32) playouts at once, one
//! per bit of a `u32`, so every gate is one bitwise instruction for 32 playouts. Lanes that
//! finish are refilled with the next unclaimed playout of the batch (a global atomic counter),
//! so long and short playouts share an invocation without idling. Gates are emitted either as
//! straight-line code ([`wgsl::Layout::Inline`]) or, above a size threshold, as a levelized
//! opcode stream interpreted from a storage buffer ([`wgsl::Layout::Table`]).

pub mod backend;
pub mod runner;
pub mod wgsl;

pub use runner::{GpuJob, GpuRunner, GpuStepper, RecordView, RunError, RunParams, Stepped};
pub use wgsl::{compile, write_string, Error, Kernel, Layout, Options};
