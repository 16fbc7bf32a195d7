//! propnet runtime: the [`backend::Backend`] interface and its implementations
//! (reference, bit-parallel CPU, GPU), the netlist state machine, MCTS, benches.

pub mod backend;
pub mod gpu;
pub mod machine;
pub mod perft;
pub mod select;
