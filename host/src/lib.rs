//! propnet runtime: the [`backend::Backend`] interface and its implementations
//! (reference, bit-parallel CPU, GPU), the netlist state machine, MCTS, benches.

pub mod backend;
pub mod machine;
pub mod fixtures;
pub mod mcts;
pub mod arena;
pub mod player;
pub mod solver;
