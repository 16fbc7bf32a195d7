//! `propnet run GAME.kif`: random playouts from the initial state with throughput figures.

use anyhow::bail;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use propnet_host::backend::{Backend, BatchRequest, Job, JobResult};
use propnet_host::select::{make_backend, BackendKind, BackendOptions};
use propnet_host::sim::program::Program;
use propnet_host::sim::CpuOptions;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `propnet run`.
#[derive(clap::Args)]
pub struct RunArgs {
    /// Game file (.kif).
    pub game: PathBuf,
    /// Number of playouts (default 100000 unless --seconds is given).
    #[arg(long, conflicts_with = "seconds", value_parser = clap::value_parser!(u64).range(1..))]
    pub playouts: Option<u64>,
    /// Run for this many seconds instead of a fixed count.
    #[arg(long, value_parser = super::common::parse_seconds)]
    pub seconds: Option<f64>,
    /// RNG seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads of the CPU backend (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Step limit per playout (joint moves).
    #[arg(long, default_value_t = 1000)]
    pub max_steps: u32,
    /// Lanes per block of the CPU backend (64, 128, 256, 512).
    #[arg(long, default_value_t = 256)]
    pub lanes: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Backend; `gpu` and `auto` print the adapter (name, API, driver) on the backend line.
    #[arg(long, default_value = "cpu", value_parser = BackendKind::parse)]
    pub backend: BackendKind,
    /// Skip the optimization passes.
    #[arg(long)]
    pub no_optimize: bool,
}

/// Totals of a measured run.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Aggregates over all playouts.
    pub agg: JobResult,
    /// Wall time of the playouts only.
    pub elapsed: Duration,
    /// CPU time of all threads of the process during the playouts (Linux only).
    pub cpu: Option<Duration>,
}

/// CPU time consumed so far by the live threads of this process, from
/// `/proc/self/task/*/schedstat` (nanoseconds on CPU); `None` off Linux. On a shared,
/// overloaded machine wall time says little; per-CPU-second rates stay meaningful.
pub fn process_cpu_time() -> Option<Duration> {
    let mut ns = 0u64;
    for e in std::fs::read_dir("/proc/self/task").ok()? {
        let s = std::fs::read_to_string(e.ok()?.path().join("schedstat")).ok()?;
        ns += s.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(ns))
}

/// Runs playouts from the initial state through `backend` until `playouts` are done or
/// `seconds` passed (whichever is given), in growing batches, updating `bar`.
pub fn measure(
    backend: &mut dyn Backend,
    playouts: Option<u64>,
    seconds: Option<f64>,
    seed: u64,
    max_steps: u32,
    bar: &ProgressBar,
) -> anyhow::Result<Totals> {
    let start = backend.netlist().initial_state();
    let roles = backend.netlist().roles.len();
    let mut t = Totals {
        agg: JobResult {
            goal_sums: vec![0; roles],
            ..Default::default()
        },
        ..Default::default()
    };
    let cpu0 = process_cpu_time();
    let t0 = Instant::now();
    let mut batch = 1024u64;
    let mut next_index = 0u64;
    loop {
        let count = match (playouts, seconds) {
            (Some(n), _) => batch.min(n - t.agg.playouts),
            (None, Some(s)) => {
                if t0.elapsed().as_secs_f64() >= s {
                    break;
                }
                batch
            }
            (None, None) => unreachable!("caller picks a default"),
        };
        if count == 0 {
            break;
        }
        if next_index + count > u64::from(u32::MAX) + 1 {
            bail!(
                "more than 2^32 playouts in one run: the playout index (RNG counter) would repeat"
            );
        }
        let bt = Instant::now();
        let req = BatchRequest {
            jobs: vec![Job {
                start: start.clone(),
                first_playout: next_index as u32,
                count: count as u32,
            }],
            seed,
            max_steps,
            want_records: false,
        };
        let res = backend.run_batch(&req)?;
        next_index += count;
        let r = &res.jobs[0];
        t.agg.playouts += r.playouts;
        for (a, b) in t.agg.goal_sums.iter_mut().zip(&r.goal_sums) {
            *a += b;
        }
        t.agg.total_length += r.total_length;
        t.agg.step_limit += r.step_limit;
        t.agg.no_legal_move += r.no_legal_move;
        bar.set_position(match seconds {
            Some(_) if playouts.is_none() => t0.elapsed().as_millis() as u64,
            _ => t.agg.playouts,
        });
        // Aim for batches of about 0.2 s so progress and the time limit stay responsive.
        if bt.elapsed() < Duration::from_millis(100) {
            batch = (batch * 2).min(1 << 24);
        }
    }
    t.elapsed = t0.elapsed();
    t.cpu = process_cpu_time()
        .zip(cpu0)
        .map(|(a, b)| a.saturating_sub(b));
    Ok(t)
}

