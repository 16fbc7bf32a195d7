//! `propnet perft GAME.kif --depth D`: joint-move path counts per depth, printed as each
//! depth completes; stops at a depth with no nodes, at the memory bound `--max-states`, or
//! when interrupted (SIGINT/SIGTERM).

use propnet_runtime::perft::{perft_each, PerftEnd, PerftLayer};
use std::path::PathBuf;

/// Arguments of `propnet perft`.
#[derive(clap::Args)]
pub struct PerftArgs {
    /// Game file (.kif).
    pub game: PathBuf,
    /// Deepest depth to count (1..=100000; counting stops earlier at a depth with no nodes).
    #[arg(long, default_value_t = 3, value_parser = super::args::whole::<u32>(1, 100_000))]
    pub depth: u32,
    /// Most distinct states held in one depth (the memory bound: two depths of about
    /// `latches + 50` bytes per state); counting stops before a depth that would hold more.
    #[arg(long, default_value_t = 1_000_000, value_parser = super::args::whole::<usize>(1, 1 << 32))]
    pub max_states: usize,
    /// Print one JSON object per depth (JSON lines), then one with how counting ended.
    #[arg(long)]
    pub json: bool,
    /// Skip the optimization passes.
    #[arg(long)]
    pub no_optimize: bool,
}

/// Runs `propnet perft`.
pub fn run(args: PerftArgs) -> anyhow::Result<()> {
    let (net, _) = super::load(&args.game, args.no_optimize)?;
    let game = args.game.display().to_string();
    if !args.json {
        outln!(
            "{:>5} {:>20} {:>20} {:>12}",
            "depth",
            "nodes",
            "terminal",
            "states"
        )?;
    }
    propnet_runtime::stop::set_graceful(true);
    let end = perft_each(&net, args.depth, args.max_states, |d, l: &PerftLayer| {
        if args.json {
            let v = serde_json::json!({"game": game, "depth": d, "nodes": l.nodes,
                "terminal": l.terminal_nodes, "distinct_states": l.distinct_states,
                "no_legal_move": l.no_legal_move_nodes});
            outln!("{v}")
        } else {
            outln!(
                "{:>5} {:>20} {:>20} {:>12}",
                d,
                l.nodes,
                l.terminal_nodes,
                l.distinct_states
            )
        }
    })?;
    let note = match end {
        PerftEnd::Depth => None,
        PerftEnd::NoNodes(d) => Some(format!(
            "depth {d} has no nodes (every path ended): deeper depths are empty; stopped"
        )),
        PerftEnd::TooManyStates(n) => Some(format!(
            "stopped: the next depth holds more than {n} distinct states (raise --max-states)"
        )),
        PerftEnd::Overflow(d) => Some(format!(
            "stopped: the path count of depth {d} passes 2^64 - 1"
        )),
        PerftEnd::Interrupted => Some("interrupted: the depths above are complete".into()),
    };
    if args.json {
        let v =
            serde_json::json!({"game": game, "end": note.as_deref().unwrap_or("depth reached")});
        outln!("{v}")?;
    } else if let Some(n) = note {
        eprintln!("{n}");
    }
    Ok(())
}
