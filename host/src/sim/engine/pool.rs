//! Pools of blocks whose lanes are re-sorted by key before every step, so that the key
//! guards of the core phase ([`crate::sim::key`]) die in most blocks.
//!
//! A block of 512 random chess playouts holds its kings on about 38 squares in the middle
//! of the game, and the king-safety cones of every one of them run. A pool steps several
//! blocks in lockstep (all refilled together once every lane has finished) and, before
//! each step, sorts all its lanes by the member of a key group they hold, packing them
//! into the blocks in that order: a block then holds a few king squares, and finished lanes
//! gather in the last blocks, which stop stepping. The group sorted on is the one whose
//! key guards put the most operands at stake this step: guards whose run's other guard
//! is live somewhere in the pool (in chess, the king of the side to move).
//!
//! Moving a lane moves its latches (the bits of the latch slots; the other slots are
//! recomputed every step, and skipped runs' slots stay 0 in every lane) and its playout
//! counters; results do not depend on where a lane sits, as every draw is keyed by its
//! playout and step ([`propnet_netlist::rng`]).

use super::{set_bit, Engine, Outcome, RunSpec};
use crate::sim::choice::Isa;
use crate::sim::guard::NONE;
use crate::sim::probe::Probe;
use crate::sim::program::Program;
use crate::sim::queue::WorkQueue;
use std::cmp::Reverse;

/// Most lanes a pool holds (over all its blocks).
pub(in crate::sim) const MAX_POOL_LANES: usize = 8192;

/// Most slot bytes a pool's blocks may hold together (512 MiB).
const MAX_POOL_BYTES: usize = 512 << 20;

/// Lanes a pool for `prog` holds at most; 0 for a program without key guards (no pool).
pub(in crate::sim) fn pool_lanes(prog: &Program) -> usize {
    if prog.key_checks.is_empty() {
        0
    } else {
        MAX_POOL_LANES
    }
}

/// How many blocks of `lanes` lanes a pool for `prog` has when a thread is to run
/// `playouts` playouts; 1 (no pool) for a program without key guards.
pub(in crate::sim) fn pool_blocks(prog: &Program, lanes: usize, playouts: u64) -> usize {
    if prog.key_checks.is_empty() {
        return 1;
    }
    let by_bytes = MAX_POOL_BYTES / (prog.slots * lanes / 8).max(1);
    let by_work = usize::try_from(playouts / lanes as u64).unwrap_or(usize::MAX);
    (MAX_POOL_LANES / lanes).min(by_bytes).min(by_work).max(1)
}

