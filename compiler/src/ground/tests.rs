//! Unit tests of the grounder on tiny hand-written games (read by a minimal KIF reader
//! for lower-case test text only; the real front end is `gdl::load`).

use super::*;
use crate::gdl::{Atom, Lit, Program, Rule, Term};
use propnet_netlist::playout::eval_gates;

enum Sx {
    A(String),
    L(Vec<Sx>),
}

fn read(src: &str) -> Vec<Sx> {
    let toks: Vec<String> = src
        .replace('(', " ( ")
        .replace(')', " ) ")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mut stack: Vec<Vec<Sx>> = vec![Vec::new()];
    for t in toks {
        match t.as_str() {
            "(" => stack.push(Vec::new()),
            ")" => {
                let l = stack.pop().unwrap();
                stack.last_mut().unwrap().push(Sx::L(l));
            }
            _ => stack.last_mut().unwrap().push(Sx::A(t)),
        }
    }
    stack.pop().unwrap()
}

fn term(p: &mut Program, s: &Sx) -> Term {
    match s {
        Sx::A(a) if a.starts_with('?') => Term::Var(p.symbols.intern(a)),
        Sx::A(a) => Term::Const(p.symbols.intern(a)),
        Sx::L(l) => {
            let Sx::A(f) = &l[0] else { panic!("bad term") };
            let f = p.symbols.intern(f);
            Term::Fn(f, l[1..].iter().map(|x| term(p, x)).collect())
        }
    }
}

fn atom(p: &mut Program, s: &Sx) -> Atom {
    match s {
        Sx::A(a) => Atom {
            rel: p.symbols.intern(a),
            args: vec![],
        },
        Sx::L(l) => {
            let Sx::A(f) = &l[0] else { panic!("bad atom") };
            let rel = p.symbols.intern(f);
            Atom {
                rel,
                args: l[1..].iter().map(|x| term(p, x)).collect(),
            }
        }
    }
}

fn lit(p: &mut Program, s: &Sx) -> Lit {
    if let Sx::L(l) = s {
        if let Sx::A(k) = &l[0] {
            match k.as_str() {
                "not" => {
                    if let Sx::L(inner) = &l[1] {
                        if matches!(&inner[0], Sx::A(d) if d == "distinct") {
                            return Lit::Equal(term(p, &inner[1]), term(p, &inner[2]));
                        }
                    }
                    return Lit::Neg(atom(p, &l[1]));
                }
                "distinct" => return Lit::Distinct(term(p, &l[1]), term(p, &l[2])),
                _ => {}
            }
        }
    }
    Lit::Pos(atom(p, s))
}

/// Reads a tiny lower-case GDL program (no `or`).
pub(crate) fn program(src: &str) -> Program {
    let mut p = Program::default();
    for s in read(src) {
        let rule = match &s {
            Sx::L(l) if matches!(&l[0], Sx::A(k) if k == "<=") => {
                let head = atom(&mut p, &l[1]);
                let body = l[2..].iter().map(|x| lit(&mut p, x)).collect();
                Rule {
                    head,
                    body,
                    span: Default::default(),
                }
            }
            _ => Rule {
                head: atom(&mut p, &s),
                body: vec![],
                span: Default::default(),
            },
        };
        if p.symbols.name(rule.head.rel) == "role" {
            if let Term::Const(r) = rule.head.args[0] {
                p.roles.push(r);
            }
        }
        p.rules.push(rule);
    }
    p
}

fn fluents(net: &Netlist, state: &[bool]) -> Vec<String> {
    net.latches
        .iter()
        .zip(state)
        .filter(|(_, &b)| b)
        .map(|(l, _)| l.name.clone())
        .collect()
}

fn step(net: &Netlist, state: &[bool], moves: &[&str]) -> Vec<bool> {
    let mut inputs = vec![false; net.inputs.len()];
    for (r, m) in moves.iter().enumerate() {
        let i = net
            .inputs
            .iter()
            .position(|x| x.role.index() == r && x.name == *m)
            .expect("move exists");
        inputs[i] = true;
    }
    let v = eval_gates(net, state, &inputs);
    net.latches.iter().map(|l| v[l.next.index()]).collect()
}

