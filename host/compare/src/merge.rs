//! `propnet compare merge DIR…`: one report from the reports of a sweep's shards.
//!
//! Each input is a shard's output folder (its `compare.json`) or the file itself. Every
//! input must belong to the same sweep (same [`Sweep::id`]: same arguments, same game
//! files); each shard's rows must be exactly the cells the sweep's plan gave it. A shard
//! given twice is taken from the run that finished last (a rerun of a failed task replaces
//! it), with a warning naming both files; a missing shard is an error naming its cells,
//! unless the caller accepts a partial report. Speedups are computed again over the
//! merged rows (a cell's baseline may have run on another shard).

use crate::report::{set_speedups, Report, Row};
use crate::shard::{CellPlan, ShardRun, Sweep};
use std::path::{Path, PathBuf};

/// Why shards could not be merged. Every variant names the file it is about.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No input given.
    #[error("no shard report given: name the output folders of the shards (their --out)")]
    NoInput,
    /// The file cannot be read, or is not a whole JSON report (a truncated file says
    /// where it ends).
    #[error("{file}: {message}")]
    Unreadable {
        /// The file.
        file: String,
        /// What went wrong.
        message: String,
    },
    /// A report without a sweep (written by a propnet before `--shard`).
    #[error("{file}: a compare report without a sweep record: rerun that shard with this propnet")]
    NoSweep {
        /// The file.
        file: String,
    },
    /// A report of another sweep than the first input's.
    #[error(
        "{file}: a shard of another sweep ({theirs}) than {first} ({ours}): {difference}; \
         merge the shards of one sweep at a time"
    )]
    OtherSweep {
        /// The file.
        file: String,
        /// The first input.
        first: String,
        /// The first input's sweep id.
        ours: String,
        /// This file's sweep id.
        theirs: String,
        /// The first argument that differs.
        difference: String,
    },
    /// A shard's rows are not the cells the plan gave it (an edited or damaged file).
    #[error("{file}: shard {shard}: {message}")]
    Inconsistent {
        /// The file.
        file: String,
        /// The shard.
        shard: String,
        /// What does not match.
        message: String,
    },
    /// Shards of the sweep that no input holds.
    #[error(
        "shard(s) {shards} of {count} missing (cells {cells}): run them, or pass --partial \
         to merge without them"
    )]
    Missing {
        /// The missing shards, e.g. `1, 2`.
        shards: String,
        /// The sweep's shard count.
        count: u32,
        /// Their cells, `game / reasoner`.
        cells: String,
    },
}

/// A merged report and what the caller should hear about it.
#[derive(Debug)]
pub struct Merged {
    /// The report: every cell's row in the sweep's order, speedups recomputed, the runs
    /// merged (with their files) in its sweep.
    pub report: Report,
    /// Shards given twice (which copy was used), and missing shards when partial.
    pub warnings: Vec<String>,
    /// Cells no input holds (empty unless partial).
    pub missing: Vec<CellPlan>,
}

/// The report file of an input: `DIR/compare.json`, or the file itself.
pub fn report_file(input: &Path) -> PathBuf {
    if input.is_dir() {
        input.join("compare.json")
    } else {
        input.to_path_buf()
    }
}

/// Reads one report (bounded like every input: 256 MiB).
///
/// # Errors
/// [`MergeError::Unreadable`] naming the file and, for bad JSON, the line and column.
pub fn read_report(file: &Path) -> Result<Report, MergeError> {
    let unreadable = |message: String| MergeError::Unreadable {
        file: file.display().to_string(),
        message,
    };
    let bytes = propnet_compiler::gdl::read_file(file).map_err(|e| match e {
        propnet_compiler::gdl::GdlError::Io { error, .. } => unreadable(error.to_string()),
        other => unreadable(other.to_string()),
    })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        let what = if e.is_eof() {
            "truncated (the JSON ends early"
        } else {
            "not a compare report (bad JSON"
        };
        unreadable(format!(
            "{what} at line {} column {}: {e})",
            e.line(),
            e.column()
        ))
    })
}

/// One task's run with its rows, from one input.
struct Candidate {
    file: String,
    run: ShardRun,
    rows: Vec<Row>,
}

impl Candidate {
    fn finished(&self) -> f64 {
        self.run.started_unix + self.run.seconds
    }
}

/// The first argument where two sweeps differ, as `A` vs `B`.
fn difference(a: &[String], b: &[String]) -> String {
    let n = a.len().max(b.len());
    (0..n)
        .find(|&i| a.get(i) != b.get(i))
        .map(|i| {
            let show = |x: Option<&String>| x.map_or("(nothing)".to_string(), |s| format!("`{s}`"));
            format!("{} here, {} there", show(b.get(i)), show(a.get(i)))
        })
        .unwrap_or_else(|| "same arguments, different id".into())
}

