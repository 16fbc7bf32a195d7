//! Bit-matrix helpers for legal-move selection: 64×64 bit transpose (lane words → per-lane
//! move sets) and select-the-k-th-set-bit of a word.

/// Transposes a 64×64 bit matrix in place: afterwards bit `i` of `rows[b]` is what bit `b`
/// of `rows[i]` was.
///
/// Recursive block swap (6 stages of 32 masked row-pair exchanges), as in Warren, *Hacker's
/// Delight*, §7-3 "Transposing a Bit Matrix".
#[inline(always)]
pub fn transpose64(rows: &mut [u64; 64]) {
    const MASKS: [u64; 6] = [
        0x0000_0000_ffff_ffff,
        0x0000_ffff_0000_ffff,
        0x00ff_00ff_00ff_00ff,
        0x0f0f_0f0f_0f0f_0f0f,
        0x3333_3333_3333_3333,
        0x5555_5555_5555_5555,
    ];
    for (stage, &m) in MASKS.iter().enumerate() {
        let s = 32 >> stage;
        let mut i = 0;
        while i < 64 {
            for r in i..i + s {
                let t = ((rows[r] >> s) ^ rows[r + s]) & m;
                rows[r + s] ^= t;
                rows[r] ^= t << s;
            }
            i += 2 * s;
        }
    }
}

/// Index of the `k`-th (0-based) set bit of `w`, counting from bit 0.
///
/// Requires `k < w.count_ones()`. Broadword: byte popcounts, their prefix sums by one
/// multiplication, then a short scan inside the selected byte (Vigna, "Broadword
/// Implementation of Rank/Select Queries", 2008).
#[inline(always)]
pub fn select64(w: u64, k: u32) -> u32 {
    debug_assert!(k < w.count_ones());
    const L8: u64 = 0x0101_0101_0101_0101;
    const H8: u64 = 0x8080_8080_8080_8080;
    let mut s = w - ((w >> 1) & 0x5555_5555_5555_5555);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    s = (s + (s >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    // Byte i of `prefix` = set bits in bytes 0..=i (at most 64, so no carries).
    let prefix = s.wrapping_mul(L8);
    // Byte i has its high bit set iff prefix_i <= k; prefixes grow, so the count of such
    // bytes is the index of the byte holding the k-th bit.
    let le = ((u64::from(k) * L8) | H8).wrapping_sub(prefix) & H8;
    let byte = le.count_ones();
    let before = ((prefix << 8) >> (8 * byte)) as u8;
    let mut b = (w >> (8 * byte)) as u8;
    for _ in 0..k - u32::from(before) {
        b &= b - 1;
    }
    8 * byte + b.trailing_zeros()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// SplitMix64's finalizer: well-mixed test inputs from small integers.
    pub(crate) fn mix(x: u64) -> u64 {
        let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    #[test]
    #[allow(clippy::needless_range_loop)] // (i, b) index both arrays, crosswise
    fn transpose_moves_every_bit() {
        let mut rows = [0u64; 64];
        for (i, r) in rows.iter_mut().enumerate() {
            *r = mix(i as u64) & mix(i as u64 + 1000);
        }
        let orig = rows;
        transpose64(&mut rows);
        for i in 0..64 {
            for b in 0..64 {
                assert_eq!((rows[b] >> i) & 1, (orig[i] >> b) & 1, "({i},{b})");
            }
        }
    }

    #[test]
    fn select_matches_scan() {
        for seed in 0..200u64 {
            let w = match seed {
                0 => u64::MAX,
                1 => 1 << 63,
                _ => mix(seed) & mix(seed * 7),
            };
            let set: Vec<u32> = (0..64).filter(|&b| (w >> b) & 1 == 1).collect();
            for (k, &b) in set.iter().enumerate() {
                assert_eq!(select64(w, k as u32), b, "w={w:#x} k={k}");
            }
        }
    }
}
