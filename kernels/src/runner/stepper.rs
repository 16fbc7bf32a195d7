//! [`GpuStepper`]: runs the step kernel on a wgpu device, many (state, joint move) pairs a
//! chunk, each giving the next state and every role's percepts: straight-line
//! ([`crate::wgsl::step`], one dispatch a chunk) or interpreted
//! ([`crate::wgsl::step_table`], a chunk is its list of dispatches in one compute pass).

use super::device::{open_pipeline, storage, Opened, RunError};
use crate::wgsl::step::{step_kernel, StepShape, STEP_WORKGROUP};
use crate::wgsl::step_table::{step_table, StepTable, PAIRS_PER_INVOCATION, STEP_TABLE_WORKGROUP};
use crate::wgsl::Layout;
use propnet_netlist::{InputId, Netlist, NetlistInfo};
use wgpu::util::DeviceExt as _;

/// What one transition gives: the next state (one bool per latch) and, per role, the
/// indices into its `percepts` list that hold, ascending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stepped {
    /// Next state.
    pub next: Vec<bool>,
    /// Percepts per role.
    pub percepts: Vec<Vec<usize>>,
}

/// The generated kernel: straight-line code, or records interpreted 32 pairs at a time.
enum Form {
    Inline,
    Table {
        kernel: StepTable,
        /// The `tab` buffer (records and output slots).
        tab: wgpu::Buffer,
    },
}

/// The step kernel of one netlist on a device.
pub struct GpuStepper {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    pipeline: wgpu::ComputePipeline,
    form: Form,
    shape: StepShape,
    latches: usize,
    inputs: usize,
    /// Percepts per role.
    percepts: Vec<usize>,
    /// Most pairs per dispatch (device limits; a multiple of 32 for the interpreted form).
    max_pairs: usize,
}

impl GpuStepper {
    /// Generates the step kernel of `net` (`info` its analysis) and builds its pipeline on
    /// the preferred adapter: straight-line code up to `inline_limit` gates, the interpreted
    /// form ([`crate::wgsl::step_table`]) above.
    ///
    /// # Errors
    /// [`RunError::NoAdapter`], [`RunError::Device`], [`RunError::Shader`],
    /// [`RunError::TooLarge`] (one invocation's gate values do not fit a buffer).
    pub fn new(net: &Netlist, info: &NetlistInfo, inline_limit: usize) -> Result<Self, RunError> {
        let (wgsl, layout, shape, table) = if net.gates.len() <= inline_limit {
            let k = step_kernel(net);
            (k.wgsl, Layout::Inline, k.shape, None)
        } else {
            let k = step_table(net, info);
            (k.wgsl.clone(), Layout::Table, k.shape, Some(k))
        };
        let Opened {
            info: adapter,
            limits,
            device,
            queue,
            pipeline,
        } = open_pipeline(&wgsl, "propnet step", layout)?;
        let binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let groups = u64::from(limits.max_compute_workgroups_per_dimension);
        let row = 4 * u64::from(shape.src_words.max(shape.dst_words));
        let (form, max_pairs) = match table {
            None => {
                let pairs = (binding / row).min(groups * u64::from(STEP_WORKGROUP));
                (Form::Inline, pairs)
            }
            Some(k) => {
                let per_inv = (4 * u64::from(k.slots)).max(32 * row);
                let invocations = (binding / per_inv).min(groups * u64::from(STEP_TABLE_WORKGROUP));
                if invocations == 0 || 4 * k.tab.len() as u64 > binding {
                    return Err(RunError::TooLarge(format!(
                        "the step kernel's {} gate-value words per 32 pairs or its {} table \
                         words exceed the device's {binding}-byte buffers",
                        k.slots,
                        k.tab.len()
                    )));
                }
                let tab = storage(&device, "step tab", &k.tab);
                let pairs = invocations * u64::from(PAIRS_PER_INVOCATION);
                (Form::Table { kernel: k, tab }, pairs)
            }
        };
        Ok(Self {
            device,
            queue,
            info: adapter,
            pipeline,
            form,
            shape,
            latches: net.latches.len(),
            inputs: net.inputs.len(),
            percepts: net.roles.iter().map(|r| r.percepts.len()).collect(),
            max_pairs: max_pairs.max(1) as usize,
        })
    }

