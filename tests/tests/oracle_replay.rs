//! Conformance of the reference interpreter with the SWI-Prolog oracle: every golden trace
//! in `shared/traces` is replayed (recorded joint moves) and every line must be
//! byte-identical; `propnet trace`'s generator must reproduce whole traces from the seed.

use propnet_compiler::gdl;
use propnet_compiler::interp::trace::{trace, InterpEngine, LineEnd, TraceEngine, TraceOptions};
use propnet_compiler::interp::Interp;
use propnet_tests::shared_dir;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Corpus games the front end rejects, with the defect its message must name.
/// All are unsafe rules (a head variable not bound by a positive literal), invalid GDL whose
/// meaning depends on the call pattern (the oracle's README says so for each of them).
const REJECTED: &[(&str, &str)] = &[
    ("ggp-base-tests/test_case_3b.kif", "unsafe variable ?x"),
    ("ggp-base-tests/test_case_3e.kif", "unsafe variable ?p"),
    ("ggp-base-tests/test_case_3f.kif", "unsafe variable ?p"),
    ("ggpserver-benderng/Corridor.kif", "unsafe variable ?role"),
    (
        "ggpserver-benderng/DresdenSinglePlayer2.kif",
        "unsafe variable ?nownst",
    ),
];

/// Outcome of one corpus game.
enum Outcome {
    Passed(usize),
    Rejected,
    Failed(String),
}

fn check_game(shared: &Path, t: &Path) -> Outcome {
    let (rel, game) = game_of(shared, t);
    let expected_reject = REJECTED.iter().find(|(g, _)| *g == rel);
    let program = match (gdl::load(&game), expected_reject) {
        (Err(e), Some((_, why))) => {
            let msg = e.to_string();
            return if msg.contains(why) {
                Outcome::Rejected
            } else {
                Outcome::Failed(format!("{rel}: rejected, but not for {why:?}: {msg}"))
            };
        }
        (Err(e), None) => return Outcome::Failed(format!("{rel}: front end rejects it: {e}")),
        (Ok(_), Some((_, why))) => {
            return Outcome::Failed(format!(
                "{rel}: expected a rejection for {why:?}, but it loads"
            ))
        }
        (Ok(g), None) => g.program,
    };
    let mut interp = match Interp::new(&program) {
        Ok(i) => i,
        Err(e) => return Outcome::Failed(format!("{rel}: interpreter rejects it: {e}")),
    };
    let text = std::fs::read_to_string(t).expect("readable trace");
    match replay(&mut interp, &text) {
        Ok(n) => Outcome::Passed(n),
        Err(e) => Outcome::Failed(format!("{rel}: {e}")),
    }
}

