use super::*;
use crate::gdl::{Term, Violation};

#[test]
fn case_is_folded_and_roles_keep_file_order() {
    let g = game("(ROLE White)\n(role black)\n(INIT (Cell A))\n(<= (P ?X) (TRUE (cell ?x)))");
    let s = &g.program.symbols;
    let roles: Vec<&str> = g.program.roles.iter().map(|&r| s.name(r)).collect();
    assert_eq!(roles, ["white", "black"]);
    assert_eq!(
        rule_texts(&g)[2..],
        ["(init (cell a))", "(p ?x) :- (true (cell ?x))"]
    );
}

#[test]
fn proposition_in_parentheses_is_the_proposition_but_zero_ary_function_is_not_a_constant() {
    let g = game("(role a) (p) (<= q p) (<= (r) (s (f) f))");
    assert_eq!(rule_texts(&g)[1..], ["p", "q :- p", "r :- (s (f) f)"]);
    let body = &g.program.rules[3].body;
    let crate::gdl::Lit::Pos(atom) = &body[0] else {
        panic!("not positive")
    };
    assert!(matches!(&atom.args[0], Term::Fn(_, args) if args.is_empty()));
    assert!(matches!(&atom.args[1], Term::Const(_)));
    assert_ne!(atom.args[0], atom.args[1]);
}

#[test]
fn numbers_are_plain_symbols() {
    let g = game("(role a) (n 07) (n 7)");
    let s = &g.program.symbols;
    assert_ne!(s.get("07"), s.get("7"));
    assert_eq!(rule_texts(&g)[1..], ["(n 07)", "(n 7)"]);
}

#[test]
fn not_is_pushed_down_to_atoms() {
    let g =
        game("(role a)\n(<= p (not (or q (r 1))) (not (distinct 1 2)) (not (not s)) (not (or)))");
    assert_eq!(rule_texts(&g)[1], "p :- (not q), (not (r 1)), (= 1 2), s");
}

#[test]
fn or_expands_to_one_rule_per_alternative_in_order() {
    let g = game("(role a)\n(<= (p ?x) (d ?x) (or (q ?x) (and (r ?x) (or s t))) u)");
    assert_eq!(
        rule_texts(&g)[1..],
        [
            "(p ?x) :- (d ?x), (q ?x), u",
            "(p ?x) :- (d ?x), (and (r ?x) (or s t)), u",
        ]
    );
    // `and` is an ordinary relation, so `or` inside it is just a function term.
    let g = game("(role a)\n(<= p (or q (or r s)) (or t v))");
    assert_eq!(
        rule_texts(&g)[1..],
        [
            "p :- q, t",
            "p :- q, v",
            "p :- r, t",
            "p :- r, v",
            "p :- s, t",
            "p :- s, v"
        ]
    );
    // Every alternative keeps the span of the source sentence.
    assert!(g.program.rules[1..]
        .iter()
        .all(|r| r.span == g.program.rules[1].span));
}

#[test]
fn empty_or_drops_the_rule() {
    let g = game("(role a)\n(<= p (or) q)");
    assert_eq!(g.program.rules.len(), 1);
}

#[test]
fn arity_conflicts_are_warnings_with_locations() {
    let g = game("(role a)\n(foo 1)\n(foo 1 2)\n(bar (f 1))\n(<= baz (bar (f 1 2)))");
    let w: Vec<String> = g.warnings.iter().map(|d| d.to_string()).collect();
    assert!(
        w.contains(
            &"g.kif:3:1: warning: relation `foo` is used with arities 1 and 2; each arity is a \
              different relation"
                .to_string()
        ),
        "{w:?}"
    );
    assert!(
        w.contains(
            &"g.kif:5:14: warning: function `f` is used with arities 1 and 2; each arity is a \
              different function"
                .to_string()
        ),
        "{w:?}"
    );
}

fn violation(text: &str) -> (String, Violation) {
    let e = crate::gdl::parse_source("g.kif", text.as_bytes()).unwrap_err();
    (
        e.to_string(),
        e.violation().cloned().expect("a GDL violation"),
    )
}

