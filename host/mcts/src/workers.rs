//! A search worker: selects a batch of leaves in the shared tree (holding its lock), runs
//! their rollouts on its own model (without it), back-propagates (holding it again), until
//! the budget that all workers share is spent.

use super::params::{Budget, MctsParams};
use super::tree::Tree;
use super::walk::{Core, Leaf, NewChildren};
use propnet_runtime::backend::JobResult;
use propnet_runtime::machine::{Expand, ExpandVia, GameMachine, MachineError, RolloutBatch};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Work counters of one worker, or of a search (summed).
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct Totals {
    pub iterations: u64,
    pub playouts: u64,
    pub states: u64,
    pub batches: u64,
    pub backend_time: Duration,
}

impl Totals {
    /// Adds another worker's counters.
    pub fn add(&mut self, o: &Totals) {
        self.iterations += o.iterations;
        self.playouts += o.playouts;
        self.states += o.states;
        self.batches += o.batches;
        self.backend_time += o.backend_time;
    }
}

/// The budget all workers of one search draw from, and the flag that stops them all.
pub(crate) struct Control<'p> {
    budget: Budget,
    /// When a time budget ends (also passed to the rollouts).
    pub deadline: Option<Instant>,
    /// Iterations handed out so far (for [`Budget::Iterations`]).
    claimed: AtomicU64,
    /// Raised when a worker failed or the root is solved.
    halt: AtomicBool,
    params: &'p MctsParams,
}

impl<'p> Control<'p> {
    /// The control of a search that started at `start`.
    pub fn new(budget: Budget, start: Instant, params: &'p MctsParams) -> Self {
        let deadline = match budget {
            Budget::Iterations(_) => None,
            Budget::Time(t) => start.checked_add(t),
            Budget::Deadline(d) => Some(d),
        };
        Control {
            budget,
            deadline,
            claimed: AtomicU64::new(0),
            halt: AtomicBool::new(false),
            params,
        }
    }

    /// Up to `k` more iterations for one batch; `0` once the budget is spent, the time is
    /// up, a stop was requested or another worker halted the search.
    pub(crate) fn claim(&self, k: u64) -> u64 {
        if self.halt.load(Ordering::Relaxed)
            || propnet_runtime::stop::requested()
            || self.params.stop.is_cancelled()
        {
            return 0;
        }
        match self.budget {
            Budget::Iterations(n) => {
                let mut cur = self.claimed.load(Ordering::Relaxed);
                loop {
                    if cur >= n {
                        return 0;
                    }
                    let take = (n - cur).min(k);
                    match self.claimed.compare_exchange_weak(
                        cur,
                        cur + take,
                        Ordering::Relaxed,
                        Ordering::Relaxed,
                    ) {
                        Ok(_) => return take,
                        Err(now) => cur = now,
                    }
                }
            }
            _ if self.deadline.is_some_and(|d| Instant::now() >= d) => 0,
            _ => k,
        }
    }

    pub(crate) fn halt(&self) {
        self.halt.store(true, Ordering::Relaxed);
    }
}

/// The callback of the calling thread's worker: gets the tree after every batch.
pub(crate) type Progress<'a, S, M> = &'a mut dyn FnMut(&Tree<S, M>);

/// A rollout job: start state, first playout index, playouts.
pub(crate) type Job<S> = (S, u32, u32);

/// Rollout jobs.
type Jobs<S> = Vec<Job<S>>;

/// Leaves selected for rollouts, each with its job.
pub(crate) type Selected<S> = Vec<(Leaf, Job<S>)>;

