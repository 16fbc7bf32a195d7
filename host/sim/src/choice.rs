//! Move choice for one role in every live lane of a block, bit-identical to
//! [`propnet_netlist::playout`]: lane `l` takes the `k`-th of its legal moves in the role's
//! legal order, `k = choose(draw(seed, playout, step, role), count)`.
//!
//! Two ways, by the role's number `n` of legal entries in the netlist:
//! - **bit-sliced** (`2 ≤ n ≤` [`SLICED_MAX`]): the lanes' legal counts are kept as bit
//!   planes (plane `p` = bit `p` of every lane's count) and counted by ripple-carry
//!   increments of whole words; the draw and the multiply-shift pick run 16 lanes at a
//!   time (portable; groups whose lanes all have fewer than two moves skip the draw) or,
//!   on x86-64 with AVX2 ([`Isa::Avx2`], [`crate::avx2`]), only for the lanes with two or
//!   more moves, packed densely and drawn 32 at a time; the pick `k` goes back into bit
//!   planes, and one more pass over the legal words counts `k` down
//!   and takes, per move, the lanes where it reaches zero. Per move the word work is
//!   `O(log n)`, with no per-lane loop at all outside the draw.
//! - **transpose** (`n >` [`SLICED_MAX`]): tiles of 64 legal entries × 64 lanes become
//!   sparse per-lane move sets (only the 64-entry chunks where the lane has a legal move:
//!   dense tiles bit-transposed, sparse ones scattered bit by bit); a lane's count is a few
//!   popcounts and its `k`-th move a broadword select. Tiles holding no legal move cost
//!   their reads only, and entries computed by core runs the skip guards zeroed this step
//!   are not read ([`KnownZero`]; chess: all of the side not to move's but its `noop`).
//!
//! A role with one entry is decided by word operations alone; with none every live lane is
//! stuck. Lanes with no legal move are reported in `stuck`; the caller ends them.

use crate::bits::{select64, transpose64};
use crate::draw::{draws, threefry_lanes, LaneCounters};
use crate::eval::{read, Block};
use crate::isa::Isa;
use crate::probe::{Probe, SimPhase};
use crate::program::NONE;
use crate::program::{slot, Operand};
use propnet_netlist::rng::{self, choose};

/// Roles with at most this many legal entries take the bit-sliced path.
pub const SLICED_MAX: usize = 255;
const _: () = assert!(
    SLICED_MAX < 256,
    "k and counts of the sliced path are packed in bytes"
);
const _: () = assert!(
    SLICED_MAX < propnet_sim_program::sums::AUTO_MIN_ROLE_MOVES,
    "input sums count the inputs of roles whose set moves the choice lists"
);

/// Bit planes needed to hold every count `0..=n`.
#[inline(always)]
fn planes_for(n: usize) -> usize {
    (usize::BITS - n.leading_zeros()) as usize
}

/// Adds `bit` (one bit per lane) to the bit-sliced counter `planes` (no overflow: the
/// caller gives enough planes for the largest count).
#[inline(always)]
fn increment<const W: usize>(planes: &mut [Block<W>], bit: &Block<W>) {
    let mut carry = *bit;
    for p in planes {
        for j in 0..W {
            let c = p[j] & carry[j];
            p[j] ^= carry[j];
            carry[j] = c;
        }
    }
}

/// Subtracts `bit` (one bit per lane) from the bit-sliced counter `planes`, wrapping.
#[inline(always)]
fn decrement<const W: usize>(planes: &mut [Block<W>], bit: &Block<W>) {
    let mut borrow = *bit;
    for p in planes {
        for j in 0..W {
            let b = !p[j] & borrow[j];
            p[j] ^= borrow[j];
            borrow[j] = b;
        }
    }
}

/// Scratch buffers of the move choice, sized once per block stepper.
pub struct ChoiceScratch {
    /// Of the transpose path.
    pub transpose: TransposeScratch,
    /// Dense draw buffers of the AVX2 sliced path.
    #[cfg(target_arch = "x86_64")]
    pub dense: crate::avx2::DenseDraws,
}

