//! Play under hidden information (GDL-II, Thielscher 2010): players that see only their
//! own moves and percepts, and a referee that plays the `random` role.
//!
//! - [`HiddenPlayer`]: the interface of such a player. It is told its legal moves and,
//!   after each joint move, its own move and its percepts, and nothing else (the GDL-II
//!   protocol's `(PLAY id turn lastmove percepts)` carries the same): it has no way to
//!   read the true state.
//! - [`belief`]: a bag of states consistent with what a player saw (particles).
//! - [`BeliefPlayer`]: single-observer information-set MCTS (`tree`): each iteration
//!   draws a state of its belief (a determinization) and walks one tree shared by all of
//!   them, every role choosing by UCB1 among the moves legal in that state (`random`
//!   uniformly), then runs rollouts from the new node on its backend, batched (Cowling,
//!   Powley & Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012).
//! - [`DeterminizedPlayer`]: the perfect-information sampling baseline (UCT on states
//!   drawn from the same belief, root visits summed).
//! - [`play_hidden_game`]: one game with a referee that holds the true state, draws the
//!   `random` role's move uniformly (the project's counter-based RNG) and tells each player
//!   only its own move and percepts.

pub mod belief;
mod determinized;
mod game;
mod ismcts;
mod memo;
mod seat;
mod tree;

pub use determinized::{DeterminizedPlayer, SAMPLES_PER_MOVE};
pub use game::{play_hidden_game, random_role};
pub use ismcts::{BeliefParams, BeliefPlayer};

use propnet_compiler::interp::trace::SplitMix64;
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::backend::BackendError;

/// A player of a game with hidden information (see the module docs).
pub trait HiddenPlayer {
    /// Short label, e.g. `random` or `belief:cpu:1s`.
    fn label(&self) -> String;
    /// Search totals so far, for players that search.
    fn totals(&self) -> Option<crate::player::SearchTotals> {
        None
    }
    /// Called before each game with the seat's role and the game's index (for seeding).
    fn new_game(&mut self, net: &Netlist, role: usize, game: u64);
    /// Picks one of `legal` (the role's legal moves, non-empty, netlist order).
    ///
    /// # Errors
    /// A [`BackendError`] when the player's backend fails.
    fn choose(&mut self, net: &Netlist, legal: &[InputId]) -> Result<InputId, BackendError>;
    /// What the player learns from a joint move: its own move and its percepts (indices
    /// into its role's `percepts`, ascending).
    fn observe(&mut self, net: &Netlist, own: InputId, percepts: &[usize]);
}

/// Plays a uniformly random legal move and ignores its percepts.
pub struct RandomHidden {
    rng: Rng,
    seed: u64,
}

impl RandomHidden {
    /// A random player with this seed.
    pub fn new(seed: u64) -> Self {
        Self {
            rng: Rng::new(seed),
            seed,
        }
    }
}

impl HiddenPlayer for RandomHidden {
    fn label(&self) -> String {
        "random".into()
    }
    fn new_game(&mut self, _net: &Netlist, role: usize, game: u64) {
        self.rng = Rng::new(self.seed ^ game.rotate_left(32) ^ role as u64);
    }
    fn choose(&mut self, _net: &Netlist, legal: &[InputId]) -> Result<InputId, BackendError> {
        Ok(legal[self.rng.below(legal.len())])
    }
    fn observe(&mut self, _net: &Netlist, _own: InputId, _percepts: &[usize]) {}
}

/// How long a player with `budget` per move may spend taking in one observation
/// ([`belief::Belief::observe`]): as long as a move's search, from now; no limit for an
/// iteration budget (deterministic).
fn observe_deadline(budget: crate::Budget) -> Option<std::time::Instant> {
    let now = std::time::Instant::now();
    match budget {
        crate::Budget::Iterations(_) => None,
        crate::Budget::Time(t) => Some(now + t),
        crate::Budget::Deadline(d) => Some(d.max(now)),
    }
}

/// A player's own random stream: the project's SplitMix64
/// ([`propnet_compiler::interp::trace::SplitMix64`]), with a uniform draw below `n`; its
/// model of the others and its resampling, never shared with the referee.
#[derive(Clone, Debug)]
pub struct Rng(SplitMix64);

impl Rng {
    /// A stream from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(SplitMix64::new(seed))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (`n` at least 1; multiply-shift, bias below 2^-32 for n < 2^32).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests;
