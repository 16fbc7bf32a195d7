//! The block simulator: `64 * W` playout lanes stepped together through a [`Program`].
//!
//! Per step: evaluate the core phase; lanes that are terminal or at the step limit finish;
//! each role of each live lane picks its move ([`super::choice`]: bit-sliced counting and
//! selection, or a bit transpose for roles with many legal entries; one Threefry draw per
//! lane with two or more choices); lanes where a role has no legal move finish; finished lanes are recorded (when goals need instructions of their own,
//! via a pending block whose goal phase runs once per `64 * W` finished playouts); the
//! next phase runs (guarded programs skip the runs of dead latch groups) and latches take
//! their next values; finished lanes are refilled with the next playout of the work queue
//! and reset to its job's start state, so lanes stay busy until the queue is empty (a
//! guarded program refills the whole block at once when its last lane finishes).

pub(super) mod pool;

use super::choice::{choose_moves, ChoiceScratch, Isa, KnownZero, LaneCounters};
use super::eval::{read, run_alive, run_guarded, run_phase, run_skipping, Block};
use super::guard::NONE;
use super::probe::{NoProbe, PhaseTimes, Probe, SimPhase};
use super::program::{slot, Operand, Phase, Program};
use super::queue::{Cursor, WorkQueue};
use super::record::{for_each_lane, record, tally, Finished, FinishedLanes};
use super::slots::Slots;
use propnet_netlist::playout::{PlayoutEnd, PlayoutRecord};
use propnet_runtime::backend::JobResult;

/// What one engine run produced.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Per job of the batch (indexed like the batch's jobs).
    pub jobs: Vec<JobResult>,
    /// When records were requested: `(job, offset within job, record)`.
    pub records: Vec<(u32, u32, PlayoutRecord)>,
    /// Joint moves made (states advanced) by all finished playouts.
    pub steps: u64,
}

/// Static parameters shared by every engine of a batch.
pub struct RunSpec<'a> {
    /// Start state of each job, one bool per latch.
    pub starts: &'a [&'a [bool]],
    /// First playout index of each job.
    pub first_playout: &'a [u32],
    /// RNG seed.
    pub seed: u64,
    /// Step limit.
    pub max_steps: u32,
    /// Keep per-playout records.
    pub want_records: bool,
    /// The instruction-set path ([`crate::Simd::Portable`] forces the portable one).
    pub simd: crate::Simd,
}

/// Lane state and scratch buffers for one block of `64 * W` lanes; `P` times the phases
/// of a step when profiling ([`NoProbe`] otherwise).
pub struct Engine<'p, const W: usize, P: Probe = NoProbe> {
    prog: &'p Program,
    probe: P,
    vals: Slots<W>,
    /// Next values of the latches in `latch_fed`, while latches are updated.
    next_buf: Vec<Block<W>>,
    /// Latches whose next value is another latch's slot.
    latch_fed: Vec<u32>,
    /// Per latch: the run of the next phase holding its next value, or `NONE`.
    next_run: Vec<u32>,
    /// Per role, per legal entry: the core run holding it ([`KnownZero::runs`]).
    legal_runs: Vec<Vec<u32>>,
    /// Per lane: playout index (RNG counter), step, job, offset within job.
    playout: Vec<u32>,
    step: Vec<u32>,
    job: Vec<u32>,
    offset: Vec<u32>,
    end: Vec<PlayoutEnd>,
    active: Block<W>,
    /// Buffers of the move choice for roles with many legal entries.
    scratch: ChoiceScratch,
    /// Pending block of finished playouts awaiting goal evaluation: slot values (lane `p`
    /// holds `pending[p]`'s final state) and what else their records need.
    gvals: Slots<W>,
    pending: Vec<Finished>,
    /// Scratch of [`tally`]: finished lanes grouped by job.
    groups: Vec<(u32, Block<W>)>,
    /// Per operand below `2 * latches`: false for a plain latch that is 0 in every lane
    /// (kept current with the latches; [`run_skipping`]).
    nonzero: Vec<bool>,
    /// Per guard (of the core or next phase): some latch of it is 1 in some lane this step.
    live_guards: Vec<bool>,
    /// Per run of the next phase, then per run of the core phase: its slots are 0 from an
    /// earlier skip.
    zeroed: Vec<bool>,
    /// Lanes loaded since the last [`Self::apply_refills`], by job.
    refills: Vec<(u32, Block<W>)>,
    /// Block steps taken (the probe samples some).
    block_steps: u64,
    /// At least the step of every active lane: it grows by one per block step, and a
    /// refilled lane starts below it; made exact whenever it reaches the limit.
    oldest: u32,
}

