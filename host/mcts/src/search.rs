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
use propnet_netlist::rng::{choose, key, threefry2x32_20};
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::backend::{Backend, BackendError};
use propnet_runtime::machine::State;
use propnet_runtime::machine::{GameMachine, MachineError, NetMachine, RolloutBatch};
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
pub struct MoveReport<M = InputId> {
    /// The move.
    pub input: M,
    /// Move text.
    pub name: String,
    /// Visits through this move.
    pub visits: u32,
    /// Mean reward of this role through this move, 0..1 (goal / 100).
    pub value: f64,
}

/// The outcome of one search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<M = InputId> {
    /// Per role, the root's move statistics (model order).
    pub roles: Vec<Vec<MoveReport<M>>>,
    /// Iterations (leaves evaluated, exact or by rollouts).
    pub iterations: u64,
    /// Rollouts run by the model.
    pub playouts: u64,
    /// Rollout calls (backend batches).
    pub batches: u64,
    /// Nodes in the tree at the end.
    pub nodes: usize,
    /// Wall-clock time of the search.
    pub elapsed: Duration,
    /// Time spent inside rollouts ([`Backend::run_batch`] for a netlist).
    pub backend_time: Duration,
}

impl<M: Copy> SearchResult<M> {
    /// The most-visited root move of `role` (ties: higher value, then model order), or
    /// `None` when the root ends the game.
    pub fn best_move(&self, role: usize) -> Option<M> {
        let mut best: Option<&MoveReport<M>> = None;
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
    /// Playouts per second of wall-clock time.
    pub fn playouts_per_second(&self) -> f64 {
        self.playouts as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
    /// Fraction of wall-clock time spent in the backend (0..1).
    pub fn backend_fraction(&self) -> f64 {
        self.backend_time.as_secs_f64() / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// One UCT search tree and its search state, generic over the model's state `S` and move
/// `M` (netlist states and inputs by default). `next_playout` and the tree-draw counter
/// carry over between searches made with the same value, so a player that keeps one
/// `Search` per game uses fresh random numbers at every move.
pub struct Search<S = State, M = InputId> {
    params: MctsParams,
    tree: Tree<S, M>,
    draws: u64,
    next_playout: u32,
}

impl Search {
    /// A netlist search with these parameters; call [`Search::run`] per move.
    pub fn new(params: MctsParams) -> Self {
        Self::for_machine(params)
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
        let mut model = NetMachine::with_backend(net, backend);
        self.run_machine(&mut model, root, budget)
            .map_err(|e| match e {
                MachineError::Backend(b) => b,
                other => BackendError::Failed {
                    backend: "netlist".into(),
                    message: other.to_string(),
                },
            })
    }
}

impl<
        S: Clone + Send + 'static,
        M: Copy + Eq + std::hash::Hash + std::fmt::Debug + Send + 'static,
    > Search<S, M>
{
    /// A search over any [`GameMachine`] with these states and moves.
    pub fn for_machine(params: MctsParams) -> Self {
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
    pub fn tree(&self) -> &Tree<S, M> {
        &self.tree
    }

    /// Builds a fresh tree at `root` and searches within `budget`.
    ///
    /// # Errors
    /// The model's error.
    pub fn run_machine<G: GameMachine<State = S, Move = M> + ?Sized>(
        &mut self,
        model: &mut G,
        root: &S,
        budget: Budget,
    ) -> Result<SearchResult<M>, MachineError> {
        self.set_root(model, root.clone())?;
        self.search(model, budget, &mut |_| {})
    }

    /// Replaces the tree by a single root for `state`.
    ///
    /// # Errors
    /// The model's error evaluating `state`.
    pub fn set_root<G: GameMachine<State = S, Move = M> + ?Sized>(
        &mut self,
        model: &mut G,
        state: S,
    ) -> Result<(), MachineError> {
        let view = model.view(&state)?;
        // the old tree (maybe a million nodes) is freed off this thread
        self.tree.reset(Node::from_view(state, view));
        Ok(())
    }

    /// Moves the root along the joint move actually played: the root's child for `joint`
    /// becomes the root with its statistics (tree reuse), or, when the tree lacks that
    /// child, a fresh root for `state` (the state after `joint`). Returns whether the
    /// subtree was reused.
    ///
    /// # Errors
    /// The model's error evaluating `state`.
    pub fn advance<G: GameMachine<State = S, Move = M> + ?Sized>(
        &mut self,
        model: &mut G,
        joint: &[M],
        state: S,
    ) -> Result<bool, MachineError> {
        match self.tree.root_child(joint) {
            Some(child) => {
                self.tree.reroot(child);
                Ok(true)
            }
            None => self.set_root(model, state).map(|()| false),
        }
    }

    /// Index (into the root's legal moves of `role`) of the most-visited root move now
    /// (ties: higher mean, then model order); `None` when the tree is empty or the root
    /// ends the game.
    pub fn best_index_now(&self, role: usize) -> Option<usize> {
        let root = self.tree.nodes.first()?;
        let stats = root.role_stats(role);
        let mut best: Option<usize> = None;
        for (i, s) in stats.iter().enumerate() {
            if best.is_none_or(|b| (s.visits, s.mean()) > (stats[b].visits, stats[b].mean())) {
                best = Some(i);
            }
        }
        best
    }

    /// The most-visited root move of `role` now (see [`Search::best_index_now`]).
    pub fn best_move_now(&self, role: usize) -> Option<M> {
        let i = self.best_index_now(role)?;
        Some(self.tree.nodes[0].legal[role][i])
    }

    /// Searches the current tree (see [`Search::set_root`], [`Search::advance`]) within
    /// `budget`; `progress` is called after every rollout batch (e.g. to publish the best
    /// move so far). A [`Budget::Deadline`] or [`Budget::Time`] is also passed to the
    /// model's rollouts, so a slow model stops inside a batch.
    ///
    /// # Errors
    /// The model's error.
    pub fn search<G: GameMachine<State = S, Move = M> + ?Sized>(
        &mut self,
        model: &mut G,
        budget: Budget,
        progress: &mut dyn FnMut(&Self),
    ) -> Result<SearchResult<M>, MachineError> {
        let start = Instant::now();
        let deadline = match budget {
            Budget::Iterations(_) => None,
            Budget::Time(t) => start.checked_add(t),
            Budget::Deadline(d) => Some(d),
        };
        let mut totals = Totals::default();
        let k = self.params.leaves_per_batch.max(1) as u64;
        loop {
            let remaining = match budget {
                Budget::Iterations(n) if totals.iterations >= n => break,
                Budget::Iterations(n) => (n - totals.iterations).min(k),
                _ if deadline.is_some_and(|d| Instant::now() >= d) => break,
                _ => k,
            };
            if propnet_runtime::stop::requested() || self.params.stop.is_cancelled() {
                break;
            }
            if self.tree.node(NodeId(0)).exact.is_some() {
                break;
            }
            self.batch(model, remaining, deadline, &mut totals)?;
            progress(self);
        }
        Ok(self.result(model, totals, start.elapsed()))
    }

    /// Selects up to `count` leaves, rolls them out as one batch and back-propagates.
    fn batch<G: GameMachine<State = S, Move = M> + ?Sized>(
        &mut self,
        model: &mut G,
        count: u64,
        deadline: Option<Instant>,
        totals: &mut Totals,
    ) -> Result<(), MachineError> {
        let per_leaf = self.params.playouts_per_leaf.max(1);
        let mut pending = Vec::new();
        let mut jobs = Vec::new();
        for _ in 0..count {
            let leaf = self.select(model)?;
            totals.iterations += 1;
            if let Some(r) = self.tree.node(leaf.node).exact.clone() {
                self.backpropagate(&leaf, &r, false);
                continue;
            }
            self.apply_virtual_loss(&leaf, true);
            jobs.push((
                self.tree.node(leaf.node).state.clone(),
                self.next_playout,
                per_leaf,
            ));
            self.next_playout = self.next_playout.wrapping_add(per_leaf);
            pending.push(leaf);
        }
        if jobs.is_empty() {
            return Ok(());
        }
        let req = RolloutBatch {
            jobs,
            seed: self.params.seed,
            max_steps: self.params.max_steps,
            deadline,
        };
        let t = Instant::now();
        let res = model.rollouts(&req)?;
        totals.backend_time += t.elapsed();
        totals.batches += 1;
        for (i, leaf) in pending.iter().enumerate() {
            let Some(jr) = res.get(i).filter(|jr| jr.playouts > 0) else {
                // cut off by the deadline: undo its virtual loss, count no iteration
                self.apply_virtual_loss(leaf, false);
                totals.iterations -= 1;
                continue;
            };
            totals.playouts += jr.playouts;
            let n = jr.playouts as f64;
            let rewards: Vec<f64> = jr
                .goal_sums
                .iter()
                .map(|&s| s as f64 / (100.0 * n))
                .collect();
            self.backpropagate(leaf, &rewards, true);
        }
        Ok(())
    }

    /// The root's statistics as a [`SearchResult`].
    fn result<G: GameMachine<State = S, Move = M> + ?Sized>(
        &self,
        model: &G,
        t: Totals,
        elapsed: Duration,
    ) -> SearchResult<M> {
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
                        name: model.move_text(m),
                        visits: s.visits,
                        value: s.mean(),
                    })
                    .collect()
            })
            .collect();
        SearchResult {
            roles,
            iterations: t.iterations,
            playouts: t.playouts,
            batches: t.batches,
            nodes: self.tree.nodes.len(),
            elapsed,
            backend_time: t.backend_time,
        }
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
    fn select<G: GameMachine<State = S, Move = M> + ?Sized>(
        &mut self,
        model: &mut G,
    ) -> Result<Leaf, MachineError> {
        let threshold = self.params.expand_threshold;
        let mut path = Vec::new();
        let mut id = self.tree.root();
        loop {
            let n = self.tree.node(id);
            if n.exact.is_some()
                || (id != self.tree.root() && n.visits + n.virtual_visits < threshold)
            {
                return Ok(Leaf { path, node: id });
            }
            let roles = n.legal.len();
            let moves: Box<[u32]> = (0..roles).map(|r| self.ucb_choice(id, r)).collect();
            let n = self.tree.node(id);
            if let Some(&child) = n.children.get(&moves) {
                path.push((id, moves));
                id = child;
                continue;
            }
            if self.tree.nodes.len() >= self.params.max_nodes {
                return Ok(Leaf { path, node: id });
            }
            let joint: Vec<M> = moves
                .iter()
                .enumerate()
                .map(|(r, &m)| n.legal[r][m as usize])
                .collect();
            let state = model.next_state(&n.state, &joint)?;
            let view = model.view(&state)?;
            let child = self.tree.push(Node::from_view(state, view));
            self.tree.node_mut(id).children.insert(moves.clone(), child);
            path.push((id, moves));
            return Ok(Leaf { path, node: child });
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

/// Work counters of one search.
#[derive(Copy, Clone, Debug, Default)]
struct Totals {
    iterations: u64,
    playouts: u64,
    batches: u64,
    backend_time: Duration,
}
