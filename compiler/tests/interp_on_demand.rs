//! The reference interpreter evaluates derived relations, static ones included, per call
//! pattern and orders rule bodies by the variables each literal leaves unbound. Each test
//! is a miniature of a corpus game that the earlier strategy (static relations
//! materialized in full, literals ordered by bound arguments only) could not evaluate
//! within its budget; each runs here under a fact budget that the earlier strategy
//! exceeds.

use propnet_compiler::gdl;
use propnet_compiler::interp::{GoalValue, Interp, Limits, State};

fn load(src: &str, max_facts: usize) -> Interp {
    let game = gdl::parse_source("test.kif", src.as_bytes()).expect("valid GDL");
    let limits = Limits {
        max_facts,
        ..Limits::default()
    };
    Interp::with_limits(&game.program, limits).expect("interpreter accepts it")
}

fn legal(i: &mut Interp, s: &State) -> Vec<String> {
    let pos = i.evaluate(s).expect("evaluates");
    i.legal_in(&pos, 0).into_iter().map(|(t, _)| t).collect()
}

/// Plays the legal move with text `m` (role 0 of a one-role game).
fn play(i: &mut Interp, s: &State, m: &str) -> State {
    let mut pos = i.evaluate(s).expect("evaluates");
    let (_, t) = i
        .legal_in(&pos, 0)
        .into_iter()
        .find(|(t, _)| t == m)
        .unwrap_or_else(|| panic!("{m} is legal"));
    i.next_from(&mut pos, &[t]).expect("transition")
}

fn succ_chain(n: usize) -> String {
    (0..n).map(|k| format!("(succ {k} {})\n", k + 1)).collect()
}

#[test]
fn static_order_over_a_long_successor_chain_is_computed_per_call() {
    // `between` over 0..100 has 161,700 facts and `lt` 5,050: materialized, they exceed
    // the budget of 20,000; the calls made bind the ends and need a few hundred
    let src = format!(
        "(role p) (init (at 2))
         {}
         (<= (lt ?x ?y) (succ ?x ?y))
         (<= (lt ?x ?y) (succ ?x ?z) (lt ?z ?y))
         (<= (between ?x ?y ?z) (lt ?x ?y) (lt ?y ?z))
         (<= (legal p (go ?y)) (true (at ?x)) (between ?x ?y 6))
         (<= (next (at ?y)) (does p (go ?y)))
         (<= terminal (true (at 5)))
         (goal p 100)",
        succ_chain(100)
    );
    let mut i = load(&src, 20_000);
    let s = i.initial_state().expect("init");
    assert_eq!(legal(&mut i, &s), ["(go 3)", "(go 4)", "(go 5)"]);
    let s = play(&mut i, &s, "(go 4)");
    assert_eq!(i.state_text(&s), ["(at 4)"]);
    assert_eq!(legal(&mut i, &s), ["(go 5)"]);
    let s = play(&mut i, &s, "(go 5)");
    assert!(i.is_terminal(&s).expect("terminal"));
    assert_eq!(i.goals(&s).expect("goals"), vec![vec![GoalValue::Int(100)]]);
}

#[test]
fn list_type_is_checked_for_bound_lists_only() {
    // `is_list` and `add` have infinitely many facts (materializing them exceeds any
    // budget); every call made of them binds the list
    let src = "(role p) (el a) (el b) (el c) (init (path nil))
         (is_list nil)
         (<= (is_list (cons ?x ?t)) (el ?x) (is_list ?t))
         (<= (add ?e nil (cons ?e nil)) (el ?e))
         (<= (add ?e (cons ?h ?t) (cons ?h ?t2)) (el ?h) (distinct ?e ?h) (add ?e ?t ?t2))
         (<= (legal p (add ?e)) (true (path ?l)) (add ?e ?l ?l2) (is_list ?l2))
         (<= (next (path (cons ?e ?l))) (does p (add ?e)) (true (path ?l)))
         (<= terminal (true (path (cons ?x (cons ?y (cons ?z nil))))))
         (goal p 100)";
    let mut i = load(src, 1_000);
    let s = i.initial_state().expect("init");
    assert_eq!(legal(&mut i, &s), ["(add a)", "(add b)", "(add c)"]);
    let s = play(&mut i, &s, "(add b)");
    assert_eq!(i.state_text(&s), ["(path (cons b nil))"]);
    assert_eq!(legal(&mut i, &s), ["(add a)", "(add c)"]);
    let s = play(&mut i, &s, "(add c)");
    assert_eq!(i.state_text(&s), ["(path (cons c (cons b nil)))"]);
    assert_eq!(legal(&mut i, &s), ["(add a)"]);
    assert!(!i.is_terminal(&s).expect("terminal"));
    let s = play(&mut i, &s, "(add a)");
    assert!(i.is_terminal(&s).expect("terminal"));
}

