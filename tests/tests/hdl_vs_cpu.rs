//! The generated Verilog playout engine, simulated in Icarus Verilog, against the CPU
//! reference (`reference_playout`) on real games: every per-playout record (index, length,
//! end kind, goals, final state) and every host counter must be equal for the same seed.
//!
//! Acceptance list: tic-tac-toe, connect four, breakthrough, Niu Jiao Qi (our bench games), a
//! simultaneous-move game and a game with a positive loop (both from the shared corpus).
//! Skips (with a message) when iverilog or the shared corpus is missing, unless
//! `PROPNET_REQUIRE_TOOLS=1` / `PROPNET_REQUIRE_SHARED=1`.

use propnet_hdl::sim::{simulate, SimRun};
use propnet_hdl::{generate, tools, Options};
use propnet_netlist::playout::{reference_playout, PlayoutEnd};
use propnet_netlist::Netlist;
use propnet_tests::fixtures::positive_loop_game;
use propnet_tests::{compile_file, shared_file, workspace_root};

fn have_iverilog() -> bool {
    propnet_tests::tool_available("iverilog")
}

/// A bench game compiled by the full pipeline (ground, optimize, validate).
fn bench_game(name: &str) -> Netlist {
    compile_file(&workspace_root().join(format!("bench-games/{name}.kif")))
}

/// Simulates `playouts` playouts on `engines` engines and requires equality with the CPU.
#[allow(clippy::too_many_arguments)] // one test helper, each argument a test knob
fn check(
    net: &Netlist,
    tag: &str,
    engines: u32,
    rng_stages: u32,
    banks: u32,
    cslow: u32,
    playouts: u32,
    max_steps: u32,
) -> Vec<PlayoutEnd> {
    let design = generate(
        net,
        &propnet_netlist::validate(net).expect("valid netlist"),
        &Options {
            prefix: tag.into(),
            engines,
            rng_stages,
            banks,
            cslow,
            records: 0,
        },
    )
    .expect("generate");
    let dir = std::env::temp_dir().join(format!("propnet-hdl-vs-cpu-{}-{tag}", std::process::id()));
    let seed = 0x5eed_0000_0000_0001 ^ u64::from(playouts);
    let run = SimRun {
        seed,
        playouts,
        max_steps,
        start: None,
        max_cycles: 10_000_000,
        simulator: propnet_hdl::sim::Simulator::Icarus,
    };
    let out = simulate(&design, &dir, &run).unwrap_or_else(|e| panic!("{tag}: {e}"));
    let start = net.initial_state();
    let want: Vec<_> = (0..playouts)
        .map(|p| reference_playout(net, &start, seed, p, max_steps))
        .collect();
    for (got, want) in out.records.iter().zip(&want) {
        assert_eq!(got, want, "{tag}: playout {} differs", want.index);
    }
    assert_eq!(out.records.len(), want.len(), "{tag}: record count");
    assert_eq!(out.counters["playouts"], u64::from(playouts), "{tag}");
    assert_eq!(
        out.counters["steps"],
        want.iter().map(|r| u64::from(r.length)).sum::<u64>(),
        "{tag}"
    );
    for r in 0..net.roles.len() {
        let sum: u64 = want.iter().map(|w| u64::from(w.goals[r])).sum();
        assert_eq!(
            out.counters[&format!("goal_sum_{r}")],
            sum,
            "{tag}: goal sum of role {r}"
        );
    }
    let busiest = (0..engines)
        .map(|e| {
            let lengths: Vec<u32> = want
                .iter()
                .filter(|r| r.index % engines == e)
                .map(|r| r.length)
                .collect();
            propnet_hdl::engine::engine_cycles(&lengths, rng_stages, banks, cslow)
        })
        .max()
        .unwrap_or(0);
    assert_eq!(out.counters["cycles"], busiest, "{tag}: cycle count");
    let _ = std::fs::remove_dir_all(&dir);
    want.iter().map(|w| w.end).collect()
}

