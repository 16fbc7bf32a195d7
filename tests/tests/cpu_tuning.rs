//! CPU-only checks of the bit-parallel simulator, beyond the conformance suite
//! (`conformance/`, which runs the shared checks on the CPU's AVX2 and portable paths):
//! programs with every technique for large netlists forced on (`Tuning::Always`) still
//! equal the reference, results do not depend on thread count or lane width (nor on a
//! tuned width), unsupported lane widths are refused, `--profile` counts the core operands
//! it evaluates, and hex's transition is guarded. Each check runs on every instruction-set
//! path present ([`propnet_tests::cpu_paths`]: the AVX2 one unless absent, which skips it
//! under the suite's rule, and always the portable one).

use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_netlist::{Netlist, ValidNetlist};
use propnet_runtime::backend::Backend;
use propnet_sim::program::Tuning;
use propnet_sim::{CpuBackend, CpuOptions, Simd, SUPPORTED_LANES};
use propnet_tests::cases::{
    assert_same, case, corpus_game, job, random_state, request, varied_spec,
};
use propnet_tests::cpu_paths;

fn cpu(net: &Netlist, threads: usize, lane_width: usize, simd: Simd, tuning: Tuning) -> CpuBackend {
    CpuBackend::with_tuning(
        ValidNetlist::new(net.clone()).expect("valid netlist"),
        CpuOptions {
            threads,
            lane_width,
            simd,
        },
        tuning,
    )
    .expect("cpu backend")
}

/// With every technique for large netlists on (`Tuning::Always`): the next phase guarded
/// on every gate that has a guard (skipped runs, lockstep blocks refilled together),
/// products fused into their `Or` and skipped where their latch is 0 in every lane (the
/// Auto choice, with per-lane refills too, runs on hex and amazons in the conformance
/// suite), records still equal the reference's; jobs of more playouts than lanes make
/// blocks refill several times.
#[test]
fn guarded_lockstep_equals_reference() {
    for simd in cpu_paths() {
        let (mut guarded, mut skipping) = (0, 0);
        for seed in 0..24u64 {
            let c = case(
                format!("random/varied {}", 500 + seed),
                random_netlist(500 + seed, &varied_spec(seed)),
            );
            let lane_width = SUPPORTED_LANES[seed as usize % SUPPORTED_LANES.len()];
            let r = request(
                vec![
                    job(c.net.initial_state(), 0, 3 * lane_width as u32 / 2),
                    job(random_state(c.net.latches.len(), seed as u32), 9, 70),
                ],
                seed ^ 0xa5a5,
                1 + (seed as u32 * 7) % 30,
            );
            let mut b = cpu(
                &c.net,
                1 + seed as usize % 2,
                lane_width,
                simd,
                Tuning::Always,
            );
            guarded += usize::from(!b.program().guards.is_empty());
            skipping += usize::from(b.program().skips_products);
            let got = b.run_batch(&r).unwrap();
            assert_same(&c, &r, &got, &format!("{simd:?}, seed {seed}"));
        }
        assert!(guarded >= 12, "only {guarded} of 24 programs have guards");
        assert!(
            skipping >= 12,
            "only {skipping} of 24 programs skip products"
        );
    }
}

