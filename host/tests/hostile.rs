//! Issue #15: hostile input and misuse of the CLI. One regression test per item (exit
//! status and message text); `hostile_table.rs` holds the scripted misuse table.

mod support;

use std::process::Stdio;
use std::time::Duration;
use support::{file, run, run_with, tictactoe, tictactoe_json};

fn ttt() -> String {
    tictactoe().to_str().unwrap().to_string()
}

/// A one-role game: `go` ends it, `stay` does not; two goal rules can hold at once.
const GO: &str = "(role a)\n(init s)\n(legal a go)\n(legal a stay)\n\
                  (<= (next done) (does a go))\n(<= (next s) (does a stay))\n\
                  (<= terminal (true done))\n(goal a 0)\n(<= (goal a 100) (true done))\n";

#[test]
fn item01_non_finite_exploration_is_rejected_by_the_parser() {
    for cmd in ["best", "match"] {
        let mut args = vec![cmd, "GAME", "--exploration", "nan"];
        let game = ttt();
        args[1] = &game;
        if cmd == "match" {
            args.extend(["--players", "random,random"]);
        }
        let o = run(&args);
        o.expect_code(2, cmd);
        assert!(
            o.err.contains("--exploration") && o.err.contains("finite number"),
            "{}",
            o.err
        );
    }
}

#[test]
fn item02_netlist_without_roles_is_rejected_like_a_compiled_one() {
    let mut net = tictactoe_json();
    net["roles"] = serde_json::json!([]);
    let p = file("noroles.json", &net.to_string());
    let p = p.to_str().unwrap();
    for cmd in ["solve", "run", "perft", "best"] {
        let o = run(&[cmd, p]);
        o.expect_code(1, cmd);
        assert!(
            o.err.contains("the netlist has no roles"),
            "{cmd}: {}",
            o.err
        );
    }
}

#[test]
fn item03_full_stdout_is_one_error_line_and_status_1() {
    let game = ttt();
    for args in [
        vec!["check", &game],
        vec!["compile", &game],
        vec!["perft", &game, "--depth", "2"],
        vec!["best", &game, "--iterations", "20"],
        vec!["run", &game, "--playouts", "100"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = run_with(&args, Some(Stdio::from(full)), Duration::from_secs(60));
        o.expect_code(1, args[0]);
        assert_eq!(
            o.err.lines().filter(|l| l.starts_with("error:")).count(),
            1,
            "{}",
            o.err
        );
        assert!(
            o.err
                .contains("error: cannot write to standard output: No space left"),
            "{}",
            o.err
        );
        assert!(!o.err.contains("panicked"), "{}", o.err);
    }
}

#[test]
fn item04_thread_counts_are_capped_at_a_multiple_of_the_cores() {
    let o = run(&["run", &ttt(), "--threads", "100000"]);
    o.expect_code(2, "threads");
    assert!(
        o.err.contains("100000 threads is too many") && o.err.contains("per core"),
        "{}",
        o.err
    );
}

#[test]
fn negative_numbers_after_a_space_get_the_range_message() {
    for (flag, value, expected) in [
        ("--seconds", "-1", "seconds must be more than 0"),
        ("--threads", "-3", "is not a thread count"),
        (
            "--max-steps",
            "-5",
            "-5 is out of range (expected 1..=1000000)",
        ),
    ] {
        let o = run(&["run", &ttt(), flag, value]);
        o.expect_code(2, flag);
        assert!(
            o.err.contains(expected) && !o.err.contains("unexpected argument"),
            "{flag} {value}: {}",
            o.err
        );
    }
    // A CPU-only flag given with another backend is an error, not silently ignored.
    let o = run(&["run", &ttt(), "--backend", "reference", "--lanes", "512"]);
    o.expect_code(1, "--lanes with the reference backend");
    assert!(o.err.contains("use it with --backend cpu"), "{}", o.err);
}

#[test]
fn compile_output_is_checked_before_compiling_and_written_whole() {
    let o = run(&["compile", &ttt(), "-o", "/no/such/dir/game.pnet"]);
    o.expect_code(1, "compile -o into a missing folder");
    assert!(
        o.err.contains("cannot write /no/such/dir/game.pnet") && !o.err.contains("compiled in"),
        "{}",
        o.err
    );
    // A game that fails to compile leaves an existing output as it was, and no partial file.
    let old = file("keep.pnet", "old contents");
    let bad = file("bad.kif", "(role");
    let o = run(&[
        "compile",
        bad.to_str().unwrap(),
        "-o",
        old.to_str().unwrap(),
    ]);
    o.expect_code(1, "compile of a broken game");
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "old contents");
    let partial = std::fs::read_dir(old.parent().unwrap())
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("keep.pnet") && n.ends_with(".partial"));
    assert_eq!(partial, None, "no temporary file is left");
}