/// The runs of one report with their rows, each checked against the plan `sweep`.
fn candidates(
    file: &str,
    mut rows: Vec<Row>,
    runs: Vec<ShardRun>,
    sweep: &Sweep,
) -> Result<Vec<Candidate>, MergeError> {
    let mut out = Vec::new();
    for run in runs {
        let k = run.shard.index;
        let inconsistent = |message: String| MergeError::Inconsistent {
            file: file.into(),
            shard: run.shard.to_string(),
            message,
        };
        if run.shard.count != sweep.shards {
            return Err(inconsistent(format!(
                "a shard of {} in a sweep of {}",
                run.shard.count, sweep.shards
            )));
        }
        let (mine, rest): (Vec<Row>, Vec<Row>) = rows.into_iter().partition(|r| r.shard == Some(k));
        rows = rest;
        let planned: Vec<(&str, &str)> = (sweep.cells.iter())
            .filter(|c| c.shard == k)
            .map(|c| (c.game.as_str(), c.reasoner.as_str()))
            .collect();
        let got: Vec<(&str, &str)> = (mine.iter())
            .map(|r| (r.game.as_str(), r.reasoner.as_str()))
            .collect();
        if planned != got {
            return Err(inconsistent(format!(
                "its rows are {got:?}, its cells by the plan {planned:?}"
            )));
        }
        out.push(Candidate {
            file: file.into(),
            run,
            rows: mine,
        });
    }
    if let Some(r) = rows.first() {
        return Err(MergeError::Inconsistent {
            file: file.into(),
            shard: r.shard.map_or("none".into(), |k| k.to_string()),
            message: format!(
                "row {} / {} belongs to no run of the report",
                r.game, r.reasoner
            ),
        });
    }
    Ok(out)
}

/// Merges the reports of `inputs` (folders or files); `partial`: missing shards are a
/// warning, not an error.
///
/// # Errors
/// [`MergeError`], naming the file.
pub fn merge(inputs: &[PathBuf], partial: bool) -> Result<Merged, MergeError> {
    // The first input: its file, its sweep (the plan every other input must share) and
    // its settings (the merged report's).
    let mut first: Option<(String, Sweep, Report)> = None;
    let mut all: Vec<Candidate> = Vec::new();
    for input in inputs {
        let path = report_file(input);
        let file = path.display().to_string();
        let mut report = read_report(&path)?;
        let Some(mut sweep) = report.sweep.take() else {
            return Err(MergeError::NoSweep { file });
        };
        if let Some((first_file, ours, _)) = &first {
            if sweep.id != ours.id || sweep.arguments != ours.arguments {
                return Err(MergeError::OtherSweep {
                    file,
                    first: first_file.clone(),
                    ours: ours.id.clone(),
                    theirs: sweep.id,
                    difference: difference(&ours.arguments, &sweep.arguments),
                });
            }
        }
        let runs = std::mem::take(&mut sweep.runs);
        let rows = std::mem::take(&mut report.rows);
        let plan = first.as_ref().map_or(&sweep, |f| &f.1);
        all.extend(candidates(&file, rows, runs, plan)?);
        if first.is_none() {
            first = Some((file, sweep, report));
        }
    }
    let Some((_, sweep, template)) = first else {
        return Err(MergeError::NoInput);
    };
    let (chosen, mut warnings) = choose(all, sweep.shards);
    let missing: Vec<CellPlan> = (sweep.cells.iter())
        .filter(|c| !chosen.iter().any(|x| x.run.shard.index == c.shard))
        .cloned()
        .collect();
    if !missing.is_empty() {
        let mut shards: Vec<u32> = missing.iter().map(|c| c.shard).collect();
        shards.sort_unstable();
        shards.dedup();
        let err = MergeError::Missing {
            shards: join(shards.iter().map(u32::to_string)),
            count: sweep.shards,
            cells: join(
                missing
                    .iter()
                    .map(|c| format!("{} / {}", c.game, c.reasoner)),
            ),
        };
        if !partial {
            return Err(err);
        }
        warnings.push(err.to_string());
    }
    Ok(Merged {
        report: assemble(template, sweep, chosen),
        warnings,
        missing,
    })
}

fn join(items: impl Iterator<Item = String>) -> String {
    items.collect::<Vec<_>>().join(", ")
}

/// One candidate per shard: the one that finished last; a warning for each shard given
/// more than once, naming every file that holds it.
fn choose(all: Vec<Candidate>, shards: u32) -> (Vec<Candidate>, Vec<String>) {
    let mut by_shard: std::collections::BTreeMap<u32, Vec<Candidate>> = Default::default();
    for c in all {
        by_shard.entry(c.run.shard.index).or_default().push(c);
    }
    let mut warnings = Vec::new();
    let mut chosen = Vec::new();
    for (k, mut copies) in by_shard {
        // Stable: of copies that finished at the same time, the last given wins.
        copies.sort_by(|a, b| a.finished().total_cmp(&b.finished()));
        let used = copies.pop().expect("a group is never empty");
        if !copies.is_empty() {
            warnings.push(format!(
                "shard {k}/{shards} is given {} times ({}, {}): using {}, the run that \
                 finished last",
                copies.len() + 1,
                join(copies.iter().map(|c| c.file.clone())),
                used.file,
                used.file
            ));
        }
        chosen.push(used);
    }
    (chosen, warnings)
}

/// The merged report: `template`'s settings, every chosen row in the plan's order,
/// speedups over all rows, the runs (with their files) in the sweep.
fn assemble(template: Report, mut sweep: Sweep, chosen: Vec<Candidate>) -> Report {
    let mut rows: Vec<Row> = Vec::new();
    let mut runs = Vec::new();
    let mut pool: Vec<Row> = Vec::new();
    for c in chosen {
        pool.extend(c.rows);
        let mut run = c.run;
        run.file = Some(c.file);
        runs.push(run);
    }
    for cell in &sweep.cells {
        if let Some(i) =
            (pool.iter()).position(|r| r.game == cell.game && r.reasoner == cell.reasoner)
        {
            rows.push(pool.swap_remove(i));
        }
    }
    set_speedups(&mut rows, &template.baseline);
    let machine = runs
        .first()
        .map_or(template.machine.clone(), |r| r.machine.clone());
    sweep.runs = runs;
    Report {
        machine,
        rows,
        sweep: Some(sweep),
        ..template
    }
}
