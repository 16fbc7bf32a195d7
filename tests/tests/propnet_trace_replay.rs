//! Replays the oracle's golden random-playout traces (`shared/traces/**/*.jsonl`, format in
//! `shared/oracle/README.md`) through the compiled netlist with [`replay_netlist`]: at every
//! line the state's fluents, terminal, every role's legal moves and goal values must match,
//! and the line's joint move drives the next state.
//!
//! Every game with a trace is compiled once and checked; large netlists replay a prefix of
//! their trace sized by a gate-evaluation budget, never less than the whole first playout.
//! Games run on [`test_threads`] threads.

use propnet_compiler::gdl;
use propnet_compiler::ground::{compile, CompileOptions};
use propnet_tests::{
    files_with_ext, par_map, read_trace, replay_netlist, shared_dir, test_threads, too_big,
    truncate_trace,
};
use std::path::Path;

/// Gate evaluations allowed per game (one netlist evaluation per trace line).
const GATE_EVALS_PER_GAME: usize = 30_000_000;
/// Lines always replayed when the trace has them.
const MIN_LINES: usize = 50;

enum Outcome {
    /// Lines checked, lines left out by the budget, compile and replay seconds.
    Agreed(usize, usize, f64, f64),
    /// Not a netlist test case (front end or grounder rejects it, or it is in tests/too-big.txt).
    Skipped(&'static str),
    Failed(String),
}

fn check(shared: &Path, traces: &Path, trace_path: &Path) -> Outcome {
    let rel = trace_path
        .strip_prefix(traces)
        .unwrap()
        .with_extension("kif");
    if too_big(&rel) {
        return Outcome::Skipped("in tests/too-big.txt");
    }
    let Ok(game) = gdl::load(&shared.join("games").join(&rel)) else {
        return Outcome::Skipped("rejected by the front end");
    };
    let t0 = std::time::Instant::now();
    let net = match compile(&game.program, &CompileOptions::default()) {
        Ok(net) => net,
        Err(e) => return Outcome::Failed(format!("does not compile: {e}")),
    };
    let compiled = t0.elapsed().as_secs_f64();
    let t1 = std::time::Instant::now();
    let mut trace = read_trace(trace_path);
    let dropped = truncate_trace(
        &mut trace,
        net.gates.len() + 1,
        GATE_EVALS_PER_GAME,
        MIN_LINES,
    );
    match replay_netlist(&net, &trace) {
        Ok(n) => Outcome::Agreed(n, dropped, compiled, t1.elapsed().as_secs_f64()),
        Err(e) => Outcome::Failed(e),
    }
}

#[test]
fn oracle_traces_replay_through_the_netlist() {
    let Some(shared) = shared_dir() else { return };
    let traces = shared.join("traces");
    let files = files_with_ext(&traces, "jsonl");
    let outcomes = par_map(
        &files,
        test_threads(),
        |t| t.strip_prefix(&traces).unwrap().display().to_string(),
        |t| check(&shared, &traces, t),
    );
    let (mut games, mut lines, mut cut) = (0, 0, 0);
    let mut failures = Vec::new();
    for (t, o) in files.iter().zip(outcomes) {
        let rel = t.strip_prefix(&traces).unwrap().display().to_string();
        match o {
            Outcome::Agreed(n, dropped, compile_s, replay_s) => {
                games += 1;
                lines += n;
                cut += usize::from(dropped > 0);
                println!(
                    "{rel}: {n} lines agree ({dropped} left out by the budget); \
                     compile {compile_s:.2} s, replay {replay_s:.2} s"
                );
            }
            Outcome::Skipped(why) => println!("{rel}: skipped, {why}"),
            Outcome::Failed(e) => failures.push(format!("{rel}: {e}")),
        }
    }
    println!("{games} games replayed, {lines} lines; {cut} games cut by the gate budget");
    assert!(games > 0, "no trace was replayed");
    assert!(
        failures.is_empty(),
        "{} games differ:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