impl ChoiceScratch {
    /// Buffers for `lanes` lanes and roles of up to `max_moves` legal entries.
    pub fn new(lanes: usize, max_moves: usize) -> Self {
        ChoiceScratch {
            transpose: TransposeScratch::new(lanes, max_moves),
            #[cfg(target_arch = "x86_64")]
            dense: crate::avx2::DenseDraws::new(lanes),
        }
    }
}

/// Scratch buffers of the transpose path, sized once per block stepper.
///
/// A lane's legal moves are kept sparsely: the 64-entry chunks of the role's legal list
/// in which it has some legal move, in chunk order, each with its 64-bit move set. Only
/// those are written, so the memory a step touches grows with the legal moves, not with
/// the role's entries (amazons: 2,719 chunks, of which a lane has a few hundred).
pub struct TransposeScratch {
    /// Entries per lane (the role's chunk count): lane `l`'s entries start at `l * cap`.
    cap: usize,
    /// Per entry: the chunk index.
    chunk: Vec<u32>,
    /// Per entry: bit `i` set when move `64 * chunk + i` is legal in the lane.
    bits: Vec<u64>,
    /// Per lane: its number of entries.
    len: Vec<u32>,
    /// Per lane: its legal count (the set bits of its entries).
    pub cnt: Vec<u32>,
    /// Lanes needing a draw, and their counters and draws.
    pub need_lane: Vec<u32>,
    /// Playout index of each lane in `need_lane`.
    pub need_playout: Vec<u32>,
    /// Step of each lane in `need_lane`.
    pub need_step: Vec<u32>,
    /// Draw of each lane in `need_lane`.
    pub need_draw: Vec<u32>,
}

impl TransposeScratch {
    /// Buffers for `lanes` lanes and roles of up to `max_moves` legal entries.
    pub fn new(lanes: usize, max_moves: usize) -> Self {
        let cap = if max_moves > SLICED_MAX {
            max_moves.div_ceil(64)
        } else {
            0
        };
        TransposeScratch {
            cap,
            chunk: vec![0; lanes * cap],
            bits: vec![0; lanes * cap],
            len: vec![0; lanes],
            cnt: vec![0; lanes],
            need_lane: Vec::with_capacity(lanes),
            need_playout: Vec::with_capacity(lanes),
            need_step: Vec::with_capacity(lanes),
            need_draw: Vec::with_capacity(lanes),
        }
    }

    /// Appends the entry (`chunk`, `bits`) to `lane`'s set.
    #[inline(always)]
    fn push(&mut self, lane: usize, chunk: usize, bits: u64) {
        let e = lane * self.cap + self.len[lane] as usize;
        self.chunk[e] = chunk as u32;
        self.bits[e] = bits;
        self.len[lane] += 1;
        self.cnt[lane] += bits.count_ones();
    }

    /// Sets bit `bit` (not yet set) of `lane`'s last entry.
    #[inline(always)]
    fn or_last(&mut self, lane: usize, bit: u64) {
        let e = lane * self.cap + self.len[lane] as usize - 1;
        self.bits[e] |= bit;
        self.cnt[lane] += 1;
    }

    /// `lane`'s entries: chunk indices and move sets.
    #[inline(always)]
    fn entries(&self, lane: usize) -> (&[u32], &[u64]) {
        let (a, b) = (lane * self.cap, lane * self.cap + self.len[lane] as usize);
        (&self.chunk[a..b], &self.bits[a..b])
    }
}

/// The legal entries known to be 0 in every lane without reading their slots: those
/// computed by a core run that the skip guards skipped this step (its slots are zeroed,
/// [`crate::eval::run_guarded`]).
#[derive(Clone, Copy, Debug)]
pub struct KnownZero<'a> {
    /// Per legal entry of the role: the core run whose slots hold it, or [`NONE`] (a
    /// negated operand, or not a core instruction).
    pub runs: &'a [u32],
    /// Per core run: its slots are 0 from a skip.
    pub zeroed: &'a [bool],
}

