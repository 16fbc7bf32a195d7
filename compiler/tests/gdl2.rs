//! GDL-II (#41): the `sees` restrictions and the dialect of public GDL-II games (front
//! end), percepts in the reference interpreter (pre-transition state, the joint move's
//! `does`, de-duplicated, the asked role binding a role variable), their trace lines, and
//! the grounder's located refusal. GDL-I games keep their verdicts.

use propnet_compiler::gdl::{self, GdlError, Violation};
use propnet_compiler::ground::{self, CompileOptions};
use propnet_compiler::interp::trace::{trace, InterpEngine, TraceOptions};
use propnet_compiler::interp::Interp;

fn load(src: &str) -> Result<gdl::Game, GdlError> {
    gdl::parse_source("g.kif", src.as_bytes())
}

fn warnings(src: &str) -> Vec<String> {
    let game = load(src).unwrap_or_else(|e| panic!("loads: {e}"));
    game.warnings.iter().map(ToString::to_string).collect()
}

/// The oracle's `gdl2_deal.kif` test, trimmed: random deals a card to alice, alice
/// guesses it, bob watches; percepts from the pre-transition state and the joint move.
const DEAL: &str = "
(role random) (role alice) (role bob)
(card c1) (card c2)
(init (phase deal))
(<= (legal random (deal ?c)) (true (phase deal)) (card ?c))
(<= (legal random noop) (true (phase play)))
(<= (legal ?p noop) (distinct ?p random) (true (phase deal)))
(<= (legal alice (guess ?c)) (true (phase play)) (card ?c))
(<= (legal bob wait) (true (phase play)))
(<= (next (holds alice ?c)) (does random (deal ?c)))
(<= (next (holds ?p ?c)) (true (holds ?p ?c)))
(<= (next (phase play)) (true (phase deal)))
(<= (next done) (true (phase play)))
(<= (sees alice (yourcard ?c)) (does random (deal ?c)))
(<= (sees ?r dealt) (does random (deal ?c)))
(<= (sees alice (phase ?x)) (true (phase ?x)))
(<= (sees bob ping) (does alice ?m))
(<= (sees bob ping) (true (phase ?x)))
(<= (sees bob (after ?x)) (next (phase ?x)))
(<= terminal (true done))
(<= (goal ?r 0) (not (true (holds ?r ?c))))
(<= (goal alice 100) (true (holds alice ?c)))
";

#[test]
fn sees_in_a_body_is_a_located_error() {
    let src = "(role p)\n(init s)\n(<= (sees p x) (true s))\n(<= terminal (not (sees p x)))\n";
    let e = load(src).expect_err("sees in a body");
    assert!(
        matches!(e.violation(), Some(Violation::SeesInBody { atom, .. }) if atom == "(sees p x)")
    );
    assert_eq!(e.loc().map(|l| (l.line, l.col)), Some((4, 1)), "{e}");
    assert!(e
        .to_string()
        .starts_with("g.kif:4:1: `(sees p x)` in a rule body"));
    let e = load("(role p)\n(<= (sees p x y) (role p))\n").expect_err("sees/3");
    assert!(
        e.to_string().contains("`sees` takes 2 arguments, found 3"),
        "{e}"
    );
    assert_eq!(e.loc().map(|l| l.line), Some(2));
}

#[test]
fn the_gdl2_dialect_is_accepted_with_located_warnings() {
    let w = warnings(DEAL);
    let has = |line: u32, what: &str| {
        w.iter()
            .any(|m| m.starts_with(&format!("g.kif:{line}:")) && m.contains(what))
    };
    assert!(has(7, "role variable ?p of `legal`"), "{w:#?}");
    assert!(has(15, "role variable ?r of `sees`"), "{w:#?}");
    assert!(has(19, "`next` in the body of a `sees` rule"), "{w:#?}");
    assert!(
        has(21, "variable ?c occurs only in a negated literal"),
        "{w:#?}"
    );
}

