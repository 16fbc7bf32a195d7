//! GPU == reference, bit for bit: every playout record (length, end, goals, final state) of
//! the wgpu runner equals `reference_playout`, on random and hand-built netlists, both
//! layouts, several lane counts, with lane refilling, batch splitting and multi-job batches.
//! Runs on lavapipe in CI; skips without any adapter unless `PROPNET_REQUIRE_GPU=1`.

mod common;

use propnet_kernels::runner::{loop_limit, GpuJob, GpuRunner, RunParams};
use propnet_kernels::wgsl::{Layout, Options};
use propnet_netlist::playout::{reference_playout, PlayoutRecord};
use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_netlist::Gate;
use propnet_netlist::{validate, Netlist};

struct Case {
    layout: Layout,
    lanes: u32,
    max_invocations: u32,
    max_chunk: u32,
    /// Step budget per dispatch (0 = the runner's default).
    budget: u32,
}

/// Start states: the initial state and states reached by short reference playouts.
fn starts(net: &Netlist) -> Vec<Vec<bool>> {
    let mut v = vec![net.initial_state()];
    for p in 0..2 {
        let r = reference_playout(net, &net.initial_state(), 99, p, 3);
        v.push(
            (0..net.latches.len())
                .map(|l| r.final_state[l / 64] >> (l % 64) & 1 == 1)
                .collect(),
        );
    }
    v
}

/// Runs `counts` playouts per job (start states cycling through [`starts`]) and compares every
/// record with the reference; returns the runner (for its retry counters).
fn compare(
    what: &str,
    net: &Netlist,
    case: &Case,
    counts: &[u32],
    max_steps: u32,
    seed: u64,
) -> GpuRunner {
    let opts = Options {
        layout: case.layout,
        lanes: case.lanes,
        ..Default::default()
    };
    let mut runner = GpuRunner::new(net, &validate(net).unwrap(), &opts)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    runner.set_max_invocations(case.max_invocations);
    runner.set_max_chunk(case.max_chunk);
    if case.budget > 0 {
        runner.set_step_budget(case.budget);
    }
    let starts = starts(net);
    let jobs: Vec<GpuJob<'_>> = counts
        .iter()
        .enumerate()
        .map(|(j, &count)| GpuJob {
            start: &starts[j % starts.len()],
            first_playout: 1000 * j as u32 + 3,
            count,
        })
        .collect();
    let mut got: Vec<(usize, PlayoutRecord)> = Vec::new();
    runner
        .run(
            &jobs,
            &RunParams {
                seed,
                max_steps,
                want_state: true,
            },
            &mut |r| {
                got.push((
                    r.job,
                    PlayoutRecord {
                        index: r.index,
                        length: r.length,
                        end: r.end,
                        goals: (0..net.roles.len()).map(|i| r.goal(i)).collect(),
                        final_state: r.state_u64(),
                    },
                ))
            },
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let want: Vec<(usize, PlayoutRecord)> = jobs
        .iter()
        .enumerate()
        .flat_map(|(j, job)| (0..job.count).map(move |i| (j, job.first_playout + i)))
        .map(|(j, p)| (j, reference_playout(net, jobs[j].start, seed, p, max_steps)))
        .collect();
    assert_eq!(got.len(), want.len(), "{what}: record count");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(
            g, w,
            "{what}: layout {:?}, lanes {}",
            case.layout, case.lanes
        );
    }
    runner
}

const CASES: &[Case] = &[
    Case {
        layout: Layout::Inline,
        lanes: 32,
        max_invocations: 3,
        max_chunk: u32::MAX,
        budget: 0,
    },
    Case {
        layout: Layout::Table,
        lanes: 32,
        max_invocations: 2,
        max_chunk: 50,
        budget: 7,
    },
    Case {
        layout: Layout::Inline,
        lanes: 1,
        max_invocations: 64,
        max_chunk: 37,
        budget: 0,
    },
    Case {
        layout: Layout::Table,
        lanes: 5,
        max_invocations: 4,
        max_chunk: u32::MAX,
        budget: 3,
    },
];

