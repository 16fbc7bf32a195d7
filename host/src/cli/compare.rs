//! `propnet compare GAMES… --reasoners LIST`: throughput of our reasoners and anyone's on
//! the same games, in one run, with an optional correctness gate; writes a table, CSV,
//! JSON and plots; with `--shard K/N`, one task's share of a sweep, merged afterwards by
//! `propnet compare merge` ([`super::compare_merge`]).

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use propnet_compare::output::write_all;
use propnet_compare::reasoner::{check_unique, Reasoner};
use propnet_compare::report::{set_speedups, Report, Row, Status};
use propnet_compare::runner::{game_labels, run as run_compare, steps, Options, VerifyOptions};
use propnet_compare::shard::{plan, Budget, CellPlan, GameSize, ShardRun, ShardSpec, Sweep};
use propnet_compare::stamp::HostStamp;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `propnet compare`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct CompareArgs {
    /// `merge`: one report from the reports of a sweep's shards.
    #[command(subcommand)]
    pub action: Option<CompareAction>,
    /// Game files (GDL).
    #[arg(required = true)]
    pub games: Vec<PathBuf>,
    /// Reasoners, comma separated (repeatable): interp, reference, cpu:1, cpu:all, cpu:K,
    /// gpu, ext:NAME=COMMAND (gdl-perf convention: `COMMAND GAME OUTFILE SECONDS`).
    #[arg(long, default_value = "interp,cpu:1,cpu:all")]
    pub reasoners: Vec<String>,
    /// An external reasoner whose command may hold commas: NAME=COMMAND (repeatable).
    #[arg(long = "ext", value_name = "NAME=COMMAND")]
    pub ext: Vec<String>,
    /// Seconds per sample (each reasoner, game and round).
    #[arg(long, default_value_t = 2.0, value_parser = super::args::seconds)]
    pub seconds: f64,
    /// Playouts per sample of the built-in reasoners instead of --seconds: a fixed amount
    /// of work that every run (and every shard) repeats exactly; external reasoners still
    /// run for --seconds.
    #[arg(long, value_parser = super::args::whole::<u64>(1, 1 << 32))]
    pub playouts: Option<u64>,
    /// Run only task K of N of the sweep (K from 0: `$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT`
    /// with `sbatch --array=0-…`): every task plans the same split of the (game, reasoner)
    /// cells, balanced by estimated cost; merge the tasks' --out folders with
    /// `propnet compare merge`. See docs/cluster.md.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<ShardSpec>,
    /// Rounds: samples per reasoner and game, interleaved A B A B …
    #[arg(long, default_value_t = 3, value_parser = super::args::whole::<u32>(1, 1000))]
    pub rounds: u32,
    /// Threads of `cpu:all` (0 or absent: every hardware thread).
    #[arg(long, value_parser = clap::value_parser!(u16).range(0..=1024))]
    pub threads: Option<u16>,
    /// Reasoner the speedups are relative to (default: the first one).
    #[arg(long)]
    pub baseline: Option<String>,
    /// Folder for compare.csv, compare.json, the plots and the work files.
    #[arg(long, default_value = "compare-results")]
    pub out: PathBuf,
    /// Correctness gate: check each reasoner's trace against the reference interpreter
    /// (the interpreter's against the netlist) before its speed counts.
    #[arg(long)]
    pub verify: bool,
    /// Joint moves each gate trace covers (whole playouts).
    #[arg(long, default_value_t = 200, value_parser = super::args::whole::<u64>(1, 10_000_000))]
    pub verify_steps: u64,
    /// Trace command of an external reasoner for `--verify`: NAME=COMMAND, run as
    /// `COMMAND GAME OUTFILE STATE_CHANGES` (gdl-perf's correctness convention; repeatable).
    #[arg(long = "trace-cmd", value_name = "NAME=COMMAND")]
    pub trace_cmd: Vec<String>,
    /// Kill an external run after this many seconds (default: 2 × --seconds + 60).
    #[arg(long, value_parser = super::args::seconds)]
    pub kill_after: Option<f64>,
    /// Step limit per playout of the built-in reasoners.
    #[arg(long, default_value_t = 1000, value_parser = super::args::whole::<u32>(1, super::common::MAX_STEPS))]
    pub max_steps: u32,
    /// Seed of the built-in reasoners' playouts and gate traces.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the JSON report to stdout instead of the table.
    #[arg(long)]
    pub json: bool,
}

