//! The bit-parallel CPU backend equals the reference backend, record for record, on random
//! netlists of many shapes, and its results do not depend on thread count or lane width.

use propnet_netlist::playout::PlayoutEnd;
use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_netlist::rng::threefry2x32_20;
use propnet_netlist::{validate, Netlist};
use propnet_runtime::backend::{Backend, BatchRequest, BatchResult, Job, ReferenceBackend};
use propnet_sim::program::Tuning;
use propnet_sim::{CpuBackend, CpuOptions, SUPPORTED_LANES};

fn cpu(net: &Netlist, threads: usize, lane_width: usize) -> CpuBackend {
    CpuBackend::new(
        propnet_netlist::ValidNetlist::new(net.clone()).expect("valid netlist"),
        CpuOptions {
            threads,
            lane_width,
            ..Default::default()
        },
    )
    .expect("cpu backend")
}

fn reference(net: &Netlist, req: &BatchRequest) -> BatchResult {
    ReferenceBackend::new(net.clone())
        .run_batch(req)
        .expect("reference")
}

/// A pseudo-random state: bit `i` from the RNG keyed by `salt`.
fn random_state(latches: usize, salt: u32) -> Vec<bool> {
    (0..latches)
        .map(|i| threefry2x32_20([salt, 77], [i as u32, 1])[0] & 1 == 1)
        .collect()
}

fn req(jobs: Vec<Job>, seed: u64, max_steps: u32) -> BatchRequest {
    BatchRequest {
        jobs,
        seed,
        max_steps,
        want_records: true,
    }
}

fn assert_same(net: &Netlist, r: &BatchRequest, got: &BatchResult, what: &str) {
    let want = reference(net, r);
    assert_eq!(
        got.records.len(),
        want.records.len(),
        "{what}: record count"
    );
    for (g, w) in got.records.iter().zip(&want.records) {
        assert_eq!(g, w, "{what}: playout {}", w.index);
    }
    assert_eq!(got.jobs, want.jobs, "{what}: aggregates");
}

/// Netlist shapes that vary with `seed`: 1–4 roles of 1–6 moves, 8–97 latches, up to 139
/// view and next gates of fan-in 2–6.
fn varied_spec(seed: u64) -> RandomSpec {
    RandomSpec {
        roles: 1 + (seed as usize % 4),
        moves_per_role: 1 + (seed as usize % 6),
        latches: 8 + (seed as usize * 7) % 90,
        view_gates: 20 + (seed as usize * 13) % 120,
        next_gates: 20 + (seed as usize * 11) % 120,
        max_fanin: 2 + seed as usize % 5,
    }
}

#[test]
fn equals_reference_on_random_netlists() {
    let mut ends = std::collections::HashSet::new();
    for seed in 0..24u64 {
        let net = random_netlist(seed, &varied_spec(seed));
        validate(&net).unwrap();
        let lane_width = SUPPORTED_LANES[seed as usize % SUPPORTED_LANES.len()];
        let count = [1u32, 63, 65, 200, 130, 7, 3000][seed as usize % 7];
        let r = req(
            vec![Job {
                start: net.initial_state(),
                first_playout: seed as u32 * 1000,
                count,
            }],
            seed ^ 0x5555,
            1 + (seed as u32 * 5) % 40,
        );
        let got = cpu(&net, 2, lane_width).run_batch(&r).unwrap();
        assert_same(&net, &r, &got, &format!("seed {seed}"));
        ends.extend(got.records.iter().map(|x| std::mem::discriminant(&x.end)));
    }
    assert!(
        ends.len() >= 2,
        "cases should end both by terminal and by step limit"
    );
}

