//! `propnet match` as a GGP game manager: `--players` may hold `http://HOST:PORT` players
//! beside in-process ones; each game is a GGP match with `--startclock`/`--playclock`,
//! recorded in ggp-base's JSON match format under `--record-dir` (which alone also makes
//! a match of in-process players a managed one, to record it).

use super::args::{seconds, whole};
use super::common::make_player;
use super::r#match::MatchArgs;
use anyhow::{bail, Context};
use propnet_compiler::gdl;
use propnet_compiler::ground::{Budget as GroundBudget, CompileOptions};
use propnet_ggp::manager::{
    match_id, play_match, repeated_urls, run_tag, GameText, ManagerOptions, Referee, Seat,
};
use propnet_ggp::manager_gdl2::play_gdl2_match;
use propnet_ggp::record::MatchRecord;
use propnet_mcts::matches::{player_scores, GameRecord, CHANCE_SEAT};
use propnet_runtime::machine::InterpMachine;
use propnet_runtime::pipeline::{compile_game, PipelineOptions};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Flags of the game-manager mode of `propnet match`.
#[derive(clap::Args, Debug)]
pub struct ManagerFlags {
    /// Start clock in seconds (1..=86400; GGP mode, default 10).
    #[arg(long, value_parser = whole::<u64>(1, 86400))]
    pub startclock: Option<u64>,
    /// Play clock in seconds (1..=86400; GGP mode, default 5).
    #[arg(long, value_parser = whole::<u64>(1, 86400))]
    pub playclock: Option<u64>,
    /// Grace before a reply counts as late, ms (ggp-base: 1000).
    #[arg(long, default_value_t = 1000, value_parser = whole::<u64>(0, 600_000))]
    pub grace_ms: u64,
    /// Write each match record (ggp-base JSON) as DIR/<matchId>.json.
    #[arg(long)]
    pub record_dir: Option<PathBuf>,
    /// Referee grounding limit in atoms (beyond it the interpreter referees).
    #[arg(long, default_value_t = GroundBudget::default().max_atoms, value_parser = whole::<usize>(1, 1 << 40))]
    pub ground_atoms: usize,
    /// Referee grounding limit in seconds.
    #[arg(long, default_value = "120", value_parser = seconds)]
    pub ground_seconds: f64,
    /// The GGP protocol spoken to the players: `gdl1` (every player hears every joint
    /// move) or `gdl2` (Dresden GameController: each hears only its own move and its
    /// percepts; the manager plays `random`). Default: `gdl2` for a GDL-II game, else
    /// `gdl1`. A GDL-II game cannot be played with `gdl1`.
    #[arg(long, value_parser = ["gdl1", "gdl2"])]
    pub protocol: Option<String>,
}

/// True when the match is run as a GGP manager: an `http://` player, a clock flag, or
/// `--record-dir` (match records are the manager's).
pub fn is_manager(args: &MatchArgs) -> bool {
    args.players.iter().any(|p| p.starts_with("http://"))
        || args.manager.protocol.is_some()
        || args.manager.startclock.is_some()
        || args.manager.playclock.is_some()
        || args.manager.record_dir.is_some()
}

/// Checks a remote player's URL: `http://HOST:PORT` (a trailing `/` allowed), PORT 1..=65535.
/// Returns the URL without the trailing `/`.
pub fn player_url(spec: &str) -> anyhow::Result<String> {
    let bad = |why: &str| {
        anyhow::anyhow!(
            "player `{spec}`: {why}; a remote player is given as http://HOST:PORT, e.g. http://127.0.0.1:9147"
        )
    };
    let rest = spec
        .strip_prefix("http://")
        .ok_or_else(|| bad("not an http:// URL"))?;
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (host, port) = rest
        .rsplit_once(':')
        .ok_or_else(|| bad("no :PORT after the host"))?;
    let host_ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '[' | ']' | ':'));
    if !host_ok {
        return Err(bad(&format!("bad host `{host}`")));
    }
    match port.parse::<u16>() {
        Ok(p) if p > 0 => Ok(format!("http://{rest}")),
        _ => Err(bad(&format!("bad port `{port}` (1..=65535)"))),
    }
}

fn clock(v: Option<u64>, default: u64, flag: &str) -> anyhow::Result<u64> {
    let v = v.unwrap_or(default);
    if !(1..=86_400).contains(&v) {
        bail!("{flag} {v}: must be 1..=86400 seconds");
    }
    Ok(v)
}

