//! The block simulator: `64 * W` playout lanes stepped together through a [`Program`].
//!
//! Per step: evaluate the core phase; lanes that are terminal or at the step limit finish;
//! each role of each live lane picks its move (few legal moves: gathered by iterating the
//! set bits of each legal word; many: legal words bit-transposed into per-lane move sets;
//! one Threefry draw per lane with two or more choices); lanes where a role has no legal
//! move finish; finished lanes are recorded (when goals need instructions of their own,
//! via a pending block whose goal phase runs once per `64 * W` finished playouts); the
//! next phase runs and latches take their next values; finished lanes are refilled with
//! the next playout of the work queue and reset to its job's start state, so lanes stay
//! busy until the queue is empty.

use super::bits::{select64, transpose64};
use super::draw::draws;
use super::eval::{read, run_phase, Block};
use super::program::{slot, Program};
use crate::backend::JobResult;
use propnet_netlist::playout::{PlayoutEnd, PlayoutRecord};
use propnet_netlist::rng::choose;

/// Roles with at most this many legal moves (in the netlist) gather them lane by lane;
/// roles with more use the bit-transpose path.
pub const SCATTER_MAX: usize = 16;

/// A run of consecutive playouts of one job.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Job index in the batch.
    pub job: u32,
    /// Offset of the first playout within the job (`0..count`).
    pub offset: u32,
    /// Number of playouts.
    pub count: u32,
}

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
}

/// Lane state and scratch buffers for one block of `64 * W` lanes.
pub struct Engine<'p, const W: usize> {
    prog: &'p Program,
    vals: Vec<Block<W>>,
    next_buf: Vec<Block<W>>,
    /// Per lane: playout index (RNG counter), step, job, offset within job.
    playout: Vec<u32>,
    step: Vec<u32>,
    job: Vec<u32>,
    offset: Vec<u32>,
    end: Vec<PlayoutEnd>,
    active: Block<W>,
    /// Legal-move gathering: per lane count and list (`lane * max_moves + k`).
    cnt: Vec<u32>,
    list: Vec<u32>,
    /// Per-lane legal move sets of the transpose path (`lane * chunks + c`).
    sets: Vec<u64>,
    need_lane: Vec<u32>,
    need_playout: Vec<u32>,
    need_step: Vec<u32>,
    need_draw: Vec<u32>,
    /// Pending block of finished playouts awaiting goal evaluation: slot values (lane `p`
    /// holds `pending[p]`'s final state) and what else their records need.
    gvals: Vec<Block<W>>,
    pending: Vec<Finished>,
}

/// Calls `f(lane)` for every set bit of `mask`, in lane order.
#[inline(always)]
fn for_each_lane<const W: usize>(mask: &Block<W>, mut f: impl FnMut(usize)) {
    for (j, &w) in mask.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            let b = w.trailing_zeros() as usize;
            f(64 * j + b);
            w &= w - 1;
        }
    }
}

#[inline(always)]
fn set_bit<const W: usize>(m: &mut Block<W>, lane: usize) {
    m[lane / 64] |= 1 << (lane % 64);
}

#[inline(always)]
fn is_zero<const W: usize>(m: &Block<W>) -> bool {
    m.iter().all(|&w| w == 0)
}

impl<'p, const W: usize> Engine<'p, W> {
    /// Lanes per block.
    pub const LANES: usize = 64 * W;

    /// Allocates the buffers for `prog`.
    pub fn new(prog: &'p Program) -> Self {
        let lanes = Self::LANES;
        let max_moves = prog.legal.iter().map(Vec::len).max().unwrap_or(0);
        Engine {
            prog,
            vals: vec![[0; W]; prog.slots],
            next_buf: vec![[0; W]; prog.latches],
            playout: vec![0; lanes],
            step: vec![0; lanes],
            job: vec![0; lanes],
            offset: vec![0; lanes],
            end: vec![PlayoutEnd::Terminal; lanes],
            active: [0; W],
            cnt: vec![0; lanes],
            list: vec![0; lanes * SCATTER_MAX],
            sets: vec![0; lanes * max_moves.div_ceil(64)],
            need_lane: Vec::with_capacity(lanes),
            need_playout: Vec::with_capacity(lanes),
            need_step: Vec::with_capacity(lanes),
            need_draw: Vec::with_capacity(lanes),
            gvals: if prog.goal.is_empty() {
                Vec::new()
            } else {
                // Latches, constant, inputs, core and goal slots; no next slots.
                vec![[0; W]; prog.next.first_slot]
            },
            pending: Vec::with_capacity(lanes),
        }
    }

