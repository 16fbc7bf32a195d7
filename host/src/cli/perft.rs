//! `propnet perft GAME.kif --depth D`: joint-move path counts per depth.

use propnet_host::perft::perft;
use std::path::PathBuf;

/// Arguments of `propnet perft`.
#[derive(clap::Args)]
pub struct PerftArgs {
    /// Game file (.kif).
    pub game: PathBuf,
    /// Deepest depth to count (at least 1).
    #[arg(long, default_value_t = 3, value_parser = parse_depth)]
    pub depth: u32,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Skip the optimization passes.
    #[arg(long)]
    pub no_optimize: bool,
}

/// Clap value parser of `--depth`: a whole number, at least 1.
fn parse_depth(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(0) => Err("the depth must be at least 1".to_string()),
        Ok(d) => Ok(d),
        Err(_) => Err(format!(
            "`{text}` is not a depth (a whole number, at least 1)"
        )),
    }
}

/// Runs `propnet perft`.
pub fn run(args: PerftArgs) -> anyhow::Result<()> {
    let (net, _) = super::load(&args.game, args.no_optimize)?;
    let layers = perft(&net, args.depth);
    if args.json {
        let v: Vec<_> = layers
            .iter()
            .enumerate()
            .map(|(i, l)| {
                serde_json::json!({"depth": i + 1, "nodes": l.nodes, "terminal": l.terminal_nodes,
                    "distinct_states": l.distinct_states, "no_legal_move": l.no_legal_move_nodes})
            })
            .collect();
        println!(
            "{}",
            serde_json::json!({"game": args.game.display().to_string(), "layers": v})
        );
    } else {
        println!(
            "{:>5} {:>16} {:>14} {:>12}",
            "depth", "nodes", "terminal", "states"
        );
        for (i, l) in layers.iter().enumerate() {
            println!(
                "{:>5} {:>16} {:>14} {:>12}",
                i + 1,
                l.nodes,
                l.terminal_nodes,
                l.distinct_states
            );
        }
    }
    Ok(())
}