/// The referee: the netlist when the game compiles within the limits, else the interpreter.
fn referee(args: &MatchArgs, game: &gdl::Game) -> anyhow::Result<Referee> {
    let opts = PipelineOptions {
        ground: CompileOptions {
            budget: GroundBudget {
                max_atoms: args.manager.ground_atoms,
                max_time: Duration::from_secs_f64(args.manager.ground_seconds),
                ..super::ground::budget()
            },
            progress: None,
            ..CompileOptions::default()
        },
        no_optimize: args.no_optimize,
        ..PipelineOptions::default()
    };
    match compile_game(game, Duration::ZERO, &opts) {
        Ok((net, _)) => Ok(Referee::Net(Box::new(net))),
        Err(e) => {
            eprintln!("referee: {e}; the reference interpreter referees instead");
            let m = InterpMachine::new(&game.program)
                .with_context(|| format!("cannot prepare {}", args.game.display()))?;
            Ok(Referee::Interp(Box::new(m)))
        }
    }
}

/// One seat per player spec (in-process players need a compiled referee).
fn seats(args: &MatchArgs, referee: &Referee) -> anyhow::Result<Vec<Option<Seat>>> {
    args.players
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let seed = args.seed.wrapping_add(i as u64 * 0x1_0000_0001);
            Ok(Some(if spec.starts_with("http://") {
                Seat::Remote(player_url(spec)?)
            } else if spec == "random" {
                Seat::Random(seed)
            } else {
                match referee {
                    Referee::Net(net) => Seat::Local(make_player(spec, net, &args.mcts, seed)?),
                    Referee::Interp(_) => bail!(
                        "player `{spec}` needs a compiled game, but {} did not compile; use `random` or http:// players",
                        args.game.display()
                    ),
                }
            }))
        })
        .collect()
}

/// Plays `--games` GGP matches and prints each player's score, errors and latencies.
pub fn run(args: &MatchArgs) -> anyhow::Result<()> {
    let urls = args
        .players
        .iter()
        .map(|p| p.starts_with("http://").then(|| player_url(p)).transpose())
        .collect::<anyhow::Result<Vec<_>>>()?;
    refuse_repeated_urls(&urls)?;
    let opts_clock = (
        clock(args.manager.startclock, 10, "--startclock")?,
        clock(args.manager.playclock, 5, "--playclock")?,
    );
    if args.manager.grace_ms > 60_000 {
        bail!("--grace-ms {}: at most 60000", args.manager.grace_ms);
    }
    if args.manager.ground_atoms == 0 {
        bail!("--ground-atoms must be at least 1");
    }
    let game = propnet_runtime::pipeline::load_rules(&args.game, "match")?;
    for w in &game.warnings {
        eprintln!("{w}");
    }
    let gdl2 = match args.manager.protocol.as_deref() {
        Some("gdl1") if game.program.gdl2 => bail!(
            "{}: a GDL-II game, but --protocol gdl1 would send every player every move \
             (the hidden information) and needs a player for `random`; leave --protocol out \
             (a GDL-II game is played with the GDL-II protocol)",
            args.game.display()
        ),
        Some(p) => p == "gdl2",
        None => game.program.gdl2,
    };
    // The rules as read once (a FIFO gives them only once), not the file again.
    let bytes = game.source.text().as_bytes();
    let stem = args
        .game
        .file_stem()
        .map_or("game".into(), |s| s.to_string_lossy().into_owned());
    let text = GameText::new(&stem, bytes).map_err(anyhow::Error::msg)?;
    let mut referee = referee(args, &game)?;
    let roles = game.program.roles.len();
    let (mut pool, seated) = match gdl2 {
        true => super::manage_gdl2::seats(args, &referee)?,
        false => (seats(args, &referee)?, (0..roles).collect()),
    };
    if pool.len() != seated.len() {
        let besides = match seated.len() < roles {
            true => " besides `random` (which the manager plays)",
            false => "",
        };
        bail!(
            "{} has {}{besides}, but {} given",
            args.game.display(),
            super::plural(seated.len() as u64, "role"),
            super::plural(pool.len() as u64, "player"),
        );
    }
    let run = run_tag();
    // a GDL-II match with a `random` role is played in duplicate format, as in-process
    // (see `match_hidden`): the games of one seat rotation share the manager's draws
    let duplicate = gdl2 && seated.len() < roles;
    let rotation = pool.len().max(1) as u64;
    let mut games = Vec::new();
    let mut records = Vec::new();
    for g in 0..args.games {
        let order = super::r#match::seats_of(g, roles, &seated, pool.len());
        let mut seats: Vec<Seat> = order
            .iter()
            .map(|&p| match p {
                CHANCE_SEAT => Seat::Chance,
                p => pool[p].take().expect("each player sits once"),
            })
            .collect();
        let id = match_id(&stem, &run, g);
        let opts = ManagerOptions {
            start_clock: opts_clock.0,
            play_clock: opts_clock.1,
            grace: Duration::from_millis(args.manager.grace_ms),
            max_moves: args.max_moves,
            seed: super::r#match::game_seed(args.seed, if duplicate { g / rotation } else { g }),
        };
        let t = Instant::now();
        let rec = match (gdl2, &mut referee) {
            (true, Referee::Net(net)) => play_gdl2_match(net, &text, &mut seats, &id, &opts),
            _ => play_match(&mut referee, &text, &mut seats, &id, &opts),
        }
        .map_err(anyhow::Error::msg);
        for (&p, s) in order.iter().zip(seats) {
            if p != CHANCE_SEAT {
                pool[p] = Some(s);
            }
        }
        let rec = rec?;
        warn_not_ready(&rec);
        eprintln!(
            "{id}: {} after {} moves, goals {:?} ({:.1} s)",
            rec.end,
            rec.moves.len(),
            rec.goal_values,
            t.elapsed().as_secs_f64()
        );
        if let Some(d) = &args.manager.record_dir {
            let path = d.join(format!("{id}.json"));
            propnet_output::write(&path, serde_json::to_string_pretty(&rec)?)?;
        }
        games.push(GameRecord {
            index: g,
            seats: order,
            moves: rec.moves.clone(),
            opening: 0,
            goals: rec.goal_values.clone(),
            end: rec.end.clone(),
        });
        records.push(rec);
    }
    report(args, &games, &records)?;
    super::match_hidden::print_duplicate(args, duplicate, &games, args.players.len())?;
    if let Some(path) = &args.json_out {
        let roles = records
            .first()
            .map(|r| r.game_meta_data.role_names.clone())
            .unwrap_or_default();
        let scores = player_scores(&games, args.players.len());
        super::r#match::write_json_out(path, args, &roles, &scores, &games)?;
    }
    Ok(())
}

