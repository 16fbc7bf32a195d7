//! `propnet verify GAME TRACE`: replays another reasoner's trace (the oracle's JSON lines
//! or gdl-perf's `!R!…` lines) through ours and reports the first divergence.

use super::trace::{with_engine, EngineArgs};
use anyhow::Context;
use propnet_compare::verify::{verify, VerifyError};
use std::path::PathBuf;

/// Arguments of `propnet verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The game: GDL rules (.kif), or with `--engine netlist` also a netlist (.json) from
    /// `propnet compile`.
    pub game: PathBuf,
    /// The trace to check: oracle JSON lines or a gdl-perf correctness trace (`-` = stdin).
    pub trace: PathBuf,
    /// Reasoner options.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Print one JSON object (the verdict) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `propnet verify`; a divergence is an error (exit status 1) after the report.
pub fn run(args: VerifyArgs) -> anyhow::Result<()> {
    let text = if args.trace.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading the trace from stdin")?
    } else {
        std::fs::read_to_string(&args.trace)
            .with_context(|| format!("cannot read {}", args.trace.display()))?
    };
    let trace_name = args.trace.display().to_string();
    let verdict = with_engine(&args.game, &args.engine, &mut |mut e| {
        verify(&mut e, &text).map_err(|err| match err {
            VerifyError::Malformed(m) => anyhow::anyhow!("{trace_name}:{m}"),
            other => anyhow::anyhow!("{trace_name}: {other}"),
        })
    })?;
    if args.json {
        println!("{}", serde_json::to_string(&verdict)?);
    } else {
        println!("{trace_name}: {}", verdict.summary());
        for n in &verdict.notes {
            println!("note: {n}");
        }
    }
    anyhow::ensure!(
        verdict.agrees(),
        "{trace_name} does not agree with {}",
        args.game.display()
    );
    Ok(())
}