impl KnownZero<'_> {
    /// Whether legal entry `m` is known to be 0 in every lane.
    #[inline(always)]
    fn get(&self, m: usize) -> bool {
        match self.runs.get(m) {
            Some(&r) if r != NONE => self.zeroed[r as usize],
            _ => false,
        }
    }
}

/// Picks the role's move in every `live` lane and sets its input slot (input slots must be
/// zero for the live lanes on entry); lanes without a legal move are set in `stuck`. A
/// role of more than [`SLICED_MAX`] entries (transpose path) appends each move it sets to
/// `set` as (input, lane) and does not read the entries `zero` knows to be 0; a smaller
/// role's moves are not listed (the caller takes all its inputs).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn choose_moves<const W: usize, P: Probe>(
    vals: &mut [Block<W>],
    legal: &[(Operand, u32)],
    zero: KnownZero<'_>,
    input_base: usize,
    live: &Block<W>,
    stuck: &mut Block<W>,
    ctr: &LaneCounters<'_>,
    (scratch, set): (&mut ChoiceScratch, &mut Vec<(u32, u32)>),
    probe: &mut P,
    isa: Isa,
) {
    match legal.len() {
        0 => *stuck = *live,
        1 => {
            let (op, input) = legal[0];
            let v = read(vals, op);
            let s = input_base + input as usize;
            for j in 0..W {
                vals[s][j] |= v[j] & live[j];
                stuck[j] = live[j] & !v[j];
            }
            probe.end_phase(SimPhase::Choice);
        }
        n if n <= SLICED_MAX => {
            let args = (vals, legal, input_base, live, stuck, ctr, probe);
            let pick = (isa, &mut *scratch);
            // The plane count is a constant in each copy, so the planes live in registers.
            match planes_for(n) {
                2 => sliced::<W, 2, P>(args, pick),
                3 => sliced::<W, 3, P>(args, pick),
                4 => sliced::<W, 4, P>(args, pick),
                5 => sliced::<W, 5, P>(args, pick),
                6 => sliced::<W, 6, P>(args, pick),
                7 => sliced::<W, 7, P>(args, pick),
                _ => sliced::<W, 8, P>(args, pick),
            }
        }
        _ => {
            let args = (vals, (legal, zero), (input_base, set), live, stuck, ctr);
            let rest = (&mut scratch.transpose, probe);
            match isa {
                Isa::Portable => transposed_portable(args, rest),
                #[cfg(target_arch = "x86_64")]
                // SAFETY: an `Isa::Avx2` is made only where `Avx2::detect` found AVX2,
                // POPCNT and BMI1/2, the features `transposed_avx2` is compiled for.
                #[allow(unsafe_code)]
                Isa::Avx2(_) => unsafe { transposed_avx2(args, rest, isa) },
            }
        }
    }
}

/// The moves a choice set, as (input, lane).
type SetMoves = Vec<(u32, u32)>;

