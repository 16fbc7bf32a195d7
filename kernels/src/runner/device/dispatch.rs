//! The dispatch loop of [`GpuRunner::run`]: per chunk of the batch, its buffers, the
//! dispatches (redone with half the step budget when a driver cut the shader's loops short,
//! repeated while invocations saved lanes), and the read-back of its records.

use super::{storage, GpuRunner, KernelShape, RunError, LLVMPIPE_LOOP_LIMIT};
use crate::runner::plan::{plan_chunks, Chunk};
use crate::runner::{decode_end, GpuJob, RecordView, RunParams};
use crate::wgsl::Layout;
use wgpu::util::DeviceExt as _;

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

/// Buffers every chunk of one run shares.
struct RunBuffers {
    /// Packed start states of every job (binding 2).
    starts: wgpu::Buffer,
    /// The three atomic counters (binding 3) and their read-back copy.
    counter: wgpu::Buffer,
    counter_rb: wgpu::Buffer,
    /// Words per record.
    rec_words: u32,
}

/// One chunk's dispatch state: its uniform parameters and buffers.
struct ChunkRun<'c> {
    chunk: &'c Chunk,
    /// Workgroups per dispatch.
    groups: u32,
    /// The `Params` uniform (see the WGSL module docs): `[8]` is the step budget, `[9]` the
    /// resume flag.
    params: [u32; 12],
    jobs: wgpu::Buffer,
    out: wgpu::Buffer,
    staging: wgpu::Buffer,
    out_bytes: u64,
    vals: Option<wgpu::Buffer>,
    ctx: wgpu::Buffer,
    backup: Backup,
}

/// What one dispatch found in the counters.
enum Dispatched {
    /// Every invocation finished its lanes.
    Done,
    /// Some invocations saved lanes for another dispatch.
    Pending,
    /// The driver cut loops short in this many invocations; the dispatch was undone.
    Overrun(u32),
}

