//! GpuBackend == CpuBackend == ReferenceBackend through the `Backend` trait: identical
//! aggregates and bit-identical per-playout records on multi-job batches, both shader layouts,
//! on random netlists and real games (turn-taking, simultaneous moves, a positive loop, and a
//! netlist of more than 5,000 logic gates).
//! Skips without a GPU adapter (lavapipe counts) unless `PROPNET_REQUIRE_GPU=1`.

use propnet_kernels::backend::GpuBackend;
use propnet_kernels::wgsl::{Layout, Options};
use propnet_netlist::playout::reference_playout;
use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_netlist::Netlist;
use propnet_runtime::backend::{Backend, BatchRequest, Job, ReferenceBackend};
use propnet_sim::{CpuBackend, CpuOptions};

use propnet_tests::gpu_available;

fn request(net: &Netlist, seed: u64, scale: u32) -> BatchRequest {
    let mid = reference_playout(net, &net.initial_state(), seed ^ 1, 0, 2);
    let mid: Vec<bool> = (0..net.latches.len())
        .map(|l| mid.final_state[l / 64] >> (l % 64) & 1 == 1)
        .collect();
    BatchRequest {
        jobs: vec![
            Job {
                start: net.initial_state(),
                first_playout: 0,
                count: 48 / scale,
            },
            Job {
                start: mid,
                first_playout: 500,
                count: 17,
            },
            Job {
                start: net.initial_state(),
                first_playout: u32::MAX - 5,
                count: 9,
            },
        ],
        seed,
        max_steps: 40,
        want_records: true,
    }
}

/// Compares the GPU (both layouts) against the reference and CPU backends; `scale` divides
/// the first job's playout count (large netlists are slow on lavapipe).
fn check(what: &str, net: &Netlist, scale: u32) {
    check_layouts(what, net, scale, &[Layout::Inline, Layout::Table]);
}

