use super::*;
use crate::gdl::Violation;

/// The warnings, less the missing `terminal`/`legal`/`goal` ones that the small games here
/// provoke (those have their own test).
fn warnings(g: &Game) -> Vec<String> {
    g.warnings
        .iter()
        .map(|d| d.to_string())
        .filter(|w| !w.contains(" has no `terminal` rules") && !w.contains("` has no `"))
        .collect()
}

#[test]
fn unsafe_variables_are_named_with_rule_and_location() {
    let cases = [
        (
            "(<= (p ?x) (q ?y))",
            "g.kif:2:1: unsafe variable ?x (in the head, not bound by a positive literal) in rule `(<= (p ?x) (q ?y))`",
        ),
        (
            "(<= (p ?x) (q ?x)\n  (not (r ?y)))",
            "g.kif:2:1: unsafe variable ?y (in a not, not bound by a positive literal) in rule `(<= (p ?x) (q ?x) (not (r ?y)))`",
        ),
        (
            "(<= (p ?x) (distinct ?x ?z) (q ?x))",
            "g.kif:2:1: unsafe variable ?z (in a distinct, not bound by a positive literal) in rule `(<= (p ?x) (distinct ?x ?z) (q ?x))`",
        ),
        (
            "(<= p (not (distinct ?w 1)))",
            "g.kif:2:1: unsafe variable ?w (in a (not (distinct …)), not bound by a positive literal) in rule `(<= p (not (distinct ?w 1)))`",
        ),
        (
            "(<= (p ?x) (or (q ?x) (r 1)))",
            "g.kif:2:1: unsafe variable ?x (in the head, not bound by a positive literal) in rule `(<= (p ?x) (or (q ?x) (r 1)))`",
        ),
    ];
    for (rule, want) in cases {
        assert_eq!(error(&format!("{PRELUDE}{rule}")), want);
    }
    // Bound before or after, in any literal order: safe.
    let g = game("(role a)\n(q 1)\n(<= (p ?x) (not (r ?x)) (distinct ?x ?y) (q ?x) (q ?y))");
    assert_eq!(g.program.rules.len(), 3);
}

#[test]
fn negative_cycle_is_rejected_naming_a_rule_on_it() {
    let text = "(role a)\n(<= p (not q))\n(<= q r)\n(<= r p)";
    assert_eq!(
        error(text),
        "g.kif:2:1: unstratified negation: `q/0` depends on `p/0`, which this rule defines \
         through `(not q/0)`, in rule `(<= p (not q))`"
    );
    let text = "(role a)\n(d 1)\n(<= (p ?x) (d ?x) (not (p ?x)))";
    let e = crate::gdl::parse_source("g.kif", text.as_bytes()).unwrap_err();
    assert!(
        matches!(e.violation(), Some(Violation::NegativeCycle { .. })),
        "{e}"
    );
    assert_eq!(e.loc().unwrap().to_string(), "g.kif:3:1");
}

#[test]
fn negation_of_other_instances_of_the_same_relation_is_accepted_with_a_warning() {
    // hidato-style: goal 100 when goal 0 does not hold.
    let text = "(role r)\n(<= (goal r 0) (true lost))\n(<= (goal r 100)\n (not (goal r 0)))";
    let g = game(text);
    assert!(!g.info.stratified);
    let w = warnings(&g);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("g.kif:3:1: warning: `goal/2` is negated inside its own recursion"));
    // The rule that negates evaluates after the rule it negates.
    assert!(g.info.rule_stratum[2] > g.info.rule_stratum[1]);
    // A variable value may match the negated instance: a genuine cycle.
    let text = "(role r)\n(v 0)\n(<= (goal r ?v) (v ?v) (not (goal r 0)))";
    let e = crate::gdl::parse_source("g.kif", text.as_bytes()).unwrap_err();
    assert!(
        matches!(e.violation(), Some(Violation::NegativeCycle { .. })),
        "{e}"
    );
}