/// Per operand of `ops`: the run of `phase` whose instruction gives its value (not
/// negated), or `NONE` when another slot or a negation does.
fn runs_of(phase: &Phase, ops: impl Iterator<Item = Operand>) -> Vec<u32> {
    let mut run_of = vec![NONE; phase.len()];
    let mut k = 0;
    for (r, run) in phase.runs.iter().enumerate() {
        let n = run.len as usize;
        run_of[k..k + n].fill(r as u32);
        k += n;
    }
    ops.map(|op| {
        let negated = op & 1 == 1;
        slot(op)
            .checked_sub(phase.first_slot)
            .and_then(|i| run_of.get(i).copied())
            .filter(|_| !negated)
            .unwrap_or(NONE)
    })
    .collect()
}

/// Per latch: the run of `prog`'s next phase whose instruction gives its next value
/// (not negated), or `NONE` when another slot or a negation does.
fn next_runs(prog: &Program) -> Vec<u32> {
    runs_of(&prog.next, prog.next_state.iter().copied())
}

#[inline(always)]
fn set_bit<const W: usize>(m: &mut Block<W>, lane: usize) {
    m[lane / 64] |= 1 << (lane % 64);
}

#[inline(always)]
fn is_zero<const W: usize>(m: &Block<W>) -> bool {
    m.iter().all(|&w| w == 0)
}

impl<'p, const W: usize, P: Probe> Engine<'p, W, P> {
    /// Lanes per block.
    pub const LANES: usize = 64 * W;

    /// Allocates the buffers for `prog`.
    pub fn new(prog: &'p Program) -> Self {
        let lanes = Self::LANES;
        let max_moves = prog.legal.iter().map(Vec::len).max().unwrap_or(0);
        let latch_fed: Vec<u32> = (0..prog.latches as u32)
            .filter(|&l| slot(prog.next_state[l as usize]) < prog.latches)
            .collect();
        Engine {
            prog,
            probe: P::default(),
            vals: Slots::zeroed(prog.slots),
            next_buf: vec![[0; W]; latch_fed.len()],
            latch_fed,
            next_run: next_runs(prog),
            legal_runs: prog
                .legal
                .iter()
                .map(|entries| runs_of(&prog.core, entries.iter().map(|&(op, _)| op)))
                .collect(),
            playout: vec![0; lanes],
            step: vec![0; lanes],
            job: vec![0; lanes],
            offset: vec![0; lanes],
            end: vec![PlayoutEnd::Terminal; lanes],
            active: [0; W],
            scratch: ChoiceScratch::new(lanes, max_moves),
            gvals: Slots::zeroed(if prog.goal.is_empty() {
                0
            } else {
                // Latches, constant, inputs, core and goal slots; no next slots.
                prog.next.first_slot
            }),
            pending: Vec::with_capacity(lanes),
            groups: Vec::new(),
            nonzero: vec![
                true;
                if prog.skips_products {
                    2 * prog.latches
                } else {
                    0
                }
            ],
            live_guards: vec![false; prog.guards.len()],
            zeroed: vec![false; prog.next.runs.len() + prog.core.runs.len()],
            refills: Vec::new(),
            block_steps: 0,
            oldest: 0,
        }
    }

    /// Runs playouts taken from `work` until it is empty and adds their results to `out`
    /// (`out.jobs` must have one entry per job of `spec`). Engines on other threads may
    /// draw from the same queue.
    ///
    /// On x86-64 processors with AVX2, POPCNT and BMI1/2 (detected at run time) the whole
    /// stepper runs in a copy compiled for them (wider word loops, hardware popcount,
    /// and the AVX2 move choice of [`super::avx2`]); elsewhere in the baseline build. Both
    /// give identical results.
    pub fn run(&mut self, spec: &RunSpec<'_>, work: &WorkQueue, out: &mut Outcome) {
        #[cfg(target_arch = "x86_64")]
        if let (crate::Simd::Auto, Some(avx2)) = (spec.simd, super::avx2::Avx2::detect()) {
            if std::is_x86_feature_detected!("popcnt")
                && std::is_x86_feature_detected!("bmi1")
                && std::is_x86_feature_detected!("bmi2")
            {
                // SAFETY: the features `run_x86_v3` is compiled for were detected above.
                // With `Avx2::pick_planes` this is the simulator's only unsafe code
                // (runtime CPU dispatch).
                #[allow(unsafe_code)]
                unsafe {
                    self.run_x86_v3(spec, work, out, avx2)
                };
                return;
            }
        }
        self.run_any(spec, work, out, Isa::Portable);
    }

