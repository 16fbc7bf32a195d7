//! propnet runtime: the [`backend::Backend`] interface and its implementations
//! (reference, bit-parallel CPU, GPU), the netlist state machine, MCTS, benches, and the
//! comparison of reasoners ([`compare`]).

pub mod arena;
pub mod backend;
pub mod compare;
pub mod fixtures;
pub mod gpu;
pub mod machine;
pub mod mcts;
pub mod perft;
pub mod pipeline;
pub mod player;
pub mod select;
pub mod sim;
pub mod solver;
