//! Issue #42 round two, items 6 and 12: reads and phases bounded under a memory limit
//! (`/dev/zero` as a game or a trace, a deep And chain as netlist JSON, a long chain of
//! `not` rules), and the smaller items: constant fluents in `solve`'s states, a text
//! netlist after a byte-order mark, a fixed fluent reusing a latch name, `run --seconds`
//! with a tiny time.

mod support;

use std::process::{Command, Stdio};
use std::time::Duration;
use support::{file, run, tictactoe, tictactoe_json, Outcome};

/// Address-space limit of the bounded runs, in KiB (`ulimit -v 2000000`, as the issue).
const LIMIT_KIB: u32 = 2_000_000;

/// Runs `propnet ARGS` under `ulimit -v` [`LIMIT_KIB`], stdin from `stdin` (a path) or
/// nothing, within 60 s.
fn run_bounded(args: &[&str], stdin: Option<&str>) -> Outcome {
    let script = format!("ulimit -v {LIMIT_KIB} && exec \"$0\" \"$@\"");
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_propnet"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match stdin {
        Some(path) => cmd.stdin(std::fs::File::open(path).expect("open stdin")),
        None => cmd.stdin(Stdio::null()),
    };
    let child = cmd.spawn().expect("spawn sh");
    support::wait_bounded(child, args, Duration::from_secs(60))
}

fn ttt() -> String {
    tictactoe().to_str().unwrap().to_string()
}

#[test]
fn item06_an_endless_game_file_fails_at_the_read_bound() {
    let o = run_bounded(&["check", "/dev/zero"], None);
    o.expect_code(1, "check /dev/zero");
    assert!(
        o.err
            .contains("/dev/zero: cannot read file: more than 256 MiB")
            && o.err.contains("is it the right file?"),
        "{}",
        o.err
    );
}

#[test]
fn item06_an_endless_state_file_fails_at_the_read_bound() {
    let o = run_bounded(&["best", &ttt(), "--state", "/dev/zero"], None);
    o.expect_code(1, "best --state /dev/zero");
    assert!(
        o.err
            .contains("/dev/zero: cannot read file: more than 256 MiB"),
        "{}",
        o.err
    );
}

#[test]
fn item06_an_endless_trace_on_stdin_fails_at_the_read_bound() {
    let o = run_bounded(&["verify", &ttt(), "-"], Some("/dev/zero"));
    o.expect_code(1, "verify - < /dev/zero");
    assert!(
        o.err.contains("reading the trace from stdin") && o.err.contains("more than 256 MiB"),
        "{}",
        o.err
    );
}

/// Netlist JSON of a chain of `n` two-operand `And`s over two latches, each link the only
/// user of the one before; latch `(b)` follows the move `x`.
fn and_chain_json(n: usize) -> String {
    let mut gates = vec![
        r#"{"Const":true}"#.to_string(),
        r#"{"Latch":0}"#.into(),
        r#"{"Latch":1}"#.into(),
        r#"{"Input":0}"#.into(),
    ];
    let mut link = 1;
    for k in 0..n {
        gates.push(format!(r#"{{"And":[{link},{}]}}"#, 1 + k % 2));
        link = gates.len() - 1;
    }
    format!(
        r#"{{"gates":[{}],"latches":[{{"name":"(a)","init":true,"next":{link}}},
        {{"name":"(b)","init":false,"next":3}}],"inputs":[{{"role":0,"name":"x"}},
        {{"role":0,"name":"y"}}],"roles":[{{"name":"r","legal":[{{"input":0,"gate":0}},
        {{"input":1,"gate":0}}],"goals":[{{"value":100,"gate":{link}}}]}}],"terminal":{link}}}"#,
        gates.join(",")
    )
}

#[test]
fn item06_a_deep_and_chain_optimizes_in_linear_memory() {
    // 40 k links took 3.1 GB before the fix; 40 k links now take well under the limit.
    let path = file("chain.json", &and_chain_json(40_000));
    let path = path.to_str().unwrap();
    let o = run_bounded(&["run", path, "--playouts", "64", "--threads", "1"], None);
    o.expect_code(0, "run chain.json");
    assert!(o.out.contains("mean goal"), "{}", o.out);
    let o = run_bounded(&["compile", path, "--emit", "text"], None);
    o.expect_code(0, "compile chain.json");
    let ands = o.out.lines().filter(|l| l.contains(" = and ")).count();
    assert_eq!(ands, 1, "one flat And remains:\n{}", o.out);
}

