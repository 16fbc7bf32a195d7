//! The AVX2 copy of the bit-sliced pick ([`crate::choice`]'s `k` planes), bit-identical to
//! the portable one and so to [`propnet_netlist::rng`].
//!
//! Three passes over a role's lanes, no per-lane scalar loop in any:
//! 1. **compact**: the RNG counters of the lanes that need a draw (two or more legal moves)
//!    are packed, 8 lanes at a time, into dense arrays by one `vpermd` with an index vector
//!    from a 256-entry table (keyed by the lanes' 8 bits of `many`). In a game where one
//!    role moves at a time this halves the Threefry work: the other role's lanes, with a
//!    single legal move, are never drawn.
//! 2. **draw**: Threefry-2x32-20 over the dense arrays, 32 lanes per iteration as four
//!    independent 8-lane chains (one chain's 3-cycle round latency hides behind the others),
//!    rotations by 16 and 24 as byte shuffles.
//! 3. **pick**: per 32 lanes, the legal counts come out of the count planes as bytes by
//!    broadcast, byte shuffle and compare; the dense draws go back to lane order by the
//!    inverse `vpermd`; `k = (x * count) >> 32` by `vpmuludq` (lanes whose count is 0 or 1
//!    get `k = 0` whatever their draw); the `k` are packed to bytes and each bit plane of
//!    `k` is one `vpmovmskb`.

use crate::draw::LaneCounters;
use crate::eval::Block;
use crate::program::Phase;
use propnet_netlist::rng::{self, ROTATIONS};
use std::arch::x86_64::*;

// The rounds below spell the rotations out as immediates.
const _: () = assert!(
    ROTATIONS[0] == 13
        && ROTATIONS[1] == 15
        && ROTATIONS[2] == 26
        && ROTATIONS[3] == 6
        && ROTATIONS[4] == 17
        && ROTATIONS[5] == 29
        && ROTATIONS[6] == 16
        && ROTATIONS[7] == 24,
    "the AVX2 Threefry hard-codes rng::ROTATIONS"
);

/// Proof that the running processor has AVX2: only [`Avx2::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub struct Avx2(());

impl Avx2 {
    /// The proof, when the processor has AVX2 (detected at run time).
    pub fn detect() -> Option<Avx2> {
        std::is_x86_feature_detected!("avx2").then_some(Avx2(()))
    }

    /// The `k` planes of [`crate::choice`]'s bit-sliced pick (see the module doc);
    /// `dense` needs at least `64 * W` entries per array.
    #[inline(always)]
    pub fn pick_planes<const W: usize, const B: usize>(
        self,
        cnt: &[Block<W>; B],
        many: &Block<W>,
        ctr: &LaneCounters<'_>,
        dense: &mut DenseDraws,
    ) -> [Block<W>; B] {
        // SAFETY: `self` exists only where `detect` found AVX2, the one feature the callee
        // is compiled for.
        #[allow(unsafe_code)]
        unsafe {
            pick_planes(cnt, many, ctr, dense)
        }
    }
}

impl Avx2 {
    /// `out[i] = rng::draw(seed, playout[i], step[i], role)` for every `i` (equal lengths),
    /// 32 lanes per iteration as in the sliced path.
    #[inline(always)]
    pub fn draws(self, seed: u64, role: u32, playout: &[u32], step: &[u32], out: &mut [u32]) {
        // SAFETY: as in `pick_planes`.
        #[allow(unsafe_code)]
        unsafe {
            draws(seed, role, playout, step, out)
        }
    }
}

impl Avx2 {
    /// [`crate::eval::run_guarded`] compiled for AVX2 (the 256-bit word loops): the core
    /// phase of large programs runs out of line, outside the stepper's AVX2 copy.
    #[inline(always)]
    pub fn run_guarded<const W: usize>(
        self,
        vals: &mut [Block<W>],
        phase: &Phase,
        nonzero: &[bool],
        live: &[bool],
        zeroed: &mut [bool],
    ) {
        // SAFETY: as in `pick_planes`.
        #[allow(unsafe_code)]
        unsafe {
            run_guarded(vals, phase, nonzero, live, zeroed)
        }
    }
}