#[test]
fn outside_gdl2_mode_the_same_rules_stay_errors() {
    // no `sees`: GDL-I, where a role variable bound by nothing is unsafe
    let gdl1 = "(role a)\n(init s)\n(<= (legal ?p noop) (true s))\n(<= (goal a 0) (true s))\n";
    let e = load(gdl1).expect_err("unsafe in GDL-I");
    assert!(e.to_string().contains("unsafe variable ?p"), "{e}");
    let neg = "(role a)\n(init s)\n(<= (legal a noop) (not (true (q ?x))))\n";
    assert!(load(neg).is_err());
    let next = "(role a)\n(<= (sees a x) (true s))\n(<= (p x) (next s))\n";
    let e = load(next).expect_err("next outside a sees body");
    assert!(
        e.to_string()
            .contains("`next` cannot be used in a rule body"),
        "{e}"
    );
    // a bare `not`: the proposition `not` in GDL-II, an error (at the `not`) in GDL-I
    let bare = "(role a)\n(<= terminal not (true s))\n";
    let e = load(bare).expect_err("bare not in GDL-I");
    assert!(
        e.to_string()
            .starts_with("g.kif:2:14: `not` cannot stand here"),
        "{e}"
    );
    let w = warnings("(role a)\n(<= (sees a x) (true s))\n(<= terminal not (true s))\n");
    assert!(
        w.iter().any(|m| m.contains("`not/0` has no rules")),
        "{w:#?}"
    );
}

#[test]
fn unsafe_moves_and_helpers_called_unbound_stay_errors() {
    // nim-stochastic's rule: ?x bound by nothing, and `legal` is asked with moves unbound
    let nim = "(role random)\n(init (phase random))\n(<= (sees random x) (true (phase random)))\n\
               (<= (legal random (add ?x 1)) (true (phase random)))\n";
    let e = load(nim).expect_err("unsafe move");
    assert!(
        e.to_string().starts_with("g.kif:4:1: unsafe variable ?x"),
        "{e}"
    );
    // a helper whose unsafe variable one call leaves unbound
    let helper = "(role a)\n(init s)\n(<= (sees a x) (true s))\n(<= (h ?x) (true s))\n\
                  (<= (legal a ?y) (h ?y))\n";
    let e = load(helper).expect_err("helper called unbound");
    assert!(
        e.to_string().starts_with("g.kif:4:1: unsafe variable ?x"),
        "{e}"
    );
}

#[test]
fn a_helper_every_call_binds_reads_with_the_callers_bindings() {
    // ii_meier's sort: (sort ?x ?y ?y ?x) bound only by its callers
    let src = "(role a)\n(n 1) (n 2) (n 3)\n(<= (gteq ?x ?y) (n ?x) (n ?y) (not (lt ?x ?y)))\n\
               (lt 1 2) (lt 1 3) (lt 2 3)\n(init (pair 1 3))\n\
               (<= (sort ?x ?y ?x ?y) (gteq ?x ?y))\n(<= (sort ?x ?y ?y ?x) (not (gteq ?x ?y)))\n\
               (<= (legal a (hi ?h)) (true (pair ?p ?q)) (sort ?p ?q ?h ?l))\n\
               (<= (sees a x) (true (pair ?p ?q)))\n(<= terminal (true done))\n";
    let w = warnings(src);
    assert!(
        w.iter().any(|m| m.starts_with("g.kif:7:1:")
            && m.contains("?x ?y bound by no positive literal but by every call of `sort/4`")),
        "{w:#?}"
    );
    let game = load(src).expect("loads");
    let mut interp = Interp::new(&game.program).expect("interpreter");
    let s = interp.initial_state().expect("init");
    let pos = interp.evaluate(&s).expect("evaluates");
    let legal: Vec<String> = interp.legal_in(&pos, 0).into_iter().map(|m| m.0).collect();
    assert_eq!(legal, ["(hi 3)"]);
}

#[test]
fn percepts_come_from_the_state_before_the_move_and_the_joint_move() {
    let game = load(DEAL).expect("loads");
    assert!(game.program.gdl2);
    let mut interp = Interp::new(&game.program).expect("interpreter");
    assert!(interp.is_gdl2());
    let s0 = interp.initial_state().expect("init");
    let mut pos = interp.evaluate(&s0).expect("evaluates");
    let m = |i: &Interp, pos, r: usize, text: &str| {
        (i.legal_in(pos, r).into_iter())
            .find(|(t, _)| t == text)
            .unwrap_or_else(|| panic!("{text} legal"))
            .1
    };
    let joint = [
        m(&interp, &pos, 0, "(deal c2)"),
        m(&interp, &pos, 1, "noop"),
        m(&interp, &pos, 2, "noop"),
    ];
    let (s1, percepts) = interp.next_with_percepts(&mut pos, &joint).expect("move");
    let texts: Vec<Vec<&str>> = (percepts.iter())
        .map(|ps| ps.iter().map(|p| p.0.as_str()).collect())
        .collect();
    // random too (the asked role binds ?r); bob's `ping` derived twice, listed once;
    // alice sees the phase of the state *before* the move; bob sees the next phase
    assert_eq!(texts[0], ["dealt"]);
    assert_eq!(texts[1], ["(phase deal)", "(yourcard c2)", "dealt"]);
    assert_eq!(texts[2], ["(after play)", "dealt", "ping"]);
    assert_eq!(interp.state_text(&s1), ["(holds alice c2)", "(phase play)"]);
    assert_eq!(interp.next_state(&s0, &joint).expect("next"), s1);
}

