//! [`CpuBackend`]: the bit-parallel simulator behind the [`Backend`] trait, with playouts
//! spread over a rayon thread pool in chunks.

use super::engine::{Engine, Outcome, RunSpec, Segment};
use super::program::Program;
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
}

impl CpuBackend {
    /// Compiles a validated netlist into the CPU program.
    ///
    /// # Errors
    /// [`SimError::LaneWidth`] for a lane width other than 64, 128, 256 or 512,
    /// [`SimError::ThreadPool`] when the thread pool cannot be built.
    pub fn new(net: ValidNetlist, opts: CpuOptions) -> Result<Self, SimError> {
        if !matches!(opts.lane_width, 64 | 128 | 256 | 512) {
            return Err(SimError::LaneWidth(opts.lane_width));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(opts.threads)
            .build()
            .map_err(|e| SimError::ThreadPool(e.to_string()))?;
        let prog = Program::compile(&net, net.info());
        Ok(CpuBackend {
            net,
            prog,
            opts,
            pool,
            steps: 0,
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

    /// Threads actually used.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }
}

/// Splits the batch into chunks of about `chunk` playouts each.
fn chunks(req: &BatchRequest, chunk: u64) -> Vec<Vec<Segment>> {
    let mut out = Vec::new();
    let mut cur: Vec<Segment> = Vec::new();
    let mut room = chunk;
    for (j, job) in req.jobs.iter().enumerate() {
        let mut offset = 0u32;
        while offset < job.count {
            let n = u64::from(job.count - offset).min(room) as u32;
            cur.push(Segment {
                job: j as u32,
                offset,
                count: n,
            });
            offset += n;
            room -= u64::from(n);
            if room == 0 {
                out.push(std::mem::take(&mut cur));
                room = chunk;
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn run_chunks<const W: usize>(
    prog: &Program,
    spec: &RunSpec<'_>,
    work: &[Vec<Segment>],
    roles: usize,
) -> Vec<Outcome> {
    work.par_iter()
        .map_init(
            || Engine::<W>::new(prog),
            |eng, segs| {
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
                eng.run(spec, segs, &mut out);
                out
            },
        )
        .collect()
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
        let total: u64 = req.jobs.iter().map(|j| u64::from(j.count)).sum();
        let lanes = self.opts.lane_width as u64;
        // Enough chunks to balance threads, each long enough (>= 16 lane refills) that the
        // drain at a chunk's end stays a small fraction.
        let threads = self.threads() as u64;
        let chunk = (total / (threads * 4)).max(lanes * 16).min(total.max(1));
        let work = chunks(req, chunk);
        let roles = self.net.roles.len();
        let prog = &self.prog;
        let outs = self.pool.install(|| match self.opts.lane_width {
            64 => run_chunks::<1>(prog, &spec, &work, roles),
            128 => run_chunks::<2>(prog, &spec, &work, roles),
            256 => run_chunks::<4>(prog, &spec, &work, roles),
            _ => run_chunks::<8>(prog, &spec, &work, roles),
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
        for o in outs {
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