/// A positive loop p <-> q supported by (true a) must become false once a is gone.
#[test]
fn positive_loop_loses_support() {
    let p = program(
        "(role r) (init a) (<= (legal r go) (true a)) (<= (legal r go) (true b))
         (<= (next b) (true a)) (<= (next c) (true b))
         (<= p (true a)) (<= p q) (<= q p) (<= (next seen) q)
         (<= terminal (true c)) (<= (goal r 100) q) (<= (goal r 0) (not q))",
    );
    let net = compile(&p, &CompileOptions::default()).expect("compiles");
    validate(&net);
    let s0 = net.initial_state();
    assert_eq!(fluents(&net, &s0), ["a"]);
    let v0 = eval_gates(&net, &s0, &vec![false; net.inputs.len()]);
    assert_eq!(
        propnet_netlist::playout::goals_of(&net, &v0),
        [100],
        "q holds while a supports the loop"
    );
    let s1 = step(&net, &s0, &["go"]);
    assert_eq!(fluents(&net, &s1), ["b", "seen"]);
    let v1 = eval_gates(&net, &s1, &vec![false; net.inputs.len()]);
    assert_eq!(
        propnet_netlist::playout::goals_of(&net, &v1),
        [0],
        "the loop lost its support: q is false"
    );
    let s2 = step(&net, &s1, &["go"]);
    assert_eq!(
        fluents(&net, &s2),
        ["c"],
        "seen is not latched from the last state"
    );
    assert!(eval_gates(&net, &s2, &vec![false; net.inputs.len()])[net.terminal.index()]);
}

/// A ring of 500 relations `p0 <- p1 <- … <- p499 <- p0`, supported at two places by
/// different fluents: every `p` holds while either support does, none once both are gone
/// (the unrolled rounds rebuild only what changed the round before).
#[test]
fn a_ring_of_rules_holds_while_a_support_does() {
    let mut src = String::from(
        "(role r) (init a) (<= (next b) (true a)) (<= (next c) (true b))
         (<= (legal r go) (true a)) (<= (legal r go) (true b)) (<= terminal (true c))
         (<= (goal r 100) p7) (<= (goal r 0) (not p7))
         (<= p100 (true a)) (<= p300 (true b)) (<= p499 p0)",
    );
    for i in 0..499 {
        src.push_str(&format!(" (<= p{i} p{})", i + 1));
    }
    let net = compile(&program(&src), &CompileOptions::default()).expect("compiles");
    validate(&net);
    let goal = |state: &[bool]| {
        let v = eval_gates(&net, state, &vec![false; net.inputs.len()]);
        propnet_netlist::playout::goals_of(&net, &v)
    };
    let s0 = net.initial_state();
    let s1 = step(&net, &s0, &["go"]);
    let s2 = step(&net, &s1, &["go"]);
    assert_eq!(fluents(&net, &s1), ["b"]);
    assert_eq!(goal(&s0), [100], "a supports the ring");
    assert_eq!(goal(&s1), [100], "b supports the ring");
    assert_eq!(goal(&s2), [0], "nothing supports the ring");
}

fn validate(net: &Netlist) {
    propnet_netlist::validate(net).expect("valid netlist");
}

/// `p` compiled with the default options, its netlist validated.
fn compiled(p: &Program) -> (Netlist, CompileReport) {
    let (net, rep) = compile_with_report(p, &CompileOptions::default()).expect("compiles");
    validate(&net);
    (net, rep)
}

/// Static relations are computed away; distinct and recursion over a static successor.
#[test]
fn static_relations_fold_to_constants() {
    let p = program(
        "(role r) (succ 1 2) (succ 2 3) (<= (less ?x ?y) (succ ?x ?y)) (<= (less ?x ?z) (succ ?x ?y) (less ?y ?z))
         (init (n 1)) (<= (legal r (to ?y)) (true (n ?x)) (less ?x ?y) (distinct ?y 2))
         (<= (legal r stay) (true (n ?x)))
         (<= (next (n ?y)) (does r (to ?y))) (<= (next (n ?x)) (does r stay) (true (n ?x)))
         (<= terminal (true (n 3))) (<= (goal r 100) (true (n 3))) (goal r 0)",
    );
    let (net, rep) = compiled(&p);
    let names: Vec<_> = net.latches.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        ["(n 1)", "(n 3)"],
        "(n 2) is unreachable: distinct removes (to 2)"
    );
    let moves: Vec<_> = net.inputs.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(moves, ["(to 3)", "stay"]);
    assert!(rep.static_relations >= 2);
    // goal 0 is a static fact: a constant-true gate.
    let g0 = &net.roles[0].goals[0];
    assert_eq!(
        (g0.value, net.gate(g0.gate)),
        (0, &propnet_netlist::Gate::Const(true))
    );
}

/// A counter that terminal stops: relaxed reachability grows it without end, play reaches
/// three states, and the netlist is grounded over those.
const COUNT_TO_TWO: &str = "(role r) (init (count z)) (<= (next (count (s ?x))) (true (count ?x)))
         (legal r go) (<= terminal (true (count (s (s z))))) (goal r 0)";

