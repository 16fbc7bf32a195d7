//! Accounting for finished playouts: aggregates by word operations over lane masks
//! ([`tally`]), or one [`PlayoutRecord`] per playout when a batch asks for them ([`record`]).
//!
//! A lane's goal for a role is its largest true goal value, 0 if none
//! ([`propnet_netlist::playout::goals_of`]): goals are scanned by value descending and each
//! lane counts at the first goal true in it. [`tally`] does that for all finished lanes of
//! a job at once: `sum += value · popcount(goal ∧ remaining)`, `remaining ∧= ¬goal`.

use crate::batch::Outcome;
use crate::eval::{read, Block};
use crate::program::slot;
use crate::program::Program;
use propnet_netlist::playout::{PlayoutEnd, PlayoutRecord};

/// A finished playout awaiting its record or tally.
#[derive(Copy, Clone, Debug)]
pub struct Finished {
    /// Job index in the batch.
    pub job: u32,
    /// Offset of the playout within its job.
    pub offset: u32,
    /// Playout index (RNG counter).
    pub playout: u32,
    /// Joint moves made.
    pub length: u32,
    /// How it ended.
    pub end: PlayoutEnd,
}

/// Lanes of a block that finished in one step, and how.
pub struct FinishedLanes<'a, const W: usize> {
    /// Every finished lane.
    pub all: Block<W>,
    /// The subset stopped by the step limit.
    pub limit: Block<W>,
    /// The subset where some role had no legal move.
    pub stuck: Block<W>,
    /// Per lane: job index.
    pub job: &'a [u32],
    /// Per lane: joint moves made.
    pub length: &'a [u32],
}

/// Calls `f(lane)` for every set bit of `mask`, in lane order.
#[inline(always)]
pub fn for_each_lane<const W: usize>(mask: &Block<W>, mut f: impl FnMut(usize)) {
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
fn popcount<const W: usize>(m: &Block<W>) -> u64 {
    m.iter().map(|w| u64::from(w.count_ones())).sum()
}

/// Adds the finished lanes' aggregates to `out` (goals read from `vals`, whose core and
/// goal phases are current for those lanes). No per-playout records.
#[inline(always)]
pub fn tally<const W: usize>(
    prog: &Program,
    vals: &[Block<W>],
    fin: &FinishedLanes<'_, W>,
    groups: &mut Vec<(u32, Block<W>)>,
    out: &mut Outcome,
) {
    groups.clear();
    let mut length = 0u64;
    for_each_lane(&fin.all, |lane| {
        length += u64::from(fin.length[lane]);
        let job = fin.job[lane];
        let (j, bit) = (lane / 64, 1u64 << (lane % 64));
        match groups.iter_mut().find(|(g, _)| *g == job) {
            Some((_, m)) => m[j] |= bit,
            None => {
                let mut m = [0u64; W];
                m[j] = bit;
                groups.push((job, m));
            }
        }
    });
    out.steps += length;
    let single = groups.len() == 1;
    for (job, m) in groups.iter() {
        let jr = &mut out.jobs[*job as usize];
        jr.playouts += popcount(m);
        jr.total_length += if single {
            length
        } else {
            let mut l = 0u64;
            for_each_lane(m, |lane| l += u64::from(fin.length[lane]));
            l
        };
        jr.step_limit += popcount::<W>(&std::array::from_fn(|j| m[j] & fin.limit[j]));
        jr.no_legal_move += popcount::<W>(&std::array::from_fn(|j| m[j] & fin.stuck[j]));
        for (sum, goals) in jr.goal_sums.iter_mut().zip(&prog.goals) {
            let mut rem = *m;
            for &(op, value) in goals {
                let g = read(vals, op);
                let hit: Block<W> = std::array::from_fn(|j| g[j] & rem[j]);
                *sum += u64::from(value) * popcount(&hit);
                for j in 0..W {
                    rem[j] &= !g[j];
                }
            }
        }
    }
}

/// Adds one finished playout to `out` with its [`PlayoutRecord`]; its final state and goal
/// values are bit `lane` of `vals` (after the core and goal phases ran on it).
pub fn record<const W: usize>(
    prog: &Program,
    vals: &[Block<W>],
    lane: usize,
    meta: &Finished,
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
    let goals: Vec<u8> = prog.goals.iter().map(goal_of).collect();
    jr.playouts += 1;
    for (s, &g) in jr.goal_sums.iter_mut().zip(&goals) {
        *s += u64::from(g);
    }
    jr.total_length += u64::from(length);
    match end {
        PlayoutEnd::StepLimit => jr.step_limit += 1,
        PlayoutEnd::NoLegalMove(_) => jr.no_legal_move += 1,
        PlayoutEnd::Terminal => {}
    }
    out.steps += u64::from(length);
    let mut final_state = vec![0u64; prog.latches.div_ceil(64)];
    for (l, v) in vals[..prog.latches].iter().enumerate() {
        if v[j] & bit != 0 {
            final_state[l / 64] |= 1 << (l % 64);
        }
    }
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
