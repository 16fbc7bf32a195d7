//! The one counter-based random number generator of the project, shared by every backend.
//!
//! **Threefry-2x32-20** (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as
//! 1, 2, 3", SC 2011): a keyed bijection of a 64-bit counter made only of 32-bit additions,
//! rotations and xors, so the WGSL shader (no 64-bit integers) and the Verilog engine (no
//! multiplier needed) compute exactly the same numbers as the CPU.
//!
//! A random draw is addressed, never sequenced: it is a pure function of
//! `(seed, playout index, step, role)`, so playouts are reproducible whatever lane, thread,
//! batch or device runs them.
//!
//! - key  = `[seed as u32, (seed >> 32) as u32]`
//! - ctr  = `[playout, (step << 8) | role]` (step taken mod 2^24, role < 256)
//! - draw = word 0 of `threefry2x32_20(key, ctr)`
//!
//! The choice among `n` legal moves is [`choose`]: `(x * n) >> 32` (Lemire's multiply-shift;
//! bias below `n / 2^32`, no division on any backend).

/// Roles the counter can address: the role takes the low 8 bits of counter word 1, so a
/// netlist may have at most this many ([`crate::validate`] checks it).
pub const MAX_ROLES: usize = 1 << 8;

/// Rotation constants of Threefry-2x32 (Random123 `R_32x2_*`).
pub const ROTATIONS: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
/// Key-schedule parity constant of Threefry with 32-bit words.
pub const PARITY: u32 = 0x1BD1_1BDA;
/// Number of rounds.
pub const ROUNDS: usize = 20;

/// The three key-schedule words of Threefry-2x32 for `key`: the key and their parity.
pub fn key_schedule(key: [u32; 2]) -> [u32; 3] {
    [key[0], key[1], PARITY ^ key[0] ^ key[1]]
}

/// Threefry-2x32 with 20 rounds: encrypts counter `ctr` under `key`.
pub fn threefry2x32_20(key: [u32; 2], ctr: [u32; 2]) -> [u32; 2] {
    let ks = key_schedule(key);
    let mut x0 = ctr[0].wrapping_add(ks[0]);
    let mut x1 = ctr[1].wrapping_add(ks[1]);
    for r in 0..ROUNDS {
        x0 = x0.wrapping_add(x1);
        x1 = x1.rotate_left(ROTATIONS[r % 8]);
        x1 ^= x0;
        if r % 4 == 3 {
            let s = (r + 1) / 4;
            x0 = x0.wrapping_add(ks[s % 3]);
            x1 = x1.wrapping_add(ks[(s + 1) % 3]).wrapping_add(s as u32);
        }
    }
    [x0, x1]
}

/// The key words for a 64-bit seed.
pub fn key(seed: u64) -> [u32; 2] {
    [seed as u32, (seed >> 32) as u32]
}

/// The counter words for a draw.
pub fn counter(playout: u32, step: u32, role: u32) -> [u32; 2] {
    [playout, (step << 8) | (role & 0xff)]
}

/// The 32-bit random draw of `role` at `step` of playout number `playout`.
pub fn draw(seed: u64, playout: u32, step: u32, role: u32) -> u32 {
    threefry2x32_20(key(seed), counter(playout, step, role))[0]
}

/// Maps a draw `x` to an index in `0..n`: `(x * n) >> 32`. Returns 0 when `n == 0`.
pub fn choose(x: u32, n: u32) -> u32 {
    ((u64::from(x) * u64::from(n)) >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known-answer vectors published with Random123 (`kat_vectors`, threefry2x32 20 rounds).
    #[test]
    fn known_answers() {
        assert_eq!(threefry2x32_20([0, 0], [0, 0]), [0x6b20_0159, 0x99ba_4efe]);
        assert_eq!(
            threefry2x32_20([u32::MAX, u32::MAX], [u32::MAX, u32::MAX]),
            [0x1cb9_96fc, 0xbb00_2be7]
        );
        assert_eq!(
            threefry2x32_20([0x1319_8a2e, 0x0370_7344], [0x243f_6a88, 0x85a3_08d3]),
            [0xc492_3a9c, 0x483d_f7a0]
        );
    }

    #[test]
    fn choose_is_in_range_and_spreads() {
        for n in 1..40u32 {
            let mut seen = vec![0u32; n as usize];
            for p in 0..4000u32 {
                let i = choose(draw(7, p, 3, 1), n);
                assert!(i < n);
                seen[i as usize] += 1;
            }
            assert!(seen.iter().all(|&c| c > 0), "n={n}: {seen:?}");
        }
        assert_eq!(choose(u32::MAX, 0), 0);
    }
}
