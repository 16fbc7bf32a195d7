//! Streams of rollout jobs ([`propnet_runtime::stream`]) on one block stepper: a lane
//! that finishes takes the next queued playout the same step, and the feed is asked for
//! more jobs while fewer than half a block of playouts are queued, so the lanes stay busy
//! as long as the feed gives work (a batch's lanes idle while its longest playouts
//! finish). A job's result is reported once all its playouts are counted: finished
//! playouts are scored a block at a time (the stepper's pending block), or at once when
//! nothing else runs.
//!
//! For programs stepped per lane ([`crate::program::Schedule::PerLane`]); lockstep and
//! pooled programs stream one batch at a time.

use crate::amaf::take_sparse;
use crate::batch::{Outcome, RunSpec};
use crate::isa::{dispatch, Isa, WithIsa};
use crate::options::Simd;
use crate::probe::NoProbe;
use crate::program::Program;
use crate::record::for_each_lane;
use crate::stepper::BlockStepper;
use propnet_runtime::backend::{BackendError, JobResult};
use propnet_runtime::stream::{JobFeed, StreamJob};
use std::collections::VecDeque;

/// Runs the stream of `feed` on one stepper of `lanes` lanes (one of
/// [`crate::SUPPORTED_LANES`]; others run 256) on the calling thread.
///
/// # Errors
/// [`BackendError::BadRequest`] for a job whose start state is not one bool per latch.
pub fn run_stream(
    prog: &Program,
    lanes: usize,
    (seed, max_steps, simd): (u64, u32, Simd),
    roles: usize,
    feed: &mut dyn JobFeed,
) -> Result<(), BackendError> {
    let params = Params {
        seed,
        max_steps,
        simd,
        roles,
    };
    match lanes {
        64 => run_width::<1>(prog, params, feed),
        128 => run_width::<2>(prog, params, feed),
        512 => run_width::<8>(prog, params, feed),
        1024 => run_width::<16>(prog, params, feed),
        2048 => run_width::<32>(prog, params, feed),
        _ => run_width::<4>(prog, params, feed),
    }
}

#[derive(Copy, Clone)]
struct Params {
    seed: u64,
    max_steps: u32,
    simd: Simd,
    roles: usize,
}

fn run_width<const W: usize>(
    prog: &Program,
    params: Params,
    feed: &mut dyn JobFeed,
) -> Result<(), BackendError> {
    let mut error = None;
    let body = Stream::<W> {
        stepper: BlockStepper::new(prog),
        latches: prog.latches,
        params,
        feed,
        error: &mut error,
    };
    dispatch(params.simd, body);
    error.map_or(Ok(()), Err)
}

/// The start states and first playout indices of the jobs in flight, by slot (what the
/// stepper reads through a [`RunSpec`]).
#[derive(Default)]
struct Starts {
    state: Vec<Vec<bool>>,
    first: Vec<u32>,
}

/// Which slot holds which job and how far it has got.
#[derive(Default)]
struct Slots {
    tag: Vec<u64>,
    count: Vec<u32>,
    started: Vec<u32>,
    free: Vec<u32>,
    /// Slots with playouts not started yet, oldest first.
    queue: VecDeque<u32>,
    /// Slots whose playouts have all started, not reported yet.
    live: Vec<u32>,
    /// Playouts queued, not started.
    queued: u64,
}

impl Slots {
    /// The next playout to start, as `(slot, offset)`.
    fn take(&mut self) -> Option<(u32, u32)> {
        let &s = self.queue.front()?;
        let i = s as usize;
        let offset = self.started[i];
        self.started[i] += 1;
        self.queued -= 1;
        if self.started[i] == self.count[i] {
            self.queue.pop_front();
            self.live.push(s);
        }
        Some((s, offset))
    }