#[test]
fn item05_huge_times_are_rejected_and_interrupted_runs_report() {
    let o = run(&["run", &ttt(), "--seconds", "1e12"]);
    o.expect_code(2, "run --seconds 1e12");
    assert!(o.err.contains("out of range"), "{}", o.err);
    let o = run(&[
        "match",
        &ttt(),
        "--players",
        "mcts:cpu:1e12s,random",
        "--games",
        "1",
    ]);
    o.expect_code(1, "match 1e12s");
    assert!(o.err.contains("bad budget `1e12s`"), "{}", o.err);
    // SIGTERM one second into a 60 s run: it reports the playouts done so far.
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_propnet"))
        .args(["run", &ttt(), "--seconds", "60", "--threads", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let kill = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let t0 = std::time::Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(20), "stopped late");
    let (so, se) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(130), "{so}{se}");
    assert!(se.contains("interrupted: reporting the"), "{se}");
    assert!(
        so.contains("playouts/s") && so.contains("mean goal"),
        "{so}"
    );
}

#[test]
fn item06_perft_stops_at_a_depth_without_nodes_and_at_its_memory_bound() {
    let o = run(&["perft", &ttt(), "--depth", "1000"]);
    o.expect_code(0, "perft");
    // Tic-tac-toe ends by depth 9: rows 1..=10 (10 has no nodes), then it stops.
    let rows = o.out.lines().skip(1).count();
    assert_eq!(rows, 10, "{}", o.out);
    assert!(o.err.contains("depth 10 has no nodes"), "{}", o.err);
    let o = run(&["perft", &ttt(), "--depth", "9", "--max-states", "100"]);
    o.expect_code(0, "perft --max-states");
    assert_eq!(o.out.lines().skip(1).count(), 2, "{}", o.out);
    assert!(
        o.err
            .contains("more than 100 distinct states (raise --max-states)"),
        "{}",
        o.err
    );
}

#[test]
fn item07_moves_past_a_terminal_state_are_rejected_naming_the_move() {
    let g = file("go.kif", GO);
    let o = run(&[
        "best",
        g.to_str().unwrap(),
        "--moves",
        "go,stay",
        "--iterations",
        "10",
    ]);
    o.expect_code(1, "best --moves");
    assert!(
        o.err
            .contains("move 2 `stay`: the game is already over (terminal state after move 1)"),
        "{}",
        o.err
    );
}

#[test]
fn item08_no_samples_say_so_instead_of_a_mean() {
    let o = run(&["run", &ttt(), "--seconds", "0"]);
    o.expect_code(2, "--seconds 0");
    assert!(o.err.contains("seconds must be more than 0"), "{}", o.err);
    let o = run(&[
        "match",
        &ttt(),
        "--players",
        "random,random",
        "--games",
        "0",
    ]);
    o.expect_code(2, "--games 0");
    assert!(
        o.err.contains("0 is out of range (expected 1..=1000000)"),
        "{}",
        o.err
    );
    // A 1 ns run still plays its first block, as the help promises (#42 round two, 12).
    let o = run(&["run", &ttt(), "--seconds", "1e-9"]);
    o.expect_code(0, "--seconds 1e-9");
    assert!(!o.out.contains("no playouts in"), "{}", o.out);
    assert!(o.out.contains("mean goal"), "{}", o.out);
}

#[test]
fn item09_short_reference_runs_give_no_absurd_cpu_rate() {
    let o = run(&["run", &ttt(), "--backend", "reference", "--playouts", "50"]);
    o.expect_code(0, "reference");
    let line = o
        .out
        .lines()
        .find(|l| l.starts_with("cpu time"))
        .expect("cpu time line");
    if let Some(rate) = line.split(", ").nth(1) {
        let v: f64 = rate.split_whitespace().next().unwrap().parse().unwrap();
        assert!(v < 1e8, "{line}");
    } else {
        assert!(line.contains("too short to measure"), "{line}");
    }
}

