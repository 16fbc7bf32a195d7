//! A search worker over a rollout stream ([`GameMachine::rollout_stream`]): the backend
//! asks for jobs whenever its lanes have room and hands back each leaf's playouts as soon
//! as they are done; the worker back-propagates them and selects the next leaves (holding
//! the tree's lock) inside that call. Tree work and rollouts then interleave at the
//! granularity of the backend's steps, and no lane idles while a batch's longest playouts
//! finish. Leaves in flight (selected, playouts not yet back-propagated) carry virtual
//! loss, as in a batch.

use super::params::MctsParams;
use super::walk::{Core, Leaf};
use super::workers::{lock, record, select_leaves, Control, Progress, Totals};
use propnet_runtime::backend::JobResult;
use propnet_runtime::machine::{Expand, GameMachine, MachineError, StateFeed, StateJob};
use rustc_hash::FxHashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Runs one worker on `model`'s rollout stream until the shared budget is spent (see the
/// module docs); `progress` gets the tree after every call of the feed that
/// back-propagated something.
///
/// # Errors
/// The model's error; the other workers then stop at their next batch.
pub(crate) fn work<S, M, G>(
    core: &Mutex<&mut Core<S, M>>,
    params: &MctsParams,
    ctl: &Control<'_>,
    model: &mut G,
    progress: Option<Progress<'_, S, M>>,
) -> Result<Totals, MachineError>
where
    S: Clone,
    M: Copy + Eq + std::hash::Hash + std::fmt::Debug,
    G: GameMachine<State = S, Move = M> + ?Sized,
{
    let start = Instant::now();
    let amaf = lock(core).keys.is_some();
    let mut feeder = Feeder {
        amaf,
        core,
        params,
        ctl,
        totals: Totals::default(),
        in_flight: FxHashMap::default(),
        next_tag: 0,
        error: None,
        done: false,
        progress,
        tree_time: Duration::ZERO,
    };
    let streamed = model.rollout_stream(params.seed, params.max_steps, ctl.deadline, &mut feeder);
    let mut c = lock(core);
    for (_, leaf) in feeder.in_flight.drain() {
        c.virtual_loss(params, &leaf, false);
        feeder.totals.iterations -= 1;
    }
    drop(c);
    let error = feeder.error.take().map_or(streamed, Err);
    if let Err(e) = error {
        ctl.halt();
        return Err(e);
    }
    let mut totals = feeder.totals;
    totals.backend_time = start.elapsed().saturating_sub(feeder.tree_time);
    Ok(totals)
}

/// The worker's side of the stream.
struct Feeder<'a, 'c, 'p, 'g, S, M> {
    core: &'a Mutex<&'c mut Core<S, M>>,
    params: &'a MctsParams,
    ctl: &'a Control<'p>,
    totals: Totals,
    /// Leaves whose playouts run, by job tag.
    in_flight: FxHashMap<u64, Leaf>,
    next_tag: u64,
    /// The evaluation error that ended the stream.
    error: Option<MachineError>,
    /// No more leaves will be selected (budget spent, root proven, error).
    done: bool,
    progress: Option<Progress<'g, S, M>>,
    /// Time spent in the feed (tree work); the rest of the stream is the backend's.
    tree_time: Duration,
    /// Ask for the rollouts' move sums (GRAVE is on, [`crate::grave`]).
    amaf: bool,
}

impl<S, M> StateFeed<S, M> for Feeder<'_, '_, '_, '_, S, M>
where
    S: Clone,
    M: Copy + Eq + std::hash::Hash + std::fmt::Debug,
{
    fn feed(
        &mut self,
        eval: &mut dyn Expand<S, M>,
        done: &mut Vec<(u64, JobResult)>,
        room: u64,
    ) -> Vec<StateJob<S>> {
        let t = Instant::now();
        let jobs = self.feed_locked(eval, done, room);
        self.tree_time += t.elapsed();
        jobs
    }
    fn wants_amaf(&self) -> bool {
        self.amaf
    }
}

impl<S, M> Feeder<'_, '_, '_, '_, S, M>
where
    S: Clone,
    M: Copy + Eq + std::hash::Hash + std::fmt::Debug,
{
    fn feed_locked(
        &mut self,
        eval: &mut dyn Expand<S, M>,
        done: &mut Vec<(u64, JobResult)>,
        room: u64,
    ) -> Vec<StateJob<S>> {
        let mut c = lock(self.core);
        let reported = !done.is_empty();
        for (tag, jr) in done.drain(..) {
            if let Some(leaf) = self.in_flight.remove(&tag) {
                record(&mut c, self.params, &leaf, Some(&jr), &mut self.totals);
            }
        }
        if reported {
            if let Some(p) = self.progress.as_mut() {
                p(&c.tree);
            }
        }
        if self.done || room == 0 {
            return Vec::new();
        }
        let per_leaf = u64::from(self.params.playouts_per_leaf.max(1));
        let most = u64::from(self.params.leaves_per_batch.max(1));
        let count = self.ctl.claim((room / per_leaf).clamp(1, most));
        if count == 0 {
            self.done = true;
            return Vec::new();
        }
        match select_leaves(&mut c, self.params, eval, count, &mut self.totals) {
            Ok(Some(leaves)) => {
                self.totals.batches += 1;
                let mut jobs = Vec::with_capacity(leaves.len());
                for (leaf, (start, first, n)) in leaves {
                    let tag = self.next_tag;
                    self.next_tag += 1;
                    self.in_flight.insert(tag, leaf);
                    jobs.push((tag, start, first, n));
                }
                jobs
            }
            Ok(None) => {
                // the root is proven: nothing left to search
                self.ctl.halt();
                self.done = true;
                Vec::new()
            }
            Err(e) => {
                self.ctl.halt();
                self.error = Some(e);
                self.done = true;
                Vec::new()
            }
        }
    }
}
