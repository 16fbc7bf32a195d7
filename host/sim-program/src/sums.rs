//! Input sums: the plain input operands of a wide `Or` of the next phase replaced by one
//! slot that the simulator fills from the moves it chose, so the phase reads one slot
//! where it read hundreds of input slots that are almost all 0.
//!
//! A joint move sets one input per role and lane, so of a game with thousands of input
//! propositions (amazons: 173,962) nearly every input slot is 0 in every lane, yet an
//! `Or` over inputs (amazons: "some move puts an arrow on this square", 730 to 2,000
//! operands) reads them all, every step. Here each such `Or` gets a *sum slot*, the `Or`
//! of its plain input operands, and reads it instead of them; the simulator clears the
//! sum slots and ORs each input it set into the sums that list it
//! ([`InputSums::targets`]), which costs in proportion to the moves chosen, not to the
//! inputs. Sum slots lie between the inputs and the core phase; the other slots move up.

use crate::operand::{slot, Operand};
use crate::program::{Phase, Program, RunKind, Tuning};

/// Plain input operands an `Or` of the next phase needs for a sum, under [`Tuning::Auto`].
pub const AUTO_MIN_INPUTS: usize = 8;

/// Legal entries from which a role's inputs count for a sum under [`Tuning::Auto`].
///
/// Cost model, per input operand taken out of an `Or`: the `Or` no longer reads the
/// input's slot, about 0.1 ns per lane word (a streamed read; checkers: 1,143 operands
/// of 10 sums saved 1.8 ns per lane-step), while every lane that chooses the input pays
/// one scattered bit per sum, about 2.4 ns (checkers: 4.4 ns per lane-step at 1.8 sums
/// per input). With moves chosen about uniformly among a role's `n` inputs, an operand
/// saves `0.1 W` and costs `64 W × 2.4 / n` ns per block step: sums pay from `n ≈ 1,536`
/// on (checkers, 640 per role, was 4 % slower with them; amazons, 86,981 per role, 2.7
/// times faster). Smaller roles' inputs are also all taken each step (the simulator
/// lists only the moves of roles of more than its sliced-choice limit, 255 entries).
pub const AUTO_MIN_ROLE_MOVES: usize = 1536;

/// The sum slots of a program and, per input, the sums it feeds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputSums {
    /// Slot of sum 0; sum `s` is slot `first_slot + s`.
    pub first_slot: usize,
    /// Number of sums.
    pub count: usize,
    /// Per input `i`: its sums are `targets[start[i]..start[i + 1]]` (`inputs + 1`
    /// entries; empty when the program has no sums).
    pub start: Vec<u32>,
    /// Sum indices, grouped by input.
    pub targets: Vec<u32>,
}

impl InputSums {
    /// The sums input `i` feeds.
    #[inline(always)]
    pub fn of(&self, i: usize) -> &[u32] {
        match self.start.get(i..i + 2) {
            Some(r) => &self.targets[r[0] as usize..r[1] as usize],
            None => &[],
        }
    }

