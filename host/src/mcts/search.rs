//! Decoupled UCT with batched rollouts: select K leaves under virtual loss, run their
//! rollouts as one backend batch (one job per leaf), back-propagate.
//!
//! Algorithm: UCT (Kocsis & Szepesvári, "Bandit based Monte-Carlo planning", ECML 2006) with
//! *decoupled* selection for simultaneous moves (each role picks its move by UCB1 over its own
//! statistics; the joint move names the child), as in CadiaPlayer (Finnsson & Björnsson 2008)
//! and Lanctot et al., "Monte Carlo tree search in simultaneous move games" (2013). In
//! turn-taking games every idle role has one legal move, so this is plain UCT.

use super::params::{Budget, MctsParams};
use super::tree::{Node, NodeId, Tree};
use crate::backend::{Backend, BackendError, BatchRequest, Job};
use crate::machine::State;
use propnet_netlist::playout::eval_gates;
use propnet_netlist::rng::{choose, key, threefry2x32_20};
use propnet_netlist::{InputId, Netlist};
use std::time::{Duration, Instant};

/// Key offset separating tree-policy draws from rollout draws of the same seed.
const TREE_KEY: u64 = 0x7265_655f_7563_7421;

/// A leaf selected for evaluation and the path that led to it.
struct Leaf {
    /// `(node, chosen move index per role)` from the root down to the leaf's parent.
    path: Vec<(NodeId, Box<[u32]>)>,
    /// The selected node.
    node: NodeId,
}

/// Statistics of one root move of one role.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReport {
    /// The move.
    pub input: InputId,
    /// Move text.
    pub name: String,
    /// Visits through this move.
    pub visits: u32,
    /// Mean reward of this role through this move, 0..1 (goal / 100).
    pub value: f64,
}

/// The outcome of one search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// Per role, the root's move statistics (netlist order).
    pub roles: Vec<Vec<MoveReport>>,
    /// Iterations (leaves evaluated, exact or by rollouts).
    pub iterations: u64,
    /// Rollouts run on the backend.
    pub playouts: u64,
    /// Backend calls.
    pub batches: u64,
    /// Nodes in the tree at the end.
    pub nodes: usize,
    /// Wall-clock time of the search.
    pub elapsed: Duration,
    /// Time spent inside [`Backend::run_batch`].
    pub backend_time: Duration,
}

