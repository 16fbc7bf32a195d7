//! The bit-parallel CPU backend equals the reference backend, record for record, on real
//! games compiled by the full pipeline (parse → check → ground → optimize → validate),
//! including a simultaneous-move game, from the initial state and from mid-game states.

use propnet_netlist::Netlist;
use propnet_runtime::backend::{Backend, BatchRequest, Job, ReferenceBackend};
use propnet_runtime::machine::NetMachine;
use propnet_sim::{CpuBackend, CpuOptions};
use propnet_tests::{compile_file, shared_file, workspace_root};

/// A bench game compiled by the full pipeline.
fn bench_game(name: &str) -> Netlist {
    compile_file(&workspace_root().join(format!("bench-games/{name}.kif")))
}

/// A few states reached by playing the first legal joint move `k` times from the start.
fn mid_game_states(net: &Netlist) -> Vec<Vec<bool>> {
    let m = NetMachine::new(net);
    let mut s = m.initial_state();
    let mut out = Vec::new();
    for k in 0..6 {
        if m.is_terminal(&s) {
            break;
        }
        let legal = m.legal_moves(&s);
        if legal.iter().any(Vec::is_empty) {
            break;
        }
        let joint: Vec<_> = legal.iter().map(|l| l[(k * 7) % l.len()]).collect();
        s = m.next_state(&s, &joint);
        if k % 2 == 1 {
            out.push(s.clone());
        }
    }
    out
}

fn check_game(net: &Netlist, count: u32, max_steps: u32) {
    let mut jobs = vec![Job {
        start: net.initial_state(),
        first_playout: 0,
        count,
    }];
    for (i, s) in mid_game_states(net).into_iter().enumerate() {
        jobs.push(Job {
            start: s,
            first_playout: 1000 * (i as u32 + 1),
            count: count / 2 + 1,
        });
    }
    let req = BatchRequest {
        jobs,
        seed: 0x00c0_ffee,
        max_steps,
        want_records: true,
    };
    let want = ReferenceBackend::new(net.clone()).run_batch(&req).unwrap();
    for (threads, lanes) in [(1, 64), (2, 256)] {
        let got = CpuBackend::new(
            propnet_netlist::ValidNetlist::new(net.clone()).expect("valid netlist"),
            CpuOptions {
                threads,
                lane_width: lanes,
                ..Default::default()
            },
        )
        .unwrap()
        .run_batch(&req)
        .unwrap();
        assert_eq!(got.records.len(), want.records.len());
        for (g, w) in got.records.iter().zip(&want.records) {
            assert_eq!(
                g, w,
                "playout {} ({threads} threads, {lanes} lanes)",
                w.index
            );
        }
        assert_eq!(got.jobs, want.jobs);
    }
    // The playouts actually went somewhere: some moves were made, and goals vary.
    assert!(want.jobs[0].total_length > 0);
}

#[test]
fn tictactoe() {
    let net = bench_game("tictactoe");
    check_game(&net, 300, 200);
}

#[test]
fn connect_four() {
    let net = bench_game("connectfour");
    check_game(&net, 150, 200);
}

#[test]
fn breakthrough_with_step_limit() {
    let net = bench_game("breakthrough");
    // A step limit below typical game length exercises StepLimit ends on a real game.
    check_game(&net, 70, 40);
}

#[test]
fn simultaneous_move_tictactoe() {
    let Some(path) = shared_file("games/ggp-repository/ticTacToeParallel.kif") else {
        return;
    };
    check_game(&compile_file(&path), 200, 200);
}

/// Hex 9×9 is the game whose transition phase the cost model guards: skipped runs of the
/// groups no lane has reached, blocks refilled in lockstep (80 playouts fill a 64-lane
/// block more than once).
#[test]
fn hex_guarded_transition() {
    let Some(path) = shared_file("games/ggp-repository/hex.kif") else {
        return;
    };
    let net = compile_file(&path);
    let cpu = CpuBackend::new(
        propnet_netlist::ValidNetlist::new(net.clone()).expect("valid netlist"),
        CpuOptions::default(),
    )
    .unwrap();
    assert!(
        !cpu.program().guards.is_empty(),
        "hex's transition is no longer guarded"
    );
    check_game(&net, 80, 200);
}

#[test]
fn niu_jiao_qi() {
    let net = bench_game("niujiaoqi");
    check_game(&net, 300, 200);
}

#[test]
fn amazons() {
    let net = bench_game("amazons");
    check_game(&net, 24, 300);
}
