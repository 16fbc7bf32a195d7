//! `propnet bench [GAMES…]`: playouts/s per game and thread count, side by side with the
//! reference interpreter and the previous best run (`bench-results/cpu-latest.json`).

use super::run_report::RateBasis;
use anyhow::Context;
use indicatif::ProgressBar;
use propnet_compare::stamp::HostStamp;
use propnet_compiler::gdl;
use propnet_compiler::interp::{Interp, InterpError};
use propnet_host::select::{make_backend, BackendKind, BackendOptions};
use propnet_runtime::backend::Backend;
use propnet_runtime::measure::hardware_threads;
use propnet_runtime::measure::{interp_sample, measure, MeasureError};
use propnet_sim::CpuOptions;
use std::path::{Path, PathBuf};

/// Arguments of `propnet bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Game files; default: the bundled list (tictactoe, connect four, breakthrough,
    /// reversi/othello, checkers) from bench-games/ and the shared corpus, where present.
    pub games: Vec<PathBuf>,
    /// Thread counts to measure, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2", value_parser = super::args::threads)]
    pub threads: Vec<usize>,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 2.0, value_parser = super::args::seconds)]
    pub seconds: f64,
    /// Step limit per playout.
    #[arg(long, default_value_t = 1000, value_parser = super::args::whole::<u32>(1, super::common::MAX_STEPS))]
    pub max_steps: u32,
    /// Skip the reference interpreter.
    #[arg(long)]
    pub no_interp: bool,
    /// Previous-best file, read before and written after the run.
    #[arg(long, default_value = "bench-results/cpu-latest.json")]
    pub results: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Backend to measure; `--threads` applies to `cpu` only, other backends are measured
    /// once per game (row key `GAME/BACKEND`).
    #[arg(long, default_value = "cpu", value_parser = BackendKind::parse)]
    pub backend: BackendKind,
}

fn default_games() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let shared = root.join("../shared/games");
    let candidates = [
        root.join("bench-games/tictactoe.kif"),
        root.join("bench-games/connectfour.kif"),
        root.join("bench-games/breakthrough.kif"),
        shared.join("ggp-repository/reversi.kif"),
        shared.join("ggp-repository/checkers.kif"),
    ];
    candidates.into_iter().filter(|p| p.exists()).collect()
}

/// Random playouts/s of the reference GDL interpreter from the initial state for `seconds`
/// (the measurement `propnet compare` uses for `interp`).
/// `source`: the rules as the pipeline read them (a FIFO gives them once); `None` for a
/// netlist file, which has no rules to interpret.
fn interp_rate(
    game: &Path,
    source: Option<&propnet_compiler::kif::SourceFile>,
    seconds: f64,
    max_steps: u32,
) -> anyhow::Result<f64> {
    let Some(source) = source else {
        anyhow::bail!(
            "{}: a compiled netlist has no rules for the reference interpreter: pass \
             --no-interp, or bench the GDL file",
            game.display()
        );
    };
    let g = gdl::parse_source(source.name(), source.text().as_bytes())?;
    let located = |e: &InterpError| anyhow::anyhow!(g.source.locate(e.span(), e));
    let mut it = Interp::new(&g.program).map_err(|e| located(&e))?;
    let sample = interp_sample(&mut it, seconds, None, max_steps, 1).map_err(|e| match e {
        MeasureError::Interp(ie) => located(&ie),
        e => e.into(),
    })?;
    Ok(sample.playouts_per_second())
}

/// Short row label of a non-CPU backend: `gpu`, `ref`, `fpga:…`, or for `auto` what it
/// picked.
fn kind_name(kind: &BackendKind, b: &dyn Backend) -> String {
    match kind {
        BackendKind::Gpu => "gpu".into(),
        BackendKind::Reference => "ref".into(),
        BackendKind::Cpu => "cpu".into(),
        BackendKind::Auto if b.describe().starts_with("gpu") => "gpu".into(),
        BackendKind::Auto => "cpu".into(),
        BackendKind::Fpga(t) => t.to_string(),
    }
}

/// Runs `propnet bench`.
pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    let games = if args.games.is_empty() {
        default_games()
    } else {
        args.games.clone()
    };
    anyhow::ensure!(
        !games.is_empty(),
        "no games given and no bundled games found"
    );
    let (previous, results) = load_results(&args.results)?;
    let mut rows = Vec::new();
    let mut best = previous.clone();
    let mut failed = Vec::new();
    for game in &games {
        let name = game.file_stem().map_or_else(
            || game.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        let mut out = Tally {
            previous: &previous,
            best: &mut best,
            rows: &mut rows,
        };
        if let Err(e) = bench_game(&args, game, &name, &mut out) {
            // One bad game costs its own row only: the others are still measured and saved.
            let why = super::one_line(&e);
            eprintln!("{name}: failed: {why}");
            rows.push(serde_json::json!({ "game": name, "error": why }));
            failed.push(name);
        }
    }
    let machine = HostStamp::detect(propnet_host::select::gpu_adapter());
    if args.json {
        outln!(
            "{}",
            serde_json::json!({ "machine": machine, "rows": rows })
        )?;
    } else {
        outln!("machine: {}", machine.summary())?;
    }
    results.finish(serde_json::to_string_pretty(&best)?)?;
    anyhow::ensure!(
        failed.is_empty(),
        "{} of {} failed ({}; see above); the others' results are in {}",
        super::plural(failed.len() as u64, "game"),
        games.len(),
        failed.join(", "),
        args.results.display()
    );
    Ok(())
}

