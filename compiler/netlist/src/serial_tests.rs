//! Round trips and error reports of the text and JSON forms, and the DOT picture.

use super::random::{random_netlist, RandomSpec};
use super::*;

fn sample(seed: u64) -> Netlist {
    let mut n = random_netlist(
        seed,
        &RandomSpec {
            roles: 1 + seed as usize % 3,
            percepts_per_role: 3 * (seed as usize % 2),
            ..Default::default()
        },
    );
    // odd seeds: a GDL-II netlist, a percept text that needs quoting
    if seed % 2 == 1 {
        n.gdl2 = true;
        n.roles[0].percepts[0].name = "(\"seen\" \\ 1)".into();
    }
    n.fixed_fluents.push(("(fixed \"q\" \\ x)".into(), true));
    n.aliased_fluents.push(AliasedFluent {
        name: "(alias \"a\")".into(),
        latch: LatchId(0),
        negated: false,
    });
    n.aliased_fluents.push(AliasedFluent {
        name: "(alias b)".into(),
        latch: LatchId(1),
        negated: true,
    });
    n.roles[0].name = "white \"w\"".into();
    n
}

#[test]
fn text_round_trips() {
    for seed in 0..20 {
        let n = sample(seed);
        let text = to_text(&n);
        let back = from_text(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(back, n, "seed {seed}");
        assert_eq!(to_text(&back), text);
    }
}

#[test]
fn text_ignores_comments_and_blank_lines() {
    let src = "; a game\n\nrole r0 \"p\" ; the only role\nlatch l0 \"(a)\" init 1\ninput i0 r0 \"(go)\"\n\
               g0 = latch l0\ng1 = not g0\ng2 = input i0\ng3 = or g1 g2\nnext l0 g3\nlegal r0 i0 g0\n\
               goal r0 100 g1\nterminal g1\n";
    let n = from_text(src).unwrap();
    assert_eq!(n.gates[3], Gate::Or(vec![GateId(1), GateId(2)]));
    assert_eq!(n.latches[0].next, GateId(3));
    assert_eq!(n.roles[0].goals[0].value, 100);
    assert!(to_text(&n).contains("g3 = or g1 g2\n"));
}

fn syntax_error(src: &str) -> (usize, usize, String, String) {
    match from_text(src) {
        Err(TextError::Syntax {
            line,
            column,
            msg,
            token,
        }) => (line, column, msg, token),
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn text_errors_say_where() {
    let (line, col, msg, tok) = syntax_error("role r0 \"p\"\ng0 = nand g1\n");
    assert_eq!((line, col, tok.as_str()), (2, 6, "nand"), "{msg}");
    let (line, col, _, tok) = syntax_error("role r0 \"p\"\ng1 = const 0\n");
    assert_eq!((line, col, tok.as_str()), (2, 1, "g1"));
    let (line, col, _, tok) = syntax_error("latch l0 \"(a) init 1\n");
    assert_eq!((line, col, tok.as_str()), (1, 10, "\"(a) init 1"));
    let (line, _, msg, _) = syntax_error("latch l0 \"(a)\" init 1\ng0 = latch l0\nterminal g0\n");
    assert_eq!(line, 4);
    assert!(msg.contains("next l0"), "{msg}");
    let (_, _, _, tok) = syntax_error("g0 = const 2\n");
    assert_eq!(tok, "2");
    // Not topological: said at the operand.
    let (line, col, _, tok) = syntax_error("g0 = not g0\nterminal g0\n");
    assert_eq!((line, col, tok.as_str()), (1, 10, "g0"));
}

/// What `validate` would reject without a place is said at its line: a gate that is not
/// defined, output lines given twice or out of order (the last one used to win silently).
#[test]
fn text_output_lines_are_checked_where_they_stand() {
    let head =
        "role r0 \"p\"\nlatch l0 \"(a)\" init 1\ninput i0 r0 \"(go)\"\ninput i1 r0 \"(stay)\"\n\
                g0 = latch l0\ng1 = not g0\ng2 = input i0\ng3 = input i1\ng4 = or g1 g2\n";
    let with = |tail: &str| format!("{head}{tail}");
    let ok =
        "next l0 g4\nlegal r0 i0 g0\nlegal r0 i1 g1\ngoal r0 0 g1\ngoal r0 100 g0\nterminal g1\n";
    from_text(&with(ok)).expect("valid");
    let cases = [
        (
            "terminal g0\n",
            (16, 1, "terminal"),
            "second `terminal` line (the first is line 15)",
        ),
        (
            "next l0 g1\n",
            (16, 1, "next"),
            "second `next l0` line (the first is line 10)",
        ),
        ("g5 = and g0 g7\n", (16, 13, "g7"), "not an earlier gate"),
    ];
    for (extra, at, says) in cases {
        let src = with(&format!("{ok}{extra}"));
        let (line, col, msg, tok) = syntax_error(&src);
        assert_eq!((line, col, tok.as_str()), at, "{msg}");
        assert!(msg.contains(says), "{msg}");
    }
    let undefined = ok.replace("terminal g1", "terminal g9");
    let (line, col, msg, tok) = syntax_error(&with(&undefined));
    assert_eq!((line, col, tok.as_str()), (15, 10, "g9"), "{msg}");
    let swapped = ok.replace(
        "legal r0 i0 g0\nlegal r0 i1 g1",
        "legal r0 i1 g1\nlegal r0 i0 g0",
    );
    let (line, col, msg, _) = syntax_error(&with(&swapped));
    assert_eq!((line, col), (12, 10), "{msg}");
    let twice = ok.replace("goal r0 100 g0", "goal r0 0 g0");
    let (line, col, msg, _) = syntax_error(&with(&twice));
    assert_eq!((line, col), (14, 9), "{msg}");
}

#[test]
fn json_round_trips_and_validates() {
    for seed in 0..10 {
        let n = sample(seed);
        assert_eq!(from_json(&to_json(&n)).unwrap(), n);
    }
    // Older files without `fixed_fluents` still load; a GDL-I netlist's JSON has no
    // GDL-II keys (the same bytes as before percepts existed).
    let n = random_netlist(1, &RandomSpec::default());
    let json = to_json(&n);
    assert!(
        !json.contains("percepts") && !json.contains("gdl2"),
        "{json}"
    );
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v.as_object_mut().unwrap().remove("fixed_fluents");
    v.as_object_mut().unwrap().remove("aliased_fluents");
    assert_eq!(from_json(&v.to_string()).unwrap(), n);
    assert!(matches!(
        from_json("{\"gates\": 3}"),
        Err(JsonError::Syntax(_))
    ));
    let mut bad = n.clone();
    bad.terminal = GateId(bad.gates.len() as u32);
    assert!(matches!(
        from_json(&to_json(&bad)),
        Err(JsonError::Invalid(ValidateError::OutOfRange { .. }))
    ));
}

#[test]
fn dot_shows_every_gate_and_output() {
    let n = sample(2);
    let dot = to_dot(&n);
    assert!(dot.starts_with("digraph netlist {") && dot.trim_end().ends_with('}'));
    for i in 0..n.gates.len() {
        assert!(
            dot.contains(&format!("  g{i} [label=\"g{i} ")),
            "gate g{i} missing"
        );
    }
    let edges: usize = n.gates.iter().map(|g| g.operands().len()).sum();
    assert_eq!(
        dot.lines()
            .filter(|l| l.contains(" -> g") && !l.contains("next"))
            .count(),
        edges
    );
    assert!(dot.contains("label=\"terminal\" shape=note"));
    assert!(dot.contains("legal white \\\"w\\\" (m 00)"));
    assert_eq!(
        dot.matches("label=\"next\"").count(),
        n.gates
            .iter()
            .filter(|g| matches!(g, Gate::Latch(_)))
            .count()
    );
}

#[test]
fn a_byte_order_mark_is_skipped_by_both_readers() {
    let n = sample(3);
    let bom = |s: String| format!("\u{feff}{s}");
    assert_eq!(from_json(&bom(to_json(&n))).unwrap(), n);
    assert_eq!(from_text(&bom(to_text(&n))).unwrap(), n);
}

#[test]
fn a_fluent_named_twice_is_refused() {
    let n = sample(4);
    let latch = n.latches[0].name.clone();
    let mut fixed = n.clone();
    fixed.fixed_fluents.push((latch.clone(), true));
    let mut aliased = n.clone();
    aliased.aliased_fluents[1].name = "(fixed \"q\" \\ x)".into();
    for (bad, want) in [
        (
            fixed,
            format!("fluent {latch} is named twice, as latch l0 and as fixed fluent 1"),
        ),
        (
            aliased,
            "fluent (fixed \"q\" \\ x) is named twice, as fixed fluent 0 and as aliased fluent 1"
                .to_string(),
        ),
    ] {
        for e in [
            from_json(&to_json(&bad)).unwrap_err().to_string(),
            from_text(&to_text(&bad)).unwrap_err().to_string(),
        ] {
            assert!(e.contains(&want), "{e}");
            assert!(e.contains("rename or remove one"), "{e}");
        }
    }
}

#[test]
fn percepts_out_of_order_are_refused_by_text_and_validation() {
    let n = sample(1);
    let text = to_text(&n);
    assert!(text.starts_with("gdl II\n"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.starts_with("percept r0"))
        .unwrap();
    let mut swapped = lines.clone();
    swapped.swap(first, first + 1);
    let (line, _, msg, _) = syntax_error(&swapped.join("\n"));
    assert_eq!(line, first + 2, "{msg}");
    assert!(msg.contains("ascending text order"), "{msg}");
    let mut bad = n.clone();
    bad.roles[0].percepts.swap(0, 1);
    let e = validate(&bad).unwrap_err();
    assert!(
        e.to_string().contains("percepts not strictly sorted"),
        "{e}"
    );
}
