//! The block stepper: `64 * W` playout lanes stepped together through a [`Program`].
//!
//! Per step: evaluate the core phase; lanes that are terminal or at the step limit finish;
//! each role of each live lane picks its move ([`crate::choice`]: bit-sliced counting and
//! selection, or a bit transpose for roles with many legal entries; one Threefry draw per
//! lane with two or more choices); lanes where a role has no legal move finish; finished
//! lanes are recorded (when goals need instructions of their own, via a pending block
//! whose goal phase runs once per `64 * W` finished playouts); the next phase runs
//! (guarded programs skip the runs of dead latch groups), latches take their next values,
//! and finished lanes go idle.
//!
//! Which playout a lane holds is the driver's business ([`crate::drive`]): it starts new
//! playouts in idle lanes ([`BlockStepper::start_lane`], [`BlockStepper::end_refill`]), or
//! loads a block's lanes whole and reads them back after the step
//! ([`BlockStepper::load`], [`BlockStepper::lane`], [`BlockStepper::latches`]).

use crate::amaf::Played;
use crate::batch::{Outcome, RunSpec};
use crate::choice::{choose_moves, ChoiceScratch, KnownZero};
use crate::draw::LaneCounters;
use crate::eval::{fill_sums, read, run_alive, run_guarded, run_phase, run_skipping, Block};
use crate::isa::Isa;
use crate::probe::{NoProbe, PhaseTimes, Probe, SimPhase};
use crate::program::NONE;
use crate::program::{slot, Operand};
use crate::program::{Phase, Program};
use crate::record::{for_each_lane, record, tally, Finished, FinishedLanes};
use crate::slots::Slots;
use propnet_netlist::playout::PlayoutEnd;

/// What a lane holds besides its latches: whether it plays, and its playout's counters.
#[derive(Clone, Copy, Debug)]
pub struct Lane {
    /// The lane holds a playout in progress.
    pub active: bool,
    /// Playout index (RNG counter).
    pub playout: u32,
    /// Joint moves made so far.
    pub step: u32,
    /// Job of the batch.
    pub job: u32,
    /// Offset of the playout within its job.
    pub offset: u32,
    /// How the playout ended (set in the step it finishes).
    pub end: PlayoutEnd,
}

impl Lane {
    /// A lane holding no playout.
    pub const IDLE: Lane = Lane {
        active: false,
        playout: 0,
        step: 0,
        job: 0,
        offset: 0,
        end: PlayoutEnd::Terminal,
    };

    /// A lane starting playout `offset` of `job` (at step 0).
    #[inline(always)]
    pub fn start(spec: &RunSpec<'_>, job: u32, offset: u32) -> Lane {
        Lane {
            active: true,
            playout: spec.first_playout[job as usize].wrapping_add(offset),
            step: 0,
            job,
            offset,
            end: PlayoutEnd::Terminal,
        }
    }
}

/// Lane state and scratch buffers for one block of `64 * W` lanes; `P` times the phases
/// of a step when profiling ([`NoProbe`] otherwise).
pub struct BlockStepper<'p, const W: usize, P: Probe = NoProbe> {
    prog: &'p Program,
    probe: P,
    /// Whether the core phase has skip guards ([`Program::core_is_guarded`]).
    core_guarded: bool,
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
    /// The inputs of the roles of at most [`crate::choice::SLICED_MAX`] legal entries,
    /// cleared whole before every choice.
    small_inputs: Vec<u32>,
    /// The moves (input, lane) the last choice set for the other roles: with
    /// `small_inputs`, the only input bits that may not be 0; cleared before the next.
    set_moves: Vec<(u32, u32)>,
    /// Pending block of finished playouts awaiting goal evaluation: slot values (lane `p`
    /// holds `pending[p]`'s final state) and what else their records need.
    gvals: Slots<W>,
    pending: Vec<Finished>,
    /// Scratch of [`tally`]: finished lanes grouped by job.
    groups: Vec<(u32, Block<W>)>,
    /// The moves each lane played, when the run keeps all-moves-as-first sums
    /// ([`RunSpec::amaf`]; allocated at the first step that asks).
    played: Option<Box<Played<W>>>,
    /// Per operand below `2 * latches`: false for a plain latch that is 0 in every lane
    /// (kept current with the latches; [`run_skipping`]).
    nonzero: Vec<bool>,
    /// Per guard (of the core or next phase): some latch of it is 1 in some lane this step.
    live_guards: Vec<bool>,
    /// Per run of the next phase, then per run of the core phase: its slots are 0 from an
    /// earlier skip.
    zeroed: Vec<bool>,
    /// Lanes started since the last [`Self::end_refill`], by job.
    started: Vec<(u32, Block<W>)>,
    /// Block steps taken (the probe samples some).
    block_steps: u64,
    /// At least the step of every active lane: it grows by one per block step, and a
    /// lane is started or loaded below it or raises it; made exact whenever it reaches
    /// the limit.
    oldest: u32,
}

