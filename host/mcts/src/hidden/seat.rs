//! [`Seat`]: what a hidden-information player knows of the game it plays (its role, its
//! belief, an evaluator of the netlist and its own random stream), shared by the players
//! of this module.

use super::belief::{Belief, Observation};
use super::Rng;
use crate::Budget;
use propnet_netlist::scalar::ScalarNet;
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::machine::State;

/// Distinct belief states probed by [`Seat::legal_moves`].
pub(super) const LEGAL_PROBE: usize = 64;

/// A player's view of one game (see the module docs).
pub(super) struct Seat {
    /// The player's role.
    pub role: usize,
    /// The game's `random` role, if any.
    pub chance: Option<usize>,
    /// The states consistent with what the player saw.
    pub belief: Belief,
    /// Scalar evaluation of the netlist (view, transition, percepts).
    pub scalar: ScalarNet,
    /// The player's own draws.
    pub rng: Rng,
}

impl Seat {
    /// The seat of `role` at the start of game `game` of `net`: a belief of `particles`
    /// initial states, a stream seeded from `seed`, the game and the role.
    pub fn new(net: &Netlist, role: usize, game: u64, seed: u64, particles: usize) -> Self {
        Seat {
            role,
            chance: super::random_role(net),
            belief: Belief::new(net, role, particles),
            scalar: ScalarNet::new(net),
            rng: Rng::new(seed ^ game.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ ((role as u64) << 56)),
        }
    }

    /// Takes in the player's move `own` and its `percepts`, within the time of a move of
    /// `budget` ([`super::observe_deadline`]).
    pub fn observe(&mut self, net: &Netlist, own: InputId, percepts: &[usize], budget: Budget) {
        let obs = Observation {
            own,
            percepts: percepts.to_vec(),
        };
        let deadline = super::observe_deadline(budget);
        self.belief
            .observe(net, &mut self.scalar, obs, &mut self.rng, deadline);
    }

    /// Our role's moves legal in the most distinct states of the belief (at most
    /// [`LEGAL_PROBE`] of them), in netlist order: in every one of them where the game
    /// lets a role know its own legal moves, as well-formed GDL-II games do. Empty when
    /// every probed state is terminal or leaves our role no move.
    pub fn legal_moves(&mut self, net: &Netlist) -> Vec<InputId> {
        let mut states: Vec<&State> = self.belief.particles().iter().collect();
        states.sort();
        states.dedup();
        let mut counts: Vec<(InputId, usize)> = Vec::new();
        for s in states.into_iter().take(LEGAL_PROBE) {
            let values = self.scalar.view(s);
            if values[net.terminal.index()] {
                continue;
            }
            for m in &propnet_netlist::playout::legal_of(net, values)[self.role] {
                match counts.iter_mut().find(|(x, _)| x == m) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((*m, 1)),
                }
            }
        }
        let most = counts.iter().map(|&(_, n)| n).max().unwrap_or(0);
        let mut moves: Vec<InputId> = (counts.into_iter())
            .filter(|&(_, n)| n == most)
            .map(|(m, _)| m)
            .collect();
        moves.sort();
        moves
    }

    /// A state drawn from the belief (a determinization).
    pub fn sample(&mut self) -> State {
        let particles = self.belief.particles();
        particles[self.rng.below(particles.len())].clone()
    }
}

/// The move of `legal` (non-empty) with the most `visits`, ties to the first.
pub(super) fn most_visited(legal: &[InputId], visits: impl Fn(usize) -> f64) -> InputId {
    let best = (0..legal.len())
        .max_by(|&x, &y| visits(x).total_cmp(&visits(y)).then(y.cmp(&x)))
        .unwrap_or(0);
    legal[best]
}
