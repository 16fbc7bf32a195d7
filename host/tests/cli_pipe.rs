//! Standard output end to end: writing into a closed pipe (`propnet … | head`) ends the CLI
//! quietly instead of panicking; a text netlist on disk runs like the JSON one.

mod support;

use std::process::{Command, Stdio};

#[test]
fn closed_stdout_is_not_a_panic() {
    let game = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../bench-games/connectfour.kif"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_propnet"))
        .args(["compile", game, "--emit", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end before the child writes its (far larger than a pipe buffer)
    // netlist, as `head` does after its first lines.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "stderr: {err}");
    assert!(!err.contains("Broken pipe"), "stderr: {err}");
    assert!(
        out.status.success(),
        "status {:?}, stderr: {err}",
        out.status
    );
}

/// `compile --emit text` output is a netlist every command reads back: `run` on it gives
/// the same playouts as on the JSON form (same seed, same mean goals and length), and the
/// JSON on standard output ends its last line.
#[test]
fn text_netlist_runs_like_json() {
    let game = support::tictactoe();
    let game = game.to_str().unwrap();
    let mut results = Vec::new();
    for emit in ["json", "text"] {
        let net = support::dir().join(format!("ttt.{emit}.pnet"));
        let net = net.to_str().unwrap();
        support::run(&["compile", game, "--emit", emit, "-o", net]).expect_code(0, "compile");
        let args = [
            "run",
            net,
            "--playouts",
            "500",
            "--threads",
            "1",
            "--seed",
            "9",
        ];
        let o = support::run(&args);
        o.expect_code(0, emit);
        let keep: Vec<String> = o
            .out
            .lines()
            .filter(|l| l.starts_with("mean goal") || l.starts_with("mean length"))
            .map(str::to_string)
            .collect();
        assert_eq!(keep.len(), 2, "{}", o.out);
        results.push(keep);
    }
    assert_eq!(results[0], results[1]);
    let o = support::run(&["compile", game]);
    o.expect_code(0, "compile to stdout");
    assert!(o.out.ends_with('\n'), "unended last line");
}

/// `compile --stats` with `-o` prints the report to standard output: the phase times, the
/// sizes, the optimization rounds with each pass's time (every pass of the pipeline named
/// once), the relations that make the most gates and hold the most atoms, and where the
/// grounder's memory went.
#[test]
fn compile_stats_name_every_pass_and_relation_sizes() {
    let game = support::tictactoe();
    let net = support::dir().join("ttt.stats.json");
    let (game, net) = (game.to_str().unwrap(), net.to_str().unwrap());
    let o = support::run(&["compile", game, "-o", net, "--stats"]);
    o.expect_code(0, "compile --stats");
    assert!(o.out.contains(": parse "), "{}", o.out);
    let line = (o.out.lines())
        .find(|l| l.starts_with("optimize: "))
        .unwrap_or_else(|| panic!("no optimize line: {}", o.out));
    assert!(line.contains(" rounds; by pass: "), "{line}");
    for (name, _) in propnet_netlist::passes::PASSES {
        assert_eq!(
            line.matches(&format!(" {name} ")).count(),
            1,
            "{name}: {line}"
        );
    }
    assert!(o.out.contains("relations by gates"), "{}", o.out);
    let by_atoms = o.out.split("relations by atoms").nth(1);
    let by_atoms = by_atoms.unwrap_or_else(|| panic!("no relations by atoms: {}", o.out));
    // Tic-tac-toe's `next`: 9 squares x 3 marks of `(cell ?m ?n ?x)`, 2 `control`s.
    assert!(
        by_atoms.lines().any(|l| l.trim() == "29  next/1"),
        "{by_atoms}"
    );
    let tables = (o.out.lines())
        .find(|l| l.starts_with("grounding tables at the end: atoms "))
        .unwrap_or_else(|| panic!("no table line: {}", o.out));
    assert!(tables.contains(" read by no output, removed)"), "{tables}");
}

/// `bench --results` refuses, before measuring, a file that is not a results file (a
/// netlist, an array, garbage) and leaves it as it was; a new path gets the results.
#[test]
fn bench_keeps_files_that_are_not_its_results() {
    let dir = support::dir();
    let game = support::tictactoe();
    let game = game.to_str().unwrap();
    let netlist = dir.join("bench.netlist.json");
    support::run(&["compile", game, "-o", netlist.to_str().unwrap()]).expect_code(0, "compile");
    let array = dir.join("bench.array.json");
    std::fs::write(&array, "[1, 2]").unwrap();
    let garbage = dir.join("bench.garbage.json");
    std::fs::write(&garbage, "garbage").unwrap();
    let bench = |results: &std::path::Path| {
        let args = [
            "bench",
            game,
            "--no-interp",
            "--seconds",
            "0.05",
            "--threads",
            "1",
        ];
        let mut args: Vec<&str> = args.to_vec();
        args.extend(["--results", results.to_str().unwrap()]);
        support::run(&args)
    };
    for file in [&netlist, &array, &garbage] {
        let before = std::fs::read(file).unwrap();
        let o = bench(file);
        o.expect_code(1, "not a results file");
        assert!(o.err.contains("not a bench results file"), "{}", o.err);
        assert!(!o.out.contains("playouts/s"), "measured first: {}", o.out);
        assert_eq!(
            std::fs::read(file).unwrap(),
            before,
            "{} changed",
            file.display()
        );
    }
    let fresh = dir.join("bench.fresh").join("results.json");
    let _ = std::fs::remove_dir_all(fresh.parent().unwrap());
    bench(&fresh).expect_code(0, "fresh results");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&fresh).unwrap()).unwrap();
    assert!(
        saved["tictactoe/t1"]["playouts_per_second"].is_number(),
        "{saved}"
    );
}

