//! Backend selection: the one factory the CLI (`--backend gpu|cpu|auto|reference|fpga:…`,
//! player specs `mcts:BACKEND:BUDGET`) and tests use to build a [`Backend`], and the
//! [`BackendFactory`] ([`Backends`]) handed to the GGP player and `compare`.

use propnet_fpga::{FpgaBackend, FpgaOptions};
use propnet_kernels::backend::GpuBackend;
use propnet_kernels::runner::software_adapter;
use propnet_netlist::ValidNetlist;
use propnet_runtime::backend::{Backend, BackendError, ReferenceBackend};
use propnet_runtime::factory::BackendFactory;
pub use propnet_runtime::factory::{BackendKind, BackendRequest, FpgaTarget, Selected};
use propnet_runtime::net_trace::StepEvaluator;
use propnet_sim::{CpuBackend, CpuOptions, ProgramEvaluator};

/// Options of every backend kind; each kind reads its own fields.
#[derive(Clone, Debug, Default)]
pub struct BackendOptions {
    /// CPU simulator options (threads, lanes per block).
    pub cpu: CpuOptions,
    /// GPU shader options (layout, lanes per invocation, workgroup size).
    pub gpu: propnet_kernels::wgsl::Options,
    /// FPGA options (the simulated design, baud rate, timeouts).
    pub fpga: FpgaOptions,
}

fn cpu(net: ValidNetlist, opts: &CpuOptions) -> Result<Box<dyn Backend>, BackendError> {
    let b = CpuBackend::new(net, opts.clone()).map_err(|e| BackendError::BadOptions {
        backend: "cpu".to_string(),
        message: e.to_string(),
    })?;
    Ok(Box::new(b))
}

/// Every backend this binary links, with the options of each kind: the
/// [`BackendFactory`] the GGP player and `compare` are given.
#[derive(Clone, Debug, Default)]
pub struct Backends {
    /// Options of each kind (a request's `threads` and `throughput` override the CPU's).
    pub options: BackendOptions,
}

impl BackendFactory for Backends {
    fn make(&self, req: &BackendRequest, net: ValidNetlist) -> Result<Selected, BackendError> {
        let mut opts = self.options.clone();
        if let Some(t) = req.threads {
            opts.cpu.threads = t;
        }
        if req.throughput {
            opts.cpu.lane_width = CpuOptions::TUNED_LANES;
        }
        make_backend(req.kind.clone(), net, &opts)
    }

    fn step_evaluator(&self, net: &ValidNetlist) -> Option<Box<dyn StepEvaluator>> {
        Some(Box::new(ProgramEvaluator::new(net)))
    }

    fn gpu_stepper(
        &self,
        net: &ValidNetlist,
    ) -> Result<Option<Box<dyn propnet_runtime::step_check::BatchStepper>>, BackendError> {
        propnet_kernels::backend::gpu_stepper(net).map(Some)
    }
}

/// The description of the GPU adapter wgpu would use (name, API, driver), or `None`
/// without one; for the machine stamp of `bench` and `compare`. Takes a fraction of a
/// second.
pub fn gpu_adapter() -> Option<String> {
    propnet_kernels::runner::request_adapter()
        .ok()
        .map(|a| propnet_kernels::runner::adapter_text(&a.get_info()))
}