/// See [`Avx2::run_guarded`].
#[target_feature(enable = "avx2")]
#[inline(never)]
fn run_guarded<const W: usize>(
    vals: &mut [Block<W>],
    phase: &Phase,
    nonzero: &[bool],
    live: &[bool],
    zeroed: &mut [bool],
) {
    crate::eval::run_guarded(vals, phase, nonzero, live, zeroed);
}

/// See [`Avx2::draws`].
#[target_feature(enable = "avx2")]
#[inline]
fn draws(seed: u64, role: u32, playout: &[u32], step: &[u32], out: &mut [u32]) {
    let ks = rng::key_schedule(rng::key(seed));
    for (i, o) in out.chunks_mut(32).enumerate() {
        let lanes = 32 * i..32 * i + o.len();
        let (mut a, mut b) = ([0u32; 32], [0u32; 32]);
        for (t, (&p, &s)) in playout[lanes.clone()].iter().zip(&step[lanes]).enumerate() {
            a[t] = p.wrapping_add(ks[0]);
            b[t] = ((s << 8) | (role & 0xff)).wrapping_add(ks[1]);
        }
        let x = threefry4(
            ks,
            std::array::from_fn(|c| load8(&a, 8 * c)),
            std::array::from_fn(|c| load8(&b, 8 * c)),
        );
        let x: [u32; 32] = bytemuck::cast(x);
        o.copy_from_slice(&x[..o.len()]);
    }
}

/// Dense per-draw buffers of [`Avx2::pick_planes`], allocated once per block stepper.
pub struct DenseDraws {
    /// Threefry word 0 per draw: the keyed counter on entry to the rounds, the draw after.
    x0: Vec<u32>,
    /// Threefry word 1 per draw.
    x1: Vec<u32>,
}

impl DenseDraws {
    /// Buffers for `lanes` lanes (a multiple of 64).
    pub fn new(lanes: usize) -> Self {
        DenseDraws {
            x0: vec![0; lanes],
            x1: vec![0; lanes],
        }
    }
}

/// `COMPRESS[m]` byte `r`: the index of the `r`-th set bit of `m` (0 past the last).
const COMPRESS: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let (mut r, mut i) = (0, 0);
        while i < 8 {
            if m >> i & 1 == 1 {
                t[m] |= (i as u64) << (8 * r);
                r += 1;
            }
            i += 1;
        }
        m += 1;
    }
    t
};

/// `EXPAND[m]` byte `i`: how many set bits of `m` lie below bit `i` (its rank).
const EXPAND: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut i = 0;
        while i < 8 {
            let rank = ((m & ((1 << i) - 1)) as u32).count_ones() as u64;
            t[m] |= rank << (8 * i);
            i += 1;
        }
        m += 1;
    }
    t
};

/// Eight `u32` lanes from `v[at..at + 8]`.
#[inline(always)]
fn load8(v: &[u32], at: usize) -> __m256i {
    let a: [u32; 8] = v[at..at + 8].try_into().expect("8 lanes");
    bytemuck::cast(a)
}

/// Stores eight `u32` lanes to `v[at..at + 8]`.
#[inline(always)]
fn store8(v: &mut [u32], at: usize, x: __m256i) {
    let a: [u32; 8] = bytemuck::cast(x);
    v[at..at + 8].copy_from_slice(&a);
}

/// The lane permutation stored as 8 bytes in `t`, as `vpermd` indices.
#[target_feature(enable = "avx2")]
#[inline]
fn indices(t: u64) -> __m256i {
    _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(t as i64))
}

/// See [`Avx2::pick_planes`].
#[target_feature(enable = "avx2")]
#[inline]
fn pick_planes<const W: usize, const B: usize>(
    cnt: &[Block<W>; B],
    many: &Block<W>,
    ctr: &LaneCounters<'_>,
    dense: &mut DenseDraws,
) -> [Block<W>; B] {
    let ks = rng::key_schedule(rng::key(ctr.seed));
    let n = compact(many, ctr, ks, dense);
    let x = &mut dense.x0[..n.div_ceil(32) * 32];
    let y = &dense.x1[..x.len()];
    for (xs, ys) in x.chunks_exact_mut(32).zip(y.chunks_exact(32)) {
        let a = std::array::from_fn(|c| load8(xs, 8 * c));
        let b = std::array::from_fn(|c| load8(ys, 8 * c));
        let out = threefry4(ks, a, b);
        for (c, &o) in out.iter().enumerate() {
            store8(xs, 8 * c, o);
        }
    }
    expand_pick(cnt, many, &dense.x0)
}

