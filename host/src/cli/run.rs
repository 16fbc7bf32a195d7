//! `propnet run GAME.kif`: random playouts from the initial state with throughput figures.

use super::args::whole;
use super::common::MAX_STEPS;
use super::plural;
use anyhow::bail;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use propnet_host::backend::Backend;
use propnet_host::compare::measure::{measure, natural_batch, Totals, MIN_CPU_TIME};
use propnet_host::fpga::FpgaTarget;
use propnet_host::goals::GoalAudit;
use propnet_host::pipeline::CompileReport;
use propnet_host::select::{make_backend, BackendKind, BackendOptions};
use propnet_host::sim::program::Program;
use propnet_host::sim::{CpuBackend, CpuOptions, SUPPORTED_LANES};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `propnet run`.
#[derive(clap::Args)]
pub struct RunArgs {
    /// Game file (.kif).
    pub game: PathBuf,
    /// Number of playouts (default 100000 unless --seconds is given).
    #[arg(long, conflicts_with = "seconds", value_parser = whole::<u64>(1, 1 << 32))]
    pub playouts: Option<u64>,
    /// Run for this many seconds instead of a fixed count. Playouts already started are
    /// finished, so a run lasts at least one block of playouts per thread (a large game
    /// such as chess: several seconds).
    #[arg(long, value_parser = super::args::seconds)]
    pub seconds: Option<f64>,
    /// RNG seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads of the CPU backend (0 = all cores) [default: 0]. CPU backend only.
    #[arg(long, value_parser = super::args::threads)]
    pub threads: Option<usize>,
    /// Step limit per playout (joint moves).
    #[arg(long, default_value_t = 1000, value_parser = whole::<u32>(1, MAX_STEPS))]
    pub max_steps: u32,
    /// Lanes per block of the CPU backend: 64, 128, 256, 512, 1024, 2048, or `auto` (the
    /// first batches measure 512, 1024 and 2048 and the fastest is kept; results are the
    /// same at every width; the default). CPU backend only.
    #[arg(long, value_parser = parse_lanes)]
    pub lanes: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Backend; `gpu` and `auto` print the adapter (name, API, driver) on the backend line.
    #[arg(long, default_value = "cpu", value_parser = BackendKind::parse)]
    pub backend: BackendKind,
    /// Skip the optimization passes.
    #[arg(long)]
    pub no_optimize: bool,
    /// Engines of the design `--backend fpga:sim` simulates (1 to 64; default 2).
    #[arg(long, value_parser = whole::<u32>(1, 64))]
    pub fpga_engines: Option<u32>,
    /// Per-playout record slots per engine of the design `--backend fpga:sim` simulates
    /// (1 to 4096; default 256; a batch wanting records is split into runs of at most
    /// engines × records playouts).
    #[arg(long, value_parser = whole::<u32>(1, 4096))]
    pub fpga_records: Option<u32>,
    /// Time the CPU simulator's phases (gates, legal counting, RNG, choice, goals, refill)
    /// and print where each lane-step's time goes, and for programs with skip guards how
    /// many core operands a block step evaluates (CPU backend only).
    #[arg(long)]
    pub profile: bool,
}

/// Clap value parser of `--lanes`: `auto` ([`CpuOptions::TUNED_LANES`]) or one of
/// [`SUPPORTED_LANES`].
fn parse_lanes(text: &str) -> Result<usize, String> {
    let text = text.trim();
    if text == "auto" {
        return Ok(CpuOptions::TUNED_LANES);
    }
    match text.parse::<usize>() {
        Ok(w) if SUPPORTED_LANES.contains(&w) => Ok(w),
        _ => Err(format!(
            "`{text}` is not a lane width (auto, 64, 128, 256, 512, 1024 or 2048)"
        )),
    }
}