/// Builds the backend of `kind` for `net`.
///
/// # Errors
/// The backend's [`BackendError`]: for `gpu` no adapter or a rejected shader; for `cpu` a
/// bad lane width. `auto` fails only when the CPU fallback fails too.
pub fn make_backend(
    kind: BackendKind,
    net: ValidNetlist,
    opts: &BackendOptions,
) -> Result<Selected, BackendError> {
    let plain = |backend| Selected {
        backend,
        note: None,
    };
    match kind {
        BackendKind::Gpu => {
            let note = software_adapter().map(|name| {
                format!(
                    "gpu: {name} is a software (CPU-type) adapter: its shader compiler can take \
                     minutes on a netlist of thousands of gates, and its rates say nothing about \
                     a GPU's"
                )
            });
            let backend = Box::new(GpuBackend::new(net, &opts.gpu)?);
            Ok(Selected { backend, note })
        }
        BackendKind::Cpu => Ok(plain(cpu(net, &opts.cpu)?)),
        BackendKind::Reference => Ok(plain(Box::new(ReferenceBackend::new(net.into_netlist())))),
        BackendKind::Fpga(target) => {
            Ok(plain(Box::new(FpgaBackend::new(net, target, &opts.fpga)?)))
        }
        BackendKind::Auto => {
            let gpu = match software_adapter() {
                Some(name) => Err(format!(
                    "the best GPU adapter found, {name}, is a software (CPU-type) device"
                )),
                None => GpuBackend::new(net.clone(), &opts.gpu).map_err(|e| e.to_string()),
            };
            match gpu {
                Ok(b) => Ok(plain(Box::new(b))),
                Err(why) => Ok(Selected {
                    backend: cpu(net, &opts.cpu)?,
                    note: Some(format!("auto: using CPU because {why}")),
                }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_names_parse() {
        assert_eq!(BackendKind::parse("gpu"), Ok(BackendKind::Gpu));
        assert_eq!(BackendKind::parse("CPU"), Ok(BackendKind::Cpu));
        assert_eq!(BackendKind::parse("auto"), Ok(BackendKind::Auto));
        assert_eq!(BackendKind::parse("ref"), Ok(BackendKind::Reference));
        assert_eq!(BackendKind::parse("reference"), Ok(BackendKind::Reference));
        assert!(BackendKind::parse("tpu").unwrap_err().contains("tpu"));
        assert_eq!(
            BackendKind::parse("fpga:sim"),
            Ok(BackendKind::Fpga(FpgaTarget::Sim))
        );
        assert_eq!(
            BackendKind::parse("FPGA:/dev/ttyUSB0"),
            Ok(BackendKind::Fpga(FpgaTarget::Serial("/dev/ttyUSB0".into())))
        );
        assert!(BackendKind::parse("fpga").unwrap_err().contains("fpga:sim"));
        for k in [
            "gpu",
            "cpu",
            "auto",
            "reference",
            "fpga:sim",
            "fpga:/dev/ttyS1",
        ] {
            assert_eq!(BackendKind::parse(k).unwrap().to_string(), k);
        }
    }

    #[test]
    fn cpu_reference_and_auto_build() {
        let net = ValidNetlist::new(propnet_runtime::fixtures::tictactoe()).unwrap();
        let opts = BackendOptions {
            cpu: CpuOptions {
                threads: 1,
                ..Default::default()
            },
            ..Default::default()
        };
        let cpu = make_backend(BackendKind::Cpu, net.clone(), &opts).unwrap();
        assert!(
            cpu.backend.describe().starts_with("cpu"),
            "{}",
            cpu.backend.describe()
        );
        assert!(cpu.note.is_none());
        let r = make_backend(BackendKind::Reference, net.clone(), &opts).unwrap();
        assert!(r.note.is_none());
        // `auto` is GPU when a hardware adapter exists, else CPU with a reason; either way
        // it builds, and a software adapter (lavapipe in CI) is never taken.
        let a = make_backend(BackendKind::Auto, net, &opts).unwrap();
        if let Some(name) = software_adapter() {
            let note = a.note.as_deref().unwrap_or("");
            assert!(note.contains("software") && note.contains(&name), "{note}");
        }
        let d = a.backend.describe();
        match &a.note {
            Some(n) => assert!(
                n.starts_with("auto: using CPU because") && d.starts_with("cpu"),
                "{n}"
            ),
            None => assert!(d.starts_with("gpu: "), "{d}"),
        }
    }

    /// `gpu` asked for by name takes a software adapter, and says what it is (lavapipe in
    /// CI; a hardware adapter gets no note; no adapter at all fails to build).
    #[test]
    fn gpu_on_a_software_adapter_says_so() {
        let net = ValidNetlist::new(propnet_runtime::fixtures::tictactoe()).unwrap();
        let Ok(g) = make_backend(BackendKind::Gpu, net, &BackendOptions::default()) else {
            return;
        };
        match software_adapter() {
            Some(name) => {
                let note = g.note.as_deref().unwrap_or("");
                assert!(note.contains(&name) && note.contains("software"), "{note}");
            }
            None => assert!(g.note.is_none(), "{:?}", g.note),
        }
    }
}