#[test]
fn gdl2_trace_lines_carry_the_percepts_of_every_role_but_random() {
    let game = load(DEAL).expect("loads");
    let mut interp = Interp::new(&game.program).expect("interpreter");
    let opts = TraceOptions {
        game: "g.kif".into(),
        playouts: 1,
        seed: 1,
        max_steps: 10,
        stop_after: None,
    };
    let mut lines = Vec::new();
    let mut engine = InterpEngine::new(&mut interp).expect("initial state");
    trace(&mut engine, &opts, |l| lines.push(l.to_string())).expect("trace");
    assert!(
        lines[0].ends_with(",\"max_steps\":10,\"gdl\":\"II\"}"),
        "{}",
        lines[0]
    );
    assert_eq!(lines.len(), 4, "{lines:#?}");
    for l in &lines[1..3] {
        let sees = &l[l.find(",\"sees\":").expect("a sees field")..];
        assert!(sees.starts_with(",\"sees\":{\"alice\":["), "{l}");
        assert!(
            sees.contains("],\"bob\":[") && !sees.contains("random"),
            "{l}"
        );
    }
    assert!(
        !lines[3].contains("sees"),
        "the last line has no joint move"
    );
}

/// The netlist of a GDL-II game has each role's possible percepts as outputs, and they
/// hold after the same joint move as the interpreter's percepts (see
/// `percepts_come_from_the_state_before_the_move_and_the_joint_move`), before and after
/// optimization.
#[test]
fn the_netlist_has_percept_outputs_equal_to_the_interpreters() {
    use propnet_netlist::playout::{eval_gates, percepts_of};
    let game = load(DEAL).expect("loads");
    let raw = ground::compile(&game.program, &CompileOptions::default()).expect("grounds");
    let mut optimized = raw.clone();
    propnet_netlist::passes::optimize(&mut optimized, &Default::default());
    for net in [&raw, &optimized] {
        assert!(net.gdl2);
        propnet_netlist::validate(net).expect("valid");
        let names: Vec<Vec<&str>> = (net.roles.iter())
            .map(|r| r.percepts.iter().map(|p| p.name.as_str()).collect())
            .collect();
        assert_eq!(names[0], ["dealt"]);
        assert_eq!(
            names[1],
            [
                "(phase deal)",
                "(phase play)",
                "(yourcard c1)",
                "(yourcard c2)",
                "dealt"
            ]
        );
        assert_eq!(names[2], ["(after play)", "dealt", "ping"]);
        let input = |text: &str| net.inputs.iter().position(|x| x.name == text).expect(text);
        let mut inputs = vec![false; net.inputs.len()];
        for i in [input("(deal c2)"), input("noop")] {
            inputs[i] = true;
        }
        // `noop` is an input of alice and of bob: set both
        for (i, x) in net.inputs.iter().enumerate() {
            inputs[i] |= x.name == "noop";
        }
        let values = eval_gates(net, &net.initial_state(), &inputs);
        let seen: Vec<Vec<&str>> = percepts_of(net, &values)
            .iter()
            .zip(&net.roles)
            .map(|(ks, r)| ks.iter().map(|&k| r.percepts[k].name.as_str()).collect())
            .collect();
        assert_eq!(seen[0], ["dealt"]);
        assert_eq!(seen[1], ["(phase deal)", "(yourcard c2)", "dealt"]);
        assert_eq!(seen[2], ["(after play)", "dealt", "ping"]);
    }
    // the random role alone (no `sees`) is GDL-I: grounded as any role, no percepts
    let gdl1 = "(role random)\n(init s)\n(<= (legal random noop) (true s))\n\
                (<= (next t) (true s))\n(<= terminal (true t))\n(goal random 0)\n";
    let game = load(gdl1).expect("loads");
    assert!(!game.program.gdl2);
    let net = ground::compile(&game.program, &CompileOptions::default()).expect("grounds");
    assert!(!net.gdl2 && net.roles[0].percepts.is_empty());
}