#[test]
fn gpu_matches_reference_on_random_netlists() {
    if !common::gpu_available() {
        return;
    }
    for seed in 0..6u64 {
        let spec = RandomSpec {
            roles: 1 + seed as usize % 3,
            moves_per_role: 2 + seed as usize % 5,
            latches: 10 + 9 * seed as usize,
            ..Default::default()
        };
        let net = random_netlist(seed, &spec);
        let case = &CASES[seed as usize % CASES.len()];
        let _ = compare(
            &format!("random {seed}"),
            &net,
            case,
            &[40, 0, 25, 9],
            30 + seed as u32,
            seed.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        );
    }
}

#[test]
fn gpu_matches_reference_on_hand_built_netlists() {
    if !common::gpu_available() {
        return;
    }
    for (i, case) in CASES.iter().enumerate() {
        let _ = compare("counter", &common::counter(), case, &[33, 7], 6, i as u64);
        let _ = compare(
            "stuck",
            &common::stuck(),
            case,
            &[70],
            20,
            1 << 40 | i as u64,
        );
    }
}

#[test]
fn gpu_stuck_game_ends_every_way() {
    if !common::gpu_available() {
        return;
    }
    let net = common::stuck();
    let mut runner = GpuRunner::new(&net, &validate(&net).unwrap(), &Options::default()).unwrap();
    let mut ends = std::collections::HashSet::new();
    let start = net.initial_state();
    runner
        .run(
            &[GpuJob {
                start: &start,
                first_playout: 0,
                count: 200,
            }],
            &RunParams {
                seed: 5,
                max_steps: 4,
                want_state: false,
            },
            &mut |r| {
                assert!(r.state_words.is_empty());
                ends.insert(r.end);
            },
        )
        .unwrap();
    assert_eq!(
        ends.len(),
        3,
        "terminal, step limit and no-legal-move all expected: {ends:?}"
    );
}

#[test]
fn gpu_large_netlist_both_layouts() {
    if !common::gpu_available() {
        return;
    }
    let spec = RandomSpec {
        percepts_per_role: 0,
        roles: 2,
        moves_per_role: 12,
        latches: 200,
        view_gates: 3000,
        next_gates: 2100,
        max_fanin: 4,
    };
    let net = random_netlist(77, &spec);
    assert!(net.gates.len() > 5000);
    for layout in [Layout::Inline, Layout::Table] {
        let case = Case {
            layout,
            lanes: 32,
            max_invocations: 2,
            max_chunk: u32::MAX,
            budget: 0,
        };
        let _ = compare("large", &net, &case, &[40, 24], 12, 11);
    }
}

/// llvmpipe (lavapipe) stops every loop of an invocation after 65,535 back edges in total.
/// With a step budget far above what fits, the runner must notice the cut (the shader's probe
/// loop), undo the dispatch and redo it with smaller budgets, and still return exactly the
/// reference's records. On drivers without such a cap nothing is redone.
#[test]
fn gpu_redoes_dispatches_a_driver_cut_short() {
    if !common::gpu_available() {
        return;
    }
    // The counter game without its terminal: every playout runs to the step limit.
    let mut net = common::counter();
    net.terminal = net.push(Gate::Const(false));
    for layout in [Layout::Inline, Layout::Table] {
        let case = Case {
            layout,
            lanes: 32,
            max_invocations: u32::MAX,
            max_chunk: u32::MAX,
            budget: 65_536,
        };
        let runner = compare("endless counter", &net, &case, &[40, 3], 1000, 9);
        if loop_limit(runner.adapter_info()).is_some() {
            assert!(
                runner.retries() > 0 && runner.step_budget() < 65_536,
                "{layout:?}: 1000 steps in one dispatch cannot fit llvmpipe's loop limit, yet \
                 nothing was redone (retries {}, budget {})",
                runner.retries(),
                runner.step_budget()
            );
        }
    }
}
