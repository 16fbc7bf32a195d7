//! The compiled netlist against the oracle's golden random-playout traces
//! (`shared/traces/**/*.jsonl`, format in `shared/oracle/README.md`), two ways per game:
//! - **replay** ([`replay_netlist`]) through the raw grounded netlist: at every line the
//!   state's fluents, terminal, every role's legal moves and goal values must match, and the
//!   line's joint move drives the next state (the grounder alone);
//! - **generation**, what `propnet trace --engine netlist` does: the optimized netlist (the
//!   pipeline's passes) traced from the oracle's seed through the CPU backend's program
//!   ([`NetEngine`], SplitMix64 choices) must write the oracle's step lines byte for byte,
//!   and its header must carry the same game, roles, seed, rng and step limit (netlists
//!   above [`OPTIMIZE_MAX_GATES`] are generated unoptimized, to keep CI fast).
//!
//! Every game with a trace is compiled once and checked; large netlists check a prefix of
//! their trace sized by a gate-evaluation budget, never less than the whole first playout
//! (prefix comparison also covers traces the oracle cut). Games run on [`test_threads`]
//! threads.

use propnet_compiler::gdl;
use propnet_compiler::ground::{compile, CompileOptions};
use propnet_compiler::interp::trace::{trace, TraceOptions};
use propnet_host::compare::engine::{NetEngine, TraceBackend};
use propnet_netlist::passes::{optimize, OptimizeOptions};
use propnet_netlist::{validate, Netlist};
use propnet_tests::{
    files_with_ext, par_map, read_trace, replay_netlist, shared_dir, test_threads, too_big,
    truncate_trace,
};
use serde_json::Value;
use std::path::Path;

/// Gate evaluations allowed per game (one netlist evaluation per trace line).
const GATE_EVALS_PER_GAME: usize = 30_000_000;
/// Lines always replayed when the trace has them.
const MIN_LINES: usize = 50;
/// Grounded netlists up to this many gates are optimized before the generation check, as
/// every `propnet` command does; the few bigger ones (their passes would take most of this
/// test's CI time: linesOfAction, racer4, quarto, the othellos, atariGo, kalaha) are
/// generated through the raw netlist.
const OPTIMIZE_MAX_GATES: usize = 100_000;