    /// The kernel's form and shape (the adapter: [`GpuStepper::adapter_info`]).
    pub fn describe(&self) -> String {
        let form = match &self.form {
            Form::Inline => "straight-line code".to_string(),
            Form::Table { kernel, .. } => format!("interpreted, {} records", kernel.records),
        };
        format!(
            "step kernel ({form}; {} percept outputs)",
            self.shape.percepts
        )
    }

    /// The adapter's information.
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }

    /// Sets the records one dispatch of the interpreted form runs (default
    /// [`crate::wgsl::step_table::SEGMENT_RECORDS`]; tests lower it to run many segments);
    /// no effect on the straight-line form.
    pub fn set_segment_records(&mut self, records: u32) {
        if let Form::Table { kernel, .. } = &mut self.form {
            kernel.segment = records.max(1);
        }
    }

    /// The transitions of `pairs` (state: one bool per latch; joint move: one input per
    /// role), in order.
    ///
    /// # Errors
    /// [`RunError::BadJob`] for a state of the wrong length or an input out of range;
    /// [`RunError::Failed`] when the device fails.
    pub fn step(&self, pairs: &[(&[bool], &[InputId])]) -> Result<Vec<Stepped>, RunError> {
        let mut out = Vec::with_capacity(pairs.len());
        for chunk in pairs.chunks(self.max_pairs) {
            let src = self.pack(chunk)?;
            let words = match &self.form {
                Form::Inline => self.dispatch_inline(&src, chunk.len())?,
                Form::Table { kernel, tab } => {
                    self.dispatch_table(kernel, tab, &src, chunk.len())?
                }
            };
            let dw = self.shape.dst_words as usize;
            out.extend(words.chunks(dw).take(chunk.len()).map(|w| self.unpack(w)));
        }
        Ok(out)
    }

    /// The `src` words of `pairs`.
    fn pack(&self, pairs: &[(&[bool], &[InputId])]) -> Result<Vec<u32>, RunError> {
        let (sw, n) = (
            self.shape.state_words as usize,
            self.shape.src_words as usize,
        );
        let mut src = vec![0u32; n * pairs.len()];
        for (k, (state, joint)) in pairs.iter().enumerate() {
            if state.len() != self.latches {
                return Err(RunError::BadJob(format!(
                    "a state of {} latches for a netlist of {}",
                    state.len(),
                    self.latches
                )));
            }
            let base = k * n;
            for (l, _) in state.iter().enumerate().filter(|(_, &b)| b) {
                src[base + l / 32] |= 1 << (l % 32);
            }
            for i in joint.iter().map(|i| i.index()) {
                if i >= self.inputs {
                    return Err(RunError::BadJob(format!("input {i} out of range")));
                }
                src[base + sw + i / 32] |= 1 << (i % 32);
            }
        }
        Ok(src)
    }

    /// One record of `dst` as a [`Stepped`].
    fn unpack(&self, w: &[u32]) -> Stepped {
        let get = |k: usize| (w[k / 32] >> (k % 32)) & 1 == 1;
        let next = (0..self.latches).map(get).collect();
        let mut at = self.shape.state_words as usize * 32;
        let percepts = (self.percepts.iter())
            .map(|&n| {
                let seen = (0..n).filter(|&p| get(at + p)).collect();
                at += n;
                seen
            })
            .collect();
        Stepped { next, percepts }
    }

    /// The straight-line form: one dispatch over `n` pairs of `src`; `dst` read back.
    fn dispatch_inline(&self, src: &[u32], n: usize) -> Result<Vec<u32>, RunError> {
        let params = self.uniform(&[n as u32, 0, 0, 0]);
        let src = self.buffer_init("step src", src, wgpu::BufferUsages::STORAGE);
        let dst = self.dst_buffer(n * self.shape.dst_words as usize);
        let bind = self.bind_group(&[&params, &src, &dst]);
        let groups = (n as u32).div_ceil(STEP_WORKGROUP);
        self.run(&[(bind, groups)], &dst)
    }

    /// The interpreted form: `n` pairs of `src` padded to whole invocations of 32, its
    /// dispatches in order ([`StepTable::dispatches`]); `dst` read back.
    fn dispatch_table(
        &self,
        kernel: &StepTable,
        tab: &wgpu::Buffer,
        src: &[u32],
        n: usize,
    ) -> Result<Vec<u32>, RunError> {
        let per = PAIRS_PER_INVOCATION as usize;
        let ninv = n.div_ceil(per);
        let mut padded = src.to_vec();
        padded.resize(ninv * per * self.shape.src_words as usize, 0);
        let src = self.buffer_init("step src", &padded, wgpu::BufferUsages::STORAGE);
        let dst = self.dst_buffer(ninv * per * self.shape.dst_words as usize);
        let vals = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("step vals"),
            size: (4 * ninv * kernel.slots as usize) as u64,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let groups = (ninv as u32).div_ceil(STEP_TABLE_WORKGROUP);
        let binds: Vec<_> = (kernel.dispatches().iter())
            .map(|d| {
                let params = self.uniform(&[ninv as u32, d.mode, d.start, d.end]);
                (self.bind_group(&[&params, &src, &dst, tab, &vals]), groups)
            })
            .collect();
        self.run(&binds, &dst)
    }

    fn buffer_init(&self, label: &str, words: &[u32], usage: wgpu::BufferUsages) -> wgpu::Buffer {
        let pad = [0u32];
        let words = if words.is_empty() { &pad[..] } else { words };
        (self.device).create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(words),
            usage,
        })
    }

    fn uniform(&self, params: &[u32; 4]) -> wgpu::Buffer {
        self.buffer_init("step params", params, wgpu::BufferUsages::UNIFORM)
    }

    /// A zeroed `dst` of `words` words (at least one).
    fn dst_buffer(&self, words: usize) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("step dst"),
            size: (4 * words.max(1)) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    }

    /// The bind group of `buffers` at bindings 0, 1, ….
    fn bind_group(&self, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        let entries: Vec<_> = (buffers.iter().enumerate())
            .map(|(k, b)| wgpu::BindGroupEntry {
                binding: k as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("step bindings"),
            layout: &self.pipeline.get_bind_group_layout(0),
            entries: &entries,
        })
    }

    /// Runs the dispatches in order (each: its bindings and workgroup count) in one pass,
    /// then reads `dst` back.
    fn run(
        &self,
        dispatches: &[(wgpu::BindGroup, u32)],
        dst: &wgpu::Buffer,
    ) -> Result<Vec<u32>, RunError> {
        let dev = &self.device;
        let bytes = dst.size();
        let staging = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("step staging"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("steps"),
        });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("steps"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            for (bind, groups) in dispatches {
                pass.set_bind_group(0, bind, &[]);
                pass.dispatch_workgroups(*groups, 1, 1);
            }
        }
        enc.copy_buffer_to_buffer(dst, 0, &staging, 0, bytes);
        self.queue.submit([enc.finish()]);
        let slice = staging.slice(0..bytes);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        dev.poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RunError::Failed(format!("poll: {e}")))?;
        rx.recv()
            .map_err(|e| RunError::Failed(format!("map callback lost: {e}")))?
            .map_err(|e| RunError::Failed(format!("map: {e}")))?;
        let words = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| RunError::Failed(format!("mapped range: {e}")))?;
            bytemuck::cast_slice::<u8, u32>(&view[..]).to_vec()
        };
        staging.unmap();
        Ok(words)
    }
}
