//! `propnet compare merge DIR…`: the shards of a sweep (`compare --shard K/N`) merged into
//! one report, written like `compare`'s own ([`propnet_compare::merge`] says what is
//! checked).

use anyhow::Context;
use propnet_compare::merge::merge;
use std::path::PathBuf;

/// Arguments of `propnet compare merge`.
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The shards' output folders (each with its compare.json), or the files themselves.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
    /// Folder for the merged compare.csv, compare.json and plots.
    #[arg(long, default_value = "compare-merged")]
    pub out: PathBuf,
    /// Merge even when shards are missing (their cells are listed, not measured).
    #[arg(long)]
    pub partial: bool,
    /// Print the JSON report to stdout instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `propnet compare merge`.
pub fn run(args: MergeArgs) -> anyhow::Result<()> {
    let merged = merge(&args.shards, args.partial).context("compare merge")?;
    for w in &merged.warnings {
        eprintln!("warning: {w}");
    }
    let mut report = merged.report;
    report.command = std::env::args().collect();
    propnet_output::folder(&args.out)?;
    super::compare::finish(&report, &args.out, args.json)
}