fn assert_some_terminal(ends: &[PlayoutEnd], tag: &str) {
    assert!(
        ends.contains(&PlayoutEnd::Terminal),
        "{tag}: no playout reached a terminal state: {ends:?}"
    );
}

#[test]
fn tictactoe() {
    if have_iverilog() {
        let net = bench_game("tictactoe");
        assert_some_terminal(&check(&net, "tictactoe", 2, 20, 2, 1, 12, 100), "tictactoe");
        // Three banks, two threads: playouts shorter than `S + 1` still wait for the bank
        // freed two playouts earlier (the cycle count checks `engine_cycles`' waits).
        assert_some_terminal(
            &check(&net, "tictactoe3", 1, 20, 3, 2, 16, 100),
            "tictactoe3",
        );
        if tools::available("verilator") {
            let design = generate(
                &net,
                &propnet_netlist::validate(&net).expect("valid netlist"),
                &Options {
                    prefix: "ttt".into(),
                    engines: 2,
                    rng_stages: 2,
                    banks: 3,
                    cslow: 1,
                    records: 0,
                },
            )
            .unwrap();
            let dir = std::env::temp_dir().join(format!("propnet-hdl-lint-{}", std::process::id()));
            let warnings = tools::lint(&design, &dir).unwrap_or_else(|e| panic!("{e}"));
            assert!(warnings.is_empty(), "verilator -Wall warnings:\n{warnings}");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

#[test]
fn connect_four() {
    if have_iverilog() {
        let net = bench_game("connectfour");
        assert_some_terminal(
            &check(&net, "connectfour", 2, 20, 3, 2, 8, 100),
            "connectfour",
        );
    }
}

/// 155 legal entries per role: the group-wise chooser (`propnet_hdl::chooser`).
#[test]
fn breakthrough() {
    if have_iverilog() {
        let net = bench_game("breakthrough");
        assert!(
            net.roles
                .iter()
                .all(|r| r.legal.len() > propnet_hdl::chooser::GROUPED_ABOVE_MOVES),
            "breakthrough should take the group-wise chooser"
        );
        assert_some_terminal(
            &check(&net, "breakthrough", 2, 10, 2, 2, 4, 200),
            "breakthrough",
        );
    }
}

#[test]
fn niu_jiao_qi() {
    if have_iverilog() {
        let net = bench_game("niujiaoqi");
        assert_some_terminal(&check(&net, "niujiaoqi", 3, 0, 1, 1, 8, 100), "niujiaoqi");
    }
}

/// Both roles choose among several moves in the same step.
#[test]
fn simultaneous_moves() {
    let game = "games/ggp-repository/connectFourSimultaneous.kif";
    if let (true, Some(path)) = (have_iverilog(), shared_file(game)) {
        let net = compile_file(&path);
        let start = net.initial_state();
        let values =
            propnet_netlist::playout::eval_gates(&net, &start, &vec![false; net.inputs.len()]);
        let choices = net
            .roles
            .iter()
            .filter(|r| r.legal.iter().filter(|l| values[l.gate.index()]).count() > 1)
            .count();
        assert!(choices >= 2, "expected a simultaneous-move game");
        assert_some_terminal(
            &check(&net, "c4simultaneous", 2, 1, 1, 2, 6, 100),
            "c4simultaneous",
        );
    }
}

#[test]
fn positive_loop() {
    if !have_iverilog() {
        return;
    }
    let net = positive_loop_game();
    let start = net.initial_state();
    let wins = (0..40)
        .filter(|&p| {
            reference_playout(&net, &start, 3, p, 20)
                .goals
                .contains(&100)
        })
        .count();
    assert!(wins > 0, "some playouts should be won through the loop");
    assert_some_terminal(&check(&net, "loopgame", 2, 2, 4, 1, 16, 20), "loopgame");
}
