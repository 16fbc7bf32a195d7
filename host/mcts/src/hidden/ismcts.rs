//! [`BeliefPlayer`]: information-set MCTS ([`super::tree`]) over a particle belief (see
//! the module docs of [`super`]).

use super::memo::{Memo, View};
use super::seat::{most_visited, Seat};
use super::tree::HTree;
use super::HiddenPlayer;
use crate::player::SearchTotals;
use crate::Budget;
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::backend::{Backend, BackendError, BatchRequest, Job};
use propnet_runtime::machine::State;
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

/// One walk of [`BeliefPlayer::walk`]: the (node, role, move) triples passed (each role
/// in its own tree) and either the state to roll out from (`Ok`) or the rewards of the end
/// reached (`Err`).
struct Walk {
    path: Vec<(usize, usize, InputId)>,
    leaf: Result<State, Vec<f64>>,
}

/// Information-set MCTS with a particle belief (see the module docs of [`super`]).
pub struct BeliefPlayer {
    label: String,
    backend: Box<dyn Backend>,
    params: BeliefParams,
    budget: Budget,
    seat: Option<Seat>,
    /// The search tree, kept across the moves of a game (re-rooted at each observation).
    tree: Option<HTree>,
    /// The walks' views and transitions, remembered within a game.
    memo: Memo,
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
        Self {
            label,
            backend,
            params,
            budget,
            seat: None,
            tree: None,
            memo: Memo::default(),
            batches: 0,
            totals: SearchTotals::default(),
        }
    }

    /// Sets the search budget of the next [`HiddenPlayer::observe`] and
    /// [`HiddenPlayer::choose`] (a GGP player sets each PLAY's deadline).
    pub fn set_budget(&mut self, budget: Budget) {
        self.budget = budget;
    }

    /// Our role's moves as the belief knows them (see [`Seat::legal_moves`]); empty before
    /// [`HiddenPlayer::new_game`] or when the game is over in every state probed.
    pub fn legal_moves(&mut self, net: &Netlist) -> Vec<InputId> {
        self.seat
            .as_mut()
            .map_or_else(Vec::new, |s| s.legal_moves(net))
    }

    /// States in the belief now, distinct ones, and the times the belief was rebuilt
    /// from whole histories (no state had survived an observation).
    pub fn belief_size(&self) -> (usize, usize, u32) {
        self.seat.as_ref().map_or((0, 0, 0), |s| {
            let mut d: Vec<&State> = s.belief.particles().iter().collect();
            d.sort();
            d.dedup();
            (s.belief.particles().len(), d.len(), s.belief.rebuilds)
        })
    }

    /// One walk of the tree from its root in a state drawn from the belief (see
    /// [`super::tree`]): the nodes and joint moves passed, visited (virtual loss), and
    /// either the state where rollouts start or the rewards of the end reached.
    fn walk(&mut self, net: &Netlist, tree: &mut HTree) -> Walk {
        let p = &self.params;
        let seat = self.seat.as_mut().expect("new_game first");
        let memo = &mut self.memo;
        memo.trim();
        let mut s = memo.intern(&seat.sample());
        let Seat {
            scalar,
            rng,
            chance,
            ..
        } = seat;
        let seated = |r: &usize| Some(*r) != *chance;
        let mut path = Vec::new();
        let mut at = tree.roots.clone();
        let mut key: Vec<u32> = Vec::new();
        let mut joint: Vec<InputId> = Vec::new();
        for _ in 0..p.max_steps {
            let legal = match memo.view(net, scalar, s) {
                View::End(end) => {
                    return Walk {
                        path,
                        leaf: Err(end.clone()),
                    }
                }
                View::Moves(legal) => legal,
            };
            joint.clear();
            joint.extend((0..legal.len()).map(|r| match seated(&r) {
                false => legal[r][rng.below(legal[r].len())],
                true => tree.select(at[r], &legal[r], p.exploration),
            }));
            for r in (0..joint.len()).filter(seated) {
                tree.visit(at[r], joint[r]);
                path.push((at[r], r, joint[r]));
            }
            let step = memo.step(net, scalar, (s, &joint));
            s = step.next;
            let mut created = false;
            for r in (0..joint.len()).filter(seated) {
                key.clear();
                key.push(joint[r].0);
                key.extend(step.percepts[r].iter().map(|&p| p as u32));
                let (child, new) = tree.child(at[r], &key);
                at[r] = child;
                created |= new;
            }
            if created {
                break;
            }
        }
        Walk {
            path,
            leaf: Ok(memo.state(s).clone()),
        }
    }

    /// One batch: `leaves_per_batch` walks (fewer once `until` has passed: at least one),
    /// the rollouts of those that stopped at a new node as one backend batch, the rewards
    /// back-propagated. Returns the walks made.
    fn batch(
        &mut self,
        net: &Netlist,
        tree: &mut HTree,
        until: Option<Instant>,
    ) -> Result<u64, BackendError> {
        let p = self.params.clone();
        let mut walks = Vec::with_capacity(p.leaves_per_batch as usize);
        let mut jobs = Vec::new();
        for _ in 0..p.leaves_per_batch {
            // a slow walk (a big netlist) ends the batch at the deadline
            if !walks.is_empty() && until.is_some_and(|u| Instant::now() >= u) {
                break;
            }
            let mut w = self.walk(net, tree);
            if let Ok(start) = &mut w.leaf {
                jobs.push(Job {
                    start: std::mem::take(start),
                    first_playout: (jobs.len() as u32) * p.playouts_per_leaf,
                    count: p.playouts_per_leaf,
                });
            }
            walks.push(w);
        }
        self.batches += 1;
        let made = walks.len() as u64;
        let req = BatchRequest {
            jobs,
            seed: p.seed ^ u64::from(self.batches).rotate_left(24),
            max_steps: p.max_steps,
            want_records: false,
        };
        let t0 = Instant::now();
        let res = self.backend.run_batch(&req)?;
        self.totals.backend_time += t0.elapsed();
        let mut results = res.jobs.iter();
        for Walk { path, leaf } in walks {
            let reward = match leaf {
                Err(end) => end,
                Ok(_) => {
                    let j = results.next().expect("one result per job");
                    self.totals.playouts += j.playouts;
                    (j.goal_sums.iter())
                        .map(|&g| g as f64 / (100.0 * j.playouts.max(1) as f64))
                        .collect()
                }
            };
            for &(n, r, m) in &path {
                tree.reward(n, m, reward[r]);
            }
        }
        Ok(made)
    }
}

