//! Key guards and pools of blocks re-sorted by key (`propnet_sim::key`, the engine's
//! `pool`): the CPU backend still equals the reference backend record for record, on
//! random netlists whose first latches rotate one token (a key group held in every state)
//! and on a real game (the side to move), and from start states that break the key
//! (two members held), where the per-step check keeps the key guards live. Each check
//! runs on every instruction-set path present ([`propnet_tests::cpu_paths`]).

use propnet_netlist::random::{random_netlist, with_rotating_group, RandomSpec};
use propnet_netlist::{Netlist, ValidNetlist};
use propnet_runtime::backend::{Backend, BatchRequest, Job};
use propnet_sim::program::Tuning;
use propnet_sim::{CpuBackend, CpuOptions, Simd};
use propnet_tests::cases::{bench_game, case, Case};
use propnet_tests::cpu_paths;

/// A CPU backend with every technique on (`Tuning::Always`).
fn cpu(net: &Netlist, threads: usize, lane_width: usize, simd: Simd) -> CpuBackend {
    let valid = ValidNetlist::new(net.clone()).expect("valid netlist");
    let opts = CpuOptions {
        threads,
        lane_width,
        simd,
    };
    CpuBackend::with_tuning(valid, opts, Tuning::Always).expect("cpu backend")
}

/// Runs `req` on `b` and on the reference backend; every record and aggregate equal.
fn assert_same(c: &Case, b: &mut CpuBackend, req: &BatchRequest, what: &str) {
    let got = b.run_batch(req).expect("cpu batch");
    propnet_tests::cases::assert_same(c, req, &got, what);
}

/// A batch: `count` playouts from the start state and 40 from `other`.
fn batch(net: &Netlist, count: u32, other: Vec<bool>, seed: u64) -> BatchRequest {
    BatchRequest {
        jobs: vec![
            Job {
                start: net.initial_state(),
                first_playout: 0,
                count,
            },
            Job {
                start: other,
                first_playout: 5_000,
                count: 40,
            },
        ],
        seed,
        max_steps: 30,
        want_records: true,
    }
}

/// A random netlist (`seed`, `spec`) whose first `members` latches rotate one token, and a
/// start state holding two of them (which breaks the key: no key guard may skip there).
fn rotating(seed: u64, spec: &RandomSpec, members: usize, first: usize) -> (Case, Vec<bool>) {
    let mut net = random_netlist(seed, spec);
    with_rotating_group(&mut net, members, first);
    let mut two = net.initial_state();
    two[0] = true;
    two[1] = true;
    (case(format!("random/rotating {seed}"), net), two)
}

#[test]
fn pooled_blocks_equal_reference_on_rotating_groups() {
    for simd in cpu_paths() {
        rotating_groups(simd);
    }
}

fn rotating_groups(simd: Simd) {
    let mut keyed = 0;
    for seed in 0..12u64 {
        let spec = RandomSpec {
            roles: 1 + seed as usize % 3,
            latches: 16 + seed as usize * 5,
            view_gates: 60 + seed as usize * 9,
            next_gates: 40,
            ..RandomSpec::default()
        };
        // The second job starts with two members held: no key guard may skip there.
        let (c, two) = rotating(4_000 + seed, &spec, 3 + seed as usize % 12, seed as usize);
        let lanes = [64, 128][seed as usize % 2];
        let mut b = cpu(&c.net, 1 + seed as usize % 2, lanes, simd);
        keyed += usize::from(!b.program().key_checks.is_empty());
        let req = batch(&c.net, 9 * lanes as u32 + 17, two, seed);
        assert_same(&c, &mut b, &req, &format!("{simd:?}, seed {seed}"));
    }
    assert!(keyed >= 6, "only {keyed} of 12 netlists got key guards");
}

#[test]
fn pooled_blocks_equal_reference_on_connect_four() {
    let c = bench_game("connectfour");
    for simd in cpu_paths() {
        let mut b = cpu(&c.net, 1, 64, simd);
        assert!(
            !b.program().key_checks.is_empty(),
            "connect four's side to move is no key group"
        );
        let mid = c.net.initial_state();
        let req = batch(&c.net, 700, mid, 3);
        assert_same(&c, &mut b, &req, &format!("{simd:?}"));
    }
}

/// Legal entries of `net`'s roles held by guarded runs of the core phase: the ones the
/// transpose path may skip without reading (`sim::choice::KnownZero`).
fn guarded_legal_entries(b: &CpuBackend) -> usize {
    let prog = b.program();
    let core = &prog.core;
    let mut guarded = vec![false; core.len()];
    let mut k = 0;
    for run in &core.runs {
        let n = run.len as usize;
        guarded[k..k + n].fill(run.guard != propnet_sim::program::NONE);
        k += n;
    }
    prog.legal
        .iter()
        .flatten()
        .filter(|&&(op, _)| {
            let slot = (op >> 1) as usize;
            op & 1 == 0
                && slot
                    .checked_sub(core.first_slot)
                    .is_some_and(|i| guarded.get(i) == Some(&true))
        })
        .count()
}

/// Roles with more legal entries than the bit-sliced path takes go through the
/// transpose path, which leaves unread the entries of runs the key guards skipped: the
/// records still equal the reference backend's.
#[test]
fn pooled_blocks_equal_reference_with_many_moves() {
    for simd in cpu_paths() {
        many_moves(simd);
    }
}

fn many_moves(simd: Simd) {
    let mut skippable = 0;
    for seed in 0..6u64 {
        let spec = RandomSpec {
            roles: 1 + seed as usize % 2,
            moves_per_role: 300 + 40 * seed as usize,
            latches: 20 + seed as usize * 3,
            view_gates: 400,
            next_gates: 60,
            ..RandomSpec::default()
        };
        let (c, two) = rotating(7_000 + seed, &spec, 4 + seed as usize % 6, seed as usize);
        let lanes = [64, 128][seed as usize % 2];
        let mut b = cpu(&c.net, 1, lanes, simd);
        skippable += guarded_legal_entries(&b);
        let req = batch(&c.net, 5 * lanes as u32 + 9, two, seed);
        assert_same(&c, &mut b, &req, &format!("{simd:?}, seed {seed}"));
    }
    assert!(skippable > 0, "no legal entry in a guarded run");
}
