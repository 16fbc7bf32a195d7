//! Slot storage aligned to cache lines: a block of `W ≥ 8` words is whole lines, so
//! reading (or prefetching, [`crate::eval`]) one operand of a 512-lane block touches one
//! line, not two.
//!
//! A `Vec<Block<W>>` from the system allocator is only 16-byte aligned: a 64-byte block
//! then straddles two lines, and a prefetch of its address brings in only the first.
//! Aligned slots and prefetching pay together, in programs whose slots outgrow the caches
//! (BENCHMARKS.md, "CPU simulator figures moved from module docs (#39)").

use crate::eval::Block;
use bytemuck::{Pod, Zeroable};
use std::ops::{Deref, DerefMut};

/// One 64-byte cache line.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C, align(64))]
struct Line([u64; 8]);

/// `len` blocks of `W` words in line-aligned memory; derefs to `[Block<W>]`. `W` is a
/// power of two (the simulator's block widths, 1 to 32 words).
pub struct Slots<const W: usize> {
    lines: Vec<Line>,
    len: usize,
}

impl<const W: usize> Slots<W> {
    /// `len` blocks, all 0.
    pub fn zeroed(len: usize) -> Self {
        assert!(W.is_power_of_two(), "block of {W} words");
        // Whole blocks of whole lines, so that the lines cast to blocks in one step.
        let lines = (len * W).div_ceil(8).next_multiple_of(W.div_ceil(8));
        Slots {
            lines: vec![Line([0; 8]); lines],
            len,
        }
    }
}

impl<const W: usize> Deref for Slots<W> {
    type Target = [Block<W>];
    fn deref(&self) -> &[Block<W>] {
        &bytemuck::cast_slice(&self.lines)[..self.len]
    }
}

impl<const W: usize> DerefMut for Slots<W> {
    fn deref_mut(&mut self) -> &mut [Block<W>] {
        &mut bytemuck::cast_slice_mut(&mut self.lines)[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<const W: usize>(len: usize) {
        let mut s = Slots::<W>::zeroed(len);
        assert_eq!(s.len(), len);
        assert!(s.iter().all(|b| b.iter().all(|&w| w == 0)));
        assert_eq!(s.as_ptr() as usize % 64, 0, "line aligned");
        s[len - 1][W - 1] = 3;
        s[0][0] = 5;
        assert_eq!((s[len - 1][W - 1], s[0][0]), (3, 5));
        assert_eq!(s.iter().flatten().filter(|&&w| w != 0).count(), 2);
    }

    #[test]
    fn blocks_are_aligned_zeroed_and_writable() {
        check::<8>(5);
        check::<2>(3);
        check::<1>(2);
        check::<32>(7);
    }
}