#[test]
fn does_must_not_reach_legal_terminal_goal_or_init() {
    let text = "(role a)\n(<= (m ?x) (does a ?x))\n(<= (p ?x) (m ?x))\n(<= (legal a ?x) (p ?x))";
    assert_eq!(
        error(text),
        "g.kif:4:1: `legal` depends on `does` (through legal/2 -> p/1 -> m/1 -> does/2) in rule \
         `(<= (legal a ?x) (p ?x))`"
    );
    assert_eq!(
        error("(role a)\n(<= terminal (does a x))"),
        "g.kif:2:1: `terminal` depends on `does` (through terminal/0 -> does/2) in rule \
         `(<= terminal (does a x))`"
    );
    let e = error("(role a)\n(<= (goal a 0) (not (does a x)))");
    assert!(e.starts_with("g.kif:2:1: `goal` depends on `does`"), "{e}");
    // `next` may depend on `does`.
    game("(role a)\n(<= (next x) (does a x))");
}

#[test]
fn keywords_are_placed_correctly() {
    let cases = [
        (
            "(<= p (next x))",
            "g.kif:2:1: `next` cannot be used in a rule body, in rule `(<= p (next x))`",
        ),
        (
            "(<= p (not (init x)))",
            "g.kif:2:1: `init` cannot be used in a rule body, in rule `(<= p (not (init x)))`",
        ),
        (
            "(true x)",
            "g.kif:2:1: `true` cannot be used in a rule head, in rule `(true x)`",
        ),
        (
            "(<= (does a x) p)",
            "g.kif:2:1: `does` cannot be used in a rule head, in rule `(<= (does a x) p)`",
        ),
        (
            "(<= p (true x y))",
            "g.kif:2:1: `true` takes 1 argument, found 2 in `(true x y)`",
        ),
        (
            "(legal a)",
            "g.kif:2:1: `legal` takes 2 arguments, found 1 in `(legal a)`",
        ),
        (
            "(<= (terminal 1) p)",
            "g.kif:2:1: `terminal` takes 0 arguments, found 1 in `(terminal 1)`",
        ),
    ];
    for (rule, want) in cases {
        assert_eq!(error(&format!("{PRELUDE}{rule}")), want);
    }
}

#[test]
fn connectives_are_not_object_constants() {
    for (rule, col) in [
        ("(foo not bar)", 6),
        ("(foo a DISTINCT)", 8),
        ("(<= (p ?x) (q ?x or))", 18),
        ("(foo (f <=))", 9),
    ] {
        let e = error(&format!("{PRELUDE}{rule}"));
        assert!(e.starts_with(&format!("g.kif:2:{col}: `")), "{e}");
        assert!(e.contains("cannot stand here (term)"), "{e}");
    }
}

#[test]
fn the_role_past_the_rng_limit_is_rejected_where_it_stands() {
    let roles: String = (0..300).map(|i| format!("(role r{i})\n")).collect();
    let e = error(&roles);
    assert_eq!(
        e,
        "g.kif:257:1: role number 257 is one too many: at most 256 roles (the playout RNG \
         holds the role in 8 bits), in `(role r256)`"
    );
}

#[test]
fn legal_and_goal_rules_of_undeclared_roles_are_warnings() {
    let g = game("(role a)\n(legal a go)\n(goal a 0)\n(<= (goal b 100) (true x))\n(legal c go)");
    let w = warnings(&g);
    assert_eq!(
        w,
        [
            "g.kif:4:1: warning: `goal` rule for `b`, which is not a role: it never applies, \
             in rule `(<= (goal b 100) (true x))`",
            "g.kif:5:1: warning: `legal` rule for `c`, which is not a role: it never applies, \
             in rule `(legal c go)`",
        ]
    );
}

#[test]
fn does_of_an_undeclared_role_is_a_warning_once_per_sentence() {
    let g = game(
        "(role a)\n(legal a go)\n(goal a 0)\n(<= (next x) (or (does z go) (does z stop)) (does a go))",
    );
    let w = warnings(&g);
    assert_eq!(
        w,
        [
            "g.kif:4:1: warning: `does` of `z`, which is not a role: it never holds, in rule \
          `(<= (next x) (or (does z go) (does z stop)) (does a go))`"
        ]
    );
}

#[test]
fn roles_are_ground_facts() {
    assert_eq!(
        error("(role a)\n(<= (role b) p)"),
        "g.kif:2:1: `role` must be a fact, not a rule in `(<= (role b) p)`"
    );
    assert_eq!(
        error("(role (f a))"),
        "g.kif:1:1: a role must be a constant in `(role (f a))`"
    );
    assert_eq!(
        error("(role ?r)"),
        "g.kif:1:1: a role must be a constant in `(role ?r)`"
    );
    assert_eq!(
        error("(role a)\n(ROLE A)"),
        "g.kif:2:1: duplicate role in `(ROLE A)`"
    );
    assert_eq!(
        error("; nothing\n(p 1)"),
        "g.kif:1:1: the game has no `role` facts"
    );
}

