//! Naming and building backends without knowing them: [`BackendKind`] is a backend as
//! named on the command line, [`BackendFactory`] builds one for a netlist. The `propnet`
//! binary implements the factory (it links every backend: CPU simulator, GPU, FPGA) and
//! hands it to the GGP player and to `compare`, which therefore depend on this crate only.

use crate::backend::{Backend, BackendError};
use crate::net_trace::StepEvaluator;
use propnet_netlist::ValidNetlist;

/// Where the `fpga` backend runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FpgaTarget {
    /// A Verilator model of the design (`fpga:sim`).
    Sim,
    /// A board on this serial port (`fpga:/dev/ttyUSB0`).
    Serial(String),
}

impl std::fmt::Display for FpgaTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FpgaTarget::Sim => f.write_str("fpga:sim"),
            FpgaTarget::Serial(p) => write!(f, "fpga:{p}"),
        }
    }
}

/// Which backend to run playouts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// The WGSL/wgpu backend; fails when no adapter exists or it rejects the shader.
    Gpu,
    /// The bit-parallel CPU simulator.
    Cpu,
    /// GPU when a hardware adapter exists and accepts the shader, else CPU (with a one-line
    /// reason). A software adapter (a CPU-type device such as lavapipe's llvmpipe) is never
    /// chosen: the CPU backend is about 1000× faster than a rasterizer emulating a GPU on
    /// the same cores (connect four 2.4 M vs ~2 k playouts/s measured here).
    /// Never an FPGA: a board is only used when named.
    Auto,
    /// The scalar reference backend (slow; the yardstick).
    Reference,
    /// The generated Verilog engines behind the UART shell: `fpga:sim` (a Verilator model)
    /// or `fpga:PORT` (a board on a serial port, e.g. `fpga:/dev/ttyUSB0`).
    Fpga(FpgaTarget),
}

impl BackendKind {
    /// Parses a backend name as on the command line (`gpu`, `cpu`, `auto`, `reference` or
    /// `ref`, `fpga:sim`, `fpga:PORT`; names are case-insensitive, ports are not).
    ///
    /// # Errors
    /// A message listing the accepted names.
    pub fn parse(name: &str) -> Result<Self, String> {
        let lower = name.trim().to_ascii_lowercase();
        match lower.as_str() {
            "gpu" => Ok(Self::Gpu),
            "cpu" => Ok(Self::Cpu),
            "auto" => Ok(Self::Auto),
            "reference" | "ref" => Ok(Self::Reference),
            "fpga" | "fpga:" => Err(format!(
                "backend `{name}` needs a target: fpga:sim (a Verilator model) or fpga:PORT (e.g. fpga:/dev/ttyUSB0)"
            )),
            "fpga:sim" => Ok(Self::Fpga(FpgaTarget::Sim)),
            l if l.starts_with("fpga:") => {
                Ok(Self::Fpga(FpgaTarget::Serial(name.trim()[5..].to_string())))
            }
            _ => Err(format!(
                "unknown backend `{name}` (expected gpu, cpu, auto, reference, fpga:sim or fpga:PORT)"
            )),
        }
    }
}

impl std::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Gpu => f.write_str("gpu"),
            Self::Cpu => f.write_str("cpu"),
            Self::Auto => f.write_str("auto"),
            Self::Reference => f.write_str("reference"),
            Self::Fpga(t) => write!(f, "{t}"),
        }
    }
}

/// What a caller asks a [`BackendFactory`] for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendRequest {
    /// The kind of backend.
    pub kind: BackendKind,
    /// CPU worker threads, when the caller fixes them (`compare`'s `cpu:K`); `None`: the
    /// factory's own setting.
    pub threads: Option<usize>,
    /// A flat throughput run (`run`, `bench`, `compare`): the CPU backend chooses its block
    /// width by measurement instead of MCTS's fixed one.
    pub throughput: bool,
}

