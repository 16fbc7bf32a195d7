//! `propnet match` on a GDL-II game: the match is refereed in-process with hidden
//! information ([`propnet_mcts::hidden`]): the referee plays the `random` role, each player
//! learns only its own moves and percepts. Players: `random` and `belief:BACKEND:BUDGET`
//! (information-set MCTS over a particle belief); the perfect-information `mcts`
//! player is refused (it would read the hidden state).

use super::args::{real, whole};
use super::common::{parse_budget, MctsFlags};
use super::r#match::{game_seed, write_json_out, MatchArgs};
use anyhow::{anyhow, bail};
use propnet_host::select::BackendKind;
use propnet_mcts::hidden::{
    play_hidden_game, random_role, BeliefParams, BeliefPlayer, DeterminizedPlayer, HiddenPlayer,
    RandomHidden,
};
use propnet_mcts::matches::{player_scores, rotation_scores, GameRecord};
use propnet_netlist::ValidNetlist;

/// Plays the match of a GDL-II game and prints each player's mean score.
///
/// # Errors
/// Bad player specs (count, form), `--opening` (a random opening would show the players
/// moves they cannot see), backend errors.
pub fn run(args: &MatchArgs, net: &ValidNetlist) -> anyhow::Result<()> {
    if args.opening > 0 {
        bail!("--opening: not for a GDL-II game (the players would not see the opening's moves); leave it out");
    }
    let chance = random_role(net);
    let seated: Vec<usize> = (0..net.roles.len())
        .filter(|&r| Some(r) != chance)
        .collect();
    if args.players.len() != seated.len() {
        bail!(
            "{} is a GDL-II game with {} besides `random` (which the referee plays), but {} given",
            args.game.display(),
            super::plural(seated.len() as u64, "role"),
            super::plural(args.players.len() as u64, "player"),
        );
    }
    let mut players: Vec<Box<dyn HiddenPlayer>> = (args.players.iter().enumerate())
        .map(|(i, s)| {
            make_hidden_player(
                s,
                net,
                &args.mcts,
                args.seed.wrapping_add(i as u64 * 0x1_0000_0001),
            )
        })
        .collect::<anyhow::Result<_>>()?;
    let mut games: Vec<GameRecord> = Vec::new();
    propnet_runtime::stop::set_graceful(true);
    let rotation = players.len().max(1) as u64;
    for g in 0..args.games {
        let seats = super::r#match::seats_of(g, net.roles.len(), &seated, players.len());
        // the games of one seat rotation share the referee's draws (the deal, the dice): each
        // player meets each deal from every seat (duplicate format), so no seat or player
        // gets the better deals
        let deal = game_seed(args.seed, g / rotation);
        let mut game = play_hidden_game(net, &mut players, &seats, deal, deal, args.max_moves)?;
        game.index = g;
        let interrupted = game.end == "interrupted";
        if !interrupted {
            games.push(game);
        }
        if propnet_runtime::stop::requested() {
            break;
        }
    }
    if games.is_empty() {
        outln!("no games finished of {}: no scores", args.game.display())?;
        return Ok(());
    }
    super::r#match::warn_stuck(&games);
    let scores = player_scores(&games, players.len());
    let referee = match chance {
        Some(_) => "the referee plays `random`; ",
        None => "",
    };
    let note = format!(" (GDL-II: {referee}each player sees its own moves and percepts)");
    let totals: Vec<_> = players.iter().map(|p| p.totals()).collect();
    super::r#match::print_scores(args, &totals, &scores, (games.len(), &note))?;
    print_duplicate(args, chance.is_some(), &games, players.len())?;
    if let Some(path) = &args.json_out {
        let roles: Vec<String> = net.roles.iter().map(|r| r.name.clone()).collect();
        write_json_out(path, args, &roles, &scores, &games)?;
    }
    Ok(())
}

/// With a `random` role (`chance`; the games of a seat rotation sharing its draws) and at
/// least two complete seat rotations, the duplicate format's paired scores (see
/// [`rotation_scores`]): each player's mean per deal, over the deals.
pub(super) fn print_duplicate(
    args: &MatchArgs,
    chance: bool,
    games: &[GameRecord],
    players: usize,
) -> anyhow::Result<()> {
    let paired = rotation_scores(games, players);
    if !chance || players < 2 || paired.first().is_none_or(|e| e.n < 2) {
        return Ok(());
    }
    outln!(
        "paired by deal ({} deals, each player in every seat):",
        paired[0].n
    )?;
    for (p, e) in paired.iter().enumerate() {
        outln!("{:>24}: {}", args.players[p], e.describe(0.0, 100.0))?;
    }
    Ok(())
}