#[test]
fn ground_goal_values_are_integers_from_0_to_100() {
    for (v, col) in [("101", 1), ("high", 1), ("(f 1)", 1), ("-1", 1), ("5.5", 1)] {
        let text = format!("(role a)\n(<= (goal a {v}) p)");
        assert_eq!(
            error(&text),
            format!(
                "g.kif:2:{col}: goal value `{v}` is not an integer from 0 to 100 in rule `(<= (goal a {v}) p)`"
            )
        );
    }
    game("(role a)\n(goal a 0)\n(goal a 100)\n(goal a 050)\n(<= (goal a ?v) (val ?v))\n(val 3)");
}

#[test]
fn recursion_restriction_and_undefined_relations_are_warnings() {
    let g = game(
        "(role a)\n(succ 1 2)\n(<= (reach ?x) (start ?x))\n(<= (reach ?y) (reach ?z) (succ ?z ?y))\n\
         (<= (bad ?x) (bad (f ?x)))\n(<= q (missing 1))",
    );
    let w = warnings(&g);
    assert!(
        w.iter().any(|m| m.starts_with("g.kif:5:1: warning: recursion restriction: argument `(f ?x)` of recursive `(bad (f ?x))`")),
        "{w:?}"
    );
    assert!(
        w.iter().any(|m| m == "g.kif:6:1: warning: relation `missing/1` has no rules or facts (always false), used in rule `(<= q (missing 1))`"),
        "{w:?}"
    );
    // `(reach ?z)` with ?z bound by the non-recursive `succ`: no warning for line 4.
    assert!(!w.iter().any(|m| m.starts_with("g.kif:4:")), "{w:?}");
    assert!(
        w.iter().any(|m| m.contains("`start/1` has no rules")),
        "{w:?}"
    );
}

#[test]
fn init_depending_on_true_is_an_error_at_the_init_rule() {
    let e = error("(role a)\n(<= (s ?x) (true (c ?x)))\n(<= (init (c 1)) (not (s 2)))");
    assert_eq!(
        e,
        "g.kif:3:1: `init` depends on `true` (through init/1 -> s/1 -> true/1), but the \
         initial state is computed with no state, in rule `(<= (init (c 1)) (not (s 2)))`"
    );
}

#[test]
fn missing_terminal_legal_and_goal_rules_are_warnings_at_the_role_facts() {
    let text = "(role white)\n(role black)\n(<= (legal white noop) (true x))\n\
                (<= (goal ?r 50) (role ?r))";
    let g = game(text);
    let w: Vec<String> = g.warnings.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        w,
        [
            "g.kif:1:1: warning: the game has no `terminal` rules: it never ends (playouts \
             stop only at the step limit)",
            "g.kif:2:1: warning: role `black` has no `legal` rules: it never has a legal move",
        ]
    );
    // A variable role in a `legal` head applies to every role; `terminal` present: silent.
    let g = game(
        "(role a)\n(role b)\n(<= (legal ?r noop) (role ?r))\n(goal a 100)\n(<= terminal (true x))",
    );
    let w: Vec<String> = g.warnings.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        w,
        ["g.kif:2:1: warning: role `b` has no `goal` rules: its goal value is always 0"]
    );
}

#[test]
fn base_and_input_reading_the_state_are_warnings() {
    let g = game(
        "(role a)\n(init s)\n(legal a go)\n(goal a 0)\n(<= terminal (true s))\n\
         (<= (base ?f) (true ?f))\n(<= (input a ?m) (does a ?m))\n(base s)\n(input a go)",
    );
    let w = warnings(&g);
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].starts_with("g.kif:6:1: warning: `base` depends on the state (base/1 -> true/1)"),
        "{w:?}"
    );
    assert!(
        w[1].starts_with("g.kif:7:1: warning: `input` depends on the state (input/2 -> does/2)"),
        "{w:?}"
    );
    let fine = game("(role a)\n(init s)\n(legal a go)\n(goal a 0)\n(<= terminal (true s))\n(base s)\n(input a go)");
    assert!(warnings(&fine).is_empty(), "static base/input: no warning");
}
