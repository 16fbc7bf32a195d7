//! Full GGP matches on loopback: `propnet match` as the manager, `propnet player`
//! processes over HTTP. Every reply must be in time and legal, and the final goals must be
//! those the reference interpreter computes from the recorded moves. The matches run at
//! the same time (one player process per seat, distinct ports).

use super::support::{check_record, json, manager, player, root, scratch, shared, Proc};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One match to run: game, seats (`player` for a propnet player process, else an
/// in-process spec), clocks, extra player and manager flags.
struct Case {
    name: &'static str,
    game: PathBuf,
    seats: Vec<&'static str>,
    clocks: (u32, u32),
    player_flags: Vec<&'static str>,
    manager_flags: Vec<&'static str>,
    games: u32,
}

/// Starts the case's players and its manager; returns the match records.
fn run_case(case: &Case) -> Vec<serde_json::Value> {
    let dir = scratch(case.name);
    let mut procs: Vec<Proc> = Vec::new();
    let mut players = Vec::new();
    for (i, s) in case.seats.iter().enumerate() {
        if *s == "player" {
            let (p, port) = player(&dir.join(format!("log{i}")), &case.player_flags);
            procs.push(p);
            players.push(format!("http://127.0.0.1:{port}"));
        } else {
            players.push(s.to_string());
        }
    }
    let records = dir.join("records");
    let mut args: Vec<String> = vec![
        case.game.display().to_string(),
        "--players".into(),
        players.join(","),
        "--startclock".into(),
        case.clocks.0.to_string(),
        "--playclock".into(),
        case.clocks.1.to_string(),
        "--games".into(),
        case.games.to_string(),
        "--seed".into(),
        (case.name.len() as u64 * 7919).to_string(),
        "--record-dir".into(),
        records.display().to_string(),
    ];
    args.extend(case.manager_flags.iter().map(|s| s.to_string()));
    let out = manager(&args, Duration::from_secs(400));
    eprintln!("{}: {out}", case.name);
    let mut recs: Vec<_> = std::fs::read_dir(&records)
        .expect("records")
        .map(|e| json(&e.unwrap().path()))
        .collect();
    recs.sort_by_key(|r| r["matchId"].as_str().unwrap_or("").to_string());
    assert_eq!(
        recs.len(),
        case.games as usize,
        "{}: one record per game",
        case.name
    );
    drop(procs);
    recs
}

fn case(name: &'static str, game: PathBuf, seats: Vec<&'static str>, clocks: (u32, u32)) -> Case {
    Case {
        name,
        game,
        seats,
        clocks,
        player_flags: vec!["--quick-forced"],
        manager_flags: vec![],
        games: 1,
    }
}

fn uppercase_moves(rec: &serde_json::Value) -> bool {
    rec["moves"].as_array().unwrap().iter().all(|j| {
        j.as_array().unwrap().iter().all(|m| {
            let m = m.as_str().unwrap();
            m == m.to_uppercase()
        })
    })
}

#[test]
fn full_matches_over_http_agree_with_the_reference_interpreter() {
    let bench = |g: &str| root().join("bench-games").join(g);
    let walk = root().join("host/tests/games/unbounded_walk.kif");
    let mut cases = vec![
        case(
            "tictactoe",
            bench("tictactoe.kif"),
            vec!["player", "random"],
            (3, 1),
        ),
        case(
            "connectfour",
            bench("connectfour.kif"),
            vec!["player", "player"],
            (3, 1),
        ),
    ];
    // grounding stops at the term depth and enumerating the states play reaches is turned
    // off: both players and the referee use the interpreter
    let mut unbounded = case("unbounded", walk.clone(), vec!["player", "player"], (3, 1));
    unbounded
        .player_flags
        .extend(["--ground-explore-states", "0"]);
    unbounded
        .manager_flags
        .extend(["--ground-explore-states", "0"]);
    cases.push(unbounded);
    // the same game grounded over the 9 steps' states play reaches: a netlist after all
    cases.push(case(
        "explored",
        walk.clone(),
        vec!["player", "random"],
        (3, 1),
    ));
    // no wait for the compiler: starts with the interpreter, switches to the netlist
    let mut upgrade = case(
        "upgrade",
        bench("connectfour.kif"),
        vec!["player", "random"],
        (2, 1),
    );
    upgrade.player_flags.extend(["--compile-wait", "0"]);
    cases.push(upgrade);
    // a sum of two games: the player searches one tree per board
    cases.push(case(
        "factored",
        bench("dual_tictactoe.kif"),
        vec!["player", "random"],
        (3, 1),
    ));
    if let Some(g) = shared("games/ggpserver-benderng/SimultaneousTicTacToe.kif") {
        cases.push(case("simultaneous", g, vec!["player", "player"], (3, 1)));
    }
    if let Some(g) = shared("games/ggpserver-2006/MCNULTY_S.kif") {
        cases.push(case("uppercase", g, vec!["random", "player"], (3, 1)));
    }
    if let Some(g) = shared("games/ggp-repository/chess.kif") {
        // grounding capped so that chess goes through the interpreter fallback even once
        // the grounder can compile it; a full match (200 moves)
        let mut c = case("chess", g, vec!["player", "random"], (5, 1));
        c.player_flags.extend(["--ground-atoms", "1000"]);
        c.manager_flags.extend(["--ground-atoms", "1000"]);
        cases.push(c);
    }
    let results: Vec<(String, PathBuf, Vec<serde_json::Value>)> = std::thread::scope(|s| {
        let hs: Vec<_> = cases
            .iter()
            .map(|c| s.spawn(move || (c.name.to_string(), c.game.clone(), run_case(c))))
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("case thread"))
            .collect()
    });
    for (name, game, recs) in &results {
        for rec in recs {
            let goals = check_record(rec, game);
            assert_eq!(
                rec["isCompleted"].as_bool(),
                Some(true),
                "{name}: full match"
            );
            eprintln!(
                "{name}: {} moves, goals {goals:?}",
                rec["moves"].as_array().unwrap().len()
            );
            if name == "uppercase" {
                assert!(
                    uppercase_moves(rec),
                    "{name}: moves not in the rules' case: {}",
                    rec["moves"]
                );
            }
            if name == "chess" || name == "unbounded" {
                assert_logged(&scratch_of(name), name, "\"event\":\"fallback\"");
            }
            if name == "upgrade" {
                assert_logged(&scratch_of(name), name, "\"event\":\"upgraded\"");
            }
            if name == "factored" {
                assert_logged(&scratch_of(name), name, "\"event\":\"factored\"");
            }
        }
        let _ = std::fs::remove_dir_all(scratch_of(name));
    }
}