/// Runs `propnet run`.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    // Flags that cannot apply are refused before a possibly long compile.
    let cpu_capable = matches!(args.backend, BackendKind::Cpu | BackendKind::Auto);
    if args.lanes.is_some() && !cpu_capable {
        bail!("--lanes sets the CPU backend's block width: use it with --backend cpu (or auto)");
    }
    if args.threads.is_some() && !cpu_capable {
        bail!(
            "--threads sets the CPU backend's worker threads: use it with --backend cpu (or auto)"
        );
    }
    let (net, report) = super::load(&args.game, args.no_optimize)?;
    let playouts = match (args.playouts, args.seconds) {
        (None, None) => Some(100_000),
        (p, _) => p,
    };
    let mut opts = BackendOptions {
        cpu: CpuOptions {
            threads: args.threads.unwrap_or(0),
            lane_width: args.lanes.unwrap_or(CpuOptions::TUNED_LANES),
        },
        ..BackendOptions::default()
    };
    if args.fpga_engines.is_some() || args.fpga_records.is_some() {
        if args.backend != BackendKind::Fpga(FpgaTarget::Sim) {
            bail!("--fpga-engines and --fpga-records shape the simulated design: use them with --backend fpga:sim");
        }
        let d = &mut opts.fpga.design;
        d.engines = args.fpga_engines.unwrap_or(d.engines);
        d.records = args.fpga_records.unwrap_or(d.records);
    }
    let mut profiled = None;
    let mut boxed = None;
    if args.profile {
        if args.backend != BackendKind::Cpu {
            bail!("--profile times the CPU simulator: use it with --backend cpu (the default)");
        }
        let mut cpu = CpuBackend::new(net.clone(), opts.cpu.clone())?;
        cpu.enable_profile();
        profiled = Some(cpu);
    } else {
        let selected = make_backend(args.backend.clone(), net.clone(), &opts)?;
        if let Some(note) = &selected.note {
            eprintln!("{note}");
        }
        boxed = Some(selected.backend);
    }
    let backend: &mut dyn Backend = match (profiled.as_mut(), boxed.as_mut()) {
        (Some(cpu), _) => cpu,
        (None, Some(b)) => b.as_mut(),
        (None, None) => unreachable!("one backend was made above"),
    };
    // The CPU program's size, compiled once: the CPU backend's own, else compiled here.
    let summary = |p: &Program| {
        let ops = p.core.args.len() + p.goal.args.len() + p.next.args.len();
        (
            p.core.len(),
            p.goal.len(),
            p.next.len(),
            ops,
            p.tuning_summary(),
        )
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
    propnet_host::stop::set_graceful(true);
    let t = measure(
        backend,
        playouts,
        args.seconds,
        args.seed,
        args.max_steps,
        natural_batch(&args.backend, &opts),
        &bar,
    )?;
    bar.finish_and_clear();
    // The goal policy's counter: the first playouts of this run, replayed (bounded). The
    // scalar replay reads every edge twice per step (about 2·10⁸ edges/s at least): a
    // netlist whose one playout of the run's mean length would take longer than the
    // budget is not replayed at all (chess: ~4 s), so the run is never late for it.
    let budget = Duration::from_millis(300);
    let mean_steps = t.agg.total_length as f64 / t.agg.playouts.max(1) as f64;
    let replay_secs = 2.0 * report.stats.edges as f64 * (mean_steps + 1.0) / 2.0e8;
    let sample = if replay_secs > budget.as_secs_f64() {
        0
    } else {
        t.agg.playouts.min(256) as u32
    };
    if sample == 0 && t.agg.playouts > 0 {
        eprintln!(
            "goal audit: skipped (replaying one playout through the scalar evaluator would \
             take about {replay_secs:.1} s)"
        );
    }
    let audit = propnet_host::goals::audit(&net, args.seed, args.max_steps, sample, budget);
    print_report(
        &args,
        &net,
        &report,
        (backend.describe(), program),
        &t,
        &audit,
    )?;
    if let (Some(cpu), Some(c)) = (&profiled, t.cpu) {
        if let Some(times) = cpu.phase_times() {
            super::profile::print_profile(
                times,
                cpu.program(),
                t.agg.total_length,
                t.agg.playouts,
                c.as_secs_f64(),
            );
        }
    }
    Ok(())
}

/// What a run's playouts per second measure: `Host` backends compute on this machine (the
/// CPU, a GPU), so a per-CPU-second rate is given too; an FPGA's rate is wall clock only
/// (a board's CPU time is the host waiting on the link), and `fpga:sim`'s is the speed of
/// the simulation, not of a board.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum RateBasis {
    Host,
    FpgaBoard,
    FpgaSimulation,
}

impl RateBasis {
    fn of(kind: &BackendKind) -> Self {
        match kind {
            BackendKind::Fpga(FpgaTarget::Sim) => Self::FpgaSimulation,
            BackendKind::Fpga(FpgaTarget::Serial(_)) => Self::FpgaBoard,
            _ => Self::Host,
        }
    }
    /// The `rate_basis` value of `--json`.
    fn key(self) -> &'static str {
        match self {
            Self::Host => "wall clock and cpu time",
            Self::FpgaBoard => "wall clock (board)",
            Self::FpgaSimulation => "wall clock (fpga simulation speed, not board speed)",
        }
    }
}

/// The CPU program's size: core, goal and next instructions, operands, and what
/// [`Program::tuning_summary`] says.
type ProgramSize = (usize, usize, usize, usize, String);