#[test]
fn growing_terms_of_a_finite_game_are_grounded_over_the_states_play_reaches() {
    let p = program(COUNT_TO_TWO);
    let (net, rep) = compile_with_report(&p, &CompileOptions::default()).unwrap();
    let e = rep.explored.expect("grounded over the explored states");
    assert_eq!((e.states, e.transitions, e.fluents, e.moves), (3, 2, 3, 1));
    assert!(
        e.because.contains("term depth 40") && e.because.contains("next/1"),
        "{}",
        e.because
    );
    let names: Vec<&str> = net.latches.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["(count (s (s z)))", "(count (s z))", "(count z)"]);
    // play: z → s z → s s z, terminal only at the end
    let mut state: Vec<bool> = net.latches.iter().map(|l| l.init).collect();
    for step in 0..3 {
        let v = eval_gates(&net, &state, &[true]);
        assert_eq!(v[net.terminal.index()], step == 2, "step {step}");
        state = net.latches.iter().map(|l| v[l.next.index()]).collect();
    }
    // the fallback off: the relaxed grounder's error
    let off = CompileOptions {
        budget: Budget {
            max_explored_states: 0,
            ..Budget::default()
        },
        ..CompileOptions::default()
    };
    assert!(matches!(
        compile(&p, &off),
        Err(GroundError::Budget {
            kind: BudgetKind::TermDepth,
            ..
        })
    ));
}

/// Play reaches a counter 39 deep (within the limit of 40), but `next` of the terminal
/// state would build one of 40: the limit counts from the deepest reached term, so the
/// game compiles; so does one whose play itself goes past 40.
#[test]
fn terms_play_reaches_near_the_depth_limit_still_compile() {
    for depth in [38, 45] {
        let mut deep = String::from("z");
        for _ in 0..depth {
            deep = format!("(s {deep})");
        }
        let p = program(&COUNT_TO_TWO.replace("(s (s z))", &deep));
        let (net, rep) = compile_with_report(&p, &CompileOptions::default())
            .unwrap_or_else(|e| panic!("depth {depth}: {e}"));
        assert_eq!(rep.explored.map(|e| e.states), Some(depth + 1));
        assert_eq!(net.latches.len(), depth + 1);
    }
}

#[test]
fn growing_terms_hit_the_budget_and_name_the_relation() {
    let p = program(&COUNT_TO_TWO.replace("(true (count (s (s z))))", "(true (count stop))"));
    let err = compile(&p, &CompileOptions::default()).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("enumerating the states play reaches instead stopped"),
        "{msg}"
    );
    assert!(
        matches!(
            err,
            GroundError::Budget {
                kind: BudgetKind::TermDepth,
                ..
            }
        ),
        "{msg}"
    );
    assert!(msg.contains("next/1"), "{msg}");
}

/// The located error of compiling the game `src` (named `file`) with 4 MiB of grounding
/// tables.
fn error_within_4_mib(file: &str, src: &str) -> String {
    let game = crate::gdl::parse_source(file, src.as_bytes()).expect("valid GDL");
    let opts = CompileOptions {
        budget: Budget {
            max_memory: 4 << 20,
            ..Budget::default()
        },
        ..CompileOptions::default()
    };
    compile_game(&game, &opts).unwrap_err()
}

#[test]
fn a_recursion_that_grows_a_list_is_called_unbounded_not_just_over_budget() {
    let src = "(role r) (d 0) (d 1) (d 2) (d 3) (d 4) (d 5) (d 6) (d 7) (d 8) (d 9)
(init (on 1)) (<= (next (on ?a)) (true (on ?a)))
(seq nil)
(<= (seq (cons ?x ?l)) (d ?x) (seq ?l))
(<= (legal r (m ?l)) (true (on 1)) (seq ?l)) (<= terminal (true (on 2))) (goal r 0)";
    let msg = error_within_4_mib("grow.kif", src);
    assert!(
        msg.starts_with("grow.kif:3:1: grounding budget exceeded")
            && msg.contains("seq/1")
            && msg.contains("builds a larger term")
            && msg.contains("unlikely to help")
            && !msg.contains("raise the limit with"),
        "{msg}"
    );
}

/// SmallDominion2's shape: a `next` rule puts a flat fluent over a huge cross product of
/// moves. `next` and `true` are one recursive component and its head is a function term,
/// but no term grows: the error must not call it a growing recursion.
#[test]
fn a_flat_cross_product_over_budget_is_told_to_raise_the_limit() {
    let src = "(role r) (d 0) (d 1) (d 2) (d 3) (d 4) (d 5) (d 6) (d 7) (d 8) (d 9)
(init on) (<= (next on) (true on)) (<= (init (w ?e)) (d ?e)) (<= (next (w ?e)) (true (w ?e)))
(<= (legal r (m ?a ?b ?c)) (true on) (d ?a) (d ?b) (d ?c))
(<= (next (v ?a ?b ?c ?e ?f)) (does r (m ?a ?b ?c)) (true (w ?e)) (true (w ?f)))
(<= terminal (true (v 0 0 0 0 0))) (goal r 0)";
    let msg = error_within_4_mib("flat.kif", src);
    assert!(
        msg.contains("grounding budget exceeded")
            && msg.contains("next/1")
            && msg.contains("raise the limit with --ground-memory-mib")
            && !msg.contains("builds a larger term"),
        "{msg}"
    );
}

