//! propnet runtime: backends, bit-parallel CPU simulator, MCTS, benches.