fn scratch_of(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("propnet-ggp-{}-{name}", std::process::id()))
}

/// The first player's logs contain `want` (e.g. its fallback to the interpreter).
fn assert_logged(dir: &Path, name: &str, want: &str) {
    let log = std::fs::read_dir(dir.join("log0"))
        .expect("log dir")
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<String>();
    assert!(log.contains(want), "{name}: no {want} in the player log");
}

#[test]
fn connect_four_player_beats_random_through_the_manager() {
    // 20 games with a 1 s play clock, seats rotated: 4 player processes, 5 games each
    let cases: Vec<Case> = ["strength-a", "strength-b", "strength-c", "strength-d"]
        .into_iter()
        .map(|n| {
            let mut c = case(
                n,
                root().join("bench-games/connectfour.kif"),
                vec!["player", "random"],
                (2, 1),
            );
            c.games = 5;
            c
        })
        .collect();
    let recs: Vec<serde_json::Value> = std::thread::scope(|s| {
        let hs: Vec<_> = cases.iter().map(|c| s.spawn(move || run_case(c))).collect();
        hs.into_iter()
            .flat_map(|h| h.join().expect("case thread"))
            .collect()
    });
    let game = root().join("bench-games/connectfour.kif");
    let (mut score, mut games, mut firsts) = (0i64, 0, 0);
    for rec in &recs {
        let goals = check_record(rec, &game);
        let names = rec["playerNamesFromHost"].as_array().unwrap();
        let seat = names
            .iter()
            .position(|n| n.as_str().unwrap().starts_with("http://"))
            .unwrap();
        firsts += (seat == 0) as u32;
        score += goals[seat];
        games += 1;
    }
    assert_eq!(games, 20);
    assert_eq!(
        firsts, 12,
        "seats rotate: the player moves first in 3 of each 5 games"
    );
    let mean = score as f64 / games as f64;
    eprintln!(
        "connect four, propnet player (1 s) vs random: mean score {mean:.1} over {games} games"
    );
    assert!(mean >= 90.0, "mean score {mean:.1} < 90");
    for c in &cases {
        let _ = std::fs::remove_dir_all(scratch_of(c.name));
    }
}
