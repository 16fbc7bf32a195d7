//! Every corpus game (`shared/games/**/*.kif`) the front end accepts, compiled once by the
//! grounder with the default budgets and then checked three ways:
//! - the netlist is valid ([`validate`]) and its sizes are printed (`-- --nocapture`);
//! - [`trace`]: when the game has an oracle trace, the raw netlist replays it and the
//!   optimized netlist (the raw one above [`trace::OPTIMIZE_MAX_GATES`] gates) generates it
//!   byte for byte;
//! - [`interp`]: random playouts agree with the reference interpreter step by step;
//! - [`factors`]: each factor the game splits into, stepped apart, agrees with the whole
//!   game, and the games that are sums of games do split.
//!
//! A game that fails to compile is a failure unless `tests/too-big.txt` lists it (those are
//! checked by `compiler/tests/corpus_compile.rs`). Compiling once for all three checks is
//! what lets the largest games (chess: 80 s or so of grounding, with the compiler at
//! opt-level 3 in test builds: see `Cargo.toml`) run in CI; games run on [`test_threads`] threads, largest source first, so the
//! long ones overlap the many short ones. `PROPNET_CORPUS_ONLY=A,B` checks only the games
//! whose path under `shared/games/` contains one of the comma-separated substrings.

mod factors;
mod interp;
mod trace;

use propnet_compiler::gdl;
use propnet_compiler::ground::{compile_with_report, CompileOptions};
use propnet_netlist::validate;
use propnet_tests::{files_with_ext, par_map, shared_dir, test_threads, too_big};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Corpus games that are sums of independent games: each must split into factors.
const SUMS: [&str; 5] = [
    "doubletictactoe.kif",
    "dualConnect4.kif",
    "factoringMutuallyAssuredDestruction.kif",
    "factoringEasyTurtleBrain.kif",
    "connectFourSimultaneous.kif",
];

