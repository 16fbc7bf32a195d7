//! GDL-II conformance with the SWI-Prolog oracle (#41): every golden trace of
//! `shared/traces-gdl2` is generated again from its seed (same playouts, same step limit,
//! `random` drawing like every role) by the reference interpreter and by the compiled
//! netlist (its percept outputs; scalar and CPU-program evaluation), and every step line,
//! percepts (`"sees"`) included, must be byte-identical; the header must say `"gdl":"II"`
//! exactly when the oracle's does. The games `traces-gdl2/README.md` lists as faulty must
//! be rejected with a located error naming the defect.

use propnet_compiler::gdl;
use propnet_compiler::interp::trace::{trace, InterpEngine, TraceEngine, TraceOptions};
use propnet_compiler::interp::Interp;
use propnet_runtime::net_trace::{NetTrace, TraceBackend};
use propnet_runtime::pipeline::{load_netlist, PipelineOptions};
use propnet_tests::shared_dir;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The faulty games of `traces-gdl2/README.md`, with what their error must say (besides
/// `file:line:column`).
const FAULTY: &[(&str, &[&str])] = &[
    (
        "mastermind.kif",
        &["(sees robot", "GDL-II allows `sees` only in rule heads"],
    ),
    (
        "numberguessing.gdl",
        &["`true` takes 1 argument, found 2", "secretnumber"],
    ),
    (
        "ConnectThreeDecompositionII.gdl",
        &["`true` cannot be used in a rule head"],
    ),
    (
        "nim-stochastic-1-5.gdl",
        &["unsafe variable ?x", "(legal random (add ?x 1))"],
    ),
    ("oneCardGame.gdl", &["unsafe variable"]),
];

/// Games whose grounding is too big for a test run (SmallDominion2 stops at the default
/// grounding budget after about a minute).
const TOO_BIG_TO_GROUND: &[&str] = &["SmallDominion2"];

/// Which reasoner generates the trace.
#[derive(Copy, Clone, Debug)]
enum Engine {
    Interp,
    Netlist(TraceBackend),
}

/// The game file of trace `t` (same base name, `.gdl` or `.kif`, in `games-gdl2`).
fn game_of(shared: &Path, t: &Path) -> PathBuf {
    let stem = t.file_stem().expect("a file name");
    let games = shared.join("games-gdl2");
    ["gdl", "kif"]
        .iter()
        .map(|ext| games.join(stem).with_extension(ext))
        .find(|g| g.is_file())
        .unwrap_or_else(|| panic!("no game for {}", t.display()))
}

/// The trace lines `engine` generates.
fn generate<E: TraceEngine>(engine: &mut E, opts: &TraceOptions) -> Result<Vec<String>, String>
where
    E::Error: std::fmt::Display,
{
    let mut ours = Vec::new();
    trace(engine, opts, |l| ours.push(l.to_string())).map_err(|e| e.to_string())?;
    Ok(ours)
}

/// Generates the trace of `t` from its header's seed with `kind` and compares it; `Err`
/// says where it first differs. `Ok` gives the number of step lines.
fn check_trace(shared: &Path, t: &Path, kind: Engine) -> Result<usize, String> {
    let text = std::fs::read_to_string(t).map_err(|e| e.to_string())?;
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().ok_or("empty trace")?)
        .map_err(|e| format!("bad header: {e}"))?;
    let oracle: Vec<&str> = lines.collect();
    // a trace capped for size may end with a cut playout: its step is the limit
    let header_max = header["max_steps"].as_u64().ok_or("no max_steps")?;
    let cut = oracle.last().and_then(|l| {
        let v: Value = serde_json::from_str(l).ok()?;
        v["truncated"].as_bool()?.then(|| v["step"].as_u64())?
    });
    let opts = TraceOptions {
        game: header["game"].as_str().ok_or("no game name")?.to_string(),
        playouts: oracle.iter().filter(|l| l.contains("\"step\":0,")).count() as u64,
        seed: header["seed"].as_u64().ok_or("no seed")?,
        max_steps: cut.unwrap_or(header_max),
        stop_after: None,
    };
    let path = game_of(shared, t);
    let ours = match kind {
        Engine::Interp => {
            let game = gdl::load(&path).map_err(|e| format!("front end: {e}"))?;
            let mut interp = Interp::new(&game.program).map_err(|e| format!("interpreter: {e}"))?;
            generate(
                &mut InterpEngine::new(&mut interp).map_err(|e| e.to_string())?,
                &opts,
            )?
        }
        Engine::Netlist(backend) => {
            let (net, _) = load_netlist(&path, &PipelineOptions::default())
                .map_err(|e| format!("compile: {e}"))?;
            let backends = propnet_host::select::Backends::default();
            let mut engine =
                NetTrace::new(net.netlist(), backend, &backends).map_err(|e| e.to_string())?;
            let stepped = engine
                .describe()
                .contains("every transition and its percepts");
            // games of this folder without `sees` or `random` are GDL: no step kernel
            if backend == TraceBackend::Gpu && net.gdl2 && !stepped {
                return Err(format!(
                    "not checked on the step kernel: {}",
                    engine.describe()
                ));
            }
            generate(&mut engine, &opts)?
        }
    };
    let our_header: Value = serde_json::from_str(&ours[0]).map_err(|e| e.to_string())?;
    for k in ["game", "roles", "seed", "rng", "gdl"] {
        if our_header[k] != header[k] {
            return Err(format!(
                "header field {k}: ours {}, oracle {}",
                our_header[k], header[k]
            ));
        }
    }
    for (i, (a, b)) in ours[1..].iter().zip(&oracle).enumerate() {
        if a != b {
            return Err(format!(
                "step line {} differs:\n  oracle: {b}\n  ours ({kind:?}): {a}",
                i + 1
            ));
        }
    }
    if ours.len() - 1 != oracle.len() {
        return Err(format!(
            "{} step lines, the oracle has {}",
            ours.len() - 1,
            oracle.len()
        ));
    }
    Ok(oracle.len())
}

