//! The GDL-II protocol (Dresden GameController: `(PLAY id turn lastmove percepts)`,
//! `(STOP id turn lastmove percepts)`): a recorded message sequence in upper case to a
//! `propnet player`, and whole matches with `propnet match` as the GDL-II manager and
//! two `propnet player` processes, on a GDL-II game and on a GDL-I game.

use super::support::{
    check_record, json, manager, one_match_args, player, post, root, scratch, shared,
};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// The rules of `path` without comments, in upper case (KIF is case-insensitive; the
/// Dresden GameController may send them so).
fn upper_rules(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("rules");
    let mut out = String::new();
    for line in text.lines() {
        out.push_str(line.split(';').next().unwrap_or(""));
        out.push(' ');
    }
    out.to_ascii_uppercase()
}

/// The lines of a player's log of match `id` with a `message` field, as (message, reply).
fn heard(log_dir: &Path, id: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(log_dir.join(format!("{id}.jsonl"))).expect("log");
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON line"))
        .filter_map(|v| {
            let m = v["message"].as_str()?.to_string();
            Some((m, v["reply"].as_str().unwrap_or("").to_string()))
        })
        .collect()
}

#[test]
fn a_recorded_dresden_sequence_in_upper_case_is_played() {
    let Some(game) = shared("games-gdl2/MontyHall.gdl") else {
        return;
    };
    let dir = scratch("gdl2-dresden");
    let (_p, port) = player(&dir, &[]);
    let start = format!("(START MONTY.1 CANDIDATE ({}) 5 1)", upper_rules(&game));
    assert_eq!(post(port, &start), (200, "ready".into()));
    let (status, first) = post(port, "(PLAY MONTY.1 0 NIL NIL)");
    assert_eq!(status, 200);
    assert!(
        ["(CHOOSE 1)", "(CHOOSE 2)", "(CHOOSE 3)"].contains(&first.as_str()),
        "first move `{first}`: one of the three doors, spelled as sent"
    );
    // the game master played door 2 for us (our reply may have differed)
    let second = post(port, "(PLAY MONTY.1 1 (CHOOSE 2) NIL)").1;
    assert_eq!(second, "NOOP", "the only legal move after choosing");
    // the host opened door 3: switching (to door 1) wins 2/3
    let third = post(port, "(PLAY MONTY.1 2 NOOP (3))").1;
    assert!(
        ["SWITCH", "NOOP"].contains(&third.as_str()),
        "third `{third}`"
    );
    assert_eq!(
        post(port, "(STOP MONTY.1 3 SWITCH (1))"),
        (200, "done".into())
    );
    // malformed GDL-II forms are refused with the reason
    let (status, why) = post(port, "(PLAY MONTY.1 4 NOOP)");
    assert_eq!(status, 400, "{why}");
    assert!(
        why.contains("or 4 (GDL-II: id turn lastmove percepts)"),
        "{why}"
    );
    let log = heard(&dir, "MONTY.1");
    let plays: Vec<&(String, String)> = log.iter().filter(|(m, _)| m.contains("PLAY")).collect();
    assert_eq!(plays.len(), 3, "{log:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Plays one match of `game` under the GDL-II protocol with two player processes and
/// returns the record and the players' log folders.
fn two_player_match(name: &str, game: &Path, extra: &[&str]) -> (Value, [std::path::PathBuf; 2]) {
    let dirs = [scratch(&format!("{name}-a")), scratch(&format!("{name}-b"))];
    let (_a, pa) = player(&dirs[0], &[]);
    let (_b, pb) = player(&dirs[1], &[]);
    let records = scratch(&format!("{name}-records"));
    let mut args = one_match_args(game, (pa, pb), &records);
    args.extend(extra.iter().map(|s| s.to_string()));
    manager(&args, Duration::from_secs(120));
    let path = std::fs::read_dir(&records)
        .expect("records")
        .next()
        .expect("one record")
        .expect("entry")
        .path();
    let rec = json(&path);
    let _ = std::fs::remove_dir_all(&records);
    (rec, dirs)
}

/// What the player of role `r` must have heard at turn `t` (1..): its own last move and
/// its percepts, as the manager's record has them.
fn due(rec: &Value, r: usize, t: usize) -> String {
    let own = rec["moves"][t - 1][r].as_str().unwrap();
    let seen: Vec<&str> = (rec["percepts"][t - 1][r].as_array().unwrap().iter())
        .map(|p| p.as_str().unwrap())
        .collect();
    let seen = match seen.is_empty() {
        true => "NIL".to_string(),
        false => format!("({})", seen.join(" ")),
    };
    format!("{t} {own} {seen})")
}

#[test]
fn a_gdl2_match_over_http_tells_each_player_only_its_own_move_and_percepts() {
    let Some(game) = shared("games-gdl2/KriegTictactoe.gdl") else {
        return;
    };
    let (rec, dirs) = two_player_match("gdl2-krieg", &game, &[]);
    check_record(&rec, &game);
    let id = rec["matchId"].as_str().unwrap();
    let turns = rec["moves"].as_array().unwrap().len();
    assert!(turns >= 2, "{turns} moves");
    for (r, dir) in dirs.iter().enumerate() {
        let log = heard(dir, id);
        let msgs: Vec<&String> = (log.iter().map(|(m, _)| m))
            .filter(|m| m.starts_with("(PLAY") || m.starts_with("(STOP"))
            .collect();
        assert_eq!(msgs[0], &format!("(PLAY {id} 0 NIL NIL)"));
        assert!(msgs.len() >= turns, "{} PLAY/STOP messages", msgs.len());
        for (t, m) in msgs.iter().enumerate().take(turns).skip(1) {
            assert!(m.ends_with(&due(&rec, r, t)), "role {r} turn {t}: {m}");
            assert!(!m.contains("(did "), "no other role's move: {m}");
        }
        // the STOP is logged by keyword; the turn count of the match is the moves' count
        assert!(log.iter().any(|(m, reply)| m == "STOP" && reply == "done"));
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn a_gdl1_game_under_the_gdl2_protocol_is_played_with_every_move_known() {
    let game = root().join("bench-games/tictactoe.kif");
    let (rec, dirs) = two_player_match("gdl2-ttt", &game, &["--protocol", "gdl2"]);
    let goals = check_record(&rec, &game);
    assert_eq!(
        goals.iter().sum::<i64>(),
        100,
        "tic-tac-toe: a win or a draw"
    );
    let id = rec["matchId"].as_str().unwrap();
    for dir in &dirs {
        let text = std::fs::read_to_string(dir.join(format!("{id}.jsonl"))).unwrap();
        assert!(text.contains("(did "), "every move told as (did ROLE MOVE)");
        assert!(
            !text.contains("playing with a belief"),
            "the player reads the percepts as joint moves and plays the whole state"
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}