/// Pass 1: packs the keyed counters `(playout + k0, ((step << 8) | role) + k1)` of the
/// lanes in `many` into `dense`, in lane order; returns how many.
#[target_feature(enable = "avx2")]
#[inline]
fn compact<const W: usize>(
    many: &Block<W>,
    ctr: &LaneCounters<'_>,
    ks: [u32; 3],
    dense: &mut DenseDraws,
) -> usize {
    let k0 = _mm256_set1_epi32(ks[0] as i32);
    let k1 = _mm256_set1_epi32(ks[1] as i32);
    let role = _mm256_set1_epi32((ctr.role & 0xff) as i32);
    let mut n = 0;
    for (j, &word) in many.iter().enumerate().filter(|(_, &w)| w != 0) {
        for c in 0..8 {
            let m = (word >> (8 * c)) as u8;
            let lane0 = 64 * j + 8 * c;
            let idx = indices(COMPRESS[m as usize]);
            let p = _mm256_add_epi32(load8(ctr.playout, lane0), k0);
            let s = _mm256_slli_epi32::<8>(load8(ctr.step, lane0));
            let s = _mm256_add_epi32(_mm256_or_si256(s, role), k1);
            // n <= lane0, so the 8 stored lanes stay inside the buffers.
            store8(&mut dense.x0, n, _mm256_permutevar8x32_epi32(p, idx));
            store8(&mut dense.x1, n, _mm256_permutevar8x32_epi32(s, idx));
            n += m.count_ones() as usize;
        }
    }
    n
}

/// Pass 3: the `k` planes from the count planes and the dense draws `x` of the lanes in
/// `many` (in lane order, as [`compact`] packed them).
#[target_feature(enable = "avx2")]
#[inline]
fn expand_pick<const W: usize, const B: usize>(
    cnt: &[Block<W>; B],
    many: &Block<W>,
    x: &[u32],
) -> [Block<W>; B] {
    // Byte i of a broadcast 32-bit word goes to bytes 8i..8i+8 (in-lane shuffle: the high
    // 128-bit half holds bytes 2 and 3 of its own copy).
    let spread = _mm256_setr_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3,
        3, 3,
    );
    let bit = _mm256_set1_epi64x(0x8040_2010_0804_0201u64 as i64);
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let top = _mm_cvtsi32_si128(8 - B as i32);
    let mut k = [[0u64; W]; B];
    let mut n = 0;
    for (j, &word) in many.iter().enumerate().filter(|(_, &w)| w != 0) {
        for half in 0..2 {
            // Legal counts of these 32 lanes, one byte each.
            let mut counts = _mm256_setzero_si256();
            for (p, plane) in cnt.iter().enumerate() {
                let v = _mm256_set1_epi32((plane[j] >> (32 * half)) as u32 as i32);
                let v = _mm256_and_si256(_mm256_shuffle_epi8(v, spread), bit);
                let v = _mm256_and_si256(_mm256_cmpeq_epi8(v, bit), _mm256_set1_epi8(1 << p));
                counts = _mm256_or_si256(counts, v);
            }
            let lo = _mm256_castsi256_si128(counts);
            let hi = _mm256_extracti128_si256::<1>(counts);
            let quarters = [lo, _mm_srli_si128::<8>(lo), hi, _mm_srli_si128::<8>(hi)];
            let picks: [__m256i; 4] = std::array::from_fn(|q| {
                let m = (word >> (32 * half + 8 * q)) as u8;
                let xs = _mm256_permutevar8x32_epi32(load8(x, n), indices(EXPAND[m as usize]));
                n += m.count_ones() as usize;
                mul_hi(xs, _mm256_cvtepu8_epi32(quarters[q]))
            });
            // k < count < 256: pack to bytes in lane order.
            let ab = _mm256_packus_epi32(picks[0], picks[1]);
            let cd = _mm256_packus_epi32(picks[2], picks[3]);
            let bytes = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd), order);
            // Bit p of every byte to the byte's top, highest plane first.
            let mut v = _mm256_sll_epi16(bytes, top);
            for p in (0..B).rev() {
                let bits = _mm256_movemask_epi8(v) as u32;
                k[p][j] |= u64::from(bits) << (32 * half);
                v = _mm256_add_epi8(v, v);
            }
        }
    }
    k
}