fn reasoners(args: &CompareArgs) -> anyhow::Result<Vec<Reasoner>> {
    let mut list = Vec::new();
    for l in &args.reasoners {
        list.extend(Reasoner::parse_list(l)?);
    }
    for e in &args.ext {
        list.push(Reasoner::external(e, e)?);
    }
    check_unique(&list)?;
    if list.is_empty() {
        bail!("no reasoner given (--reasoners interp,cpu:1 …)");
    }
    Ok(list)
}

fn options(args: &CompareArgs, list: Vec<Reasoner>) -> anyhow::Result<Options> {
    let mut trace_commands = Vec::new();
    for t in &args.trace_cmd {
        let Reasoner::External(c) =
            Reasoner::external(t, t).with_context(|| format!("bad --trace-cmd `{t}`"))?
        else {
            unreachable!("Reasoner::external builds an external reasoner");
        };
        if !list.iter().any(|r| r.label() == c.name) {
            bail!("--trace-cmd {}: no external reasoner of that name", c.name);
        }
        trace_commands.push(c);
    }
    let kill = args.kill_after.unwrap_or(2.0 * args.seconds + 60.0);
    Ok(Options {
        reasoners: list,
        seconds: args.seconds,
        playouts: args.playouts,
        cells: None,
        rounds: args.rounds,
        threads: match args.threads {
            None | Some(0) => propnet_runtime::measure::hardware_threads(),
            Some(n) => usize::from(n),
        },
        max_steps: args.max_steps,
        seed: args.seed,
        verify: args.verify.then_some(VerifyOptions {
            steps: args.verify_steps,
            trace_commands,
        }),
        kill_after: Duration::try_from_secs_f64(kill).context("--kill-after")?,
        work_dir: args.out.join("work"),
        backends: std::sync::Arc::new(propnet_host::select::Backends::default()),
    })
}

/// `compare`'s sub-commands.
#[derive(clap::Subcommand, Debug)]
pub enum CompareAction {
    /// Merge the reports of a sweep's shards (their --out folders, or compare.json files)
    /// into one: table, CSV, JSON and plots.
    Merge(super::compare_merge::MergeArgs),
}

/// The sweep's canonical arguments (`key=value`): everything that changes a cell's
/// result, each game with the FNV-1a hash of its contents, not `--shard`'s K, `--out` or
/// `--json`. Every task of a sweep computes the same list; its hash is the sweep id.
fn sweep_arguments(args: &CompareArgs, list: &[Reasoner], shards: u32) -> Vec<String> {
    let mut a = Vec::new();
    for g in &args.games {
        let hash = propnet_compiler::gdl::read_file(g).map_or("unreadable".into(), |b| {
            use propnet_compare::shard::{fnv1a, FNV_OFFSET};
            format!("{:016x}", fnv1a(b, FNV_OFFSET))
        });
        a.push(format!("game={} fnv1a={hash}", g.display()));
    }
    for r in list {
        let what = match r {
            Reasoner::External(c) => c.argv.join(" "),
            _ => String::new(),
        };
        a.push(
            format!("reasoner={} {what}", r.label())
                .trim_end()
                .to_string(),
        );
    }
    let opt = |x: Option<String>| x.unwrap_or_else(|| "-".into());
    a.extend([
        format!("seconds={}", args.seconds),
        format!("playouts={}", opt(args.playouts.map(|p| p.to_string()))),
        format!("rounds={}", args.rounds),
        format!("threads={}", opt(args.threads.map(|t| t.to_string()))),
        format!("baseline={}", opt(args.baseline.clone())),
        format!("verify={} steps={}", args.verify, args.verify_steps),
        format!("trace_cmd={}", args.trace_cmd.join(" ; ")),
        format!("kill_after={}", opt(args.kill_after.map(|k| k.to_string()))),
        format!("max_steps={}", args.max_steps),
        format!("seed={}", args.seed),
        format!("shards={shards}"),
    ]);
    a
}

