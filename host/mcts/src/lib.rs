//! Monte-Carlo tree search (UCT) over any [`propnet_runtime::machine::GameMachine`], with
//! batched rollouts, and the in-process players and matches built on it.
//!
//! - [`Search`] runs one search, [`MctsParams`] tunes it. The tree ([`Tree`]) is kept
//!   across moves: [`Search::advance`] makes the child of the actual joint move the root.
//!   Rewards are goals scaled to 0..1 per role. Any number of roles; turn-taking and
//!   simultaneous moves (decoupled UCT). Single-threaded tree, deterministic for a fixed
//!   seed and iteration budget; parallelism comes from batching K leaves (virtual loss)
//!   and from the backend running their rollouts in parallel.
//! - [`player`]: the in-process players (random, MCTS) of `propnet match`;
//!   [`matches`]: plays games between them and estimates each player's score.
//!
//! A backend call has a fixed cost, so batching leaves matters far more than threads; the
//! tree phase (selection, one scalar netlist evaluation per new node, back-propagation)
//! is the rest. Throughput per batch shape and strength per budget are measured in
//! BENCHMARKS.md ("MCTS (UCT) — connect four").
//!
//! Depends on `propnet-runtime` (the state machine, backends, the stop request) only.

pub mod matches;
mod params;
pub mod player;
mod search;
mod tree;

pub use params::{Budget, MctsParams};
pub use search::{MoveReport, Search, SearchResult};
pub use tree::{MoveStats, Node, NodeId, Tree};

#[cfg(test)]
mod tests;