    /// Runs every playout of `work` and adds the results to `out` (`out.jobs` must have one
    /// entry per job of `spec`).
    ///
    /// On x86-64 processors with AVX2, POPCNT and BMI1/2 (detected at run time) the whole
    /// stepper runs in a copy compiled for them (wider word loops, hardware popcount,
    /// 8-lane Threefry); elsewhere in the baseline build. Both give identical results.
    pub fn run(&mut self, spec: &RunSpec<'_>, work: &[Segment], out: &mut Outcome) {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
        {
            // SAFETY: the features `run_x86_v3` is compiled for were detected above. This
            // call is the simulator's only unsafe code (runtime CPU dispatch).
            #[allow(unsafe_code)]
            unsafe {
                self.run_x86_v3(spec, work, out)
            };
            return;
        }
        self.run_any(spec, work, out);
    }

    /// [`Self::run`] compiled with AVX2, POPCNT and BMI1/2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
    fn run_x86_v3(&mut self, spec: &RunSpec<'_>, work: &[Segment], out: &mut Outcome) {
        self.run_any(spec, work, out);
    }

    /// [`Self::run`] for any processor; inlined into each feature-specific copy.
    #[inline(always)]
    fn run_any(&mut self, spec: &RunSpec<'_>, work: &[Segment], out: &mut Outcome) {
        let prog = self.prog;
        let mut queue = work.iter().copied().filter(|s| s.count > 0).peekable();
        let mut take = move || -> Option<(u32, u32)> {
            let s = queue.peek_mut()?;
            let r = (s.job, s.offset);
            s.offset += 1;
            s.count -= 1;
            if s.count == 0 {
                queue.next();
            }
            Some(r)
        };
        let mut refills: Vec<(u32, Block<W>)> = Vec::new();
        self.active = [0; W];
        for lane in 0..Self::LANES {
            if !self.load_lane(lane, &mut take, spec, &mut refills) {
                break;
            }
        }
        self.apply_refills(spec, &mut refills);

        let mut block_steps = 0u64;
        while !is_zero(&self.active) {
            run_phase(&mut self.vals, &prog.core);
            // 1. Terminal or step limit.
            let term = read(&self.vals, prog.terminal);
            let mut fin: Block<W> = std::array::from_fn(|j| term[j] & self.active[j]);
            for_each_lane(&fin, |lane| self.end[lane] = PlayoutEnd::Terminal);
            let mut at_limit = [0u64; W];
            // A lane's step never exceeds the block's step count, so the check is
            // needed only once the block has made `max_steps` steps.
            let may_hit_limit = block_steps >= u64::from(spec.max_steps);
            block_steps += 1;
            for (j, w) in at_limit.iter_mut().enumerate().filter(|_| may_hit_limit) {
                for b in 0..64 {
                    *w |= u64::from(self.step[64 * j + b] == spec.max_steps) << b;
                }
                *w &= self.active[j] & !fin[j];
            }
            for_each_lane(&at_limit, |lane| self.end[lane] = PlayoutEnd::StepLimit);
            for j in 0..W {
                fin[j] |= at_limit[j];
            }
            // 2. Moves of live lanes, role by role.
            let mut live: Block<W> = std::array::from_fn(|j| self.active[j] & !fin[j]);
            for s in prog.input_base..prog.input_base + prog.inputs {
                self.vals[s] = [0; W];
            }
            for r in 0..prog.legal.len() {
                if is_zero(&live) {
                    break;
                }
                self.choose_moves(spec, r, &mut live, &mut fin);
            }
            // 3. Record finished lanes: at once when goals need no instruction of their
            // own, else via the pending block, so the goal phase runs once per `LANES`
            // finished playouts instead of on every step where some lane finishes.
            if !is_zero(&fin) {
                if prog.goal.is_empty() {
                    for_each_lane(&fin, |lane| self.record(spec, lane, out));
                } else {
                    for_each_lane(&fin, |lane| self.defer(spec, lane, out));
                }
            }
            // 4. Transition.
            run_phase(&mut self.vals, &prog.next);
            for (l, &op) in prog.next_state.iter().enumerate() {
                self.next_buf[l] = read(&self.vals, op);
            }
            self.vals[..prog.latches].copy_from_slice(&self.next_buf);
            for s in self.step.iter_mut() {
                *s = s.wrapping_add(1);
            }
            // 5. Refill finished lanes.
            for_each_lane(&fin, |lane| {
                self.active[lane / 64] &= !(1u64 << (lane % 64));
                self.load_lane(lane, &mut take, spec, &mut refills);
            });
            self.apply_refills(spec, &mut refills);
        }
        self.flush(spec, out);
    }

