//! Bit-parallel evaluation of a program phase over blocks of `W` 64-bit words (`64 * W`
//! playout lanes per slot).

use crate::program::NONE;
use crate::program::{slot, Operand};
use crate::program::{Phase, Program, RunKind};

/// One slot's value for every lane of a block: bit `b` of word `w` is lane `64 * w + b`.
pub type Block<const W: usize> = [u64; W];

/// All-ones when the operand's negate bit is set, else zero.
#[inline(always)]
fn neg_mask(op: Operand) -> u64 {
    0u64.wrapping_sub(u64::from(op & 1))
}

/// Operands read ahead of the one being evaluated, in programs whose slots outgrow the
/// caches ([`PREFETCH_MIN_BYTES`]): their slots are prefetched, so that several reads are
/// in flight at once; it pays together with line-aligned slots ([`crate::slots`];
/// BENCHMARKS.md, "CPU simulator figures moved from module docs (#39)").
const AHEAD: usize = 24;

/// Slot bytes from which the evaluator prefetches operands ([`AHEAD`]). Below it the slots
/// stay in the caches and the prefetches cost more than they save
/// (BENCHMARKS.md, "CPU simulator figures moved from module docs (#39)").
pub const PREFETCH_MIN_BYTES: usize = 8 << 20;

/// When `PF`, asks the processor to bring the slot of `ahead[i]` into the cache (each of
/// its 64-byte lines), if it is one of `done`'s (a hint: no effect on results).
#[inline(always)]
fn prefetch<const W: usize, const PF: bool>(done: &[Block<W>], ahead: &[Operand], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if PF {
        if let Some(b) = ahead.get(i).and_then(|&op| done.get(slot(op))) {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: SSE is part of x86-64; a prefetch reads and writes nothing (it is a
            // hint), and the pointer is to a live block anyway.
            for line in (0..W).step_by(8) {
                #[allow(unsafe_code)]
                unsafe {
                    _mm_prefetch::<_MM_HINT_T0>(b[line..].as_ptr().cast())
                };
            }
        }
    }
}

/// Reads an operand (applying its negation).
#[inline(always)]
pub fn read<const W: usize>(vals: &[Block<W>], op: Operand) -> Block<W> {
    let m = neg_mask(op);
    let v = vals[slot(op)];
    std::array::from_fn(|k| v[k] ^ m)
}

/// Evaluates every instruction of `phase`, writing slots `phase.first_slot..`.
///
/// `vals` must hold at least `phase.first_slot + phase.len()` slots. Run by run: a run's
/// instructions read only slots below the run, so two-operand runs are one tight loop
/// with no branch per instruction; other runs go instruction by instruction.
#[inline(always)]
pub fn run_phase<const W: usize>(vals: &mut [Block<W>], phase: &Phase) {
    run_runs(vals, phase, &[], |_, _| true);
}

/// [`run_phase`] skipping every product of a [`RunKind::OrAnd`] instruction whose first
/// operand is 0 in every lane of the block. `nonzero` is indexed by operand: entry `2 l`
/// is false when latch `l` is 0 in every lane, every other entry is true; operands past its
/// end are never skipped (an empty slice skips nothing).
#[inline(always)]
pub fn run_skipping<const W: usize>(vals: &mut [Block<W>], phase: &Phase, nonzero: &[bool]) {
    run_runs(vals, phase, nonzero, |_, _| true);
}

/// [`run_skipping`] also skipping the runs with a guard that is not `live`
/// ([`crate::program::Run::guard`], and [`Phase::second_guards`] where the phase has
/// them): a skipped run's slots are set to 0 unless `zeroed` (one flag per run) says they
/// still are from an earlier skip.
#[inline(always)]
pub fn run_guarded<const W: usize>(
    vals: &mut [Block<W>],
    phase: &Phase,
    nonzero: &[bool],
    live: &[bool],
    zeroed: &mut [bool],
) {
    run_runs(vals, phase, nonzero, |r, out| {
        keep_or_zero(run_alive(phase, live, r), r, out, zeroed)
    });
}

/// Whether [`run_guarded`] evaluates run `r` of `phase`: its guard, and its second guard
/// where it has one, are `live`.
#[inline(always)]
pub fn run_alive(phase: &Phase, live: &[bool], r: usize) -> bool {
    let guard = phase.runs[r].guard;
    let second = phase.second_guards.get(r).copied().unwrap_or(NONE);
    (guard == NONE || live[guard as usize]) && (second == NONE || live[second as usize])
}

/// Whether run `r` is evaluated (`alive`); a skipped run's slots `out` are set to 0 once
/// and stay so (`zeroed`) until it runs again.
#[inline(always)]
fn keep_or_zero<const W: usize>(
    alive: bool,
    r: usize,
    out: &mut [Block<W>],
    zeroed: &mut [bool],
) -> bool {
    if alive {
        zeroed[r] = false;
    } else if !zeroed[r] {
        out.fill([0; W]);
        zeroed[r] = true;
    }
    alive
}

/// Evaluates the runs of `phase` for which `keep(run index, its slots)` says so, skipping
/// products as `nonzero` says ([`run_skipping`]); prefetching operands when `vals` take at
/// least [`PREFETCH_MIN_BYTES`].
#[inline(always)]
fn run_runs<const W: usize>(
    vals: &mut [Block<W>],
    phase: &Phase,
    nonzero: &[bool],
    keep: impl FnMut(usize, &mut [Block<W>]) -> bool,
) {
    if std::mem::size_of_val(vals) >= PREFETCH_MIN_BYTES {
        runs_with::<W, true>(vals, phase, nonzero, keep);
    } else {
        runs_with::<W, false>(vals, phase, nonzero, keep);
    }
}

/// [`run_runs`], prefetching [`AHEAD`] when `PF`.
#[inline(always)]
fn runs_with<const W: usize, const PF: bool>(
    vals: &mut [Block<W>],
    phase: &Phase,
    nonzero: &[bool],
    mut keep: impl FnMut(usize, &mut [Block<W>]) -> bool,
) {
    let vals = &mut vals[..phase.first_slot + phase.codes.len()];
    let mut args = phase.args.as_slice();
    let mut k = 0usize;
    for (r, run) in phase.runs.iter().enumerate() {
        let n = run.len as usize;
        let (done, rest) = vals.split_at_mut(phase.first_slot + k);
        let out = &mut rest[..n];
        if !keep(r, out) {
            args = &args[phase.run_operands(k, run)..];
        } else if run.kind == RunKind::OrAnd {
            let codes = phase.codes[k..k + n].iter().zip(&phase.negated[k..k + n]);
            for (o, (&code, &pairs)) in out.iter_mut().zip(codes) {
                for i in 0..(code >> 1) as usize {
                    prefetch::<W, PF>(done, args, AHEAD + i);
                }
                let (ops, tail) = args.split_at((code >> 1) as usize);
                args = tail;
                *o = or_and(done, ops, pairs as usize, nonzero);
            }
        } else if run.kind == RunKind::Other {
            let codes = phase.codes[k..k + n].iter().zip(&phase.negated[k..k + n]);
            for (o, (&code, &negs)) in out.iter_mut().zip(codes) {
                for i in 0..(code >> 1) as usize {
                    prefetch::<W, PF>(done, args, AHEAD + i);
                }
                let (ops, tail) = args.split_at((code >> 1) as usize);
                args = tail;
                let (plain, negated) = ops.split_at(ops.len() - negs as usize);
                *o = if code & 1 == 1 {
                    let acc = fold(done, plain, [0u64; W], |acc, v| acc | v);
                    fold(done, negated, acc, |acc, v| acc | !v)
                } else {
                    let acc = fold(done, plain, [!0u64; W], |acc, v| acc & v);
                    fold(done, negated, acc, |acc, v| acc & !v)
                };
            }
        } else {
            let ops = args;
            args = &args[2 * n..];
            match run.kind {
                RunKind::And => pairs::<W, PF>(done, out, ops, |a, b| a & b),
                RunKind::AndNot => pairs::<W, PF>(done, out, ops, |a, b| a & !b),
                RunKind::Nor => pairs::<W, PF>(done, out, ops, |a, b| !(a | b)),
                RunKind::Or => pairs::<W, PF>(done, out, ops, |a, b| a | b),
                RunKind::OrNot => pairs::<W, PF>(done, out, ops, |a, b| a | !b),
                RunKind::Nand | RunKind::Other | RunKind::OrAnd => {
                    pairs::<W, PF>(done, out, ops, |a, b| !(a & b))
                }
            }
        }
        k += n;
    }
}

/// A run of two-operand instructions: `out[i] = f(a, b)` word by word, with `a`, `b` the
/// plain values of slots `ops[2i]`, `ops[2i + 1]` (their negations are in `f`); `ops` may
/// go on past the run (operands prefetched ahead).
#[inline(always)]
fn pairs<const W: usize, const PF: bool>(
    done: &[Block<W>],
    out: &mut [Block<W>],
    ops: &[Operand],
    f: impl Fn(u64, u64) -> u64,
) {
    for (i, (o, pair)) in out.iter_mut().zip(ops.chunks_exact(2)).enumerate() {
        prefetch::<W, PF>(done, ops, 2 * i + AHEAD);
        prefetch::<W, PF>(done, ops, 2 * i + AHEAD + 1);
        let (a, b) = (&done[slot(pair[0])], &done[slot(pair[1])]);
        for j in 0..W {
            o[j] = f(a[j], b[j]);
        }
    }
}

/// A [`RunKind::OrAnd`] instruction: the OR of `ops`' single operands and of the ANDs of
/// its last `pairs` operand pairs, each operand negated as its bit says; a pair whose first
/// operand `nonzero` says is 0 in every lane ([`run_skipping`]) is not read.
#[inline(always)]
fn or_and<const W: usize>(
    done: &[Block<W>],
    ops: &[Operand],
    pairs: usize,
    nonzero: &[bool],
) -> Block<W> {
    let (singles, products) = ops.split_at(ops.len() - 2 * pairs);
    let mut acc = [0u64; W];
    for &op in singles {
        let v = read(done, op);
        for j in 0..W {
            acc[j] |= v[j];
        }
    }
    for pair in products.chunks_exact(2) {
        if nonzero.get(pair[0] as usize) == Some(&false) {
            continue;
        }
        let (a, b) = (read(done, pair[0]), read(done, pair[1]));
        for j in 0..W {
            acc[j] |= a[j] & b[j];
        }
    }
    acc
}

/// `init` combined with every operand's plain slot value by `f`, word by word.
#[inline(always)]
fn fold<const W: usize>(
    done: &[Block<W>],
    ops: &[Operand],
    init: Block<W>,
    f: impl Fn(u64, u64) -> u64,
) -> Block<W> {
    let mut acc = init;
    for &op in ops {
        let v = &done[slot(op)];
        for j in 0..W {
            acc[j] = f(acc[j], v[j]);
        }
    }
    acc
}

/// Fills the next phase's input sums ([`crate::program::Program::sums`]) from the moves
/// set this step: every sum slot cleared, then each input of `inputs` ORed word by word
/// into the sums it feeds, and each move of `moves` (input, lane) bit by bit. Every input
/// slot bit not set through `inputs` or `moves` must be 0; a repeat costs time only.
#[inline(always)]
pub fn fill_sums<const W: usize>(
    vals: &mut [Block<W>],
    prog: &Program,
    inputs: &[u32],
    moves: &[(u32, u32)],
) {
    let sums = &prog.sums;
    if sums.is_empty() {
        return;
    }
    vals[sums.first_slot..sums.first_slot + sums.count].fill([0; W]);
    for &i in inputs {
        let v = vals[prog.input_base + i as usize];
        for &s in sums.of(i as usize) {
            let d = &mut vals[sums.first_slot + s as usize];
            for j in 0..W {
                d[j] |= v[j];
            }
        }
    }
    for &(i, lane) in moves {
        let (j, bit) = (lane as usize / 64, 1u64 << (lane % 64));
        for &s in sums.of(i as usize) {
            vals[sums.first_slot + s as usize][j] |= bit;
        }
    }
}
