//! Issue #15 acceptance: a scripted misuse table over every subcommand's numeric flags
//! (0, negative, NaN, infinite, huge) and over edited netlist JSON. Every run is bounded
//! in time; none may panic (exit status 101) or be killed by its bound.

mod support;

use std::time::Duration;
use support::{file, run_with, tictactoe, tictactoe_json};

/// Hostile values tried on every numeric flag.
const VALUES: [&str; 7] = [
    "0",
    "-1",
    "nan",
    "inf",
    "1e30",
    "99999999999999999999999",
    "0.5",
];

/// Per subcommand: the arguments that make a quick run, and its numeric flags.
fn commands(game: &str) -> Vec<(Vec<String>, Vec<&'static str>)> {
    let s = |v: &[&str]| {
        v.iter()
            .map(|x| x.replace("GAME", game))
            .collect::<Vec<_>>()
    };
    let mcts = [
        "--exploration",
        "--playouts-per-leaf",
        "--leaves-per-batch",
        "--expand-threshold",
        "--max-steps",
        "--threads",
    ];
    vec![
        (
            s(&["run", "GAME", "--playouts", "64"]),
            vec!["--seed", "--threads", "--max-steps", "--lanes"],
        ),
        (s(&["run", "GAME"]), vec!["--playouts", "--seconds"]),
        (s(&["perft", "GAME"]), vec!["--depth", "--max-states"]),
        (
            s(&["best", "GAME", "--iterations", "30"]),
            [&["--seed"][..], &mcts].concat(),
        ),
        (s(&["best", "GAME"]), vec!["--seconds", "--iterations"]),
        (
            s(&[
                "match",
                "GAME",
                "--players",
                "random,mcts:cpu:20",
                "--games",
                "1",
            ]),
            [&["--seed", "--max-moves"][..], &mcts].concat(),
        ),
        (
            s(&["match", "GAME", "--players", "random,random"]),
            vec!["--games"],
        ),
        (
            s(&["solve", "GAME", "--max-states", "100"]),
            vec!["--max-seconds"],
        ),
        (
            s(&["solve", "GAME", "--max-seconds", "5"]),
            vec!["--max-states"],
        ),
        (
            s(&["trace", "GAME"]),
            vec!["--playouts", "--seed", "--max-steps"],
        ),
        (
            s(&[
                "bench",
                "GAME",
                "--no-interp",
                "--seconds",
                "0.05",
                "--results",
                "/dev/null",
            ]),
            vec!["--threads", "--max-steps"],
        ),
        (
            s(&["bench", "GAME", "--no-interp", "--results", "/dev/null"]),
            vec!["--seconds"],
        ),
        (
            s(&["hdl", "GAME", "-o", "OUT"]),
            vec![
                "--engines",
                "--rng-stages",
                "--banks",
                "--cslow",
                "--check",
                "--max-steps",
                "--seed",
                "--length-playouts",
            ],
        ),
        (
            s(&["player", "--bind", "192.0.2.1"]),
            vec![
                "--port",
                "--threads",
                "--margin-ms",
                "--ground-atoms",
                "--ground-seconds",
                "--compile-wait",
            ],
        ),
    ]
}

/// Exit codes a misuse may give: success, a reported error, a usage error.
fn acceptable(code: Option<i32>) -> bool {
    matches!(code, Some(0..=2))
}

#[test]
fn numeric_flags_never_panic_or_run_past_their_bound() {
    let game = tictactoe().to_str().unwrap().to_string();
    let out = support::dir().join("table-out.v");
    let mut runs = 0;
    for (base, flags) in commands(&game) {
        for flag in flags {
            for v in VALUES {
                let mut args: Vec<String> = base
                    .iter()
                    .map(|a| a.replace("OUT", out.to_str().unwrap()))
                    .collect();
                let _ = std::fs::remove_file(&out);
                // (`player` binds a TEST-NET address, which fails at once: a value its
                // parser accepts ends in a bind error instead of serving forever.)
                args.push(format!("{flag}={v}"));
                let refs: Vec<&str> = args.iter().map(String::as_str).collect();
                let o = run_with(&refs, None, Duration::from_secs(30));
                assert!(
                    acceptable(o.code),
                    "propnet {args:?}: status {:?}\n{}",
                    o.code,
                    o.err
                );
                assert!(!o.err.contains("panicked"), "propnet {args:?}: {}", o.err);
                runs += 1;
            }
        }
    }
    assert!(runs > 300, "{runs}");
}

/// Edits of a compiled netlist, each of which must be rejected (or run) without a panic.
/// One named edit of a netlist's JSON.
type Edit = (&'static str, fn(&mut serde_json::Value));

fn edits() -> Vec<Edit> {
    vec![
        ("no roles", |n| n["roles"] = serde_json::json!([])),
        ("terminal out of range", |n| {
            n["terminal"] = serde_json::json!(1u64 << 40)
        }),
        ("no gates", |n| n["gates"] = serde_json::json!([])),
        ("no latches", |n| n["latches"] = serde_json::json!([])),
        ("no inputs", |n| n["inputs"] = serde_json::json!([])),
        ("latch next out of range", |n| {
            n["latches"][0]["next"] = serde_json::json!(4_000_000_000u64)
        }),
        ("input of role 7", |n| {
            n["inputs"][0]["role"] = serde_json::json!(7)
        }),
        ("goal value 200", |n| {
            n["roles"][0]["goals"][0]["value"] = serde_json::json!(200)
        }),
        ("goal value -1", |n| {
            n["roles"][0]["goals"][0]["value"] = serde_json::json!(-1)
        }),
        ("legal input out of range", |n| {
            n["roles"][0]["legal"][0]["input"] = serde_json::json!(99_999)
        }),
        ("no legal moves", |n| {
            n["roles"][0]["legal"] = serde_json::json!([])
        }),
        ("no goals", |n| {
            n["roles"][1]["goals"] = serde_json::json!([])
        }),
        ("duplicate role", |n| {
            let r = n["roles"][0].clone();
            n["roles"].as_array_mut().unwrap().push(r);
        }),
        ("wrong type", |n| n["gates"] = serde_json::json!("and")),
        ("gate reads itself", |n| {
            let last = n["gates"].as_array().unwrap().len();
            n["gates"]
                .as_array_mut()
                .unwrap()
                .push(serde_json::json!({"Not": last}));
        }),
    ]
}

#[test]
fn edited_netlists_never_panic() {
    let base = tictactoe_json();
    let out = support::dir().join("edit-out.v");
    for (name, edit) in edits() {
        let mut net = base.clone();
        edit(&mut net);
        let p = file(
            &format!("edit-{}.json", name.replace(' ', "-")),
            &net.to_string(),
        );
        let p = p.to_str().unwrap();
        let o_arg = out.to_str().unwrap();
        for args in [
            vec!["run", p, "--playouts", "64"],
            vec!["solve", p, "--max-states", "2000"],
            vec!["perft", p, "--depth", "3"],
            vec!["best", p, "--iterations", "20"],
            vec!["match", p, "--players", "random,random", "--games", "1"],
            vec!["hdl", p, "-o", o_arg],
        ] {
            let _ = std::fs::remove_file(&out);
            let o = run_with(&args, None, Duration::from_secs(30));
            assert!(
                acceptable(o.code),
                "{name}: propnet {args:?}: status {:?}\n{}",
                o.code,
                o.err
            );
            assert!(
                !o.err.contains("panicked"),
                "{name}: propnet {args:?}: {}",
                o.err
            );
        }
    }
}
