//! `propnet match` flags: `--record-dir` with in-process players only, output paths and
//! player URLs checked before any game, the score summary and the `--json-out` games.

mod support;

use support::{dir, run, tictactoe, Outcome};

fn ttt() -> String {
    tictactoe().to_str().unwrap().to_string()
}

/// `propnet match tictactoe.kif --players random,random EXTRA…`.
fn random_match(extra: &[&str]) -> Outcome {
    let game = ttt();
    let mut args = vec!["match", game.as_str(), "--players", "random,random"];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn record_dir_with_in_process_players_only_writes_one_record_per_game() {
    let rec = dir().join("records-in-process");
    let _ = std::fs::remove_dir_all(&rec);
    let o = random_match(&["--games", "2", "--record-dir", rec.to_str().unwrap()]);
    o.expect_code(0, "match --record-dir with random players");
    let mut recs: Vec<serde_json::Value> = std::fs::read_dir(&rec)
        .unwrap_or_else(|e| panic!("{}: {e}\nstderr: {}", rec.display(), o.err))
        .map(|e| {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            serde_json::from_str(&text).expect("a record is JSON")
        })
        .collect();
    assert_eq!(recs.len(), 2, "one record per game");
    recs.sort_by_key(|r| r["matchId"].as_str().unwrap_or("").to_string());
    for r in &recs {
        assert!(!r["moves"].as_array().unwrap().is_empty(), "moves recorded");
        assert_eq!(
            r["playerNamesFromHost"],
            serde_json::json!(["random", "random"])
        );
    }
    assert_ne!(
        recs[0]["moves"], recs[1]["moves"],
        "random seats play differently in each game"
    );
}

#[test]
fn output_paths_are_checked_before_any_game_is_played() {
    let folder = dir().join("json-out-folder");
    std::fs::create_dir_all(&folder).unwrap();
    let o = random_match(&["--games", "3", "--json-out", folder.to_str().unwrap()]);
    o.expect_code(1, "--json-out a folder");
    assert!(o.err.contains("is a folder"), "{}", o.err);
    assert!(o.out.is_empty(), "no game was played: {}", o.out);
    let missing = dir().join("no-such-folder/out.json");
    let o = random_match(&["--json-out", missing.to_str().unwrap()]);
    o.expect_code(1, "--json-out in a missing folder");
    assert!(o.err.contains("does not exist"), "{}", o.err);
    assert!(o.out.is_empty(), "no game was played: {}", o.out);
    let file = support::file("record-dir-is-a-file", "x");
    for extra in [&[][..], &["--playclock", "1"][..]] {
        let mut args = vec!["--games", "3", "--record-dir", file.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = random_match(&args);
        o.expect_code(1, "--record-dir an existing file");
        assert!(o.err.contains("is not a folder"), "{}", o.err);
        assert!(o.out.is_empty(), "no game was played: {}", o.out);
    }
}

#[test]
fn malformed_player_urls_are_usage_errors() {
    for (url, why) in [
        ("http://", "no :PORT"),
        ("http://127.0.0.1:99999", "bad port `99999`"),
        ("http://127.0.0.1:0", "bad port `0`"),
        ("http://:9147", "bad host"),
        ("http://a b:9147", "bad host"),
        ("http://127.0.0.1", "no :PORT"),
    ] {
        let players = format!("{url},random");
        let o = run(&["match", &ttt(), "--players", &players, "--games", "1"]);
        o.expect_code(1, url);
        assert!(
            o.err.contains(&format!("player `{url}`"))
                && o.err.contains(why)
                && o.err.contains("http://HOST:PORT"),
            "{url}: {}",
            o.err
        );
        assert!(o.out.is_empty(), "{url}: no game was played: {}", o.out);
    }
}

#[test]
fn one_game_has_no_interval_and_json_out_indexes_games() {
    let json = dir().join("one-game.json");
    let o = random_match(&[
        "--games",
        "1",
        "--seed",
        "7",
        "--json-out",
        json.to_str().unwrap(),
    ]);
    o.expect_code(0, "match --games 1");
    assert!(o.out.contains("(n=1, no interval)"), "{}", o.out);
    assert!(!o.out.contains('±'), "no interval of one game: {}", o.out);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let g = &v["games"][0];
    assert_eq!(g["index"], 0, "{g}");
    assert_eq!(g["seed"], 7 * 1_000_003, "{g}");
}

#[test]
fn random_openings_are_shared_by_each_seat_rotation_and_refused_by_the_manager() {
    let json = dir().join("openings.json");
    let o = random_match(&[
        "--games",
        "4",
        "--opening",
        "2",
        "--json-out",
        json.to_str().unwrap(),
    ]);
    o.expect_code(0, "match --opening 2");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let games = v["games"].as_array().unwrap();
    let first_two = |g: &serde_json::Value| g["moves"].as_array().unwrap()[..2].to_vec();
    assert!(games.iter().all(|g| g["opening"] == 2), "{v}");
    assert_eq!(first_two(&games[0]), first_two(&games[1]), "seats swapped");
    assert_eq!(first_two(&games[2]), first_two(&games[3]), "seats swapped");
    assert_ne!(first_two(&games[0]), first_two(&games[2]), "a new opening");
    let o = random_match(&["--games", "1", "--opening", "2", "--playclock", "1"]);
    o.expect_code(1, "--opening in a GGP match");
    assert!(
        o.err.contains("--opening") && o.err.contains("in-process"),
        "{}",
        o.err
    );
}

/// `propnet best` on connect four with a doodle pad says that the nine doodles were searched
/// as one, and lists each with `--keep-free-moves`.
#[test]
fn best_says_which_outcome_free_moves_it_merged() {
    let game = tictactoe().parent().unwrap().join("connectfour_doodle.kif");
    let game = game.to_str().unwrap();
    let o = run(&["best", game, "--iterations", "300"]);
    o.expect_code(0, "best on connectfour_doodle");
    assert!(
        o.out.contains(
            "(9 outcome-free moves searched as (doodle 1 1): they cannot change the outcome"
        ),
        "{}",
        o.out
    );
    assert_eq!(o.out.matches("(doodle ").count(), 2, "{}", o.out);
    let o = run(&["best", game, "--iterations", "300", "--keep-free-moves"]);
    o.expect_code(0, "best --keep-free-moves");
    assert!(
        !o.out.contains("outcome-free moves searched as"),
        "{}",
        o.out
    );
    assert_eq!(o.out.matches("(doodle ").count(), 9, "{}", o.out);
}
