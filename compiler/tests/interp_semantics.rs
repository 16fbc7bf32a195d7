//! Hand-made semantic tests of the reference interpreter, mirroring the ideas of the
//! oracle's tests (`shared/oracle/tests`): recursion, tests written before their binders,
//! `or`, function terms, `(p)` vs `p`, simultaneous moves, no legal move, several goals,
//! local stratification and the evaluation budgets.

use propnet_compiler::gdl;
use propnet_compiler::interp::trace::{trace, InterpEngine, TraceOptions};
use propnet_compiler::interp::{GoalValue, Interp, InterpError, Limits};

fn load(src: &str) -> Interp {
    let game = gdl::parse_source("test.kif", src.as_bytes()).expect("valid GDL");
    Interp::new(&game.program).expect("interpreter accepts it")
}

fn legal_texts(i: &mut Interp, role: usize) -> Vec<String> {
    let s = i.initial_state().expect("init");
    let pos = i.evaluate(&s).expect("evaluates");
    i.legal_in(&pos, role).into_iter().map(|(t, _)| t).collect()
}

fn lines(i: &mut Interp, playouts: u64, max_steps: u64) -> Vec<String> {
    let opts = TraceOptions {
        game: "test.kif".into(),
        playouts,
        seed: 1,
        max_steps,
        stop_after: None,
    };
    let mut v = Vec::new();
    let mut engine = InterpEngine::new(i).expect("initial state");
    trace(&mut engine, &opts, |l| v.push(l.to_string())).expect("trace");
    v
}

const EDGES: &str = "
(role p)
(init (edge a b)) (init (edge b c)) (init (edge c d))
(<= (left ?x ?y) (true (edge ?x ?y)))
(<= (left ?x ?z) (left ?x ?y) (true (edge ?y ?z)))
(<= (right ?x ?y) (true (edge ?x ?y)))
(<= (right ?x ?z) (true (edge ?x ?y)) (right ?y ?z))
(<= (legal p (l ?y)) (left a ?y))
(<= (legal p (r ?x)) (right ?x d))
(<= (next (edge ?x ?y)) (true (edge ?x ?y)))
(<= terminal (true (edge z z)))
(goal p 0)
";

#[test]
fn left_and_right_recursion_over_the_state() {
    let mut i = load(EDGES);
    assert_eq!(
        legal_texts(&mut i, 0),
        ["(l b)", "(l c)", "(l d)", "(r a)", "(r b)", "(r c)"]
    );
}

#[test]
fn tests_written_before_their_binders() {
    let mut i = load(
        "(role p) (cell a) (cell b) (cell c) (blocked b)
         (<= (legal p (m ?x)) (not (blocked ?x)) (distinct ?x c) (cell ?x))
         (<= (legal p (same ?x ?y)) (not (distinct ?x ?y)) (cell ?x) (cell ?y))
         (<= terminal (true done)) (goal p 0)",
    );
    assert_eq!(
        legal_texts(&mut i, 0),
        ["(m a)", "(same a a)", "(same b b)", "(same c c)"]
    );
}

#[test]
fn or_nested_uneven_and_negated() {
    let mut i = load(
        "(role p) (cell a) (cell b) (cell c) (cell d) (red a) (blue b)
         (<= (legal p (pick ?x)) (cell ?x) (or (red ?x) (or (blue ?x) (cell ?x) (red zz))))
         (<= (legal p (uneven ?x)) (cell ?x) (or (red ?x) (and ?y)))
         (<= (legal p (neither ?x)) (cell ?x) (not (or (red ?x) (blue ?x))))
         (<= terminal (true done)) (goal p 0)",
    );
    // (and ?y) is an ordinary, undefined relation: that alternative never holds
    let l = legal_texts(&mut i, 0);
    let want = [
        "(neither c)",
        "(neither d)",
        "(pick a)",
        "(pick b)",
        "(pick c)",
        "(pick d)",
        "(uneven a)",
    ];
    assert_eq!(l, want);
}

