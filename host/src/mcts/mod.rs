//! Monte-Carlo tree search (UCT) over a netlist, with rollouts batched through a
//! [`crate::backend::Backend`]: [`Search`] runs one search, [`MctsParams`] tunes it.
//!
//! Rewards are goals scaled to 0..1 per role. Any number of roles; turn-taking and
//! simultaneous moves (decoupled UCT). Single-threaded tree, deterministic for a fixed seed
//! and iteration budget; parallelism comes from batching K leaves (virtual loss) and from
//! the backend running their rollouts in parallel.
//!
//! # Throughput (measured, release build, `propnet best bench-games/connectfour.kif
//! --iterations 3000`, bit-parallel CPU backend, shared 2-core machine under load)
//!
//! | leaves/batch K | playouts/leaf | threads | iterations/s | playouts/s | backend share |
//! | --- | --- | --- | --- | --- | --- |
//! | 1 | 1 | 1 | 12 300 | 12 300 | 90% |
//! | 1 | 8 | 1 | 3 000 | 24 000 | 97% |
//! | 8 | 8 | 1 | 8 900 | 71 000 | 92% |
//! | 16 | 16 | 1 | 9 400 | 150 000 | 91% |
//! | 64 | 16 | 1 | 10 100 | 161 000 | 90% |
//! | 64 | 16 | 2 | 10 400 | 167 000 | 90% |
//!
//! A backend call has a fixed cost, so batching leaves matters far more than threads
//! here; the tree phase (selection, one scalar netlist evaluation per new node,
//! back-propagation) takes the remaining ~10%. The scalar reference backend does about
//! 3 200 playouts/s on the same game.

mod params;
mod search;
mod tree;

pub use params::{Budget, MctsParams};
pub use search::{MoveReport, Search, SearchResult};
pub use tree::{MoveStats, Node, NodeId, Tree};
