//! What `propnet run` prints: rates, means and the netlist's size, as text or one JSON
//! object.

use super::plural;
use super::run::RunArgs;
use propnet_fpga::FpgaTarget;
use propnet_host::select::BackendKind;
use propnet_netlist::ValidNetlist;
use propnet_runtime::goals::GoalAudit;
use propnet_runtime::measure::{Totals, MIN_CPU_TIME};
use propnet_runtime::pipeline::CompileReport;

/// What a run's playouts per second measure: `Host` backends compute on this machine (the
/// CPU, a GPU), so a per-CPU-second rate is given too; an FPGA's rate is wall clock only
/// (a board's CPU time is the host waiting on the link), and `fpga:sim`'s is the speed of
/// the simulation, not of a board.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum RateBasis {
    Host,
    FpgaBoard,
    FpgaSimulation,
}

impl RateBasis {
    pub(super) fn of(kind: &BackendKind) -> Self {
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
/// [`propnet_sim::program::Program::tuning_summary`] says.
pub type ProgramSize = (usize, usize, usize, usize, String);

/// A run's figures: rates per wall-clock second (and per CPU-second where they mean
/// something) and the means over its playouts (`None` without playouts).
struct Figures {
    done: u64,
    secs: f64,
    pps: f64,
    sps: f64,
    gps: f64,
    logic: u64,
    basis: RateBasis,
    cpu_secs: Option<f64>,
    pp_cpu_s: Option<f64>,
    mean_goals: Option<Vec<f64>>,
    mean_len: Option<f64>,
}

impl Figures {
    fn of(args: &RunArgs, net: &ValidNetlist, t: &Totals) -> Self {
        let logic = net.playout_gate_count() as u64;
        let done = t.agg.playouts;
        let secs = t.elapsed.as_secs_f64().max(1e-9);
        let sps = t.agg.total_length as f64 / secs;
        // Per-CPU-second only for backends that compute on this machine's CPU (not a
        // board or its simulation) and when the CPU time is long enough to measure.
        let basis = RateBasis::of(&args.backend);
        let pp_cpu_s = t
            .cpu
            .filter(|&c| c >= MIN_CPU_TIME && done > 0 && basis == RateBasis::Host)
            .map(|c| done as f64 / c.as_secs_f64());
        let n = done as f64;
        Figures {
            done,
            secs,
            pps: done as f64 / secs,
            sps,
            gps: sps * logic as f64,
            logic,
            basis,
            cpu_secs: t.cpu.map(|c| c.as_secs_f64()),
            pp_cpu_s,
            mean_goals: (done > 0).then(|| t.agg.goal_sums.iter().map(|&g| g as f64 / n).collect()),
            mean_len: (done > 0).then(|| t.agg.total_length as f64 / n),
        }
    }
}

/// Prints the result of `propnet run` (text or one JSON object). With no playouts (a very
/// short or interrupted run) there are no rates and no means: it says `no playouts`.
pub fn print_report(
    args: &RunArgs,
    net: &ValidNetlist,
    report: &CompileReport,
    backend: (String, Option<ProgramSize>),
    t: &Totals,
    audit: &GoalAudit,
) -> anyhow::Result<()> {
    let f = Figures::of(args, net, t);
    if t.interrupted {
        eprintln!(
            "interrupted: reporting the {} done so far",
            plural(f.done, "playout")
        );
    }
    if let Some(w) = audit.warning() {
        eprintln!("{w}");
    }
    if args.json {
        print_json(args, net, report, backend, t, audit, &f)
    } else {
        print_netlist(net, report, backend)?;
        print_figures(report, t, &f)
    }
}

/// The `--json` object.
fn print_json(
    args: &RunArgs,
    net: &ValidNetlist,
    report: &CompileReport,
    (backend, program): (String, Option<ProgramSize>),
    t: &Totals,
    audit: &GoalAudit,
    f: &Figures,
) -> anyhow::Result<()> {
    let stats = net.stats();
    let v = serde_json::json!({
        "game": report.path,
        "backend": backend,
        "compile_seconds": report.total_time().as_secs_f64(),
        "netlist": {"and": stats.and, "or": stats.or, "not": stats.not, "const": stats.constants,
                    "latches": stats.latches, "inputs": stats.inputs, "edges": stats.edges, "depth": stats.depth},
        "program": program.as_ref().map(|(c, g, n, o, t)| serde_json::json!({"core": c, "goal": g, "next": n, "operands": o, "tuning": t})),
        "playouts": f.done,
        "interrupted": t.interrupted,
        "seconds": f.secs,
        "playouts_per_second": f.pps,
        "rate_basis": f.basis.key(),
        "cpu_seconds": f.cpu_secs,
        "playouts_per_cpu_second": f.pp_cpu_s,
        "states_per_second": f.sps,
        "gate_evals_per_second": f.gps,
        "roles": report.roles,
        "mean_goals": f.mean_goals,
        "mean_length": f.mean_len,
        "step_limit": t.agg.step_limit,
        "no_legal_move": t.agg.no_legal_move,
        "goal_audit": audit,
        "seed": args.seed,
        "max_steps": args.max_steps,
    });
    outln!("{v}")?;
    Ok(())
}

/// The text lines about the game, the backend, compile times and the netlist's size.
fn print_netlist(
    net: &ValidNetlist,
    report: &CompileReport,
    (backend, program): (String, Option<ProgramSize>),
) -> anyhow::Result<()> {
    let stats = net.stats();
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
    Ok(())
}

/// The text lines of rates and means (or that there were no playouts).
fn print_figures(report: &CompileReport, t: &Totals, f: &Figures) -> anyhow::Result<()> {
    let (Some(mean_goals), Some(mean_len)) = (&f.mean_goals, f.mean_len) else {
        outln!(
            "playouts     no playouts in {:.3} s (nothing to average)",
            f.secs
        )?;
        return Ok(());
    };
    let (done, secs, pps) = (f.done, f.secs, f.pps);
    outln!("playouts     {done} in {secs:.3} s")?;
    match f.basis {
        RateBasis::Host => {
            outln!("playouts/s   {pps:.0}")?;
            match (f.cpu_secs, f.pp_cpu_s) {
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
    outln!("states/s     {:.0} (joint moves)", f.sps)?;
    outln!(
        "gate-evals/s {:.3e} ({} logic gates per state)",
        f.gps,
        f.logic
    )?;
    let goals: Vec<String> = report
        .roles
        .iter()
        .zip(mean_goals)
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
