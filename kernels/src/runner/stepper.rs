//! [`GpuStepper`]: runs the step kernel ([`crate::wgsl::step`]) on a wgpu device: many
//! (state, joint move) pairs in one dispatch per chunk, each giving the next state and
//! every role's percepts.

use super::device::{adapter_text, open_pipeline, Opened, RunError};
use crate::wgsl::step::{step_kernel, StepKernel, STEP_WORKGROUP};
use crate::wgsl::Layout;
use propnet_netlist::{InputId, Netlist};
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

/// The step kernel of one netlist on a device.
pub struct GpuStepper {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    pipeline: wgpu::ComputePipeline,
    kernel: StepKernel,
    latches: usize,
    inputs: usize,
    /// Percepts per role.
    percepts: Vec<usize>,
    /// Most pairs per dispatch (device limits).
    max_pairs: usize,
}

impl GpuStepper {
    /// Generates the step kernel of `net` (valid; at most `gate_limit` gates) and builds
    /// its pipeline on the preferred adapter.
    ///
    /// # Errors
    /// [`RunError::NoAdapter`], [`RunError::Device`], [`RunError::Codegen`] (too many
    /// gates), [`RunError::Shader`].
    pub fn new(net: &Netlist, gate_limit: usize) -> Result<Self, RunError> {
        let kernel = step_kernel(net, gate_limit)?;
        let Opened {
            info,
            limits,
            device,
            queue,
            pipeline,
        } = open_pipeline(&kernel.wgsl, "propnet step", Layout::Inline)?;
        let binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let words = u64::from(kernel.src_words.max(kernel.dst_words));
        let by_memory = binding / (4 * words);
        let by_groups =
            u64::from(limits.max_compute_workgroups_per_dimension) * u64::from(STEP_WORKGROUP);
        Ok(Self {
            device,
            queue,
            info,
            pipeline,
            latches: net.latches.len(),
            inputs: net.inputs.len(),
            percepts: net.roles.iter().map(|r| r.percepts.len()).collect(),
            max_pairs: by_memory.min(by_groups).max(1) as usize,
            kernel,
        })
    }

    /// The adapter and the kernel's shape.
    pub fn describe(&self) -> String {
        format!(
            "gpu step kernel on {} ({} percepts)",
            adapter_text(&self.info),
            self.kernel.percepts
        )
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
            let words = self.dispatch(&src, chunk.len())?;
            let dw = self.kernel.dst_words as usize;
            out.extend(words.chunks(dw).take(chunk.len()).map(|w| self.unpack(w)));
        }
        Ok(out)
    }

    /// The `src` words of `pairs`.
    fn pack(&self, pairs: &[(&[bool], &[InputId])]) -> Result<Vec<u32>, RunError> {
        let (sw, n) = (
            self.kernel.state_words as usize,
            self.kernel.src_words as usize,
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
        let mut at = self.kernel.state_words as usize * 32;
        let percepts = (self.percepts.iter())
            .map(|&n| {
                let seen = (0..n).filter(|&p| get(at + p)).collect();
                at += n;
                seen
            })
            .collect();
        Stepped { next, percepts }
    }

    /// Runs one dispatch over `n` pairs of `src` and reads `dst` back.
    fn dispatch(&self, src: &[u32], n: usize) -> Result<Vec<u32>, RunError> {
        let dev = &self.device;
        let params = [n as u32, 0, 0, 0];
        let init = |label, contents: &[u8], usage| {
            dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let params = init(
            "step params",
            bytemuck::cast_slice(&params),
            wgpu::BufferUsages::UNIFORM,
        );
        let src = init(
            "step src",
            bytemuck::cast_slice(src),
            wgpu::BufferUsages::STORAGE,
        );
        let bytes = (4 * n * self.kernel.dst_words as usize).max(4) as u64;
        let plain = |label, usage| {
            dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        };
        let dst = plain(
            "step dst",
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let staging = plain(
            "step staging",
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let bind = dev.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("step bindings"),
            layout: &self.pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: src.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: dst.as_entire_binding(),
                },
            ],
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
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups((n as u32).div_ceil(STEP_WORKGROUP), 1, 1);
        }
        enc.copy_buffer_to_buffer(&dst, 0, &staging, 0, bytes);
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
