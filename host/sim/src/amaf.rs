//! All-moves-as-first sums of a stream's playouts ([`JobResult::amaf`]): which inputs each
//! lane has played since its playout started, and per job, for every input, the playouts
//! that played it and the sum of its role's goals over them.
//!
//! Cost per block step: one `Or` of each input word of the roles chosen bit-sliced (the
//! moves of the others are a list of `(input, lane)`), and, in a step where lanes finish,
//! a word test per input and `64` lanes plus one addition per finished lane and input it
//! played. Programs of more than [`MAX_INPUTS`] inputs
//! get no sums (amazons' 173,962 inputs would cost more than their playouts).
//!
//! [`JobResult::amaf`]: propnet_runtime::backend::JobResult::amaf

use crate::batch::Outcome;
use crate::eval::{read, Block};
use crate::program::Program;
use crate::record::for_each_lane;
use propnet_runtime::backend::AmafSum;

/// Programs with more inputs than this get no sums.
pub const MAX_INPUTS: usize = 16_384;

/// Per input, the lanes that played it since their playout started.
pub struct Played<const W: usize> {
    lanes: Vec<Block<W>>,
    /// The same for the lanes of the stepper's pending block (allocated when first used).
    parked: Vec<Block<W>>,
    /// Per role: the inputs of its legal entries.
    role_inputs: Vec<Vec<u32>>,
    /// Scratch: per role, per lane, the goal value of a finished lane.
    goal: Vec<u8>,
}

impl<const W: usize> Played<W> {
    /// Nothing played, for `prog`'s inputs; `None` above [`MAX_INPUTS`].
    pub fn new(prog: &Program) -> Option<Self> {
        (prog.inputs <= MAX_INPUTS).then(|| Played {
            lanes: vec![[0; W]; prog.inputs],
            parked: Vec::new(),
            role_inputs: (prog.legal.iter())
                .map(|entries| entries.iter().map(|&(_, i)| i).collect())
                .collect(),
            goal: Vec::new(),
        })
    }

    /// Adds the moves of the last choice in the lanes of `moved`: the input slots of
    /// `small_inputs` (whole words) and the `(input, lane)` pairs of `set_moves`.
    #[inline(always)]
    pub fn mark(
        &mut self,
        vals: &[Block<W>],
        input_base: usize,
        (small_inputs, set_moves): (&[u32], &[(u32, u32)]),
        moved: &Block<W>,
    ) {
        for &i in small_inputs {
            let v = &vals[input_base + i as usize];
            let p = &mut self.lanes[i as usize];
            for j in 0..W {
                p[j] |= v[j] & moved[j];
            }
        }
        for &(i, lane) in set_moves {
            let (j, bit) = (lane as usize / 64, 1u64 << (lane % 64));
            self.lanes[i as usize][j] |= bit & moved[j];
        }
    }

    /// Adds what the finished lanes `fin` played to their jobs' dense sums in `out` (job of
    /// each lane in `job`; goal phase current in `vals`) and forgets it.
    pub fn tally(
        &mut self,
        prog: &Program,
        vals: &[Block<W>],
        fin: &Block<W>,
        job: &[u32],
        out: &mut Outcome,
    ) {
        let sums = Sums {
            prog,
            role_inputs: &self.role_inputs,
            goal: &mut self.goal,
        };
        sums.add(&mut self.lanes, vals, fin, job, out);
    }

    /// Moves what finished `lane` played to lane `p` of the parked block (the stepper's
    /// pending block, whose goals are evaluated later).
    pub fn park(&mut self, lane: usize, p: usize) {
        if self.parked.is_empty() {
            self.parked = vec![[0; W]; self.lanes.len()];
        }
        let (j, bit) = (lane / 64, 1u64 << (lane % 64));
        let (pj, pbit) = (p / 64, 1u64 << (p % 64));
        for (l, k) in self.lanes.iter_mut().zip(&mut self.parked) {
            if l[j] & bit != 0 {
                l[j] &= !bit;
                k[pj] |= pbit;
            } else {
                k[pj] &= !pbit;
            }
        }
    }