/// `--ground-atoms N` stops at atom N + 1, not after the rule that crosses it has added
/// all its atoms (chess stopped at 29,573 atoms under a limit of 1,000).
#[test]
fn the_atom_budget_stops_at_the_limit_itself() {
    let src = "(role r) (d 0) (d 1) (d 2) (d 3) (d 4) (d 5) (d 6) (d 7) (d 8) (d 9)
(init (on 1)) (<= (next (on ?a)) (true (on ?a)))
(<= (big ?a ?b ?c ?e) (true (on ?a)) (d ?b) (d ?c) (d ?e))
(<= (legal r (m ?a ?b ?c ?e)) (big ?a ?b ?c ?e)) (<= terminal (true (on 2))) (goal r 0)";
    let game = crate::gdl::parse_source("pairs.kif", src.as_bytes()).expect("valid GDL");
    let budget = |max_atoms| CompileOptions {
        budget: Budget {
            max_atoms,
            ..Budget::default()
        },
        ..CompileOptions::default()
    };
    compile(&game.program, &budget(5_000)).expect("1,000 `big` atoms fit in 5,000");
    match compile(&game.program, &budget(500)).unwrap_err() {
        GroundError::Budget {
            kind: BudgetKind::Atoms,
            atoms,
            relation,
            ..
        } => {
            assert_eq!(atoms, 501, "stops at the atom past the limit");
            assert_eq!(relation, "big/4");
        }
        e => panic!("not the atom budget: {e}"),
    }
}

#[test]
fn exploding_relation_is_named_once_with_its_rule_and_the_flag() {
    let src = "(role r) (d 0) (d 1) (d 2) (d 3) (d 4) (d 5) (d 6) (d 7) (d 8) (d 9)
(init (on 1)) (<= (next (on ?a)) (true (on ?a)))
(<= (big ?a ?b ?c ?e ?f ?g) (true (on ?a)) (d ?b) (d ?c) (d ?e) (d ?f) (d ?g))
(<= (legal r (m ?a)) (big ?a ?b ?c ?e ?f ?g)) (<= terminal (true (on 2))) (goal r 0)";
    let game = crate::gdl::parse_source("big.kif", src.as_bytes()).expect("valid GDL");
    let opts = CompileOptions {
        budget: Budget {
            max_memory: 4 << 20,
            ..Budget::default()
        },
        ..CompileOptions::default()
    };
    let err = compile(&game.program, &opts).unwrap_err();
    assert!(
        matches!(
            err,
            GroundError::Budget {
                kind: BudgetKind::Memory,
                span: Some(_),
                ..
            }
        ),
        "{err}"
    );
    let msg = compile_game(&game, &opts).unwrap_err();
    assert!(
        msg.starts_with("big.kif:3:1: grounding budget exceeded"),
        "{msg}"
    );
    assert!(
        msg.contains("big/6")
            && msg.contains("4 MiB")
            && msg.contains("raise the limit with --ground-memory-mib"),
        "{msg}"
    );
    assert_eq!(msg.matches("grounding budget").count(), 1, "{msg}");
}

#[test]
fn bad_goal_value_is_an_error() {
    let p = program("(role r) (legal r go) (goal r win) (init a) (<= (next a) (true a))");
    let err = compile(&p, &CompileOptions::default()).unwrap_err();
    assert!(
        matches!(&err, GroundError::BadGoal { goal, .. } if goal == "(goal r win)"),
        "{err}"
    );
}

/// A bad goal value bound from a body atom is located at the fact that writes it, through
/// rules that pass it on (a recursive one included).
#[test]
fn bad_goal_value_is_located_at_the_fact_it_comes_from() {
    let src = "(role r) (init s) (legal r go) (<= (next t) (does r go)) (<= terminal (true t))
               (num 50) (num 101) (<= (val ?x) (num ?x)) (<= (val ?x) (val ?x))
               (<= (goal r ?v) (val ?v) (true t))";
    let game = crate::gdl::parse_source("v.kif", src.as_bytes()).expect("valid GDL");
    let err = compile(&game.program, &CompileOptions::default()).unwrap_err();
    let GroundError::BadGoal { span, goal } = &err else {
        panic!("expected a bad goal error, got {err}");
    };
    assert_eq!(goal, "(goal r 101)");
    assert_eq!(&src[span.start as usize..span.end as usize], "(num 101)");
}

#[test]
fn negation_through_a_cycle_is_an_error() {
    let p = program("(role r) (init a) (legal r go) (<= p (true a) (not q)) (<= q p) (goal r 0) (<= (next a) p)");
    let err = compile(&p, &CompileOptions::default()).unwrap_err();
    assert!(matches!(err, GroundError::Unstratified { .. }), "{err}");
}