impl BackendRequest {
    /// A request for `kind` with the factory's own settings.
    pub fn of(kind: BackendKind) -> Self {
        Self {
            kind,
            threads: None,
            throughput: false,
        }
    }
}

/// A built backend and, when `auto` fell back to the CPU or the choice deserves a word
/// (a software GPU adapter), the one-line note.
pub struct Selected {
    /// The backend.
    pub backend: Box<dyn Backend>,
    /// E.g. `Some("auto: using CPU because …")` after a fallback.
    pub note: Option<String>,
}

/// Builds backends for netlists; implemented by the `propnet` binary over every backend
/// it links, and by tests.
pub trait BackendFactory: Send + Sync + std::fmt::Debug {
    /// Builds the backend `req` names for `net`.
    ///
    /// # Errors
    /// The backend's [`BackendError`] (no device, rejected shader, bad options, …).
    fn make(&self, req: &BackendRequest, net: ValidNetlist) -> Result<Selected, BackendError>;

    /// The evaluator of single states that the CPU backend's compiled program provides
    /// (`trace --backend cpu`); `None` when the factory has no CPU backend, and the trace
    /// then evaluates the gates one by one.
    fn step_evaluator(&self, net: &ValidNetlist) -> Option<Box<dyn StepEvaluator>>;

    /// The GPU's evaluator of many single transitions with percepts
    /// (`trace --backend gpu` on a GDL-II game); `Ok(None)` when the factory has no GPU.
    ///
    /// # Errors
    /// No adapter, a rejected shader, a netlist too large for the step kernel.
    fn gpu_stepper(
        &self,
        _net: &ValidNetlist,
    ) -> Result<Option<Box<dyn crate::step_check::BatchStepper>>, BackendError> {
        Ok(None)
    }
}

/// The backends of a search's workers and the note of the first build's choice.
pub type SearchBackends = (Vec<Box<dyn Backend>>, Option<String>);

/// The backends of a search's workers, one per worker, built by `factory`: `workers`
/// backends of `threads / workers` threads each (at least one), where `workers = 0` means
/// one per thread on the CPU simulator and the scalar reference and one on a GPU or an FPGA
/// (one device queue). `threads = 0` is one per core. An `auto` request for several workers
/// builds one backend first to learn whether it fell back to the CPU (then it counts as
/// `cpu` and that first one is dropped); otherwise each backend is built once. Also returns the first build's note.
///
/// # Errors
/// The factory's [`BackendError`] building any of them.
pub fn make_search_backends(
    factory: &dyn BackendFactory,
    request: &BackendRequest,
    net: &ValidNetlist,
    threads: usize,
    workers: usize,
) -> Result<SearchBackends, BackendError> {
    let threads = match threads {
        0 => crate::measure::hardware_threads(),
        t => t,
    };
    let with = |kind: &BackendKind, threads: usize| BackendRequest {
        kind: kind.clone(),
        threads: Some(threads),
        ..request.clone()
    };
    let mut kind = request.kind.clone();
    let mut note = None;
    let mut probe = None;
    if kind == BackendKind::Auto && workers != 1 {
        let sel = factory.make(&with(&kind, threads), net.clone())?;
        note = sel.note;
        // the CPU simulator is the backend with a CPU program
        if sel.backend.program_size().is_some() {
            kind = BackendKind::Cpu;
        } else {
            probe = Some(sel.backend);
        }
    }
    let on_cores = matches!(kind, BackendKind::Cpu | BackendKind::Reference);
    let workers = match workers {
        0 if on_cores => threads,
        0 => 1,
        w => w,
    };
    if let (1, Some(only)) = (workers, probe) {
        return Ok((vec![only], note));
    }
    let each = with(&kind, (threads / workers).max(1));
    let mut all = Vec::with_capacity(workers);
    for _ in 0..workers {
        let sel = factory.make(&each, net.clone())?;
        note = note.or(sel.note);
        all.push(sel.backend);
    }
    Ok((all, note))
}
