//! Issue #42 round two, items 4, 5, 6 (compare's reads) and 10: `compare` rejects external
//! figures that cannot be right and never hangs drawing them, tells apart games of the same
//! file name, reads only the end of an external's log; `verify` refuses the small lies of a
//! trace (a move listed twice, a role key the header lacks, a cut playout that goes on, a
//! goal of the wrong JSON type).

use crate::support::{dir, file, run, run_with, tictactoe, Outcome};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A test adapter of `tests/adapters`.
fn adapter(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/adapters")
        .join(name);
    format!("sh '{}'", p.display())
}

/// The report `compare.json` in `out`.
fn report(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("compare.json")).expect("compare.json");
    serde_json::from_str(&text).expect("JSON report")
}

/// The row of `reasoner` on `game` in `report`.
fn row<'a>(report: &'a Value, game: &str, reasoner: &str) -> &'a Value {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["game"] == game && r["reasoner"] == reasoner)
        .unwrap_or_else(|| panic!("no row {game} / {reasoner} in {report:#}"))
}

/// Runs `compare GAMES --out OUT ARGS…` within 120 s.
fn compare(games: &[&Path], out: &Path, args: &[&str]) -> Outcome {
    let mut all: Vec<String> = vec!["compare".into()];
    all.extend(games.iter().map(|g| g.display().to_string()));
    all.extend(["--out".into(), out.display().to_string()]);
    all.extend(args.iter().map(|a| a.to_string()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    run_with(&all, None, Duration::from_secs(120))
}

/// Item 4: an extreme but finite figure (1e190 ms) ends the run promptly, rejected with
/// its reason, and so is every other figure that cannot be right; a plausible one stays
/// `ok`. Rejected rows say so in the table, the CSV and the JSON, and plots are written.
#[test]
fn item04_figures_that_cannot_be_right_are_rejected_and_plots_end() {
    let out = dir().join("compare-figures");
    let fig = |name: &str, figures: &str| format!("{name}={} {figures}", adapter("figures.sh"));
    let exts = [
        fig("extreme", "1e190 1000 10 0"),
        fig("norollout", "300 0 1000000 0.3"),
        fig("maxcount", "300 18446744073709551615 10 0.3"),
        fig("denormal", "5e-324 1000 10 0.5"),
        fig("quick", "1 1000 10 2"),
        fig("twice", "300 1000 10 0.3 numRollouts=5"),
        fig("honest", "500 5000 100 0.5"),
    ];
    let mut args = vec!["--reasoners", "interp", "--seconds", "0.5", "--rounds", "1"];
    for e in &exts {
        args.extend(["--ext", e.as_str()]);
    }
    let o = compare(&[&tictactoe()], &out, &args);
    o.expect_code(0, "compare");
    let rep = report(&out);
    for (name, reason) in [
        (
            "extreme",
            "round 1: figures rejected: millisecondsTaken=1e190 claims 1.000e187 s, but the \
             process ran",
        ),
        (
            "norollout",
            "numStateChanges=0 for numRollouts=1000000: every rollout from this game's \
             non-terminal initial state makes at least one state change",
        ),
        (
            "maxcount",
            "numStateChanges=18446744073709551615 is more than 2^53",
        ),
        (
            "denormal",
            "millisecondsTaken=5e-324 is under a tenth of the 0.500 s the run was asked to \
             last (it took 0.",
        ),
        (
            "quick",
            "millisecondsTaken=1 is under a tenth of the 0.500 s the run was asked to last \
             (it took 2.",
        ),
        (
            "twice",
            "`numRollouts` is given twice (lines 4 and 5): which figure counts is unclear",
        ),
    ] {
        let r = row(&rep, "tictactoe", name);
        assert_eq!(r["status"], "rejected", "{name}: {r:#}");
        let why = r["reason"].as_str().unwrap();
        assert!(why.contains(reason), "{name}: {why}");
        assert!(r["playouts_per_second"].is_null(), "{name}: no rate counts");
        assert!(
            o.out
                .contains(&format!("tictactoe / {name}: rejected: round 1:")),
            "{}",
            o.out
        );
    }
    let honest = row(&rep, "tictactoe", "honest");
    assert_eq!(honest["status"], "ok", "{honest:#}");
    let csv = std::fs::read_to_string(out.join("compare.csv")).unwrap();
    let line = csv
        .lines()
        .find(|l| l.starts_with("tictactoe,extreme,"))
        .unwrap();
    assert!(
        line.contains(",rejected,\"round 1: figures rejected: millisecondsTaken=1e190"),
        "{line}"
    );
    for plot in ["throughput.svg", "speedup.png"] {
        assert!(out.join(plot).is_file(), "{plot} written");
    }
}

/// Copies `src` to `DIR/rel`, creating folders.
fn copy_to(src: &Path, rel: &str) -> PathBuf {
    let p = dir().join("same-name").join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::copy(src, &p).unwrap();
    p
}

/// Item 5: two games of the same file name in different folders are two rows with their
/// own labels, each speedup is over its own game's baseline, and their work files differ.
#[test]
fn item05_games_of_the_same_file_name_are_told_apart() {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-games");
    let a = copy_to(&bench.join("tictactoe.kif"), "a/game.kif");
    let b = copy_to(&bench.join("connectfour.kif"), "b/game.kif");
    let out = dir().join("compare-same-name");
    let ext = format!("fig={} 300 3000 100 0.3", adapter("figures.sh"));
    let args = [
        "--reasoners",
        "interp",
        "--ext",
        &ext,
        "--seconds",
        "0.3",
        "--rounds",
        "1",
    ];
    let o = compare(&[&a, &b], &out, &args);
    o.expect_code(0, "compare");
    let rep = report(&out);
    for game in ["a/game", "b/game"] {
        let base = row(&rep, game, "interp");
        assert_eq!(base["status"], "ok", "{base:#}");
        assert_eq!(base["speedup"], 1.0, "{game}: its own baseline");
        let work = out.join("work").join(game.replace('/', "%2f"));
        for f in ["fig-round1.result", "fig-round1.log"] {
            assert!(work.join(f).is_file(), "{}", work.join(f).display());
        }
    }
    assert_eq!(
        row(&rep, "a/game", "interp")["game_path"],
        a.display().to_string()
    );
    assert_eq!(
        row(&rep, "b/game", "interp")["game_path"],
        b.display().to_string()
    );
    assert!(
        o.out.contains("a/game") && o.out.contains("b/game"),
        "{}",
        o.out
    );
}

/// Item 6: an external reasoner's 1 GiB log (sparse) is shown by its end only, under a
/// 2 GB address-space limit, within 60 s.
#[test]
fn item06_the_tail_of_a_huge_external_log_is_read_from_its_end() {
    let out = dir().join("compare-huge-log");
    let ext = format!("huge={} 1073741824", adapter("huge-log.sh"));
    let script = "ulimit -v 2000000 && exec \"$0\" \"$@\"";
    let game = tictactoe();
    let args = [
        "compare",
        game.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--reasoners",
        "interp",
        "--ext",
        &ext,
        "--seconds",
        "0.2",
        "--rounds",
        "1",
    ];
    let child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_propnet"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sh");
    let o = crate::support::wait_bounded(child, &args, Duration::from_secs(60));
    o.expect_code(0, "compare");
    assert!(
        o.out
            .contains("tictactoe / huge: failed: round 1: crashed (exit status 3); output ends: ")
            && o.out.contains("last words of huge-log.sh"),
        "{}",
        o.out
    );
}

/// The bench tic-tac-toe's oracle trace, its lines.
fn ttt_trace() -> Vec<String> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-games/traces/tictactoe.jsonl");
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// `verify` of tic-tac-toe against a trace of these lines, written to the file `name`.
fn verify_lines(name: &str, lines: &[String]) -> Outcome {
    let t = file(name, &(lines.join("\n") + "\n"));
    run(&["verify", tictactoe().to_str().unwrap(), t.to_str().unwrap()])
}

/// `verify` of tic-tac-toe against the bench trace with line `no` (from 1) edited by `f`.
fn verify_edited(name: &str, no: usize, f: impl Fn(&mut Value)) -> Outcome {
    let mut lines = ttt_trace();
    let mut v: Value = serde_json::from_str(&lines[no - 1]).unwrap();
    f(&mut v);
    lines[no - 1] = v.to_string();
    verify_lines(name, &lines)
}

/// An edit of one trace line's JSON.
type Edit = Box<dyn Fn(&mut Value)>;

/// Item 10: each small lie is refused with the line and what is wrong (exit 1).
#[test]
fn item10_verify_refuses_the_small_lies_of_a_trace() {
    verify_lines("unedited.jsonl", &ttt_trace()).expect_code(0, "the unedited trace agrees");
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "dup-legal.jsonl",
            Box::new(|v| {
                let l = v["legal"]["x"].as_array_mut().unwrap();
                l.push(Value::from("(MARK 1 1)"));
            }),
            ":2:1: `legal` of x lists (mark 1 1) twice",
        ),
        (
            "extra-legal.jsonl",
            Box::new(|v| v["legal"]["z"] = serde_json::json!(["noop"])),
            ":2:1: `legal` has an entry for `z`, which is not among the roles x o of the \
             header (line 1)",
        ),
        (
            "extra-joint.jsonl",
            Box::new(|v| v["joint"]["z"] = Value::from("noop")),
            ":2:1: `joint` has an entry for `z`, which is not among the roles x o",
        ),
        (
            "two-x.jsonl",
            Box::new(|v| v["joint"]["X"] = Value::from("noop")),
            ":2:1: `joint` has two entries for role x",
        ),
        (
            "truncated.jsonl",
            Box::new(|v| v["truncated"] = Value::Bool(true)),
            ":2:1: `truncated` is true but the line plays a joint move",
        ),
        (
            "goal-string.jsonl",
            Box::new(|v| v["goals"]["x"] = Value::from("50")),
            ":2:1: goal \"50\" is a JSON string: a numeric goal is a JSON number (50)",
        ),
        (
            "goal-bool.jsonl",
            Box::new(|v| v["goals"]["x"] = Value::Bool(true)),
            ":2:1: goal is a boolean true, not a number or a string",
        ),
        (
            "terminal-string.jsonl",
            Box::new(|v| v["terminal"] = Value::from("false")),
            ":2:1: `terminal` is a string \"false\", not a boolean",
        ),
        (
            "step-string.jsonl",
            Box::new(|v| v["step"] = Value::from("0")),
            ":2:1: `step` is a string \"0\", not a whole number from 0",
        ),
    ];
    for (name, edit, want) in cases {
        let o = verify_edited(name, 2, edit);
        o.expect_code(1, name);
        assert!(
            o.err.contains(&format!("{name}{want}")),
            "{name}: {}",
            o.err
        );
    }
    // A key given twice in one object: JSON text, as a lying writer would print it.
    let mut lines = ttt_trace();
    lines[1] = lines[1].replacen("\"o\":[\"noop\"]", "\"o\":[\"noop\"],\"o\":[]", 1);
    let o = verify_lines("dup-key.jsonl", &lines);
    o.expect_code(1, "dup-key");
    assert!(
        o.err.contains("dup-key.jsonl:2:") && o.err.contains("key `o` given twice in one object"),
        "{}",
        o.err
    );
}

