//! A player's belief in a GDL-II game: a bag of states consistent with everything it has
//! seen (its own moves and percepts), kept by sequential importance resampling.
//!
//! Each observed step propagates every particle through the joint moves a model of the
//! others allows (the player's own move fixed; every other role, `random` included,
//! uniform over its legal moves) and keeps a successor only when the player's percepts
//! from it equal the observed ones: where the others have at most [`ENUMERATE`] joint
//! moves, all of them, each weighted by its probability under the model (exact Bayesian
//! filtering of the bag); else [`TRIES_PER_PARTICLE`] drawn ones (rejection sampling: a
//! history survives with probability proportional to its likelihood). Equal particles are
//! propagated once, with their multiplicity as weight (and as many draws). The survivors are resampled back
//! to the bag's size by weight. When nothing survives, whole histories are drawn again
//! from the initial state (HyperPlay's re-sampling of consistent histories: Schofield,
//! Cerexhe & Thielscher, "HyperPlay: A Solution to General Game Playing with Imperfect
//! Information", AAAI 2012); when that fails too, the bag is advanced without the check
//! (the player plays on, with a belief that no longer fits what it saw). All of it stops
//! at the deadline the caller gives, with what it has.
//!
//! The belief sees the netlist's rules, its own moves and its percepts, nothing else: it
//! never reads the true state.

use super::Rng;
use propnet_netlist::scalar::ScalarNet;
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::machine::State;
use rustc_hash::FxHashMap;
use std::time::Instant;

/// Largest number of the others' joint moves enumerated per particle (else sampled).
pub const ENUMERATE: usize = 256;
/// Drawn joint moves per particle where the others have more than [`ENUMERATE`].
pub const TRIES_PER_PARTICLE: usize = 8;
/// Attempts to draw one whole consistent history when every particle died.
const HISTORY_TRIES: usize = 500;