#[test]
fn item10_ill_formed_goals_are_counted_and_undeclared_roles_warned() {
    let g = file("goals.kif", GO);
    let o = run(&[
        "run",
        g.to_str().unwrap(),
        "--playouts",
        "64",
        "--max-steps",
        "50",
    ]);
    o.expect_code(0, "run");
    assert!(o.err.contains("warning: ill-formed goals in"), "{}", o.err);
    assert!(
        o.err
            .contains("with several values for a role (the highest counts)"),
        "{}",
        o.err
    );
    // Every backend replays the same sample (its size is estimated, not timed), so the
    // counts are the same whichever backend played.
    let warning = |o: &support::Outcome| {
        let line = o.err.lines().find(|l| l.contains("ill-formed goals in"));
        line.map(str::to_string)
    };
    let on = |backend: &str| {
        let args = [
            "--playouts",
            "64",
            "--max-steps",
            "50",
            "--backend",
            backend,
        ];
        let o = run(&[&["run", g.to_str().unwrap()][..], &args].concat());
        o.expect_code(0, backend);
        warning(&o)
    };
    assert_eq!(on("reference"), warning(&o));
    assert_eq!(on("cpu"), warning(&o));
    // The same policy and the same warning from every command that scores the game
    // (`solve` then refuses it: `stay` repeats the state forever).
    for (cmd, code) in [
        (vec!["match", "--players", "random", "--games", "2"], 0),
        (vec!["best", "--iterations", "20"], 0),
        (vec!["solve"], 1),
    ] {
        let mut a = vec![cmd[0], g.to_str().unwrap()];
        a.extend(&cmd[1..]);
        let o = run(&a);
        o.expect_code(code, cmd[0]);
        assert!(
            o.err.contains("warning: ill-formed goals in"),
            "{}: {}",
            cmd[0],
            o.err
        );
    }
    let g = file("undeclared.kif", &format!("{GO}(goal b 50)\n"));
    let o = run(&["check", g.to_str().unwrap()]);
    o.expect_code(0, "check");
    assert!(
        o.out
            .contains("undeclared.kif:10:1: warning: `goal` rule for `b`, which is not a role"),
        "{}",
        o.out
    );
}

#[test]
fn item11_connectives_are_not_object_constants() {
    let g = file("not.kif", &format!("{GO}(foo not bar)\n"));
    let o = run(&["check", g.to_str().unwrap()]);
    o.expect_code(1, "check");
    assert!(
        o.err
            .contains("not.kif:10:6: `not` cannot stand here (term) in `(foo not bar)`"),
        "{}",
        o.err
    );
}

#[test]
fn item13_each_message_is_printed_once() {
    let mut net = tictactoe_json();
    net["terminal"] = serde_json::json!(99_999_999);
    let p = file("badterm.json", &net.to_string());
    let o = run(&["run", p.to_str().unwrap()]);
    o.expect_code(1, "bad json");
    assert_eq!(
        o.err.matches("refers to gate g99999999").count(),
        1,
        "{}",
        o.err
    );
    let existing = file("exists.v", "");
    let o = run(&["hdl", &ttt(), "-o", existing.to_str().unwrap()]);
    o.expect_code(1, "hdl -o existing");
    assert_eq!(
        o.err.matches("exists and is not a directory").count(),
        1,
        "{}",
        o.err
    );
    let g = file("warn.kif", &format!("{GO}(<= q (undefined))\n"));
    let o = run(&["run", g.to_str().unwrap(), "--playouts", "10"]);
    o.expect_code(0, "run");
    assert_eq!(o.err.matches("`undefined/0`").count(), 1, "{}", o.err);
}

#[test]
fn item14_init_reading_true_gets_one_verdict_from_every_command() {
    let g = file("init.kif", &format!("{GO}(<= (init x) (true s))\n"));
    let g = g.to_str().unwrap();
    let want = "init.kif:10:1: `init` depends on `true` (through init/1 -> true/1)";
    for cmd in ["check", "compile", "trace", "run"] {
        let o = run(&[cmd, g]);
        o.expect_code(1, cmd);
        assert!(o.err.contains(want), "{cmd}: {}", o.err);
    }
}