    /// Puts the next playout of the queue into `lane`; false when the queue is empty.
    #[inline(always)]
    fn load_lane(
        &mut self,
        lane: usize,
        take: &mut impl FnMut() -> Option<(u32, u32)>,
        spec: &RunSpec<'_>,
        refills: &mut Vec<(u32, Block<W>)>,
    ) -> bool {
        let Some((job, offset)) = take() else {
            return false;
        };
        self.job[lane] = job;
        self.offset[lane] = offset;
        self.playout[lane] = spec.first_playout[job as usize].wrapping_add(offset);
        self.step[lane] = 0;
        set_bit(&mut self.active, lane);
        match refills.iter_mut().find(|(j, _)| *j == job) {
            Some((_, m)) => set_bit(m, lane),
            None => {
                let mut m = [0; W];
                set_bit(&mut m, lane);
                refills.push((job, m));
            }
        }
        true
    }

    /// Resets the latches of refilled lanes to their job's start state.
    #[inline(always)]
    fn apply_refills(&mut self, spec: &RunSpec<'_>, refills: &mut Vec<(u32, Block<W>)>) {
        for (job, m) in refills.drain(..) {
            let start = spec.starts[job as usize];
            for (v, &b) in self.vals[..self.prog.latches].iter_mut().zip(start) {
                for j in 0..W {
                    v[j] = if b { v[j] | m[j] } else { v[j] & !m[j] };
                }
            }
        }
    }

    /// Picks role `r`'s move in every `live` lane; lanes without a legal move move from
    /// `live` to `fin`. Input slots must be zero for the live lanes on entry.
    ///
    /// Three ways by the role's legal-move count: one move is forced (or stuck) by word
    /// operations alone; up to [`SCATTER_MAX`] moves are scattered lane by lane into lists;
    /// more are transposed 64 at a time into per-lane move sets, so a lane's count is a few
    /// popcounts and its `k`-th move a broadword select.
    #[inline(always)]
    fn choose_moves(
        &mut self,
        spec: &RunSpec<'_>,
        r: usize,
        live: &mut Block<W>,
        fin: &mut Block<W>,
    ) {
        let prog = self.prog;
        let legal = &prog.legal[r];
        let mut stuck = [0u64; W];
        match legal.len() {
            0 => stuck = *live,
            1 => {
                let (op, input) = legal[0];
                let v = read(&self.vals, op);
                let s = prog.input_base + input as usize;
                for j in 0..W {
                    self.vals[s][j] |= v[j] & live[j];
                    stuck[j] = live[j] & !v[j];
                }
            }
            n if n <= SCATTER_MAX => self.scatter_moves(spec, r, live, &mut stuck),
            _ => self.transpose_moves(spec, r, live, &mut stuck),
        }
        if !is_zero(&stuck) {
            for_each_lane(&stuck, |lane| {
                self.end[lane] = PlayoutEnd::NoLegalMove(r as u32)
            });
            for j in 0..W {
                live[j] &= !stuck[j];
                fin[j] |= stuck[j];
            }
        }
    }