    /// Moves every live job whose playouts are all counted in `out` to `done`.
    fn collect(&mut self, out: &mut Outcome, roles: usize, done: &mut Vec<(u64, JobResult)>) {
        let mut k = 0;
        while k < self.live.len() {
            let s = self.live[k];
            let i = s as usize;
            if out.jobs[i].playouts == u64::from(self.count[i]) {
                let fresh = JobResult {
                    goal_sums: vec![0; roles],
                    ..Default::default()
                };
                let mut result = std::mem::replace(&mut out.jobs[i], fresh);
                if let Some(dense) = out.amaf.get_mut(i) {
                    result.amaf = take_sparse(dense);
                }
                done.push((self.tag[i], result));
                self.live.swap_remove(k);
                self.free.push(s);
            } else {
                k += 1;
            }
        }
    }
}

struct Stream<'a, 'p, const W: usize> {
    stepper: BlockStepper<'p, W, NoProbe>,
    latches: usize,
    params: Params,
    feed: &'a mut dyn JobFeed,
    error: &'a mut Option<BackendError>,
}

impl<const W: usize> Stream<'_, '_, W> {
    /// Takes `jobs` into free slots (or new ones) and queues their playouts.
    fn add(
        &mut self,
        jobs: Vec<StreamJob>,
        starts: &mut Starts,
        slots: &mut Slots,
        out: &mut Outcome,
    ) -> Result<(), BackendError> {
        for StreamJob { tag, job } in jobs {
            if job.start.len() != self.latches {
                return Err(BackendError::BadRequest {
                    backend: "cpu".into(),
                    message: format!(
                        "streamed job {tag}: start state has {} values, netlist has {} latches",
                        job.start.len(),
                        self.latches
                    ),
                });
            }
            if job.count == 0 {
                let result = JobResult {
                    goal_sums: vec![0; self.params.roles],
                    ..Default::default()
                };
                out.jobs.push(result);
                let last = out.jobs.len() - 1;
                // reported at the next collection like any other job
                slots.tag.push(tag);
                slots.count.push(0);
                slots.started.push(0);
                starts.state.push(job.start);
                starts.first.push(job.first_playout);
                slots.live.push(last as u32);
                continue;
            }
            let s = match slots.free.pop() {
                Some(s) => {
                    let i = s as usize;
                    slots.tag[i] = tag;
                    slots.count[i] = job.count;
                    slots.started[i] = 0;
                    starts.state[i] = job.start;
                    starts.first[i] = job.first_playout;
                    s
                }
                None => {
                    out.jobs.push(JobResult {
                        goal_sums: vec![0; self.params.roles],
                        ..Default::default()
                    });
                    slots.tag.push(tag);
                    slots.count.push(job.count);
                    slots.started.push(0);
                    starts.state.push(job.start);
                    starts.first.push(job.first_playout);
                    (slots.tag.len() - 1) as u32
                }
            };
            slots.queue.push_back(s);
            slots.queued += u64::from(job.count);
        }
        Ok(())
    }
}