/// A goal value out of 0..=100 derived through a variable: the grounder and the
/// interpreter (`trace`'s default engine) reject it alike, at the fact it comes from.
#[test]
fn item14b_a_derived_goal_out_of_range_gets_one_verdict_from_every_command() {
    let g = file(
        "goal200.kif",
        &format!("{GO}(score 200)\n(<= (goal a ?v) (true done) (score ?v))\n"),
    );
    let g = g.to_str().unwrap();
    let want = "goal200.kif:10:1: goal value must be an integer 0..=100: (goal a 200)";
    for cmd in ["check", "compile", "trace", "run"] {
        let mut args = vec![cmd, g];
        if cmd == "trace" {
            args.extend(["--playouts", "4", "--seed", "1"]);
        }
        let o = run(&args);
        o.expect_code(1, cmd);
        assert!(o.err.contains(want), "{cmd}: {}", o.err);
    }
}

/// Unbounded recursion through function terms in a static relation: the interpreter's
/// term-depth error names the rule where it stands, in `trace` and in `compare`'s row.
#[test]
fn item14c_the_interpreters_term_depth_error_is_located_at_the_rule() {
    let g = file(
        "nat.kif",
        &format!("{GO}(nat 0)\n(<= (nat (s ?x)) (nat ?x))\n(<= (legal a (count ?x)) (nat ?x))\n"),
    );
    let g = g.to_str().unwrap();
    let want = "nat.kif:11:1: evaluating nat/1 builds terms deeper than";
    let o = run(&["trace", g, "--engine", "interp", "--playouts", "1"]);
    o.expect_code(1, "trace");
    assert!(o.err.contains(want), "trace: {}", o.err);
    assert!(
        o.err.contains("in rule: (<= (nat (s ?x)) (nat ?x))"),
        "{}",
        o.err
    );
    let out = support::dir().join("compare-nat");
    let mut args = vec!["compare", g, "--out", out.to_str().unwrap()];
    args.extend("--reasoners interp --seconds 0.1 --rounds 1".split(' '));
    let o = run(&args);
    o.expect_code(1, "compare");
    assert!(o.err.contains(want), "compare: {}", o.err);
}

#[test]
fn item15_moves_are_read_with_the_rules_reader_and_case_policy() {
    for mv in ["(MARK 1 1)", "(mark  1  1)", "( mark 1 1 )"] {
        let o = run(&["best", &ttt(), "--moves", mv, "--iterations", "20"]);
        o.expect_code(0, mv);
        assert!(o.out.contains("o: best move"), "{mv}: {}", o.out);
    }
    let o = run(&["best", &ttt(), "--moves", "(mark 1", "--iterations", "20"]);
    o.expect_code(1, "unbalanced");
    assert!(o.err.contains("--moves (move 1):1:"), "{}", o.err);
}

/// `--moves` takes the moves of the roles with a choice, or whole joint moves with the
/// forced moves written out; a state where no role has a choice names the forced moves.
#[test]
fn item15b_forced_moves_may_be_written_and_are_printed() {
    let o = run(&[
        "best",
        &ttt(),
        "--moves",
        "(mark 2 2);noop,noop;(mark 1 1)",
        "--iterations",
        "20",
    ]);
    o.expect_code(0, "whole joint moves");
    assert!(o.out.contains("x: best move"), "{}", o.out);
    assert!(o.out.contains("o: only legal move noop"), "{}", o.out);
    let o = run(&[
        "best",
        &ttt(),
        "--moves",
        "(mark 2 2);noop;x",
        "--iterations",
        "20",
    ]);
    o.expect_code(1, "extra");
    assert!(
        o.err
            .contains("`x` is extra: the roles with a choice here are x"),
        "{}",
        o.err
    );
    let g = file(
        "forced.kif",
        "(role a)\n(role b)\n(init s)\n(legal a go)\n(legal b wait)\n\
         (<= (next t) (true s))\n(<= (next u) (true t))\n(<= terminal (true u))\n\
         (goal a 50)\n(goal b 50)\n",
    );
    let o = run(&[
        "best",
        g.to_str().unwrap(),
        "--moves",
        "go",
        "--iterations",
        "5",
    ]);
    o.expect_code(0, "forced");
    assert!(o.out.contains("a: only legal move go"), "{}", o.out);
    assert!(o.out.contains("b: only legal move wait"), "{}", o.out);
}

#[test]
fn item16_one_seed_type_everywhere() {
    let max = u64::MAX.to_string();
    let o = run(&["trace", &ttt(), "--seed", &max]);
    o.expect_code(0, "trace");
    assert!(o.out.contains(&format!("\"seed\":{max}")), "{}", o.out);
    let o = run(&["run", &ttt(), "--seed", &max, "--playouts", "10"]);
    o.expect_code(0, "run");
    for cmd in ["trace", "run"] {
        let o = run(&[cmd, &ttt(), "--seed", "-1"]);
        o.expect_code(2, cmd);
    }
}

