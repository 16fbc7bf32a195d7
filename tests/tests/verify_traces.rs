//! `propnet verify` on the bench games' oracle traces (`bench-games/traces/`, made by the
//! independent SWI-Prolog oracle): the unedited traces agree in both accepted formats (the
//! oracle's JSON lines, and the same playouts written as gdl-perf's correctness trace in
//! ggp-base's spelling: `( MARK 1 1 )`, upper case), through the interpreter and through
//! the netlist; a trace edited in one legal move, one goal or one terminal flag is caught
//! at exactly the edited line, naming what differs.

use propnet_compare::verify::{verify, Mismatch, Verdict};
use propnet_compiler::gdl;
use propnet_compiler::interp::trace::InterpEngine;
use propnet_compiler::interp::Interp;
use propnet_runtime::net_trace::{NetTrace, TraceBackend};
use propnet_tests::{compile_file, workspace_root};
use serde_json::Value;

fn oracle_trace(game: &str) -> String {
    let p = workspace_root().join(format!("bench-games/traces/{game}.jsonl"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Replays `text` through the interpreter and the netlist (CPU program); both verdicts
/// must be the same, which is returned.
fn both(game: &str, text: &str) -> Verdict {
    let path = workspace_root().join(format!("bench-games/{game}.kif"));
    let program = gdl::load(&path).expect("game loads").program;
    let mut interp = Interp::new(&program).expect("interpreter");
    let mut ie = InterpEngine::new(&mut interp).expect("initial state");
    let by_interp = verify(&mut ie, text).expect("readable trace");
    let net = compile_file(&path);
    let mut ne = NetTrace::new(
        &net,
        TraceBackend::Cpu,
        &propnet_host::select::Backends::default(),
    )
    .expect("engine");
    let by_net = verify(&mut ne, text).expect("readable trace");
    assert_eq!(by_interp, by_net, "{game}: the two engines disagree");
    by_interp
}

/// ggp-base's spelling of a term: spaces inside the parentheses, and upper case here to
/// exercise case-insensitive reading.
fn ggp(term: &str) -> String {
    term.replace('(', "( ").replace(')', " )").to_uppercase()
}

/// The playouts of an oracle trace written as a gdl-perf correctness trace.
fn to_gdl_perf(oracle: &str) -> String {
    let mut lines = oracle.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let roles: Vec<&str> = header["roles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    let join = |v: Vec<String>| v.join(",");
    let mut out = vec![format!(
        "!R!{}",
        join(roles.iter().map(|r| ggp(r)).collect())
    )];
    for l in lines {
        let v: Value = serde_json::from_str(l).unwrap();
        if v["terminal"] == Value::Bool(true) {
            out.push("!T!true".into());
            out.push(format!(
                "!G!{}",
                join(roles.iter().map(|r| v["goals"][r].to_string()).collect())
            ));
            continue;
        }
        assert!(
            v.get("joint").is_some(),
            "bench traces end in terminal states"
        );
        out.push("!T!false".into());
        for r in &roles {
            let moves = v["legal"][r].as_array().unwrap();
            out.push(format!(
                "!L!{}",
                join(moves.iter().map(|m| ggp(m.as_str().unwrap())).collect())
            ));
        }
        out.push(format!(
            "!C!{}",
            join(
                roles
                    .iter()
                    .map(|r| ggp(v["joint"][r].as_str().unwrap()))
                    .collect()
            )
        ));
    }
    out.push("!F!".into());
    out.join("\n") + "\n"
}

/// `text` with line `no` (from 1) replaced by `f(line)`.
fn edit(text: &str, no: usize, f: impl Fn(&str) -> String) -> String {
    let mut v: Vec<String> = text.lines().map(String::from).collect();
    v[no - 1] = f(&v[no - 1]);
    v.join("\n") + "\n"
}

/// Line number (from 1) of the `nth` line (from 0) for which `pred` holds.
fn find(text: &str, nth: usize, pred: impl Fn(&str) -> bool) -> usize {
    text.lines()
        .enumerate()
        .filter(|(_, l)| pred(l))
        .nth(nth)
        .map(|(i, _)| i + 1)
        .expect("such a line")
}

fn json_edit(line: &str, f: impl Fn(&mut Value)) -> String {
    let mut v: Value = serde_json::from_str(line).unwrap();
    f(&mut v);
    v.to_string()
}

fn diverges(v: &Verdict, line: usize) -> &Mismatch {
    let d = v
        .divergence
        .as_ref()
        .unwrap_or_else(|| panic!("planted edit not found: {}", v.summary()));
    assert_eq!(d.line, line, "{d}");
    &d.what
}

#[test]
fn unedited_traces_agree_in_both_formats() {
    for game in ["tictactoe", "connectfour", "breakthrough"] {
        let oracle = oracle_trace(game);
        let v = both(game, &oracle);
        assert!(v.agrees() && v.notes.is_empty(), "{game}: {}", v.summary());
        assert_eq!(v.positions, oracle.lines().count() - 1);
        let perf = to_gdl_perf(&oracle);
        let w = both(game, &perf);
        assert!(w.agrees() && w.notes.is_empty(), "{game}: {}", w.summary());
        assert_eq!((w.positions, w.joint_moves), (v.positions, v.joint_moves));
        assert!(v.playouts >= 2, "{game}: {} playouts", v.playouts);
    }
}

#[test]
fn planted_divergences_in_oracle_traces_name_the_line() {
    let game = "connectfour";
    let t = oracle_trace(game);
    // One legal move dropped from the first role's list in the initial position.
    let bad = edit(&t, 2, |l| {
        json_edit(l, |v| {
            v["legal"]["red"].as_array_mut().unwrap().pop();
        })
    });
    let w = both(game, &bad);
    assert!(
        matches!(diverges(&w, 2), Mismatch::Legal { role, trace, ours } if role == "red" && trace.len() + 1 == ours.len()),
        "{}",
        w.summary()
    );
    // One terminal flag set in a mid-game position.
    let no = find(&t, 5, |l| l.contains("\"terminal\":false"));
    let bad = edit(&t, no, |l| {
        l.replace("\"terminal\":false", "\"terminal\":true")
    });
    let w = both(game, &bad);
    assert_eq!(
        diverges(&w, no),
        &Mismatch::Terminal {
            trace: true,
            ours: false
        }
    );
    // One goal value changed in the first terminal position.
    let no = find(&t, 0, |l| l.contains("\"terminal\":true"));
    let bad = edit(&t, no, |l| {
        json_edit(l, |v| {
            let g = v["goals"]["red"].as_i64().unwrap();
            v["goals"]["red"] = Value::from(if g == 100 { 0 } else { 100 });
        })
    });
    let w = both(game, &bad);
    assert!(
        matches!(diverges(&w, no), Mismatch::Goals { role, .. } if role == "red"),
        "{}",
        w.summary()
    );
}

#[test]
fn planted_divergences_in_gdl_perf_traces_name_the_line() {
    let game = "tictactoe";
    let t = to_gdl_perf(&oracle_trace(game));
    // One legal move dropped from the first `!L!` line.
    let no = find(&t, 0, |l| l.starts_with("!L!"));
    let bad = edit(&t, no, |l| {
        let (_, rest) = l.split_once(',').expect("several moves");
        format!("!L!{rest}")
    });
    let w = both(game, &bad);
    assert!(
        matches!(diverges(&w, no), Mismatch::Legal { role, .. } if role == "x"),
        "{}",
        w.summary()
    );
    // A mid-game position claimed terminal: the reasoner ends its playout there.
    let no = find(&t, 3, |l| l == "!T!false");
    let mut cut: Vec<&str> = t.lines().take(no - 1).collect();
    cut.extend(["!T!true", "!G!50,50", "!F!"]);
    let w = both(game, &(cut.join("\n") + "\n"));
    assert_eq!(
        diverges(&w, no),
        &Mismatch::Terminal {
            trace: true,
            ours: false
        }
    );
    // One goal value changed in the first `!G!` line.
    let no = find(&t, 0, |l| l.starts_with("!G!"));
    let bad = edit(&t, no, |l| {
        let (first, rest) = l[3..].split_once(',').unwrap();
        let g = if first == "100" { "0" } else { "100" };
        format!("!G!{g},{rest}")
    });
    let w = both(game, &bad);
    assert!(
        matches!(diverges(&w, no), Mismatch::Goals { role, .. } if role == "x"),
        "{}",
        w.summary()
    );
    // A move that is not legal for us.
    let no = find(&t, 0, |l| l.starts_with("!C!"));
    let bad = edit(&t, no, |_| "!C!( MARK 9 9 ),NOOP".into());
    let w = both(game, &bad);
    assert!(
        matches!(diverges(&w, no), Mismatch::IllegalMove { played, .. } if played == "(mark 9 9)"),
        "{}",
        w.summary()
    );
}

#[test]
fn reasoner_errors_and_unfinished_traces_are_reported() {
    let game = "tictactoe";
    let t = to_gdl_perf(&oracle_trace(game));
    let lines: Vec<&str> = t.lines().collect();
    let mut err = lines[..10].to_vec();
    err.push("!E!java.lang.OutOfMemoryError");
    let w = both(game, &(err.join("\n") + "\n"));
    assert_eq!(
        w.reasoner_error,
        Some((11, "java.lang.OutOfMemoryError".into()))
    );
    assert!(!w.agrees());
    let unfinished = lines[..lines.len() - 1].join("\n");
    let w = both(game, &unfinished);
    assert!(w.agrees(), "{}", w.summary());
    assert!(w.notes.iter().any(|n| n.contains("!F!")), "{:?}", w.notes);
}

#[test]
fn roles_that_differ_are_a_divergence_at_the_roles_line() {
    let w = both("tictactoe", "!R!white,black\n!T!false\n");
    assert!(matches!(diverges(&w, 1), Mismatch::Roles { .. }));
}

/// Playout numbers that do not count up from 0 agree, with a note naming the first line
/// where they skip; a line that ends a playout on a non-terminal position without a joint
/// move, `truncated` or `error` is malformed, named at its line.
#[test]
fn skipped_playout_numbers_are_noted_and_an_unexplained_end_is_malformed() {
    let game = "tictactoe";
    let t = oracle_trace(game);
    let second = find(&t, 1, |l| l.contains("\"step\":0,"));
    let mut renumbered = t.clone();
    for no in second..=t.lines().count() {
        renumbered = edit(&renumbered, no, |l| {
            json_edit(l, |v| {
                let p = v["playout"].as_u64().unwrap();
                v["playout"] = (p + 4).into();
            })
        });
    }
    let w = both(game, &renumbered);
    assert!(w.agrees(), "{}", w.summary());
    assert_eq!(
        w.notes,
        [format!(
            "playout numbers do not count up from 0: line {second} begins playout 5 where \
             playout 1 was due"
        )]
    );
    // the first playout's second line, its joint move removed
    let cut = edit(&t, 3, |l| {
        json_edit(l, |v| {
            v.as_object_mut().unwrap().remove("joint");
        })
    });
    let path = workspace_root().join(format!("bench-games/{game}.kif"));
    let program = gdl::load(&path).expect("game loads").program;
    let mut interp = Interp::new(&program).expect("interpreter");
    let mut ie = InterpEngine::new(&mut interp).expect("initial state");
    let e = verify(&mut ie, &cut).expect_err("malformed");
    assert!(
        e.to_string()
            .contains("3:1: a non-terminal position without a joint move"),
        "{e}"
    );
}