/// A static relation no rule uses, defined through negation of another static relation,
/// is stratified (no cycle) and compiles (it was rejected as "depends negatively on
/// itself": relations outside the roots' components all compared equal).
#[test]
fn unused_static_negation_is_stratified() {
    let p = program("(role p) (init s) (legal p n) (<= terminal (true s)) (goal p 0) (r) (<= w (not r)) (<= u w)");
    let (net, _) = compiled(&p);
    assert_eq!(net.inputs.len(), 1);
    assert!(eval_gates(&net, &net.initial_state(), &[false])[net.terminal.index()]);
}

/// `legal` and `does` of a constant that is not a role: the `does` never holds (it was a
/// gate-less atom and the builder panicked on it).
#[test]
fn does_of_a_non_role_with_a_legal_rule_never_holds() {
    let p = program(
        "(role white) (legal white play) (legal n0 play) (<= (next done) (does white play))
         (<= (next ok) (does n0 play)) (<= terminal (true done)) (goal white 0)",
    );
    let (net, _) = compiled(&p);
    let moves: Vec<_> = net.inputs.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(moves, ["play"], "no input for n0");
    let s1 = step(&net, &net.initial_state(), &["play"]);
    assert_eq!(fluents(&net, &s1), ["done"], "(does n0 play) never holds");
}

#[test]
fn long_positive_chain_needs_all_rounds() {
    // r(1) <- r(2) <- ... <- r(6) <- r(1) cycle, fed at r(6) by (true go); r(1) needs 6 rounds.
    let p = program(
        "(role x) (init go) (nx 1 2) (nx 2 3) (nx 3 4) (nx 4 5) (nx 5 6) (nx 6 1)
         (<= (r ?a) (nx ?a ?b) (r ?b)) (<= (r 6) (true go))
         (legal x noop) (<= (next go) (true go) (does x noop) (r 1) (not stop)) (<= stop (true halt))
         (<= (goal x 100) (r 1)) (<= terminal (not (true go)))",
    );
    let (net, rep) = compiled(&p);
    assert_eq!(rep.cyclic_sccs, 1);
    assert_eq!(rep.largest_cyclic_scc, 6);
    let s0 = net.initial_state();
    let v = eval_gates(&net, &s0, &[false]);
    assert_eq!(propnet_netlist::playout::goals_of(&net, &v), [100]);
    let off = vec![false; net.latches.len()];
    let v = eval_gates(&net, &off, &[false]);
    assert_eq!(propnet_netlist::playout::goals_of(&net, &v), [0]);
}

#[test]
fn independent_moves_are_split_not_multiplied() {
    let nums: String = (1..=12).map(|n| format!("(num {n}) ")).collect();
    let p = program(&format!(
        "(role a) (role b) {nums} (cell c1) (cell c2) (cell c3) (init (on c1))
         (<= (ok ?c ?n) (cell ?c) (num ?n) (distinct ?n 12))
         (<= (legal a (pick ?n)) (num ?n)) (<= (legal b (pick ?n)) (num ?n))
         (<= (next (on ?c)) (true (on ?c)) (does a (pick ?x)) (ok ?c ?x)
             (does b (pick ?y)) (ok ?c ?y))
         (<= terminal (not (true (on c1)))) (goal a 0) (goal b 0)"
    ));
    let (net, rep) = compiled(&p);
    // Unsplit, `next` alone would have 3 cells x 11 x 11 move pairs = 363 instances.
    assert!(
        rep.instances < 150,
        "{} instances: the moves were multiplied",
        rep.instances
    );
    let s0 = net.initial_state();
    assert_eq!(fluents(&net, &s0), ["(on c1)"]);
    assert_eq!(
        fluents(&net, &step(&net, &s0, &["(pick 3)", "(pick 5)"])),
        ["(on c1)"]
    );
    assert!(fluents(&net, &step(&net, &s0, &["(pick 3)", "(pick 12)"])).is_empty());
    assert!(fluents(&net, &step(&net, &s0, &["(pick 12)", "(pick 1)"])).is_empty());
}

/// Dense `hop` among ten nodes, except that node 0 has no way out.
fn hop_facts() -> String {
    let mut s = String::new();
    for x in 0..10 {
        s += &format!("(node {x}) ");
        for y in 0..10 {
            if x != y && x != 0 {
                s += &format!("(hop {x} {y}) ");
            }
        }
    }
    s
}

fn legal_names(net: &Netlist, state: &[bool]) -> Vec<String> {
    let v = eval_gates(net, state, &vec![false; net.inputs.len()]);
    net.roles[0]
        .legal
        .iter()
        .filter(|l| v[l.gate.index()])
        .map(|l| net.inputs[l.input.0 as usize].name.clone())
        .collect()
}

