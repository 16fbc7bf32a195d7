//! [`CpuBackend`]: the bit-parallel simulator behind the [`Backend`] trait, with playouts
//! spread over a rayon thread pool in chunks.

use super::engine::{Engine, Outcome, RunSpec};
use super::probe::{NoProbe, PhaseClock, PhaseTimes, Probe};
use super::program::{Program, Tuning};
use super::queue::WorkQueue;
use super::{CpuOptions, SimError};
use crate::backend::{Backend, BackendError, BatchRequest, BatchResult, JobResult};
use propnet_netlist::{Netlist, ValidNetlist};
use rayon::prelude::*;

/// The bit-parallel CPU backend. Results equal [`crate::backend::ReferenceBackend`]'s for
/// every request, whatever the thread count or lane width.
pub struct CpuBackend {
    net: ValidNetlist,
    prog: Program,
    opts: CpuOptions,
    pool: rayon::ThreadPool,
    steps: u64,
    /// Phase times of all batches since [`CpuBackend::enable_profile`], when enabled.
    profile: Option<PhaseTimes>,
}

impl CpuBackend {
    /// Compiles a validated netlist into the CPU program.
    ///
    /// # Errors
    /// [`SimError::LaneWidth`] for a lane width other than 64, 128, 256 or 512,
    /// [`SimError::ThreadPool`] when the thread pool cannot be built.
    pub fn new(net: ValidNetlist, opts: CpuOptions) -> Result<Self, SimError> {
        Self::with_tuning(net, opts, Tuning::Auto)
    }

    /// [`Self::new`] with the program's next phase guarded as `tuning` says (a guarded
    /// program runs in lockstep blocks; results are the same either way).
    ///
    /// # Errors
    /// As [`Self::new`].
    pub fn with_tuning(
        net: ValidNetlist,
        opts: CpuOptions,
        tuning: Tuning,
    ) -> Result<Self, SimError> {
        if !matches!(opts.lane_width, 64 | 128 | 256 | 512) {
            return Err(SimError::LaneWidth(opts.lane_width));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(opts.threads)
            .build()
            .map_err(|e| SimError::ThreadPool(e.to_string()))?;
        let prog = Program::compile_with(&net, net.info(), tuning);
        Ok(CpuBackend {
            net,
            prog,
            opts,
            pool,
            steps: 0,
            profile: None,
        })
    }

    /// The compiled program (instruction counts per phase, slots).
    pub fn program(&self) -> &Program {
        &self.prog
    }

    /// Options in use.
    pub fn options(&self) -> &CpuOptions {
        &self.opts
    }

    /// Joint moves made by all playouts run so far (for states/s).
    pub fn total_steps(&self) -> u64 {
        self.steps
    }

    /// Times the phases of every later batch (sampled steps, see [`super::probe`]);
    /// results stay the same, throughput drops by about a percent.
    pub fn enable_profile(&mut self) {
        self.profile.get_or_insert_with(PhaseTimes::default);
    }

    /// Phase times gathered since [`Self::enable_profile`] (`None` when not enabled).
    pub fn phase_times(&self) -> Option<&PhaseTimes> {
        self.profile.as_ref()
    }

    /// Threads actually used.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }
}

/// Runs the batch on `engines` engines (one per worker thread; `1` runs on the calling
/// thread) that share one work queue; returns each engine's outcome and phase times.
fn run_engines<const W: usize, P: Probe + Send>(
    prog: &Program,
    spec: &RunSpec<'_>,
    queue: &WorkQueue,
    engines: usize,
    roles: usize,
) -> Vec<(Outcome, PhaseTimes)> {
    let run_one = || {
        let mut out = Outcome {
            jobs: vec![
                JobResult {
                    goal_sums: vec![0; roles],
                    ..Default::default()
                };
                spec.starts.len()
            ],
            ..Default::default()
        };
        let mut eng = Engine::<W, P>::new(prog);
        eng.run(spec, queue, &mut out);
        (out, eng.phase_times())
    };
    if engines <= 1 {
        return vec![run_one()];
    }
    (0..engines).into_par_iter().map(|_| run_one()).collect()
}

impl Backend for CpuBackend {
    fn describe(&self) -> String {
        let threads = self.threads();
        format!(
            "cpu (bit-parallel, {} lanes/block, {threads} thread{})",
            self.opts.lane_width,
            if threads == 1 { "" } else { "s" }
        )
    }

