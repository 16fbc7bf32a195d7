//! The wgpu side of the runner: adapter/device selection, the pipeline and the runner's
//! settings; the dispatch loop is in [`dispatch`].

mod dispatch;

use crate::wgsl::{compile, Kernel, Layout, Options};
use propnet_netlist::{Netlist, NetlistInfo};
use std::sync::{Arc, Mutex};
use wgpu::util::DeviceExt as _;

/// A GPU failure.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// No adapter could be found (no GPU and no software Vulkan such as lavapipe).
    #[error("no GPU adapter available: {0}")]
    NoAdapter(String),
    /// The adapter refused to create a device.
    #[error("could not create a device on {adapter}: {message}")]
    Device {
        /// Adapter name.
        adapter: String,
        /// Driver message.
        message: String,
    },
    /// Shader generation failed.
    #[error("shader generation: {0}")]
    Codegen(#[from] crate::wgsl::Error),
    /// The device rejected the shader or pipeline.
    #[error("the device rejected the {layout:?} shader: {message}")]
    Shader {
        /// Layout of the shader.
        layout: Layout,
        /// Validation message.
        message: String,
    },
    /// A job of the batch cannot run: its start state's length is not the latch count.
    #[error("bad job: {0}")]
    BadJob(String),
    /// The netlist or batch does not fit the device's limits.
    #[error("does not fit the device: {0}")]
    TooLarge(String),
    /// Mapping or dispatch failed.
    #[error("device failure: {0}")]
    Failed(String),
}

/// Adapter name, backend API and driver, e.g. `llvmpipe (LLVM 15.0.6, 256 bits), Vulkan, llvmpipe Mesa 22.3.6`.
pub fn adapter_text(info: &wgpu::AdapterInfo) -> String {
    format!(
        "{}, {:?}, {} {}",
        info.name, info.backend, info.driver, info.driver_info
    )
}

/// Requests the preferred adapter (high performance; honours `WGPU_BACKEND`,
/// `WGPU_ADAPTER_NAME`).
///
/// # Errors
/// [`RunError::NoAdapter`] when there is none.
pub fn request_adapter() -> Result<wgpu::Adapter, RunError> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    if std::env::var_os("WGPU_BACKEND").is_none() {
        // Compute needs no GL; probing it without a display only prints noise.
        desc.backends = wgpu::Backends::PRIMARY;
    }
    let instance = wgpu::Instance::new(desc);
    pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: None,
        apply_limit_buckets: false,
    }))
    .map_err(|e| RunError::NoAdapter(e.to_string()))
}

/// For test suites: true when an adapter (a real GPU or lavapipe) exists. Without one it
/// prints why and returns false (the test skips), unless the environment sets
/// `PROPNET_REQUIRE_GPU=1` (CI does), in which case the absence is a failure (panic).
pub fn adapter_for_tests() -> bool {
    match request_adapter() {
        Ok(_) => true,
        Err(e) => {
            if std::env::var("PROPNET_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("PROPNET_REQUIRE_GPU=1 but {e}");
            }
            eprintln!("skipping GPU test: {e}");
            false
        }
    }
}

/// The preferred adapter's [`adapter_text`] when it is a CPU-type device (a software
/// rasterizer such as lavapipe's llvmpipe, slower than the CPU backend on the same cores);
/// `None` when it is hardware or there is no adapter.
pub fn software_adapter() -> Option<String> {
    let info = request_adapter().ok()?.get_info();
    (info.device_type == wgpu::DeviceType::Cpu).then(|| adapter_text(&info))
}

/// Compiles a netlist's kernel once and runs batches of playouts with it.
pub struct GpuRunner {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    limits: wgpu::Limits,
    kernel: Kernel,
    pipeline: wgpu::ComputePipeline,
    tab: wgpu::Buffer,
    latches: usize,
    max_invocations: u32,
    max_chunk: u32,
    budget: u32,
    /// Dispatches redone because the driver cut the shader's loops short.
    retries: u32,
    /// `vals` slot of latch 0 ([`Layout::Table`]).
    state_slot: u64,
    out_cache: Option<(wgpu::Buffer, wgpu::Buffer, u64)>,
    vals_cache: Option<(wgpu::Buffer, u64)>,
    /// Device errors no error scope caught (wgpu's default handler would panic).
    uncaptured: Arc<Mutex<Vec<String>>>,
}

/// The copyable facts of a [`Kernel`] the dispatch loop needs.
#[derive(Copy, Clone)]
struct KernelShape {
    layout: Layout,
    lanes: u32,
    workgroup_size: u32,
    slots: u32,
    goal_words: u32,
    state_words: u32,
    ctx_words: u32,
}