    /// [`Self::run`] compiled with AVX2, POPCNT and BMI1/2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
    fn run_x86_v3(
        &mut self,
        spec: &RunSpec<'_>,
        work: &WorkQueue,
        out: &mut Outcome,
        avx2: super::avx2::Avx2,
    ) {
        self.run_any(spec, work, out, Isa::Avx2(avx2));
    }

    /// [`Self::run`] for any processor; inlined into each feature-specific copy.
    #[inline(always)]
    fn run_any(&mut self, spec: &RunSpec<'_>, work: &WorkQueue, out: &mut Outcome, isa: Isa) {
        let mut cursor = work.cursor();
        self.active = [0; W];
        self.fill(&mut cursor, spec);
        while !is_zero(&self.active) {
            self.step(spec, &mut cursor, out, isa, true);
        }
        self.flush(spec, out);
    }

    /// Loads the next playouts of the queue into every lane (the block must be idle);
    /// false when the queue had none left.
    #[inline(always)]
    fn fill(&mut self, cursor: &mut Cursor<'_>, spec: &RunSpec<'_>) -> bool {
        let mut any = false;
        for lane in 0..Self::LANES {
            if !self.load_lane(lane, cursor, spec) {
                break;
            }
            any = true;
        }
        self.apply_refills(spec);
        any
    }

    /// One block step of the active lanes (see the module doc). With `refill`, finished
    /// lanes are refilled from `cursor` (at once, or all together once the block is idle
    /// when the program is guarded); without, they stay idle ([`pool`] refills).
    #[inline(always)]
    pub(super) fn step(
        &mut self,
        spec: &RunSpec<'_>,
        cursor: &mut Cursor<'_>,
        out: &mut Outcome,
        isa: Isa,
        refill: bool,
    ) {
        let prog = self.prog;
        let core_guarded = prog.core_is_guarded();
        {
            self.probe.begin_step(self.block_steps);
            if core_guarded {
                self.run_core_guarded(isa);
            } else {
                run_skipping(&mut self.vals, &prog.core, &self.nonzero);
            }
            self.probe.end_phase(SimPhase::CoreGates);
            if self.probe.sampling() {
                let n = self.core_operands_run(core_guarded);
                let lanes = self.active.iter().map(|w| w.count_ones() as u64).sum();
                self.probe.add_core_operands(n, lanes);
            }
            // 1. Terminal or step limit.
            let term = read(&self.vals, prog.terminal);
            let mut fin: Block<W> = std::array::from_fn(|j| term[j] & self.active[j]);
            let mut at_limit = [0u64; W];
            // Only when some lane may have reached the limit are the lanes looked at.
            self.block_steps += 1;
            if self.oldest >= spec.max_steps {
                self.oldest = 0;
                for (j, w) in at_limit.iter_mut().enumerate() {
                    for b in 0..64 {
                        let step = self.step[64 * j + b];
                        *w |= u64::from(step == spec.max_steps) << b;
                        if self.active[j] >> b & 1 == 1 && step < spec.max_steps {
                            self.oldest = self.oldest.max(step);
                        }
                    }
                    *w &= self.active[j] & !fin[j];
                }
            }
            for j in 0..W {
                fin[j] |= at_limit[j];
            }
            // 2. Moves of live lanes, role by role.
            let mut live: Block<W> = std::array::from_fn(|j| self.active[j] & !fin[j]);
            for s in prog.input_base..prog.input_base + prog.inputs {
                self.vals[s] = [0; W];
            }
            self.probe.end_phase(SimPhase::Terminal);
            let mut stuck = [0u64; W];
            for r in 0..prog.legal.len() {
                if is_zero(&live) {
                    break;
                }
                self.choose_role(spec, r, &mut live, &mut stuck, isa);
            }
            for j in 0..W {
                fin[j] |= stuck[j];
            }
            // 3. Account for finished lanes.
            if !is_zero(&fin) {
                self.finish(spec, &fin, &at_limit, &stuck, out);
            }
            self.probe.end_phase(SimPhase::Goals);
            // 4. Transition.
            if prog.guards.is_empty() {
                run_skipping(&mut self.vals, &prog.next, &self.nonzero);
            } else {
                if !core_guarded {
                    self.mark_live_guards();
                }
                run_guarded(
                    &mut self.vals,
                    &prog.next,
                    &self.nonzero,
                    &self.live_guards,
                    &mut self.zeroed[..prog.next.runs.len()],
                );
            }
            self.take_next_state();
            self.probe.end_phase(SimPhase::NextGates);
            for s in self.step.iter_mut() {
                *s = s.wrapping_add(1);
            }
            self.oldest = self.oldest.saturating_add(1);
            // 5. Refill finished lanes: at once, or (lockstep, when the next phase is
            // guarded) all together once the whole block has finished, so that the
            // groups no lane has reached stay dead.
            let lockstep = !prog.guards.is_empty();
            for_each_lane(&fin, |lane| {
                self.active[lane / 64] &= !(1u64 << (lane % 64));
                if !lockstep && refill {
                    self.load_lane(lane, cursor, spec);
                }
            });
            if core_guarded && !is_zero(&fin) {
                self.clear_lanes(&fin);
            }
            if lockstep && refill && is_zero(&self.active) {
                self.fill(cursor, spec);
            }
            self.apply_refills(spec);
            self.probe.end_phase(SimPhase::Refill);
        }
    }

