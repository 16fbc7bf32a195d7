//! A small, fast, non-cryptographic hasher for the interpreter's maps, whose keys are
//! short sequences of `u32` ids (SipHash dominates profiles otherwise). Multiply-rotate
//! mixing of each written word; no protection against adversarial keys (none here).

use std::hash::{BuildHasherDefault, Hasher};

/// Word-at-a-time multiplicative hasher.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdHasher {
    h: u64,
}

const K: u64 = 0x9E37_79B9_7F4A_7C15;

impl IdHasher {
    #[inline]
    fn mix(&mut self, w: u64) {
        self.h = (self.h.rotate_left(5) ^ w).wrapping_mul(K);
    }
}

impl Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // final avalanche so that the low bits (bucket index) depend on every input bit
        let mut z = self.h;
        z = (z ^ (z >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        z ^ (z >> 32)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.mix(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(b) ^ ((rest.len() as u64) << 59));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.mix(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.mix(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.mix(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.mix(i as u64);
    }
}

/// `BuildHasher` for [`IdHasher`].
pub type BuildIdHasher = BuildHasherDefault<IdHasher>;
/// `HashMap` with [`IdHasher`].
pub type IdMap<K, V> = std::collections::HashMap<K, V, BuildIdHasher>;
/// `HashSet` with [`IdHasher`].
pub type IdSet<T> = std::collections::HashSet<T, BuildIdHasher>;