/// The arguments of [`transposed`]: values, legal entries and what zero knows, first input
/// slot and the moves set (out), live lanes, stuck lanes (out), RNG counters.
type TransposedArgs<'a, 'c, const W: usize> = (
    &'a mut [Block<W>],
    (&'a [(Operand, u32)], KnownZero<'a>),
    (usize, &'a mut Vec<(u32, u32)>),
    &'a Block<W>,
    &'a mut Block<W>,
    &'a LaneCounters<'c>,
);

/// [`transposed`] out of line, portable: only roles of hundreds of entries take this
/// path, and the stepper's copy stays as small as the other games need.
#[inline(never)]
fn transposed_portable<const W: usize, P: Probe>(
    (vals, legal, io, live, stuck, ctr): TransposedArgs<'_, '_, W>,
    (sets, probe): (&mut TransposeScratch, &mut P),
) {
    transposed(
        vals,
        legal,
        io,
        live,
        stuck,
        ctr,
        sets,
        probe,
        Isa::Portable,
    );
}

/// [`transposed_portable`] compiled for AVX2, POPCNT and BMI1/2 (`isa` is
/// [`Isa::Avx2`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
#[inline(never)]
fn transposed_avx2<const W: usize, P: Probe>(
    (vals, legal, io, live, stuck, ctr): TransposedArgs<'_, '_, W>,
    (sets, probe): (&mut TransposeScratch, &mut P),
    isa: Isa,
) {
    transposed(vals, legal, io, live, stuck, ctr, sets, probe, isa);
}

/// The arguments of [`sliced`]: values, legal entries, first input slot, live lanes,
/// stuck lanes (out), RNG counters, probe.
type SlicedArgs<'a, 'c, const W: usize, P> = (
    &'a mut [Block<W>],
    &'a [(Operand, u32)],
    usize,
    &'a Block<W>,
    &'a mut Block<W>,
    &'a LaneCounters<'c>,
    &'a mut P,
);

/// The bit-sliced path of [`choose_moves`], with `B` planes (`B = planes_for(n)`).
#[inline(always)]
fn sliced<const W: usize, const B: usize, P: Probe>(
    args: SlicedArgs<'_, '_, W, P>,
    (isa, scratch): (Isa, &mut ChoiceScratch),
) {
    let (vals, legal, input_base, live, stuck, ctr, probe) = args;
    // 1. Count: cnt[p] = bit p of each lane's number of legal moves.
    let mut cnt = [[0u64; W]; B];
    for &(op, _) in legal {
        let v = read(vals, op);
        let bit: Block<W> = std::array::from_fn(|j| v[j] & live[j]);
        increment(&mut cnt, &bit);
    }
    let mut any = [0u64; W];
    let mut many = [0u64; W];
    for (p, c) in cnt.iter().enumerate() {
        for j in 0..W {
            any[j] |= c[j];
            if p > 0 {
                many[j] |= c[j];
            }
        }
    }
    for j in 0..W {
        stuck[j] = live[j] & !any[j];
    }
    probe.end_phase(SimPhase::LegalCount);
    // 2. Draw and pick k for lanes with two or more moves; k = 0 elsewhere.
    let k = match isa {
        Isa::Portable => pick_planes(&cnt, &many, ctr),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2(avx2) => avx2.pick_planes(&cnt, &many, ctr, &mut scratch.dense),
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = scratch;
    probe.end_phase(SimPhase::Rng);
    // 3. Select by counting down: `rem` starts at k and drops by one at each legal move;
    // a lane takes the legal move at which `rem` is zero. Past it `rem` wraps to all ones
    // and, with fewer than 2^B legal moves left, never reaches zero again.
    let mut rem = k;
    for &(op, input) in legal {
        let v = read(vals, op);
        let bit: Block<W> = std::array::from_fn(|j| v[j] & live[j]);
        let mut nonzero = [0u64; W];
        for plane in &rem {
            for j in 0..W {
                nonzero[j] |= plane[j];
            }
        }
        let s = &mut vals[input_base + input as usize];
        for j in 0..W {
            s[j] |= bit[j] & !nonzero[j];
        }
        decrement(&mut rem, &bit);
    }
    probe.end_phase(SimPhase::Choice);
}

/// The `N` per-lane values of `v` from lane `first` on.
#[inline(always)]
fn lanes_of<const N: usize>(v: &[u32], first: usize) -> &[u32; N] {
    v[first..first + N]
        .try_into()
        .expect("a slice of N lanes is N long")
}

/// Lanes drawn together by [`pick_planes`]: two independent 8-lane Threefry chains, so one
/// chain's round latency hides behind the other's.
const PICK: usize = 16;

/// Bit planes of `k = choose(draw, count)` per lane (zero where `many` is clear), from the
/// count planes `cnt`. Draws run [`PICK`] lanes at a time; groups with no lane in `many`
/// are skipped.
#[inline(always)]
fn pick_planes<const W: usize, const B: usize>(
    cnt: &[Block<W>; B],
    many: &Block<W>,
    ctr: &LaneCounters<'_>,
) -> [Block<W>; B] {
    let ks = rng::key_schedule(rng::key(ctr.seed));
    let mut k = [[0u64; W]; B];
    for j in 0..W {
        let need = many[j];
        for group in 0..64 / PICK {
            let o = PICK * group;
            if (need >> o) & ((1u64 << (PICK - 1)) * 2 - 1) == 0 {
                continue;
            }
            let lane0 = 64 * j + o;
            let mut c = [0u32; PICK];
            for (p, plane) in cnt.iter().enumerate() {
                let bits = (plane[j] >> o) as u32;
                for (i, ci) in c.iter_mut().enumerate() {
                    *ci |= ((bits >> i) & 1) << p;
                }
            }
            // One bounds check per group, then plain vector loads.
            let playout: &[u32; PICK] = lanes_of(ctr.playout, lane0);
            let step: &[u32; PICK] = lanes_of(ctr.step, lane0);
            let x0 = *playout;
            let x1: [u32; PICK] = std::array::from_fn(|i| (step[i] << 8) | (ctr.role & 0xff));
            let x = threefry_lanes(ks, x0, x1);
            let kk: [u32; PICK] = std::array::from_fn(|i| choose(x[i], c[i]));
            // k < count <= SLICED_MAX fits a byte: lane 8q + i's k is byte i of `bytes[q]`, and
            // plane p's 8 bits are the bytes' bit p, gathered by one multiplication.
            let bytes: [u64; PICK / 8] = std::array::from_fn(|q| {
                u64::from_le_bytes(std::array::from_fn(|i| kk[8 * q + i] as u8))
            });
            let gather = |x: u64, p: usize| {
                (((x >> p) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080)) >> 56
            };
            for (p, plane) in k.iter_mut().enumerate() {
                let mut bits = 0u64;
                for (q, &b) in bytes.iter().enumerate() {
                    bits |= gather(b, p) << (8 * q);
                }
                plane[j] |= bits << o;
            }
        }
    }
    k
}

/// The transpose path of [`choose_moves`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn transposed<const W: usize, P: Probe>(
    vals: &mut [Block<W>],
    (legal, zero): (&[(Operand, u32)], KnownZero<'_>),
    (input_base, set): (usize, &mut Vec<(u32, u32)>),
    live: &Block<W>,
    stuck: &mut Block<W>,
    ctr: &LaneCounters<'_>,
    scratch: &mut TransposeScratch,
    probe: &mut P,
    isa: Isa,
) {
    lane_sets(vals, legal, zero, live, scratch);
    count_sets(vals, (legal, input_base, set), live, stuck, ctr, scratch);
    probe.end_phase(SimPhase::LegalCount);
    if scratch.need_lane.is_empty() {
        return;
    }
    let n = scratch.need_lane.len();
    scratch.need_draw.resize(n, 0);
    let TransposeScratch {
        need_playout,
        need_step,
        need_draw,
        ..
    } = &mut *scratch;
    match isa {
        Isa::Portable => draws(ctr.seed, ctr.role, need_playout, need_step, need_draw),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2(avx2) => avx2.draws(ctr.seed, ctr.role, need_playout, need_step, need_draw),
    }
    probe.end_phase(SimPhase::Rng);
    for q in 0..n {
        let lane = scratch.need_lane[q] as usize;
        let k = choose(scratch.need_draw[q], scratch.cnt[lane]);
        let (chunks, bits) = scratch.entries(lane);
        let input = legal[select_in(chunks, bits, k)].1;
        vals[input_base + input as usize][lane / 64] |= 1 << (lane % 64);
        set.push((input, lane as u32));
    }
    probe.end_phase(SimPhase::Choice);
}

/// Tiles (64 entries × 64 lanes) holding at least this many legal moves are bit-transposed;
/// sparser ones are read bit by bit.
const DENSE_TILE: u32 = 16;

/// The sparse legal move sets of the `live` lanes ([`TransposeScratch`]). Per tile of 64
/// entries × 64 lanes: an empty tile costs its reads only; a dense one
/// ([`DENSE_TILE`]) is bit-transposed into per-lane sets; a sparse one is scattered bit by
/// bit. Entries `zero` knows are not read (chess: every entry of the side not to move but
/// its `noop`).
#[inline(always)]
fn lane_sets<const W: usize>(
    vals: &[Block<W>],
    legal: &[(Operand, u32)],
    zero: KnownZero<'_>,
    live: &Block<W>,
    sets: &mut TransposeScratch,
) {
    for (j, &word) in live.iter().enumerate() {
        let mut w = word;
        while w != 0 {
            let lane = 64 * j + w.trailing_zeros() as usize;
            (sets.len[lane], sets.cnt[lane]) = (0, 0);
            w &= w - 1;
        }
    }
    for (c, part) in legal.chunks(64).enumerate() {
        let mut read = [(0, 0); 64];
        let mut n = 0;
        for (i, &(op, _)) in part.iter().enumerate() {
            if !zero.get(64 * c + i) {
                read[n] = (i, op);
                n += 1;
            }
        }
        let read = &read[..n];
        for j in 0..W {
            if live[j] == 0 {
                continue;
            }
            let mut rows = [0u64; 64];
            let (mut any, mut ones) = (0, 0);
            for &(i, op) in read {
                let v = (vals[slot(op)][j] ^ 0u64.wrapping_sub(u64::from(op & 1))) & live[j];
                rows[i] = v;
                any |= v;
                ones += v.count_ones();
            }
            if any == 0 {
                continue;
            }
            if ones >= DENSE_TILE {
                // Afterwards rows[b] is lane b's set, nonzero exactly for the lanes in `any`.
                transpose64(&mut rows);
                let mut lanes = any;
                while lanes != 0 {
                    let b = lanes.trailing_zeros() as usize;
                    lanes &= lanes - 1;
                    sets.push(64 * j + b, c, rows[b]);
                }
            } else {
                let mut started = 0u64;
                for &(i, _) in read {
                    let mut v = rows[i];
                    while v != 0 {
                        let b = v.trailing_zeros() as usize;
                        v &= v - 1;
                        if started >> b & 1 == 0 {
                            started |= 1 << b;
                            sets.push(64 * j + b, c, 1 << i);
                        } else {
                            sets.or_last(64 * j + b, 1 << i);
                        }
                    }
                }
            }
        }
    }
}

/// Counts each `live` lane's legal moves from its set ([`lane_sets`]): a lane with
/// one takes it (its input slot set, the move appended to `set`), a lane with none is
/// `stuck`, and a lane with more is queued for a draw (`need_*` of `scratch`, counts in
/// `cnt`).
#[inline(always)]
fn count_sets<const W: usize>(
    vals: &mut [Block<W>],
    (legal, input_base, set): (&[(Operand, u32)], usize, &mut SetMoves),
    live: &Block<W>,
    stuck: &mut Block<W>,
    ctr: &LaneCounters<'_>,
    scratch: &mut TransposeScratch,
) {
    scratch.need_lane.clear();
    scratch.need_playout.clear();
    scratch.need_step.clear();
    for (j, &word) in live.iter().enumerate() {
        let mut w = word;
        while w != 0 {
            let lane = 64 * j + w.trailing_zeros() as usize;
            w &= w - 1;
            let n = scratch.cnt[lane];
            if n >= 2 {
                scratch.need_lane.push(lane as u32);
                scratch.need_playout.push(ctr.playout[lane]);
                scratch.need_step.push(ctr.step[lane]);
            } else if n == 1 {
                let (chunks, bits) = scratch.entries(lane);
                let m = 64 * chunks[0] as usize + bits[0].trailing_zeros() as usize;
                let input = legal[m].1;
                vals[input_base + input as usize][lane / 64] |= 1 << (lane % 64);
                set.push((input, lane as u32));
            } else {
                stuck[lane / 64] |= 1 << (lane % 64);
            }
        }
    }
}

/// The `k`-th move (0-based) of the sparse move set (`chunks`, `bits`) (`k` below its
/// size).
#[inline(always)]
fn select_in(chunks: &[u32], bits: &[u64], mut k: u32) -> usize {
    for (&c, &w) in chunks.iter().zip(bits) {
        let ones = w.count_ones();
        if k < ones {
            return 64 * c as usize + select64(w, k) as usize;
        }
        k -= ones;
    }
    unreachable!("k is below the set's size")
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "x86_64")]
    use crate::avx2::Avx2;
    use crate::bits::tests::mix;

    /// Count planes of random per-lane counts below `2^B` (word 1 of the block has every
    /// count at most 1, so no lane there needs a draw), and their `many` mask.
    fn random_counts<const W: usize, const B: usize>(seed: u64) -> ([Block<W>; B], Block<W>) {
        let mut cnt = [[0u64; W]; B];
        let mut many = [0u64; W];
        for lane in 0..64 * W {
            let r = mix(seed * 1000 + lane as u64);
            let c = match r % 4 {
                _ if W > 1 && lane / 64 == 1 => r >> 8 & 1,
                0 => r >> 8 & 1,
                _ => (r >> 8) % (1 << B),
            };
            for (p, plane) in cnt.iter_mut().enumerate() {
                plane[lane / 64] |= (c >> p & 1) << (lane % 64);
            }
            many[lane / 64] |= u64::from(c >= 2) << (lane % 64);
        }
        (cnt, many)
    }

    #[cfg(target_arch = "x86_64")]
    fn avx2_equals_portable<const W: usize, const B: usize>() {
        let Some(avx2) = Avx2::detect() else {
            eprintln!("skipped: this processor has no AVX2");
            return;
        };
        let mut dense = crate::avx2::DenseDraws::new(64 * W);
        for seed in 0..6u64 {
            let (cnt, many) = random_counts::<W, B>(seed);
            let lanes = 64 * W as u32;
            let playout: Vec<u32> = (0..lanes)
                .map(|l| mix(seed ^ u64::from(l)) as u32)
                .collect();
            let step: Vec<u32> = (0..lanes)
                .map(|l| (l * 7 + seed as u32) % (1 << 24))
                .collect();
            let ctr = LaneCounters {
                seed: mix(seed + 77),
                role: [0, 1, 5, 255][seed as usize % 4],
                playout: &playout,
                step: &step,
            };
            let want = pick_planes(&cnt, &many, &ctr);
            let got = avx2.pick_planes(&cnt, &many, &ctr, &mut dense);
            assert_eq!(got, want, "W={W} B={B} seed {seed}");
            // And both are k = choose(draw, count) where a lane has two or more moves.
            for lane in 0..64 * W {
                let (j, b) = (lane / 64, lane % 64);
                let count: u32 = (0..B).map(|p| ((cnt[p][j] >> b & 1) as u32) << p).sum();
                let k: u32 = (0..B).map(|p| ((got[p][j] >> b & 1) as u32) << p).sum();
                let x = propnet_netlist::rng::draw(ctr.seed, playout[lane], step[lane], ctr.role);
                let expect = if count >= 2 { choose(x, count) } else { 0 };
                assert_eq!(k, expect, "W={W} B={B} seed {seed} lane {lane}");
            }
        }
    }

    /// The AVX2 pick equals the portable one (and the scalar rule) for every plane count
    /// and lane width, with lanes of 0, 1 and up to 255 moves and words needing no draw.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_pick_equals_portable() {
        avx2_equals_portable::<1, 2>();
        avx2_equals_portable::<1, 8>();
        avx2_equals_portable::<2, 3>();
        avx2_equals_portable::<4, 5>();
        avx2_equals_portable::<8, 2>();
        avx2_equals_portable::<8, 3>();
        avx2_equals_portable::<8, 4>();
        avx2_equals_portable::<8, 6>();
        avx2_equals_portable::<8, 7>();
        avx2_equals_portable::<8, 8>();
    }
}
