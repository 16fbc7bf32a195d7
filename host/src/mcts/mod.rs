//! Monte-Carlo tree search (UCT) over a netlist, with rollouts batched through a
//! [`crate::backend::Backend`]: [`Search`] runs one search, [`MctsParams`] tunes it.
//!
//! Rewards are goals scaled to 0..1 per role. Any number of roles; turn-taking and
//! simultaneous moves (decoupled UCT). Single-threaded tree, deterministic for a fixed seed
//! and iteration budget; parallelism comes from batching K leaves (virtual loss) and from
//! the backend running their rollouts in parallel.

mod params;
mod search;
mod tree;

pub use params::{Budget, MctsParams};
pub use search::{MoveReport, Search, SearchResult};
pub use tree::{MoveStats, Node, NodeId, Tree};
