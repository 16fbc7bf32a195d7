//! [`GpuBackend`]: the [`Backend`] of `propnet-runtime` that runs playouts as the WGSL
//! compute shader of [`crate::wgsl`] through [`crate::runner`].

use crate::runner::GpuStepper;
use crate::runner::{GpuJob, GpuRunner, RunError, RunParams};
use crate::wgsl::{self, Options};
use propnet_netlist::playout::PlayoutRecord;
use propnet_netlist::{Netlist, ValidNetlist};
use propnet_runtime::backend::{Backend, BackendError, BatchRequest, BatchResult, JobResult};

/// Runs batches on the preferred GPU adapter (or lavapipe).
pub struct GpuBackend {
    net: ValidNetlist,
    runner: GpuRunner,
}

/// The [`BackendError`] of a runner error: its kind kept, its text as the message.
pub(crate) fn gpu_error(e: RunError) -> BackendError {
    let (backend, message) = ("gpu".to_string(), e.to_string());
    match e {
        RunError::NoAdapter(_) | RunError::Device { .. } => {
            BackendError::NoDevice { backend, message }
        }
        RunError::Shader { .. } => BackendError::ShaderRejected { backend, message },
        RunError::Codegen(wgsl::Error::BadOption { .. }) => {
            BackendError::BadOptions { backend, message }
        }
        RunError::Codegen(wgsl::Error::TooLarge(_)) | RunError::TooLarge(_) => {
            BackendError::UnsupportedNetlist { backend, message }
        }
        RunError::BadJob(_) => BackendError::BadRequest { backend, message },
        RunError::Failed(_) => BackendError::Failed { backend, message },
    }
}

impl GpuBackend {
    /// Compiles `net` to WGSL with `opts` and creates the device and pipeline.
    ///
    /// # Errors
    /// [`BackendError::NoDevice`] when no adapter exists, [`BackendError::ShaderRejected`]
    /// when the device rejects the shader, [`BackendError::BadOptions`] and
    /// [`BackendError::UnsupportedNetlist`] from the code generator.
    pub fn new(net: ValidNetlist, opts: &Options) -> Result<Self, BackendError> {
        let (n, info) = net.parts();
        let runner = GpuRunner::new(n, info, opts).map_err(gpu_error)?;
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
    /// Many invocations: 1,024 playouts fill a few workgroups.
    fn natural_batch(&self) -> u64 {
        1024
    }

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
            .map_err(gpu_error)?;
        Ok(out)
    }
}

/// Gates above which the GPU step kernel is interpreted ([`crate::wgsl::step_table`])
/// instead of straight-line code ([`crate::wgsl::step`]): the playout kernel's default
/// [`crate::wgsl::Options::inline_gate_limit`], past which drivers (llvmpipe most) take
/// minutes to compile straight-line shaders.
pub const STEP_INLINE_LIMIT: usize = 20_000;

impl propnet_runtime::step_check::BatchStepper for crate::runner::GpuStepper {
    fn describe(&self) -> String {
        GpuStepper::describe(self)
    }

    fn step(
        &mut self,
        pairs: &[(&[bool], &[propnet_netlist::InputId])],
    ) -> Result<Vec<propnet_runtime::step_check::Transition>, BackendError> {
        let out = GpuStepper::step(self, pairs).map_err(gpu_error)?;
        Ok(out.into_iter().map(|s| (s.next, s.percepts)).collect())
    }
}

/// The GPU step kernel of `net` as a [`propnet_runtime::step_check::BatchStepper`].
///
/// # Errors
/// No adapter, a rejected shader.
pub fn gpu_stepper(
    net: &propnet_netlist::ValidNetlist,
) -> Result<Box<dyn propnet_runtime::step_check::BatchStepper>, BackendError> {
    Ok(Box::new(
        GpuStepper::new(net.netlist(), net.info(), STEP_INLINE_LIMIT).map_err(gpu_error)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each runner failure keeps its kind and its text.
    #[test]
    fn runner_errors_map_to_typed_backend_errors() {
        let no = gpu_error(RunError::NoAdapter("none".into()));
        assert!(matches!(no, BackendError::NoDevice { .. }), "{no:?}");
        assert_eq!(
            no.to_string(),
            "gpu backend: no GPU adapter available: none"
        );
        let shader = gpu_error(RunError::Shader {
            layout: wgsl::Layout::Inline,
            message: "too big".into(),
        });
        assert!(matches!(shader, BackendError::ShaderRejected { .. }));
        let opt = gpu_error(RunError::Codegen(wgsl::Error::BadOption {
            name: "lanes",
            value: "0".into(),
            reason: "must be 1..=32",
        }));
        assert!(matches!(opt, BackendError::BadOptions { .. }));
        assert!(opt.to_string().contains("lanes = 0"), "{opt}");
        for e in [
            RunError::Codegen(wgsl::Error::TooLarge(1 << 33)),
            RunError::TooLarge("one record".into()),
        ] {
            assert!(matches!(
                gpu_error(e),
                BackendError::UnsupportedNetlist { .. }
            ));
        }
        let job = gpu_error(RunError::BadJob("job 0".into()));
        assert!(matches!(job, BackendError::BadRequest { .. }));
        let lost = gpu_error(RunError::Failed("device lost".into()));
        assert!(matches!(lost, BackendError::Failed { .. }));
        assert!(lost.to_string().ends_with("device lost"), "{lost}");
    }
}
