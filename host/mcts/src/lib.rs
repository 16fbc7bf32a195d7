//! Monte-Carlo tree search (UCT) over any [`propnet_runtime::machine::GameMachine`], with
//! batched rollouts, and the in-process players and matches built on it.
//!
//! - [`Search`] runs one search, [`MctsParams`] tunes it. The tree ([`Tree`]) is kept
//!   across moves: [`Search::advance`] makes the child of the actual joint move the root,
//!   at the cost of the path to it (nothing is renumbered or freed then: the nodes left
//!   behind give their slots to the nodes created next), so a reply after a long start
//!   clock does not wait for a million-node tree to be rebuilt.
//!   Rewards are goals scaled to 0..1 per role. Any number of roles; turn-taking and
//!   simultaneous moves (decoupled UCT).
//! - Parallelism: a worker selects K leaves under virtual loss, creates the new nodes they
//!   reach in one lane-parallel evaluation, and runs their rollouts as one backend batch;
//!   on the CPU simulator (where such a batch runs on one thread) the rollouts are
//!   *streamed* instead ([`MctsParams::stream`], module `stream`): lanes take new leaves'
//!   playouts as others finish and each leaf is back-propagated when its playouts are done. [`Search::search`] is one worker on the calling thread
//!   (deterministic for a fixed seed and iteration budget); [`Search::search_parallel`]
//!   runs one worker per model, each on its own thread and backend, all in one tree behind
//!   one lock that is held for selection and back-propagation only, so tree work and
//!   rollouts of different workers overlap. On the CPU simulator the workers are the cores
//!   (one single-threaded backend each): a backend call that spreads a small batch over a
//!   thread pool costs more in wake-ups than its playouts.
//! - Modules: `tree` (the arena, statistics), `walk` (selection, virtual loss,
//!   back-propagation on the shared tree), [`solve`] (MCTS-Solver: proven values),
//!   [`grave`] (GRAVE: all-moves-as-first statistics from the rollouts' move sums, off by
//!   default), `workers` (the worker loop and the shared budget), `search` (the API).
//! - Factors ([`propnet_netlist::factors`]): a netlist search keeps one of each role's
//!   outcome-free moves (moves that change only latches reaching no goal, terminal or legal
//!   gate: a subgame that does not count, an inert noop), since the others lead to
//!   equivalent states ([`MctsParams::merge_free_moves`]). [`factored`]: a player that
//!   searches the factors of a sum apart, one tree per factor game.
//! - [`hidden`]: play under hidden information (GDL-II): a particle belief per player,
//!   information-set MCTS over it, a referee that plays `random`.
//! - [`player`]: the in-process players (random, MCTS) of `propnet match`;
//!   [`matches`]: plays games between them and estimates each player's score.
//!
//! Cost per iteration: the tree phase (descent, the new node's share of a lane-parallel
//! evaluation of the view and transition cones, [`propnet_netlist::scalar::ScalarNet`],
//! and back-propagation) against K × playouts-per-leaf rollouts. Throughput per batch shape and
//! worker count, and strength per budget, are measured in BENCHMARKS.md ("MCTS").
//!
//! Depends on `propnet-runtime` (the state machine, backends, the stop request) only.

pub mod factored;
pub mod grave;
pub mod hidden;
pub mod matches;
mod params;
pub mod player;
mod search;
pub mod solve;
mod stream;
mod tree;
mod walk;
mod workers;

pub use grave::AmafStat;
pub use params::{Budget, MctsParams};
pub use search::{MoveReport, Search, SearchResult};
pub use tree::{Children, MoveStats, Node, NodeId, Tree};

#[cfg(test)]
mod tests;