impl KernelShape {
    fn of(k: &Kernel) -> Self {
        Self {
            layout: k.layout,
            lanes: k.lanes,
            workgroup_size: k.workgroup_size,
            slots: k.slots,
            goal_words: k.goal_words,
            state_words: k.state_words,
            ctx_words: k.ctx_words,
        }
    }
}

/// Loop back edges llvmpipe (lavapipe) allows one shader invocation: Mesa's gallivm sets
/// one counter per invocation group to this at entry and decrements it at every back edge of
/// every loop; at zero every loop exits early and the results are garbage
/// (`kernels/examples/loop_limit.rs` measures it). See [`crate::wgsl::LoopBound`].
pub(crate) const LLVMPIPE_LOOP_LIMIT: u64 = 65_535;

/// The loop back-edge cap of an adapter's driver, when it has a known one (llvmpipe).
pub fn loop_limit(info: &wgpu::AdapterInfo) -> Option<u64> {
    let text = format!("{} {} {}", info.name, info.driver, info.driver_info).to_lowercase();
    text.contains("llvmpipe").then_some(LLVMPIPE_LOOP_LIMIT)
}

/// [`Layout::Auto`] on a CPU adapter (llvmpipe) takes the Table layout above this many
/// gates: that driver's compile time of straight-line code grows faster than the code
/// (Mastermind448's 5,281 gates: 95 s of CPU time, 12 k gates: over 10 minutes), and on a
/// CPU adapter the kernel's speed is not what anyone runs it for.
pub const CPU_ADAPTER_INLINE_GATES: usize = 1_000;

/// `opts` as they apply on an adapter of type `device`: on a CPU adapter,
/// [`Options::inline_gate_limit`] at most [`CPU_ADAPTER_INLINE_GATES`]. An explicit layout
/// is kept.
pub fn for_adapter(opts: &Options, device: wgpu::DeviceType) -> Options {
    let mut o = opts.clone();
    if device == wgpu::DeviceType::Cpu {
        o.inline_gate_limit = o.inline_gate_limit.min(CPU_ADAPTER_INLINE_GATES);
    }
    o
}

/// Default step budget per dispatch (main-loop iterations per invocation before it saves its
/// lanes and the runner dispatches again), clamped to 1..=65,536.
///
/// Two bounds, the smaller wins:
/// - time: about `B / c` steps, where `c` estimates the work of one step (per-lane move
///   choice, input clearing, and for [`Layout::Table`] the interpreted gates and operands) and
///   `B` = 30,000 on CPU adapters without a known loop cap, else 4,000,000, so one dispatch
///   stays short (watchdogs);
/// - loops, when `limit` (see [`loop_limit`]) is given: the largest `s` with
///   `(s + 1) * per_step + per_dispatch <= limit * 7 / 8` by the kernel's
///   [`crate::wgsl::LoopBound`] (`s + 1`: the last main-loop iteration refills lanes before
///   it stops).
pub(crate) fn default_budget(
    net: &Netlist,
    k: &Kernel,
    device: wgpu::DeviceType,
    limit: Option<u64>,
) -> u32 {
    let nleg: usize = net
        .roles
        .iter()
        .map(|r| r.legal.len() + r.goals.len() + 1)
        .sum();
    let mut per_step = k.lanes as usize * (2 * nleg + 2) + net.inputs.len() + 4;
    if k.layout == Layout::Table {
        per_step += net.gates.len() + net.stats().edges + 2 * net.latches.len();
    }
    // A CPU adapter with a known loop cap is bounded by it below; other CPU adapters get a
    // small time budget (they may stall the host), GPUs a large one.
    let total: usize = if device == wgpu::DeviceType::Cpu && limit.is_none() {
        30_000
    } else {
        4_000_000
    };
    let mut steps = (total / per_step) as u64;
    if let Some(limit) = limit {
        let b = k.loop_bound;
        let room = (limit * 7 / 8).saturating_sub(b.per_dispatch);
        steps = steps.min((room / b.per_step.max(1)).saturating_sub(1));
    }
    steps.clamp(1, 65_536) as u32
}

/// A device on the preferred adapter with a compute pipeline.
pub(crate) struct Opened {
    /// The adapter's information.
    pub info: wgpu::AdapterInfo,
    /// The adapter's limits (all requested).
    pub limits: wgpu::Limits,
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The pipeline of the shader's entry point `main`.
    pub pipeline: wgpu::ComputePipeline,
}

/// Creates a device on the preferred adapter with the adapter's limits and builds the
/// compute pipeline of `wgsl` (entry point `main`; `label` names it; `layout` is reported
/// when the device rejects the shader).
///
/// # Errors
/// [`RunError::NoAdapter`], [`RunError::Device`], [`RunError::Shader`].
pub(crate) fn open_pipeline(wgsl: &str, label: &str, layout: Layout) -> Result<Opened, RunError> {
    open_pipeline_on(request_adapter()?, wgsl, label, layout)
}