    fn netlist(&self) -> &Netlist {
        &self.net
    }

    fn cpu_program(&self) -> Option<&Program> {
        Some(&self.prog)
    }

    fn run_batch(&mut self, req: &BatchRequest) -> Result<BatchResult, BackendError> {
        let latches = self.net.latches.len();
        if let Some((j, job)) = req
            .jobs
            .iter()
            .enumerate()
            .find(|(_, j)| j.start.len() != latches)
        {
            return Err(BackendError::BadRequest {
                backend: "cpu".into(),
                message: format!(
                    "job {j}: start state has {} values, netlist has {latches} latches",
                    job.start.len()
                ),
            });
        }
        let starts: Vec<&[bool]> = req.jobs.iter().map(|j| j.start.as_slice()).collect();
        let first: Vec<u32> = req.jobs.iter().map(|j| j.first_playout).collect();
        let spec = RunSpec {
            starts: &starts,
            first_playout: &first,
            seed: req.seed,
            max_steps: req.max_steps,
            want_records: req.want_records,
        };
        let queue = WorkQueue::new(req.jobs.iter().map(|j| j.count));
        // One engine per thread, but none that would get no full grab of work.
        let engines = (self.threads() as u64)
            .min(queue.total().div_ceil(WorkQueue::GRAB))
            .max(1) as usize;
        let roles = self.net.roles.len();
        let prog = &self.prog;
        let outs = self
            .pool
            .install(|| match (self.opts.lane_width, self.profile.is_some()) {
                (64, false) => run_engines::<1, NoProbe>(prog, &spec, &queue, engines, roles),
                (128, false) => run_engines::<2, NoProbe>(prog, &spec, &queue, engines, roles),
                (256, false) => run_engines::<4, NoProbe>(prog, &spec, &queue, engines, roles),
                (_, false) => run_engines::<8, NoProbe>(prog, &spec, &queue, engines, roles),
                (64, true) => run_engines::<1, PhaseClock>(prog, &spec, &queue, engines, roles),
                (128, true) => run_engines::<2, PhaseClock>(prog, &spec, &queue, engines, roles),
                (256, true) => run_engines::<4, PhaseClock>(prog, &spec, &queue, engines, roles),
                (_, true) => run_engines::<8, PhaseClock>(prog, &spec, &queue, engines, roles),
            });
        let mut res = BatchResult {
            jobs: vec![
                JobResult {
                    goal_sums: vec![0; roles],
                    ..Default::default()
                };
                req.jobs.len()
            ],
            records: Vec::new(),
        };
        let mut records = Vec::new();
        for (o, times) in outs {
            if let Some(p) = &mut self.profile {
                p.add(&times);
            }
            self.steps += o.steps;
            for (acc, jr) in res.jobs.iter_mut().zip(&o.jobs) {
                acc.playouts += jr.playouts;
                for (a, b) in acc.goal_sums.iter_mut().zip(&jr.goal_sums) {
                    *a += b;
                }
                acc.total_length += jr.total_length;
                acc.step_limit += jr.step_limit;
                acc.no_legal_move += jr.no_legal_move;
            }
            records.extend(o.records);
        }
        if req.want_records {
            records.sort_unstable_by_key(|&(j, off, _)| (j, off));
            res.records = records.into_iter().map(|(_, _, r)| r).collect();
        }
        Ok(res)
    }
}