/// The shared tree, locked (a worker that panicked left it consistent enough to report).
pub(crate) fn lock<'a, 'c, S, M>(
    core: &'a Mutex<&'c mut Core<S, M>>,
) -> MutexGuard<'a, &'c mut Core<S, M>> {
    core.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs one worker until the shared budget is spent; `progress` (the calling thread's
/// worker only) gets the tree after every batch.
///
/// # Errors
/// The model's error; the other workers then stop at their next batch.
pub(crate) fn work<S, M, G>(
    core: &Mutex<&mut Core<S, M>>,
    params: &MctsParams,
    ctl: &Control<'_>,
    model: &mut G,
    mut progress: Option<Progress<'_, S, M>>,
) -> Result<Totals, MachineError>
where
    S: Clone,
    M: Copy + Eq + std::hash::Hash + std::fmt::Debug,
    G: GameMachine<State = S, Move = M> + ?Sized,
{
    let batch = u64::from(params.leaves_per_batch) * u64::from(params.playouts_per_leaf);
    if params.stream && model.streams(batch) {
        return super::stream::work(core, params, ctl, model, progress);
    }
    let k = u64::from(params.leaves_per_batch.max(1));
    let mut totals = Totals::default();
    let mut pending = Vec::new();
    loop {
        let count = ctl.claim(k);
        if count == 0 {
            break;
        }
        let batch = match select_batch(core, params, model, count, &mut pending, &mut totals) {
            Ok(None) => {
                ctl.halt();
                break;
            }
            Ok(Some(jobs)) => rollouts(core, params, ctl, model, jobs, &mut pending, &mut totals),
            Err(e) => Err(e),
        };
        if let Err(e) = batch {
            ctl.halt();
            let mut c = lock(core);
            for leaf in pending.drain(..) {
                c.virtual_loss(params, &leaf, false);
            }
            return Err(e);
        }
        if let Some(p) = progress.as_mut() {
            p(&lock(core).tree);
        }
    }
    Ok(totals)
}

/// Selects `count` leaves under virtual loss (leaves that end the game are back-propagated
/// at once), creating the new nodes they reach in one evaluation; returns the rollout jobs
/// of the others, whose leaves go to `pending`, or `None` when the root's value is exact
/// (nothing left to search).
fn select_batch<S, M, G>(
    core: &Mutex<&mut Core<S, M>>,
    params: &MctsParams,
    model: &mut G,
    count: u64,
    pending: &mut Vec<Leaf>,
    totals: &mut Totals,
) -> Result<Option<Jobs<S>>, MachineError>
where
    S: Clone,
    M: Copy + Eq + std::hash::Hash + std::fmt::Debug,
    G: GameMachine<State = S, Move = M> + ?Sized,
{
    let mut c = lock(core);
    let Some(leaves) = select_leaves(&mut c, params, &mut ExpandVia(model), count, totals)? else {
        return Ok(None);
    };
    let mut jobs = Vec::with_capacity(leaves.len());
    for (leaf, job) in leaves {
        pending.push(leaf);
        jobs.push(job);
    }
    Ok(Some(jobs))
}

/// The leaves [`select_batch`] selects on the locked tree, each with its rollout job
/// (start state, first playout index, playouts); `None` when the root's value is exact.
pub(crate) fn select_leaves<S, M>(
    c: &mut Core<S, M>,
    params: &MctsParams,
    eval: &mut dyn Expand<S, M>,
    count: u64,
    totals: &mut Totals,
) -> Result<Option<Selected<S>>, MachineError>
where
    S: Clone,
    M: Copy + Eq + std::hash::Hash + std::fmt::Debug,
{
    let per_leaf = params.playouts_per_leaf.max(1);
    if c.tree.node(c.tree.root()).exact.is_some() {
        return Ok(None);
    }
    let mut batch = NewChildren::default();
    let mut leaves = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let leaf = c.descend(params, &mut batch);
        totals.iterations += 1;
        if leaf.new_child.is_none() {
            if let Some(r) = c.tree.node(leaf.node).exact.clone() {
                c.backpropagate(params, &leaf, &r, false, (&[], 1));
                continue;
            }
        }
        c.virtual_loss(params, &leaf, true);
        leaves.push(leaf);
    }
    let created = match c.create(eval, &mut batch) {
        Ok(ids) => ids,
        Err(e) => {
            for leaf in &leaves {
                c.virtual_loss(params, leaf, false);
            }
            return Err(e);
        }
    };
    let mut out = Vec::with_capacity(leaves.len());
    for mut leaf in leaves {
        if let Some(k) = leaf.new_child.take() {
            leaf.node = created[k as usize];
            c.node_virtual_loss(params, leaf.node, true);
            if let Some(r) = c.tree.node(leaf.node).exact.clone() {
                c.backpropagate(params, &leaf, &r, true, (&[], 1));
                continue;
            }
        }
        let start = c.tree.node(leaf.node).state.clone();
        out.push((leaf, (start, c.next_playout, per_leaf)));
        c.next_playout = c.next_playout.wrapping_add(per_leaf);
    }
    Ok(Some(out))
}

/// Back-propagates the mean rewards of a leaf's rollouts `jr`; a leaf whose rollouts the
/// deadline cut off (no playouts) loses its virtual loss and counts no iteration.
pub(crate) fn record<S: Clone, M: Copy + Eq + std::hash::Hash + std::fmt::Debug>(
    c: &mut Core<S, M>,
    params: &MctsParams,
    leaf: &Leaf,
    jr: Option<&JobResult>,
    totals: &mut Totals,
) {
    let Some(jr) = jr.filter(|jr| jr.playouts > 0) else {
        c.virtual_loss(params, leaf, false);
        totals.iterations -= 1;
        return;
    };
    totals.playouts += jr.playouts;
    totals.states += jr.total_length;
    let n = jr.playouts as f64;
    let rewards: Vec<f64> = (jr.goal_sums.iter())
        .map(|&s| s as f64 / (100.0 * n))
        .collect();
    c.backpropagate(params, leaf, &rewards, true, (&jr.amaf, jr.playouts));
}

/// Runs the jobs on `model` (without the lock) and back-propagates each pending leaf's
/// mean rewards; a leaf the deadline cut off loses its virtual loss and counts no
/// iteration.
fn rollouts<S, M, G>(
    core: &Mutex<&mut Core<S, M>>,
    params: &MctsParams,
    ctl: &Control<'_>,
    model: &mut G,
    jobs: Jobs<S>,
    pending: &mut Vec<Leaf>,
    totals: &mut Totals,
) -> Result<(), MachineError>
where
    S: Clone,
    M: Copy + Eq + std::hash::Hash + std::fmt::Debug,
    G: GameMachine<State = S, Move = M> + ?Sized,
{
    if jobs.is_empty() {
        return Ok(());
    }
    let req = RolloutBatch {
        jobs,
        seed: params.seed,
        max_steps: params.max_steps,
        deadline: ctl.deadline,
    };
    let t = Instant::now();
    let res = model.rollouts(&req)?;
    totals.backend_time += t.elapsed();
    totals.batches += 1;
    let mut c = lock(core);
    for (i, leaf) in pending.drain(..).enumerate() {
        record(&mut c, params, &leaf, res.get(i), totals);
    }
    Ok(())
}
