//! Oracle trace checks of one compiled game (`shared/traces/**/*.jsonl`, format in
//! `shared/oracle/README.md`), two ways:
//! - **replay** ([`replay_netlist`]) through the raw grounded netlist: at every line the
//!   state's fluents, terminal, every role's legal moves and goal values must match, and the
//!   line's joint move drives the next state (the grounder alone);
//! - **generation**, what `propnet trace --engine netlist` does: the optimized netlist (the
//!   pipeline's passes) traced from the oracle's seed through the CPU backend's program
//!   ([`NetTrace`], SplitMix64 choices) must write the oracle's step lines byte for byte,
//!   and its header must carry the same game, roles, seed, rng and step limit (netlists
//!   above [`OPTIMIZE_MAX_GATES`] are generated unoptimized, to keep CI fast).
//!
//! Large netlists check a prefix of their trace sized by a gate-evaluation budget, never less
//! than the whole first playout (prefix comparison also covers traces the oracle cut).

use propnet_compiler::interp::trace::{trace, TraceOptions};
use propnet_netlist::passes::{optimize, OptimizeOptions};
use propnet_netlist::{validate, Netlist};
use propnet_runtime::net_trace::{NetTrace, TraceBackend};
use propnet_tests::{read_trace, replay_netlist, truncate_trace};
use serde_json::Value;
use std::path::Path;

/// Gate evaluations allowed per game (one netlist evaluation per trace line).
const GATE_EVALS_PER_GAME: usize = 30_000_000;
/// Lines always replayed when the trace has them.
const MIN_LINES: usize = 50;
/// Grounded netlists up to this many gates are optimized before the generation check, as
/// every `propnet` command does; the bigger ones (their passes would take most of this
/// test's CI time: linesOfAction, racer4, quarto, the othellos, atariGo, kalaha, the chess
/// games, ARGENTINA) are generated through the raw netlist.
pub const OPTIMIZE_MAX_GATES: usize = 100_000;

/// What the trace checks of one game did.
pub struct Agreed {
    /// Lines checked.
    pub lines: usize,
    /// Lines left out by the gate-evaluation budget.
    pub dropped: usize,
    /// Whether the generated trace went through the optimized netlist.
    pub optimized: bool,
    /// Seconds spent optimizing, replaying and generating.
    pub seconds: [f64; 3],
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
        seed: header["seed"].as_u64().ok_or("header without seed")?,
        max_steps: header["max_steps"]
            .as_u64()
            .ok_or("header without max_steps")?,
        stop_after: None,
    };
    let mut engine = NetTrace::new(
        net,
        TraceBackend::Cpu,
        &propnet_host::select::Backends::default(),
    )
    .map_err(|e| e.to_string())?;
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

/// Replays the trace at `trace_path` through `net` (raw, as grounded) and generates it
/// through the pipeline's optimized netlist (`net` itself above [`OPTIMIZE_MAX_GATES`]
/// gates); `Err` says where they differ.
pub fn check(net: &Netlist, trace_path: &Path) -> Result<Agreed, String> {
    // The netlist every `propnet` command runs: the pipeline's passes on the same grounding.
    let t0 = std::time::Instant::now();
    let optimized = net.gates.len() <= OPTIMIZE_MAX_GATES;
    let opt = optimized.then(|| {
        let mut opt = net.clone();
        optimize(&mut opt, &OptimizeOptions::default());
        opt
    });
    if let Some(Err(e)) = opt.as_ref().map(validate) {
        return Err(format!("optimized netlist is invalid: {e}"));
    }
    let optimize_s = t0.elapsed().as_secs_f64();
    let t1 = std::time::Instant::now();
    let mut trace = read_trace(trace_path);
    let dropped = truncate_trace(
        &mut trace,
        net.gates.len() + 1,
        GATE_EVALS_PER_GAME,
        MIN_LINES,
    );
    let lines = replay_netlist(net, &trace).map_err(|e| format!("replay: {e}"))?;
    let replay_s = t1.elapsed().as_secs_f64();
    let t2 = std::time::Instant::now();
    let text = std::fs::read_to_string(trace_path).expect("readable trace");
    generate_and_compare(opt.as_ref().unwrap_or(net), &text, lines)
        .map_err(|e| format!("trace --engine netlist: {e}"))?;
    Ok(Agreed {
        lines,
        dropped,
        optimized,
        seconds: [optimize_s, replay_s, t2.elapsed().as_secs_f64()],
    })
}
