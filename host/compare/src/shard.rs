//! Sharding a comparison over the tasks of a job array (`propnet compare … --shard K/N`):
//! which (game, reasoner) cells each task measures, and the identity of the sweep that
//! [`super::merge`] checks before it puts the shards' reports together.
//!
//! The plan is a pure function of the sweep's arguments and the game files' sizes, so
//! every task computes the same plan without talking to the others. Whole games are
//! placed first, most expensive first, each on the least loaded task (Graham's LPT rule,
//! "Bounds on multiprocessing timing anomalies", SIAM J. Appl. Math. 1969); then single
//! cells move from the most loaded task to the least loaded one while that lowers the
//! larger of the two estimates, the receiving task paying the game's compile again. So a
//! game's cells stay on one task unless splitting it balances the sweep (one huge game,
//! idle tasks).

use crate::reasoner::Reasoner;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Most shards a sweep may have.
pub const MAX_SHARDS: u32 = 100_000;

/// Task `index` of `count` (`K/N`, K from 0 like `$SLURM_ARRAY_TASK_ID` of `--array=0-…`
/// and a Kubernetes Job's completion index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardSpec {
    /// This task, `0..count`.
    pub index: u32,
    /// Tasks of the sweep.
    pub count: u32,
}

/// A `--shard` value that is not `K/N` with `0 <= K < N <= MAX_SHARDS`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "--shard {0}: expected K/N, N tasks (1 to {MAX_SHARDS}) and K this one, counted from 0 \
     (0/3, 1/3, 2/3), as $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT of `sbatch --array=0-2` \
     or $JOB_COMPLETION_INDEX of a Kubernetes Indexed Job give it"
)]
pub struct ShardSpecError(String);