impl<const W: usize> WithIsa for Stream<'_, '_, W> {
    #[inline(always)]
    fn run(mut self, isa: Isa) {
        let lanes = BlockStepper::<W, NoProbe>::LANES as u64;
        let roles = self.params.roles;
        let mut starts = Starts::default();
        let mut slots = Slots::default();
        let mut out = Outcome::new(0, roles);
        let mut done = Vec::new();
        let amaf = self.feed.wants_amaf();
        loop {
            if slots.queued < lanes / 2 || !done.is_empty() {
                let room = if slots.queued < lanes / 2 {
                    lanes - slots.queued
                } else {
                    0
                };
                let jobs = self.feed.feed(&mut done, room);
                done.clear();
                if let Err(e) = self.add(jobs, &mut starts, &mut slots, &mut out) {
                    *self.error = Some(e);
                    return;
                }
            }
            // the start states change only when jobs are added: the steps up to the next
            // feed share one view of them
            let refs: Vec<&[bool]> = starts.state.iter().map(Vec::as_slice).collect();
            let spec = RunSpec {
                starts: &refs,
                first_playout: &starts.first,
                seed: self.params.seed,
                max_steps: self.params.max_steps,
                want_records: false,
                amaf,
                simd: self.params.simd,
            };
            loop {
                let stepper = &mut self.stepper;
                for_each_lane(&stepper.idle_lanes(), |lane| {
                    if let Some((job, offset)) = slots.take() {
                        stepper.start_lane(lane, job, offset, &spec);
                    }
                });
                stepper.end_refill(&spec);
                if stepper.is_idle() {
                    // nothing runs or waits: score the pending block, report, or end
                    stepper.flush(&spec, &mut out);
                    slots.collect(&mut out, roles, &mut done);
                    if done.is_empty() {
                        return;
                    }
                    break;
                }
                stepper.step(&spec, &mut out, isa);
                slots.collect(&mut out, roles, &mut done);
                if slots.queued < lanes / 2 || !done.is_empty() {
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{CpuBackend, CpuOptions};
    use propnet_netlist::ValidNetlist;
    use propnet_runtime::backend::{Backend, BatchRequest, Job, JobResult};
    use propnet_runtime::stream::{JobFeed, StreamJob};

    /// Gives `jobs` a few at a time (as a search would), and records what comes back.
    struct Feed {
        jobs: Vec<StreamJob>,
        per_call: usize,
        got: Vec<(u64, JobResult)>,
        calls: usize,
        amaf: bool,
    }

    impl JobFeed for Feed {
        fn feed(&mut self, done: &mut Vec<(u64, JobResult)>, room: u64) -> Vec<StreamJob> {
            self.calls += 1;
            self.got.append(done);
            if room == 0 {
                return Vec::new();
            }
            let n = self.per_call.min(self.jobs.len());
            self.jobs.drain(..n).collect()
        }
        fn wants_amaf(&self) -> bool {
            self.amaf
        }
    }

    /// Every job streamed (counts 0 to 600, fed 1, 3 or all at a time, at three lane
    /// widths) gets the result the same job gets in one batch, once.
    #[test]
    fn streamed_jobs_equal_batched_jobs() {
        let net = propnet_runtime::fixtures::connect_four();
        let starts: Vec<Vec<bool>> = {
            let m = propnet_runtime::machine::NetMachine::new(&net);
            let mut s = net.initial_state();
            let mut v = vec![s.clone()];
            for k in 0..6 {
                let legal = m.legal_moves(&s);
                let joint: Vec<_> = legal.iter().map(|l| l[k % l.len()]).collect();
                s = m.next_state(&s, &joint);
                v.push(s.clone());
            }
            v
        };
        let counts = [16u32, 0, 1, 600, 16, 37, 255, 16, 3, 64];
        let jobs: Vec<Job> = (counts.iter().enumerate())
            .map(|(i, &count)| Job {
                start: starts[i % starts.len()].clone(),
                first_playout: 1000 * i as u32,
                count,
            })
            .collect();
        let valid = ValidNetlist::new(net.clone()).unwrap();
        for lanes in [64, 256, 1024] {
            let opts = CpuOptions {
                threads: 1,
                lane_width: lanes,
                ..Default::default()
            };
            let mut b = CpuBackend::new(valid.clone(), opts).unwrap();
            assert!(b.streams(1 << 20));
            let req = BatchRequest {
                jobs: jobs.clone(),
                seed: 7,
                max_steps: 60,
                want_records: false,
            };
            let want = b.run_batch(&req).unwrap().jobs;
            for per_call in [1, 3, jobs.len()] {
                let mut feed = Feed {
                    jobs: (jobs.iter().enumerate())
                        .map(|(i, j)| StreamJob {
                            tag: 100 + i as u64,
                            job: j.clone(),
                        })
                        .collect(),
                    per_call,
                    got: Vec::new(),
                    calls: 0,
                    amaf: false,
                };
                b.run_stream(7, 60, &mut feed).unwrap();
                assert!(feed.jobs.is_empty(), "every job was taken");
                feed.got.sort_by_key(|g| g.0);
                let tags: Vec<u64> = feed.got.iter().map(|g| g.0).collect();
                assert_eq!(tags, (100..110).collect::<Vec<_>>(), "each job once");
                for (i, (_, r)) in feed.got.iter().enumerate() {
                    assert_eq!(r, &want[i], "job {i}, {lanes} lanes, {per_call} per call");
                }
            }
        }
    }

    /// A start state of the wrong length is refused with the job's tag.
    #[test]
    fn a_bad_start_state_is_refused() {
        let net = propnet_runtime::fixtures::tictactoe();
        let mut b =
            CpuBackend::new(ValidNetlist::new(net).unwrap(), CpuOptions::default()).unwrap();
        let mut feed = Feed {
            jobs: vec![StreamJob {
                tag: 9,
                job: Job {
                    start: vec![true; 3],
                    first_playout: 0,
                    count: 4,
                },
            }],
            per_call: 1,
            got: Vec::new(),
            calls: 0,
            amaf: false,
        };
        let e = b.run_stream(1, 10, &mut feed).unwrap_err().to_string();
        assert!(e.contains("streamed job 9") && e.contains("latches"), "{e}");
    }

    /// The all-moves-as-first sums of a stream that asks for them equal those of the
    /// reference playouts (each input counted once per playout that played it, with its
    /// role's goal); the rest of each result is the batch's.
    #[test]
    fn streamed_amaf_sums_equal_the_reference_playouts() {
        use propnet_netlist::playout::reference_playout_moves;
        use propnet_runtime::backend::AmafSum;
        for net in [
            propnet_runtime::fixtures::connect_four(),
            propnet_runtime::fixtures::tictactoe(),
        ] {
            let mut role_of = vec![0usize; net.inputs.len()];
            for (r, role) in net.roles.iter().enumerate() {
                for l in &role.legal {
                    role_of[l.input.index()] = r;
                }
            }
            let start = net.initial_state();
            let counts = [16u32, 5, 300, 1];
            let jobs: Vec<Job> = (counts.iter().enumerate())
                .map(|(i, &count)| Job {
                    start: start.clone(),
                    first_playout: 500 * i as u32,
                    count,
                })
                .collect();
            let valid = ValidNetlist::new(net.clone()).unwrap();
            for lanes in [64, 256] {
                let opts = CpuOptions {
                    threads: 1,
                    lane_width: lanes,
                    ..Default::default()
                };
                let mut b = CpuBackend::new(valid.clone(), opts).unwrap();
                let req = BatchRequest {
                    jobs: jobs.clone(),
                    seed: 3,
                    max_steps: 30,
                    want_records: false,
                };
                let batched = b.run_batch(&req).unwrap().jobs;
                let mut feed = Feed {
                    jobs: (jobs.iter().enumerate())
                        .map(|(i, j)| StreamJob {
                            tag: i as u64,
                            job: j.clone(),
                        })
                        .collect(),
                    per_call: 2,
                    got: Vec::new(),
                    calls: 0,
                    amaf: true,
                };
                b.run_stream(3, 30, &mut feed).unwrap();
                feed.got.sort_by_key(|g| g.0);
                assert_eq!(feed.got.len(), jobs.len());
                for (i, (_, got)) in feed.got.iter().enumerate() {
                    let mut dense = vec![(0u32, 0u64); net.inputs.len()];
                    for p in 0..jobs[i].count {
                        let mut played = vec![false; net.inputs.len()];
                        let rec = reference_playout_moves(
                            &net,
                            &start,
                            3,
                            jobs[i].first_playout + p,
                            30,
                            |_, joint| joint.iter().for_each(|m| played[m.index()] = true),
                        );
                        for (k, _) in played.iter().enumerate().filter(|(_, &x)| x) {
                            dense[k].0 += 1;
                            dense[k].1 += u64::from(rec.goals[role_of[k]]);
                        }
                    }
                    let want: Vec<AmafSum> = (dense.iter().enumerate())
                        .filter(|(_, e)| e.0 > 0)
                        .map(|(k, e)| AmafSum {
                            input: k as u32,
                            playouts: e.0,
                            goal_sum: e.1,
                        })
                        .collect();
                    assert!(!want.is_empty() || jobs[i].count == 0);
                    assert_eq!(got.amaf, want, "job {i}, {lanes} lanes");
                    let rest = JobResult {
                        amaf: Vec::new(),
                        ..got.clone()
                    };
                    assert_eq!(rest, batched[i], "job {i}, {lanes} lanes");
                }
            }
        }
    }
}
