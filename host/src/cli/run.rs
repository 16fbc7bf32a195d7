//! `propnet run GAME.kif`: random playouts from the initial state with throughput figures.

use super::args::whole;
use super::common::MAX_STEPS;
use super::run_report::{print_report, ProgramSize};
use anyhow::bail;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use propnet_fpga::FpgaTarget;
use propnet_host::select::{make_backend, BackendKind, BackendOptions};
use propnet_netlist::ValidNetlist;
use propnet_runtime::backend::Backend;
use propnet_runtime::goals::GoalAudit;
use propnet_runtime::measure::{measure, Totals};
use propnet_runtime::pipeline::CompileReport;
use propnet_sim::{CpuBackend, CpuOptions, SUPPORTED_LANES};
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
    /// finished, so a run lasts at least one block of playouts per thread, or 8,192
    /// playouts per thread where the CPU simulator sorts lanes by key (chess: about 10 s
    /// on one core; later batches fill its pools of 32,768 lanes when the time allows).
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
    refuse_inapplicable_flags(&args)?;
    let (net, report) = super::load(&args.game, args.no_optimize)?;
    let playouts = match (args.playouts, args.seconds) {
        (None, None) => Some(100_000),
        (p, _) => p,
    };
    let opts = backend_options(&args);
    let mut chosen = RunBackend::new(&args, &net, &opts)?;
    let backend = chosen.as_dyn();
    let program = program_size(backend);
    let bar = progress_bar(&args, playouts)?;
    propnet_runtime::stop::set_graceful(true);
    let first_batch = backend.natural_batch();
    let t = measure(
        backend,
        playouts,
        args.seconds,
        args.seed,
        args.max_steps,
        first_batch,
        &bar,
    )?;
    bar.finish_and_clear();
    let audit = goal_audit(&net, &report, &args, &t);
    let backend = (backend.describe(), program);
    print_report(&args, &net, &report, backend, &t, &audit)?;
    if let (RunBackend::Profiled(cpu), Some(c)) = (&chosen, t.cpu) {
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

/// Refuses flags that cannot apply to the chosen backend, before a possibly long compile.
fn refuse_inapplicable_flags(args: &RunArgs) -> anyhow::Result<()> {
    let cpu_capable = matches!(args.backend, BackendKind::Cpu | BackendKind::Auto);
    if args.lanes.is_some() && !cpu_capable {
        bail!("--lanes sets the CPU backend's block width: use it with --backend cpu (or auto)");
    }
    if args.threads.is_some() && !cpu_capable {
        bail!(
            "--threads sets the CPU backend's worker threads: use it with --backend cpu (or auto)"
        );
    }
    let fpga_shape = args.fpga_engines.is_some() || args.fpga_records.is_some();
    if fpga_shape && args.backend != BackendKind::Fpga(FpgaTarget::Sim) {
        bail!("--fpga-engines and --fpga-records shape the simulated design: use them with --backend fpga:sim");
    }
    if args.profile && args.backend != BackendKind::Cpu {
        bail!("--profile times the CPU simulator: use it with --backend cpu (the default)");
    }
    Ok(())
}

/// The backends' options the flags set (threads, lanes, the simulated FPGA design).
fn backend_options(args: &RunArgs) -> BackendOptions {
    let mut opts = BackendOptions {
        cpu: CpuOptions {
            threads: args.threads.unwrap_or(0),
            lane_width: args.lanes.unwrap_or(CpuOptions::TUNED_LANES),
            ..Default::default()
        },
        ..BackendOptions::default()
    };
    let d = &mut opts.fpga.design;
    d.engines = args.fpga_engines.unwrap_or(d.engines);
    d.records = args.fpga_records.unwrap_or(d.records);
    opts
}

/// The backend a run measures: the CPU simulator with its phase timers (`--profile`), or
/// whatever `--backend` selects.
enum RunBackend {
    Profiled(Box<CpuBackend>),
    Selected(Box<dyn Backend>),
}

impl RunBackend {
    /// Makes the backend; a selection note (e.g. why `auto` fell back to the CPU) goes to
    /// stderr.
    fn new(args: &RunArgs, net: &ValidNetlist, opts: &BackendOptions) -> anyhow::Result<Self> {
        if args.profile {
            let mut cpu = CpuBackend::new(net.clone(), opts.cpu.clone())?;
            cpu.enable_profile();
            return Ok(Self::Profiled(Box::new(cpu)));
        }
        let selected = make_backend(args.backend.clone(), net.clone(), opts)?;
        if let Some(note) = &selected.note {
            eprintln!("{note}");
        }
        Ok(Self::Selected(selected.backend))
    }

    fn as_dyn(&mut self) -> &mut dyn Backend {
        match self {
            Self::Profiled(cpu) => cpu.as_mut(),
            Self::Selected(b) => b.as_mut(),
        }
    }
}

/// The CPU program's size, when the backend runs one (not the GPU's or the reference's).
fn program_size(backend: &dyn Backend) -> Option<ProgramSize> {
    let size = backend.program_size()?;
    Some((size.core, size.goal, size.next, size.operands, size.tuning))
}

/// The progress bar of a run of `playouts` (or of `--seconds`, in milliseconds); hidden
/// with `--json` or when stderr is not a terminal.
fn progress_bar(args: &RunArgs, playouts: Option<u64>) -> anyhow::Result<ProgressBar> {
    let bar = match (playouts, args.seconds) {
        (Some(n), _) => ProgressBar::new(n),
        (None, Some(s)) => ProgressBar::new((s * 1000.0) as u64),
        _ => ProgressBar::hidden(),
    };
    if args.json || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} {elapsed} {msg}",
    )?);
    Ok(bar)
}

/// The goal policy's counter: the first playouts of this run, replayed (bounded). The
/// scalar replay reads every edge twice per step (about 2·10⁸ edges/s at least): as many
/// playouts as that estimate fits in the budget, so that every backend (same playouts)
/// replays the same sample and prints the same verdict, and none when one playout of the
/// run's mean length would take longer (chess: ~4 s), so the run is never late for it.
/// The replay's own time limit, ten budgets, only guards against a far-off estimate.
fn goal_audit(net: &ValidNetlist, report: &CompileReport, args: &RunArgs, t: &Totals) -> GoalAudit {
    let budget = Duration::from_millis(300);
    let mean_steps = t.agg.total_length as f64 / t.agg.playouts.max(1) as f64;
    let replay_secs = 2.0 * report.stats.edges as f64 * (mean_steps + 1.0) / 2.0e8;
    let fits = (budget.as_secs_f64() / replay_secs.max(1e-12))
        .floor()
        .min(256.0) as u64;
    let sample = t.agg.playouts.min(fits) as u32;
    if sample == 0 && t.agg.playouts > 0 {
        eprintln!(
            "goal audit: skipped (replaying one playout through the scalar evaluator would \
             take about {replay_secs:.1} s)"
        );
    }
    propnet_runtime::goals::audit(net, args.seed, args.max_steps, sample, 10 * budget)
}