fn traces(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.join("traces")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable traces dir") {
            let p = e.expect("dir entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The game of a trace: same relative path under `games`, `.kif`.
fn game_of(shared: &Path, trace: &Path) -> (String, PathBuf) {
    let rel = trace
        .strip_prefix(shared.join("traces"))
        .expect("under traces");
    let rel = rel.with_extension("kif");
    (rel.display().to_string(), shared.join("games").join(&rel))
}

/// Replays one trace; `Err` describes the first difference.
fn replay(interp: &mut Interp, text: &str) -> Result<usize, String> {
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().ok_or("empty trace")?)
        .map_err(|e| format!("bad header: {e}"))?;
    let roles = interp.role_names().to_vec();
    let want_roles: Vec<String> = header["roles"]
        .as_array()
        .ok_or("header without roles")?
        .iter()
        .map(|r| r.as_str().unwrap_or_default().to_string())
        .collect();
    if want_roles != roles {
        return Err(format!("roles {roles:?}, oracle {want_roles:?}"));
    }
    let mut engine = InterpEngine::new(interp).map_err(|e| e.to_string())?;
    let mut checked = 0;
    for (no, line) in lines.enumerate() {
        let rec: Value = serde_json::from_str(line).map_err(|e| format!("line {}: {e}", no + 2))?;
        let (playout, step) = (
            rec["playout"].as_u64().unwrap_or(0),
            rec["step"].as_u64().unwrap_or(0),
        );
        if step == 0 {
            engine.restart().map_err(|e| e.to_string())?;
        }
        let v = engine.view().map_err(|e| format!("line {}: {e}", no + 2))?;
        let end = LineEnd::of_oracle_line(&rec, &roles, &v);
        let ours = propnet_compiler::interp::trace::step_line(&roles, playout, step, &v, &end);
        if ours != line {
            return Err(format!(
                "line {} differs:\n  oracle: {line}\n  interp: {ours}",
                no + 2
            ));
        }
        checked += 1;
        if let LineEnd::Joint(texts) = &end {
            let mut joint = Vec::new();
            for (t, legal) in texts.iter().zip(&v.legal) {
                match legal.iter().position(|s| s == t) {
                    Some(i) => joint.push(i),
                    None => return Err(format!("line {}: move {t} not legal", no + 2)),
                }
            }
            engine
                .play(&joint)
                .map_err(|e| format!("line {}: {e}", no + 2))?;
        }
    }
    Ok(checked)
}

#[test]
fn oracle_traces_replay_identically() {
    let Some(shared) = shared_dir() else { return };
    let mut files = traces(&shared);
    assert!(
        files.len() >= 100,
        "expected the corpus traces, found {}",
        files.len()
    );
    // While iterating: PROPNET_REPLAY_ONLY=substring replays only the matching traces.
    let only = std::env::var("PROPNET_REPLAY_ONLY").ok();
    if let Some(only) = &only {
        files.retain(|f| f.display().to_string().contains(only.as_str()));
        eprintln!("PROPNET_REPLAY_ONLY={only}: {} traces", files.len());
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(t) = files.get(i) else { break };
                let start = std::time::Instant::now();
                let outcome = check_game(&shared, t);
                eprintln!("  {:6.2} s  {}", start.elapsed().as_secs_f64(), t.display());
                results.lock().expect("no poisoned lock").push(outcome);
            });
        }
    });
    let results = results.into_inner().expect("no poisoned lock");
    let (mut passed, mut rejected, mut lines) = (0, 0, 0);
    let mut failures = Vec::new();
    for r in results {
        match r {
            Outcome::Passed(n) => {
                passed += 1;
                lines += n;
            }
            Outcome::Rejected => rejected += 1,
            Outcome::Failed(e) => failures.push(e),
        }
    }
    eprintln!(
        "oracle replay: {passed} of {} games identical ({lines} lines), {rejected} rejected as invalid",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} games differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(passed + rejected, files.len());
    if only.is_none() {
        assert_eq!(rejected, REJECTED.len());
    }
}

/// Generates the whole trace of `rel` from the oracle's seed and compares the step lines.
fn check_generated(shared: &Path, rel: &str) {
    let t = shared.join("traces").join(rel).with_extension("jsonl");
    let text = std::fs::read_to_string(&t).expect("readable trace");
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().expect("header")).expect("json header");
    let oracle: Vec<&str> = lines.collect();
    assert!(!oracle.is_empty(), "{rel}: trace has no step lines");
    assert!(
        !oracle
            .last()
            .is_some_and(|l| l.contains("\"truncated\":true")),
        "{rel}: trace was cut by its size cap; pick a complete one"
    );
    let playouts = oracle.iter().filter(|l| l.contains("\"step\":0,")).count() as u64;
    let game =
        gdl::load(&shared.join("games").join(rel).with_extension("kif")).expect("game loads");
    let mut interp = Interp::new(&game.program).expect("interpreter");
    let mut engine = InterpEngine::new(&mut interp).expect("initial state");
    let opts = TraceOptions {
        game: header["game"].as_str().expect("game name").to_string(),
        playouts,
        seed: header["seed"].as_u64().expect("seed"),
        max_steps: header["max_steps"].as_u64().expect("max_steps"),
        stop_after: None,
    };
    let mut ours = Vec::new();
    trace(&mut engine, &opts, |l| ours.push(l.to_string())).expect("trace runs");
    let our_header: Value = serde_json::from_str(&ours[0]).expect("our header is JSON");
    for k in ["game", "roles", "seed", "rng", "max_steps"] {
        assert_eq!(our_header[k], header[k], "{rel}: header field {k}");
    }
    assert_eq!(ours.len() - 1, oracle.len(), "{rel}: number of step lines");
    for (i, (a, b)) in ours[1..].iter().zip(&oracle).enumerate() {
        assert_eq!(a, b, "{rel}: step line {} differs", i + 1);
    }
}

#[test]
fn generated_traces_match_oracle() {
    let Some(shared) = shared_dir() else { return };
    for rel in [
        "ggp-repository/ticTacToe",
        "ggp-repository/connectFour",
        "ggp-repository/breakthrough",
        "ggp-repository/connectFourSimultaneous",
        "ggpserver-benderng/SimultaneousTicTacToe",
    ] {
        check_generated(&shared, rel);
    }
}
