//! [`CpuBackend`]: the bit-parallel simulator behind the [`Backend`] trait, with playouts
//! spread over a rayon thread pool in chunks.

use crate::batch::RunSpec;
use crate::drive::run_batch;
use crate::options::{CpuOptions, SUPPORTED_LANES};
use crate::pool::pool_lanes;
use crate::probe::{NoProbe, PhaseClock, PhaseTimes};
use crate::program::{Program, Schedule, Tuning};
use crate::queue::WorkQueue;
use crate::tune::LaneTuner;
use propnet_netlist::{Netlist, ValidNetlist};
use propnet_runtime::backend::{
    Backend, BackendError, BatchRequest, BatchResult, JobResult, ProgramSize,
};

/// Fewest playouts a block stepper of a multi-threaded batch gets (four grabs of the work
/// queue).
const MIN_PER_STEPPER: u64 = 4 * WorkQueue::GRAB;

/// Errors of the CPU backend.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// Unsupported lane width.
    #[error("lane width {0} is not supported (use 64, 128, 256, 512, 1024 or 2048)")]
    LaneWidth(usize),
    /// The rayon thread pool could not be built.
    #[error("thread pool: {0}")]
    ThreadPool(String),
}

/// The bit-parallel CPU backend. Results equal [`propnet_runtime::backend::ReferenceBackend`]'s for
/// every request, whatever the thread count or lane width.
pub struct CpuBackend {
    net: ValidNetlist,
    prog: Program,
    opts: CpuOptions,
    pool: rayon::ThreadPool,
    steps: u64,
    /// Phase times of all batches since [`CpuBackend::enable_profile`], when enabled.
    profile: Option<PhaseTimes>,
    /// Picks the lane width when it is [`CpuOptions::TUNED_LANES`].
    tuner: LaneTuner,
}

impl CpuBackend {
    /// Compiles a validated netlist into the CPU program.
    ///
    /// # Errors
    /// [`SimError::LaneWidth`] for a lane width not in [`SUPPORTED_LANES`] (nor
    /// [`CpuOptions::TUNED_LANES`]),
    /// [`SimError::ThreadPool`] when the thread pool cannot be built.
    pub fn new(net: ValidNetlist, opts: CpuOptions) -> Result<Self, SimError> {
        Self::with_tuning(net, opts, Tuning::Auto)
    }