/// The inputs of `prog`'s roles of at most [`crate::choice::SLICED_MAX`] legal entries.
fn small_role_inputs(prog: &Program) -> Vec<u32> {
    let small = prog
        .legal
        .iter()
        .filter(|r| r.len() <= crate::choice::SLICED_MAX);
    small.flatten().map(|&(_, i)| i).collect()
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

impl<'p, const W: usize, P: Probe> BlockStepper<'p, W, P> {
    /// Lanes per block.
    pub const LANES: usize = 64 * W;

    /// Allocates the buffers for `prog`; every lane idle.
    pub fn new(prog: &'p Program) -> Self {
        let lanes = Self::LANES;
        let max_moves = prog.legal.iter().map(Vec::len).max().unwrap_or(0);
        let latch_fed: Vec<u32> = (0..prog.latches as u32)
            .filter(|&l| slot(prog.next_state[l as usize]) < prog.latches)
            .collect();
        BlockStepper {
            prog,
            probe: P::default(),
            core_guarded: prog.core_is_guarded(),
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
            small_inputs: small_role_inputs(prog),
            set_moves: Vec::with_capacity(lanes),
            gvals: Slots::zeroed(if prog.goal.is_empty() {
                0
            } else {
                // Latches, constant, inputs, core and goal slots; no next slots.
                prog.next.first_slot
            }),
            pending: Vec::with_capacity(lanes),
            groups: Vec::new(),
            played: None,
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
            started: Vec::new(),
            block_steps: 0,
            oldest: 0,
        }
    }

    /// True when no lane holds a playout in progress.
    #[inline(always)]
    pub fn is_idle(&self) -> bool {
        is_zero(&self.active)
    }

    /// The lanes holding no playout.
    #[inline(always)]
    pub fn idle_lanes(&self) -> Block<W> {
        let mut m = [0; W];
        for (i, a) in m.iter_mut().zip(&self.active) {
            *i = !a;
        }
        m
    }

    /// Starts playout `offset` of `job` in the idle `lane`; its latches take the job's
    /// start state at the next [`Self::end_refill`].
    #[inline(always)]
    pub fn start_lane(&mut self, lane: usize, job: u32, offset: u32, spec: &RunSpec<'_>) {
        self.set_lane(lane, Lane::start(spec, job, offset));
        match self.started.iter_mut().find(|(j, _)| *j == job) {
            Some((_, m)) => set_bit(m, lane),
            None => {
                let mut m = [0; W];
                set_bit(&mut m, lane);
                self.started.push((job, m));
            }
        }
    }

    /// Resets the latches of the lanes started since the last call to their job's start
    /// state, and ends the step's refill phase (probe). Call once after every step.
    #[inline(always)]
    pub fn end_refill(&mut self, spec: &RunSpec<'_>) {
        if !self.started.is_empty() {
            for (job, m) in self.started.drain(..) {
                let start = spec.starts[job as usize];
                for (v, &b) in self.vals[..self.prog.latches].iter_mut().zip(start) {
                    for j in 0..W {
                        v[j] = if b { v[j] | m[j] } else { v[j] & !m[j] };
                    }
                }
            }
            self.mark_nonzero_latches();
        }
        self.probe.end_phase(SimPhase::Refill);
    }

    /// Replaces every lane: lane `i` takes the `i`-th of `lanes`, given as its latches
    /// (bit `l % 64` of word `l / 64` is latch `l`) and its counters; the lanes past
    /// them are idle with every latch 0.
    #[inline]
    pub fn load<'b>(&mut self, lanes: impl IntoIterator<Item = (&'b [u64], Lane)>) {
        for v in &mut self.vals[..self.prog.latches] {
            *v = [0; W];
        }
        self.active = [0; W];
        self.oldest = 0;
        for (lane, (bits, state)) in lanes.into_iter().enumerate() {
            let (j, bit) = (lane / 64, 1u64 << (lane % 64));
            for (w, &word) in bits.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    let l = 64 * w + word.trailing_zeros() as usize;
                    word &= word - 1;
                    self.vals[l][j] |= bit;
                }
            }
            self.set_lane(lane, state);
        }
        self.mark_nonzero_latches();
    }

    /// The counters of `lane` and whether it is active.
    #[inline(always)]
    pub fn lane(&self, lane: usize) -> Lane {
        Lane {
            active: self.active[lane / 64] >> (lane % 64) & 1 == 1,
            playout: self.playout[lane],
            step: self.step[lane],
            job: self.job[lane],
            offset: self.offset[lane],
            end: self.end[lane],
        }
    }

    /// The latch slots: bit `b` of word `j` of `latches()[l]` is latch `l` of lane
    /// `64 * j + b`.
    #[inline(always)]
    pub fn latches(&self) -> &[Block<W>] {
        &self.vals[..self.prog.latches]
    }

    /// Sets the counters of `lane`, and its active bit when `state` is active.
    #[inline(always)]
    fn set_lane(&mut self, lane: usize, state: Lane) {
        if state.active {
            set_bit(&mut self.active, lane);
            self.oldest = self.oldest.max(state.step);
        }
        self.playout[lane] = state.playout;
        self.step[lane] = state.step;
        self.job[lane] = state.job;
        self.offset[lane] = state.offset;
        self.end[lane] = state.end;
    }

    /// One block step of the active lanes (see the module doc); returns the lanes that
    /// finished, now idle.
    #[inline(always)]
    pub fn step(&mut self, spec: &RunSpec<'_>, out: &mut Outcome, isa: Isa) -> Block<W> {
        self.probe.begin_step(self.block_steps);
        self.block_steps += 1;
        self.run_core(isa);
        // 1. Terminal or step limit.
        let (mut fin, at_limit) = self.ended(spec);
        // 2. Moves of live lanes, role by role.
        let stuck = self.choose_all(spec, &fin, isa);
        for j in 0..W {
            fin[j] |= stuck[j];
        }
        if spec.amaf && !spec.want_records {
            self.mark_played(&fin);
        }
        // 3. Account for finished lanes.
        if !is_zero(&fin) {
            self.finish(spec, &fin, &at_limit, &stuck, out);
        }
        self.probe.end_phase(SimPhase::Goals);
        // 4. Transition.
        self.transition();
        // 5. Finished lanes go idle.
        self.advance(&fin);
        fin
    }

    /// The core phase (with its skip guards where it has them); samples the operands
    /// evaluated when the probe says so.
    #[inline(always)]
    fn run_core(&mut self, isa: Isa) {
        if self.core_guarded {
            self.run_core_guarded(isa);
        } else {
            run_skipping(&mut self.vals, &self.prog.core, &self.nonzero);
        }
        self.probe.end_phase(SimPhase::CoreGates);
        if self.probe.sampling() {
            let n = self.core_operands_run(self.core_guarded);
            let lanes = self.active.iter().map(|w| w.count_ones() as u64).sum();
            self.probe.add_core_operands(n, lanes);
        }
    }

    /// The active lanes that are terminal or at the step limit (core phase current), and
    /// the subset at the limit. Only when some lane may have reached the limit are the
    /// lanes' steps looked at.
    #[inline(always)]
    fn ended(&mut self, spec: &RunSpec<'_>) -> (Block<W>, Block<W>) {
        let term = read(&self.vals, self.prog.terminal);
        let fin: Block<W> = std::array::from_fn(|j| term[j] & self.active[j]);
        let mut at_limit = [0u64; W];
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
        (std::array::from_fn(|j| fin[j] | at_limit[j]), at_limit)
    }

    /// Clears the input slots the last choice set, picks every role's move in the active
    /// lanes not in `fin` and fills the input sums; returns the lanes where some role had
    /// no legal move.
    #[inline(always)]
    fn choose_all(&mut self, spec: &RunSpec<'_>, fin: &Block<W>, isa: Isa) -> Block<W> {
        let prog = self.prog;
        let mut live: Block<W> = std::array::from_fn(|j| self.active[j] & !fin[j]);
        for &i in &self.small_inputs {
            self.vals[prog.input_base + i as usize] = [0; W];
        }
        for &(i, lane) in &self.set_moves {
            self.vals[prog.input_base + i as usize][lane as usize / 64] = 0;
        }
        self.set_moves.clear();
        self.probe.end_phase(SimPhase::Terminal);
        let mut stuck = [0u64; W];
        for r in 0..prog.legal.len() {
            if is_zero(&live) {
                break;
            }
            self.choose_role(spec, r, &mut live, &mut stuck, isa);
        }
        fill_sums(&mut self.vals, prog, &self.small_inputs, &self.set_moves);
        self.probe.end_phase(SimPhase::Choice);
        stuck
    }

    /// The next phase (guarded programs skip the runs of dead guards) and the latches'
    /// next values.
    #[inline(always)]
    fn transition(&mut self) {
        let prog = self.prog;
        if prog.guards.is_empty() {
            run_skipping(&mut self.vals, &prog.next, &self.nonzero);
        } else {
            if !self.core_guarded {
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
    }

    /// Counts the step in every lane and idles the lanes in `fin`; where the core phase
    /// is guarded their latches are cleared too ([`Self::clear_lanes`]).
    #[inline(always)]
    fn advance(&mut self, fin: &Block<W>) {
        for s in self.step.iter_mut() {
            *s = s.wrapping_add(1);
        }
        self.oldest = self.oldest.saturating_add(1);
        for (a, f) in self.active.iter_mut().zip(fin) {
            *a &= !f;
        }
        if self.core_guarded && !is_zero(fin) {
            self.clear_lanes(fin);
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

    /// The core phase with its skip guards (`propnet-sim-program`'s `observe`); the marks of live guards
    /// it makes serve the next phase too (latches keep their values until the
    /// transition). Kept out of line: only large programs (chess) have core guards, and
    /// the stepper of the others stays as it was. Being out of line, it is not part of the
    /// stepper's AVX2 copy: with AVX2 (`isa`) the evaluation runs in [`crate::avx2`]'s copy.
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
            (&mut self.scratch, &mut self.set_moves),
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
        if let Some(played) = self.played.as_mut() {
            played.tally(prog, &self.vals, fin, &self.job, out);
        }
    }

    /// Adds the moves just chosen to the played moves of the lanes not in `fin` (a lane
    /// stuck at a later role made no joint move); allocated at the first call, nothing for
    /// a program of too many inputs ([`crate::amaf::MAX_INPUTS`]).
    #[inline(always)]
    fn mark_played(&mut self, fin: &Block<W>) {
        if self.played.is_none() {
            match Played::new(self.prog) {
                Some(p) => self.played = Some(Box::new(p)),
                None => return,
            }
        }
        if let Some(played) = self.played.as_mut() {
            let base = self.prog.input_base;
            let moved: Block<W> = std::array::from_fn(|j| self.active[j] & !fin[j]);
            played.mark(
                &self.vals,
                base,
                (&self.small_inputs, &self.set_moves),
                &moved,
            );
        }
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
        if let Some(played) = self.played.as_mut() {
            played.park(lane, p);
        }
        self.pending.push(self.finished(lane));
        if self.pending.len() == Self::LANES {
            self.flush(spec, out);
        }
    }

    /// Evaluates goals of the pending block and records its playouts (call once the
    /// lanes are done).
    pub fn flush(&mut self, spec: &RunSpec<'_>, out: &mut Outcome) {
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
            if let Some(played) = self.played.as_mut() {
                played.tally_parked(self.prog, &self.gvals, job.len(), &job, out);
            }
        }
        self.pending.clear();
    }
}