    /// Latches take their next values, in place: a value is copied once, straight from
    /// the slot that holds it, except for latches fed by a latch slot (that slot may be
    /// overwritten first), which go through `next_buf`. A latch fed by a run the guards
    /// skipped (its slots are 0) is cleared without a read, or left alone when it is 0
    /// in every lane already: on hex 9×9 that is most of the 1.8 MB a 2,048-lane block
    /// would copy per step.
    #[inline(always)]
    fn take_next_state(&mut self) {
        let prog = self.prog;
        for (k, &l) in self.latch_fed.iter().enumerate() {
            self.next_buf[k] = read(&self.vals, prog.next_state[l as usize]);
        }
        for (l, &op) in prog.next_state.iter().enumerate() {
            let run = self.next_run[l];
            if run != NONE && self.zeroed[run as usize] {
                if self.nonzero.get(2 * l) != Some(&false) {
                    self.vals[l] = [0; W];
                    if let Some(n) = self.nonzero.get_mut(2 * l) {
                        *n = false;
                    }
                }
                continue;
            }
            if slot(op) < prog.latches {
                continue;
            }
            let v = read(&self.vals, op);
            if let Some(n) = self.nonzero.get_mut(2 * l) {
                *n = !is_zero(&v);
            }
            self.vals[l] = v;
        }
        for (k, &l) in self.latch_fed.iter().enumerate() {
            let v = self.next_buf[k];
            if let Some(n) = self.nonzero.get_mut(2 * l as usize) {
                *n = !is_zero(&v);
            }
            self.vals[l as usize] = v;
        }
    }

