//! The project's Junqi-class GDL-II game (`bench-games/junqi_mini.kif`, #41 item 7) through
//! the whole pipeline: clean loading, the oracle's golden trace (percepts included)
//! replayed by the interpreter and by the compiled netlist (scalar and CPU program),
//! bit-identical playouts on the CPU backend and the reference, and the information-set
//! player against random.

use propnet_compare::verify::verify;
use propnet_compiler::gdl;
use propnet_compiler::interp::trace::InterpEngine;
use propnet_compiler::interp::Interp;
use propnet_mcts::hidden::{
    play_hidden_game, BeliefParams, BeliefPlayer, HiddenPlayer, RandomHidden,
};
use propnet_mcts::Budget;
use propnet_netlist::ValidNetlist;
use propnet_runtime::backend::{run_reference, Backend, BatchRequest, Job};
use propnet_runtime::net_trace::{NetTrace, TraceBackend};
use propnet_runtime::pipeline::{compile_game, PipelineOptions};
use propnet_sim::{CpuBackend, CpuOptions};
use propnet_tests::workspace_root;
use std::time::Duration;

fn load() -> (gdl::Game, ValidNetlist, Vec<String>) {
    let path = workspace_root().join("bench-games/junqi_mini.kif");
    let game = gdl::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let (net, report) = compile_game(&game, Duration::ZERO, &PipelineOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    (game, net, report.warnings)
}

#[test]
fn junqi_mini_loads_and_its_golden_trace_replays_on_every_engine() {
    let (game, net, warnings) = load();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(game.program.gdl2 && net.netlist().gdl2);
    let names = |r: usize| net.netlist().roles[r].percepts.len();
    assert_eq!(names(0), 0, "random perceives nothing");
    assert!(
        names(1) > 20 && names(1) == names(2),
        "{} {}",
        names(1),
        names(2)
    );
    let trace =
        std::fs::read_to_string(workspace_root().join("bench-games/traces/junqi_mini.jsonl"))
            .expect("golden trace");
    assert!(
        trace.contains("(attack both)") && trace.contains("(lost "),
        "a trace with combat and a capture"
    );
    let mut interp = Interp::new(&game.program).expect("interpreter");
    let v = verify(&mut InterpEngine::new(&mut interp).unwrap(), &trace).expect("replays");
    assert!(v.agrees(), "interpreter: {}", v.summary());
    let backends = propnet_host::select::Backends::default();
    for b in [TraceBackend::Reference, TraceBackend::Cpu] {
        let mut e = NetTrace::new(net.netlist(), b, &backends).expect("engine");
        let v = verify(&mut e, &trace).expect("replays");
        assert!(v.agrees(), "netlist {b}: {}", v.summary());
    }
}

#[test]
fn junqi_mini_playouts_are_bit_identical_on_the_cpu_backend() {
    let (_, net, _) = load();
    let req = BatchRequest {
        jobs: vec![Job {
            start: net.netlist().initial_state(),
            first_playout: 0,
            count: 300,
        }],
        seed: 9,
        max_steps: 100,
        want_records: true,
    };
    let want = run_reference(net.netlist(), &req);
    let opts = CpuOptions {
        threads: 1,
        ..CpuOptions::default()
    };
    let got = CpuBackend::new(net.clone(), opts)
        .unwrap()
        .run_batch(&req)
        .unwrap();
    assert_eq!(got.records, want.records);
    assert_eq!(got.jobs, want.jobs);
}

/// 20 games, seats alternating: the information-set player (a few hundred
/// determinizations per move) scores at least 85 against random.
#[test]
fn the_belief_player_beats_random_at_junqi_mini() {
    let (_, net, _) = load();
    let opts = CpuOptions {
        threads: 1,
        ..CpuOptions::default()
    };
    let belief = BeliefPlayer::new(
        "belief".into(),
        Box::new(CpuBackend::new(net.clone(), opts).unwrap()),
        BeliefParams {
            particles: 64,
            leaves_per_batch: 16,
            playouts_per_leaf: 8,
            seed: 3,
            ..BeliefParams::default()
        },
        Budget::Iterations(256),
    );
    let mut players: Vec<Box<dyn HiddenPlayer>> =
        vec![Box::new(belief), Box::new(RandomHidden::new(4))];
    let mut score = 0u32;
    for g in 0..20u64 {
        let seats = if g % 2 == 0 {
            [usize::MAX, 0, 1]
        } else {
            [usize::MAX, 1, 0]
        };
        let rec = play_hidden_game(net.netlist(), &mut players, &seats, g, 100 + g, 100).unwrap();
        assert_eq!(rec.end, "terminal");
        score += u32::from(rec.score_of(0).unwrap());
    }
    assert!(score >= 85 * 20, "mean score {}", score as f64 / 20.0);
}