/// Refuses one URL given for two players (roles): a GGP player plays one match at a time, so it
/// would answer `busy` to the second START and every move of that role would be lost.
fn refuse_repeated_urls(urls: &[Option<String>]) -> anyhow::Result<()> {
    let urls: Vec<Option<&str>> = urls.iter().map(Option::as_deref).collect();
    if let Some((i, j, url)) = repeated_urls(&urls).first() {
        bail!(
            "--players: {url} is given twice (players {} and {}), but a GGP player plays \
             one match at a time; start one player process per role (each on its own --port)",
            i + 1,
            j + 1
        );
    }
    Ok(())
}

/// Warns about each player that answered START with anything but `ready` (recorded as
/// `NR`): it was left out of the match and the manager chose its moves.
fn warn_not_ready(rec: &MatchRecord) {
    let Some(start) = rec.errors.first() else {
        return;
    };
    for (r, e) in start.iter().enumerate() {
        if let Some(reply) = e.strip_prefix("NR ") {
            let player = rec
                .player_names_from_host
                .get(r)
                .map_or("?", String::as_str);
            eprintln!(
                "{}: player {player} answered START with `{reply}`, not `ready`: it was left \
                 out of the match and its role's moves were chosen at random",
                rec.match_id
            );
        }
    }
}

/// Prints each player's score, its recorded errors and its reply latency (max and p99, as
/// a fraction of the play clock; START replies excluded).
fn report(args: &MatchArgs, games: &[GameRecord], records: &[MatchRecord]) -> anyhow::Result<()> {
    let scores = player_scores(games, args.players.len());
    outln!("{} GGP matches of {}", games.len(), args.game.display())?;
    for (p, e) in scores.iter().enumerate() {
        let mut errors = 0usize;
        let mut lat: Vec<f64> = Vec::new();
        for (g, rec) in games.iter().zip(records) {
            for (r, _) in g.seats.iter().enumerate().filter(|(_, &s)| s == p) {
                errors += rec.errors.iter().filter(|e| !e[r].is_empty()).count();
                let clock = rec.play_clock as f64 * 1000.0;
                lat.extend(
                    rec.reply_millis
                        .iter()
                        .skip(1)
                        .filter_map(|m| m[r])
                        .map(|m| m / clock),
                );
            }
        }
        out!(
            "{:>24}: {}, {errors} errors",
            args.players[p],
            e.describe(0.0, 100.0)
        )?;
        if lat.is_empty() {
            outln!()?;
            continue;
        }
        lat.sort_by(f64::total_cmp);
        let p99 = lat[((lat.len() as f64 * 0.99).ceil() as usize).clamp(1, lat.len()) - 1];
        outln!(
            ", {} replies: latency max {:.3} p99 {:.3} of the play clock",
            lat.len(),
            lat[lat.len() - 1],
            p99
        )?;
    }
    Ok(())
}
