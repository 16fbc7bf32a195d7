//! The one interface every playout backend implements (bit-parallel CPU, GPU, reference).
//!
//! MCTS, the bench and the CLI talk only to [`Backend`]. A [`BatchRequest`] holds several
//! [`Job`]s so that rollouts for many tree leaves (each its own start state) are evaluated
//! together; every playout follows the semantics of [`propnet_netlist::playout`], so all
//! backends return identical results for the same request.

use propnet_netlist::playout::{reference_playout, PlayoutEnd, PlayoutRecord};
use propnet_netlist::Netlist;

/// Playouts from one start state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// Start state, one bool per latch.
    pub start: Vec<bool>,
    /// Index of the first playout (the RNG counter); playouts are `first..first + count`.
    pub first_playout: u32,
    /// Number of playouts.
    pub count: u32,
}

/// A batch of jobs run with one seed and step limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchRequest {
    /// The jobs.
    pub jobs: Vec<Job>,
    /// RNG seed (key of [`propnet_netlist::rng`]).
    pub seed: u64,
    /// Joint moves after which a playout stops with [`PlayoutEnd::StepLimit`].
    pub max_steps: u32,
    /// Also return one [`PlayoutRecord`] per playout (costly; for tests and traces).
    pub want_records: bool,
}

/// Aggregates of one job's playouts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobResult {
    /// Playouts run.
    pub playouts: u64,
    /// Per role, the sum of goal values (0..=100 each).
    pub goal_sums: Vec<u64>,
    /// Sum of playout lengths (joint moves).
    pub total_length: u64,
    /// Playouts stopped by the step limit.
    pub step_limit: u64,
    /// Playouts stopped because a role had no legal move.
    pub no_legal_move: u64,
    /// All-moves-as-first sums, when the caller asked for them
    /// ([`crate::stream::JobFeed::wants_amaf`]) and the backend computes them (the CPU
    /// simulator's streams): one entry per input proposition played in at least one of
    /// the job's playouts (after its start state), by input index ascending. Empty
    /// otherwise.
    pub amaf: Vec<AmafSum>,
}

/// What a job's playouts say about one input proposition "as if played first"
/// (all-moves-as-first, AMAF: Gelly & Silver, "Combining online and offline knowledge in
/// UCT", ICML 2007): in how many of them its role played it at some step, and the sum of
/// that role's goal values (0..=100 each) over those playouts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AmafSum {
    /// Input index (netlist order).
    pub input: u32,
    /// Playouts of the job in which the input was played (each counts once).
    pub playouts: u32,
    /// Sum over those playouts of the goal value of the role the input belongs to.
    pub goal_sum: u64,
}

/// The result of a batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BatchResult {
    /// One entry per job, in request order.
    pub jobs: Vec<JobResult>,
    /// When requested: every playout's record, job by job, in playout-index order.
    pub records: Vec<PlayoutRecord>,
}

/// What failed in a backend. Every variant names the backend (`cpu`, `gpu`, …) and says
/// what went wrong in `message`; the variant says which kind of failure it is, so callers
/// can react (e.g. fall back to the CPU when there is no device).
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// No device to run on: no GPU adapter, or the adapter refused to create a device.
    #[error("{backend} backend: {message}")]
    NoDevice {
        /// Backend name.
        backend: String,
        /// What went wrong.
        message: String,
    },
    /// The device rejected the generated program (shader or pipeline validation, e.g. a
    /// driver that cannot compile a huge inline shader).
    #[error("{backend} backend: {message}")]
    ShaderRejected {
        /// Backend name.
        backend: String,
        /// What went wrong.
        message: String,
    },
    /// The netlist does not fit the backend: its tables exceed 32-bit indices, or one
    /// playout's record or one invocation's scratch exceeds the device's limits.
    #[error("{backend} backend: {message}")]
    UnsupportedNetlist {
        /// Backend name.
        backend: String,
        /// What went wrong.
        message: String,
    },
    /// An option is out of range (lane width, lanes per invocation, workgroup size) or a
    /// resource it asks for cannot be had (a thread pool of that size).
    #[error("{backend} backend: {message}")]
    BadOptions {
        /// Backend name.
        backend: String,
        /// What went wrong.
        message: String,
    },
    /// A request the backend cannot run: a start state whose length is not the netlist's
    /// latch count.
    #[error("{backend} backend: {message}")]
    BadRequest {
        /// Backend name.
        backend: String,
        /// What went wrong.
        message: String,
    },
    /// The device failed while running a batch (device lost, out of memory, a mapping that
    /// failed, a driver that cut the shader's loops short at every budget).
    #[error("{backend} backend: {message}")]
    Failed {
        /// Backend name.
        backend: String,
        /// What went wrong.
        message: String,
    },
}