/// The plan of the sweep: every cell with its shard, and this task's cells as a mask
/// (`None` when there is one task).
fn sweep_plan(args: &CompareArgs, opts: &Options, shards: u32) -> (Vec<CellPlan>, Vec<u32>) {
    let sizes: Vec<GameSize> = (args.games.iter())
        .map(|g| GameSize {
            bytes: std::fs::metadata(g).map_or(0, |m| m.len()),
        })
        .collect();
    let budget = Budget {
        seconds: opts.seconds,
        playouts: opts.playouts,
    };
    let samples = opts.rounds + u32::from(opts.verify.is_some());
    let shard_of = plan(
        &sizes,
        &opts.reasoners,
        budget,
        samples,
        opts.threads,
        shards,
    );
    let labels = game_labels(&args.games);
    let cells = (labels.iter())
        .flat_map(|g| opts.reasoners.iter().map(move |r| (g, r.label())))
        .zip(&shard_of)
        .map(|((game, reasoner), &shard)| CellPlan {
            game: game.clone(),
            reasoner,
            shard,
        })
        .collect();
    (cells, shard_of)
}

fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Runs `propnet compare` (or `compare merge`).
pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    if let Some(CompareAction::Merge(m)) = args.action {
        return super::compare_merge::run(m);
    }
    for g in &args.games {
        anyhow::ensure!(
            !g.is_dir(),
            "{}: is a directory, not a game file (give the games in it, e.g. {}/*.kif)",
            g.display(),
            g.display()
        );
        anyhow::ensure!(g.is_file(), "{}: no such game file", g.display());
    }
    let list = reasoners(&args)?;
    let baseline = args.baseline.clone().unwrap_or_else(|| list[0].label());
    anyhow::ensure!(
        list.iter().any(|r| r.label() == baseline),
        "--baseline {baseline}: not one of the reasoners"
    );
    let shard = args.shard.unwrap_or(ShardSpec { index: 0, count: 1 });
    let arguments = sweep_arguments(&args, &list, shard.count);
    let mut opts = options(&args, list)?;
    let (cells, shard_of) = sweep_plan(&args, &opts, shard.count);
    if shard.count > 1 {
        opts.cells = Some(shard_of.iter().map(|&k| k == shard.index).collect());
    }
    let mine = shard_of.iter().filter(|&&k| k == shard.index).count();
    propnet_output::folder(&args.out)?;
    std::fs::create_dir_all(&opts.work_dir)
        .with_context(|| format!("creating {}", opts.work_dir.display()))?;
    let machine = HostStamp::detect(propnet_host::select::gpu_adapter());
    let bar = ProgressBar::new(steps(args.games.len(), &opts));
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(ProgressStyle::with_template(
        "{bar:30} {pos}/{len} {elapsed} {msg}",
    )?);
    let started = (unix_now(), std::time::Instant::now());
    let sharded = shard.count > 1;
    if sharded {
        eprintln!(
            "shard {shard} on {}: {mine} of {} cells",
            machine.host,
            cells.len()
        );
    }
    let mut done = 0;
    let mut rows = run_compare(&args.games, &opts, &bar, &mut |r: &Row| {
        done += 1;
        if sharded {
            bar.suspend(|| {
                eprintln!(
                    "shard {shard}: {done}/{mine} {} / {} {} {} ({:.0} s)",
                    r.game,
                    r.reasoner,
                    r.status.word(),
                    propnet_compare::report::spread_text(r.playouts_per_second),
                    started.1.elapsed().as_secs_f64()
                );
            });
        }
    });
    bar.finish_and_clear();
    for r in &mut rows {
        r.shard = Some(shard.index);
    }
    set_speedups(&mut rows, &baseline);
    let command: Vec<String> = std::env::args().collect();
    let run = ShardRun {
        shard,
        machine: machine.clone(),
        command: command.clone(),
        started_unix: started.0,
        seconds: started.1.elapsed().as_secs_f64(),
        file: None,
    };
    let report = Report {
        machine,
        command,
        seconds: opts.seconds,
        rounds: opts.rounds,
        max_steps: opts.max_steps,
        playouts: opts.playouts,
        baseline,
        rows,
        sweep: Some(Sweep {
            id: propnet_compare::shard::sweep_id(&arguments),
            arguments,
            shards: shard.count,
            cells,
            runs: vec![run],
        }),
    };
    finish(&report, &args.out, args.json)
}