/// With every technique for large netlists on (`Tuning::Always`): the next phase guarded
/// on every gate that has a guard (skipped runs, lockstep blocks refilled together),
/// products fused into their `Or` and skipped where their latch is 0 in every lane (the
/// Auto choice, with per-lane refills too, is checked on hex and amazons in
/// `cpu_vs_reference`), records still equal the reference's; jobs of more playouts than
/// lanes make blocks refill several times.
#[test]
fn guarded_lockstep_equals_reference() {
    let (mut guarded, mut skipping) = (0, 0);
    for seed in 0..24u64 {
        let net = random_netlist(500 + seed, &varied_spec(seed));
        validate(&net).unwrap();
        let lane_width = SUPPORTED_LANES[seed as usize % SUPPORTED_LANES.len()];
        let r = req(
            vec![
                Job {
                    start: net.initial_state(),
                    first_playout: 0,
                    count: 3 * lane_width as u32 / 2,
                },
                Job {
                    start: random_state(net.latches.len(), seed as u32),
                    first_playout: 9,
                    count: 70,
                },
            ],
            seed ^ 0xa5a5,
            1 + (seed as u32 * 7) % 30,
        );
        let mut b = CpuBackend::with_tuning(
            propnet_netlist::ValidNetlist::new(net.clone()).expect("valid netlist"),
            CpuOptions {
                threads: 1 + seed as usize % 2,
                lane_width,
                ..Default::default()
            },
            Tuning::Always,
        )
        .expect("cpu backend");
        guarded += usize::from(!b.program().guards.is_empty());
        skipping += usize::from(b.program().skips_products);
        let got = b.run_batch(&r).unwrap();
        assert_same(&net, &r, &got, &format!("seed {seed}"));
    }
    assert!(guarded >= 12, "only {guarded} of 24 programs have guards");
    assert!(
        skipping >= 12,
        "only {skipping} of 24 programs skip products"
    );
}

/// Roles with many legal moves take the simulator's bit-transpose path (more than 16 moves,
/// and more than 64 so a lane's move set spans two words; the random generator names moves
/// `m 0..` and sorts them as text only below 100); choices must still equal
/// the reference's, including lanes with zero or one legal move.
#[test]
fn equals_reference_with_many_legal_moves() {
    let mut multi = 0;
    for seed in 0..6u64 {
        let spec = RandomSpec {
            roles: 1 + seed as usize % 2,
            moves_per_role: [17, 40, 64, 65, 90, 99][seed as usize],
            latches: 40,
            view_gates: 200,
            next_gates: 120,
            max_fanin: 2 + seed as usize % 3,
        };
        let net = random_netlist(100 + seed, &spec);
        validate(&net).unwrap();
        let r = req(
            vec![Job {
                start: random_state(net.latches.len(), seed as u32),
                first_playout: 7,
                count: 150,
            }],
            seed,
            12,
        );
        let got = cpu(&net, 1, [64, 256][seed as usize % 2])
            .run_batch(&r)
            .unwrap();
        assert_same(&net, &r, &got, &format!("seed {seed}"));
        multi += got.records.iter().filter(|x| x.length > 0).count();
    }
    assert!(multi > 0, "some playouts should make moves");
}

/// Every way the CPU backend picks a move (one entry; bit-sliced counting for 2..=255
/// entries, at each plane boundary; the bit transpose above 255), at every lane width:
/// records equal the reference's.
#[test]
fn equals_reference_on_every_choice_path() {
    let counts = [
        1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 300,
    ];
    let mut moved = 0;
    for (i, &moves) in counts.iter().enumerate() {
        let spec = RandomSpec {
            roles: 1 + i % 3,
            moves_per_role: moves,
            latches: 30,
            view_gates: 120,
            next_gates: 80,
            max_fanin: 2 + i % 2,
        };
        let net = random_netlist(300 + i as u64, &spec);
        validate(&net).unwrap();
        let r = req(
            vec![Job {
                start: random_state(net.latches.len(), i as u32),
                first_playout: 3,
                count: 100,
            }],
            i as u64,
            10,
        );
        let got = cpu(&net, 1, [64, 128, 256, 512][i % 4])
            .run_batch(&r)
            .unwrap();
        assert_same(&net, &r, &got, &format!("{moves} moves per role"));
        moved += got.records.iter().filter(|x| x.length > 0).count();
    }
    assert!(moved > 0, "some playouts should make moves");
}