#[test]
fn chains_of_body_variables_are_eliminated_not_multiplied() {
    let p = program(&format!(
        "(role r) {} (target 0 zero) (target 1 one) (init (at 2))
         (<= (legal r (jump ?d)) (true (at ?x)) (hop ?x ?y) (hop ?y ?z) (hop ?z ?w) (target ?w ?d))
         (<= (legal r (walk ?y)) (true (at ?x)) (hop ?x ?y))
         (legal r stay)
         (<= (next (at ?w)) (does r (jump ?d)) (target ?w ?d))
         (<= (next (at ?y)) (does r (walk ?y)))
         (<= (next (at ?x)) (does r stay) (true (at ?x)))
         (<= terminal (true (at 1))) (goal r 0)",
        hop_facts()
    ));
    let (net, rep) = compiled(&p);
    // One join over the chain has about 10 x 9 x 9 x 9 = 7290 solutions for `jump` alone;
    // eliminated one variable at a time it is a few joins of 10 x 9.
    assert!(
        rep.instances < 1500,
        "{} instances: the chain was multiplied",
        rep.instances
    );
    let s0 = net.initial_state();
    let from2 = legal_names(&net, &s0);
    assert!(from2.contains(&"(jump zero)".to_string()), "{from2:?}");
    assert!(from2.contains(&"(jump one)".to_string()), "{from2:?}");
    assert!(!from2.contains(&"(walk 2)".to_string()), "{from2:?}");
    let at0 = step(&net, &s0, &["(walk 0)"]);
    assert_eq!(fluents(&net, &at0), ["(at 0)"]);
    assert_eq!(legal_names(&net, &at0), ["stay"], "no hop leaves node 0");
    let at1 = step(&net, &s0, &["(jump one)"]);
    assert_eq!(fluents(&net, &at1), ["(at 1)"]);
}

#[test]
fn literal_local_variables_are_projected_away() {
    // `next` only needs the cell a move comes from, not the whole move: projected, the
    // rule joins the 9 cells with 9 cells instead of every move with every cell.
    let cells: String = (1..=9).map(|c| format!("(cell {c}) ")).collect();
    let p = program(&format!(
        "(role r) {cells} (init (on 1)) (init (on 2))
         (<= (legal r (move ?a ?b ?c)) (true (on ?a)) (cell ?b) (cell ?c))
         (<= (next (on ?x)) (true (on ?x)) (does r (move ?a ?b ?c)) (distinct ?x ?a))
         (<= (next (on ?b)) (does r (move ?a ?b ?c)))
         (<= terminal (true (on 9))) (goal r 0)"
    ));
    let (net, rep) = compiled(&p);
    // Unprojected, the first `next` rule alone has 9 cells x 729 moves (minus distinct).
    assert!(
        rep.instances < 2500,
        "{} instances: moves were joined whole",
        rep.instances
    );
    let s0 = net.initial_state();
    assert_eq!(
        fluents(&net, &step(&net, &s0, &["(move 1 5 7)"])),
        ["(on 2)", "(on 5)"]
    );
    assert_eq!(
        fluents(&net, &step(&net, &s0, &["(move 2 2 3)"])),
        ["(on 1)", "(on 2)"]
    );
}

#[test]
fn a_head_variable_under_negation_is_guarded_not_multiplied() {
    // `legal` of a piece at ?u needs the king (?k, body-only) not attacked from ?u, which
    // only the negative literal mentions: the king's group takes `(true (at ?u))` as a
    // guard and grounds over squares x king squares, not moves x king squares (the
    // group leaves out two of the head's three variables).
    let sq: String = (1..=8).map(|n| format!("(sq {n}) ")).collect();
    let p = program(&format!(
        "(role a) {sq} (init (at 1)) (init (at 2)) (init (king 3)) (init (guard 4))
         (<= (attacked ?k ?u) (true (guard ?k)) (sq ?u) (distinct ?k ?u))
         (<= (legal a (mv ?u ?x ?y)) (true (at ?u)) (sq ?x) (sq ?y) (true (king ?k))
             (not (attacked ?k ?u)))
         (<= (next (at ?x)) (does a (mv ?u ?x ?y)))
         (<= (next (at ?v)) (true (at ?v)) (does a (mv ?u ?x ?y)) (distinct ?v ?u))
         (<= (next (king ?k)) (true (king ?k)) (does a (mv ?u ?x ?y)) (distinct ?u ?x))
         (<= (next (king ?x)) (does a (mv ?x ?x ?y)))
         (<= (next (guard ?x)) (does a (mv ?u ?x ?y)))
         (<= terminal (true (at 8))) (goal a 0)"
    ));
    let (net, rep) = compiled(&p);
    let legal = rep.by_relation.iter().find(|r| r.relation == "legal/2");
    let legal = legal.expect("legal/2 has statistics");
    // Unguarded: 8 x 8 x 8 moves x 8 king squares = 4096 instances.
    assert!(
        legal.instances <= 512,
        "{} legal instances",
        legal.instances
    );
    let s0 = net.initial_state();
    let mut moves = legal_names(&net, &s0);
    moves.sort();
    assert_eq!(moves.len(), 128, "{moves:?}");
    assert!(moves.contains(&"(mv 1 5 1)".to_string()) && moves.contains(&"(mv 2 8 8)".to_string()));
    // After (mv 1 3 1): pieces at 2 and 3, king at 3, guard at 3, so (attacked 3 2) holds and
    // only the piece at 3 may move.
    let s1 = step(&net, &s0, &["(mv 1 3 1)"]);
    let mut f1 = fluents(&net, &s1);
    f1.sort();
    assert_eq!(f1, ["(at 2)", "(at 3)", "(guard 3)", "(king 3)"]);
    let moves = legal_names(&net, &s1);
    assert_eq!(moves.len(), 64, "{moves:?}");
    assert!(moves.iter().all(|m| m.starts_with("(mv 3 ")), "{moves:?}");
}

