//! A batch as the drivers and block steppers see it: what all its playouts share
//! ([`RunSpec`]) and what running them produced ([`Outcome`]).

use crate::options::Simd;
use propnet_netlist::playout::PlayoutRecord;
use propnet_runtime::backend::JobResult;

/// Static parameters shared by every block stepper of a batch.
pub struct RunSpec<'a> {
    /// Start state of each job, one bool per latch.
    pub starts: &'a [&'a [bool]],
    /// First playout index of each job.
    pub first_playout: &'a [u32],
    /// RNG seed.
    pub seed: u64,
    /// Step limit.
    pub max_steps: u32,
    /// Keep per-playout records.
    pub want_records: bool,
    /// Keep all-moves-as-first sums per job ([`Outcome::amaf`]; not with records).
    pub amaf: bool,
    /// The instruction-set path ([`Simd::Portable`] forces the portable one).
    pub simd: Simd,
}

/// What one thread's run of a batch produced.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Per job of the batch (indexed like the batch's jobs).
    pub jobs: Vec<JobResult>,
    /// When records were requested: `(job, offset within job, record)`.
    pub records: Vec<(u32, u32, PlayoutRecord)>,
    /// Joint moves made (states advanced) by all finished playouts.
    pub steps: u64,
    /// When [`RunSpec::amaf`]: per job, per input, the playouts that played it and the
    /// sum of its role's goals over them (allocated at the job's first finished playout;
    /// `crate::amaf`).
    pub amaf: Vec<Vec<(u32, u64)>>,
}

impl Outcome {
    /// An empty outcome for `jobs` jobs of a game with `roles` roles.
    pub fn new(jobs: usize, roles: usize) -> Self {
        Outcome {
            jobs: vec![
                JobResult {
                    goal_sums: vec![0; roles],
                    ..Default::default()
                };
                jobs
            ],
            ..Default::default()
        }
    }
}