#[test]
fn results_do_not_depend_on_threads_or_lane_width() {
    let net = random_netlist(
        42,
        &RandomSpec {
            percepts_per_role: 0,
            roles: 2,
            moves_per_role: 6,
            latches: 60,
            view_gates: 150,
            next_gates: 150,
            max_fanin: 5,
        },
    );
    let r = request(
        vec![
            job(net.initial_state(), 0, 3000),
            job(random_state(60, 4), 100, 777),
        ],
        2024,
        60,
    );
    for simd in cpu_paths() {
        let base = cpu(&net, 1, 64, simd, Tuning::Auto).run_batch(&r).unwrap();
        assert_eq!(base.records.len(), 3777);
        for (threads, lw) in [(2, 64), (4, 256), (1, 512), (2, 128), (1, 1024), (2, 2048)] {
            let got = cpu(&net, threads, lw, simd, Tuning::Auto)
                .run_batch(&r)
                .unwrap();
            let what = format!("{simd:?}, {threads} threads, {lw} lanes");
            assert_eq!(got.records, base.records, "{what}");
            assert_eq!(got.jobs, base.jobs, "{what}");
        }
        // A tuned backend runs its first batches at different widths: each is the same.
        let mut tuned = cpu(&net, 1, CpuOptions::TUNED_LANES, simd, Tuning::Auto);
        for batch in 0..8 {
            let got = tuned.run_batch(&r).unwrap();
            assert_eq!(got.records, base.records, "{simd:?}, tuned, batch {batch}");
        }
        assert!(
            tuned.describe().contains("measured fastest"),
            "{}",
            tuned.describe()
        );
    }
}

/// A lane width the simulator is not built for is refused (a start state of the wrong
/// length is the conformance suite's `bad_start_rejected`).
#[test]
fn rejects_unsupported_lane_width() {
    let net = random_netlist(1, &RandomSpec::default());
    for simd in [Simd::Auto, Simd::Portable] {
        assert!(CpuBackend::new(
            ValidNetlist::new(net.clone()).expect("valid netlist"),
            CpuOptions {
                threads: 1,
                lane_width: 100,
                simd,
            }
        )
        .is_err());
    }
}

/// `--profile`'s count of evaluated core operands: every operand on each sampled step of an
/// unguarded core phase (`Tuning::Never`), at most that of a guarded one (`Tuning::Always`),
/// and fewer in most guarded programs (dead guards skip their runs); results stay the
/// reference's with the profile on; the active lanes they count fit the sampled blocks.
#[test]
fn profile_counts_the_core_operands_evaluated() {
    for simd in cpu_paths() {
        let (mut guarded, mut skipped) = (0, 0);
        for seed in 0..16u64 {
            let c = case(
                format!("random/varied {}", 700 + seed),
                random_netlist(700 + seed, &varied_spec(seed)),
            );
            let r = request(vec![job(c.net.initial_state(), 0, 200)], seed, 40);
            for tuning in [Tuning::Always, Tuning::Never] {
                let mut b = cpu(&c.net, 1, 64, simd, tuning);
                b.enable_profile();
                let got = b.run_batch(&r).unwrap();
                let what = format!("{simd:?}, seed {seed}, {tuning:?}");
                assert_same(&c, &r, &got, &what);
                let per_step = b.program().core.args.len() as u64;
                let is_guarded = b.program().core_is_guarded();
                if tuning == Tuning::Never {
                    assert!(!is_guarded, "{what}: core guarded under Tuning::Never");
                }
                let t = b.phase_times().expect("profile enabled");
                assert!(t.sampled_steps > 0, "{what}: no step sampled");
                let all = per_step * t.sampled_steps;
                assert!(
                    t.active_lanes > 0 && t.active_lanes <= 64 * t.sampled_steps,
                    "{what}: {} active lanes in {} sampled steps of 64 lanes",
                    t.active_lanes,
                    t.sampled_steps
                );
                if is_guarded {
                    guarded += 1;
                    assert!(
                        t.core_operands <= all,
                        "{what}: {} > {all}",
                        t.core_operands
                    );
                    skipped += usize::from(t.core_operands < all);
                } else {
                    assert_eq!(t.core_operands, all, "{what}: unguarded core");
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
}

/// Hex 9×9 is the game whose transition phase the cost model guards (skipped runs of the
/// groups no lane has reached, blocks refilled in lockstep); the conformance suite's
/// `game_hex` compares its records with the reference's.
#[test]
fn hex_transition_is_guarded() {
    let Some(c) = corpus_game("ggp-repository/hex.kif") else {
        return;
    };
    let b = cpu(&c.net, 1, 256, Simd::Auto, Tuning::Auto);
    assert!(
        !b.program().guards.is_empty(),
        "hex's transition is no longer guarded"
    );
}
