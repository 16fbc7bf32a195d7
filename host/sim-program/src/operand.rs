//! Operands of the compiled program: a slot index and a negate bit in one word.

/// An operand: `slot << 1 | negate`.
pub type Operand = u32;

/// The slot an operand reads.
#[inline(always)]
pub fn slot(op: Operand) -> usize {
    (op >> 1) as usize
}