/// The options of player `spec`, each as its kind (`c`, `p`, or `x` for a batch shape
/// `LxP`) and value (after the letter; the whole option for a shape).
///
/// # Errors
/// An option of no kind `expected` lists (a pimc player takes `p` only), or one given twice.
fn player_options<'a>(
    spec: &str,
    options: &[&'a str],
    expected: &str,
) -> anyhow::Result<Vec<(char, &'a str)>> {
    let mut out: Vec<(char, &str)> = Vec::new();
    for option in options {
        let kind = match option.chars().next() {
            Some('c') if expected.contains("cX") => ('c', &option[1..]),
            Some('p') => ('p', &option[1..]),
            Some(d) if d.is_ascii_digit() && expected.contains("LEAVES") => ('x', *option),
            _ => bail!("player `{spec}`: unknown option `{option}`: expected {expected}"),
        };
        if out.iter().any(|o| o.0 == kind.0) {
            bail!("player `{spec}`: option `{option}` sets a value a previous option set");
        }
        out.push(kind);
    }
    Ok(out)
}

/// The particle count of option `pN` of player `spec` (1..=65536).
fn particles_of(spec: &str, n: &str) -> anyhow::Result<usize> {
    whole::<usize>(1, 65_536)(n).map_err(|e| anyhow!("player `{spec}`: particles: {e}"))
}

/// A player of a GDL-II match: `random`, `belief:BACKEND:BUDGET[:OPTION…]` with options
/// `LEAVESxPLAYOUTS` (determinizations per batch, rollouts each), `cX` (UCB1 exploration)
/// and `pN` (states in the belief, default 256), or the baseline
/// `pimc:BACKEND:BUDGET[:pN]` (UCT on states drawn from the same belief, the `--…` MCTS
/// flags).
///
/// # Errors
/// An unknown or malformed spec, an `mcts` player (it reads the hidden state).
pub fn make_hidden_player(
    spec: &str,
    net: &ValidNetlist,
    flags: &MctsFlags,
    seed: u64,
) -> anyhow::Result<Box<dyn HiddenPlayer>> {
    let parts: Vec<&str> = spec.split(':').collect();
    match parts.as_slice() {
        ["random"] => Ok(Box::new(RandomHidden::new(seed))),
        ["mcts", ..] => bail!(
            "player `{spec}`: an `mcts` player searches the true state, which a GDL-II player \
             cannot see; use `belief:{}` (information-set MCTS over the states \
             consistent with what it saw)",
            parts[1..].join(":")
        ),
        ["pimc", backend, budget, options @ ..] => {
            let kind = BackendKind::parse(backend).map_err(|e| anyhow!("player `{spec}`: {e}"))?;
            let mut particles = BeliefParams::default().particles;
            for (option, value) in player_options(spec, options, "pN")? {
                if option == 'p' {
                    particles = particles_of(spec, value)?;
                }
            }
            Ok(Box::new(DeterminizedPlayer::new(
                spec.to_string(),
                flags.backends(kind, net)?,
                flags.params(seed),
                parse_budget(budget)?,
                particles,
            )))
        }
        ["belief", backend, budget, options @ ..] => {
            let kind = BackendKind::parse(backend).map_err(|e| anyhow!("player `{spec}`: {e}"))?;
            let mut params = BeliefParams {
                exploration: flags.exploration,
                max_steps: flags.max_steps,
                seed,
                ..BeliefParams::default()
            };
            for (option, value) in player_options(spec, options, "LEAVESxPLAYOUTS, cX or pN")? {
                match option {
                    'c' => {
                        params.exploration = real(0.0, 1000.0)(value)
                            .map_err(|e| anyhow!("player `{spec}`: exploration: {e}"))?;
                    }
                    'p' => params.particles = particles_of(spec, value)?,
                    _ => {
                        let (l, p) = value.split_once('x').unwrap_or((value, ""));
                        let n = |t: &str| {
                            whole::<u32>(1, 65536)(t)
                                .map_err(|e| anyhow!("player `{spec}`: batch shape `{value}`: {e}"))
                        };
                        (params.leaves_per_batch, params.playouts_per_leaf) = (n(l)?, n(p)?);
                    }
                }
            }
            let flags = MctsFlags { workers: 1, ..flags.clone() };
            let backend = flags.backends(kind, net)?.into_iter().next().ok_or_else(|| anyhow!("player `{spec}`: no backend"))?;
            Ok(Box::new(BeliefPlayer::new(spec.to_string(), backend, params, parse_budget(budget)?)))
        }
        _ => bail!("bad player `{spec}` for a GDL-II game: expected `random`, `belief:BACKEND:BUDGET[:LEAVESxPLAYOUTS][:cX][:pN]` (e.g. belief:cpu:1s) or `pimc:BACKEND:BUDGET[:pN]`"),
    }
}
