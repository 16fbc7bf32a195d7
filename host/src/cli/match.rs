//! `propnet match GAME --players A,B --games N`: plays a match rotating seats; with
//! `http://HOST:PORT` players (or `--startclock`/`--playclock`/`--record-dir`) it is a GGP
//! game manager (see `cli/manage.rs`).

use super::args::whole;
use super::common::{make_player, MctsFlags, MAX_STEPS};
use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use propnet_mcts::matches::{
    play_game_from, player_scores, random_opening, seats_for, Estimate, GameRecord, CHANCE_SEAT,
};
use propnet_mcts::player::{Player, SearchTotals};
use propnet_netlist::ValidNetlist;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Arguments of `propnet match`.
#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    /// The game (GDL `.kif`, or a `.json` netlist).
    pub game: PathBuf,
    /// Comma-separated player specs, one per role but `random` (the referee plays it):
    /// `random`, `mcts:cpu:1s`, `mcts:cpu:5000`, with options after the budget (e.g.
    /// `mcts:cpu:1s:factored`: one tree per factor of a sum of games; `mcts:cpu:1s:c0.7`;
    /// a wrong option lists them all); for a GDL-II game `random`, `belief:cpu:1s`
    /// (information-set MCTS over a belief) or `pimc:cpu:1s` (UCT on sampled states).
    #[arg(long, value_delimiter = ',', required = true)]
    pub players: Vec<String>,
    /// Number of games; seats rotate each game. In a GDL-II game the games of one seat
    /// rotation share the referee's draws for `random` (games 2k and 2k+1 of a two-player
    /// match get the same deal, seats swapped).
    #[arg(long, default_value_t = 10, value_parser = whole::<u64>(1, 1_000_000))]
    pub games: u64,
    /// Base seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stop a game after this many joint moves (goals of the state reached count).
    #[arg(long, default_value_t = 10_000, value_parser = whole::<u32>(1, MAX_STEPS))]
    pub max_moves: u32,
    /// Play the first PLIES joint moves of every game at random (uniform legal moves), then
    /// let the players choose; each opening is played once per seat rotation (games
    /// 2k and 2k+1 of a two-player match share one). Fixed-seed searches otherwise replay
    /// the same few games, so a match between them measures a handful of lines. In-process
    /// players only.
    #[arg(long, value_name = "PLIES", default_value_t = 0, value_parser = whole::<u32>(0, MAX_STEPS))]
    pub opening: u32,
    /// Write every game (seats, moves, goals) to this JSON file (after the last game).
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
    check_outputs(&args)?;
    if super::manage::is_manager(&args) {
        return super::manage::run(&args);
    }
    let (net, _) = super::load(&args.game, args.no_optimize)?;
    if net.netlist().gdl2 {
        return super::match_hidden::run(&args, &net);
    }
    if let Some(w) = propnet_runtime::goals::audit_sample(&net).warning() {
        eprintln!("{w}");
    }
    let mut players = make_players(&args, &net)?;
    let games = play_games(&args, &net, &mut players)?;
    if propnet_runtime::stop::requested() {
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
    warn_stuck(&games);
    let scores = player_scores(&games, players.len());
    let totals: Vec<_> = players.iter().map(|p| p.totals()).collect();
    print_scores(&args, &totals, &scores, (games.len(), ""))?;
    if let Some(path) = &args.json_out {
        let roles: Vec<String> = net.roles.iter().map(|r| r.name.clone()).collect();
        write_json_out(path, &args, &roles, &scores, &games)?;
    }
    Ok(())
}

/// Warns when games ended in a non-terminal state where a role had no legal move.
pub fn warn_stuck(games: &[GameRecord]) {
    let stuck = games.iter().filter(|g| g.end == "no legal move").count();
    if stuck > 0 {
        eprintln!(
            "warning: {} of {} ended in a non-terminal state where a role had no legal move \
             (an ill-formed game), scored by the goal values there",
            stuck,
            super::plural(games.len() as u64, "game")
        );
    }
}

/// The players of `--players`, one per role of `net`, each seeded from the base seed.
///
/// # Errors
/// When the number of players is not the number of roles, or a player spec is invalid.
fn make_players(args: &MatchArgs, net: &ValidNetlist) -> anyhow::Result<Vec<Box<dyn Player>>> {
    let seated = seated_roles(net).len();
    if args.players.len() != seated {
        let besides = match seated < net.roles.len() {
            true => " besides `random` (which the referee plays)",
            false => "",
        };
        bail!(
            "{} has {}{besides}, but {} given",
            args.game.display(),
            super::plural(seated as u64, "role"),
            match args.players.len() {
                1 => "1 player was".to_string(),
                n => format!("{n} players were"),
            }
        );
    }
    args.players
        .iter()
        .enumerate()
        .map(|(i, s)| {
            make_player(
                s,
                net,
                &args.mcts,
                args.seed.wrapping_add(i as u64 * 0x1_0000_0001),
            )
        })
        .collect()
}

/// The roles players hold: all but a role named `random`, which the referee plays
/// (uniformly, as GDL-II defines it).
pub fn seated_roles(net: &ValidNetlist) -> Vec<usize> {
    let chance = propnet_mcts::hidden::random_role(net);
    (0..net.roles.len())
        .filter(|&r| Some(r) != chance)
        .collect()
}