    /// Whether the program has no sums.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// Per instruction of `phase`: the number of its leading operands that are plain inputs
/// may be taken out ("singles": the non-negated operands of an n-ary `Or`, the single
/// operands of an [`RunKind::OrAnd`]), as the range of its operands in `phase.args`
/// holding them, for `Or` instructions; `None` for the others.
fn single_ranges(phase: &Phase) -> Vec<Option<(usize, usize)>> {
    let mut out = Vec::with_capacity(phase.len());
    let (mut k, mut at) = (0usize, 0usize);
    for run in &phase.runs {
        for i in k..k + run.len as usize {
            let (code, extra) = (phase.codes[i], phase.negated[i] as usize);
            let n = (code >> 1) as usize;
            out.push(match run.kind {
                RunKind::Other if code & 1 == 1 => Some((at, at + n - extra)),
                RunKind::OrAnd => Some((at, at + n - 2 * extra)),
                _ => None,
            });
            at += n;
        }
        k += run.len as usize;
    }
    out
}

/// Gives the next phase's wide `Or`s of `prog` their sums (see the module docs), as
/// `tuning` says: [`Tuning::Auto`] for `Or`s of at least [`AUTO_MIN_INPUTS`] plain inputs
/// of roles of at least [`AUTO_MIN_ROLE_MOVES`] legal entries, [`Tuning::Always`] for two
/// or more inputs of any role, [`Tuning::Never`] none.
pub(crate) fn add_input_sums(prog: &mut Program, tuning: Tuning) {
    let (min, min_role) = match tuning {
        Tuning::Auto => (AUTO_MIN_INPUTS, AUTO_MIN_ROLE_MOVES),
        Tuning::Always => (2, 0),
        Tuning::Never => return,
    };
    let (lo, hi) = (prog.input_base, prog.input_base + prog.inputs);
    let mut counted = vec![false; prog.inputs];
    for role in prog.legal.iter().filter(|r| r.len() >= min_role) {
        for &(_, i) in role {
            counted[i as usize] = true;
        }
    }
    let is_input =
        |op: Operand| op & 1 == 0 && (lo..hi).contains(&slot(op)) && counted[slot(op) - lo];
    let ranges = single_ranges(&prog.next);
    let chosen: Vec<usize> = (0..ranges.len())
        .filter(|&i| {
            ranges[i].is_some_and(|(a, b)| {
                prog.next.args[a..b]
                    .iter()
                    .filter(|&&op| is_input(op))
                    .count()
                    >= min
            })
        })
        .collect();
    if chosen.is_empty() {
        return;
    }
    let first_sum = hi;
    shift_slots(prog, first_sum, chosen.len());
    let mut per_input: Vec<Vec<u32>> = vec![Vec::new(); prog.inputs];
    let next = &mut prog.next;
    let mut args = Vec::with_capacity(next.args.len());
    let mut c = chosen.iter().copied().enumerate().peekable();
    let mut at = 0;
    for (i, range) in ranges.iter().enumerate() {
        let n = (next.codes[i] >> 1) as usize;
        let ops = &next.args[at..at + n];
        at += n;
        let Some((s, _)) = c.next_if(|&(_, k)| k == i) else {
            args.extend_from_slice(ops);
            continue;
        };
        let (a, b) = range
            .map(|(a, b)| (a - (at - n), b - (at - n)))
            .unwrap_or((0, 0));
        args.push(((first_sum + s) as u32) << 1);
        let mut kept = 1;
        for (j, &op) in ops.iter().enumerate() {
            if (a..b).contains(&j) && is_input(op) {
                per_input[slot(op) - lo].push(s as u32);
            } else {
                args.push(op);
                kept += 1;
            }
        }
        next.codes[i] = (kept << 1) | (next.codes[i] & 1);
    }
    next.args = args;
    let mut start = Vec::with_capacity(prog.inputs + 1);
    let mut targets = Vec::new();
    start.push(0);
    for t in per_input {
        targets.extend(t);
        start.push(targets.len() as u32);
    }
    prog.sums = InputSums {
        first_slot: first_sum,
        count: chosen.len(),
        start,
        targets,
    };
}

/// Moves every slot from `from` on up by `by` (operands, phases' first slots, the slot
/// count), leaving `by` free slots at `from`.
fn shift_slots(prog: &mut Program, from: usize, by: usize) {
    let shift = |op: &mut Operand| {
        if slot(*op) >= from {
            *op += (2 * by) as u32;
        }
    };
    for phase in [
        &mut prog.core,
        &mut prog.goal,
        &mut prog.next,
        &mut prog.percept,
    ] {
        phase.first_slot += by;
        phase.args.iter_mut().for_each(shift);
    }
    prog.legal
        .iter_mut()
        .flatten()
        .for_each(|(op, _)| shift(op));
    prog.goals
        .iter_mut()
        .flatten()
        .for_each(|(op, _)| shift(op));
    prog.next_state.iter_mut().for_each(shift);
    prog.percepts
        .iter_mut()
        .flatten()
        .for_each(|(op, _)| shift(op));
    shift(&mut prog.terminal);
    prog.slots += by;
}
