//! [`GpuBackend`]: the [`Backend`] that runs playouts as a WGSL compute shader via wgpu
//! (see [`propnet_kernels`]).

use crate::backend::{Backend, BackendError, BatchRequest, BatchResult, JobResult};
use propnet_kernels::runner::{GpuJob, GpuRunner, RunParams};
use propnet_kernels::wgsl::Options;
use propnet_netlist::playout::PlayoutRecord;
use propnet_netlist::{Netlist, ValidNetlist};

/// Runs batches on the preferred GPU adapter (or lavapipe).
pub struct GpuBackend {
    net: ValidNetlist,
    runner: GpuRunner,
}

fn failed(message: impl std::fmt::Display) -> BackendError {
    BackendError::Failed {
        backend: "gpu".to_string(),
        message: message.to_string(),
    }
}

impl GpuBackend {
    /// Compiles `net` to WGSL with `opts` and creates the device and pipeline.
    ///
    /// # Errors
    /// [`BackendError::Failed`] when no adapter exists or the device rejects the shader.
    pub fn new(net: ValidNetlist, opts: &Options) -> Result<Self, BackendError> {
        let (n, info) = net.parts();
        let runner = GpuRunner::new(n, info, opts).map_err(failed)?;
        Ok(Self { net, runner })
    }

    /// The underlying runner (kernel, step budget, retry counters).
    pub fn runner(&self) -> &GpuRunner {
        &self.runner
    }

    /// The underlying runner (kernel, limits knobs).
    pub fn runner_mut(&mut self) -> &mut GpuRunner {
        &mut self.runner
    }
}

impl Backend for GpuBackend {
    fn describe(&self) -> String {
        self.runner.describe()
    }

    fn netlist(&self) -> &Netlist {
        &self.net
    }

    fn run_batch(&mut self, req: &BatchRequest) -> Result<BatchResult, BackendError> {
        let roles = self.net.roles.len();
        let jobs: Vec<GpuJob<'_>> = req
            .jobs
            .iter()
            .map(|j| GpuJob {
                start: &j.start,
                first_playout: j.first_playout,
                count: j.count,
            })
            .collect();
        let mut out = BatchResult {
            jobs: vec![
                JobResult {
                    goal_sums: vec![0; roles],
                    ..Default::default()
                };
                req.jobs.len()
            ],
            records: Vec::new(),
        };
        let params = RunParams {
            seed: req.seed,
            max_steps: req.max_steps,
            want_state: req.want_records,
        };
        let want = req.want_records;
        self.runner
            .run(&jobs, &params, &mut |r| {
                let rec = PlayoutRecord {
                    index: r.index,
                    length: r.length,
                    end: r.end,
                    goals: (0..roles).map(|i| r.goal(i)).collect(),
                    final_state: if want { r.state_u64() } else { Vec::new() },
                };
                out.jobs[r.job].add(&rec);
                if want {
                    out.records.push(rec);
                }
            })
            .map_err(failed)?;
        Ok(out)
    }
}