enum Outcome {
    /// Lines checked, lines left out by the budget, whether the generated trace went
    /// through the optimized netlist, compile, replay and generation seconds.
    Agreed(usize, usize, bool, f64, f64, f64),
    /// Not a netlist test case (front end or grounder rejects it, or it is in tests/too-big.txt).
    Skipped(&'static str),
    Failed(String),
}

/// Traces the first `lines` step lines of `oracle` (text) from its header's seed through
/// `net` and compares them byte for byte; `Err` names the first difference.
fn generate_and_compare(net: &Netlist, oracle: &str, lines: usize) -> Result<(), String> {
    // A trace the oracle cut (its size cap) ends in a line marked truncated before the
    // header's step limit: that line is compared without its ending (ours goes on).
    let same = |ours: &str, theirs: &str, last: bool| {
        ours == theirs
            || last
                && theirs
                    .strip_suffix(",\"truncated\":true}")
                    .is_some_and(|t| {
                        ours.rfind(",\"joint\":{")
                            .is_some_and(|at| ours[..at] == *t)
                    })
    };
    let mut it = oracle.lines().filter(|l| !l.trim().is_empty());
    let header: Value = serde_json::from_str(it.next().ok_or("empty trace")?)
        .map_err(|e| format!("header: {e}"))?;
    let want: Vec<&str> = it.take(lines).collect();
    let playouts = want.iter().filter(|l| l.contains("\"step\":0,")).count() as u64;
    let opts = TraceOptions {
        game: header["game"].as_str().unwrap_or_default().to_string(),
        playouts,
        seed: header["seed"].as_i64().ok_or("header without seed")?,
        max_steps: header["max_steps"]
            .as_u64()
            .ok_or("header without max_steps")?,
        stop_after: None,
    };
    let mut engine = NetEngine::new(net, TraceBackend::Cpu).map_err(|e| e.to_string())?;
    let mut ours = Vec::with_capacity(want.len() + 1);
    trace(&mut engine, &opts, |l| ours.push(l.to_string())).map_err(|e| e.to_string())?;
    let our_header: Value = serde_json::from_str(&ours[0]).map_err(|e| e.to_string())?;
    for k in ["game", "roles", "seed", "rng", "max_steps"] {
        if our_header[k] != header[k] {
            return Err(format!(
                "header field {k}: ours {}, oracle {}",
                our_header[k], header[k]
            ));
        }
    }
    for (i, w) in want.iter().enumerate() {
        match ours.get(i + 1) {
            Some(o) if same(o, w, i + 1 == want.len()) => {}
            Some(o) => {
                return Err(format!(
                    "generated step line {} differs:\n  oracle:  {w}\n  netlist: {o}",
                    i + 1
                ))
            }
            None => return Err(format!("generated trace ends after {i} step lines")),
        }
    }
    Ok(())
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
    // The netlist every `propnet` command runs: the pipeline's passes on the same grounding.
    let optimized = net.gates.len() <= OPTIMIZE_MAX_GATES;
    let mut opt = net.clone();
    if optimized {
        optimize(&mut opt, &OptimizeOptions::default());
        if let Err(e) = validate(&opt) {
            return Outcome::Failed(format!("optimized netlist is invalid: {e}"));
        }
    }
    let compiled = t0.elapsed().as_secs_f64();
    let t1 = std::time::Instant::now();
    let mut trace = read_trace(trace_path);
    let dropped = truncate_trace(
        &mut trace,
        net.gates.len() + 1,
        GATE_EVALS_PER_GAME,
        MIN_LINES,
    );
    let n = match replay_netlist(&net, &trace) {
        Ok(n) => n,
        Err(e) => return Outcome::Failed(format!("replay: {e}")),
    };
    let replayed = t1.elapsed().as_secs_f64();
    let t2 = std::time::Instant::now();
    let text = std::fs::read_to_string(trace_path).expect("readable trace");
    if let Err(e) = generate_and_compare(&opt, &text, n) {
        return Outcome::Failed(format!("trace --engine netlist: {e}"));
    }
    let generated = t2.elapsed().as_secs_f64();
    Outcome::Agreed(n, dropped, optimized, compiled, replayed, generated)
}

#[test]
fn oracle_traces_replay_through_the_netlist_and_are_generated_byte_identically() {
    let Some(shared) = shared_dir() else { return };
    let traces = shared.join("traces");
    let files = files_with_ext(&traces, "jsonl");
    let outcomes = par_map(
        &files,
        test_threads(),
        |t| t.strip_prefix(&traces).unwrap().display().to_string(),
        |t| check(&shared, &traces, t),
    );
    let (mut games, mut lines, mut cut, mut optimized) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (t, o) in files.iter().zip(outcomes) {
        let rel = t.strip_prefix(&traces).unwrap().display().to_string();
        match o {
            Outcome::Agreed(n, dropped, opt, compile_s, replay_s, gen_s) => {
                games += 1;
                lines += n;
                cut += usize::from(dropped > 0);
                optimized += usize::from(opt);
                let net = if opt { "optimized" } else { "raw" };
                println!(
                    "{rel}: {n} lines agree ({dropped} left out by the budget); \
                     compile {compile_s:.2} s, replay {replay_s:.2} s, generate ({net}) {gen_s:.2} s"
                );
            }
            Outcome::Skipped(why) => println!("{rel}: skipped, {why}"),
            Outcome::Failed(e) => failures.push(format!("{rel}: {e}")),
        }
    }
    println!(
        "{games} games replayed and generated ({optimized} through the optimized netlist), \
         {lines} lines; {cut} games cut by the gate budget"
    );
    assert!(games > 100, "only {games} traces were checked");
    assert!(
        failures.is_empty(),
        "{} games differ:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
