//! `propnet check` end to end: summary and exit status on a valid game, a located error
//! and a non-zero exit on an invalid one.

use std::process::Command;

fn check(text: &str, name: &str) -> (bool, String, String) {
    check_with(text, name, &[])
}

fn check_with(text: &str, name: &str, extra: &[&str]) -> (bool, String, String) {
    let dir = std::env::temp_dir().join(format!("propnet-cli-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_propnet"))
        .arg("check")
        .arg(&path)
        .arg("--relations")
        .args(extra)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn valid_game_prints_summary_and_warnings() {
    let game = "(role white) (ROLE black)\n(init (cell 1))\n(<= (legal ?r noop) (role ?r))\n\
                (<= (next (cell 2)) (does white noop) (true (cell 1)))\n\
                (<= terminal (true (cell 2)))\n(goal white 100) (goal black 0)\n(<= q (undefined))";
    let (ok, out, err) = check(game, "ok.kif");
    assert!(ok, "stderr: {err}");
    assert!(out.contains("roles (2): white black"), "{out}");
    assert!(
        out.contains("static: goal/2 init/1 legal/2 q/0 role/1 undefined/0"),
        "{out}"
    );
    assert!(
        out.contains("dynamic: does/2 next/1 terminal/0 true/1"),
        "{out}"
    );
    assert!(out.contains("warnings: 2"), "{out}");
    assert!(
        out.contains("grounding: ok in") && out.contains("2 latches, 2 inputs"),
        "{out}"
    );
    assert!(
        out.contains("ok.kif:7:1: warning: relation `undefined/0` has no rules"),
        "{out}"
    );
    assert!(
        out.contains("ok.kif:7:1: warning: relation `q/0` is defined but no rule reads it"),
        "{out}"
    );
}

/// A misspelled `legal` leaves a role without moves: `check` names the unread relation,
/// suggests the keyword, and says the initial state has no legal move for the role; a
/// terminal initial state is named too. `--deny-warnings` fails on either.
#[test]
fn misspelled_keywords_and_dead_initial_states_are_warned() {
    let game = "(role a)\n(init s)\n(legl a go)\n(<= (next t) (true s))\n\
                (<= terminal (true t))\n(goal a 50)\n";
    let (ok, out, err) = check_with(game, "legl.kif", &["--deny-warnings"]);
    assert!(!ok, "--deny-warnings: {out}");
    assert!(err.contains("3 warnings and --deny-warnings"), "{err}");
    assert!(
        out.contains("legl.kif:3:1: warning: relation `legl/2` is defined but no rule reads it: it has no effect on the game; a misspelled `legal` (arity 2)?"),
        "{out}"
    );
    assert!(
        out.contains("legl.kif: warning: in the initial state, which is not terminal, role a has no legal move"),
        "{out}"
    );
    let game = "(role a)\n(init s)\n(legal a go)\n(<= terminal)\n(goal a 50)\n";
    let (ok, out, _) = check(game, "over.kif");
    assert!(ok, "{out}");
    assert!(
        out.contains("over.kif: warning: the initial state is terminal"),
        "{out}"
    );
}

#[test]
fn invalid_game_fails_with_located_error() {
    let (ok, out, err) = check("(role a)\n\n  (<= (p ?x) (not (q ?x)))\n", "bad.kif");
    assert!(!ok, "stdout: {out}");
    assert!(
        err.contains("bad.kif:3:3: unsafe variable ?x (in the head, not bound by a positive literal) in rule `(<= (p ?x) (not (q ?x)))`"),
        "{err}"
    );
}

/// A goal value out of 0..=100 that only grounding finds (it comes from a static
/// relation): `check` gives `compile`'s error, located at the fact the value comes from,
/// and `--no-ground` skips it.
#[test]
fn check_grounds_like_compile() {
    let game = "(role x)\n(val 200)\n(init p)\n(legal x a)\n(<= (next p) (does x a))\n\
                (<= terminal (true p))\n(<= (goal x ?v) (val ?v))\n";
    let (ok, out, err) = check(game, "goalvar.kif");
    assert!(!ok, "stdout: {out}");
    assert!(
        err.contains("goalvar.kif:2:1: goal value must be an integer 0..=100: (goal x 200)"),
        "{err}"
    );
    let (ok, out, err) = check_with(game, "goalvar2.kif", &["--no-ground"]);
    assert!(ok, "stderr: {err}");
    assert!(
        out.contains("grounding: not checked (--no-ground)"),
        "{out}"
    );
}

/// A counter in successor form that only `terminal` bounds: `check` grounds it over the
/// states play reaches and says so; with `--ground-explore-states 0` it stops at the term
/// depth, located, as before.
#[test]
fn check_says_when_it_grounds_over_the_states_play_reaches() {
    let game = "(role r)\n(init (count z))\n(legal r go)\n\
                (<= (next (count (s ?x))) (true (count ?x)))\n\
                (<= terminal (true (count (s (s (s z))))))\n(goal r 100)\n";
    let (ok, out, err) = check(game, "counter.kif");
    assert!(ok, "stderr: {err}");
    assert!(
        out.contains("grounding: relaxed reachability builds ever deeper terms (more than term depth 40 while grounding next/1), so the netlist was grounded over the 4 states play reaches"),
        "{out}"
    );
    let (ok, _, err) = check_with(game, "counter2.kif", &["--ground-explore-states", "0"]);
    assert!(!ok);
    assert!(
        err.contains("counter2.kif:4:1: grounding budget exceeded: more than term depth 40"),
        "{err}"
    );
}

/// `--factors` lists the independent subgames of a game of two coins (each set once; the
/// goal is that some coin is set), the step counter (4 fluents) they share and the inert `wait`.
#[test]
fn factors_lists_independent_subgames() {
    let game = "(role p) (init (step 0))\n\
                (<= (legal p (set ?c)) (coin ?c) (not (true (on ?c))))\n(legal p wait)\n\
                (<= (next (on ?c)) (does p (set ?c)))\n(<= (next (on ?c)) (true (on ?c)))\n\
                (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))\n\
                (coin a) (coin b) (succ 0 1) (succ 1 2) (succ 2 3)\n\
                (<= terminal (true (step 3)))\n(<= (goal p 100) (true (on ?c)))\n\
                (<= (goal p 0) (not (true (on a))) (not (true (on b))))";
    let (ok, out, err) = check_with(game, "coins.kif", &["--factors"]);
    assert!(ok, "stderr: {err}");
    assert!(
        out.contains(
            "factors: 2 independent subgames; 4 shared fluents, 0 crossing moves, 1 inert move"
        ),
        "{out}"
    );
    assert!(
        out.contains("factor 1: 1 fluent, 1 move: (on a); p (set a)"),
        "{out}"
    );
    assert!(
        out.contains("factor 2: 1 fluent, 1 move: (on b); p (set b)"),
        "{out}"
    );
    assert!(out.contains("by the `factored` MCTS player"), "{out}");
    assert!(out.contains("by `propnet player`"), "{out}");
    assert!(out.contains("inert (touch no factor: change no fluent a move changes, legal whatever those hold): p wait"), "{out}");
    assert!(
        out.contains("a search keeps one per role): p wait"),
        "{out}"
    );
    let (ok, _, err) = check_with(game, "coins.kif", &["--factors", "--no-ground"]);
    assert!(!ok && err.contains("cannot be used with"), "{err}");
}
