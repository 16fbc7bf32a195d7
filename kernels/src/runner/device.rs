//! The wgpu side of the runner: adapter/device selection, pipeline, buffers, dispatch loop.

use super::plan::plan_chunks;
use super::{decode_end, GpuJob, RecordView, RunParams};
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
pub fn gpu_available_for_tests() -> bool {
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
pub const LLVMPIPE_LOOP_LIMIT: u64 = 65_535;

/// The loop back-edge cap of an adapter's driver, when it has a known one (llvmpipe).
pub fn loop_limit(info: &wgpu::AdapterInfo) -> Option<u64> {
    let text = format!("{} {} {}", info.name, info.driver, info.driver_info).to_lowercase();
    text.contains("llvmpipe").then_some(LLVMPIPE_LOOP_LIMIT)
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
pub fn default_budget(
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

/// Trip count of the shader's overrun probe loop (`prm.probe`).
const PROBE_TRIPS: u32 = 2;

/// Copies of what one dispatch changes, to undo it.
struct Backup {
    counter: wgpu::Buffer,
    ctx: wgpu::Buffer,
    ctx_bytes: u64,
    /// `vals`, byte offset and length of its latch slots, and their copy.
    state: Option<(wgpu::Buffer, u64, u64, wgpu::Buffer)>,
}

impl Backup {
    fn save(&self, enc: &mut wgpu::CommandEncoder, counter: &wgpu::Buffer, ctx: &wgpu::Buffer) {
        enc.copy_buffer_to_buffer(counter, 0, &self.counter, 0, 12);
        enc.copy_buffer_to_buffer(ctx, 0, &self.ctx, 0, self.ctx_bytes.max(4));
        if let Some((vals, off, len, copy)) = &self.state {
            enc.copy_buffer_to_buffer(vals, *off, copy, 0, *len);
        }
    }

    fn restore(&self, enc: &mut wgpu::CommandEncoder, counter: &wgpu::Buffer, ctx: &wgpu::Buffer) {
        enc.copy_buffer_to_buffer(&self.counter, 0, counter, 0, 12);
        enc.copy_buffer_to_buffer(&self.ctx, 0, ctx, 0, self.ctx_bytes.max(4));
        if let Some((vals, off, len, copy)) = &self.state {
            enc.copy_buffer_to_buffer(copy, 0, vals, *off, *len);
        }
    }
}

fn storage(device: &wgpu::Device, label: &str, words: &[u32]) -> wgpu::Buffer {
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
        let kernel = compile(net, net_info, opts)?;
        let adapter = request_adapter()?;
        let info = adapter.get_info();
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("propnet"),
            required_features: wgpu::Features::empty(),
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| RunError::Device {
            adapter: info.name.clone(),
            message: e.to_string(),
        })?;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some("propnet playout kernel"),
            source: wgpu::ShaderSource::Wgsl(kernel.wgsl.as_str().into()),
        };
        let module = device.create_shader_module(desc);
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("propnet playout pipeline"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(RunError::Shader {
                layout: kernel.layout,
                message: err.to_string(),
            });
        }
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

    /// Adapter name, backend API, driver, and the kernel's layout and lanes.
    pub fn describe(&self) -> String {
        format!(
            "gpu: {} ({:?} layout, {} lanes/invocation)",
            adapter_text(&self.info),
            self.kernel.layout,
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
    /// the runner dispatches again. Default: [`default_budget`]. Keeps each dispatch short
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

    /// Runs every playout of `jobs` and hands each record to `sink`, job by job in playout
    /// order.
    ///
    /// # Errors
    /// [`RunError::TooLarge`] when a start state has the wrong length or one record/one
    /// invocation's scratch exceeds the device limits; [`RunError::Failed`] when the device
    /// fails.
    pub fn run(
        &mut self,
        jobs: &[GpuJob<'_>],
        p: &RunParams,
        sink: &mut dyn FnMut(RecordView<'_>),
    ) -> Result<(), RunError> {
        self.take_uncaptured()?;
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let result = self.run_scoped(jobs, p, sink);
        // Pop in reverse order of pushing. A device error explains a failed run better than
        // its symptom (e.g. records never written), so it wins.
        let v = pollster::block_on(validation.pop());
        let o = pollster::block_on(oom.pop());
        if let Some(e) = v.or(o) {
            return Err(RunError::Failed(format!("wgpu: {e}")));
        }
        result?;
        self.take_uncaptured()
    }

    /// Turns errors the uncaptured-error handler collected into [`RunError::Failed`].
    fn take_uncaptured(&self) -> Result<(), RunError> {
        let mut v = self
            .uncaptured
            .lock()
            .map_err(|_| RunError::Failed("error handler poisoned".into()))?;
        if v.is_empty() {
            return Ok(());
        }
        let msg = v.join("; ");
        v.clear();
        Err(RunError::Failed(format!("wgpu: {msg}")))
    }

    fn run_scoped(
        &mut self,
        jobs: &[GpuJob<'_>],
        p: &RunParams,
        sink: &mut dyn FnMut(RecordView<'_>),
    ) -> Result<(), RunError> {
        let k = KernelShape::of(&self.kernel);
        let sw = k.state_words as usize;
        let mut starts = vec![0u32; (jobs.len() * sw).max(1)];
        for (j, job) in jobs.iter().enumerate() {
            if job.start.len() != self.latches {
                return Err(RunError::TooLarge(format!(
                    "job {j}: start state has {} values, the netlist has {} latches",
                    job.start.len(),
                    self.latches
                )));
            }
            for (l, &b) in job.start.iter().enumerate() {
                starts[j * sw + l / 32] |= u32::from(b) << (l % 32);
            }
        }
        let rec_words = self.kernel.record_words(p.want_state);
        let rec_bytes = u64::from(rec_words) * 4;
        let max_binding = self.max_binding();
        let by_limit = (max_binding / rec_bytes).min(1 << 30) as u32;
        if by_limit == 0 {
            return Err(RunError::TooLarge(format!(
                "one record is {rec_bytes} bytes, binding limit {max_binding}"
            )));
        }
        let wg = k.workgroup_size;
        let mut inv_cap = self.max_invocations.min(
            self.limits
                .max_compute_workgroups_per_dimension
                .saturating_mul(wg),
        );
        if k.layout == Layout::Table {
            let per_inv = u64::from(k.slots) * 4;
            let fit = (max_binding / per_inv.max(1)).min(u64::from(u32::MAX)) as u32;
            if fit == 0 {
                return Err(RunError::TooLarge(format!(
                    "{} gate slots per invocation exceed the binding limit {max_binding}",
                    k.slots
                )));
            }
            inv_cap = inv_cap.min(fit);
        }
        let pairs: Vec<(u32, u32)> = jobs.iter().map(|j| (j.first_playout, j.count)).collect();
        let starts_buf = storage(&self.device, "starts", &starts);
        let counter = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("counters"),
            size: 12,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let counter_rb = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("counters readback"),
            size: 12,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        for chunk in plan_chunks(&pairs, k.state_words, by_limit.min(self.max_chunk)) {
            let ninv = chunk.len.div_ceil(k.lanes).min(inv_cap).max(1);
            let groups = ninv.div_ceil(wg);
            let mut params = [
                chunk.len,
                chunk.job_ids.len() as u32,
                p.seed as u32,
                (p.seed >> 32) as u32,
                p.max_steps,
                rec_words,
                u32::from(p.want_state),
                ninv,
                self.budget,
                0,
                PROBE_TRIPS,
                0,
            ];
            let jobs_buf = storage(&self.device, "jobs", &chunk.jobs);
            self.queue
                .write_buffer(&counter, 0, bytemuck::cast_slice(&[0u32, 0, 0]));
            let out_bytes = u64::from(chunk.len) * rec_bytes;
            let (out, staging) = self.out_buffers(out_bytes);
            let vals = if k.layout == Layout::Table {
                Some(self.vals_buffer(u64::from(k.slots) * 4 * u64::from(ninv)))
            } else {
                None
            };
            let ctx_bytes = u64::from(k.ctx_words) * 4 * u64::from(ninv);
            let scratch = |label| {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: ctx_bytes.max(4),
                    usage: wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_SRC
                        | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            };
            let ctx = scratch("saved lanes");
            // What a dispatch changes besides records (which a redo rewrites): the counters,
            // the saved lanes and, for the Table layout, the latch slots of `vals`.
            let backup = Backup {
                counter: self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("counters backup"),
                    size: 12,
                    usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                ctx: scratch("saved lanes backup"),
                ctx_bytes,
                state: vals.as_ref().map(|v| {
                    let off = self.state_slot * 4 * u64::from(ninv);
                    let len = (self.latches as u64 * 4 * u64::from(ninv)).max(4);
                    (
                        v.clone(),
                        off,
                        len,
                        self.device.create_buffer(&wgpu::BufferDescriptor {
                            label: Some("latch slots backup"),
                            size: len,
                            usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                            mapped_at_creation: false,
                        }),
                    )
                }),
            };
            let mut first = true;
            loop {
                params[8] = self.budget;
                let params_buf =
                    self.device
                        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                            label: Some("params"),
                            contents: bytemuck::cast_slice(&params),
                            usage: wgpu::BufferUsages::UNIFORM,
                        });
                let mut entries = vec![
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: params_buf.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: jobs_buf.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: starts_buf.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: counter.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 4,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &out,
                            offset: 0,
                            size: wgpu::BufferSize::new(out_bytes),
                        }),
                    },
                    wgpu::BindGroupEntry {
                        binding: 5,
                        resource: self.tab.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 7,
                        resource: ctx.as_entire_binding(),
                    },
                ];
                if let Some(v) = &vals {
                    entries.push(wgpu::BindGroupEntry {
                        binding: 6,
                        resource: v.as_entire_binding(),
                    });
                }
                let bind = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("propnet bindings"),
                    layout: &self.pipeline.get_bind_group_layout(0),
                    entries: &entries,
                });
                let mut enc = self
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("playouts"),
                    });
                if first {
                    enc.clear_buffer(&out, 0, Some(out_bytes));
                }
                backup.save(&mut enc, &counter, &ctx);
                {
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("playouts"),
                        timestamp_writes: None,
                    });
                    pass.set_pipeline(&self.pipeline);
                    pass.set_bind_group(0, &bind, &[]);
                    pass.dispatch_workgroups(groups, 1, 1);
                }
                enc.copy_buffer_to_buffer(&counter, 0, &counter_rb, 0, 12);
                self.queue.submit([enc.finish()]);
                let ctrs = self.read_back(&counter_rb, 12)?;
                if ctrs[2] != 0 {
                    // The driver cut loops short (llvmpipe's limiter): undo, halve, redo.
                    if self.budget == 1 {
                        return Err(RunError::Failed(format!(
                            "the driver cut the shader's loops short in {} invocations even \
                             at one step per dispatch (llvmpipe stops loops after {} back \
                             edges; this kernel's bound is {} per step); use fewer lanes",
                            ctrs[2], LLVMPIPE_LOOP_LIMIT, self.kernel.loop_bound.per_step
                        )));
                    }
                    self.budget = (self.budget / 2).max(1);
                    self.retries += 1;
                    let mut enc =
                        self.device
                            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                                label: Some("undo"),
                            });
                    backup.restore(&mut enc, &counter, &ctx);
                    self.queue.submit([enc.finish()]);
                    continue;
                }
                if ctrs[1] == 0 {
                    break;
                }
                first = false;
                params[9] = 1;
                self.queue
                    .write_buffer(&counter, 4, bytemuck::cast_slice(&[0u32, 0]));
            }
            let mut enc = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("readback"),
                });
            enc.copy_buffer_to_buffer(&out, 0, &staging, 0, out_bytes);
            self.queue.submit([enc.finish()]);
            let slice = staging.slice(0..out_bytes);
            self.map(&slice)?;
            {
                let view = slice
                    .get_mapped_range()
                    .map_err(|e| RunError::Failed(format!("mapped range: {e}")))?;
                let words: &[u32] = bytemuck::cast_slice(&view[..]);
                let gw = k.goal_words as usize;
                let mut e = 0usize;
                for s in 0..chunk.len {
                    while e + 1 < chunk.job_ids.len() && chunk.jobs[3 * (e + 1)] <= s {
                        e += 1;
                    }
                    let r = &words
                        [s as usize * rec_words as usize..(s as usize + 1) * rec_words as usize];
                    if r[1] == 0 {
                        drop(view);
                        staging.unmap();
                        return Err(RunError::Failed(format!(
                            "the device did not write the record of playout {} of job {}",
                            s, chunk.job_ids[e]
                        )));
                    }
                    sink(RecordView {
                        job: chunk.job_ids[e],
                        index: chunk.jobs[3 * e + 1].wrapping_add(s - chunk.jobs[3 * e]),
                        length: r[0],
                        end: decode_end(r[1]),
                        goal_words: &r[2..2 + gw],
                        state_words: &r[2 + gw..],
                    });
                }
            }
            staging.unmap();
        }
        Ok(())
    }

    fn map(&self, slice: &wgpu::BufferSlice<'_>) -> Result<(), RunError> {
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RunError::Failed(format!("poll: {e}")))?;
        rx.recv()
            .map_err(|e| RunError::Failed(format!("map callback lost: {e}")))?
            .map_err(|e| RunError::Failed(format!("map: {e}")))
    }

    fn read_back(&self, buf: &wgpu::Buffer, bytes: u64) -> Result<Vec<u32>, RunError> {
        let slice = buf.slice(0..bytes);
        self.map(&slice)?;
        let v = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| RunError::Failed(format!("mapped range: {e}")))?;
            bytemuck::cast_slice::<u8, u32>(&view[..]).to_vec()
        };
        buf.unmap();
        Ok(v)
    }

    fn out_buffers(&mut self, bytes: u64) -> (wgpu::Buffer, wgpu::Buffer) {
        if let Some((o, s, cap)) = &self.out_cache {
            if *cap >= bytes {
                return (o.clone(), s.clone());
            }
        }
        let cap = bytes
            .max(4096)
            .next_power_of_two()
            .min(self.max_binding())
            .max(bytes);
        let out = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("records"),
            size: cap,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("records readback"),
            size: cap,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.out_cache = Some((out.clone(), staging.clone(), cap));
        (out, staging)
    }

    fn vals_buffer(&mut self, bytes: u64) -> wgpu::Buffer {
        if let Some((v, cap)) = &self.vals_cache {
            if *cap >= bytes {
                return v.clone();
            }
        }
        let v = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gate values"),
            size: bytes.max(4),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.vals_cache = Some((v.clone(), bytes.max(4)));
        v
    }
}
