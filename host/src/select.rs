//! Backend selection for the CLI (`--backend gpu|cpu|auto|reference`).

use crate::backend::{Backend, BackendError, ReferenceBackend};
use crate::gpu::GpuBackend;
use propnet_compiler::netlist::Netlist;

/// Which backend to run playouts on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendKind {
    /// The WGSL/wgpu backend; fails when no adapter exists.
    Gpu,
    /// The CPU backend.
    Cpu,
    /// GPU when an adapter exists and accepts the shader, else CPU.
    Auto,
    /// The scalar reference backend (slow; for checking).
    Reference,
}

/// Builds the backend of `kind` for `net`. `cpu` builds the CPU backend (the bit-parallel
/// simulator once wired; callers may pass [`reference_cpu`]). Returns the backend and, for
/// `auto` falling back to CPU, a one-line reason.
///
/// # Errors
/// The backend's [`BackendError`] (for `gpu`: no adapter, shader rejected).
pub fn make_backend(
    kind: BackendKind,
    net: Netlist,
    gpu: &propnet_kernels::wgsl::Options,
    cpu: &dyn Fn(Netlist) -> Result<Box<dyn Backend>, BackendError>,
) -> Result<(Box<dyn Backend>, Option<String>), BackendError> {
    match kind {
        BackendKind::Gpu => Ok((Box::new(GpuBackend::new(net, gpu)?), None)),
        BackendKind::Cpu => Ok((cpu(net)?, None)),
        BackendKind::Reference => Ok((Box::new(ReferenceBackend::new(net)), None)),
        BackendKind::Auto => match GpuBackend::new(net.clone(), gpu) {
            Ok(b) => Ok((Box::new(b), None)),
            Err(e) => Ok((cpu(net)?, Some(format!("auto: using CPU because {e}")))),
        },
    }
}

/// A CPU factory that returns the scalar [`ReferenceBackend`] (until the caller passes the
/// bit-parallel simulator).
pub fn reference_cpu(net: Netlist) -> Result<Box<dyn Backend>, BackendError> {
    Ok(Box::new(ReferenceBackend::new(net)))
}