/// Item 10, gdl-perf traces: a legal move listed twice on a `!L!` line.
#[test]
fn item10_a_gdl_perf_legal_move_listed_twice_is_refused() {
    let t = file(
        "dup.gdlperf",
        "!R!x,o\n!T!false\n!L!(mark 1 1),(MARK 1 1)\n!L!noop\n!C!(mark 1 1),noop\n",
    );
    let o = run(&["verify", tictactoe().to_str().unwrap(), t.to_str().unwrap()]);
    o.expect_code(1, "verify");
    assert!(
        o.err
            .contains("dup.gdlperf:3:4: the `!L!` line of x lists (mark 1 1) twice"),
        "{}",
        o.err
    );
}

/// A trace whose header names another game still agrees with a game that plays the
/// same, and says so; the same game under another path is quiet.
#[test]
fn verify_notes_a_header_naming_another_game() {
    let o = verify_edited("renamed.jsonl", 1, |h| {
        h["game"] = Value::from("connectfour.kif")
    });
    o.expect_code(0, "the positions agree");
    assert!(
        o.out
            .contains("note: the trace's header names the game `connectfour.kif`"),
        "{}",
        o.out
    );
    let o = verify_lines("same.jsonl", &ttt_trace());
    o.expect_code(0, "the unedited trace agrees");
    assert!(!o.out.contains("header names"), "{}", o.out);
}
