//! The search's API: [`Search`] over one model (deterministic for a fixed seed and
//! iteration budget) or over several models at once ([`Search::search_parallel`]: one
//! worker thread per model, one shared tree), and what a search reports.

use super::grave::Keys;
use super::params::{Budget, MctsParams};
use super::tree::{Node, Tree};
use super::walk::Core;
use super::workers::{work, Control, Totals};
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::backend::{Backend, BackendError};
use propnet_runtime::machine::State;
use propnet_runtime::machine::{free_moves_to_merge, GameMachine, MachineError, NetMachine};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    /// The proven reward of this role through this move, when the solver proved it.
    pub exact: Option<f64>,
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
    /// Joint moves made by those rollouts (state updates).
    pub states: u64,
    /// Rollout calls (backend batches).
    pub batches: u64,
    /// Nodes in the tree at the end.
    pub nodes: usize,
    /// Wall-clock time of the search.
    pub elapsed: Duration,
    /// Time spent inside rollouts ([`Backend::run_batch`] for a netlist), summed over
    /// the workers.
    pub backend_time: Duration,
    /// Worker threads that searched (one per model).
    pub workers: usize,
}

impl<M: Copy> SearchResult<M> {
    /// The root move to play for `role` ([`crate::solve::final_choice`]: the most-visited
    /// move, ties to the higher value, then model order, unless a proven move is worth
    /// more), or `None` when the root ends the game.
    pub fn best_move(&self, role: usize) -> Option<M> {
        let moves = &self.roles[role];
        crate::solve::final_choice(moves.iter().map(|m| (m.visits, m.value, m.exact)))
            .map(|i| moves[i].input)
    }
    /// Iterations per second of wall-clock time.
    pub fn iterations_per_second(&self) -> f64 {
        self.iterations as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
    /// Playouts per second of wall-clock time.
    pub fn playouts_per_second(&self) -> f64 {
        self.playouts as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
    /// Rollout state updates (joint moves) per second of wall-clock time.
    pub fn states_per_second(&self) -> f64 {
        self.states as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
    /// Fraction of the workers' wall-clock time spent in the backend (0..1): the backend
    /// time summed over workers, over `workers` times the elapsed time.
    pub fn backend_fraction(&self) -> f64 {
        self.backend_time.as_secs_f64()
            / (self.elapsed.as_secs_f64() * self.workers.max(1) as f64).max(1e-9)
    }
}

/// One UCT search tree and its search state, generic over the model's state `S` and move
/// `M` (netlist states and inputs by default). The rollout and tree-draw counters carry
/// over between searches made with the same value, so a player that keeps one `Search`
/// per game uses fresh random numbers at every move.
pub struct Search<S = State, M = InputId> {
    params: MctsParams,
    core: Core<S, M>,
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
        let mut model = NetMachine::with_backend(net, backend).merging(self.free_moves(net));
        self.run_machine(&mut model, root, budget)
            .map_err(backend_error)
    }

    /// [`Search::run`] with one worker thread per backend, all on one tree (see
    /// [`Search::search_parallel`]); one backend is [`Search::run`].
    ///
    /// # Errors
    /// A [`BackendError`] from a backend.
    pub fn run_parallel(
        &mut self,
        net: &Netlist,
        backends: &mut [Box<dyn Backend>],
        root: &State,
        budget: Budget,
    ) -> Result<SearchResult, BackendError> {
        self.search_backends(net, backends, Some(root), budget, &mut |_| {})
    }

    /// Searches on from `state` keeping what the tree knows of it: when the tree holds
    /// `state` within `depth` joint moves of its root ([`Tree::find_state`]: the moves
    /// played since the last search), that node becomes the root with its statistics
    /// ([`Tree::reroot`]); otherwise the search starts from a fresh root as
    /// [`Search::run_parallel`]. Returns the result and whether the tree was reused.
    ///
    /// # Errors
    /// A [`BackendError`] from a backend.
    pub fn run_on(
        &mut self,
        net: &Netlist,
        backends: &mut [Box<dyn Backend>],
        state: &State,
        depth: usize,
        budget: Budget,
    ) -> Result<(SearchResult, bool), BackendError> {
        self.run_on_progress(net, backends, state, depth, budget, &mut |_| {})
    }

    /// [`Search::run_on`], with `progress` given the tree after every rollout batch of the
    /// first worker (as [`Search::search`]).
    ///
    /// # Errors
    /// A [`BackendError`] from a backend.
    pub fn run_on_progress(
        &mut self,
        net: &Netlist,
        backends: &mut [Box<dyn Backend>],
        state: &State,
        depth: usize,
        budget: Budget,
        progress: &mut dyn FnMut(&Tree<State, InputId>),
    ) -> Result<(SearchResult, bool), BackendError> {
        let found = self.core.tree.find_state(state, depth);
        if let Some(id) = found {
            self.core.tree.reroot(id);
        }
        let root = found.is_none().then_some(state);
        let res = self.search_backends(net, backends, root, budget, progress)?;
        Ok((res, found.is_some()))
    }

    /// The outcome-free moves of `net` the search merges: none unless
    /// [`MctsParams::merge_free_moves`] says so.
    fn free_moves(&self, net: &Netlist) -> Option<Arc<[bool]>> {
        if self.params().merge_free_moves {
            free_moves_to_merge(net)
        } else {
            None
        }
    }

    /// One worker per backend on the tree, after a fresh root for `root` when given.
    fn search_backends(
        &mut self,
        net: &Netlist,
        backends: &mut [Box<dyn Backend>],
        root: Option<&State>,
        budget: Budget,
        progress: &mut dyn FnMut(&Tree<State, InputId>),
    ) -> Result<SearchResult, BackendError> {
        let free = self.free_moves(net);
        let mut models: Vec<NetMachine<'_>> = backends
            .iter_mut()
            .map(|b| NetMachine::with_backend(net, b.as_mut()).merging(free.clone()))
            .collect();
        let Some(first) = models.first_mut() else {
            return Err(BackendError::BadRequest {
                backend: "netlist".into(),
                message: "a search needs at least one backend".into(),
            });
        };
        let fresh = match root {
            Some(r) => self.set_root(first, r.clone()),
            None => Ok(()),
        };
        let run = fresh.and_then(|()| self.search_parallel(&mut models, budget, progress));
        run.map_err(backend_error)
    }
}

/// A netlist machine's error as the backend error it is.
fn backend_error(e: MachineError) -> BackendError {
    match e {
        MachineError::Backend(b) => b,
        other => BackendError::Failed {
            backend: "netlist".into(),
            message: other.to_string(),
        },
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
            core: Core {
                tree: Tree::default(),
                draws: 0,
                next_playout: 0,
                keys: None,
            },
        }
    }

    /// Numbers moves for GRAVE's tables as the model does ([`GameMachine::amaf_keys`]),
    /// when GRAVE is on.
    fn set_keys(&mut self, keys: Option<propnet_runtime::machine::MoveKeys<M>>) {
        let keys = keys.filter(|_| self.params.grave_ref > 0);
        let same = match (&self.core.keys, keys) {
            (Some(k), Some((count, _))) => k.count == count,
            (None, None) => true,
            _ => false,
        };
        if !same {
            self.core.keys = keys.map(Keys::new);
        }
    }

    /// The parameters.
    pub fn params(&self) -> &MctsParams {
        &self.params
    }

    /// The tree of the last run.
    pub fn tree(&self) -> &Tree<S, M> {
        &self.core.tree
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
        self.core.tree.reset(Node::from_view(state, view));
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
        match self.core.tree.root_child(joint) {
            Some(child) => {
                self.core.tree.reroot(child);
                Ok(true)
            }
            None => self.set_root(model, state).map(|()| false),
        }
    }

    /// Index (into the root's legal moves of `role`) of the most-visited root move now
    /// (ties: higher mean, then model order); `None` when the tree is empty or the root
    /// ends the game.
    pub fn best_index_now(&self, role: usize) -> Option<usize> {
        self.core.tree.root_node()?.best_index(role)
    }

    /// The most-visited root move of `role` now (see [`Search::best_index_now`]).
    pub fn best_move_now(&self, role: usize) -> Option<M> {
        let i = self.best_index_now(role)?;
        Some(self.core.tree.root_node()?.legal[role][i])
    }

    /// Searches the current tree (see [`Search::set_root`], [`Search::advance`]) within
    /// `budget` on one model, on the calling thread: deterministic for a fixed seed and
    /// [`Budget::Iterations`]. `progress` gets the tree after every rollout batch (e.g. to
    /// publish the best move so far). A [`Budget::Deadline`] or [`Budget::Time`] is also
    /// passed to the model's rollouts, so a slow model stops inside a batch.
    ///
    /// # Errors
    /// The model's error.
    pub fn search<G: GameMachine<State = S, Move = M> + ?Sized>(
        &mut self,
        model: &mut G,
        budget: Budget,
        progress: &mut dyn FnMut(&Tree<S, M>),
    ) -> Result<SearchResult<M>, MachineError> {
        let start = Instant::now();
        self.set_keys(model.amaf_keys());
        let ctl = Control::new(budget, start, &self.params);
        let core = Mutex::new(&mut self.core);
        let totals = work(&core, &self.params, &ctl, model, Some(progress))?;
        Ok(self.result(&*model, totals, 1, start.elapsed()))
    }

    /// [`Search::search`] with one worker per model, each on a thread of its own (the first
    /// on the calling thread, which also calls `progress`), all selecting leaves in one
    /// tree under one lock, with virtual loss, and running their rollouts on their own
    /// model without it: tree parallelism with a global mutex (Chaslot, Winands & van den
    /// Herik, "Parallel Monte-Carlo tree search", CG 2008). Each model should run its
    /// rollouts on a backend of its own with one thread; the tree work of all workers is
    /// serialized, the rollouts run side by side. With one model this is
    /// [`Search::search`]; with more the tree depends on the threads' timing.
    /// An empty `models` searches nothing.
    ///
    /// # Errors
    /// The first model's error (the other workers stop at their next batch).
    pub fn search_parallel<G: GameMachine<State = S, Move = M> + Send>(
        &mut self,
        models: &mut [G],
        budget: Budget,
        progress: &mut dyn FnMut(&Tree<S, M>),
    ) -> Result<SearchResult<M>, MachineError> {
        let start = Instant::now();
        let Some((first, rest)) = models.split_first_mut() else {
            return Ok(SearchResult {
                roles: Vec::new(),
                iterations: 0,
                playouts: 0,
                states: 0,
                batches: 0,
                nodes: self.core.tree.len(),
                elapsed: start.elapsed(),
                backend_time: Duration::ZERO,
                workers: 0,
            });
        };
        if rest.is_empty() {
            return self.search(first, budget, progress);
        }
        self.set_keys(first.amaf_keys());
        let ctl = Control::new(budget, start, &self.params);
        let params = &self.params;
        let core = Mutex::new(&mut self.core);
        let outcomes = std::thread::scope(|sc| {
            let (core, ctl) = (&core, &ctl);
            let helpers: Vec<_> = rest
                .iter_mut()
                .map(|m| sc.spawn(move || work(core, params, ctl, m, None)))
                .collect();
            let mut all = vec![work(core, params, ctl, &mut *first, Some(progress))];
            for h in helpers {
                all.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
            }
            all
        });
        let mut totals = Totals::default();
        for o in outcomes {
            totals.add(&o?);
        }
        let workers = models.len();
        Ok(self.result(&models[0], totals, workers, start.elapsed()))
    }

    /// The root's statistics as a [`SearchResult`].
    fn result<G: GameMachine<State = S, Move = M> + ?Sized>(
        &self,
        model: &G,
        t: Totals,
        workers: usize,
        elapsed: Duration,
    ) -> SearchResult<M> {
        let rootn = self.core.tree.node(self.core.tree.root());
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
                        exact: s.exact,
                    })
                    .collect()
            })
            .collect();
        SearchResult {
            roles,
            iterations: t.iterations,
            playouts: t.playouts,
            states: t.states,
            batches: t.batches,
            nodes: self.core.tree.len(),
            elapsed,
            backend_time: t.backend_time,
            workers,
        }
    }
}