    /// [`Self::new`] with the program's next phase guarded as `tuning` says (a guarded
    /// program runs in lockstep blocks or pools, [`crate::program::Schedule`]; results
    /// are the same either way).
    ///
    /// # Errors
    /// As [`Self::new`].
    pub fn with_tuning(
        net: ValidNetlist,
        opts: CpuOptions,
        tuning: Tuning,
    ) -> Result<Self, SimError> {
        if opts.lane_width != CpuOptions::TUNED_LANES && !SUPPORTED_LANES.contains(&opts.lane_width)
        {
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
            tuner: LaneTuner::default(),
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

    /// Times the phases of every later batch (sampled steps, see [`crate::probe`]);
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

impl Backend for CpuBackend {
    fn describe(&self) -> String {
        let threads = self.threads();
        let tuner = &self.tuner;
        let lanes = match (self.opts.lane_width, tuner.chosen(), tuner.last()) {
            (CpuOptions::TUNED_LANES, Some(w), _) if tuner.compared() < 2 => {
                format!("{w} lanes/block (the batches fill no wider block)")
            }
            (CpuOptions::TUNED_LANES, Some(w), _) => format!("{w} lanes/block (measured fastest)"),
            (CpuOptions::TUNED_LANES, None, Some(w)) => {
                format!("{w} lanes/block (too few batches to compare widths)")
            }
            (CpuOptions::TUNED_LANES, None, None) => {
                "lanes/block measured on the first batches".to_string()
            }
            (w, _, _) => format!("{w} lanes/block"),
        };
        format!(
            "cpu (bit-parallel, {lanes}, {threads} thread{})",
            if threads == 1 { "" } else { "s" }
        )
    }

    fn netlist(&self) -> &Netlist {
        &self.net
    }

    fn program_size(&self) -> Option<ProgramSize> {
        Some(program_size(&self.prog))
    }

    fn natural_batch(&self) -> u64 {
        let lanes = match self.opts.lane_width {
            CpuOptions::TUNED_LANES => crate::tune::CANDIDATES[0],
            w => w,
        };
        (lanes * self.threads()) as u64
    }

    fn preferred_batch(&self) -> Option<u64> {
        let lanes = pool_lanes(&self.prog);
        (lanes > 0).then(|| (lanes * self.threads()) as u64)
    }

    /// A stream runs on one stepper: as fast as a batch that one stepper would run
    /// (fewer than `2 * MIN_PER_STEPPER` playouts, or one thread), not as a larger batch
    /// spread over threads.
    fn streams(&self, batch: u64) -> bool {
        self.prog.schedule == Schedule::PerLane
            && (self.threads() == 1 || batch < 2 * MIN_PER_STEPPER)
    }

    /// Programs stepped per lane stream on one block stepper on the calling thread
    /// ([`crate::stream`]); the others one batch at a time.
    fn run_stream(
        &mut self,
        seed: u64,
        max_steps: u32,
        feed: &mut dyn propnet_runtime::stream::JobFeed,
    ) -> Result<(), BackendError> {
        if self.prog.schedule != Schedule::PerLane {
            return propnet_runtime::stream::run_in_batches(self, seed, max_steps, feed);
        }
        let lanes = match self.opts.lane_width {
            CpuOptions::TUNED_LANES => 256,
            w => w,
        };
        let roles = self.net.roles.len();
        let params = (seed, max_steps, self.opts.simd);
        crate::stream::run_stream(&self.prog, lanes, params, roles, feed)
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
            amaf: false,
            simd: self.opts.simd,
        };
        let queue = WorkQueue::new(req.jobs.iter().map(|j| j.count));
        // One block stepper per thread, but each with at least MIN_PER_STEPPER playouts:
        // a smaller share costs more to hand to a pool thread than it saves (MCTS's
        // 256-playout batches on connect four: 97 k iterations/s on two threads, 153 k on
        // one).
        let steppers = (self.threads() as u64)
            .min(queue.total() / MIN_PER_STEPPER)
            .max(1) as usize;
        let roles = self.net.roles.len();
        let prog = &self.prog;
        let lanes = match self.opts.lane_width {
            CpuOptions::TUNED_LANES => self.tuner.pick(queue.total(), steppers),
            w => w,
        };
        let profile = self.profile.is_some();
        let t0 = std::time::Instant::now();
        let run = || {
            if profile {
                run_batch::<PhaseClock>(lanes, prog, &spec, &queue, steppers, roles)
            } else {
                run_batch::<NoProbe>(lanes, prog, &spec, &queue, steppers, roles)
            }
        };
        // one stepper runs on the calling thread: handing a small batch to a pool thread
        // and waking the caller afterwards cost more than its playouts (MCTS workers)
        let outs = if steppers == 1 {
            run()
        } else {
            self.pool.install(run)
        };
        if self.opts.lane_width == CpuOptions::TUNED_LANES {
            let states = outs.iter().map(|(o, _)| o.steps).sum();
            let secs = t0.elapsed().as_secs_f64();
            self.tuner
                .record(lanes, queue.total(), steppers, states, secs);
        }
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

/// The size of a compiled program as the runtime reports it: instructions per phase,
/// operands in all, and its [`Program::tuning_summary`].
pub fn program_size(p: &Program) -> propnet_runtime::backend::ProgramSize {
    propnet_runtime::backend::ProgramSize {
        core: p.core.len(),
        goal: p.goal.len(),
        next: p.next.len(),
        operands: p.operands(),
        tuning: p.tuning_summary(),
    }
}