/// A hex-like union of groups: `touch(k)` joins a move, the mover's groups and the group's
/// cells through `adj`. Every variable choice of the split has a two-variable interface;
/// the value estimates pick `aux(r x→m)` (2 roles x 12 cells), not `aux(x k)` (12 x 20).
#[test]
fn split_ties_go_to_the_interface_with_fewer_estimated_atoms() {
    let grp: String = (1..=20).map(|k| format!("(grp {k}) ")).collect();
    let succ: String = (1..20).map(|k| format!("(succ {k} {}) ", k + 1)).collect();
    let cells: String = (1..=12).map(|c| format!("(cell c{c}) ")).collect();
    let adj: String = (1..12)
        .map(|c| format!("(adj c{c} c{}) (adj c{} c{c}) ", c + 1, c + 1))
        .collect();
    let p = program(&format!(
        "(role red) (role blue) {grp} {succ} {cells} {adj}
         (init (control red)) (init (turn 1))
         (<= (legal ?r (place ?c)) (true (control ?r)) (cell ?c))
         (<= (legal blue noop) (true (control red)))
         (<= (legal red noop) (true (control blue)))
         (<= (next (control blue)) (true (control red)))
         (<= (next (control red)) (true (control blue)))
         (<= (next (turn ?n)) (true (turn ?m)) (succ ?m ?n))
         (<= (next (mark ?k ?c)) (does ?r (place ?c)) (true (turn ?k)))
         (<= (next (mark ?k ?c)) (true (mark ?k ?c)))
         (<= (next (owner ?k ?r)) (true (turn ?k)) (true (control ?r)))
         (<= (next (owner ?k ?r)) (true (owner ?k ?r)))
         (<= (touch ?k) (does ?r (place ?x)) (true (owner ?k ?r)) (true (mark ?k ?m)) (adj ?x ?m))
         (<= (next (joined ?k)) (touch ?k))
         (<= (next (joined ?k)) (true (joined ?k)))
         (<= terminal (true (turn 20))) (goal red 0) (goal blue 0)"
    ));
    let (net, rep) = compiled(&p);
    // Eliminating the role first (ties broken by variable order) grounds 1,832 instances.
    assert!(
        rep.instances < 1500,
        "{} instances: the split took the larger interface",
        rep.instances
    );
    let s1 = step(&net, &net.initial_state(), &["(place c1)", "noop"]);
    let s2 = step(&net, &s1, &["noop", "(place c5)"]);
    assert!(!fluents(&net, &s2).iter().any(|f| f.starts_with("(joined")));
    let s3 = step(&net, &s2, &["(place c2)", "noop"]);
    let f3 = fluents(&net, &s3);
    assert!(f3.contains(&"(joined 1)".to_string()), "{f3:?}");
    assert!(!f3.contains(&"(joined 2)".to_string()), "{f3:?}");
}

