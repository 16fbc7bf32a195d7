//! Bit-parallel evaluation of a program phase over blocks of `W` 64-bit words (`64 * W`
//! playout lanes per slot).

use super::program::{slot, Operand, Phase};

/// One slot's value for every lane of a block: bit `b` of word `w` is lane `64 * w + b`.
pub type Block<const W: usize> = [u64; W];

/// All-ones when the operand's negate bit is set, else zero.
#[inline(always)]
fn neg_mask(op: Operand) -> u64 {
    0u64.wrapping_sub(u64::from(op & 1))
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
/// `vals` must hold at least `phase.first_slot + phase.len()` slots. Two-operand
/// instructions (the most common) take a branch-free fast path.
#[inline(always)]
pub fn run_phase<const W: usize>(vals: &mut [Block<W>], phase: &Phase) {
    let vals = &mut vals[..phase.first_slot + phase.codes.len()];
    let mut args = phase.args.as_slice();
    for (k, &code) in phase.codes.iter().enumerate() {
        let n = (code >> 1) as usize;
        let (ops, rest) = args.split_at(n);
        args = rest;
        // Every operand reads a slot below the one written (topological program order).
        let (done, out) = vals.split_at_mut(phase.first_slot + k);
        let is_or = code & 1 == 1;
        let acc: Block<W> = if n == 2 {
            let (a, b) = (read(done, ops[0]), read(done, ops[1]));
            if is_or {
                std::array::from_fn(|j| a[j] | b[j])
            } else {
                std::array::from_fn(|j| a[j] & b[j])
            }
        } else if is_or {
            let mut acc = [0u64; W];
            for &op in ops {
                let v = read(done, op);
                for j in 0..W {
                    acc[j] |= v[j];
                }
            }
            acc
        } else {
            let mut acc = [!0u64; W];
            for &op in ops {
                let v = read(done, op);
                for j in 0..W {
                    acc[j] &= v[j];
                }
            }
            acc
        };
        out[0] = acc;
    }
}
