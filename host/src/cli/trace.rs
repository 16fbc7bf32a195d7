//! `propnet trace`: random playouts through the reference interpreter, printed in the
//! oracle's JSON Lines trace format.

use super::args::whole;
use super::common::MAX_STEPS;
use anyhow::Context;
use propnet_compiler::gdl;
use propnet_compiler::interp::trace::{trace, TraceOptions};
use propnet_compiler::interp::Interp;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `propnet trace`.
#[derive(clap::Args, Debug)]
pub struct TraceArgs {
    /// The game (GDL in KIF syntax).
    pub game: PathBuf,
    /// Number of playouts.
    #[arg(long, default_value_t = 1, value_parser = whole::<u64>(1, 1 << 32))]
    pub playouts: u64,
    /// SplitMix64 seed of the move choices (one stream for the whole run).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Joint moves after which a playout is cut (last line gets `"truncated": true`).
    #[arg(long, default_value_t = 500, value_parser = whole::<u64>(1, MAX_STEPS))]
    pub max_steps: u64,
}

/// Loads the game and writes the trace to stdout.
pub fn run(args: TraceArgs) -> anyhow::Result<()> {
    let game = gdl::load(&args.game)?;
    for w in &game.warnings {
        eprintln!("{w}");
    }
    let mut interp = Interp::new(&game.program)
        .with_context(|| format!("cannot prepare {}", args.game.display()))?;
    let name = args
        .game
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| args.game.display().to_string());
    let opts = TraceOptions {
        game: name,
        playouts: args.playouts,
        seed: args.seed,
        max_steps: args.max_steps,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut io_err = None;
    trace(&mut interp, &opts, |line| {
        if io_err.is_none() {
            if let Err(e) = writeln!(out, "{line}") {
                io_err = Some(e);
            }
        }
    })
    .with_context(|| format!("while tracing {}", args.game.display()))?;
    if let Some(e) = io_err {
        return Err(super::out::wrap(e));
    }
    out.flush().map_err(super::out::wrap)?;
    Ok(())
}