/// [`check`] with the given shader layouts.
fn check_layouts(what: &str, net: &Netlist, scale: u32, layouts: &[Layout]) {
    let mut reference = ReferenceBackend::new(net.clone());
    let mut cpu = CpuBackend::new(
        propnet_netlist::ValidNetlist::new(net.clone()).expect("valid netlist"),
        CpuOptions {
            threads: 1,
            lane_width: 64,
            ..Default::default()
        },
    )
    .unwrap();
    let mut gpus: Vec<(Layout, GpuBackend)> = layouts
        .iter()
        .copied()
        .map(|layout| {
            let gpu = GpuBackend::new(
                propnet_netlist::ValidNetlist::new(net.clone()).expect("valid netlist"),
                &Options {
                    layout,
                    ..Default::default()
                },
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(gpu.describe().starts_with("gpu: "), "{}", gpu.describe());
            eprintln!(
                "{what}: {} gates, {layout:?}: loop bound {:?}, {} steps per dispatch",
                net.gates.len(),
                gpu.runner().kernel().loop_bound,
                gpu.runner().step_budget()
            );
            (layout, gpu)
        })
        .collect();
    for seed in [1u64, 0xdead_beef_0000_0007] {
        let req = request(net, seed, scale);
        // The reference runs once per request; the CPU and both GPU layouts must equal it.
        let want = reference.run_batch(&req).unwrap();
        let on_cpu = cpu.run_batch(&req).unwrap();
        assert_eq!(on_cpu.jobs, want.jobs, "{what} seed {seed}: CPU aggregates");
        assert_eq!(
            on_cpu.records, want.records,
            "{what} seed {seed}: CPU records"
        );
        for (layout, gpu) in &mut gpus {
            let got = gpu.run_batch(&req).unwrap();
            assert_eq!(
                got.jobs, want.jobs,
                "{what} {layout:?} seed {seed}: aggregates"
            );
            assert_eq!(got.records.len(), want.records.len());
            for (g, w) in got.records.iter().zip(&want.records) {
                assert_eq!(g, w, "{what} {layout:?} seed {seed}");
            }
            let lean = gpu
                .run_batch(&BatchRequest {
                    want_records: false,
                    ..req.clone()
                })
                .unwrap();
            assert!(lean.records.is_empty());
            assert_eq!(
                lean.jobs, want.jobs,
                "{what} {layout:?}: aggregates without records"
            );
        }
    }
}

#[test]
fn gpu_backend_matches_reference_on_random_netlists() {
    if !gpu_available() {
        return;
    }
    for seed in 0..3u64 {
        let spec = RandomSpec {
            roles: 1 + seed as usize,
            latches: 30 + 40 * seed as usize,
            ..Default::default()
        };
        check(&format!("random {seed}"), &random_netlist(seed, &spec), 1);
    }
}

/// Loads a corpus game through the full pipeline (ground + optimize); `None` (skip) when
/// the shared data is absent.
fn game(path: &str) -> Option<Netlist> {
    let shared = propnet_tests::shared_dir()?;
    Some(load(&shared.join("games").join(path)))
}

fn load(path: &std::path::Path) -> Netlist {
    let opts = propnet_runtime::pipeline::PipelineOptions::default();
    propnet_runtime::pipeline::load_netlist(path, &opts)
        .unwrap_or_else(|e| panic!("{e}"))
        .0
        .into_netlist()
}

#[test]
fn gpu_backend_matches_reference_on_tictactoe() {
    if !gpu_available() {
        return;
    }
    let Some(net) = game("ggp-repository/ticTacToe.kif") else {
        return;
    };
    check("tictactoe", &net, 1);
}

#[test]
fn gpu_backend_matches_reference_on_connect_four() {
    if !gpu_available() {
        return;
    }
    let Some(net) = game("ggp-repository/connect4.kif") else {
        return;
    };
    check("connect4", &net, 1);
}

#[test]
fn gpu_backend_matches_reference_on_simultaneous_connect_four() {
    if !gpu_available() {
        return;
    }
    let Some(net) = game("ggp-repository/connectFourSimultaneous.kif") else {
        return;
    };
    check("connectFourSimultaneous", &net, 1);
}

/// The hand-written positive-loop game the HDL test uses too (its `reach` view supports
/// itself through a symmetric adjacency; the grounder reports the loop).
#[test]
fn gpu_backend_matches_reference_on_positive_loop_game() {
    if !gpu_available() {
        return;
    }
    check(
        "positive-loop game",
        &propnet_tests::fixtures::positive_loop_game(),
        1,
    );
}

#[test]
fn gpu_backend_matches_reference_on_recursive_corpus_game() {
    if !gpu_available() {
        return;
    }
    let Some(net) = game("ggp-base-tests/test_case_5c.kif") else {
        return;
    };
    check("test_case_5c (recursive p/r)", &net, 1);
}

#[test]
fn gpu_backend_matches_reference_on_breakthrough() {
    if !gpu_available() {
        return;
    }
    let net = load(&propnet_tests::workspace_root().join("bench-games/breakthrough.kif"));
    check("breakthrough", &net, 4);
}

#[test]
fn gpu_backend_matches_reference_on_a_game_over_5000_gates_amazons() {
    if !gpu_available() {
        return;
    }
    let path = propnet_tests::workspace_root().join("bench-games/amazons.kif");
    let net = load(&path);
    let gates = net.logic_gate_count();
    eprintln!("amazons.kif: {gates} logic gates after optimization");
    assert!(
        gates > 5000,
        "amazons.kif has {gates} logic gates; the acceptance list wants > 5000"
    );
    // Table: the layout for big netlists (its shader size does not grow with the gate
    // count, so llvmpipe compiles it in seconds; a 12 k-gate Inline shader takes it minutes
    // with a cold shader cache). Inline on > 5,000 gates: kernels/tests/gpu_random.rs.
    check_layouts("amazons.kif", &net, 8, &[Layout::Table]);
}