#[test]
fn equals_reference_on_long_batches_and_many_jobs() {
    let spec = RandomSpec {
        roles: 3,
        moves_per_role: 4,
        latches: 40,
        view_gates: 80,
        next_gates: 80,
        max_fanin: 4,
    };
    let net = random_netlist(99, &spec);
    // Over 1000 playouts in one job: many refills per lane.
    let r = req(
        vec![Job {
            start: net.initial_state(),
            first_playout: 0,
            count: 1500,
        }],
        3,
        30,
    );
    assert_same(
        &net,
        &r,
        &cpu(&net, 2, 64).run_batch(&r).unwrap(),
        "1500 playouts",
    );
    // Several jobs with different start states, one empty, one near the u32 wrap.
    let jobs = vec![
        Job {
            start: random_state(40, 1),
            first_playout: 5,
            count: 70,
        },
        Job {
            start: random_state(40, 2),
            first_playout: 0,
            count: 0,
        },
        Job {
            start: net.initial_state(),
            first_playout: u32::MAX - 3,
            count: 9,
        },
        Job {
            start: random_state(40, 3),
            first_playout: 5,
            count: 300,
        },
    ];
    let r = req(jobs, 11, 25);
    for lw in [64, 256, 512] {
        assert_same(
            &net,
            &r,
            &cpu(&net, 2, lw).run_batch(&r).unwrap(),
            &format!("multi-job, {lw} lanes"),
        );
    }
}

#[test]
fn step_limits_zero_and_one() {
    let net = random_netlist(5, &RandomSpec::default());
    for max_steps in [0u32, 1, 2] {
        let r = req(
            vec![Job {
                start: random_state(net.latches.len(), 9),
                first_playout: 0,
                count: 100,
            }],
            1,
            max_steps,
        );
        let got = cpu(&net, 1, 128).run_batch(&r).unwrap();
        assert!(got.records.iter().all(|x| x.length <= max_steps));
        assert_same(&net, &r, &got, &format!("max_steps {max_steps}"));
    }
}

/// A random netlist where each role's last move is legal by an arbitrary view gate instead
/// of "no other move is legal", so roles can be left without a legal move.
fn stuck_netlist(seed: u64, roles: usize) -> Netlist {
    let mut net = random_netlist(
        seed,
        &RandomSpec {
            roles,
            moves_per_role: 2,
            ..Default::default()
        },
    );
    let views: Vec<_> = net
        .roles
        .iter()
        .flat_map(|r| r.goals.iter().map(|g| g.gate))
        .chain([net.terminal])
        .collect();
    for (i, role) in net.roles.iter_mut().enumerate() {
        let last = role.legal.len() - 1;
        role.legal[last].gate = views[(i + seed as usize) % views.len()];
        role.legal[0].gate = views[(i * 3 + 1 + seed as usize) % views.len()];
    }
    net.terminal = propnet_netlist::GateId(0); // const false: never terminal
    validate(&net).unwrap();
    net
}

#[test]
fn no_legal_move_ends_like_reference() {
    let mut stuck_roles = std::collections::HashSet::new();
    for seed in 0..16 {
        let net = stuck_netlist(seed, 1 + seed as usize % 3);
        let r = req(
            vec![Job {
                start: random_state(net.latches.len(), seed as u32),
                first_playout: 0,
                count: 150,
            }],
            seed,
            20,
        );
        let got = cpu(&net, 2, 64 << (seed % 4)).run_batch(&r).unwrap();
        assert_same(&net, &r, &got, &format!("stuck seed {seed}"));
        for x in &got.records {
            if let PlayoutEnd::NoLegalMove(role) = x.end {
                stuck_roles.insert(role);
            }
        }
    }
    assert!(
        stuck_roles.len() >= 2,
        "several roles should get stuck: {stuck_roles:?}"
    );
}