#[test]
fn malformed_sentences_are_located_errors() {
    let cases = [
        (
            "(role a)\n?x",
            "g.kif:2:1: `?x` is not a sentence (expected a fact or `(<= head body…)`)",
        ),
        (
            "(role a)\n <=",
            "g.kif:2:2: `<=` is not a sentence (expected a fact or `(<= head body…)`)",
        ),
        (
            "(role a)\n(<=)",
            "g.kif:2:1: `(<=)` is not a sentence (expected a fact or `(<= head body…)`)",
        ),
        ("(role a)\n()", "g.kif:2:1: empty list `()` in `()`"),
        ("(role a)\n(p ())", "g.kif:2:4: empty list `()` in `(p ())`"),
        (
            "(role a)\n(<= (not p) q)",
            "g.kif:2:5: `not` cannot stand here (rule head) in `(not p)`",
        ),
        (
            "(role a)\n(or p q)",
            "g.kif:2:1: `or` cannot stand here (fact) in `(or p q)`",
        ),
        (
            "(role a)\n(<= p not)",
            "g.kif:2:7: `not` cannot stand here (literal without arguments) in `not`",
        ),
        (
            "(role a)\n(<= p (?r a))",
            "g.kif:2:8: relation name must be a symbol, found `?r` in `(?r a)`",
        ),
        (
            "(role a)\n(p ((f) a))",
            "g.kif:2:5: function name must be a symbol, found `(f)` in `((f) a)`",
        ),
        (
            "(role a)\n(p <=)",
            "g.kif:2:4: `<=` cannot stand here (term) in `(p <=)`",
        ),
        (
            "(role a)\n(<= p\n  (not q r))",
            "g.kif:3:3: `not` takes 1 argument, found 2 in `(not q r)`",
        ),
        (
            "(role a)\n(<= p (DISTINCT ?x))",
            "g.kif:2:7: `distinct` takes 2 arguments, found 1 in `(DISTINCT ?x)`",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(error(text), want, "for {text:?}");
    }
}

#[test]
fn or_explosion_is_an_error() {
    let alt = "(or a b c d e f g h)";
    let text = format!("(role a)\n(<= p {})", [alt; 6].join(" "));
    let (msg, v) = violation(&text);
    assert!(matches!(v, Violation::OrTooLarge { .. }));
    assert!(msg.starts_with("g.kif:2:1: `or` expands to more than 65536 rules in `(<= p (or"));
}

/// Each rule below the per-rule limit (4⁷ = 16,384 rules), but 17 of them pass the file's
/// total (262,144): the 17th is named.
#[test]
fn or_expansions_of_a_whole_file_are_bounded() {
    let alt = "(or a b c d)";
    let rule = |i: usize| format!("(<= (p{i}) {})", [alt; 7].join(" "));
    let sixteen: Vec<String> = (0..16).map(rule).collect();
    let text = format!("(role a)\n{}", sixteen.join("\n"));
    let within = crate::gdl::parse_source("g.kif", text.as_bytes());
    assert!(within.is_ok(), "16 × 16,384 rules are within the total");
    let text = format!("{text}\n{}", rule(16));
    let (msg, v) = violation(&text);
    assert!(matches!(v, Violation::OrTotalTooLarge { .. }), "{msg}");
    assert!(
        msg.starts_with(
            "g.kif:18:1: `or` expansions come to more than 262144 rules in all at `(<= (p16) (or"
        ),
        "{msg}"
    );
}

#[test]
fn overlong_body_is_an_error_and_a_long_one_is_not() {
    let body = |n: usize| vec!["(true p)"; n].join(" ");
    let (msg, v) = violation(&format!("(role a)\n(<= q {})", body(10_001)));
    assert!(matches!(
        v,
        Violation::BodyTooLong {
            literals: 10_001,
            ..
        }
    ));
    assert!(
        msg.starts_with("g.kif:2:1: rule body has 10001 literals, more than the 10000"),
        "{msg}"
    );
    // Long bodies at the limit lower in linear time (the DNF extends conjuncts in place).
    let text = format!(
        "(role a)\n(init p)\n(<= q {})\n(legal a x)\n(<= terminal (true p))\n(goal a 100)",
        body(10_000)
    );
    let game = crate::gdl::parse_source("g.kif", text.as_bytes()).expect("a valid game");
    let longest = game.program.rules.iter().map(|r| r.body.len()).max();
    assert_eq!(longest, Some(10_000));
}

#[test]
fn syntax_errors_pass_through_with_location() {
    assert_eq!(
        error("(role a)\n(p a))"),
        "g.kif:2:6: unexpected `)` with no open `(`"
    );
    assert_eq!(
        error("(role a)\r\n(p\r\n"),
        "g.kif:2:1: end of file inside this list (1 unclosed `(`; missing `)`)"
    );
    let e = super::super::parse_source("g.kif", b"(role a)\n(p \xc3)").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("g.kif:2:4: invalid UTF-8 byte sequence `\\xc3` (rules must be UTF-8"),
        "{e}"
    );
}

#[test]
fn deepest_accepted_nesting_loads_without_overflow() {
    let depth = crate::kif::MAX_DEPTH - 2;
    let term = format!("{}a{}", "(f ".repeat(depth), ")".repeat(depth));
    let text = format!("(role a)\n(<= (p {term}) (q {term}))\n(q {term})");
    let g = game(&text);
    assert_eq!(g.program.rules.len(), 3);
    let deeper = format!(
        "(role a)\n(p {}a{})",
        "(f ".repeat(depth + 2),
        ")".repeat(depth + 2)
    );
    assert!(error(&deeper).contains("nested deeper than"));
}