/// One bool per latch per job packed 32 to a word, `state_words` words per job.
fn pack_starts(
    jobs: &[GpuJob<'_>],
    latches: usize,
    state_words: u32,
) -> Result<Vec<u32>, RunError> {
    let sw = state_words as usize;
    let mut starts = vec![0u32; (jobs.len() * sw).max(1)];
    for (j, job) in jobs.iter().enumerate() {
        if job.start.len() != latches {
            return Err(RunError::BadJob(format!(
                "job {j}: start state has {} values, the netlist has {latches} latches",
                job.start.len(),
            )));
        }
        for (l, &b) in job.start.iter().enumerate() {
            starts[j * sw + l / 32] |= u32::from(b) << (l % 32);
        }
    }
    Ok(starts)
}

impl GpuRunner {
    /// Runs every playout of `jobs` and hands each record to `sink`, job by job in playout
    /// order.
    ///
    /// # Errors
    /// [`RunError::BadJob`] when a start state has the wrong length; [`RunError::TooLarge`]
    /// when one record or one invocation's scratch exceeds the device limits;
    /// [`RunError::Failed`] when the device fails.
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

    /// [`GpuRunner::run`] inside its error scopes: chunk by chunk, prepare, dispatch until
    /// done, read back.
    fn run_scoped(
        &mut self,
        jobs: &[GpuJob<'_>],
        p: &RunParams,
        sink: &mut dyn FnMut(RecordView<'_>),
    ) -> Result<(), RunError> {
        let k = KernelShape::of(&self.kernel);
        let starts = pack_starts(jobs, self.latches, k.state_words)?;
        let rec_words = self.kernel.record_words(p.want_state);
        let (max_len, inv_cap) = self.chunk_limits(&k, rec_words)?;
        let pairs: Vec<(u32, u32)> = jobs.iter().map(|j| (j.first_playout, j.count)).collect();
        let shared = RunBuffers {
            starts: storage(&self.device, "starts", &starts),
            counter: self.plain_buffer(
                "counters",
                12,
                wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
            ),
            counter_rb: self.plain_buffer(
                "counters readback",
                12,
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            rec_words,
        };
        for chunk in plan_chunks(&pairs, k.state_words, max_len.min(self.max_chunk)) {
            let mut run = self.prepare_chunk(&k, &chunk, p, inv_cap, &shared);
            loop {
                match self.dispatch(&run, &shared, run.params[9] == 0)? {
                    Dispatched::Done => break,
                    Dispatched::Pending => {
                        run.params[9] = 1;
                        self.queue.write_buffer(
                            &shared.counter,
                            4,
                            bytemuck::cast_slice(&[0u32, 0]),
                        );
                    }
                    Dispatched::Overrun(n) => self.halve_budget(n)?,
                }
                run.params[8] = self.budget;
            }
            self.read_records(&k, &run, rec_words, sink)?;
        }
        Ok(())
    }

    /// The longest chunk (playouts) whose records fit one binding, and the most invocations
    /// per dispatch (workgroup limit, [`GpuRunner::set_max_invocations`], and for
    /// [`Layout::Table`] the `vals` binding).
    fn chunk_limits(&self, k: &KernelShape, rec_words: u32) -> Result<(u32, u32), RunError> {
        let rec_bytes = u64::from(rec_words) * 4;
        let max_binding = self.max_binding();
        let by_limit = (max_binding / rec_bytes).min(1 << 30) as u32;
        if by_limit == 0 {
            return Err(RunError::TooLarge(format!(
                "one record is {rec_bytes} bytes, binding limit {max_binding}"
            )));
        }
        let mut inv_cap = self.max_invocations.min(
            self.limits
                .max_compute_workgroups_per_dimension
                .saturating_mul(k.workgroup_size),
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
        Ok((by_limit, inv_cap))
    }

    /// A buffer of `size` bytes (at least 4) with `usage`.
    fn plain_buffer(&self, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: size.max(4),
            usage,
            mapped_at_creation: false,
        })
    }

    /// Sets up one chunk: parameters, job table, record buffers, scratch (`vals`, saved
    /// lanes) and the backup of what a dispatch changes; resets the counters.
    fn prepare_chunk<'c>(
        &mut self,
        k: &KernelShape,
        chunk: &'c Chunk,
        p: &RunParams,
        inv_cap: u32,
        shared: &RunBuffers,
    ) -> ChunkRun<'c> {
        let ninv = chunk.len.div_ceil(k.lanes).min(inv_cap).max(1);
        let params = [
            chunk.len,
            chunk.job_ids.len() as u32,
            p.seed as u32,
            (p.seed >> 32) as u32,
            p.max_steps,
            shared.rec_words,
            u32::from(p.want_state),
            ninv,
            self.budget,
            0,
            PROBE_TRIPS,
            0,
        ];
        let jobs = storage(&self.device, "jobs", &chunk.jobs);
        self.queue
            .write_buffer(&shared.counter, 0, bytemuck::cast_slice(&[0u32, 0, 0]));
        let out_bytes = u64::from(chunk.len) * u64::from(shared.rec_words) * 4;
        let (out, staging) = self.out_buffers(out_bytes);
        let vals = (k.layout == Layout::Table)
            .then(|| self.vals_buffer(u64::from(k.slots) * 4 * u64::from(ninv)));
        let ctx_bytes = u64::from(k.ctx_words) * 4 * u64::from(ninv);
        let scratch = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let copy = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        // What a dispatch changes besides records (which a redo rewrites): the counters,
        // the saved lanes and, for the Table layout, the latch slots of `vals`.
        let backup = Backup {
            counter: self.plain_buffer("counters backup", 12, copy),
            ctx: self.plain_buffer("saved lanes backup", ctx_bytes, scratch),
            ctx_bytes,
            state: vals.as_ref().map(|v| {
                let off = self.state_slot * 4 * u64::from(ninv);
                let len = (self.latches as u64 * 4 * u64::from(ninv)).max(4);
                let saved = self.plain_buffer("latch slots backup", len, copy);
                (v.clone(), off, len, saved)
            }),
        };
        ChunkRun {
            chunk,
            groups: ninv.div_ceil(k.workgroup_size),
            params,
            jobs,
            out,
            staging,
            out_bytes,
            vals,
            ctx: self.plain_buffer("saved lanes", ctx_bytes, scratch),
            backup,
        }
    }

    /// The bind group of one dispatch of `run` (bindings 0–7, see the WGSL module docs).
    fn bind_group(&self, run: &ChunkRun<'_>, shared: &RunBuffers) -> wgpu::BindGroup {
        let params = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("params"),
                contents: bytemuck::cast_slice(&run.params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let out = wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &run.out,
            offset: 0,
            size: wgpu::BufferSize::new(run.out_bytes),
        });
        let mut entries = vec![
            (0, params.as_entire_binding()),
            (1, run.jobs.as_entire_binding()),
            (2, shared.starts.as_entire_binding()),
            (3, shared.counter.as_entire_binding()),
            (4, out),
            (5, self.tab.as_entire_binding()),
            (7, run.ctx.as_entire_binding()),
        ];
        if let Some(v) = &run.vals {
            entries.push((6, v.as_entire_binding()));
        }
        let entries: Vec<wgpu::BindGroupEntry<'_>> = entries
            .into_iter()
            .map(|(binding, resource)| wgpu::BindGroupEntry { binding, resource })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("propnet bindings"),
            layout: &self.pipeline.get_bind_group_layout(0),
            entries: &entries,
        })
    }

    /// Dispatches `run` once (clearing its records first when `first`), after backing up
    /// what the dispatch changes, and reads the counters; undoes the dispatch when the
    /// driver cut its loops short.
    fn dispatch(
        &self,
        run: &ChunkRun<'_>,
        shared: &RunBuffers,
        first: bool,
    ) -> Result<Dispatched, RunError> {
        let bind = self.bind_group(run, shared);
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("playouts"),
            });
        if first {
            enc.clear_buffer(&run.out, 0, Some(run.out_bytes));
        }
        run.backup.save(&mut enc, &shared.counter, &run.ctx);
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("playouts"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(run.groups, 1, 1);
        }
        enc.copy_buffer_to_buffer(&shared.counter, 0, &shared.counter_rb, 0, 12);
        self.queue.submit([enc.finish()]);
        let ctrs = self.read_back(&shared.counter_rb, 12)?;
        if ctrs[2] != 0 {
            let mut enc = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("undo"),
                });
            run.backup.restore(&mut enc, &shared.counter, &run.ctx);
            self.queue.submit([enc.finish()]);
            return Ok(Dispatched::Overrun(ctrs[2]));
        }
        Ok(if ctrs[1] == 0 {
            Dispatched::Done
        } else {
            Dispatched::Pending
        })
    }

    /// After the driver cut loops short in `invocations` invocations: halves the step
    /// budget for the redo, or fails when it is already one step.
    fn halve_budget(&mut self, invocations: u32) -> Result<(), RunError> {
        if self.budget == 1 {
            return Err(RunError::Failed(format!(
                "the driver cut the shader's loops short in {invocations} invocations even \
                 at one step per dispatch (llvmpipe stops loops after {} back \
                 edges; this kernel's bound is {} per step); use fewer lanes",
                LLVMPIPE_LOOP_LIMIT, self.kernel.loop_bound.per_step
            )));
        }
        self.budget = (self.budget / 2).max(1);
        self.retries += 1;
        Ok(())
    }

    /// Copies `run`'s records to the staging buffer, maps it and hands each record to
    /// `sink`.
    fn read_records(
        &self,
        k: &KernelShape,
        run: &ChunkRun<'_>,
        rec_words: u32,
        sink: &mut dyn FnMut(RecordView<'_>),
    ) -> Result<(), RunError> {
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("readback"),
            });
        enc.copy_buffer_to_buffer(&run.out, 0, &run.staging, 0, run.out_bytes);
        self.queue.submit([enc.finish()]);
        let slice = run.staging.slice(0..run.out_bytes);
        self.map(&slice)?;
        let result = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| RunError::Failed(format!("mapped range: {e}")))?;
            let words: &[u32] = bytemuck::cast_slice(&view[..]);
            emit_records(run.chunk, words, rec_words, k.goal_words as usize, sink)
        };
        run.staging.unmap();
        result
    }

    pub(super) fn map(&self, slice: &wgpu::BufferSlice<'_>) -> Result<(), RunError> {
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
        let out = self.plain_buffer(
            "records",
            cap,
            wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        );
        let staging = self.plain_buffer(
            "records readback",
            cap,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        self.out_cache = Some((out.clone(), staging.clone(), cap));
        (out, staging)
    }

    fn vals_buffer(&mut self, bytes: u64) -> wgpu::Buffer {
        if let Some((v, cap)) = &self.vals_cache {
            if *cap >= bytes {
                return v.clone();
            }
        }
        let v = self.plain_buffer(
            "gate values",
            bytes,
            wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        );
        self.vals_cache = Some((v.clone(), bytes.max(4)));
        v
    }
}

/// Hands each record of `chunk` in `words` (`rec_words` words each, `goal_words` of goals)
/// to `sink` with its job and playout index.
///
/// # Errors
/// [`RunError::Failed`] for a record the device never wrote.
fn emit_records(
    chunk: &Chunk,
    words: &[u32],
    rec_words: u32,
    goal_words: usize,
    sink: &mut dyn FnMut(RecordView<'_>),
) -> Result<(), RunError> {
    let rw = rec_words as usize;
    let mut e = 0usize;
    for s in 0..chunk.len {
        while e + 1 < chunk.job_ids.len() && chunk.jobs[3 * (e + 1)] <= s {
            e += 1;
        }
        let r = &words[s as usize * rw..(s as usize + 1) * rw];
        if r[1] == 0 {
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
            goal_words: &r[2..2 + goal_words],
            state_words: &r[2 + goal_words..],
        });
    }
    Ok(())
}