#[test]
fn results_do_not_depend_on_threads_or_lane_width() {
    let net = random_netlist(
        42,
        &RandomSpec {
            roles: 2,
            moves_per_role: 6,
            latches: 60,
            view_gates: 150,
            next_gates: 150,
            max_fanin: 5,
        },
    );
    let jobs = vec![
        Job {
            start: net.initial_state(),
            first_playout: 0,
            count: 3000,
        },
        Job {
            start: random_state(60, 4),
            first_playout: 100,
            count: 777,
        },
    ];
    let r = req(jobs, 2024, 60);
    let base = cpu(&net, 1, 64).run_batch(&r).unwrap();
    assert_eq!(base.records.len(), 3777);
    for (threads, lw) in [(2, 64), (4, 256), (1, 512), (2, 128), (1, 1024), (2, 2048)] {
        let got = cpu(&net, threads, lw).run_batch(&r).unwrap();
        assert_eq!(got.records, base.records, "{threads} threads, {lw} lanes");
        assert_eq!(got.jobs, base.jobs, "{threads} threads, {lw} lanes");
    }
    // A tuned backend runs its first batches at different widths: each is the same.
    let mut tuned = cpu(&net, 1, CpuOptions::TUNED_LANES);
    for batch in 0..8 {
        let got = tuned.run_batch(&r).unwrap();
        assert_eq!(got.records, base.records, "tuned, batch {batch}");
    }
    assert!(
        tuned.describe().contains("measured fastest"),
        "{}",
        tuned.describe()
    );
    // Aggregates without records agree too.
    let mut r2 = r.clone();
    r2.want_records = false;
    let agg = cpu(&net, 2, 256).run_batch(&r2).unwrap();
    assert!(agg.records.is_empty());
    assert_eq!(agg.jobs, base.jobs);
}

#[test]
fn rejects_bad_input() {
    let net = random_netlist(1, &RandomSpec::default());
    assert!(CpuBackend::new(
        propnet_netlist::ValidNetlist::new(net.clone()).expect("valid netlist"),
        CpuOptions {
            threads: 1,
            lane_width: 100,
            ..Default::default()
        }
    )
    .is_err());
    let mut b = cpu(&net, 1, 64);
    let r = req(
        vec![Job {
            start: vec![true; 3],
            first_playout: 0,
            count: 1,
        }],
        0,
        5,
    );
    assert!(b.run_batch(&r).is_err());
}

/// `--profile`'s count of evaluated core operands: every operand on each sampled step of an
/// unguarded core phase (`Tuning::Never`), at most that of a guarded one (`Tuning::Always`),
/// and fewer in most guarded programs (dead guards skip their runs); results stay the
/// reference's with the profile on; the active lanes they count fit the sampled blocks.
#[test]
fn profile_counts_the_core_operands_evaluated() {
    let (mut guarded, mut skipped) = (0, 0);
    for seed in 0..16u64 {
        let net = random_netlist(700 + seed, &varied_spec(seed));
        let r = req(
            vec![Job {
                start: net.initial_state(),
                first_playout: 0,
                count: 200,
            }],
            seed,
            40,
        );
        for tuning in [Tuning::Always, Tuning::Never] {
            let mut b = CpuBackend::with_tuning(
                propnet_netlist::ValidNetlist::new(net.clone()).expect("valid netlist"),
                CpuOptions {
                    threads: 1,
                    lane_width: 64,
                    ..Default::default()
                },
                tuning,
            )
            .expect("cpu backend");
            b.enable_profile();
            let got = b.run_batch(&r).unwrap();
            assert_same(&net, &r, &got, &format!("seed {seed}, {tuning:?}"));
            let per_step = b.program().core.args.len() as u64;
            let is_guarded = b.program().core_is_guarded();
            if tuning == Tuning::Never {
                assert!(!is_guarded, "seed {seed}: core guarded under Tuning::Never");
            }
            let t = b.phase_times().expect("profile enabled");
            assert!(t.sampled_steps > 0, "seed {seed}: no step sampled");
            let all = per_step * t.sampled_steps;
            assert!(
                t.active_lanes > 0 && t.active_lanes <= 64 * t.sampled_steps,
                "seed {seed}: {} active lanes in {} sampled steps of 64 lanes",
                t.active_lanes,
                t.sampled_steps
            );
            if is_guarded {
                guarded += 1;
                assert!(
                    t.core_operands <= all,
                    "seed {seed}: {} > {all}",
                    t.core_operands
                );
                skipped += usize::from(t.core_operands < all);
            } else {
                assert_eq!(
                    t.core_operands, all,
                    "seed {seed}, {tuning:?}: unguarded core"
                );
            }
        }
    }
    assert!(
        guarded >= 12,
        "only {guarded} of 16 programs guard their core phase"
    );
    assert!(
        skipped >= 8,
        "guards skipped core runs in only {skipped} programs"
    );
}