    /// The core phase with its skip guards ([`super::observe`]); the marks of live guards
    /// it makes serve the next phase too (latches keep their values until the
    /// transition). Kept out of line: only large programs (chess) have core guards, and
    /// the stepper of the others stays as it was. Being out of line, it is not part of the
    /// stepper's AVX2 copy: with AVX2 (`isa`) the evaluation runs in [`super::avx2`]'s copy.
    #[inline(never)]
    fn run_core_guarded(&mut self, isa: Isa) {
        self.mark_live_guards();
        let (vals, phase, nonzero) = (&mut self.vals, &self.prog.core, &self.nonzero);
        let (live, zeroed) = (
            &self.live_guards,
            &mut self.zeroed[self.prog.next.runs.len()..],
        );
        match isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2(avx2) => avx2.run_guarded(vals, phase, nonzero, live, zeroed),
            Isa::Portable => run_guarded(vals, phase, nonzero, live, zeroed),
        }
    }

    /// Sets every latch of the `lanes` to 0: a finished lane waiting for its block
    /// (lockstep) then keeps no guard of the core phase live (a king square it ended on).
    #[inline(never)]
    fn clear_lanes(&mut self, lanes: &Block<W>) {
        for l in 0..self.prog.latches {
            let v = &mut self.vals[l];
            for j in 0..W {
                v[j] &= !lanes[j];
            }
            let zero = is_zero(v);
            if let Some(n) = self.nonzero.get_mut(2 * l) {
                *n = !zero;
            }
        }
    }

    /// Operands of the core phase's runs evaluated this step: all of them, or when the
    /// phase is `guarded`, those of the runs whose guards were live.
    fn core_operands_run(&self, guarded: bool) -> u64 {
        let core = &self.prog.core;
        if !guarded {
            return core.args.len() as u64;
        }
        let mut k = 0usize;
        let mut n = 0usize;
        for (r, run) in core.runs.iter().enumerate() {
            if run_alive(core, &self.live_guards, r) {
                n += core.run_operands(k, run);
            }
            k += run.len as usize;
        }
        n as u64
    }

    /// Marks the guards that have a latch at 1 in some lane.
    #[inline(always)]
    fn mark_live_guards(&mut self) {
        let (vals, nonzero) = (&self.vals, &self.nonzero);
        let live_latch = |l: usize| match nonzero.get(2 * l) {
            Some(&n) => n,
            None => !is_zero(&vals[l]),
        };
        for (live, latches) in self.live_guards.iter_mut().zip(&self.prog.guards) {
            *live = latches.iter().any(|&l| live_latch(l as usize));
        }
        for check in &self.prog.key_checks {
            if !check.holds(vals, &self.active) {
                for &g in &check.guards {
                    self.live_guards[g as usize] = true;
                }
            }
        }
    }

    /// Puts the next playout of the queue into `lane`; false when the queue is empty.
    #[inline(always)]
    fn load_lane(&mut self, lane: usize, cursor: &mut Cursor<'_>, spec: &RunSpec<'_>) -> bool {
        let Some((job, offset)) = cursor.take() else {
            return false;
        };
        self.job[lane] = job;
        self.offset[lane] = offset;
        self.playout[lane] = spec.first_playout[job as usize].wrapping_add(offset);
        self.step[lane] = 0;
        set_bit(&mut self.active, lane);
        match self.refills.iter_mut().find(|(j, _)| *j == job) {
            Some((_, m)) => set_bit(m, lane),
            None => {
                let mut m = [0; W];
                set_bit(&mut m, lane);
                self.refills.push((job, m));
            }
        }
        true
    }

    /// Resets the latches of refilled lanes to their job's start state.
    #[inline(always)]
    fn apply_refills(&mut self, spec: &RunSpec<'_>) {
        if self.refills.is_empty() {
            return;
        }
        for (job, m) in self.refills.drain(..) {
            let start = spec.starts[job as usize];
            for (v, &b) in self.vals[..self.prog.latches].iter_mut().zip(start) {
                for j in 0..W {
                    v[j] = if b { v[j] | m[j] } else { v[j] & !m[j] };
                }
            }
        }
        self.mark_nonzero_latches();
    }

    /// Makes `nonzero` (where the program skips products) say again which latches are 1
    /// in some lane, after latches were written from outside the step.
    #[inline(always)]
    fn mark_nonzero_latches(&mut self) {
        if self.prog.skips_products {
            for (l, v) in self.vals[..self.prog.latches].iter().enumerate() {
                self.nonzero[2 * l] = !is_zero(v);
            }
        }
    }

    /// Picks role `r`'s move in every `live` lane ([`choose_moves`]); lanes without a
    /// legal move move from `live` to `stuck`. Input slots must be zero for the live lanes.
    #[inline(always)]
    fn choose_role(
        &mut self,
        spec: &RunSpec<'_>,
        r: usize,
        live: &mut Block<W>,
        stuck_all: &mut Block<W>,
        isa: Isa,
    ) {
        let mut stuck = [0u64; W];
        let ctr = LaneCounters {
            seed: spec.seed,
            role: r as u32,
            playout: &self.playout,
            step: &self.step,
        };
        let zero = KnownZero {
            runs: &self.legal_runs[r],
            zeroed: &self.zeroed[self.prog.next.runs.len()..],
        };
        choose_moves(
            &mut self.vals,
            &self.prog.legal[r],
            zero,
            self.prog.input_base,
            live,
            &mut stuck,
            &ctr,
            &mut self.scratch,
            &mut self.probe,
            isa,
        );
        if !is_zero(&stuck) {
            for_each_lane(&stuck, |lane| {
                self.end[lane] = PlayoutEnd::NoLegalMove(r as u32)
            });
            for j in 0..W {
                live[j] &= !stuck[j];
                stuck_all[j] |= stuck[j];
            }
        }
    }

    /// Accounts for the lanes in `fin` (terminal, at the step limit or stuck; core phase
    /// current). Aggregates only: goals evaluated in place and tallied by lane masks, or,
    /// when the goal phase costs more than parking the finished states, via the pending
    /// block. With records: one record per lane, goals via the pending block.
    #[inline(always)]
    fn finish(
        &mut self,
        spec: &RunSpec<'_>,
        fin: &Block<W>,
        limit: &Block<W>,
        stuck: &Block<W>,
        out: &mut Outcome,
    ) {
        let prog = self.prog;
        // How each lane ended, for per-lane records (stuck lanes were marked by
        // `choose_role`; the aggregates below need only the masks).
        let mark_ends = |end: &mut [PlayoutEnd]| {
            for_each_lane(limit, |lane| end[lane] = PlayoutEnd::StepLimit);
            let terminal: Block<W> = std::array::from_fn(|j| fin[j] & !limit[j] & !stuck[j]);
            for_each_lane(&terminal, |lane| end[lane] = PlayoutEnd::Terminal);
        };
        if spec.want_records {
            mark_ends(&mut self.end);
            if prog.goal.is_empty() {
                for_each_lane(fin, |lane| {
                    record(prog, &self.vals, lane, &self.finished(lane), out)
                });
            } else {
                for_each_lane(fin, |lane| self.defer(spec, lane, out));
            }
            return;
        }
        // Parking a lane copies its latches one bit at a time; the goal phase in place
        // costs its operands once for the whole block.
        let finished = fin.iter().map(|w| w.count_ones() as usize).sum::<usize>();
        if prog.goal.args.len() > finished * prog.latches {
            mark_ends(&mut self.end);
            for_each_lane(fin, |lane| self.defer(spec, lane, out));
            return;
        }
        run_skipping(&mut self.vals, &prog.goal, &self.nonzero);
        let lanes = FinishedLanes {
            all: *fin,
            limit: *limit,
            stuck: *stuck,
            job: &self.job,
            length: &self.step,
        };
        tally(prog, &self.vals, &lanes, &mut self.groups, out);
    }

    /// What `lane`'s record needs besides its state and goals.
    fn finished(&self, lane: usize) -> Finished {
        Finished {
            job: self.job[lane],
            offset: self.offset[lane],
            playout: self.playout[lane],
            length: self.step[lane],
            end: self.end[lane],
        }
    }

    /// Phase times gathered by the probe so far.
    pub fn phase_times(&self) -> PhaseTimes {
        self.probe.times()
    }

    /// Parks the finished playout in `lane` in the pending block (its final state copied
    /// to a free lane there); evaluates goals for the whole pending block once it is full.
    fn defer(&mut self, spec: &RunSpec<'_>, lane: usize, out: &mut Outcome) {
        let p = self.pending.len();
        let (j, b) = (lane / 64, lane % 64);
        let (pj, pb) = (p / 64, p % 64);
        for (g, v) in self.gvals[..self.prog.latches]
            .iter_mut()
            .zip(&self.vals[..self.prog.latches])
        {
            g[pj] = (g[pj] & !(1 << pb)) | (((v[j] >> b) & 1) << pb);
        }
        self.pending.push(self.finished(lane));
        if self.pending.len() == Self::LANES {
            self.flush(spec, out);
        }
    }

    /// Evaluates goals of the pending block and records its playouts.
    fn flush(&mut self, spec: &RunSpec<'_>, out: &mut Outcome) {
        if self.pending.is_empty() {
            return;
        }
        // Goals read only latches, core and goal slots (never inputs).
        run_phase(&mut self.gvals, &self.prog.core);
        run_phase(&mut self.gvals, &self.prog.goal);
        if spec.want_records {
            for (p, meta) in self.pending.iter().enumerate() {
                record(self.prog, &self.gvals, p, meta, out);
            }
        } else {
            let mut lanes = FinishedLanes {
                all: [0; W],
                limit: [0; W],
                stuck: [0; W],
                job: &[],
                length: &[],
            };
            let job: Vec<u32> = self.pending.iter().map(|f| f.job).collect();
            let length: Vec<u32> = self.pending.iter().map(|f| f.length).collect();
            for (p, f) in self.pending.iter().enumerate() {
                let (j, bit) = (p / 64, 1u64 << (p % 64));
                lanes.all[j] |= bit;
                match f.end {
                    PlayoutEnd::StepLimit => lanes.limit[j] |= bit,
                    PlayoutEnd::NoLegalMove(_) => lanes.stuck[j] |= bit,
                    PlayoutEnd::Terminal => {}
                }
            }
            lanes.job = &job;
            lanes.length = &length;
            tally(self.prog, &self.gvals, &lanes, &mut self.groups, out);
        }
        self.pending.clear();
    }
}
