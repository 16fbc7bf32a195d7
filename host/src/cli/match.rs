//! `propnet match GAME --players A,B --games N`: plays a match rotating seats; with
//! `http://HOST:PORT` players (or `--startclock`/`--playclock`) it is a GGP game manager
//! (see `cli/manage.rs`).

use super::args::whole;
use super::common::{make_player, MctsFlags, MAX_STEPS};
use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use propnet_host::arena::{play_game, player_scores, seats_for};
use std::path::PathBuf;

/// Arguments of `propnet match`.
#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    /// The game (GDL `.kif`, or a `.json` netlist).
    pub game: PathBuf,
    /// Comma-separated player specs, one per role: `random`, `mcts:cpu:1s`, `mcts:cpu:5000`.
    #[arg(long, value_delimiter = ',', required = true)]
    pub players: Vec<String>,
    /// Number of games; seats rotate each game.
    #[arg(long, default_value_t = 10, value_parser = whole::<u64>(1, 1_000_000))]
    pub games: u64,
    /// Base seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stop a game after this many joint moves (goals of the state reached count).
    #[arg(long, default_value_t = 10_000, value_parser = whole::<u32>(1, MAX_STEPS))]
    pub max_moves: u32,
    /// Write every game (seats, moves, goals) to this JSON file.
    #[arg(long)]
    pub json_out: Option<PathBuf>,
    /// Skip the optimization passes.
    #[arg(long)]
    pub no_optimize: bool,
    #[command(flatten)]
    pub mcts: MctsFlags,
    #[command(flatten)]
    pub manager: super::manage::ManagerFlags,
}

/// Plays the match and prints each player's mean score with its 95% confidence interval.
pub fn run(args: MatchArgs) -> anyhow::Result<()> {
    if super::manage::is_manager(&args) {
        return super::manage::run(&args);
    }
    let (net, _) = super::load(&args.game, args.no_optimize)?;
    if let Some(w) = propnet_host::goals::audit_sample(&net).warning() {
        eprintln!("{w}");
    }
    if args.players.len() != net.roles.len() {
        bail!(
            "{} has {}, but {} given",
            args.game.display(),
            super::plural(net.roles.len() as u64, "role"),
            match args.players.len() {
                1 => "1 player was".to_string(),
                n => format!("{n} players were"),
            }
        );
    }
    let mut players = args
        .players
        .iter()
        .enumerate()
        .map(|(i, s)| {
            make_player(
                s,
                &net,
                &args.mcts,
                args.seed.wrapping_add(i as u64 * 0x1_0000_0001),
            )
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let bar = ProgressBar::new(args.games);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games {elapsed}")
            .expect("valid template"),
    );
    let mut games = Vec::new();
    propnet_host::stop::set_graceful(true);
    for g in 0..args.games {
        let seats = seats_for(g, net.roles.len(), players.len());
        let game = play_game(
            &net,
            &mut players,
            &seats,
            args.seed.wrapping_mul(1_000_003).wrapping_add(g),
            args.max_moves,
        )?;
        if propnet_host::stop::requested() {
            // An interrupted game is unfinished: its goals are no score.
            if game.end != "interrupted" {
                games.push(game);
            }
            break;
        }
        games.push(game);
        bar.inc(1);
    }
    bar.finish_and_clear();
    if propnet_host::stop::requested() {
        eprintln!(
            "interrupted: reporting the {} finished of {}",
            super::plural(games.len() as u64, "game"),
            args.games
        );
    }
    if games.is_empty() {
        outln!("no games finished of {}: no scores", args.game.display())?;
        return Ok(());
    }
    let scores = player_scores(&games, players.len());
    outln!(
        "{} of {}",
        super::plural(games.len() as u64, "game"),
        args.game.display()
    )?;
    for (p, e) in scores.iter().enumerate() {
        out!(
            "{:>24}: {:6.2} ± {:5.2} (95% CI, n={})",
            args.players[p],
            e.mean,
            e.ci95,
            e.n
        )?;
        match players[p].totals() {
            Some(t) if t.searches > 0 => outln!(
                "   search: {:.0} iterations/s, {:.0} playouts/s, backend {:.0}% of the time",
                t.iterations_per_second(),
                t.playouts as f64 / t.elapsed.as_secs_f64().max(1e-9),
                100.0 * t.backend_fraction()
            )?,
            _ => outln!()?,
        }
    }
    if let Some(path) = &args.json_out {
        let record = serde_json::json!({
            "game": args.game.display().to_string(),
            "roles": net.roles.iter().map(|r| r.name.clone()).collect::<Vec<_>>(),
            "players": args.players,
            "seed": args.seed,
            "scores": scores,
            "games": games,
        });
        std::fs::write(path, serde_json::to_string_pretty(&record)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