/// Writes `report`'s files into `out`, prints the table (or the JSON with `json`) and
/// the plot warnings; an error when one of propnet's own reasoners did not measure.
pub(super) fn finish(report: &Report, out: &std::path::Path, json: bool) -> anyhow::Result<()> {
    let written =
        write_all(report, out).with_context(|| format!("writing into {}", out.display()))?;
    if json {
        println!("{}", serde_json::to_string_pretty(report)?);
    } else {
        print!("{}", report.table());
        let files: Vec<String> = written
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        println!("wrote {}", files.join(", "));
    }
    for w in &written.warnings {
        eprintln!("warning: {w}");
    }
    own_failures(&report.rows)
}

/// An error naming every row of propnet's own reasoners (interpreter, netlist backends)
/// that failed or diverged, e.g. on a game that does not load; `Ok` when there is none.
/// An outside reasoner's failure is a result of the comparison, not an error of it.
fn own_failures(rows: &[Row]) -> anyhow::Result<()> {
    let failed: Vec<String> = rows
        .iter()
        .filter(|r| r.kind != "external")
        .filter(|r| matches!(r.status, Status::Failed(_) | Status::Diverged(_)))
        .map(|r| {
            let reason = r
                .status
                .reason()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            format!(
                "{} on {}: {} ({reason})",
                r.reasoner,
                r.game,
                r.status.word()
            )
        })
        .collect();
    anyhow::ensure!(
        failed.is_empty(),
        "{} row(s) of propnet's own reasoners did not measure (the results are written):\n  {}",
        failed.len(),
        failed.join("\n  ")
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cmd {
        #[command(flatten)]
        args: CompareArgs,
    }

    fn parse(args: &[&str]) -> Result<CompareArgs, clap::Error> {
        Cmd::try_parse_from(std::iter::once("compare").chain(args.iter().copied())).map(|c| c.args)
    }

    #[test]
    fn numeric_flags_are_validated() {
        for (flag, bad) in [
            ("--seconds", "0"),
            ("--seconds", "-1"),
            ("--seconds", "nan"),
            ("--seconds", "inf"),
            ("--seconds", "1e300"),
            ("--rounds", "0"),
            ("--rounds", "-2"),
            ("--threads", "-1"),
            ("--threads", "99999"),
            ("--verify-steps", "0"),
            ("--kill-after", "0"),
            ("--max-steps", "0"),
        ] {
            assert!(parse(&["g.kif", flag, bad]).is_err(), "{flag} {bad}");
        }
        let a = parse(&[
            "g.kif",
            "--seconds",
            "0.3",
            "--rounds",
            "2",
            "--threads",
            "4",
        ])
        .unwrap();
        assert_eq!((a.seconds, a.rounds, a.threads), (0.3, 2, Some(4)));
        assert!(parse(&[]).is_err(), "a game is required");
    }

    #[test]
    fn reasoner_lists_and_trace_commands_are_checked() {
        let a = parse(&[
            "g.kif",
            "--reasoners",
            "interp,cpu:1",
            "--ext",
            "x=sh -c 'a,b'",
        ])
        .unwrap();
        let l = reasoners(&a).unwrap();
        assert_eq!(
            l.iter().map(Reasoner::label).collect::<Vec<_>>(),
            ["interp", "cpu:1", "x"]
        );
        let a = parse(&["g.kif", "--reasoners", "cpu:1", "--reasoners", "cpu:1"]).unwrap();
        assert!(reasoners(&a).is_err(), "duplicate");
        let a = parse(&["g.kif", "--reasoners", "tpu"]).unwrap();
        assert!(reasoners(&a).unwrap_err().to_string().contains("tpu"));
        let a = parse(&["g.kif", "--trace-cmd", "nobody=sh x"]).unwrap();
        let l = reasoners(&a).unwrap();
        assert!(options(&a, l).unwrap_err().to_string().contains("nobody"));
        let a = parse(&[
            "g.kif",
            "--ext",
            "p=sh p.sh",
            "--trace-cmd",
            "p=sh t.sh",
            "--verify",
        ])
        .unwrap();
        let o = options(&a, reasoners(&a).unwrap()).unwrap();
        assert_eq!(o.verify.unwrap().trace_commands[0].argv, ["sh", "t.sh"]);
        assert_eq!(o.kill_after, Duration::from_secs(64), "2 × 2 s + 60 s");
    }
}