/// Runs `propnet run`.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let (net, report) = super::load(&args.game, args.no_optimize)?;
    let stats = net.stats();
    let logic = net.logic_gate_count() as u64;
    let playouts = match (args.playouts, args.seconds) {
        (None, None) => Some(100_000),
        (p, _) => p,
    };
    let opts = BackendOptions {
        cpu: CpuOptions {
            threads: args.threads,
            lane_width: args.lanes,
        },
        ..BackendOptions::default()
    };
    let selected = make_backend(args.backend, net.clone(), &opts)?;
    if let Some(note) = &selected.note {
        eprintln!("{note}");
    }
    let mut backend = selected.backend;
    // The CPU program's size, compiled once: the CPU backend's own, else compiled here.
    let summary = |p: &Program| {
        let ops = p.core.args.len() + p.goal.args.len() + p.next.args.len();
        (p.core.len(), p.goal.len(), p.next.len(), ops)
    };
    let program = Some(match backend.cpu_program() {
        Some(p) => summary(p),
        None => summary(&Program::compile(&net, net.info())),
    });
    let hidden = args.json || !std::io::stderr().is_terminal();
    let bar = match (playouts, args.seconds) {
        (Some(n), _) => ProgressBar::new(n),
        (None, Some(s)) => ProgressBar::new((s * 1000.0) as u64),
        _ => ProgressBar::hidden(),
    };
    if hidden {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} {elapsed} {msg}",
    )?);
    let t = measure(
        backend.as_mut(),
        playouts,
        args.seconds,
        args.seed,
        args.max_steps,
        &bar,
    )?;
    bar.finish_and_clear();
    let secs = t.elapsed.as_secs_f64().max(1e-9);
    let n = t.agg.playouts.max(1) as f64;
    let pps = t.agg.playouts as f64 / secs;
    let sps = t.agg.total_length as f64 / secs;
    let gps = sps * logic as f64;
    let cpu_secs = t.cpu.map(|c| c.as_secs_f64().max(1e-9));
    let pp_cpu_s = cpu_secs.map(|c| t.agg.playouts as f64 / c);
    let mean_goals: Vec<f64> = t.agg.goal_sums.iter().map(|&g| g as f64 / n).collect();
    let mean_len = t.agg.total_length as f64 / n;
    if args.json {
        let v = serde_json::json!({
            "game": report.path,
            "backend": backend.describe(),
            "compile_seconds": report.total_time().as_secs_f64(),
            "netlist": {"and": stats.and, "or": stats.or, "not": stats.not, "const": stats.constants,
                        "latches": stats.latches, "inputs": stats.inputs, "edges": stats.edges, "depth": stats.depth},
            "program": program.map(|(c, g, n, o)| serde_json::json!({"core": c, "goal": g, "next": n, "operands": o})),
            "playouts": t.agg.playouts,
            "seconds": secs,
            "playouts_per_second": pps,
            "cpu_seconds": cpu_secs,
            "playouts_per_cpu_second": pp_cpu_s,
            "states_per_second": sps,
            "gate_evals_per_second": gps,
            "roles": report.roles,
            "mean_goals": mean_goals,
            "mean_length": mean_len,
            "step_limit": t.agg.step_limit,
            "no_legal_move": t.agg.no_legal_move,
            "seed": args.seed,
            "max_steps": args.max_steps,
        });
        println!("{v}");
        return Ok(());
    }
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    println!("game         {}", report.path);
    println!("backend      {}", backend.describe());
    println!(
        "compile      {:.3} s (parse {:.3}, ground {:.3}, optimize {:.3})",
        report.total_time().as_secs_f64(),
        report.parse_time.as_secs_f64(),
        report.ground_time.as_secs_f64(),
        report.optimize_time.as_secs_f64()
    );
    println!(
        "netlist      {} and, {} or, {} not, {} const; {} latches, {} inputs, {} edges, depth {}",
        stats.and,
        stats.or,
        stats.not,
        stats.constants,
        stats.latches,
        stats.inputs,
        stats.edges,
        stats.depth
    );
    if let Some((c, g, n, o)) = program {
        println!("cpu program  {c} core + {g} goal + {n} next instructions, {o} operands");
    }
    println!("playouts     {} in {:.3} s", t.agg.playouts, secs);
    println!("playouts/s   {pps:.0}");
    if let (Some(c), Some(p)) = (cpu_secs, pp_cpu_s) {
        println!("cpu time     {c:.3} s, {p:.0} playouts per CPU-second");
    }
    println!("states/s     {sps:.0} (joint moves)");
    println!("gate-evals/s {gps:.3e} ({logic} logic gates per state)");
    let goals: Vec<String> = report
        .roles
        .iter()
        .zip(&mean_goals)
        .map(|(r, g)| format!("{r} {g:.2}"))
        .collect();
    println!("mean goal    {}", goals.join(", "));
    println!("mean length  {mean_len:.2}");
    println!(
        "step limit   {}   no legal move {}",
        t.agg.step_limit, t.agg.no_legal_move
    );
    Ok(())
}