#[test]
fn item06_a_long_chain_of_not_rules_compiles_under_the_limit() {
    let n = 30_000;
    let mut kif = String::from("(role r)\n(init (a))\n(<= (next (a)) (does r x))\n");
    kif.push_str("(legal r x)\n(legal r y)\n(<= p0 (true (a)))\n");
    for k in 1..=n {
        kif.push_str(&format!("(<= p{k} (not p{}))\n", k - 1));
    }
    kif.push_str(&format!("(<= terminal p{n})\n(goal r 100)\n"));
    let path = file("nots.kif", &kif);
    let o = run_bounded(&["compile", path.to_str().unwrap(), "--emit", "text"], None);
    o.expect_code(0, "compile nots.kif");
    // p{n} is (a) itself for even n: no gate is left but the latch and the input.
    assert!(!o.out.contains(" = not "), "{}", o.out);
}

#[test]
fn item12_solve_states_name_their_constant_fluents() {
    // Two movers at once: the solver refuses the state, which holds the constant (c).
    let game = "(role a)\n(role b)\n(init (c))\n(<= (next (c)) (true (c)))\n\
                (init (s))\n(<= (next (t)) (true (s)))\n\
                (legal a p)\n(legal a q)\n(legal b p)\n(legal b q)\n\
                (<= terminal (true (t)))\n(goal a 50)\n(goal b 50)\n";
    let path = file("constant.kif", game);
    let o = run(&["solve", path.to_str().unwrap()]);
    o.expect_code(1, "solve");
    assert!(
        o.err.contains("simultaneous moves") && o.err.contains("state {(c) (s)}"),
        "{}",
        o.err
    );
}

#[test]
fn item12_a_text_netlist_after_a_byte_order_mark_is_a_netlist() {
    let o = run(&["compile", &ttt(), "--emit", "text"]);
    o.expect_code(0, "compile --emit text");
    for (name, text) in [
        ("bom.pnet", o.out.clone()),
        ("bom-json.pnet", tictactoe_json().to_string()),
    ] {
        let path = file(name, &format!("\u{feff}{text}"));
        let o = run(&["run", path.to_str().unwrap(), "--playouts", "10"]);
        o.expect_code(0, name);
        assert!(o.out.contains("mean goal"), "{name}: {}", o.out);
    }
}

#[test]
fn item12_a_fixed_fluent_reusing_a_latch_name_is_refused() {
    let mut net = tictactoe_json();
    let latch = net["latches"][0]["name"].as_str().unwrap().to_string();
    net["fixed_fluents"] = serde_json::json!([[latch, true]]);
    let path = file("dup.json", &net.to_string());
    for cmd in ["best", "run"] {
        let o = run(&[cmd, path.to_str().unwrap()]);
        o.expect_code(1, cmd);
        assert!(
            o.err.contains(&format!(
                "invalid netlist: fluent {latch} is named twice, as latch l0 and as fixed fluent 0"
            )),
            "{cmd}: {}",
            o.err
        );
    }
}

/// A FIFO at `name` in the test folder that gives `text` to its first reader only (a
/// thread writes it, then the FIFO is at its end for good).
fn fifo_once(name: &str, text: &'static str) -> std::path::PathBuf {
    let p = support::dir().join(name);
    let _ = std::fs::remove_file(&p);
    let made = Command::new("mkfifo").arg(&p).status().expect("mkfifo");
    assert!(made.success());
    let w = p.clone();
    std::thread::spawn(move || {
        // Blocks until the reader opens it; written once.
        let _ = std::fs::write(&w, text);
    });
    p
}

#[test]
fn item06_compile_stats_read_the_rules_once() {
    // `--stats` located the relations by reading the file a second time: from a FIFO that
    // waited forever for a second writer.
    let kif = include_str!("../../bench-games/tictactoe.kif");
    let p = fifo_once("rules.fifo", kif);
    let out = support::dir().join("fifo-net.json");
    let o = run_bounded(
        &[
            "compile",
            p.to_str().unwrap(),
            "--stats",
            "-o",
            out.to_str().unwrap(),
        ],
        None,
    );
    o.expect_code(0, "compile FIFO --stats");
    assert!(
        o.out.contains("relations by gates") && o.out.contains(&format!("({}:", p.display())),
        "the relations located in the rules as read: {}",
        o.out
    );
}

#[test]
fn item06_a_huge_bench_results_file_is_refused_before_reading() {
    let p = support::dir().join("huge-results.json");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(300 << 20).unwrap(); // sparse: no disk used
    let o = run_bounded(
        &[
            "bench",
            &ttt(),
            "--seconds",
            "0.1",
            "--results",
            p.to_str().unwrap(),
        ],
        None,
    );
    o.expect_code(1, "bench with a 300 MiB results file");
    assert!(
        o.err.contains("reading the results file") && o.err.contains("more than 256 MiB"),
        "{}",
        o.err
    );
    assert_eq!(
        std::fs::metadata(&p).unwrap().len(),
        300 << 20,
        "left as it was"
    );
}
