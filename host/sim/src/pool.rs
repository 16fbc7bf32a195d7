//! Pools of lanes re-sorted by key before every step, so that the key guards of the core
//! phase ([`crate::key`]) die in most block steps.
//!
//! A block of random chess playouts holds its kings on many squares in the middle of the
//! game, and the king-safety cones of every one of them run. A pool holds many blocks'
//! worth of lanes in a compact store (per lane: its latches as bits, its playout
//! counters, the member of each key group it holds) and steps them through **one** block
//! stepper: before each pool step it sorts its active lanes by the member of a key group
//! they hold, and the stepper steps them block by block in that order (each block's lanes
//! loaded into its latch slots, stepped, and read back). A block then holds a few king
//! squares, and the stepper's slots are one working set for every block instead of one
//! per block. The group sorted on is the one whose key guards put the most operands at
//! stake this step: guards whose run's other guard is live somewhere in the pool (in
//! chess, the king of the side to move). All lanes are refilled together once every lane
//! has finished. Figures: BENCHMARKS.md, "CPU simulator figures moved from module docs
//! (#39)".
//!
//! Only latches travel with a lane: every other slot is recomputed each step, and the
//! stepper's marks of skipped runs (`zeroed`) describe its slots whatever lanes they
//! hold. Results do not depend on where a lane is stepped, as every draw is keyed by its
//! playout and step ([`propnet_netlist::rng`]).

use crate::batch::{Outcome, RunSpec};
use crate::eval::Block;
use crate::isa::Isa;
use crate::probe::Probe;
use crate::program::NONE;
use crate::program::{Program, Schedule};
use crate::queue::Cursor;
use crate::record::for_each_lane;
use crate::stepper::{BlockStepper, Lane};
use std::cmp::Reverse;

/// Most lanes a pool holds, and the batch a program with key guards runs at full speed
/// ([`pool_lanes`]): the more lanes share each king square, the fewer squares a chess
/// block holds (BENCHMARKS.md, "CPU simulator figures moved from module docs (#39)").
pub const MAX_POOL_LANES: usize = 32_768;

/// Most bytes a pool's lane store may take (256 MiB).
const MAX_STORE_BYTES: usize = 256 << 20;

/// Lanes a pool for `prog` holds at most; 0 for a program that is not pooled
/// ([`Schedule::Pooled`]).
pub fn pool_lanes(prog: &Program) -> usize {
    if prog.schedule == Schedule::Pooled {
        MAX_POOL_LANES
    } else {
        0
    }
}

/// How many lanes a pool for `prog` stepped in blocks of `lanes` holds when a thread is to
/// run `playouts` playouts: enough for all of them (whole blocks) up to
/// [`MAX_POOL_LANES`] and the store's byte limit; `lanes` itself (no pool) for a program
/// that is not pooled or work for one block only.
pub fn pool_capacity(prog: &Program, lanes: usize, playouts: u64) -> usize {
    if prog.schedule != Schedule::Pooled {
        return lanes;
    }
    let per_lane = LaneStore::words(prog) * 8 + prog.key_checks.len() + 32;
    let by_bytes = MAX_STORE_BYTES / per_lane / lanes;
    let by_work = usize::try_from(playouts.div_ceil(lanes as u64)).unwrap_or(usize::MAX);
    lanes * (MAX_POOL_LANES / lanes).min(by_bytes).min(by_work).max(1)
}

/// A pool: its lanes, and the scratch of their sort.
pub struct Pool<'p> {
    prog: &'p Program,
    store: LaneStore,
    sorter: Sorter,
}

impl<'p> Pool<'p> {
    /// An empty pool of `capacity` lanes for `prog`'s playouts of the batch `spec`.
    pub fn new(prog: &'p Program, spec: &RunSpec<'_>, capacity: usize) -> Self {
        Pool {
            prog,
            store: LaneStore::new(prog, spec, capacity),
            sorter: Sorter::new(prog),
        }
    }