    /// [`Self::tally`] of the first `parked` lanes of the parked block (goals current in
    /// `gvals`; job of lane `p` in `job[p]`).
    pub fn tally_parked(
        &mut self,
        prog: &Program,
        gvals: &[Block<W>],
        parked: usize,
        job: &[u32],
        out: &mut Outcome,
    ) {
        let fin: Block<W> = std::array::from_fn(|j| match parked.saturating_sub(64 * j) {
            0 => 0,
            n if n >= 64 => !0,
            n => (1u64 << n) - 1,
        });
        let sums = Sums {
            prog,
            role_inputs: &self.role_inputs,
            goal: &mut self.goal,
        };
        sums.add(&mut self.parked, gvals, &fin, job, out);
    }
}

/// What adding finished lanes to the sums needs besides the lanes.
struct Sums<'a> {
    prog: &'a Program,
    role_inputs: &'a [Vec<u32>],
    /// Scratch: per role, per lane, the goal value of a finished lane.
    goal: &'a mut Vec<u8>,
}

impl Sums<'_> {
    /// Adds what lanes `fin` of `planes` played to their jobs' sums and clears them there:
    /// per input a word test per `64` lanes, then one addition per finished lane that
    /// played it.
    fn add<const W: usize>(
        self,
        planes: &mut [Block<W>],
        vals: &[Block<W>],
        fin: &Block<W>,
        job: &[u32],
        out: &mut Outcome,
    ) {
        let (prog, lanes) = (self.prog, 64 * W);
        self.goal.resize(prog.goals.len() * lanes, 0);
        for (r, goals) in prog.goals.iter().enumerate() {
            let goal = &mut self.goal[r * lanes..(r + 1) * lanes];
            let mut rem = *fin;
            for &(op, value) in goals {
                let g = read(vals, op);
                let hit: Block<W> = std::array::from_fn(|j| g[j] & rem[j]);
                for j in 0..W {
                    rem[j] &= !g[j];
                }
                for_each_lane(&hit, |lane| goal[lane] = value);
            }
            for_each_lane(&rem, |lane| goal[lane] = 0);
        }
        for_each_lane(fin, |lane| {
            let j = job[lane] as usize;
            if out.amaf.len() <= j {
                out.amaf.resize_with(j + 1, Vec::new);
            }
            if out.amaf[j].is_empty() {
                out.amaf[j].resize(prog.inputs, (0, 0));
            }
        });
        // only the words holding a finished lane
        let (mut words, mut nonzero) = ([0usize; W], 0);
        for j in (0..W).filter(|&j| fin[j] != 0) {
            words[nonzero] = j;
            nonzero += 1;
        }
        let words = &words[..nonzero];
        for (r, inputs) in self.role_inputs.iter().enumerate() {
            let goal = &self.goal[r * lanes..(r + 1) * lanes];
            for &i in inputs {
                let p = &mut planes[i as usize];
                for &j in words {
                    let mut w = p[j] & fin[j];
                    if w == 0 {
                        continue;
                    }
                    p[j] &= !fin[j];
                    while w != 0 {
                        let lane = 64 * j + w.trailing_zeros() as usize;
                        w &= w - 1;
                        let e = &mut out.amaf[job[lane] as usize][i as usize];
                        e.0 += 1;
                        e.1 += u64::from(goal[lane]);
                    }
                }
            }
        }
    }
}

/// The nonzero entries of a job's dense sums, as [`AmafSum`]s by input; zeroes `dense`.
pub fn take_sparse(dense: &mut [(u32, u64)]) -> Vec<AmafSum> {
    let mut out = Vec::new();
    for (i, e) in dense.iter_mut().enumerate() {
        if e.0 > 0 {
            out.push(AmafSum {
                input: i as u32,
                playouts: e.0,
                goal_sum: e.1,
            });
            *e = (0, 0);
        }
    }
    out
}