/// Wrong paths and numbers are named as what they are: `hdl -o` an existing file, a
/// directory among `compare`'s games, a non-number for a whole-number flag (with its range).
#[test]
fn wrong_paths_and_numbers_say_what_is_wrong() {
    let game = support::tictactoe();
    let game = game.to_str().unwrap();
    let file = support::dir().join("hdl.out.file");
    std::fs::write(&file, "x").unwrap();
    let o = support::run(&["hdl", game, "-o", file.to_str().unwrap()]);
    o.expect_code(1, "hdl -o file");
    assert!(o.err.contains("exists and is not a directory"), "{}", o.err);
    let dir = support::dir();
    let o = support::run(&["compare", game, dir.to_str().unwrap()]);
    o.expect_code(1, "compare dir");
    assert!(
        o.err.contains("is a directory, not a game file"),
        "{}",
        o.err
    );
    let o = support::run(&[
        "hdl",
        game,
        "-o",
        "x",
        "--synth",
        "ice40",
        "--pnr-mhz",
        "NaN",
    ]);
    o.expect_code(2, "NaN");
    assert!(o.err.contains("expected 1..=1000"), "{}", o.err);
    let args = [
        "hdl",
        game,
        "-o",
        "x",
        "--synth",
        "xc7",
        "--ecp5-speed",
        "8",
    ];
    let o = support::run(&args);
    o.expect_code(1, "ecp5 speed for xc7");
    assert!(
        o.err.contains("--ecp5-speed applies to ECP5 only"),
        "{}",
        o.err
    );
}

/// A game without state (its one fluent never changes, `terminal` always holds) has no
/// hardware engine: `hdl` says so and names the backends that play it, and `run` plays it.
#[test]
fn hdl_says_a_stateless_game_has_no_engine() {
    let game = support::dir().join("stateless.kif");
    std::fs::write(
        &game,
        "(role a) (init (s 0)) (legal a noop) (<= (next (s 0)) (true (s 0))) terminal (goal a 37)",
    )
    .unwrap();
    let game = game.to_str().unwrap();
    let out = support::dir().join("stateless.hdl");
    let o = support::run(&["hdl", game, "-o", out.to_str().unwrap()]);
    o.expect_code(1, "hdl");
    assert!(o.err.contains("has 0, 1, 1"), "{}", o.err);
    assert!(
        o.err
            .contains("the cpu, gpu and reference backends play it"),
        "{}",
        o.err
    );
    let o = support::run(&["run", game, "--playouts", "10", "--threads", "1"]);
    o.expect_code(0, "run");
    assert!(o.out.contains("a 37.00"), "{}", o.out);
}

/// `hdl --check` says how much it is about to simulate before it starts (a long check is
/// not silent), then that the playouts equal the reference.
#[test]
fn hdl_check_says_what_it_simulates() {
    if !propnet_hdl::tools::available_for_tests("iverilog") {
        return;
    }
    let game = support::tictactoe();
    let out = support::dir().join("check.hdl");
    let args = ["hdl", game.to_str().unwrap(), "-o", out.to_str().unwrap()];
    let o = support::run(&[&args[..], &["--check", "3", "--seed", "5"]].concat());
    o.expect_code(0, "hdl --check");
    let line = (o.err.lines())
        .find(|l| l.starts_with("simulating 3 playouts in iverilog ("))
        .unwrap_or_else(|| panic!("no estimate line: {}", o.err));
    assert!(
        line.contains("joint moves in the reference, over 1 engine of ")
            && line.ends_with(
                "--simulator auto takes verilator above 1024 KiB in all when installed)"
            ),
        "{line}"
    );
    assert!(
        o.out
            .contains("simulation (iverilog): 3 playouts equal to the reference"),
        "{}",
        o.out
    );
    // more engines than playouts checked: a copy with one engine per playout is simulated
    let o = support::run(&[&args[..], &["--check", "3", "--engines", "300"]].concat());
    o.expect_code(0, "hdl --check --engines 300");
    assert!(
        o.err.contains("over 3 engines of ")
            && o.err.contains(
                ": a copy of the design with 3 of its 300 engines, the same engine module"
            ),
        "{}",
        o.err
    );
    assert!(
        o.out.contains("(") && o.out.contains("300 engines)"),
        "{}",
        o.out
    );
}