fn golden_traces(shared: &Path) -> Vec<PathBuf> {
    let dir = shared.join("traces-gdl2");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    out.sort();
    out
}

/// Checks every golden trace (but those `skip` names) with `kind`.
fn check_all(kind: Engine, skip: &[&str]) {
    let Some(shared) = shared_dir() else { return };
    let mut files = golden_traces(&shared);
    assert!(files.len() >= 25, "expected the GDL-II golden traces");
    files.retain(|f| !skip.iter().any(|s| f.file_stem().is_some_and(|x| x == *s)));
    // While iterating: PROPNET_REPLAY_ONLY=substring checks only the matching traces.
    if let Ok(only) = std::env::var("PROPNET_REPLAY_ONLY") {
        files.retain(|f| f.display().to_string().contains(only.as_str()));
    }
    let mut failures = Vec::new();
    let (mut games, mut lines) = (0, 0);
    for t in &files {
        let start = std::time::Instant::now();
        match check_trace(&shared, t, kind) {
            Ok(n) => {
                games += 1;
                lines += n;
            }
            Err(e) => failures.push(format!("{}: {e}", t.display())),
        }
        eprintln!("  {:6.2} s  {}", start.elapsed().as_secs_f64(), t.display());
    }
    eprintln!(
        "GDL-II traces, {kind:?}: {games} of {} identical ({lines} lines)",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} traces differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn gdl2_golden_traces_are_generated_identically() {
    check_all(Engine::Interp, &[]);
}

/// The netlist's percept outputs, scalar evaluation of every gate.
#[test]
fn gdl2_golden_traces_from_the_netlist_reference_evaluation() {
    check_all(Engine::Netlist(TraceBackend::Reference), TOO_BIG_TO_GROUND);
}

/// The CPU backend's compiled program (its percept phase) on one 64-lane block.
#[test]
fn gdl2_golden_traces_from_the_cpu_program() {
    check_all(Engine::Netlist(TraceBackend::Cpu), TOO_BIG_TO_GROUND);
}

/// Games whose traces also run on the GPU (lavapipe in CI): every traced transition and
/// its percepts on the step kernel (straight-line up to 20,000 gates, interpreted above:
/// blackjack), every state as a one-step playout of the playout kernel. Two lists, two
/// tests, so that the test harness runs them side by side.
const ON_THE_GPU: &[&str] = &[
    "KriegTictactoe",
    "MontyHall",
    "minesweeper",
    "HiddenConnect",
    "ii_meier",
    "transit",
    "twogenerals",
    "blackjack",
    "BankerAndThief",
    "HoldYourCourseII",
    "MontyHall2",
    "kriegTTT_5x5",
    "CabbageGoatWolf",
    "beatMania",
    "guessSix",
    "rockpaperscissors",
    "tic-tac-toe-stochastic-3x3",
];

/// The slower ones on lavapipe with a cold shader cache: 9-16 s each (40-90 s, and over 5
/// minutes for BattleshipsFog, while their playout kernels were straight-line code).
const ON_THE_GPU_SLOWER: &[&str] = &[
    "BlindBreakthrough",
    "Mastermind448",
    "MontyHall-20door",
    "stratego",
    "vis_pacman3p",
    "BattleshipsFog",
    "backgammon",
];

/// The GPU's percept outputs (step kernel) equal the oracle's percepts, on the games of
/// `games`.
fn check_on_the_gpu(games: &[&str]) {
    if !propnet_kernels::runner::adapter_for_tests() {
        return;
    }
    let Some(shared) = shared_dir() else { return };
    let stems: Vec<String> = (golden_traces(&shared).iter())
        .filter_map(|t| t.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    for g in games {
        assert!(stems.iter().any(|s| s == g), "no golden trace {g}.jsonl");
    }
    let skip: Vec<String> = stems
        .into_iter()
        .filter(|s| !games.contains(&s.as_str()))
        .collect();
    let skip: Vec<&str> = skip.iter().map(String::as_str).collect();
    check_all(Engine::Netlist(TraceBackend::Gpu), &skip);
}

#[test]
fn gdl2_golden_traces_with_percepts_on_the_gpu() {
    check_on_the_gpu(ON_THE_GPU);
}

#[test]
fn gdl2_golden_traces_with_percepts_on_the_gpu_slower_games() {
    check_on_the_gpu(ON_THE_GPU_SLOWER);
}

#[test]
fn faulty_gdl2_games_get_located_errors() {
    let Some(shared) = shared_dir() else { return };
    for (file, needles) in FAULTY {
        let path = shared.join("games-gdl2").join(file);
        let err = match gdl::load(&path) {
            Ok(_) => panic!("{file}: loads, but traces-gdl2/README.md lists it as faulty"),
            Err(e) => e,
        };
        let msg = err.to_string();
        let loc = err
            .loc()
            .unwrap_or_else(|| panic!("{file}: no location: {msg}"));
        assert!(loc.line > 1, "{file}: located at the file's start: {msg}");
        assert!(
            msg.starts_with(&format!("{}:{}:", path.display(), loc.line)),
            "{file}: not located as file:line:column: {msg}"
        );
        for n in *needles {
            assert!(msg.contains(n), "{file}: error lacks {n:?}: {msg}");
        }
    }
}
