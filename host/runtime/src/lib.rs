//! propnet's runtime: what every way of running a game shares, and nothing that needs a
//! device, a thread pool, a network or a plot.
//!
//! - [`backend`]: the [`backend::Backend`] interface every playout backend implements
//!   (batches of [`backend::Job`]s → aggregates and records), its errors, and the scalar
//!   [`backend::ReferenceBackend`], the yardstick of the others;
//!   [`backend::BackendFactory`] lets a caller hand backends to the GGP player and
//!   `compare` without them knowing the kinds.
//! - [`machine`]: the one game state machine ([`machine::GameMachine`]: initial state,
//!   legal moves, next state, terminal, goals, rollouts), implemented by the compiled
//!   netlist ([`machine::NetMachine`]) and by the reference interpreter
//!   ([`machine::InterpMachine`]); MCTS, the player, `compare`, `trace`, `perft` and the
//!   solver see games only through it.
//! - [`pipeline`]: a game file (KIF or netlist) to a validated netlist, with timings;
//!   [`measure`]: timed flat Monte Carlo through a backend; [`goals`]: the goal audit.
//! - [`perft`], [`solver`]: move-path counts and exact values of small games;
//!   [`stop`]: the process-wide stop request that long loops check.
//!
//! Depends on `propnet-compiler` and `propnet-netlist` only; the CPU simulator
//! (`propnet-sim`), the GPU (`propnet-kernels`) and the FPGA host (`propnet-fpga`)
//! implement [`backend::Backend`] on top of it.

pub mod backend;
pub mod factory;
#[cfg(any(test, feature = "testing"))]
pub mod fixtures;
pub mod goals;
pub mod machine;
pub mod measure;
pub mod net_trace;
pub mod perft;
pub mod pipeline;
pub mod solver;
pub mod step_check;
pub mod stop;
pub mod stream;
