//! Threefry-2x32-20 draws for many lanes at once, laid out so LLVM vectorizes across lanes.
//! Bit-identical to [`propnet_netlist::rng::draw`] (checked by a test below).

use propnet_netlist::rng::{self, ROTATIONS};

/// The per-lane inputs of the draw: RNG counters of every lane of the block.
pub struct LaneCounters<'a> {
    /// RNG seed of the batch.
    pub seed: u64,
    /// The role choosing.
    pub role: u32,
    /// Per lane: playout index.
    pub playout: &'a [u32],
    /// Per lane: step within the playout.
    pub step: &'a [u32],
}

/// Lanes processed together by [`draws`].
pub const CHUNK: usize = 16;

/// Fills `out[i] = rng::draw(seed, playout[i], step[i], role)` for every `i`.
///
/// `playout`, `step` and `out` have equal lengths.
#[inline(always)]
pub fn draws(seed: u64, role: u32, playout: &[u32], step: &[u32], out: &mut [u32]) {
    let ks = rng::key_schedule(rng::key(seed));
    let n = out.len();
    let mut i = 0;
    while i < n {
        let m = CHUNK.min(n - i);
        let mut x0 = [0u32; CHUNK];
        let mut x1 = [0u32; CHUNK];
        for j in 0..m {
            x0[j] = playout[i + j];
            x1[j] = (step[i + j] << 8) | (role & 0xff);
        }
        let r = threefry_lanes(ks, x0, x1);
        out[i..i + m].copy_from_slice(&r[..m]);
        i += m;
    }
}

/// Threefry-2x32-20 of `N` counters `(x0[i], x1[i])` under the key schedule `ks`
/// (`[k0, k1, PARITY ^ k0 ^ k1]`); returns the first output word of each.
///
/// Written as one loop over the lanes with every round inside, the shape LLVM's loop
/// vectorizer turns into one 8-lane vector instruction per operation (round by round over
/// arrays, its SLP vectorizer split the lanes into 4-wide and scalar code).
#[inline(always)]
pub fn threefry_lanes<const N: usize>(ks: [u32; 3], x0: [u32; N], x1: [u32; N]) -> [u32; N] {
    let mut out = [0u32; N];
    for i in 0..N {
        out[i] = threefry_lane(ks, x0[i], x1[i]);
    }
    out
}

/// One lane of [`threefry_lanes`]: Threefry-2x32-20, first output word.
#[inline(always)]
fn threefry_lane(ks: [u32; 3], x0: u32, x1: u32) -> u32 {
    let (mut a, mut b) = (x0.wrapping_add(ks[0]), x1.wrapping_add(ks[1]));
    // 5 groups of 4 rounds, each followed by a key injection; fully unrolled.
    macro_rules! round {
        ($r:expr) => {
            a = a.wrapping_add(b);
            b = b.rotate_left(ROTATIONS[$r % 8]) ^ a;
        };
    }
    macro_rules! inject {
        ($s:expr) => {
            a = a.wrapping_add(ks[$s % 3]);
            b = b.wrapping_add(ks[($s + 1) % 3]).wrapping_add($s as u32);
        };
    }
    round!(0);
    round!(1);
    round!(2);
    round!(3);
    inject!(1);
    round!(4);
    round!(5);
    round!(6);
    round!(7);
    inject!(2);
    round!(8);
    round!(9);
    round!(10);
    round!(11);
    inject!(3);
    round!(12);
    round!(13);
    round!(14);
    round!(15);
    inject!(4);
    round!(16);
    round!(17);
    round!(18);
    // Round 19 and the last injection, first word only (the second is not returned).
    a.wrapping_add(b).wrapping_add(ks[5 % 3])
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet_netlist::rng::draw;

    #[test]
    fn lane_draws_equal_scalar_rng() {
        for seed in [0u64, 1, 0xdead_beef_1234_5678, u64::MAX] {
            for n in [1usize, 7, 8, 9, 33] {
                let playout: Vec<u32> = (0..n as u32)
                    .map(|i| i.wrapping_mul(2_654_435_761))
                    .collect();
                let step: Vec<u32> = (0..n as u32).map(|i| i * 3 + (1 << 23)).collect();
                let mut out = vec![0; n];
                draws(seed, 5, &playout, &step, &mut out);
                for i in 0..n {
                    assert_eq!(
                        out[i],
                        draw(seed, playout[i], step[i], 5),
                        "seed {seed} lane {i}"
                    );
                }
            }
        }
    }
}
