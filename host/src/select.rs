//! Backend selection: the one factory the CLI (`--backend gpu|cpu|auto|reference`, player
//! specs `mcts:BACKEND:BUDGET`) and tests use to build a [`Backend`].

use crate::backend::{Backend, BackendError, ReferenceBackend};
use crate::gpu::GpuBackend;
use crate::sim::{CpuBackend, CpuOptions};
use propnet_netlist::ValidNetlist;

/// Which backend to run playouts on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendKind {
    /// The WGSL/wgpu backend; fails when no adapter exists or it rejects the shader.
    Gpu,
    /// The bit-parallel CPU simulator.
    Cpu,
    /// GPU when an adapter exists and accepts the shader, else CPU (with a one-line reason).
    Auto,
    /// The scalar reference backend (slow; the yardstick).
    #[value(alias = "ref")]
    Reference,
}

impl BackendKind {
    /// Parses a backend name as on the command line (`gpu`, `cpu`, `auto`, `reference` or
    /// `ref`).
    ///
    /// # Errors
    /// A message listing the accepted names.
    pub fn parse(name: &str) -> Result<Self, String> {
        <Self as clap::ValueEnum>::from_str(name, true)
            .map_err(|_| format!("unknown backend `{name}` (expected gpu, cpu, auto or reference)"))
    }
}

/// Options of every backend kind; each kind reads its own fields.
#[derive(Clone, Debug, Default)]
pub struct BackendOptions {
    /// CPU simulator options (threads, lanes per block).
    pub cpu: CpuOptions,
    /// GPU shader options (layout, lanes per invocation, workgroup size).
    pub gpu: propnet_kernels::wgsl::Options,
}

/// A built backend and, when `auto` fell back to the CPU, the one-line reason.
pub struct Selected {
    /// The backend.
    pub backend: Box<dyn Backend>,
    /// `Some("auto: using CPU because …")` after a fallback.
    pub note: Option<String>,
}

fn cpu(net: ValidNetlist, opts: &CpuOptions) -> Result<Box<dyn Backend>, BackendError> {
    let b = CpuBackend::new(net, opts.clone()).map_err(|e| BackendError::BadOptions {
        backend: "cpu".to_string(),
        message: e.to_string(),
    })?;
    Ok(Box::new(b))
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
        BackendKind::Gpu => Ok(plain(Box::new(GpuBackend::new(net, &opts.gpu)?))),
        BackendKind::Cpu => Ok(plain(cpu(net, &opts.cpu)?)),
        BackendKind::Reference => Ok(plain(Box::new(ReferenceBackend::new(net.into_netlist())))),
        BackendKind::Auto => match GpuBackend::new(net.clone(), &opts.gpu) {
            Ok(b) => Ok(plain(Box::new(b))),
            Err(e) => Ok(Selected {
                backend: cpu(net, &opts.cpu)?,
                note: Some(format!("auto: using CPU because {e}")),
            }),
        },
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
    }

    #[test]
    fn cpu_reference_and_auto_build() {
        let net = ValidNetlist::new(crate::fixtures::tictactoe()).unwrap();
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
        // `auto` is GPU when an adapter exists, else CPU with a reason; either way it builds.
        let a = make_backend(BackendKind::Auto, net, &opts).unwrap();
        let d = a.backend.describe();
        match &a.note {
            Some(n) => assert!(
                n.starts_with("auto: using CPU because") && d.starts_with("cpu"),
                "{n}"
            ),
            None => assert!(d.starts_with("gpu: "), "{d}"),
        }
    }
}