/// What the checks of one game found.
enum Outcome {
    /// Compiled and checked: sizes and what each check did.
    Checked(Report),
    /// Not a netlist test case.
    Skipped(&'static str),
    /// The first failure.
    Failed(String),
}

struct Report {
    /// The compile report's line of sizes and times.
    sizes: String,
    /// The trace checks, when the game has a trace.
    trace: Option<trace::Agreed>,
    /// Steps compared with the interpreter (`None`: it does not take the game) and seconds.
    interp: (Option<usize>, f64),
    /// Factors found and steps compared factored vs whole.
    factors: (usize, usize),
}

fn check_game(shared: &Path, kif: &Path) -> Outcome {
    let games = shared.join("games");
    let rel = kif.strip_prefix(&games).unwrap();
    if too_big(rel) {
        return Outcome::Skipped("in tests/too-big.txt");
    }
    let Ok(game) = gdl::load(kif) else {
        return Outcome::Skipped("rejected by the front end");
    };
    let t0 = Instant::now();
    let (net, rep) = match compile_with_report(&game.program, &CompileOptions::default()) {
        Ok(r) => r,
        Err(e) => return Outcome::Failed(format!("does not compile: {}", e.located(&game.source))),
    };
    if let Err(e) = validate(&net) {
        return Outcome::Failed(format!("invalid netlist: {e}"));
    }
    let s = &rep.stats;
    let sizes = format!(
        "atoms {} instances {} latches {} inputs {} and {} or {} not {} depth {} loops {} \
         (max {}); ground {:.2} s, build {:.2} s, compiled in {:.2} s",
        rep.atoms,
        rep.instances,
        s.latches,
        s.inputs,
        s.and,
        s.or,
        s.not,
        s.depth,
        rep.cyclic_sccs,
        rep.largest_cyclic_scc,
        rep.ground_time.as_secs_f64(),
        rep.build_time.as_secs_f64(),
        t0.elapsed().as_secs_f64()
    );
    let trace_path = shared.join("traces").join(rel).with_extension("jsonl");
    let trace = if trace_path.is_file() {
        match trace::check(&net, &trace_path) {
            Ok(a) => Some(a),
            Err(e) => return Outcome::Failed(e),
        }
    } else {
        None
    };
    let t1 = Instant::now();
    let steps = match interp::compare(&net, &game.program) {
        Ok(steps) => steps,
        Err(e) => return Outcome::Failed(format!("netlist vs interpreter: {e}")),
    };
    let interp = (steps, t1.elapsed().as_secs_f64());
    let factors = match factors::compare(&net) {
        Ok((f, steps)) => (f.factors.len(), steps),
        Err(e) => return Outcome::Failed(format!("factored vs whole: {e}")),
    };
    Outcome::Checked(Report {
        sizes,
        trace,
        interp,
        factors,
    })
}

/// The non-empty substrings of `PROPNET_CORPUS_ONLY` (none: every game).
fn only() -> Vec<String> {
    std::env::var_os("PROPNET_CORPUS_ONLY")
        .map(|v| v.to_string_lossy().into_owned())
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The corpus games to check, largest source file first (see the module docs).
fn games(dir: &Path, only: &[String]) -> Vec<PathBuf> {
    let picked = |f: &PathBuf| {
        let rel = f.strip_prefix(dir).unwrap().to_string_lossy();
        only.is_empty() || only.iter().any(|s| rel.contains(s.as_str()))
    };
    let mut files: Vec<PathBuf> = files_with_ext(dir, "kif")
        .into_iter()
        .filter(picked)
        .collect();
    let size = |f: &PathBuf| std::fs::metadata(f).map_or(0, |m| m.len());
    files.sort_by_key(|f| std::cmp::Reverse(size(f)));
    files
}

fn describe(rel: &str, r: &Report) -> String {
    let mut line = format!("{rel}: {}", r.sizes);
    if let Some(t) = &r.trace {
        let net = if t.optimized { "optimized" } else { "raw" };
        let [opt, replay, gen] = t.seconds;
        line += &format!(
            "; trace: {} lines agree ({} left out by the budget), optimize {opt:.2} s, \
             replay {replay:.2} s, generate ({net}) {gen:.2} s",
            t.lines, t.dropped
        );
    }
    match r.interp {
        (Some(steps), s) => line += &format!("; interpreter: {steps} steps agree in {s:.2} s"),
        (None, _) => line += "; interpreter: does not take the game",
    }
    if r.factors.0 >= 2 {
        line += &format!(
            "; {} factors agree with the whole game for {} steps",
            r.factors.0, r.factors.1
        );
    }
    line
}

#[test]
fn every_corpus_game_compiles_replays_its_trace_and_agrees_with_the_interpreter() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("games");
    let only = only();
    let files = games(&dir, &only);
    let rel = |p: &PathBuf| p.strip_prefix(&dir).unwrap().display().to_string();
    let outcomes = par_map(&files, test_threads(), rel, |f| check_game(&shared, f));
    let mut rows: Vec<(String, Outcome)> = files.iter().map(rel).zip(outcomes).collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let (mut compiled, mut traced, mut lines, mut compared) = (0, 0, 0, 0);
    let (mut optimized, mut cut, mut skipped) = (0, 0, 0);
    let mut factored = Vec::new();
    let mut failures = Vec::new();
    for (rel, o) in &rows {
        match o {
            Outcome::Checked(r) => {
                compiled += 1;
                if let Some(t) = &r.trace {
                    traced += 1;
                    lines += t.lines;
                    optimized += usize::from(t.optimized);
                    cut += usize::from(t.dropped > 0);
                }
                compared += usize::from(r.interp.0.is_some());
                if r.factors.0 >= 2 {
                    factored.push(rel.as_str());
                }
                println!("{}", describe(rel, r));
            }
            Outcome::Skipped(why) => {
                skipped += 1;
                println!("{rel}: skipped, {why}");
            }
            Outcome::Failed(e) => failures.push(format!("{rel}: {e}")),
        }
    }
    println!(
        "{compiled} games compiled ({skipped} skipped), {traced} oracle traces ({lines} lines) \
         replayed and generated ({optimized} through the optimized netlist, {cut} cut by the \
         gate budget), {compared} games compared with the interpreter; {} games factor: {}",
        factored.len(),
        factored.join(" ")
    );
    assert!(
        failures.is_empty(),
        "{} games failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // Every game that compiles is one the interpreter takes: a refusal is a regression.
    assert_eq!(
        compared,
        compiled,
        "the interpreter refused {} compiled games",
        compiled - compared
    );
    if only.is_empty() {
        // The shared corpus: 145 games, 5 rejected as invalid, laikLee_hex listed.
        assert!(compiled >= 139, "only {compiled} games compiled");
        assert!(skipped <= 6, "{skipped} games skipped");
        assert!(traced >= 139, "only {traced} traces were checked");
        for sum in SUMS {
            assert!(
                factored.iter().any(|g| g.ends_with(sum)),
                "{sum}, a sum of independent games, was not factored"
            );
        }
    } else {
        assert!(
            compiled > 0,
            "PROPNET_CORPUS_ONLY matched no game that compiles"
        );
    }
}
