//! `propnet compile GAME.kif -o game.pnet [--emit json|text|dot]`: write the netlist.

use anyhow::Context;
use propnet_netlist::{to_dot, to_json, to_text};
use std::path::PathBuf;

/// Output format of `propnet compile`.
#[derive(Copy, Clone, Debug, clap::ValueEnum)]
pub enum Emit {
    /// JSON netlist (readable back by `netlist::from_json`).
    Json,
    /// Line-oriented text netlist.
    Text,
    /// Graphviz DOT.
    Dot,
}

/// Arguments of `propnet compile`.
#[derive(clap::Args)]
pub struct CompileArgs {
    /// Game file (.kif).
    pub game: PathBuf,
    /// Output file; standard output when absent.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Emit::Json)]
    pub emit: Emit,
    /// Skip the optimization passes.
    #[arg(long)]
    pub no_optimize: bool,
}

/// Runs `propnet compile`.
pub fn run(args: CompileArgs) -> anyhow::Result<()> {
    let (net, report) = super::load(&args.game, args.no_optimize)?;
    let text = match args.emit {
        Emit::Json => to_json(&net),
        Emit::Text => to_text(&net),
        Emit::Dot => to_dot(&net),
    };
    match &args.output {
        Some(p) => {
            std::fs::write(p, text).with_context(|| format!("writing {}", p.display()))?;
            let s = &report.stats;
            eprintln!(
                "{}: {} logic gates, {} latches, {} inputs, depth {}; compiled in {:.3} s -> {}",
                report.path,
                s.and + s.or + s.not,
                s.latches,
                s.inputs,
                s.depth,
                report.total_time().as_secs_f64(),
                p.display()
            );
        }
        None => out!("{text}")?,
    }
    Ok(())
}