/// Prints the result of `propnet run` (text or one JSON object). With no playouts (a very
/// short or interrupted run) there are no rates and no means: it says `no playouts`.
fn print_report(
    args: &RunArgs,
    net: &propnet_netlist::ValidNetlist,
    report: &CompileReport,
    (backend, program): (String, Option<ProgramSize>),
    t: &Totals,
    audit: &GoalAudit,
) -> anyhow::Result<()> {
    let stats = net.stats();
    let logic = net.logic_gate_count() as u64;
    let done = t.agg.playouts;
    let secs = t.elapsed.as_secs_f64().max(1e-9);
    let pps = done as f64 / secs;
    let sps = t.agg.total_length as f64 / secs;
    let gps = sps * logic as f64;
    // Per-CPU-second only for backends that compute on this machine's CPU (not a board or
    // its simulation) and when the CPU time is long enough to measure.
    let basis = RateBasis::of(&args.backend);
    let cpu_secs = t.cpu.map(|c| c.as_secs_f64());
    let pp_cpu_s = t
        .cpu
        .filter(|&c| c >= MIN_CPU_TIME && done > 0 && basis == RateBasis::Host)
        .map(|c| done as f64 / c.as_secs_f64());
    let n = done as f64;
    let mean_goals: Option<Vec<f64>> =
        (done > 0).then(|| t.agg.goal_sums.iter().map(|&g| g as f64 / n).collect());
    let mean_len = (done > 0).then(|| t.agg.total_length as f64 / n);
    if t.interrupted {
        eprintln!(
            "interrupted: reporting the {} done so far",
            plural(done, "playout")
        );
    }
    if let Some(w) = audit.warning() {
        eprintln!("{w}");
    }
    if args.json {
        let v = serde_json::json!({
            "game": report.path,
            "backend": backend,
            "compile_seconds": report.total_time().as_secs_f64(),
            "netlist": {"and": stats.and, "or": stats.or, "not": stats.not, "const": stats.constants,
                        "latches": stats.latches, "inputs": stats.inputs, "edges": stats.edges, "depth": stats.depth},
            "program": program.as_ref().map(|(c, g, n, o, t)| serde_json::json!({"core": c, "goal": g, "next": n, "operands": o, "tuning": t})),
            "playouts": done,
            "interrupted": t.interrupted,
            "seconds": secs,
            "playouts_per_second": pps,
            "rate_basis": basis.key(),
            "cpu_seconds": cpu_secs,
            "playouts_per_cpu_second": pp_cpu_s,
            "states_per_second": sps,
            "gate_evals_per_second": gps,
            "roles": report.roles,
            "mean_goals": mean_goals,
            "mean_length": mean_len,
            "step_limit": t.agg.step_limit,
            "no_legal_move": t.agg.no_legal_move,
            "goal_audit": audit,
            "seed": args.seed,
            "max_steps": args.max_steps,
        });
        outln!("{v}")?;
        return Ok(());
    }
    outln!("game         {}", report.path)?;
    outln!("backend      {backend}")?;
    outln!(
        "compile      {:.3} s (parse {:.3}, ground {:.3}, optimize {}){}",
        report.total_time().as_secs_f64(),
        report.parse_time.as_secs_f64(),
        report.ground_time.as_secs_f64(),
        match report.passes {
            Some(_) => format!("{:.3}", report.optimize_time.as_secs_f64()),
            None => "skipped".to_string(),
        },
        match (report.passes.is_none(), net.optimized) {
            (true, true) => " — the netlist file is already optimized",
            _ => "",
        }
    )?;
    outln!(
        "netlist      {} and, {} or, {} not, {} const; {} latches, {} inputs, {} edges, depth {}",
        stats.and,
        stats.or,
        stats.not,
        stats.constants,
        stats.latches,
        stats.inputs,
        stats.edges,
        stats.depth
    )?;
    if let Some((c, g, n, o, t)) = program {
        outln!("cpu program  {c} core + {g} goal + {n} next instructions, {o} operands ({t})")?;
    }
    let (Some(mean_goals), Some(mean_len)) = (mean_goals, mean_len) else {
        outln!("playouts     no playouts in {secs:.3} s (nothing to average)")?;
        return Ok(());
    };
    outln!("playouts     {done} in {secs:.3} s")?;
    match basis {
        RateBasis::Host => {
            outln!("playouts/s   {pps:.0}")?;
            match (cpu_secs, pp_cpu_s) {
                (Some(c), Some(p)) => {
                    outln!("cpu time     {c:.3} s, {p:.0} playouts per CPU-second")?
                }
                (Some(c), None) => {
                    outln!("cpu time     {c:.6} s: too short to measure a rate per CPU-second")?
                }
                _ => {}
            }
        }
        RateBasis::FpgaBoard => outln!(
            "playouts/s   {pps:.0} (wall clock: the board's engines and the UART link)"
        )?,
        RateBasis::FpgaSimulation => outln!(
            "playouts/s   {pps:.0} (wall clock, simulation speed of the Verilator model, not a board's)"
        )?,
    }
    outln!("states/s     {sps:.0} (joint moves)")?;
    outln!("gate-evals/s {gps:.3e} ({logic} logic gates per state)")?;
    let goals: Vec<String> = report
        .roles
        .iter()
        .zip(&mean_goals)
        .map(|(r, g)| format!("{r} {g:.2}"))
        .collect();
    outln!("mean goal    {}", goals.join(", "))?;
    outln!("mean length  {mean_len:.2}")?;
    outln!(
        "step limit   {}   no legal move {}",
        t.agg.step_limit,
        t.agg.no_legal_move
    )?;
    Ok(())
}