impl SearchResult {
    /// The most-visited root move of `role` (ties: higher value, then netlist order), or
    /// `None` when the root ends the game.
    pub fn best_move(&self, role: usize) -> Option<InputId> {
        let mut best: Option<&MoveReport> = None;
        for m in &self.roles[role] {
            if best.is_none_or(|b| (m.visits, m.value) > (b.visits, b.value)) {
                best = Some(m);
            }
        }
        best.map(|m| m.input)
    }
    /// Iterations per second of wall-clock time.
    pub fn iterations_per_second(&self) -> f64 {
        self.iterations as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
    /// Fraction of wall-clock time spent in the backend (0..1).
    pub fn backend_fraction(&self) -> f64 {
        self.backend_time.as_secs_f64() / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// One UCT search from a root state. Owns its tree; the backend and netlist are borrowed
/// per call. `next_playout` and the tree-draw counter carry over between searches made with
/// the same value, so a player that keeps one `Search` per game uses fresh random numbers
/// at every move.
pub struct Search {
    params: MctsParams,
    tree: Tree,
    draws: u64,
    next_playout: u32,
}

impl Search {
    /// A search with these parameters; call [`Search::run`] per move.
    pub fn new(params: MctsParams) -> Self {
        Self {
            params,
            tree: Tree::default(),
            draws: 0,
            next_playout: 0,
        }
    }

    /// The parameters.
    pub fn params(&self) -> &MctsParams {
        &self.params
    }

    /// The tree of the last run.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Builds a fresh tree at `root` and searches within `budget`, with rollouts on
    /// `backend` (which must run `net`).
    ///
    /// # Errors
    /// A [`BackendError`] from the backend.
    pub fn run(
        &mut self,
        net: &Netlist,
        backend: &mut dyn Backend,
        root: &State,
        budget: Budget,
    ) -> Result<SearchResult, BackendError> {
        let start = Instant::now();
        self.tree = Tree::new(net, root.clone());
        let (mut iterations, mut playouts, mut batches) = (0u64, 0u64, 0u64);
        let mut backend_time = Duration::ZERO;
        let k = self.params.leaves_per_batch.max(1) as u64;
        let per_leaf = self.params.playouts_per_leaf.max(1);
        loop {
            let remaining = match budget {
                Budget::Iterations(n) if iterations >= n => break,
                Budget::Iterations(n) => (n - iterations).min(k),
                Budget::Time(t) if start.elapsed() >= t => break,
                Budget::Time(_) => k,
            };
            if self.tree.node(NodeId(0)).exact.is_some() {
                break;
            }
            let mut pending = Vec::new();
            let mut jobs = Vec::new();
            for _ in 0..remaining {
                let leaf = self.select(net);
                iterations += 1;
                if let Some(r) = self.tree.node(leaf.node).exact.clone() {
                    self.backpropagate(&leaf, &r, false);
                    continue;
                }
                self.apply_virtual_loss(&leaf, true);
                jobs.push(Job {
                    start: self.tree.node(leaf.node).state.clone(),
                    first_playout: self.next_playout,
                    count: per_leaf,
                });
                self.next_playout = self.next_playout.wrapping_add(per_leaf);
                pending.push(leaf);
            }
            if jobs.is_empty() {
                continue;
            }
            let req = BatchRequest {
                jobs,
                seed: self.params.seed,
                max_steps: self.params.max_steps,
                want_records: false,
            };
            let t = Instant::now();
            let res = backend.run_batch(&req)?;
            backend_time += t.elapsed();
            batches += 1;
            for (leaf, jr) in pending.iter().zip(&res.jobs) {
                playouts += jr.playouts;
                let n = jr.playouts.max(1) as f64;
                let rewards: Vec<f64> = jr
                    .goal_sums
                    .iter()
                    .map(|&s| s as f64 / (100.0 * n))
                    .collect();
                self.backpropagate(leaf, &rewards, true);
            }
        }
        let rootn = self.tree.node(NodeId(0));
        let roles = rootn
            .legal
            .iter()
            .enumerate()
            .map(|(r, ms)| {
                ms.iter()
                    .zip(rootn.role_stats(r))
                    .map(|(&m, s)| MoveReport {
                        input: m,
                        name: net.inputs[m.index()].name.clone(),
                        visits: s.visits,
                        value: s.mean(),
                    })
                    .collect()
            })
            .collect();
        Ok(SearchResult {
            roles,
            iterations,
            playouts,
            batches,
            nodes: self.tree.nodes.len(),
            elapsed: start.elapsed(),
            backend_time,
        })
    }

    /// A tree-policy random draw (deterministic in seed and call count).
    fn draw(&mut self) -> u32 {
        self.draws += 1;
        threefry2x32_20(
            key(self.params.seed ^ TREE_KEY),
            [self.draws as u32, (self.draws >> 32) as u32],
        )[0]
    }

    /// UCB1 choice of `role` at `node`; untried moves first, exact ties broken at random.
    fn ucb_choice(&mut self, node: NodeId, role: usize) -> u32 {
        let n = self.tree.node(node);
        let stats = n.role_stats(role);
        if stats.len() == 1 {
            return 0;
        }
        let total = f64::from(n.visits + n.virtual_visits).max(1.0);
        let ln_n = total.ln();
        let c = self.params.exploration;
        let mut best = f64::NEG_INFINITY;
        let mut ties: Vec<u32> = Vec::new();
        for (i, s) in stats.iter().enumerate() {
            let v = s.visits + s.virtual_visits;
            let score = if v == 0 {
                f64::INFINITY
            } else {
                let nv = f64::from(v);
                s.reward_sum / nv + c * (ln_n / nv).sqrt()
            };
            if score > best {
                best = score;
                ties.clear();
            }
            if score == best {
                ties.push(i as u32);
            }
        }
        if ties.len() == 1 {
            ties[0]
        } else {
            let x = self.draw();
            ties[choose(x, ties.len() as u32) as usize]
        }
    }

    /// Descends from the root by decoupled UCB1, creating at most one new node.
    fn select(&mut self, net: &Netlist) -> Leaf {
        let threshold = self.params.expand_threshold;
        let mut path = Vec::new();
        let mut id = self.tree.root();
        loop {
            let n = self.tree.node(id);
            if n.exact.is_some()
                || (id != self.tree.root() && n.visits + n.virtual_visits < threshold)
            {
                return Leaf { path, node: id };
            }
            let roles = n.legal.len();
            let moves: Box<[u32]> = (0..roles).map(|r| self.ucb_choice(id, r)).collect();
            let n = self.tree.node(id);
            if let Some(&child) = n.children.get(&moves) {
                path.push((id, moves));
                id = child;
                continue;
            }
            let joint: Vec<InputId> = moves
                .iter()
                .enumerate()
                .map(|(r, &m)| n.legal[r][m as usize])
                .collect();
            let state = next_state(net, &n.state, &joint);
            let child = self.tree.push(Node::new(net, state));
            self.tree.node_mut(id).children.insert(moves.clone(), child);
            path.push((id, moves));
            return Leaf { path, node: child };
        }
    }

    fn apply_virtual_loss(&mut self, leaf: &Leaf, add: bool) {
        let vl = self.params.virtual_loss;
        for (id, moves) in &leaf.path {
            self.tree.node_mut(*id).virtual_loss(moves, vl, add);
        }
        self.tree.node_mut(leaf.node).virtual_loss(&[], vl, add);
    }

    fn backpropagate(&mut self, leaf: &Leaf, rewards: &[f64], had_virtual_loss: bool) {
        if had_virtual_loss {
            self.apply_virtual_loss(leaf, false);
        }
        for (id, moves) in &leaf.path {
            self.tree.node_mut(*id).update(moves, rewards);
        }
        self.tree.node_mut(leaf.node).update(&[], rewards);
    }
}

/// The state after `joint` in `state` (scalar evaluation of the whole netlist).
fn next_state(net: &Netlist, state: &[bool], joint: &[InputId]) -> State {
    let mut inputs = vec![false; net.inputs.len()];
    for m in joint {
        inputs[m.index()] = true;
    }
    let v = eval_gates(net, state, &inputs);
    net.latches.iter().map(|l| v[l.next.index()]).collect()
}