#[test]
fn function_terms_of_any_depth_and_zero_arity() {
    let mut i = load(
        "(role p) (init (pos (f (g a)))) (init flag) (init (flag))
         (<= (legal p (wrap ?x)) (true (pos ?x)))
         (<= (next (pos (h ?x))) (does p (wrap ?x)))
         (<= (next (flag)) (true (flag)))
         (<= terminal (true (pos (h (f (g a))))))
         (goal p 100)",
    );
    let out = lines(&mut i, 1, 10);
    assert_eq!(out.len(), 3, "{out:?}");
    assert!(
        out[1].contains(r#""state":["(flag)","(pos (f (g a)))","flag"]"#),
        "{}",
        out[1]
    );
    assert!(
        out[1].contains(r#""joint":{"p":"(wrap (f (g a)))"}"#),
        "{}",
        out[1]
    );
    assert!(
        out[2].contains(r#""state":["(flag)","(pos (h (f (g a))))"]"#),
        "{}",
        out[2]
    );
    assert!(out[2].contains(r#""terminal":true"#));
}

#[test]
fn proposition_in_parentheses_is_the_proposition() {
    let mut i = load(
        "(role p) (init on)
         (<= (legal p (m)) (true on))
         (<= (legal p m) (on2))
         (<= on2 (true on))
         (<= (next on) (true on))
         (<= terminal (true off)) (goal p 1)",
    );
    assert_eq!(legal_texts(&mut i, 0), ["(m)", "m"]);
}

#[test]
fn simultaneous_moves_use_both_does() {
    let mut i = load(
        "(role a) (role b) (init (count 0))
         (succ 0 1) (succ 1 2)
         (<= (legal a (x ?n)) (true (count ?c)) (succ ?c ?n))
         (<= (legal a stay) (true (count ?c)))
         (<= (legal b go) (true (count ?c)))
         (<= (legal b wait) (true (count ?c)))
         (<= (next (count ?n)) (does a (x ?n)) (does b go))
         (<= (next (count ?c)) (true (count ?c)) (not moved))
         (<= moved (does a (x ?n)) (does b go))
         (<= terminal (true (count 2)))
         (<= (goal ?r 100) (role ?r) (true (count 2)))
         (<= (goal ?r 0) (role ?r) (not (true (count 2))))",
    );
    let s0 = i.initial_state().expect("init");
    let pos = i.evaluate(&s0).expect("eval");
    let la = i.legal_in(&pos, 0);
    let lb = i.legal_in(&pos, 1);
    let x1 = la
        .iter()
        .find(|(t, _)| t == "(x 1)")
        .expect("(x 1) legal")
        .1;
    let go = lb.iter().find(|(t, _)| t == "go").expect("go legal").1;
    let wait = lb.iter().find(|(t, _)| t == "wait").expect("wait legal").1;
    let moved = i.next_state(&s0, &[x1, go]).expect("next");
    assert_eq!(i.state_text(&moved), ["(count 1)"]);
    let stayed = i.next_state(&s0, &[x1, wait]).expect("next");
    assert_eq!(i.state_text(&stayed), ["(count 0)"]);
    assert_eq!(
        i.goals(&s0).expect("goals"),
        vec![vec![GoalValue::Int(0)], vec![GoalValue::Int(0)]]
    );
}

#[test]
fn no_legal_move_ends_the_playout_with_an_error() {
    let mut i = load(
        "(role a) (role b) (init s)
         (<= (legal a go) (true s))
         (<= (legal b go) (true t))
         (<= terminal (true u)) (goal a 0) (goal b 0)",
    );
    let out = lines(&mut i, 1, 10);
    assert_eq!(out.len(), 2);
    assert!(
        out[1].ends_with(
            r#""legal":{"a":["go"],"b":[]},"goals":{"a":0,"b":0},"error":"no legal move for b"}"#
        ),
        "{}",
        out[1]
    );
}

#[test]
fn several_goal_values_are_listed_and_flagged() {
    let mut i = load(
        "(role a) (role b) (init s)
         (<= (legal ?r go) (role ?r))
         (<= terminal (true s))
         (goal a 100) (goal a 50) (goal a 050) (goal b 7)",
    );
    // expected line from the oracle (gdl-trace) on the same text: `050` reads as 50 too
    let out = lines(&mut i, 1, 10);
    assert!(
        out[1].ends_with(r#""goals":{"a":[50,50,100],"b":7},"multiple_goals":["a"]}"#),
        "{}",
        out[1]
    );
}

#[test]
fn locally_stratified_negation_through_goal() {
    let mut i = load(
        "(role r) (init (cell 1 blank)) (init (cell 2 x))
         (<= (legal r noop) (true (cell 1 blank)))
         (<= terminal (true (cell 1 x)))
         (<= (goal r 0) (true (cell ?c blank)))
         (<= (goal r 100) (not (goal r 0)))",
    );
    let s = i.initial_state().expect("init");
    assert_eq!(i.goals(&s).expect("goals"), vec![vec![GoalValue::Int(0)]]);
}

#[test]
fn unbounded_term_growth_stops_with_an_error_naming_the_relation() {
    let src = "(role p) (nat 0) (<= (nat (s ?x)) (nat ?x)) (<= (legal p a) (nat ?x)) (goal p 0)
               (<= terminal (nat z))";
    let game = gdl::parse_source("t.kif", src.as_bytes()).expect("valid GDL");
    // `nat` is only evaluated when a query needs it (here: the first state's `terminal`)
    let r = Interp::new(&game.program).and_then(|mut i| i.initial_state());
    match r {
        Err(e @ InterpError::TermDepth { .. }) => assert!(e.to_string().contains("nat/1"), "{e}"),
        other => panic!("expected a term depth error, got {other:?}"),
    }
}

const PAIRS: &str = "(role p) (d 0) (d 1) (d 2) (d 3) (d 4) (d 5) (d 6) (d 7) (d 8) (d 9)
    (<= (pair ?x ?y ?z) (d ?x) (d ?y) (d ?z)) (goal p 0) (<= terminal (d z))";

#[test]
fn fact_budget_stops_with_an_error_naming_the_relation() {
    let src = format!("{PAIRS} (<= (legal p (a ?x)) (pair ?x ?y 3))");
    let game = gdl::parse_source("t.kif", src.as_bytes()).expect("valid GDL");
    let limits = Limits {
        max_facts: 50,
        ..Limits::default()
    };
    let r = Interp::with_limits(&game.program, limits).and_then(|mut i| i.initial_state());
    match r {
        Err(e @ InterpError::FactBudget { .. }) => assert!(e.to_string().contains("pair/3"), "{e}"),
        other => panic!("expected a fact budget error, got {other:?}"),
    }
}

#[test]
fn static_relation_is_only_computed_for_the_calls_made() {
    // all of `pair` has 1,000 facts: over the budget, but the one call made needs one fact
    let src = format!("{PAIRS} (<= (legal p a) (pair 1 2 3))");
    let game = gdl::parse_source("t.kif", src.as_bytes()).expect("valid GDL");
    let limits = Limits {
        max_facts: 50,
        ..Limits::default()
    };
    let mut i = Interp::with_limits(&game.program, limits).expect("nothing evaluated yet");
    assert_eq!(legal_texts(&mut i, 0), ["a"]);
}

/// A goal value out of 0..=100 derived in a state is an error naming the goal and the fact
/// the value comes from (the grounder rejects the game too, at the same fact);
/// `lenient_goals` reads it as it is.
#[test]
fn a_derived_goal_out_of_range_is_an_error_unless_lenient() {
    let src = "(role p) (init s) (legal p go) (<= (next t) (does p go)) (<= terminal (true t))
               (score 200) (score 07) (<= (goal p ?v) (score ?v) (true t)) (goal p 0)";
    let game = gdl::parse_source("t.kif", src.as_bytes()).expect("valid GDL");
    let mut i = Interp::new(&game.program).expect("prepares");
    let s0 = i
        .initial_state()
        .expect("the initial state derives no bad goal");
    let go = i.legal_moves(&s0, 0).expect("legal");
    let s1 = i.next_state(&s0, &go).expect("next");
    match i.goals(&s1) {
        Err(e @ InterpError::BadGoal { span, .. }) => {
            assert!(e.to_string().ends_with("(goal p 200)"), "{e}");
            assert_eq!(&src[span.start as usize..span.end as usize], "(score 200)");
        }
        other => panic!("expected a bad goal error, got {other:?}"),
    }
    let limits = Limits {
        lenient_goals: true,
        ..Limits::default()
    };
    let mut i = Interp::with_limits(&game.program, limits).expect("prepares");
    let s1 = i.next_state(&s0, &go).expect("next");
    assert_eq!(
        i.goals(&s1).expect("lenient"),
        [vec![
            GoalValue::Int(0),
            GoalValue::Int(7),
            GoalValue::Int(200)
        ]]
    );
}

/// Every command reads goal values alike: ASCII digits only, leading zeros allowed, ≤ 100.
#[test]
fn goal_values_are_read_one_way() {
    for (text, want) in [
        ("0", Some(0)),
        ("050", Some(50)),
        ("000000000000000000000100", Some(100)),
        ("100", Some(100)),
        ("101", None),
        ("+50", None),
        ("-0", None),
        ("0x10", None),
        ("", None),
        ("win", None),
        ("99999999999999999999", None),
    ] {
        assert_eq!(gdl::goal_value(text), want, "{text:?}");
    }
}

/// The interpreter follows a goal value through rules that pass it on, a recursive one
/// included, to the fact that writes it: the same place the grounder names.
#[test]
fn a_bad_goal_value_is_located_through_recursive_rules() {
    let src = "(role r) (init s) (legal r go) (<= (next t) (does r go)) (<= terminal (true t))
               (num 50) (num 101) (<= (val ?x) (val ?x)) (<= (val ?x) (num ?x))
               (<= (goal r ?v) (val ?v) (true t))";
    let game = gdl::parse_source("v.kif", src.as_bytes()).expect("valid GDL");
    let mut i = Interp::new(&game.program).expect("prepares");
    let s0 = i.initial_state().expect("initial");
    let go = i.legal_moves(&s0, 0).expect("legal");
    let s1 = i.next_state(&s0, &go).expect("next");
    match i.goals(&s1) {
        Err(InterpError::BadGoal { span, .. }) => {
            assert_eq!(&src[span.start as usize..span.end as usize], "(num 101)");
        }
        other => panic!("expected a bad goal error, got {other:?}"),
    }
}