#[test]
fn item17_the_257th_role_is_rejected_where_it_stands() {
    let roles: String = (0..1000).map(|i| format!("(role r{i})\n")).collect();
    let g = file("roles.kif", &roles);
    for cmd in ["check", "compile", "run"] {
        let o = run(&[cmd, g.to_str().unwrap()]);
        o.expect_code(1, cmd);
        assert!(
            o.err
                .contains("roles.kif:257:1: role number 257 is one too many: at most 256 roles"),
            "{cmd}: {}",
            o.err
        );
    }
}

/// A general-sum game where the opponent is indifferent: `solve`'s value does not depend
/// on how the opponent's moves are named (ties go against the other roles), and it says
/// the game is not constant-sum.
#[test]
fn solve_breaks_ties_the_same_whatever_the_move_names() {
    let game = |hurt: &str, help: &str| {
        format!(
            "(role x) (role o)\n(init (phase 0))\n(<= (legal x safe) (true (phase 0)))\n\
             (<= (legal x risky) (true (phase 0)))\n(<= (legal o noop) (true (phase 0)))\n\
             (<= (legal o {hurt}) (true (phase 1)))\n(<= (legal o {help}) (true (phase 1)))\n\
             (<= (legal x noop) (true (phase 1)))\n(<= (next (phase 1)) (does x risky))\n\
             (<= (next (done 60)) (does x safe))\n(<= (next (done 0)) (does o {hurt}))\n\
             (<= (next (done 100)) (does o {help}))\n(<= terminal (true (done ?d)))\n\
             (<= (goal x ?v) (true (done ?v)))\n\
             (<= (goal x 0) (not (true (done 60))) (not (true (done 0))) (not (true (done 100))))\n\
             (goal o 50)\n"
        )
    };
    for (name, hurt, help) in [("nzs1.kif", "hurt", "help"), ("nzs2.kif", "zhurt", "ahelp")] {
        let g = file(name, &game(hurt, help));
        let o = run(&["solve", g.to_str().unwrap()]);
        o.expect_code(0, name);
        assert!(o.out.contains("value x: 60\n"), "{name}: {}", o.out);
        assert!(o.out.contains("best move: safe"), "{name}: {}", o.out);
        assert!(
            o.out.contains("do not sum to a constant"),
            "{name}: {}",
            o.out
        );
    }
}

/// `compare` on a game that does not load: its rows are written, marked failed, and the
/// command exits 1 naming them (like `bench`), instead of 0.
#[test]
fn compare_exits_1_when_its_own_reasoners_cannot_measure_a_game() {
    let g = file("norole.kif", "(init s)\n");
    let out = support::dir().join("compare-norole");
    let (g, out_dir) = (g.to_str().unwrap(), out.to_str().unwrap());
    let mut args = vec!["compare", g, "--out", out_dir];
    args.extend("--reasoners interp,cpu:1 --seconds 0.1 --rounds 1".split(' '));
    let o = run(&args);
    o.expect_code(1, "compare");
    assert!(o.err.contains("interp on norole: failed"), "{}", o.err);
    assert!(out.join("compare.json").is_file(), "results written");
}

/// A non-terminal state where a role has no legal move ends the game (the playout rule);
/// `best`, `solve` and `match` say so instead of printing an empty search or bare scores.
#[test]
fn a_role_without_legal_moves_is_named_by_best_solve_and_match() {
    let g = file(
        "stuck.kif",
        "(role a)\n(role b)\n(init s)\n(legal a go)\n(<= (next s) (true s))\n\
         (<= terminal (true t))\n(goal a 0)\n(goal b 50)\n",
    );
    let g = g.to_str().unwrap();
    let says = |args: &[&str], on_stderr: bool, want: &str| {
        let o = run(args);
        o.expect_code(0, args[0]);
        let text = if on_stderr { &o.err } else { &o.out };
        assert!(text.contains(want), "{}: {text}", args[0]);
    };
    let best = "b has no legal move in this non-terminal state";
    says(&["best", g, "--iterations", "10"], false, best);
    let solve = "warning: b has no legal move in the initial state";
    says(&["solve", g], true, solve);
    let matched = "2 of 2 games ended in a non-terminal state";
    says(
        &["match", g, "--players", "random,random", "--games", "2"],
        true,
        matched,
    );
}