/// `(x * c) >> 32` per 32-bit lane.
#[target_feature(enable = "avx2")]
#[inline]
fn mul_hi(x: __m256i, c: __m256i) -> __m256i {
    let even = _mm256_srli_epi64::<32>(_mm256_mul_epu32(x, c));
    let odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(x), _mm256_srli_epi64::<32>(c));
    _mm256_blend_epi32::<0b1010_1010>(even, odd)
}

/// Threefry-2x32-20 of four 8-lane chains whose counters already have the key added
/// (`a = x0 + k0`, `b = x1 + k1`); returns word 0 of each.
#[target_feature(enable = "avx2")]
#[inline]
fn threefry4(ks: [u32; 3], mut a: [__m256i; 4], mut b: [__m256i; 4]) -> [__m256i; 4] {
    let rot16 = _mm256_setr_epi8(
        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9,
        14, 15, 12, 13,
    );
    let rot24 = _mm256_setr_epi8(
        1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8,
        13, 14, 15, 12,
    );
    macro_rules! round {
        (|$x:ident| $rot:expr) => {
            for c in 0..4 {
                a[c] = _mm256_add_epi32(a[c], b[c]);
                let $x = b[c];
                b[c] = _mm256_xor_si256($rot, a[c]);
            }
        };
        ($r:literal) => {
            round!(|x| _mm256_or_si256(
                _mm256_slli_epi32::<$r>(x),
                _mm256_srli_epi32::<{ 32 - $r }>(x)
            ))
        };
    }
    macro_rules! inject {
        ($s:literal) => {
            let ka = _mm256_set1_epi32(ks[$s % 3] as i32);
            let kb = _mm256_set1_epi32(ks[($s + 1) % 3].wrapping_add($s) as i32);
            for c in 0..4 {
                a[c] = _mm256_add_epi32(a[c], ka);
                b[c] = _mm256_add_epi32(b[c], kb);
            }
        };
    }
    // Rounds 8q..8q+3 and 8q+4..8q+7 (rotations ROTATIONS[0..4] and ROTATIONS[4..8]).
    macro_rules! low_four {
        () => {
            round!(13);
            round!(15);
            round!(26);
            round!(6);
        };
    }
    macro_rules! high_four {
        () => {
            round!(17);
            round!(29);
            round!(|x| _mm256_shuffle_epi8(x, rot16));
            round!(|x| _mm256_shuffle_epi8(x, rot24));
        };
    }
    low_four!();
    inject!(1);
    high_four!();
    inject!(2);
    low_four!();
    inject!(3);
    high_four!();
    inject!(4);
    round!(13);
    round!(15);
    round!(26);
    // Round 19 and the last injection, word 0 only.
    let k2 = _mm256_set1_epi32(ks[2] as i32);
    std::array::from_fn(|c| _mm256_add_epi32(_mm256_add_epi32(a[c], b[c]), k2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::tests::mix;

    /// The whole AVX2 draw path (keyed counters, the four-chain `threefry4`, the unpacking
    /// of partial 32-lane chunks) against the scalar `rng::draw`: every length class of a
    /// chunk, seeds with extreme key words, roles (with bits above the 8 the counter keeps)
    /// and lanes whose counters differ in all 64 bits.
    #[test]
    fn draws_equal_scalar_rng() {
        let Some(avx2) = Avx2::detect() else {
            eprintln!("skipped: this processor has no AVX2");
            return;
        };
        for seed in [0u64, 1, 42, 0xdead_beef_1234_5678, u64::MAX] {
            for role in [0u32, 3, 0xff, 0x1_07] {
                for n in [1usize, 7, 31, 32, 33, 100] {
                    let lane = |i: usize| mix(seed ^ (u64::from(role) << 40) ^ i as u64);
                    let playout: Vec<u32> = (0..n).map(|i| lane(i) as u32).collect();
                    let step: Vec<u32> = (0..n).map(|i| (lane(i) >> 32) as u32).collect();
                    let mut out = vec![0; n];
                    avx2.draws(seed, role, &playout, &step, &mut out);
                    for i in 0..n {
                        let want = rng::draw(seed, playout[i], step[i], role);
                        assert_eq!(out[i], want, "seed {seed} role {role} n {n} lane {i}");
                    }
                }
            }
        }
    }
}