impl FromStr for ShardSpec {
    type Err = ShardSpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ShardSpecError(s.to_string());
        let (k, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let whole = |t: &str| {
            let t = t.trim();
            // Digits only: no sign, no `+1`, no `0x`.
            (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
                .then(|| t.parse::<u32>().ok())
                .flatten()
        };
        let (index, count) = (whole(k).ok_or_else(bad)?, whole(n).ok_or_else(bad)?);
        if count == 0 || count > MAX_SHARDS || index >= count {
            return Err(bad());
        }
        Ok(ShardSpec { index, count })
    }
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// What one sample of a cell costs: seconds, or a fixed number of playouts for the
/// built-in reasoners (external ones always run for the seconds: gdl-perf's convention
/// has no playout count).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Seconds per sample.
    pub seconds: f64,
    /// Playouts per sample of a built-in reasoner, instead of the seconds.
    pub playouts: Option<u64>,
}

/// A game as the planner sees it: the bytes of its rules (the only size known before
/// compiling it, which is what a shard that does not measure it saves).
#[derive(Clone, Copy, Debug)]
pub struct GameSize {
    /// Bytes of the rule file (0 when unreadable: the game then fails fast anyway).
    pub bytes: u64,
}

/// Estimated seconds to compile a game of `bytes` bytes of rules and prepare it: grounding
/// grows faster than the text, so quadratically here (tic-tac-toe, 2 KB: a few ms;
/// chess, 30 KB: tens of seconds). A rough model: it only has to rank and balance.
fn prepare_seconds(g: GameSize) -> f64 {
    let kb = g.bytes as f64 / 1000.0;
    0.05 + 0.05 * kb * kb
}

/// Estimated seconds of one cell's measurement: its samples (and the gate, counted as one
/// more sample). With a playout budget, a playout is taken to cost time proportional to
/// the rules' size, divided by how fast the reasoner is relative to the interpreter
/// (netlist reasoners about a hundred times faster per thread).
fn measure_seconds(r: &Reasoner, g: GameSize, budget: Budget, samples: u32, threads: usize) -> f64 {
    let speed = match r {
        Reasoner::Interp => Some(1.0),
        Reasoner::Reference => Some(10.0),
        Reasoner::Cpu(k) => Some(100.0 * k.unwrap_or(threads).max(1) as f64),
        Reasoner::Gpu => Some(1000.0),
        Reasoner::External(_) => None,
    };
    let per_sample = match (budget.playouts, speed) {
        (Some(n), Some(speed)) => n as f64 * (g.bytes.max(1) as f64 * 1e-7) / speed,
        _ => budget.seconds,
    };
    per_sample * f64::from(samples)
}

/// The shard of every cell, in cell order (game-major: cell `g * reasoners.len() + r`),
/// for `count` shards. Deterministic: the same inputs give the same plan on every task.
///
/// Whole games first, most expensive first, each on the least loaded shard (LPT); then,
/// while it lowers the larger of the two loads, one cell moves from the most loaded shard
/// to the least loaded one, paying the game's compile there if that shard does not hold
/// the game yet (so one huge game is split over idle shards, many small ones are not).
pub fn plan(
    games: &[GameSize],
    reasoners: &[Reasoner],
    budget: Budget,
    samples: u32,
    threads: usize,
    count: u32,
) -> Vec<u32> {
    let n = count.max(1) as usize;
    let nr = reasoners.len();
    let cost: Vec<f64> = (games.iter())
        .flat_map(|g| {
            (reasoners.iter()).map(move |r| measure_seconds(r, *g, budget, samples, threads))
        })
        .collect();
    let prep: Vec<f64> = games.iter().map(|g| prepare_seconds(*g)).collect();
    let mut shard_of = vec![0u32; cost.len()];
    let total = |g: usize| prep[g] + cost[g * nr..(g + 1) * nr].iter().sum::<f64>();
    let mut order: Vec<usize> = (0..games.len()).collect();
    // Most expensive first; ties in game order (a stable sort keeps it).
    order.sort_by(|&a, &b| total(b).total_cmp(&total(a)));
    let mut load = vec![0.0f64; n];
    for g in order {
        let best = argmin(&load);
        load[best] += total(g);
        shard_of[g * nr..(g + 1) * nr].fill(best as u32);
    }
    for _ in 0..cost.len() * n {
        if !move_one_cell(&mut shard_of, &cost, &prep, nr, n) {
            break;
        }
    }
    shard_of
}

/// The first index of the smallest value.
fn argmin(v: &[f64]) -> usize {
    (0..v.len())
        .min_by(|&a, &b| v[a].total_cmp(&v[b]))
        .unwrap_or(0)
}

/// Each shard's estimated seconds: its cells' measurements and one compile per game.
fn loads(shard_of: &[u32], cost: &[f64], prep: &[f64], nr: usize, n: usize) -> Vec<f64> {
    let mut load = vec![0.0; n];
    for (g, p) in prep.iter().enumerate() {
        let mut held = vec![false; n];
        for c in g * nr..(g + 1) * nr {
            let s = shard_of[c] as usize;
            load[s] += cost[c] + if held[s] { 0.0 } else { *p };
            held[s] = true;
        }
    }
    load
}

/// Moves the cell of the most loaded shard whose move to the least loaded one lowers the
/// larger of their two loads most; `false` when no move lowers it.
fn move_one_cell(shard_of: &mut [u32], cost: &[f64], prep: &[f64], nr: usize, n: usize) -> bool {
    let load = loads(shard_of, cost, prep, nr, n);
    let hi = (0..n).max_by(|&a, &b| load[a].total_cmp(&load[b]).then(b.cmp(&a)));
    let (Some(hi), lo) = (hi, argmin(&load)) else {
        return false;
    };
    let held_by = |s: usize, g: usize, but: usize| {
        (g * nr..(g + 1) * nr).any(|c| c != but && shard_of[c] as usize == s)
    };
    let mut best: Option<(f64, usize)> = None;
    for c in (0..cost.len()).filter(|&c| shard_of[c] as usize == hi) {
        let g = c / nr;
        let new_hi = load[hi] - cost[c] - if held_by(hi, g, c) { 0.0 } else { prep[g] };
        let new_lo = load[lo] + cost[c] + if held_by(lo, g, c) { 0.0 } else { prep[g] };
        let worst = new_hi.max(new_lo);
        if worst < load[hi] * (1.0 - 1e-9) && best.is_none_or(|(w, _)| worst < w) {
            best = Some((worst, c));
        }
    }
    match best {
        Some((_, c)) => {
            shard_of[c] = lo as u32;
            true
        }
        None => false,
    }
}

/// FNV-1a, 64 bits (Fowler, Noll, Vo): the sweep id's hash. Not cryptographic: it tells
/// sweeps apart, it does not protect against forgery.
pub fn fnv1a(bytes: impl IntoIterator<Item = u8>, mut h: u64) -> u64 {
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The FNV-1a offset basis.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// The id of a sweep: 16 hex digits of the FNV-1a hash of its canonical arguments (every
/// argument that changes a cell's result, the game files' contents included; not
/// `--shard`, `--out` or `--json`).
pub fn sweep_id(arguments: &[String]) -> String {
    let h = arguments.iter().fold(FNV_OFFSET, |h, a| {
        fnv1a(a.bytes().chain(std::iter::once(0)), h)
    });
    format!("{h:016x}")
}

/// One cell of a sweep and the shard that measures it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellPlan {
    /// Game label (as in the rows).
    pub game: String,
    /// Reasoner label.
    pub reasoner: String,
    /// The shard (`0..shards`).
    pub shard: u32,
}

/// One task of a sweep as it ran: where, when, how long.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardRun {
    /// Which task.
    pub shard: ShardSpec,
    /// The machine it ran on (host name included).
    pub machine: crate::stamp::HostStamp,
    /// Its command line.
    pub command: Vec<String>,
    /// Start, seconds since the Unix epoch.
    pub started_unix: f64,
    /// Wall seconds it took.
    pub seconds: f64,
    /// The report file it was merged from (set by `merge`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// The sweep a report belongs to: written by every `compare` run (one shard of one when
/// not sharded), checked and combined by `merge`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    /// [`sweep_id`] of `arguments`.
    pub id: String,
    /// The canonical arguments (`key=value`), the id's input: merge shows where two
    /// sweeps differ.
    pub arguments: Vec<String>,
    /// Tasks of the sweep (N).
    pub shards: u32,
    /// Every cell of the sweep, in table order, with its shard.
    pub cells: Vec<CellPlan>,
    /// The tasks whose rows the report holds: one for a task's own report, those merged
    /// for a merged one.
    pub runs: Vec<ShardRun>,
}