/// `size` states drawn from `pool` (non-empty) by weight, with systematic resampling (one
/// random offset, evenly spaced pointers: less variance than independent draws).
fn resample(pool: &[(State, f64)], size: usize, rng: &mut Rng) -> Vec<State> {
    let total: f64 = pool.iter().map(|x| x.1).sum();
    let step = total / size as f64;
    let mut at = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * step;
    let (mut k, mut acc) = (0, pool[0].1);
    let mut out = Vec::with_capacity(size);
    for _ in 0..size {
        while at >= acc && k + 1 < pool.len() {
            k += 1;
            acc += pool[k].1;
        }
        out.push(pool[k].0.clone());
        at += step;
    }
    out
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

    /// The legal moves of `state` when the role's move `own` is among them and every other
    /// role has one.
    fn legal_with(
        &self,
        net: &Netlist,
        scalar: &mut ScalarNet,
        state: &[bool],
        own: InputId,
    ) -> Option<Vec<Vec<InputId>>> {
        let legal = propnet_netlist::playout::legal_of(net, scalar.view(state));
        let ok = legal[self.role].contains(&own) && legal.iter().all(|l| !l.is_empty());
        ok.then_some(legal)
    }

    /// The successors of `state` consistent with `obs`, each with its probability under
    /// the model (see the module docs), appended to `out` with weights times `weight` (the
    /// state's copies in the bag: a sampled update draws [`TRIES_PER_PARTICLE`] per copy),
    /// until `deadline` once `out` has one.
    fn successors(
        &self,
        net: &Netlist,
        scalar: &mut ScalarNet,
        (state, weight): (&[bool], f64),
        (obs, deadline): (&Observation, Option<Instant>),
        rng: &mut Rng,
        out: &mut Vec<(State, f64)>,
    ) {
        let Some(legal) = self.legal_with(net, scalar, state, obs.own) else {
            return;
        };
        let space = (0..legal.len())
            .filter(|&r| r != self.role)
            .try_fold(1usize, |n, r| n.checked_mul(legal[r].len()))
            .unwrap_or(usize::MAX);
        let mut joint: Vec<InputId> = legal.iter().map(|l| l[0]).collect();
        joint[self.role] = obs.own;
        // sampled: as many draws as the copies of the state would have had
        let draws = TRIES_PER_PARTICLE * (weight.round() as usize).max(1);
        let (count, w) = match space <= ENUMERATE {
            true => (space, weight / space as f64),
            false => (draws, weight / draws as f64),
        };
        for k in 0..count {
            if k % 64 == 63 && !out.is_empty() && deadline.is_some_and(|d| Instant::now() >= d) {
                return;
            }
            let mut rest = k;
            for (r, ms) in legal.iter().enumerate().filter(|&(r, _)| r != self.role) {
                joint[r] = match space <= ENUMERATE {
                    true => ms[rest % ms.len()],
                    false => ms[rng.below(ms.len())],
                };
                rest /= ms.len();
            }
            let (next, seen) = scalar.next_with_percepts(net, state, &joint);
            if seen[self.role] == obs.percepts {
                out.push((next, w));
            }
        }
    }

    /// Takes one observed step (see the module docs), working until `deadline` at most
    /// (when given). Returns false when the bag was advanced without the percept check
    /// because no state consistent with the whole history was found.
    pub fn observe(
        &mut self,
        net: &Netlist,
        scalar: &mut ScalarNet,
        obs: Observation,
        rng: &mut Rng,
        deadline: Option<Instant>,
    ) -> bool {
        let late = || deadline.is_some_and(|d| Instant::now() >= d);
        let mut distinct: FxHashMap<&State, f64> = FxHashMap::default();
        for p in &self.particles {
            *distinct.entry(p).or_default() += 1.0;
        }
        let mut distinct: Vec<(&State, f64)> = distinct.into_iter().collect();
        distinct.sort_by(|a, b| a.0.cmp(b.0));
        let mut survivors = Vec::new();
        for (p, w) in distinct {
            if late() && !survivors.is_empty() {
                break;
            }
            self.successors(net, scalar, (p, w), (&obs, deadline), rng, &mut survivors);
        }
        self.history.push(obs);
        if survivors.is_empty() {
            self.rebuilds += 1;
            survivors = self.redraw(net, scalar, rng, deadline);
        }
        if survivors.is_empty() {
            self.advance_blindly(net, scalar, rng);
            return false;
        }
        self.particles = resample(&survivors, self.size, rng);
        true
    }

    /// Whole histories drawn from the initial state, each step checked against the
    /// observations, until `size` are found, [`HISTORY_TRIES`] attempts are spent or the
    /// deadline passes.
    fn redraw(
        &self,
        net: &Netlist,
        scalar: &mut ScalarNet,
        rng: &mut Rng,
        deadline: Option<Instant>,
    ) -> Vec<(State, f64)> {
        let mut found = Vec::new();
        let mut step = Vec::new();
        for _ in 0..HISTORY_TRIES {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let mut s = net.initial_state();
            let mut ok = true;
            for obs in &self.history {
                step.clear();
                self.successors(net, scalar, (&s, 1.0), (obs, deadline), rng, &mut step);
                match pick(&step, rng) {
                    Some(next) => s = next.clone(),
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                found.push((s, 1.0));
                if found.len() == self.size {
                    break;
                }
            }
        }
        found
    }

    /// Advances every particle by the last observation's own move and drawn moves of the
    /// others, without the percept check (a particle where the move is not legal stays).
    fn advance_blindly(&mut self, net: &Netlist, scalar: &mut ScalarNet, rng: &mut Rng) {
        let own = self.history.last().expect("an observation").own;
        for i in 0..self.particles.len() {
            let state = self.particles[i].clone();
            if let Some(legal) = self.legal_with(net, scalar, &state, own) {
                let joint: Vec<InputId> = (0..legal.len())
                    .map(|r| match r == self.role {
                        true => own,
                        false => legal[r][rng.below(legal[r].len())],
                    })
                    .collect();
                self.particles[i] = scalar.next_state(net, &state, &joint);
            }
        }
    }
}

/// One of `items` drawn with probability proportional to its weight (`None` when empty).
fn pick<'a>(items: &'a [(State, f64)], rng: &mut Rng) -> Option<&'a State> {
    let total: f64 = items.iter().map(|x| x.1).sum();
    let mut x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
    for (s, w) in items {
        if x < *w {
            return Some(s);
        }
        x -= w;
    }
    items.last().map(|x| &x.0)
}
