//! A player's belief in a GDL-II game: a bag of states consistent with everything it has
//! seen (its own moves and percepts), kept by sequential importance resampling.
//!
//! Each observed step propagates every particle through a joint move drawn from a model of
//! the others (the player's own move fixed; every other role, `random` included, uniform
//! over its legal moves) and keeps the successor only when the player's percepts from it
//! equal the observed ones. A kept successor is a draw from the posterior under that model
//! (rejection sampling: a history survives with probability proportional to its
//! likelihood), so the bag stays an unbiased sample; [`Belief::observe`] tries each
//! particle several times and resamples the survivors back to the bag's size. When nothing
//! survives, whole histories are drawn again from the initial state (HyperPlay's
//! re-sampling of consistent histories: Schofield, Cerexhe & Thielscher, "HyperPlay: A
//! Solution to General Game Playing with Imperfect Information", AAAI 2012).
//!
//! The belief sees the netlist's rules, its own moves and its percepts, nothing else: it
//! never reads the true state.

use super::Rng;
use propnet_netlist::scalar::ScalarNet;
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::machine::State;

/// Propagation attempts per particle and step before resampling.
const TRIES_PER_PARTICLE: usize = 4;
/// Attempts to draw one whole consistent history when every particle died.
const HISTORY_TRIES: usize = 2_000;

/// `size` states drawn from `pool` (non-empty): without replacement when the pool has
/// enough (a random subset: less variance than drawing with replacement), else all of it
/// and the rest drawn with replacement.
fn resample(mut pool: Vec<State>, size: usize, rng: &mut Rng) -> Vec<State> {
    let n = pool.len();
    for i in 0..size.min(n) {
        let j = i + rng.below(n - i);
        pool.swap(i, j);
    }
    let extra: Vec<State> = (n..size).map(|_| pool[rng.below(n)].clone()).collect();
    pool.truncate(size.min(n));
    pool.extend(extra);
    pool
}

/// One observed step: the player's own move and the percepts it got (indices into its
/// role's `percepts`, ascending).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    /// The player's move.
    pub own: InputId,
    /// Its percepts after the joint move.
    pub percepts: Vec<usize>,
}

/// A bag of states consistent with a role's observations (see the module docs).
pub struct Belief {
    role: usize,
    size: usize,
    particles: Vec<State>,
    history: Vec<Observation>,
    /// Steps at which no particle survived and histories were drawn again.
    pub rebuilds: u32,
}

impl Belief {
    /// The belief of `role` at the start of a game of `net`: `size` copies of the initial
    /// state (`size` at least 1).
    pub fn new(net: &Netlist, role: usize, size: usize) -> Self {
        let size = size.max(1);
        Self {
            role,
            size,
            particles: vec![net.initial_state(); size],
            history: Vec::new(),
            rebuilds: 0,
        }
    }

    /// The states of the bag (all consistent with the observations; some may repeat).
    pub fn particles(&self) -> &[State] {
        &self.particles
    }

    /// The observations so far.
    pub fn history(&self) -> &[Observation] {
        &self.history
    }

    /// A successor of `state` after a joint move with the role's move `own` and every
    /// other role's drawn uniformly, when the role's percepts equal `percepts`.
    fn propagate(
        &self,
        net: &Netlist,
        scalar: &mut ScalarNet,
        state: &[bool],
        obs: &Observation,
        rng: &mut Rng,
    ) -> Option<State> {
        let legal = propnet_netlist::playout::legal_of(net, scalar.view(state));
        if !legal[self.role].contains(&obs.own) {
            return None;
        }
        let mut joint = Vec::with_capacity(legal.len());
        for (r, ms) in legal.iter().enumerate() {
            if r == self.role {
                joint.push(obs.own);
            } else if ms.is_empty() {
                return None;
            } else {
                joint.push(ms[rng.below(ms.len())]);
            }
        }
        let (next, seen) = scalar.next_with_percepts(net, state, &joint);
        (seen[self.role] == obs.percepts).then_some(next)
    }

    /// Takes one observed step: propagates and resamples the bag (see the module docs).
    /// Returns false when no state consistent with the whole history was found (the bag
    /// then keeps its last states advanced blindly, so play can go on).
    pub fn observe(
        &mut self,
        net: &Netlist,
        scalar: &mut ScalarNet,
        obs: Observation,
        rng: &mut Rng,
    ) -> bool {
        let mut survivors = Vec::new();
        for p in &self.particles {
            for _ in 0..TRIES_PER_PARTICLE {
                if let Some(s) = self.propagate(net, scalar, p, &obs, rng) {
                    survivors.push(s);
                }
            }
        }
        self.history.push(obs);
        if survivors.is_empty() {
            self.rebuilds += 1;
            survivors = self.redraw(net, scalar, rng);
        }
        if survivors.is_empty() {
            return false;
        }
        self.particles = resample(survivors, self.size, rng);
        true
    }

    /// Whole histories drawn from the initial state, each step checked against the
    /// observations, until `size` are found or [`HISTORY_TRIES`] attempts are spent.
    fn redraw(&self, net: &Netlist, scalar: &mut ScalarNet, rng: &mut Rng) -> Vec<State> {
        let mut found = Vec::new();
        for _ in 0..HISTORY_TRIES {
            let mut s = net.initial_state();
            let ok =
                self.history
                    .iter()
                    .all(|obs| match self.propagate(net, scalar, &s, obs, rng) {
                        Some(next) => {
                            s = next;
                            true
                        }
                        None => false,
                    });
            if ok {
                found.push(s);
                if found.len() == self.size {
                    break;
                }
            }
        }
        found
    }
}
