//! propnet runtime: the [`backend::Backend`] interface and its implementations
//! (reference, bit-parallel CPU, GPU), the netlist state machine, MCTS, benches, and GGP
//! play over HTTP ([`ggp`]: the protocol player and the game manager).

pub mod arena;
pub mod backend;
#[cfg(any(test, feature = "testing"))]
pub mod fixtures;
pub mod fpga;
pub mod ggp;
pub mod gpu;
pub mod machine;
pub mod mcts;
pub mod perft;
pub mod pipeline;
pub mod player;
pub mod select;
pub mod sim;
pub mod solver;