    /// Runs playouts taken from `cursor` through `stepper` until the queue is empty,
    /// adding their results to `out`.
    #[inline(always)]
    pub fn run<const W: usize, P: Probe>(
        &mut self,
        stepper: &mut BlockStepper<'_, W, P>,
        cursor: &mut Cursor<'_>,
        spec: &RunSpec<'_>,
        out: &mut Outcome,
        isa: Isa,
    ) {
        let lanes = BlockStepper::<W, P>::LANES;
        let Pool {
            prog,
            store,
            sorter,
        } = self;
        while store.fill(cursor, spec) {
            loop {
                sorter.sort(prog, store);
                if sorter.order.is_empty() {
                    break;
                }
                for chunk in sorter.order.chunks(lanes) {
                    store.load(stepper, chunk);
                    stepper.step(spec, out, isa);
                    // Nothing was started: this ends the step's refill phase (probe).
                    stepper.end_refill(spec);
                    store.save(prog, stepper, chunk);
                }
            }
        }
        stepper.flush(spec, out);
    }
}

/// The lanes of a pool: per lane its latches (bits), its counters and its key members.
struct LaneStore {
    /// Latches of the program.
    latches: usize,
    /// `u64` words of latch bits per lane.
    words: usize,
    /// Per lane, `words` words: bit `l` is latch `l`.
    bits: Vec<u64>,
    /// Per lane: what it carries besides its latches.
    meta: Vec<Lane>,
    /// Key groups of the program.
    groups: usize,
    /// Per lane, per key group: 1 + the member it holds (the first), or 0 for none.
    members: Vec<u8>,
    /// Per job: its start state as latch bits, and its key members.
    starts: Vec<(Vec<u64>, Vec<u8>)>,
}

impl LaneStore {
    /// Words of latch bits per lane for `prog`.
    fn words(prog: &Program) -> usize {
        prog.latches.div_ceil(64)
    }

    fn new(prog: &Program, spec: &RunSpec<'_>, capacity: usize) -> Self {
        let words = Self::words(prog);
        let groups = prog.key_checks.len();
        let starts = spec
            .starts
            .iter()
            .map(|start| {
                let mut bits = vec![0u64; words];
                for (l, _) in start.iter().enumerate().filter(|(_, &b)| b) {
                    bits[l / 64] |= 1 << (l % 64);
                }
                let members = prog
                    .key_checks
                    .iter()
                    .map(|c| {
                        c.members
                            .iter()
                            .position(|&l| start[l as usize])
                            .map_or(0, |b| b as u8 + 1)
                    })
                    .collect();
                (bits, members)
            })
            .collect();
        LaneStore {
            latches: prog.latches,
            words,
            bits: vec![0; capacity * words],
            meta: vec![Lane::IDLE; capacity],
            groups,
            members: vec![0; capacity * groups],
            starts,
        }
    }

    /// Loads the next playouts of the queue into every lane (all must be idle); false when
    /// the queue had none left.
    fn fill(&mut self, cursor: &mut Cursor<'_>, spec: &RunSpec<'_>) -> bool {
        let mut any = false;
        for p in 0..self.meta.len() {
            let Some((job, offset)) = cursor.take() else {
                break;
            };
            any = true;
            self.meta[p] = Lane::start(spec, job, offset);
            let (bits, members) = &self.starts[job as usize];
            self.bits[p * self.words..][..self.words].copy_from_slice(bits);
            self.members[p * self.groups..][..self.groups].copy_from_slice(members);
        }
        any
    }

    /// Puts the lanes `chunk` (store indices) into `stepper`'s lanes `0..chunk.len()`; its
    /// other lanes idle with every latch 0.
    fn load<const W: usize, P: Probe>(&self, stepper: &mut BlockStepper<'_, W, P>, chunk: &[u32]) {
        let words = self.words;
        stepper.load(chunk.iter().map(|&p| {
            let p = p as usize;
            (&self.bits[p * words..][..words], self.meta[p])
        }));
    }

    /// Takes back the lanes `chunk` from `stepper` after a step ([`Self::load`]).
    fn save<const W: usize, P: Probe>(
        &mut self,
        prog: &Program,
        stepper: &BlockStepper<'_, W, P>,
        chunk: &[u32],
    ) {
        let words = self.words;
        for &p in chunk {
            self.bits[p as usize * words..][..words].fill(0);
            self.members[p as usize * self.groups..][..self.groups].fill(0);
        }
        let mask: [u64; W] = std::array::from_fn(|j| {
            let n = chunk.len().saturating_sub(64 * j).min(64);
            if n == 64 {
                !0
            } else {
                (1u64 << n) - 1
            }
        });
        let latches = stepper.latches();
        let held = |l: usize| -> Block<W> { std::array::from_fn(|j| latches[l][j] & mask[j]) };
        for l in 0..self.latches {
            let (w, bit) = (l / 64, 1u64 << (l % 64));
            for_each_lane(&held(l), |lane| {
                self.bits[chunk[lane] as usize * words + w] |= bit;
            });
        }
        for (q, members) in prog.key_checks.iter().map(|c| &c.members).enumerate() {
            for (b, &l) in members.iter().enumerate().rev() {
                for_each_lane(&held(l as usize), |lane| {
                    self.members[chunk[lane] as usize * self.groups + q] = b as u8 + 1;
                });
            }
        }
        for (lane, &p) in chunk.iter().enumerate() {
            self.meta[p as usize] = stepper.lane(lane);
        }
    }
}

