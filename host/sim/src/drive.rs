//! Drives block steppers through a batch: one per thread, all drawing playouts from one
//! work queue, each refilling its lanes as the program's [`Schedule`] says.
//!
//! - [`Schedule::PerLane`]: a finished lane takes the next playout of the queue at once,
//!   so lanes stay busy until the queue is empty.
//! - [`Schedule::Lockstep`]: a block is refilled all together once its last lane has
//!   finished, so that the guard groups no lane has reached stay 0.
//! - [`Schedule::Pooled`]: lanes live in a pool re-sorted by key before every step and
//!   are stepped block by block through one stepper ([`crate::pool`]). A thread whose
//!   share of the batch fills one block only runs it as one lockstep block (a pool of one
//!   block would sort and copy its lanes for nothing).
//!
//! The whole loop of a thread, stepper inlined, runs on the instruction-set path that
//! [`dispatch`] picks once per run.

use crate::batch::{Outcome, RunSpec};
use crate::isa::{dispatch, Isa, WithIsa};
use crate::pool::{pool_capacity, Pool};
use crate::probe::{PhaseTimes, Probe};
use crate::program::{Program, Schedule};
use crate::queue::{Cursor, WorkQueue};
use crate::record::for_each_lane;
use crate::stepper::BlockStepper;
use rayon::prelude::*;

/// Runs a batch on `threads` block steppers of `lanes` lanes (one of
/// [`crate::SUPPORTED_LANES`]), one per worker thread of the current rayon pool (`1` runs
/// on the calling thread), all drawing from `queue`; returns each one's outcome (for a
/// game of `roles` roles) and phase times.
pub fn run_batch<P: Probe + Send>(
    lanes: usize,
    prog: &Program,
    spec: &RunSpec<'_>,
    queue: &WorkQueue,
    threads: usize,
    roles: usize,
) -> Vec<(Outcome, PhaseTimes)> {
    match lanes {
        64 => run_threads::<1, P>(prog, spec, queue, threads, roles),
        128 => run_threads::<2, P>(prog, spec, queue, threads, roles),
        256 => run_threads::<4, P>(prog, spec, queue, threads, roles),
        1024 => run_threads::<16, P>(prog, spec, queue, threads, roles),
        2048 => run_threads::<32, P>(prog, spec, queue, threads, roles),
        _ => run_threads::<8, P>(prog, spec, queue, threads, roles),
    }
}

/// [`run_batch`] with blocks of `W` words.
fn run_threads<const W: usize, P: Probe + Send>(
    prog: &Program,
    spec: &RunSpec<'_>,
    queue: &WorkQueue,
    threads: usize,
    roles: usize,
) -> Vec<(Outcome, PhaseTimes)> {
    let run_one = || run_thread::<W, P>(prog, spec, queue, threads, roles);
    if threads <= 1 {
        return vec![run_one()];
    }
    (0..threads).into_par_iter().map(|_| run_one()).collect()
}

/// One thread's share of a batch (see the module doc): playouts taken from `queue` until
/// it is empty, on one block stepper of `64 * W` lanes.
fn run_thread<const W: usize, P: Probe>(
    prog: &Program,
    spec: &RunSpec<'_>,
    queue: &WorkQueue,
    threads: usize,
    roles: usize,
) -> (Outcome, PhaseTimes) {
    let mut out = Outcome::new(spec.starts.len(), roles);
    let mut stepper = BlockStepper::<W, P>::new(prog);
    let lanes = BlockStepper::<W, P>::LANES;
    let capacity = pool_capacity(prog, lanes, queue.total() / threads as u64);
    if prog.schedule == Schedule::Pooled && capacity > lanes {
        let pooled = Pooled {
            stepper: &mut stepper,
            prog,
            spec,
            queue,
            out: &mut out,
            capacity,
        };
        dispatch(spec.simd, pooled);
    } else {
        let blocks = Blocks {
            stepper: &mut stepper,
            spec,
            queue,
            out: &mut out,
            per_lane: prog.schedule == Schedule::PerLane,
        };
        dispatch(spec.simd, blocks);
    }
    let times = stepper.phase_times();
    (out, times)
}

/// A thread's run in blocks: per lane or (not `per_lane`) in lockstep.
struct Blocks<'a, 's, 'p, const W: usize, P: Probe> {
    stepper: &'a mut BlockStepper<'p, W, P>,
    spec: &'a RunSpec<'s>,
    queue: &'a WorkQueue,
    out: &'a mut Outcome,
    per_lane: bool,
}

impl<const W: usize, P: Probe> WithIsa for Blocks<'_, '_, '_, W, P> {
    #[inline(always)]
    fn run(self, isa: Isa) {
        let Blocks {
            stepper,
            spec,
            queue,
            out,
            per_lane,
        } = self;
        let mut cursor = queue.cursor();
        fill(stepper, &mut cursor, spec);
        stepper.end_refill(spec);
        while !stepper.is_idle() {
            let fin = stepper.step(spec, out, isa);
            if per_lane {
                for_each_lane(&fin, |lane| {
                    if let Some((job, offset)) = cursor.take() {
                        stepper.start_lane(lane, job, offset, spec);
                    }
                });
            } else if stepper.is_idle() {
                fill(stepper, &mut cursor, spec);
            }
            stepper.end_refill(spec);
        }
        stepper.flush(spec, out);
    }
}

/// Starts the next playouts of the queue in every lane (the block must be idle), as many
/// as the queue has left.
#[inline(always)]
fn fill<const W: usize, P: Probe>(
    stepper: &mut BlockStepper<'_, W, P>,
    cursor: &mut Cursor<'_>,
    spec: &RunSpec<'_>,
) {
    for lane in 0..BlockStepper::<W, P>::LANES {
        let Some((job, offset)) = cursor.take() else {
            break;
        };
        stepper.start_lane(lane, job, offset, spec);
    }
}

/// A thread's run through a pool of `capacity` lanes ([`crate::pool`]).
struct Pooled<'a, 's, 'p, const W: usize, P: Probe> {
    stepper: &'a mut BlockStepper<'p, W, P>,
    prog: &'a Program,
    spec: &'a RunSpec<'s>,
    queue: &'a WorkQueue,
    out: &'a mut Outcome,
    capacity: usize,
}

impl<const W: usize, P: Probe> WithIsa for Pooled<'_, '_, '_, W, P> {
    #[inline(always)]
    fn run(self, isa: Isa) {
        let mut cursor = self.queue.cursor();
        let mut pool = Pool::new(self.prog, self.spec, self.capacity);
        pool.run(self.stepper, &mut cursor, self.spec, self.out, isa);
    }
}
