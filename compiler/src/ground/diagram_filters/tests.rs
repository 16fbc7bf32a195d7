//! The diagram of a static filter against the filter itself: the same goal on every
//! state, with the rewrite forced on small games (thresholds lowered) and compared with
//! the netlist grounded without it and with the rule's meaning computed here.

use super::*;
use crate::ground::tests::program;
use crate::ground::{compile_with_report, CompileOptions};
use propnet_netlist::playout::eval_gates;
use propnet_netlist::Netlist;

/// Every filter pays.
const ALWAYS: Thresholds = Thresholds {
    min_product: 0.0,
    min_gain: 0.0,
};

/// A 2×4 grid of digits 1-4 or blanks; the goal is 100 when every row holds each digit
/// once, tested by `filter` (a static relation over four cells, defined by `defs`).
fn grid_game(filter: &str, defs: &str) -> String {
    let mut s = String::from("(role p) (digit 1) (digit 2) (digit 3) (digit 4) (row 1) (row 2)");
    for r in 1..=2 {
        for c in 1..=4 {
            s += &format!(" (init (cell {r} {c} b))");
        }
    }
    s += "
        (<= (legal p (put ?r ?c ?d)) (true (cell ?r ?c b)) (digit ?d))
        (<= (next (cell ?r ?c ?d)) (does p (put ?r ?c ?d)))
        (<= (next (cell ?r ?c ?x)) (true (cell ?r ?c ?x)) (does p (put ?r2 ?c2 ?d)) (distinct ?c ?c2))
        (<= (next (cell ?r ?c ?x)) (true (cell ?r ?c ?x)) (does p (put ?r2 ?c2 ?d)) (distinct ?r ?r2))
        (<= open (true (cell ?r ?c b)))
        (<= terminal (not open))
        (<= good (goodrow 1) (goodrow 2))
        (<= (goal p 100) good)
        (<= (goal p 0) (not good))";
    s += &format!(
        " (<= (goodrow ?r) (true (cell ?r 1 ?a)) (true (cell ?r 2 ?b)) (true (cell ?r 3 ?c)) \
         (true (cell ?r 4 ?d)) {filter}) {defs}"
    );
    s
}

/// `exactlyOne`-style: digit z in exactly one of four cells, via a first-position helper.
fn once_defs(same: &str) -> String {
    let mut s = String::from(same);
    for (x, rest) in [
        ("?a", "?b ?c ?d"),
        ("?b", "?a ?c ?d"),
        ("?c", "?a ?b ?d"),
        ("?d", "?a ?b ?c"),
    ] {
        s += &format!(" (<= (once ?z ?a ?b ?c ?d) (first ?z {x} {rest}))");
    }
    s += " (<= (first ?z ?w ?x ?y ?v) (same ?z ?w) (digit ?x) (digit ?y) (digit ?v) \
          (not (same ?z ?x)) (not (same ?z ?y)) (not (same ?z ?v)))";
    s
}

const ONCE_FILTER: &str =
    "(once 1 ?a ?b ?c ?d) (once 2 ?a ?b ?c ?d) (once 3 ?a ?b ?c ?d) (once 4 ?a ?b ?c ?d)";

/// The netlist of `src` with the rewrite forced, and the number of rules rewritten; the
/// netlist without it.
fn both(src: &str) -> ((Netlist, usize), Netlist) {
    let p = program(src);
    let (rewritten, done) = run(&p, ALWAYS).expect("a filter is rewritten");
    let opts = CompileOptions::default();
    let with = compile_with_report(&rewritten, &opts).expect("compiles with the diagram");
    let without = compile_with_report(&p, &opts).expect("compiles as written");
    assert!(
        without.1.filter_diagrams.is_empty(),
        "the default thresholds leave it alone"
    );
    ((with.0, done.len()), without.0)
}

/// The goal-100 output on the state with `cells[r][c]` (0 for blank).
fn goal_100(net: &Netlist, cells: &[[u8; 4]; 2]) -> bool {
    let state: Vec<bool> = net
        .latches
        .iter()
        .map(|l| {
            (0..2).any(|r| {
                (0..4).any(|c| {
                    let v = match cells[r][c] {
                        0 => "b".to_string(),
                        d => d.to_string(),
                    };
                    l.name == format!("(cell {} {} {v})", r + 1, c + 1)
                })
            })
        })
        .collect();
    let values = eval_gates(net, &state, &vec![false; net.inputs.len()]);
    let goal = net.roles[0]
        .goals
        .iter()
        .find(|g| g.value == 100)
        .expect("goal 100");
    values[goal.gate.index()]
}