#[test]
fn recursive_call_waits_for_the_literal_that_binds_its_position() {
    // counts white and black cells along a chain of 20 cells; asked for the white count
    // with the black count bound, the recursive `count_from` has three bound arguments as
    // soon as `count_one` ran, but its cell is only bound by `next_cell`: calling it first
    // opens goals with the cell free that enumerate every count, well over the budget
    let cells = 20;
    let chain: String = (1..cells)
        .map(|k| format!("(next_cell c{k} c{})\n", k + 1))
        .collect();
    let numbers: String = (0..=100).map(|k| format!("(number {k})\n")).collect();
    let src = format!(
        "(role p) {} {chain} {numbers}
         (init (cell c3 white)) (init (cell c7 white)) (init (cell c11 white))
         (init (cell c5 black))
         (<= (cell_of ?c ?x) (true (cell ?c ?x)))
         (<= (cell_of ?c empty) (next_cell ?c ?d) (not (true (cell ?c white)))
             (not (true (cell ?c black))))
         (<= (cell_of c{cells} empty) (not (true (cell c{cells} white)))
             (not (true (cell c{cells} black))))
         (<= (count_one ?c ?w0 ?b ?w ?b) (cell_of ?c white) (succ ?w0 ?w) (number ?b))
         (<= (count_one ?c ?w ?b0 ?w ?b) (cell_of ?c black) (succ ?b0 ?b) (number ?w))
         (<= (count_one ?c ?w ?b ?w ?b) (cell_of ?c empty) (number ?w) (number ?b))
         (<= (count_from c{cells} ?w0 ?b0 ?w ?b) (count_one c{cells} ?w0 ?b0 ?w ?b))
         (<= (count_from ?c ?w0 ?b0 ?w ?b) (count_one ?c ?w0 ?b0 ?w1 ?b1)
             (next_cell ?c ?c2) (count_from ?c2 ?w1 ?b1 ?w ?b))
         (<= (legal p (whites ?w)) (count_from c1 0 0 ?w 1))
         (<= (legal p (blacks ?b)) (count_from c1 0 0 3 ?b))
         (<= terminal (true (cell c1 white)))
         (goal p 0)",
        succ_chain(100)
    );
    let mut i = load(&src, 300);
    let s = i.initial_state().expect("init");
    assert_eq!(legal(&mut i, &s), ["(blacks 1)", "(whites 3)"]);
}

#[test]
fn a_static_relation_too_big_to_materialize_waits_until_its_cells_are_bound() {
    // A sudoku row of six cells: `(once 1 ?a … ?f)` with its digit given but its cells
    // free has 6·5⁵ answers a digit; with three cells known, still 3·5³ + … The join
    // binds every cell from the state first, then asks it fully bound (one answer).
    let cells = ["?a", "?b", "?c", "?d", "?e", "?f"];
    let mut src = String::from("(role p) (d 1) (d 2) (d 3) (d 4) (d 5) (d 6) (same 1 1) (same 2 2) (same 3 3) (same 4 4) (same 5 5) (same 6 6)\n");
    for (k, v) in [3, 1, 6, 2, 5].iter().enumerate() {
        src += &format!("(init (cell {} {v}))\n", k + 1);
    }
    src += "(<= (legal p (put 6 ?v)) (not (filled 6)) (d ?v))
            (<= (filled ?c) (true (cell ?c ?v)))
            (<= (next (cell ?c ?v)) (true (cell ?c ?v)))
            (<= (next (cell ?c ?v)) (does p (put ?c ?v)))
            (<= terminal (filled 6))
            (<= (goal p 100) good) (<= (goal p 0) (not good))
            (<= good (true (cell 1 ?a)) (true (cell 2 ?b)) (true (cell 3 ?c)) (true (cell 4 ?d))
                (true (cell 5 ?e)) (true (cell 6 ?f))";
    for z in 1..=6 {
        src += &format!(" (once {z} {})", cells.join(" "));
    }
    src += ")\n";
    for k in 0..6 {
        let others: Vec<&str> = (0..6).filter(|&j| j != k).map(|j| cells[j]).collect();
        src += &format!(
            "(<= (once ?z {}) (first ?z {} {}))\n",
            cells.join(" "),
            cells[k],
            others.join(" ")
        );
    }
    src += "(<= (first ?z ?x1 ?x2 ?x3 ?x4 ?x5 ?x6) (same ?z ?x1) (d ?x2) (d ?x3) (d ?x4) (d ?x5) (d ?x6)
                (not (same ?z ?x2)) (not (same ?z ?x3)) (not (same ?z ?x4)) (not (same ?z ?x5))
                (not (same ?z ?x6)))";
    let mut i = load(&src, 2_000);
    let s = i.initial_state().expect("init");
    assert_eq!(legal(&mut i, &s).len(), 6);
    for (v, want) in [(4, 100), (2, 0)] {
        let next = play(&mut i, &s, &format!("(put 6 {v})"));
        let goals = i.goals(&next).expect("goals");
        assert_eq!(goals, vec![vec![GoalValue::Int(want)]], "cell 6 = {v}");
    }
}