/// Runs playouts taken from `work` on the pool `engines` until it is empty, adding their
/// results to `out`. Dispatches like [`Engine::run`].
pub(in crate::sim) fn run_pool<const W: usize, P: Probe>(
    engines: &mut [Engine<'_, W, P>],
    spec: &RunSpec<'_>,
    work: &WorkQueue,
    out: &mut Outcome,
) {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = crate::sim::avx2::Avx2::detect() {
        if std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
        {
            // SAFETY: the features `pool_x86_v3` is compiled for were detected above.
            #[allow(unsafe_code)]
            unsafe {
                pool_x86_v3(engines, spec, work, out, avx2)
            };
            return;
        }
    }
    pool_any(engines, spec, work, out, Isa::Portable);
}

/// [`run_pool`] compiled with AVX2, POPCNT and BMI1/2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
fn pool_x86_v3<const W: usize, P: Probe>(
    engines: &mut [Engine<'_, W, P>],
    spec: &RunSpec<'_>,
    work: &WorkQueue,
    out: &mut Outcome,
    avx2: crate::sim::avx2::Avx2,
) {
    pool_any(engines, spec, work, out, Isa::Avx2(avx2));
}

/// [`run_pool`] for any processor.
#[inline(always)]
fn pool_any<const W: usize, P: Probe>(
    engines: &mut [Engine<'_, W, P>],
    spec: &RunSpec<'_>,
    work: &WorkQueue,
    out: &mut Outcome,
    isa: Isa,
) {
    let Some(first) = engines.first() else {
        return;
    };
    let mut sorter = Sorter::new(first.prog, engines.len() * Engine::<W, P>::LANES);
    let mut cursor = work.cursor();
    loop {
        let mut any = false;
        for e in engines.iter_mut() {
            e.active = [0; W];
            any |= e.fill(&mut cursor, spec);
        }
        if !any {
            break;
        }
        loop {
            sorter.sort(engines);
            let mut stepped = false;
            for e in engines.iter_mut().filter(|e| e.is_active()) {
                e.step(spec, &mut cursor, out, isa, false);
                stepped = true;
            }
            if !stepped {
                break;
            }
        }
    }
    for e in engines.iter_mut() {
        e.flush(spec, out);
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
    /// Per lane of the pool: its sort key, then its latches at 1.
    keys: Vec<(u64, u32)>,
    held: Vec<Vec<u32>>,
    /// Per latch: 1 in some lane of the pool.
    live_latch: Vec<bool>,
    /// Per guard: some latch of it is live.
    live_guard: Vec<bool>,
}

impl Sorter {
    fn new(prog: &Program, lanes: usize) -> Self {
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
            keys: Vec::with_capacity(lanes),
            held: vec![Vec::new(); lanes],
            live_latch: vec![false; prog.latches],
            live_guard: vec![false; prog.guards.len()],
        }
    }

    /// The key group with the most operands at stake: key-guarded runs whose other
    /// guard is live somewhere in the pool (or that have none).
    fn group<const W: usize, P: Probe>(&mut self, engines: &[Engine<'_, W, P>]) -> usize {
        let prog = engines[0].prog;
        for (l, live) in self.live_latch.iter_mut().enumerate() {
            *live = engines.iter().any(|e| e.vals[l].iter().any(|&w| w != 0));
        }
        for (g, live) in self.live_guard.iter_mut().enumerate() {
            *live = prog.guards[g].iter().any(|&l| self.live_latch[l as usize]);
        }
        let mut stake = vec![0usize; prog.key_checks.len()];
        for run in &self.runs {
            if run.other == NONE || self.live_guard[run.other as usize] {
                stake[run.group] += run.operands;
            }
        }
        (0..stake.len())
            .max_by_key(|&q| (stake[q], Reverse(q)))
            .unwrap_or(0)
    }

    /// Sorts the pool's lanes by key (see the module doc).
    fn sort<const W: usize, P: Probe>(&mut self, engines: &mut [Engine<'_, W, P>]) {
        let lanes = Engine::<W, P>::LANES;
        let prog = engines[0].prog;
        let first = self.group(engines);
        let order: Vec<usize> = std::iter::once(first)
            .chain((0..prog.key_checks.len()).filter(|&q| q != first))
            .take(7)
            .collect();
        self.keys.clear();
        for (e, eng) in engines.iter().enumerate() {
            for lane in 0..lanes {
                let active = eng.active[lane / 64] >> (lane % 64) & 1 == 1;
                let key = if active { 0 } else { u64::MAX };
                self.keys.push((key, (e * lanes + lane) as u32));
            }
            for (rank, &q) in order.iter().enumerate() {
                let shift = 8 * (6 - rank);
                for (b, &l) in prog.key_checks[q].members.iter().enumerate() {
                    for (j, &w) in eng.vals[l as usize].iter().enumerate() {
                        let mut w = w;
                        while w != 0 {
                            let lane = 64 * j + w.trailing_zeros() as usize;
                            w &= w - 1;
                            let key = &mut self.keys[e * lanes + lane].0;
                            if *key != u64::MAX {
                                *key |= (b as u64 + 1) << shift;
                            }
                        }
                    }
                }
            }
        }
        self.keys.sort_unstable();
        if self.keys.iter().enumerate().all(|(p, k)| k.1 as usize == p) {
            return;
        }
        self.move_lanes(engines);
    }

    /// Moves the lane at pool position `keys[p].1` to position `p`, for every `p`.
    fn move_lanes<const W: usize, P: Probe>(&mut self, engines: &mut [Engine<'_, W, P>]) {
        let lanes = Engine::<W, P>::LANES;
        let latches = engines[0].prog.latches;
        for h in &mut self.held {
            h.clear();
        }
        for (e, eng) in engines.iter_mut().enumerate() {
            for l in 0..latches {
                let v = &mut eng.vals[l];
                for (j, w) in v.iter_mut().enumerate() {
                    let mut bits = std::mem::take(w);
                    while bits != 0 {
                        let lane = 64 * j + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        self.held[e * lanes + lane].push(l as u32);
                    }
                }
            }
        }
        let meta: Vec<LaneMeta> = (0..engines.len() * lanes)
            .map(|i| LaneMeta::of(&engines[i / lanes], i % lanes))
            .collect();
        let oldest = engines.iter().map(|e| e.oldest).max().unwrap_or(0);
        for eng in engines.iter_mut() {
            eng.active = [0; W];
            eng.oldest = oldest;
        }
        for (p, &(_, i)) in self.keys.iter().enumerate() {
            let (eng, lane) = (&mut engines[p / lanes], p % lanes);
            let bit = 1u64 << (lane % 64);
            for &l in &self.held[i as usize] {
                eng.vals[l as usize][lane / 64] |= bit;
            }
            meta[i as usize].put(eng, lane);
        }
        for eng in engines.iter_mut() {
            for l in 0..latches {
                let nonzero = eng.vals[l].iter().any(|&w| w != 0);
                if let Some(n) = eng.nonzero.get_mut(2 * l) {
                    *n = nonzero;
                }
            }
        }
    }
}

/// What a lane carries besides its latches.
#[derive(Clone, Copy)]
struct LaneMeta {
    active: bool,
    playout: u32,
    step: u32,
    job: u32,
    offset: u32,
    end: propnet_netlist::playout::PlayoutEnd,
}

impl LaneMeta {
    fn of<const W: usize, P: Probe>(e: &Engine<'_, W, P>, lane: usize) -> Self {
        LaneMeta {
            active: e.active[lane / 64] >> (lane % 64) & 1 == 1,
            playout: e.playout[lane],
            step: e.step[lane],
            job: e.job[lane],
            offset: e.offset[lane],
            end: e.end[lane],
        }
    }

    fn put<const W: usize, P: Probe>(&self, e: &mut Engine<'_, W, P>, lane: usize) {
        if self.active {
            set_bit(&mut e.active, lane);
        }
        e.playout[lane] = self.playout;
        e.step[lane] = self.step;
        e.job[lane] = self.job;
        e.offset[lane] = self.offset;
        e.end[lane] = self.end;
    }
}