/// The seats of game `g`: players rotate over the roles of `seated`, the others (the
/// `random` role) are [`CHANCE_SEAT`].
pub fn seats_of(g: u64, roles: usize, seated: &[usize], players: usize) -> Vec<usize> {
    let rotation = seats_for(g, seated.len(), players);
    let mut seats = vec![CHANCE_SEAT; roles];
    for (k, &r) in seated.iter().enumerate() {
        seats[r] = rotation[k];
    }
    seats
}

/// Plays the `--games` games, rotating seats, with a progress bar. On an interrupt (Ctrl-C)
/// it stops after the current game, which is kept only when it finished.
///
/// # Errors
/// Backend errors of a game.
fn play_games(
    args: &MatchArgs,
    net: &ValidNetlist,
    players: &mut [Box<dyn Player>],
) -> anyhow::Result<Vec<GameRecord>> {
    let bar = ProgressBar::new(args.games);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games {elapsed}")
            .expect("valid template"),
    );
    let mut games = Vec::new();
    propnet_runtime::stop::set_graceful(true);
    let rotation = players.len().max(1) as u64;
    let seated = seated_roles(net);
    for g in 0..args.games {
        let seats = seats_of(g, net.roles.len(), &seated, players.len());
        let opening = random_opening(net, args.opening, opening_seed(args.seed, g / rotation));
        let mut game = play_game_from(
            net,
            players,
            &seats,
            game_seed(args.seed, g),
            args.max_moves,
            &opening,
        )?;
        game.index = g;
        if propnet_runtime::stop::requested() {
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
    Ok(games)
}

/// Prints the number of games played (`played.0`, followed by the note `played.1`) and
/// each player's mean score (with its search rates when it searched: `totals`).
///
/// # Errors
/// A write error on standard output.
pub fn print_scores(
    args: &MatchArgs,
    totals: &[Option<SearchTotals>],
    scores: &[Estimate],
    (played, note): (usize, &str),
) -> anyhow::Result<()> {
    outln!(
        "{} of {}{note}",
        super::plural(played as u64, "game"),
        args.game.display()
    )?;
    for (p, e) in scores.iter().enumerate() {
        out!("{:>24}: {}", args.players[p], e.describe(0.0, 100.0))?;
        match totals[p] {
            Some(t) if t.searches > 0 => outln!(
                "   search: {:.0} iterations/s, {:.0} playouts/s, backend {:.0}% of the time",
                t.iterations_per_second(),
                t.playouts as f64 / t.elapsed.as_secs_f64().max(1e-9),
                100.0 * t.backend_fraction()
            )?,
            _ => outln!()?,
        }
    }
    Ok(())
}

/// The seed of game `g` of a match with base seed `seed` (the players' `new_game` seed;
/// the manager's per-match seed).
pub fn game_seed(seed: u64, g: u64) -> u64 {
    seed.wrapping_mul(1_000_003).wrapping_add(g)
}

/// The seed of the `k`-th random opening of a match with base seed `seed`.
fn opening_seed(seed: u64, k: u64) -> u64 {
    game_seed(seed, k) ^ 0x6f70_656e_696e_6773
}

/// One game of `--json-out`: the game's record (`index` is the game index within the
/// match) and the seed it was played with.
#[derive(Serialize)]
struct PlayedGame<'a> {
    #[serde(flatten)]
    game: &'a GameRecord,
    seed: u64,
}

/// Writes the `--json-out` file: game, roles, players, base seed, scores and every game.
pub fn write_json_out(
    path: &Path,
    args: &MatchArgs,
    roles: &[String],
    scores: &[Estimate],
    games: &[GameRecord],
) -> anyhow::Result<()> {
    let games: Vec<PlayedGame<'_>> = games
        .iter()
        .map(|game| PlayedGame {
            game,
            seed: game_seed(args.seed, game.index),
        })
        .collect();
    let record = serde_json::json!({
        "game": args.game.display().to_string(),
        "roles": roles,
        "players": args.players,
        "seed": args.seed,
        "scores": scores,
        "games": games,
    });
    propnet_output::write(path, serde_json::to_string_pretty(&record)?)?;
    Ok(())
}

/// Checks `--json-out` and `--record-dir` before any game is played (both are written
/// only as games end): `--json-out` must name a file in an existing folder, and
/// `--record-dir` a folder, which is created here when missing.
fn check_outputs(args: &MatchArgs) -> anyhow::Result<()> {
    if args.opening > 0 && super::manage::is_manager(args) {
        bail!(
            "--opening: a GGP match starts from the game's initial state (the protocol cannot \
             start elsewhere); give --opening only to matches of in-process players"
        );
    }
    if let Some(p) = &args.json_out {
        propnet_output::check(p).map_err(|e| anyhow::anyhow!("--json-out: {e}"))?;
    }
    if let Some(d) = &args.manager.record_dir {
        if d.exists() && !d.is_dir() {
            bail!(
                "--record-dir {}: exists and is not a folder; give a folder (it is created when missing)",
                d.display()
            );
        }
        std::fs::create_dir_all(d)
            .with_context(|| format!("--record-dir {}: cannot create the folder", d.display()))?;
    }
    Ok(())
}