/// The size of a CPU simulator program: instructions per phase and operands in all,
/// and a one-line summary of its tuning (fused products, guards).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramSize {
    /// Instructions of the core (legal/terminal) phase.
    pub core: usize,
    /// Instructions of the goal phase.
    pub goal: usize,
    /// Instructions of the transition (next-state) phase.
    pub next: usize,
    /// Operands of all three phases.
    pub operands: usize,
    /// The tuning summary (e.g. fused products, skip and key guards).
    pub tuning: String,
}

/// Runs batches of random playouts on one netlist.
pub trait Backend: Send {
    /// A one-line description: backend kind and, for a GPU, adapter name, API and driver.
    fn describe(&self) -> String;
    /// The netlist this backend runs.
    fn netlist(&self) -> &Netlist;
    /// Runs every playout of every job and returns the aggregates.
    ///
    /// # Errors
    /// [`BackendError`] when the device fails.
    fn run_batch(&mut self, req: &BatchRequest) -> Result<BatchResult, BackendError>;
    /// The size of the compiled program of a backend that runs the CPU simulator's
    /// program (reported by `propnet run`); `None` for the others.
    fn program_size(&self) -> Option<ProgramSize> {
        None
    }
    /// The batch this backend fills at once: the first batch of a measurement and its
    /// smallest time-limited one (a smaller batch costs about as much). The scalar
    /// reference runs playouts one by one (1); the CPU simulator fills a block of lanes
    /// per thread; a GPU wants many invocations; an FPGA run costs a UART round trip.
    fn natural_batch(&self) -> u64 {
        1
    }
    /// Fewest playouts per batch that keep this backend at full speed, when it needs more
    /// than one per lane (the CPU simulator's pools of lanes re-sorted by key, per
    /// thread); `None` when one per lane does.
    fn preferred_batch(&self) -> Option<u64> {
        None
    }
    /// Whether [`Backend::run_stream`] refills lanes as they finish and runs at least as
    /// fast as batches of `batch` playouts would (the CPU simulator on most programs,
    /// where such a batch would run on one thread); `false`: use batches.
    fn streams(&self, batch: u64) -> bool {
        let _ = batch;
        false
    }
    /// Runs the jobs `feed` gives until it gives no more ([`crate::stream`]); each
    /// playout as in a batch with this `seed` and `max_steps`. The default runs them one
    /// batch at a time ([`crate::stream::run_in_batches`]).
    ///
    /// # Errors
    /// [`BackendError`] when the device fails or a job's start state has the wrong length.
    fn run_stream(
        &mut self,
        seed: u64,
        max_steps: u32,
        feed: &mut dyn crate::stream::JobFeed,
    ) -> Result<(), BackendError> {
        crate::stream::run_in_batches(self, seed, max_steps, feed)
    }
}

impl JobResult {
    /// Adds one playout record to the aggregates.
    pub fn add(&mut self, rec: &PlayoutRecord) {
        if self.goal_sums.len() < rec.goals.len() {
            self.goal_sums.resize(rec.goals.len(), 0);
        }
        self.playouts += 1;
        for (s, &g) in self.goal_sums.iter_mut().zip(&rec.goals) {
            *s += u64::from(g);
        }
        self.total_length += u64::from(rec.length);
        match rec.end {
            PlayoutEnd::StepLimit => self.step_limit += 1,
            PlayoutEnd::NoLegalMove(_) => self.no_legal_move += 1,
            PlayoutEnd::Terminal => {}
        }
    }
}

/// The scalar reference backend: one playout at a time through
/// [`propnet_netlist::playout::reference_playout`]. Slow; the yardstick for the others.
pub struct ReferenceBackend {
    net: Netlist,
}

impl ReferenceBackend {
    /// Wraps a netlist.
    pub fn new(net: Netlist) -> Self {
        Self { net }
    }
}

impl Backend for ReferenceBackend {
    fn describe(&self) -> String {
        "reference (scalar, 1 thread)".to_string()
    }
    fn netlist(&self) -> &Netlist {
        &self.net
    }
    fn run_batch(&mut self, req: &BatchRequest) -> Result<BatchResult, BackendError> {
        Ok(run_reference(&self.net, req))
    }
}

/// Runs `req` on `net` one playout at a time through [`reference_playout`]: the
/// [`ReferenceBackend`]'s batch, for callers that only borrow the netlist.
pub fn run_reference(net: &Netlist, req: &BatchRequest) -> BatchResult {
    let mut out = BatchResult::default();
    for job in &req.jobs {
        let mut jr = JobResult {
            goal_sums: vec![0; net.roles.len()],
            ..Default::default()
        };
        for i in 0..job.count {
            let index = job.first_playout.wrapping_add(i);
            let rec = reference_playout(net, &job.start, req.seed, index, req.max_steps);
            jr.add(&rec);
            if req.want_records {
                out.records.push(rec);
            }
        }
        out.jobs.push(jr);
    }
    out
}