fn is_permutation(row: &[u8; 4]) -> bool {
    (1..=4).all(|d| row.iter().filter(|&&x| x == d).count() == 1)
}

/// Every grid of two rows drawn from a sample of rows (all 24 permutations, blanks, repeats).
fn check_grids(with: &Netlist, without: &Netlist) {
    let mut rows: Vec<[u8; 4]> = Vec::new();
    for n in 0..5u32.pow(4) {
        let row = [0, 1, 2, 3].map(|k| (n / 5u32.pow(k) % 5) as u8);
        if is_permutation(&row) || n % 7 == 0 {
            rows.push(row);
        }
    }
    let mut good = 0;
    for a in &rows {
        for b in &rows {
            let cells = [*a, *b];
            let want = is_permutation(a) && is_permutation(b);
            good += usize::from(want);
            assert_eq!(goal_100(with, &cells), want, "{cells:?} with the diagram");
            assert_eq!(goal_100(without, &cells), want, "{cells:?} as written");
        }
    }
    assert_eq!(good, 24 * 24);
}

#[test]
fn exactly_one_per_digit_as_fact_equality() {
    let facts = "(same 1 1) (same 2 2) (same 3 3) (same 4 4)";
    let ((with, rewritten), without) = both(&grid_game(ONCE_FILTER, &once_defs(facts)));
    assert_eq!(rewritten, 1);
    check_grids(&with, &without);
}

#[test]
fn exactly_one_per_digit_as_rule_equality() {
    // `same` defined by a rule: unifying its head binds the caller's variables together.
    let ((with, rewritten), without) = both(&grid_game(
        ONCE_FILTER,
        &once_defs("(<= (same ?x ?x) (digit ?x))"),
    ));
    assert_eq!(rewritten, 1);
    check_grids(&with, &without);
}

#[test]
fn all_different_by_distinct() {
    let defs = "(<= (alldiff ?a ?b ?c ?d) (digit ?a) (digit ?b) (digit ?c) (digit ?d) \
                (distinct ?a ?b) (distinct ?a ?c) (distinct ?a ?d) (distinct ?b ?c) \
                (distinct ?b ?d) (distinct ?c ?d))";
    let ((with, rewritten), without) = both(&grid_game("(alldiff ?a ?b ?c ?d)", defs));
    assert_eq!(rewritten, 1);
    check_grids(&with, &without);
}

#[test]
fn the_diagram_of_a_permutation_shares_states() {
    // Four digits in four cells: a state per set of digits used, 2⁴ - 1 + 1 of them
    // below the root, one edge per (set, unused digit): 4·2³ = 32 edges for 4! paths.
    let facts = "(same 1 1) (same 2 2) (same 3 3) (same 4 4)";
    let p = program(&grid_game(ONCE_FILTER, &once_defs(facts)));
    let (_, done) = run(&p, ALWAYS).expect("rewritten");
    assert_eq!(done[0].levels, 4);
    assert_eq!(done[0].edges, 32);
    assert_eq!(done[0].paths, 24.0);
}

#[test]
fn a_filter_with_a_local_variable_is_left_alone() {
    // `twice` needs a variable its head does not bind: not unfolded, the rule kept.
    let defs = "(<= (twice ?a ?b ?c ?d) (digit ?a) (digit ?b) (digit ?c) (digit ?d) (next1 ?a ?e) (next1 ?e ?b)) \
                (next1 1 2) (next1 2 3) (next1 3 4)";
    let p = program(&grid_game("(twice ?a ?b ?c ?d)", defs));
    assert!(run(&p, ALWAYS).is_none());
}

#[test]
fn names_the_game_already_uses_are_not_reused() {
    // KIF can spell `#`: the rule's own variables and a relation of the game take the names
    // a diagram would use first.
    let facts = "(same 1 1) (same 2 2) (same 3 3) (same 4 4)";
    let src = grid_game(ONCE_FILTER, &once_defs(facts))
        .replace("?a", "?diagram#from")
        .replace("?b", "?diagram#to")
        + " (<= (diagram#1.3 ?x #0) (row ?x) (true (cell 1 1 1))) (<= (diagram#1.2.edges #0 ?x #0) (digit ?x))";
    let ((with, rewritten), without) = both(&src);
    assert_eq!(rewritten, 1);
    check_grids(&with, &without);
}