    /// [`Self::choose_moves`] for few legal moves: per-lane lists of input slots.
    #[inline(always)]
    fn scatter_moves(
        &mut self,
        spec: &RunSpec<'_>,
        r: usize,
        live: &Block<W>,
        stuck: &mut Block<W>,
    ) {
        let prog = self.prog;
        let mm = SCATTER_MAX;
        let legal = &prog.legal[r];
        // Disjoint borrows so the hot loops keep buffer pointers in registers.
        let Engine {
            vals,
            cnt,
            list,
            need_lane,
            need_playout,
            need_step,
            need_draw,
            playout,
            step,
            ..
        } = self;
        for_each_lane(live, |lane| cnt[lane] = 0);
        // The list holds the input *slot* of each legal move, in choice order.
        for &(op, input) in legal {
            let v = read(vals, op);
            let input_slot = (prog.input_base + input as usize) as u32;
            for j in 0..W {
                let mut w = v[j] & live[j];
                while w != 0 {
                    let lane = 64 * j + w.trailing_zeros() as usize;
                    let c = &mut cnt[lane];
                    list[lane * mm + *c as usize] = input_slot;
                    *c += 1;
                    w &= w - 1;
                }
            }
        }
        need_lane.clear();
        need_playout.clear();
        need_step.clear();
        for_each_lane(live, |lane| match cnt[lane] {
            0 => set_bit(stuck, lane),
            1 => set_bit(&mut vals[list[lane * mm] as usize], lane),
            _ => {
                need_lane.push(lane as u32);
                need_playout.push(playout[lane]);
                need_step.push(step[lane]);
            }
        });
        if !need_lane.is_empty() {
            need_draw.resize(need_lane.len(), 0);
            draws(spec.seed, r as u32, need_playout, need_step, need_draw);
            for (&lane, &x) in need_lane.iter().zip(need_draw.iter()) {
                let lane = lane as usize;
                let k = choose(x, cnt[lane]) as usize;
                set_bit(&mut vals[list[lane * mm + k] as usize], lane);
            }
        }
    }