/// [`open_pipeline`] on a given adapter.
///
/// # Errors
/// [`RunError::Device`], [`RunError::Shader`].
fn open_pipeline_on(
    adapter: wgpu::Adapter,
    wgsl: &str,
    label: &str,
    layout: Layout,
) -> Result<Opened, RunError> {
    let info = adapter.get_info();
    let limits = adapter.limits();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some(label),
        required_features: wgpu::Features::empty(),
        required_limits: limits.clone(),
        ..Default::default()
    }))
    .map_err(|e| RunError::Device {
        adapter: info.name.clone(),
        message: e.to_string(),
    })?;
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    if let Some(err) = pollster::block_on(scope.pop()) {
        return Err(RunError::Shader {
            layout,
            message: err.to_string(),
        });
    }
    Ok(Opened {
        info,
        limits,
        device,
        queue,
        pipeline,
    })
}

pub(crate) fn storage(device: &wgpu::Device, label: &str, words: &[u32]) -> wgpu::Buffer {
    let pad = [0u32];
    let contents: &[u32] = if words.is_empty() { &pad } else { words };
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::cast_slice(contents),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    })
}

impl GpuRunner {
    /// Generates the kernel for `net` (with its analysis `net_info`, see
    /// [`crate::wgsl::compile`]), creates a device on the preferred adapter and builds the
    /// pipeline.
    ///
    /// # Errors
    /// [`RunError::NoAdapter`], [`RunError::Device`], [`RunError::Codegen`],
    /// [`RunError::Shader`] (e.g. a driver that cannot compile a huge inline shader).
    pub fn new(net: &Netlist, net_info: &NetlistInfo, opts: &Options) -> Result<Self, RunError> {
        let adapter = request_adapter()?;
        let opts = for_adapter(opts, adapter.get_info().device_type);
        let kernel = compile(net, net_info, &opts)?;
        let Opened {
            info,
            limits,
            device,
            queue,
            pipeline,
        } = open_pipeline_on(adapter, &kernel.wgsl, "propnet playout", kernel.layout)?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&uncaptured);
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut v) = sink.lock() {
                v.push(e.to_string());
            }
        }));
        let tab = storage(&device, "tab", &kernel.tables);
        let budget = default_budget(net, &kernel, info.device_type, loop_limit(&info));
        Ok(Self {
            device,
            queue,
            info,
            limits,
            kernel,
            pipeline,
            tab,
            latches: net.latches.len(),
            max_invocations: u32::MAX,
            max_chunk: u32::MAX,
            budget,
            retries: 0,
            state_slot: net.gates.len() as u64,
            out_cache: None,
            vals_cache: None,
            uncaptured,
        })
    }

    /// Adapter name, backend API, driver, and the playout kernel's form (straight-line
    /// code or interpreted, [`crate::wgsl::Layout`]) and lanes.
    pub fn describe(&self) -> String {
        let form = match self.kernel.layout {
            crate::wgsl::Layout::Inline => "straight-line code",
            crate::wgsl::Layout::Table => "interpreted",
            crate::wgsl::Layout::Auto => "auto",
        };
        format!(
            "gpu: {} (playout kernel: {form}, {} lanes/invocation)",
            adapter_text(&self.info),
            self.kernel.lanes
        )
    }

    /// The adapter's information.
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }

    /// The generated kernel.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// Caps invocations per dispatch (fewer invocations = more lane refills). Default: none.
    pub fn set_max_invocations(&mut self, n: u32) {
        self.max_invocations = n.max(1);
    }

    /// Caps playouts per dispatch (forces batch splitting). Default: device limits only.
    pub fn set_max_chunk(&mut self, n: u32) {
        self.max_chunk = n.max(1);
    }

    /// Steps (main-loop iterations) per invocation per dispatch before it saves its lanes and
    /// the runner dispatches again. Default: `default_budget` (from the cost of a step and the driver's loop cap). Keeps each dispatch short
    /// (driver watchdogs; lavapipe drops invocations that run too many loop iterations).
    pub fn set_step_budget(&mut self, n: u32) {
        self.budget = n.max(1);
    }

    /// The current step budget per dispatch (lowered after an overrun).
    pub fn step_budget(&self) -> u32 {
        self.budget
    }

    /// Dispatches redone so far because the driver cut the shader's loops short (each redo
    /// halves the step budget).
    pub fn retries(&self) -> u32 {
        self.retries
    }

    fn max_binding(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
    }
}