impl HiddenPlayer for BeliefPlayer {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn totals(&self) -> Option<SearchTotals> {
        Some(self.totals)
    }

    fn new_game(&mut self, net: &Netlist, role: usize, game: u64) {
        let (seed, particles) = (self.params.seed, self.params.particles);
        self.seat = Some(Seat::new(net, role, game, seed, particles));
        self.tree = None;
        self.memo.clear();
        self.batches = 0;
    }

    fn choose(&mut self, net: &Netlist, legal: &[InputId]) -> Result<InputId, BackendError> {
        if legal.len() == 1 {
            return Ok(legal[0]);
        }
        let start = Instant::now();
        let mut tree = (self.tree.take()).unwrap_or_else(|| HTree::new(net.roles.len()));
        let mut leaves = 0u64;
        let until = match self.budget {
            Budget::Iterations(_) => None,
            Budget::Time(t) => Some(start + t),
            Budget::Deadline(d) => Some(d),
        };
        loop {
            let done = match self.budget {
                Budget::Iterations(n) => leaves >= n,
                Budget::Time(t) => start.elapsed() >= t,
                Budget::Deadline(d) => Instant::now() >= d,
            };
            if done || propnet_runtime::stop::requested() {
                break;
            }
            leaves += self.batch(net, &mut tree, until)?;
        }
        let t = &mut self.totals;
        t.searches += 1;
        t.iterations += leaves;
        t.elapsed += start.elapsed();
        t.worker_time += start.elapsed();
        let role = self.seat.as_ref().expect("new_game first").role;
        let best = most_visited(legal, |i| tree.root_visits(role, legal[i]));
        self.tree = Some(tree);
        Ok(best)
    }

    fn observe(&mut self, net: &Netlist, own: InputId, percepts: &[usize]) {
        if let Some(seat) = self.seat.as_mut() {
            seat.observe(net, own, percepts, self.budget);
        }
        if let Some(tree) = self.tree.as_mut() {
            let key: Vec<u32> = std::iter::once(own.0)
                .chain(percepts.iter().map(|&p| p as u32))
                .collect();
            let role = self.seat.as_ref().map_or(0, |s| s.role);
            tree.advance(role, &key);
        }
    }
}