/// The previous best results at `path`, checked before anything is measured, and the
/// output the new best goes to at the end (opened now, so that an unwritable path or a
/// FIFO without a reader fails before minutes of measuring). `{}` when there is no file yet
/// (its folder is created) or it is empty, or the path is a FIFO or a device (written in
/// place, never read); else the file must be a JSON object of `"game/config":
/// {"playouts_per_second": …}` entries (as `bench` writes it), so that neither another file
/// nor a benchmark's results are lost.
fn load_results(path: &Path) -> anyhow::Result<(serde_json::Value, propnet_output::Output)> {
    let advice = "give another --results path, or remove the file to start afresh";
    let regular = match std::fs::metadata(path) {
        Ok(m) => m.is_file(),
        Err(_) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
            }
            false
        }
    };
    let output = propnet_output::Output::create(path)?;
    let text = if regular {
        // Bounded like every input (256 MiB): a results file is a few KB.
        let bytes = propnet_compiler::gdl::read_file(path)
            .with_context(|| format!("reading the results file {}", path.display()))?;
        String::from_utf8(bytes).map_err(|_| {
            anyhow::anyhow!(
                "{}: not a bench results file (not UTF-8 text); {advice}",
                path.display()
            )
        })?
    } else {
        String::new()
    };
    if text.trim().is_empty() {
        return Ok((serde_json::json!({}), output));
    }
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}: not a bench results file ({e}); {advice}",
            path.display()
        )
    })?;
    let entry_ok =
        |v: &serde_json::Value| v.get("playouts_per_second").is_some_and(|p| p.is_number());
    match value.as_object() {
        Some(map) if map.values().all(entry_ok) => {}
        _ => anyhow::bail!(
            "{}: not a bench results file (expected a JSON object of \"game/config\": {{\"playouts_per_second\": …}} entries); {advice}",
            path.display()
        ),
    }
    Ok((value, output))
}

/// Where [`bench_game`] records: the previous best results, the new best, the rows.
struct Tally<'a> {
    previous: &'a serde_json::Value,
    best: &'a mut serde_json::Value,
    rows: &'a mut Vec<serde_json::Value>,
}

/// Compiles and measures one game (every thread count asked for), printing its rows.
fn bench_game(
    args: &BenchArgs,
    game: &Path,
    name: &str,
    out: &mut Tally<'_>,
) -> anyhow::Result<()> {
    let (net, report) = super::load(game, false)?;
    let logic = net.playout_gate_count() as f64;
    let interp = if args.no_interp {
        None
    } else {
        let source = report.source.as_ref();
        Some(interp_rate(game, source, args.seconds, args.max_steps)?)
    };
    // One measurement per thread count on the CPU, one per game elsewhere.
    let configs: Vec<Option<usize>> = if args.backend == BackendKind::Cpu {
        args.threads.iter().copied().map(Some).collect()
    } else {
        vec![None]
    };
    for threads in configs {
        let opts = BackendOptions {
            cpu: CpuOptions {
                threads: threads.unwrap_or(0),
                lane_width: CpuOptions::TUNED_LANES,
                ..Default::default()
            },
            ..BackendOptions::default()
        };
        let selected = make_backend(args.backend.clone(), net.clone(), &opts)?;
        if let Some(note) = &selected.note {
            eprintln!("{note}");
        }
        let mut b = selected.backend;
        let label = match threads {
            Some(0) => format!("t{}", hardware_threads()),
            Some(t) => format!("t{t}"),
            None => kind_name(&args.backend, b.as_ref()),
        };
        if threads.is_none() && !args.json {
            outln!("{name}: {}", b.describe())?;
        }
        let first_batch = b.natural_batch();
        let t = measure(
            b.as_mut(),
            None,
            Some(args.seconds),
            1,
            args.max_steps,
            first_batch,
            &ProgressBar::hidden(),
        )?;
        let sample = t.sample();
        let pps = sample.playouts_per_second();
        let gps = sample.states_per_second() * logic;
        // On a shared machine wall-clock rates undercount; per CPU-second is shown too, for
        // backends that compute on this process's CPU (not a board or its simulator).
        let per_cpu = sample
            .playouts_per_cpu_second()
            .filter(|_| RateBasis::of(&args.backend) == RateBasis::Host);
        let key = format!("{name}/{label}");
        let prev = out
            .previous
            .get(&key)
            .and_then(|v| v.get("playouts_per_second"))
            .and_then(|v| v.as_f64());
        if prev.is_none_or(|p| pps > p) {
            out.best[&key] =
                serde_json::json!({"playouts_per_second": pps, "gate_evals_per_second": gps});
        }
        out.rows.push(serde_json::json!({
            "game": name, "threads": threads, "backend": b.describe(), "config": label, "playouts_per_second": pps, "gate_evals_per_second": gps,
            "interp_playouts_per_second": interp, "playouts_per_cpu_second": per_cpu, "previous_best": prev,
            "logic_gates": logic, "compile_seconds": report.total_time().as_secs_f64(),
        }));
        if !args.json {
            outln!(
                "{name:<16} {label:<4} {pps:>12.0} playouts/s ({:>10} per CPU-s) {gps:>10.3e} gate-evals/s  interp {:>10}  prev best {:>12}",
                per_cpu.map_or("-".into(), |v| format!("{v:.0}")),
                interp.map_or("-".into(), |v| format!("{v:.1}/s")),
                prev.map_or("-".into(), |v| format!("{v:.0}/s"))
            )?;
        }
    }
    Ok(())
}