    /// [`Self::choose_moves`] for many legal moves: per-lane move sets by bit transpose.
    #[inline(always)]
    fn transpose_moves(
        &mut self,
        spec: &RunSpec<'_>,
        r: usize,
        live: &Block<W>,
        stuck: &mut Block<W>,
    ) {
        let prog = self.prog;
        let legal = &prog.legal[r];
        let chunks = legal.len().div_ceil(64);
        let Engine {
            vals,
            cnt,
            sets,
            need_lane,
            need_playout,
            need_step,
            need_draw,
            playout,
            step,
            ..
        } = self;
        // sets[lane * chunks + c] bit i: move 64 * c + i is legal in lane.
        let sets = &mut sets[..Self::LANES * chunks];
        let mut rows = [0u64; 64];
        for (c, part) in legal.chunks(64).enumerate() {
            for j in 0..W {
                if live[j] == 0 {
                    continue;
                }
                for (row, &(op, _)) in rows.iter_mut().zip(part) {
                    *row = (vals[slot(op)][j] ^ 0u64.wrapping_sub(u64::from(op & 1))) & live[j];
                }
                rows[part.len()..].fill(0);
                transpose64(&mut rows);
                for (b, &row) in rows.iter().enumerate() {
                    sets[(64 * j + b) * chunks + c] = row;
                }
            }
        }
        let input_slot = |m: usize| prog.input_base + legal[m].1 as usize;
        need_lane.clear();
        need_playout.clear();
        need_step.clear();
        // Plain loops (no closure) so this stays inlined in the feature-specific copy.
        for (j, &word) in live.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                let lane = 64 * j + w.trailing_zeros() as usize;
                w &= w - 1;
                let set = &sets[lane * chunks..(lane + 1) * chunks];
                let n: u32 = set.iter().map(|w| w.count_ones()).sum();
                cnt[lane] = n;
                if n >= 2 {
                    need_lane.push(lane as u32);
                    need_playout.push(playout[lane]);
                    need_step.push(step[lane]);
                } else if n == 1 {
                    let c = set.iter().position(|&w| w != 0).unwrap_or(0);
                    let m = 64 * c + set[c].trailing_zeros() as usize;
                    set_bit(&mut vals[input_slot(m)], lane);
                } else {
                    set_bit(stuck, lane);
                }
            }
        }
        if !need_lane.is_empty() {
            need_draw.resize(need_lane.len(), 0);
            draws(spec.seed, r as u32, need_playout, need_step, need_draw);
            for (&lane, &x) in need_lane.iter().zip(need_draw.iter()) {
                let lane = lane as usize;
                let mut k = choose(x, cnt[lane]);
                let set = &sets[lane * chunks..(lane + 1) * chunks];
                let mut m = 0;
                for (c, &w) in set.iter().enumerate() {
                    let ones = w.count_ones();
                    if k < ones {
                        m = 64 * c + select64(w, k) as usize;
                        break;
                    }
                    k -= ones;
                }
                set_bit(&mut vals[input_slot(m)], lane);
            }
        }
    }

    /// Adds the finished playout in `lane` to `out` (state and goal phase are current).
    fn record(&self, spec: &RunSpec<'_>, lane: usize, out: &mut Outcome) {
        let meta = Finished {
            job: self.job[lane],
            offset: self.offset[lane],
            playout: self.playout[lane],
            length: self.step[lane],
            end: self.end[lane],
        };
        record(self.prog, &self.vals, lane, &meta, spec, out);
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
        self.pending.push(Finished {
            job: self.job[lane],
            offset: self.offset[lane],
            playout: self.playout[lane],
            length: self.step[lane],
            end: self.end[lane],
        });
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
        for (p, meta) in self.pending.iter().enumerate() {
            record(self.prog, &self.gvals, p, meta, spec, out);
        }
        self.pending.clear();
    }
}

/// A finished playout awaiting its record.
#[derive(Copy, Clone, Debug)]
struct Finished {
    job: u32,
    offset: u32,
    playout: u32,
    length: u32,
    end: PlayoutEnd,
}

/// Adds a finished playout to `out`; its final state and goal values are bit `lane` of
/// `vals` (after the core and goal phases ran on it).
fn record<const W: usize>(
    prog: &Program,
    vals: &[Block<W>],
    lane: usize,
    meta: &Finished,
    spec: &RunSpec<'_>,
    out: &mut Outcome,
) {
    let (j, bit) = (lane / 64, 1u64 << (lane % 64));
    let goal_of = |g: &Vec<(u32, u8)>| {
        g.iter()
            .find(|&&(op, _)| (vals[slot(op)][j] ^ 0u64.wrapping_sub(u64::from(op & 1))) & bit != 0)
            .map_or(0, |&(_, v)| v)
    };
    let Finished {
        job,
        offset,
        playout,
        length,
        end,
    } = *meta;
    let jr = &mut out.jobs[job as usize];
    jr.playouts += 1;
    for (s, g) in jr.goal_sums.iter_mut().zip(&prog.goals) {
        *s += u64::from(goal_of(g));
    }
    jr.total_length += u64::from(length);
    match end {
        PlayoutEnd::StepLimit => jr.step_limit += 1,
        PlayoutEnd::NoLegalMove(_) => jr.no_legal_move += 1,
        PlayoutEnd::Terminal => {}
    }
    out.steps += u64::from(length);
    if spec.want_records {
        let mut final_state = vec![0u64; prog.latches.div_ceil(64)];
        for (l, v) in vals[..prog.latches].iter().enumerate() {
            if v[j] & bit != 0 {
                final_state[l / 64] |= 1 << (l % 64);
            }
        }
        let goals = prog.goals.iter().map(goal_of).collect();
        out.records.push((
            job,
            offset,
            PlayoutRecord {
                index: playout,
                length,
                end,
                goals,
                final_state,
            },
        ));
    }
}
