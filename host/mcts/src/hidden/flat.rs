//! [`BeliefPlayer`]: information-set Monte Carlo over a belief (see the module docs of
//! [`super`]).

use super::belief::{Belief, Observation};
use super::{HiddenPlayer, Rng};
use crate::player::SearchTotals;
use crate::Budget;
use propnet_netlist::scalar::ScalarNet;
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::backend::{Backend, BackendError, BatchRequest, Job};
use std::time::Instant;

/// Shape and size of a [`BeliefPlayer`]'s search.
#[derive(Clone, Debug)]
pub struct BeliefParams {
    /// States in the belief (particles).
    pub particles: usize,
    /// Determinized successors (leaves) per backend batch.
    pub leaves_per_batch: u32,
    /// Rollouts per leaf.
    pub playouts_per_leaf: u32,
    /// UCB1 exploration constant (rewards scaled to 0..1).
    pub exploration: f64,
    /// Rollout depth cut-off in joint moves.
    pub max_steps: u32,
    /// Seed of the player's own draws (its model of the others, its resampling) and of
    /// its rollouts.
    pub seed: u64,
}

impl Default for BeliefParams {
    fn default() -> Self {
        Self {
            particles: 256,
            leaves_per_batch: 16,
            playouts_per_leaf: 16,
            exploration: 0.7,
            max_steps: 10_000,
            seed: 1,
        }
    }
}

/// Per own move: tries and summed rewards (0..1 each).
#[derive(Clone, Debug, Default)]
struct Arm {
    tries: f64,
    reward: f64,
}

/// Information-set Monte Carlo with a particle belief (see the module docs of [`super`]).
pub struct BeliefPlayer {
    label: String,
    backend: Box<dyn Backend>,
    params: BeliefParams,
    budget: Budget,
    role: usize,
    belief: Option<Belief>,
    scalar: Option<ScalarNet>,
    rng: Rng,
    /// Batches run so far in this game (the rollouts' playout counter).
    batches: u32,
    totals: SearchTotals,
}

impl BeliefPlayer {
    /// A player that searches for `budget` per move (iterations: leaves), rollouts on
    /// `backend` (which must run the netlist of the games it plays).
    pub fn new(
        label: String,
        backend: Box<dyn Backend>,
        params: BeliefParams,
        budget: Budget,
    ) -> Self {
        let rng = Rng::new(params.seed);
        Self {
            label,
            backend,
            params,
            budget,
            role: 0,
            belief: None,
            scalar: None,
            rng,
            batches: 0,
            totals: SearchTotals::default(),
        }
    }

    /// The current belief (after [`HiddenPlayer::new_game`]).
    pub fn belief(&self) -> Option<&Belief> {
        self.belief.as_ref()
    }

    /// One batch: `leaves` determinized successors of the arms UCB1 picks, their rollouts,
    /// the rewards added to `arms`. Returns the leaves run.
    fn batch(
        &mut self,
        net: &Netlist,
        legal: &[InputId],
        arms: &mut [Arm],
    ) -> Result<u64, BackendError> {
        let (role, p) = (self.role, self.params.clone());
        let belief = self.belief.as_ref().expect("new_game first");
        let scalar = self.scalar.as_mut().expect("new_game first");
        let mut picked = Vec::new();
        let mut jobs = Vec::new();
        let mut direct: Vec<(usize, f64)> = Vec::new();
        for _ in 0..p.leaves_per_batch {
            let total: f64 = arms.iter().map(|a| a.tries).sum::<f64>().max(1.0);
            let a = ucb(arms, total, p.exploration);
            arms[a].tries += 1.0; // virtual until the batch returns
            let particles = belief.particles();
            let s = &particles[self.rng.below(particles.len())];
            let others = propnet_netlist::playout::legal_of(net, scalar.view(s));
            let joint: Option<Vec<InputId>> = (0..others.len())
                .map(|r| match r == role {
                    true => others[r].contains(&legal[a]).then_some(legal[a]),
                    false => {
                        (!others[r].is_empty()).then(|| others[r][self.rng.below(others[r].len())])
                    }
                })
                .collect();
            let Some(joint) = joint else {
                // the move is not legal in this state: no information, no reward
                direct.push((a, 0.0));
                continue;
            };
            let next = scalar.next_state(net, s, &joint);
            picked.push(a);
            jobs.push(Job {
                start: next,
                first_playout: (jobs.len() as u32) * p.playouts_per_leaf,
                count: p.playouts_per_leaf,
            });
        }
        self.batches += 1;
        let req = BatchRequest {
            jobs,
            seed: p.seed ^ u64::from(self.batches).rotate_left(24),
            max_steps: p.max_steps,
            want_records: false,
        };
        let t0 = Instant::now();
        let res = self.backend.run_batch(&req)?;
        self.totals.backend_time += t0.elapsed();
        for (a, j) in picked.iter().zip(&res.jobs) {
            let r = j.goal_sums.get(role).copied().unwrap_or(0) as f64
                / (100.0 * j.playouts.max(1) as f64);
            arms[*a].reward += r;
            self.totals.playouts += j.playouts;
        }
        for (a, r) in direct {
            arms[a].reward += r;
        }
        Ok(u64::from(p.leaves_per_batch))
    }
}

/// The arm UCB1 picks (untried arms first, in order).
fn ucb(arms: &[Arm], total: f64, c: f64) -> usize {
    let score = |a: &Arm| match a.tries {
        0.0 => f64::INFINITY,
        t => a.reward / t + c * (total.ln() / t).sqrt(),
    };
    (0..arms.len())
        .max_by(|&x, &y| score(&arms[x]).total_cmp(&score(&arms[y])).then(y.cmp(&x)))
        .unwrap_or(0)
}

impl HiddenPlayer for BeliefPlayer {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn totals(&self) -> Option<SearchTotals> {
        Some(self.totals)
    }

    fn new_game(&mut self, net: &Netlist, role: usize, game: u64) {
        self.role = role;
        self.belief = Some(Belief::new(net, role, self.params.particles));
        self.scalar = Some(ScalarNet::new(net));
        self.rng = Rng::new(
            self.params.seed ^ game.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ ((role as u64) << 56),
        );
        self.batches = 0;
    }

    fn choose(&mut self, net: &Netlist, legal: &[InputId]) -> Result<InputId, BackendError> {
        if legal.len() == 1 {
            return Ok(legal[0]);
        }
        let start = Instant::now();
        let mut arms = vec![Arm::default(); legal.len()];
        let mut leaves = 0u64;
        loop {
            let done = match self.budget {
                Budget::Iterations(n) => leaves >= n,
                Budget::Time(t) => start.elapsed() >= t,
                Budget::Deadline(d) => Instant::now() >= d,
            };
            if done || propnet_runtime::stop::requested() {
                break;
            }
            leaves += self.batch(net, legal, &mut arms)?;
        }
        let t = &mut self.totals;
        t.searches += 1;
        t.iterations += leaves;
        t.elapsed += start.elapsed();
        t.worker_time += start.elapsed();
        let best = (0..arms.len())
            .max_by(|&x, &y| arms[x].tries.total_cmp(&arms[y].tries).then(y.cmp(&x)))
            .unwrap_or(0);
        Ok(legal[best])
    }

    fn observe(&mut self, net: &Netlist, own: InputId, percepts: &[usize]) {
        let (Some(belief), Some(scalar)) = (self.belief.as_mut(), self.scalar.as_mut()) else {
            return;
        };
        let obs = Observation {
            own,
            percepts: percepts.to_vec(),
        };
        belief.observe(net, scalar, obs, &mut self.rng);
    }
}