/// A core run guarded by a key guard: its key group, its other guard and its operands.
struct KeyRun {
    group: usize,
    other: u32,
    operands: usize,
}

/// Scratch and precomputed tables of the lane sort.
struct Sorter {
    /// Core runs with a key guard.
    runs: Vec<KeyRun>,
    /// Per active lane: its sort key and store index.
    keys: Vec<(u64, u32)>,
    /// The active lanes in sorted order.
    order: Vec<u32>,
    /// Per latch word: some active lane has a latch of it at 1.
    live_latch: Vec<u64>,
    /// Per guard: some latch of it is live.
    live_guard: Vec<bool>,
}

impl Sorter {
    fn new(prog: &Program) -> Self {
        let mut group_of = vec![usize::MAX; prog.guards.len()];
        for (q, check) in prog.key_checks.iter().enumerate() {
            for &g in &check.guards {
                group_of[g as usize] = q;
            }
        }
        let core = &prog.core;
        let mut runs = Vec::new();
        let mut k = 0;
        for (r, run) in core.runs.iter().enumerate() {
            let operands = core.run_operands(k, run);
            k += run.len as usize;
            let Some(&group) = group_of.get(run.guard as usize) else {
                continue;
            };
            if group != usize::MAX {
                let other = core.second_guards.get(r).copied().unwrap_or(NONE);
                runs.push(KeyRun {
                    group,
                    other,
                    operands,
                });
            }
        }
        Sorter {
            runs,
            keys: Vec::new(),
            order: Vec::new(),
            live_latch: vec![0; prog.latches.div_ceil(64)],
            live_guard: vec![false; prog.guards.len()],
        }
    }

    /// The key group with the most operands at stake: key-guarded runs whose other
    /// guard is live somewhere in the pool (or that have none).
    fn group(&mut self, prog: &Program, store: &LaneStore) -> usize {
        self.live_latch.fill(0);
        for (p, meta) in store.meta.iter().enumerate() {
            if meta.active {
                let bits = &store.bits[p * store.words..][..store.words];
                for (live, &w) in self.live_latch.iter_mut().zip(bits) {
                    *live |= w;
                }
            }
        }
        let live_latch = |l: u32| self.live_latch[l as usize / 64] >> (l % 64) & 1 == 1;
        for (live, latches) in self.live_guard.iter_mut().zip(&prog.guards) {
            *live = latches.iter().any(|&l| live_latch(l));
        }
        let mut stake = vec![0usize; store.groups];
        for run in &self.runs {
            if run.other == NONE || self.live_guard[run.other as usize] {
                stake[run.group] += run.operands;
            }
        }
        (0..stake.len())
            .max_by_key(|&q| (stake[q], Reverse(q)))
            .unwrap_or(0)
    }

    /// Sorts the store's active lanes by key into `order` (see the module doc).
    fn sort(&mut self, prog: &Program, store: &LaneStore) {
        let first = self.group(prog, store);
        let order: Vec<usize> = std::iter::once(first)
            .chain((0..store.groups).filter(|&q| q != first))
            .take(8)
            .collect();
        self.keys.clear();
        for (p, meta) in store.meta.iter().enumerate() {
            if meta.active {
                let members = &store.members[p * store.groups..][..store.groups];
                let key = order
                    .iter()
                    .fold(0u64, |key, &q| key << 8 | u64::from(members[q]));
                self.keys.push((key << (8 * (8 - order.len())), p as u32));
            }
        }
        self.keys.sort_unstable();
        self.order.clear();
        self.order.extend(self.keys.iter().map(|k| k.1));
    }
}
