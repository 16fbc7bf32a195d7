//! Replays oracle traces with the reference interpreter and reports the first differing
//! line and the time per game (the conformance test's loop, for profiling one game):
//! `cargo run --release -p propnet-compiler --example replay_trace -- GAME.kif TRACE.jsonl [MAX_LINES]`.
use propnet_compiler::gdl;
use propnet_compiler::interp::trace::{step_line, InterpEngine, LineEnd, TraceEngine};
use propnet_compiler::interp::Interp;
use serde_json::Value;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (game, trace) = (&args[0], &args[1]);
    let max: usize = args
        .get(2)
        .map_or(usize::MAX, |s| s.parse().expect("line count"));
    let t0 = std::time::Instant::now();
    let program = gdl::load(std::path::Path::new(game))
        .expect("game loads")
        .program;
    let mut interp = Interp::new(&program).expect("interpreter");
    println!("loaded in {:.2?}", t0.elapsed());
    let text = std::fs::read_to_string(trace).expect("readable trace");
    let mut lines = text.lines();
    let _header = lines.next().expect("header");
    let roles = interp.role_names().to_vec();
    let mut engine = InterpEngine::new(&mut interp).expect("initial state");
    let mut slowest = (0.0f64, 0usize);
    for (no, line) in lines.enumerate().take(max) {
        let t = std::time::Instant::now();
        let rec: Value = serde_json::from_str(line).expect("json line");
        if rec["step"].as_u64() == Some(0) {
            engine.restart().expect("initial state");
        }
        let v = engine
            .view()
            .unwrap_or_else(|e| panic!("line {}: {e}", no + 2));
        let end = LineEnd::of_oracle_line(&rec, &roles, &v);
        let playout = rec["playout"].as_u64().unwrap_or(0);
        let step = rec["step"].as_u64().unwrap_or(0);
        let ours = step_line(&roles, playout, step, &v, &end);
        if ours != line {
            println!(
                "line {} differs:\n  oracle: {line}\n  interp: {ours}",
                no + 2
            );
            std::process::exit(1);
        }
        if let LineEnd::Joint(texts) = &end {
            let joint: Vec<usize> = texts
                .iter()
                .zip(&v.legal)
                .map(|(t, l)| l.iter().position(|s| s == t).expect("legal move"))
                .collect();
            engine.play(&joint).expect("transition");
        }
        let dt = t.elapsed().as_secs_f64();
        if dt > slowest.0 {
            slowest = (dt, no + 2);
        }
    }
    println!(
        "identical; {:.2?} total, slowest line {} ({:.3} s), {} terms",
        t0.elapsed(),
        slowest.1,
        slowest.0,
        interp.terms().len()
    );
}
