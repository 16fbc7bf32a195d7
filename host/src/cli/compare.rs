//! `propnet compare GAMES… --reasoners LIST`: throughput of our reasoners and anyone's on
//! the same games, in one run, with an optional correctness gate; writes a table, CSV,
//! JSON and plots.

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use propnet_compare::output::write_all;
use propnet_compare::reasoner::{check_unique, Reasoner};
use propnet_compare::report::{set_speedups, Report, Row, Status};
use propnet_compare::runner::{run as run_compare, steps, Options, VerifyOptions};
use propnet_compare::stamp::HostStamp;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `propnet compare`.
#[derive(clap::Args, Debug)]
pub struct CompareArgs {
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

/// Runs `propnet compare`.
pub fn run(args: CompareArgs) -> anyhow::Result<()> {
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
    let opts = options(&args, list)?;
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
    let mut rows = run_compare(&args.games, &opts, &bar);
    bar.finish_and_clear();
    set_speedups(&mut rows, &baseline);
    let report = Report {
        machine,
        command: std::env::args().collect(),
        seconds: opts.seconds,
        rounds: opts.rounds,
        max_steps: opts.max_steps,
        baseline,
        rows,
    };
    let written = write_all(&report, &args.out)
        .with_context(|| format!("writing into {}", args.out.display()))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
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
