//! A fast hasher for the grounder's hash maps, whose keys are short sequences of small
//! integer ids (terms, atoms, relations): the multiply-rotate word hash used by Firefox
//! and rustc ("FxHash"), several times cheaper than the default SipHash on such keys.
//! Not resistant to chosen collisions; a compiler's own ids do not need that.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Multiplier of the word hash (an odd constant with well-mixed bits).
const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// The word hasher: `h = (rotl(h, 5) ^ word) * SEED` per word written.
#[derive(Default, Clone, Copy)]
pub struct FastHasher {
    hash: u64,
}

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// Builds [`FastHasher`]s.
pub type FastBuild = BuildHasherDefault<FastHasher>;
/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, FastBuild>;
/// A `HashSet` with [`FastHasher`].
pub type FastSet<K> = HashSet<K, FastBuild>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn equal_keys_hash_equal_and_nearby_keys_differ() {
        let b = FastBuild::default();
        let h = |k: &[u32]| b.hash_one(k);
        assert_eq!(h(&[1, 2, 3]), h(&[1, 2, 3]));
        let mut seen: Vec<u64> = (0..1000u32).map(|i| h(&[i, i + 1])).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 1000, "collisions among 1000 small keys");
        assert_ne!(h(&[1, 2]), h(&[2, 1]), "order matters");
    }
}
