//! propnet runtime: the [`backend::Backend`] interface and its implementations
//! (reference, bit-parallel CPU, GPU), the netlist state machine, MCTS, benches, GGP play
//! over HTTP ([`ggp`]: the protocol player and the game manager) and the comparison of
//! reasoners ([`compare`]).

pub mod arena;
pub mod backend;
pub mod compare;
#[cfg(any(test, feature = "testing"))]
pub mod fixtures;
pub mod fpga;
pub mod ggp;
pub mod goals;
pub mod gpu;
pub mod machine;
pub mod mcts;
pub mod perft;
pub mod pipeline;
pub mod player;
pub mod select;
pub mod sim;
pub mod solver;
pub mod stop;
