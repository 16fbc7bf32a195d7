//! The block simulator: `64 * W` playout lanes stepped together through a [`Program`].
//!
//! Per step: evaluate the core phase; lanes that are terminal or at the step limit finish;
//! each role of each live lane picks its move (legal moves gathered by iterating only the
//! set bits of each legal word, one Threefry draw per lane with two or more choices); lanes
//! where a role has no legal move finish; the goal phase runs if any lane finished and
//! finished lanes are recorded; the next phase runs and latches take their next values;
//! finished lanes are refilled with the next playout of the work queue and reset to its
//! job's start state, so lanes stay busy until the queue is empty.

use super::draw::draws;
use super::eval::{read, run_phase, Block};
use super::program::{slot, Program};
use crate::backend::JobResult;
use propnet_compiler::playout::{PlayoutEnd, PlayoutRecord};
use propnet_compiler::rng::choose;

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
    max_moves: usize,
    need_lane: Vec<u32>,
    need_playout: Vec<u32>,
    need_step: Vec<u32>,
    need_draw: Vec<u32>,
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
        let max_moves = prog.legal.iter().map(Vec::len).max().unwrap_or(0).max(1);
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
            list: vec![0; lanes * max_moves],
            max_moves,
            need_lane: Vec::with_capacity(lanes),
            need_playout: Vec::with_capacity(lanes),
            need_step: Vec::with_capacity(lanes),
            need_draw: Vec::with_capacity(lanes),
        }
    }

    /// Runs every playout of `work` and adds the results to `out` (`out.jobs` must have one
    /// entry per job of `spec`).
    pub fn run(&mut self, spec: &RunSpec<'_>, work: &[Segment], out: &mut Outcome) {
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
            // 3. Record finished lanes.
            if !is_zero(&fin) {
                run_phase(&mut self.vals, &prog.goal);
                for_each_lane(&fin, |lane| self.record(spec, lane, out));
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
    }

    /// Puts the next playout of the queue into `lane`; false when the queue is empty.
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
    /// `live` to `fin`.
    fn choose_moves(
        &mut self,
        spec: &RunSpec<'_>,
        r: usize,
        live: &mut Block<W>,
        fin: &mut Block<W>,
    ) {
        let prog = self.prog;
        let mm = self.max_moves;
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
        let mut stuck = [0u64; W];
        for_each_lane(live, |lane| match cnt[lane] {
            0 => set_bit(&mut stuck, lane),
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

    /// Adds the finished playout in `lane` to `out` (state and goal phase are current).
    fn record(&self, spec: &RunSpec<'_>, lane: usize, out: &mut Outcome) {
        let (j, bit) = (lane / 64, 1u64 << (lane % 64));
        let goal_of = |g: &Vec<(u32, u8)>| {
            g.iter()
                .find(|&&(op, _)| {
                    (self.vals[slot(op)][j] ^ 0u64.wrapping_sub(u64::from(op & 1))) & bit != 0
                })
                .map_or(0, |&(_, v)| v)
        };
        let length = self.step[lane];
        let end = self.end[lane];
        let job = self.job[lane] as usize;
        let jr = &mut out.jobs[job];
        jr.playouts += 1;
        for (s, g) in jr.goal_sums.iter_mut().zip(&self.prog.goals) {
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
            let mut final_state = vec![0u64; self.prog.latches.div_ceil(64)];
            for (l, v) in self.vals[..self.prog.latches].iter().enumerate() {
                if v[j] & bit != 0 {
                    final_state[l / 64] |= 1 << (l % 64);
                }
            }
            let goals = self.prog.goals.iter().map(goal_of).collect();
            let index = self.playout[lane];
            out.records.push((
                job as u32,
                self.offset[lane],
                PlayoutRecord {
                    index,
                    length,
                    end,
                    goals,
                    final_state,
                },
            ));
        }
    }
}