/// Chess's king-safety shape: a move is legal when the king, wherever it stands (a
/// body-only variable with many values), is not attacked once the piece has left its
/// square. The king part of each instance is factored out of the move's `Or`
/// (`factor`), and shared by every move from the same square.
#[test]
fn king_squares_are_factored_out_of_each_move() {
    let sq: String = (1..=20).map(|n| format!("(sq {n}) ")).collect();
    let p = program(&format!(
        "(role a) {sq} (init (at 1)) (init (at 2)) (init (king 3)) (init (guard 4))
         (<= (attacked ?k ?u) (true (guard ?g)) (sq ?k) (sq ?u) (distinct ?g ?u) (distinct ?k ?g))
         (<= (legal a (mv ?u ?x)) (true (at ?u)) (sq ?x) (not (true (at ?x)))
             (true (king ?k)) (not (attacked ?k ?u)))
         (<= (next (at ?x)) (does a (mv ?u ?x)))
         (<= (next (at ?v)) (true (at ?v)) (does a (mv ?u ?x)) (distinct ?v ?u))
         (<= (next (king ?x)) (true (king ?k)) (does a (mv ?k ?x)))
         (<= (next (king ?k)) (true (king ?k)) (does a (mv ?u ?x)) (distinct ?u ?k))
         (<= (next (guard ?x)) (does a (mv ?u ?x)))
         (<= terminal (true (at 20))) (goal a 0)"
    ));
    let (net, rep) = compiled(&p);
    let legal = rep.by_relation.iter().find(|r| r.relation == "legal/2");
    let legal = legal.expect("legal/2 has statistics");
    // 380 moves (a piece never moves onto itself) with 20 king squares each:
    // unfactored, 7,600 instance `And`s of four literals (30,400 edges); factored, one
    // `And` per move and one `Or` of king parts per square the piece leaves.
    assert_eq!(legal.instances, 7600);
    assert!(legal.edges < 6000, "{} edges", legal.edges);
    let s0 = net.initial_state();
    // Pieces at 1 and 2, guard at 4: (attacked k u) holds for u ≠ 4 and k ≠ 4, so with
    // the king at 3 no move is legal.
    assert!(legal_names(&net, &s0).is_empty());
    // With the guard on the king's square every square but 3 is safe: the pieces at 1
    // and 2 may move to any square that no piece holds.
    let mut state = vec![false; net.latches.len()];
    for name in ["(at 1)", "(at 2)", "(king 3)", "(guard 3)"] {
        let i = net.latches.iter().position(|l| l.name == name).unwrap();
        state[i] = true;
    }
    let moves = legal_names(&net, &state);
    assert_eq!(moves.len(), 36, "{moves:?}");
    assert!(!moves.contains(&"(mv 1 2)".to_string()), "{moves:?}");
}

/// Only the atoms an output needs are built: `pair` has 20 x 20 reachable atoms (a negated
/// static filter gives its demand no bindings), the rule that reads it keeps those whose
/// second square is not `small`, and the other pairs' instances are never enumerated
/// (alexChess's `between/4`: 16.0 M instances, of which the pin rules need 94 k). The
/// netlist still computes `terminal`.
#[test]
fn atoms_no_output_needs_are_not_built() {
    let sq: String = (1..=20).map(|n| format!("(sq {n}) ")).collect();
    let small: String = (1..20).map(|n| format!("(small {n}) ")).collect();
    let p = program(&format!(
        "(role a) {sq} {small} (init (at 1)) (init (at 2))
         (<= (pair ?x ?y) (true (at ?x)) (true (at ?y)))
         (<= (hit ?x) (pair ?x ?y) (not (small ?y)))
         (<= (legal a (go ?x)) (sq ?x))
         (<= (next (at ?x)) (does a (go ?x)))
         (<= (next (at ?x)) (true (at ?x)))
         (<= terminal (hit ?x)) (goal a 0)"
    ));
    let (net, rep) = compiled(&p);
    let pair = rep.by_relation.iter().find(|r| r.relation == "pair/2");
    let pair = pair.expect("pair/2 has statistics");
    assert_eq!(pair.atoms, 400, "every pair is reachable");
    assert_eq!(pair.instances, 20, "only the pairs (pair ?x 20) are needed");
    let terminal =
        |s: &[bool]| eval_gates(&net, s, &vec![false; net.inputs.len()])[net.terminal.index()];
    let s0 = net.initial_state();
    assert!(!terminal(&s0));
    let s1 = step(&net, &s0, &["(go 20)"]);
    assert!(terminal(&s1), "(hit 20) holds once a piece is on 20");
    let s2 = step(&net, &s0, &["(go 19)"]);
    assert!(!terminal(&s2));
}

/// A rule whose join opens more on-demand calls than a join records
/// ([`super::join::MISSING_BATCH`], 3 in the unit tests): the join stops, the calls are
/// computed, and it runs again until none is missing, with the same answers as one
/// complete run. `nat` grows terms without bound, so it is computed on demand, per call.
#[test]
fn joins_with_more_missing_calls_than_a_batch_run_again_to_the_same_answers() {
    let p = program(
        "(role r) (d z) (d (s z)) (d (s (s z))) (d (s (s (s z)))) (d foo) (d (s foo))
         (nat z) (<= (nat (s ?x)) (nat ?x))
         (init on) (<= (next on) (true on))
         (<= (legal r (m ?a ?b)) (true on) (d ?a) (d ?b) (nat ?a) (nat ?b))
         (<= terminal (true off)) (goal r 0)",
    );
    const _: () = assert!(super::join::MISSING_BATCH < 36, "more calls than a batch");
    let (net, _) = compiled(&p);
    let mut got = legal_names(&net, &net.initial_state());
    got.sort();
    let nats = ["z", "(s z)", "(s (s z))", "(s (s (s z)))"];
    let mut want: Vec<String> = nats
        .iter()
        .flat_map(|a| nats.iter().map(move |b| format!("(m {a} {b})")))
        .collect();
    want.sort();
    assert_eq!(got, want);
}