impl Sweep {
    /// Where each cell ran: one line per task of `runs` (its shard, time, machine and
    /// cells), then, in a merged report, the cells that no run holds, or in a task's own
    /// report how to merge it with the others.
    pub fn where_ran(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let cells_of = |k: u32| -> Vec<String> {
            (self.cells.iter())
                .filter(|c| c.shard == k)
                .map(|c| format!("{} / {}", c.game, c.reasoner))
                .collect()
        };
        for run in &self.runs {
            let cells = cells_of(run.shard.index);
            let _ = writeln!(
                out,
                "shard {} ran {} cell(s) in {:.1} s on {}: {}",
                run.shard,
                cells.len(),
                run.seconds,
                run.machine.summary(),
                cells.join(", ")
            );
        }
        let merged = self.runs.iter().any(|r| r.file.is_some());
        if !merged {
            let ran = |k: u32| self.runs.iter().any(|r| r.shard.index == k);
            let others = self.cells.iter().filter(|c| !ran(c.shard)).count();
            let _ = writeln!(
                out,
                "the other {} shard(s) hold the other {others} cell(s): `propnet compare merge` \
                 the shards' --out folders",
                self.shards.saturating_sub(self.runs.len() as u32),
            );
            return out;
        }
        for k in (0..self.shards).filter(|k| !self.runs.iter().any(|r| r.shard.index == *k)) {
            let cells = cells_of(k);
            if !cells.is_empty() {
                let _ = writeln!(
                    out,
                    "shard {k}/{} is missing: {}",
                    self.shards,
                    cells.join(", ")
                );
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_specs_are_checked() {
        assert_eq!(
            "2/3".parse::<ShardSpec>(),
            Ok(ShardSpec { index: 2, count: 3 })
        );
        assert_eq!(
            " 0/1 ".parse::<ShardSpec>().map(|s| s.to_string()),
            Ok("0/1".into())
        );
        for bad in [
            "3/3",
            "1/0",
            "-1/3",
            "+1/3",
            "1",
            "a/b",
            "1/3/4",
            "",
            "/",
            "0x1/3",
            "0/100001",
            "99999999999/3",
        ] {
            let e = bad.parse::<ShardSpec>().unwrap_err();
            assert!(e.to_string().contains("counted from 0"), "{bad}: {e}");
        }
    }

    const SECONDS: Budget = Budget {
        seconds: 1.0,
        playouts: None,
    };

    fn sizes(bytes: &[u64]) -> Vec<GameSize> {
        bytes.iter().map(|&bytes| GameSize { bytes }).collect()
    }

    #[test]
    fn plans_are_deterministic_complete_and_balanced() {
        let games = sizes(&[2_000, 30_000, 5_000, 5_000, 12_000, 800]);
        let rs = [
            Reasoner::Interp,
            Reasoner::Cpu(Some(1)),
            Reasoner::Reference,
        ];
        for count in 1..=7 {
            let p = plan(&games, &rs, SECONDS, 3, 2, count);
            assert_eq!(p, plan(&games, &rs, SECONDS, 3, 2, count));
            assert_eq!(p.len(), games.len() * rs.len());
            assert!(p.iter().all(|&s| s < count));
            let used: std::collections::BTreeSet<u32> = p.iter().copied().collect();
            assert_eq!(used.len(), count.min(p.len() as u32) as usize, "{p:?}");
        }
        // As many equal cells as shards: one each.
        let p = plan(&sizes(&[1000; 4]), &[Reasoner::Interp], SECONDS, 1, 1, 4);
        let mut sorted = p.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [0, 1, 2, 3]);
    }

    #[test]
    fn a_game_cells_stay_together_when_that_balances() {
        // Two big games of three cells each on two shards: each game on one shard.
        let games = sizes(&[30_000, 30_000]);
        let rs = [
            Reasoner::Interp,
            Reasoner::Cpu(Some(1)),
            Reasoner::Cpu(None),
        ];
        let p = plan(&games, &rs, SECONDS, 1, 2, 2);
        assert_eq!(p[0], p[1]);
        assert_eq!(p[1], p[2]);
        assert_eq!(p[3], p[4]);
        assert_eq!(p[4], p[5]);
        assert_ne!(p[0], p[3]);
        // One game of three cells on three shards: split, one cell each.
        let p = plan(&sizes(&[30_000]), &rs, SECONDS, 60, 2, 3);
        let mut sorted = p.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [0, 1, 2], "{p:?}");
    }

    #[test]
    fn sweep_ids_tell_arguments_apart() {
        let a = vec!["seed=1".to_string(), "game=x".into()];
        let b = vec!["seed=1game=x".to_string()];
        assert_ne!(sweep_id(&a), sweep_id(&b), "arguments are separated");
        assert_eq!(sweep_id(&a), sweep_id(&a.clone()));
        assert_eq!(sweep_id(&a).len(), 16);
        // FNV-1a's published test vector.
        assert_eq!(fnv1a(*b"a", FNV_OFFSET), 0xaf63_dc4c_8601_ec8c);
    }
}
