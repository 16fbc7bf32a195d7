//! Pass tests on random netlists: every pass alone and the whole pipeline must keep the game
//! behaviour (checked by [`check_equivalent`]) and the netlist invariants.

use super::*;
use crate::random::{random_netlist, RandomSpec};
use crate::{from_text, Gate};
use proptest::prelude::*;

fn specs() -> Vec<RandomSpec> {
    vec![
        RandomSpec::default(),
        RandomSpec {
            roles: 1,
            moves_per_role: 3,
            latches: 8,
            view_gates: 20,
            next_gates: 20,
            max_fanin: 2,
            percepts_per_role: 0,
        },
        RandomSpec {
            roles: 3,
            moves_per_role: 4,
            latches: 40,
            view_gates: 120,
            next_gates: 80,
            max_fanin: 6,
            percepts_per_role: 0,
        },
        RandomSpec {
            roles: 2,
            moves_per_role: 1,
            latches: 5,
            view_gates: 10,
            next_gates: 5,
            max_fanin: 3,
            percepts_per_role: 0,
        },
        // Wide gates over few sources: operand pairs recur (extract_pairs).
        RandomSpec {
            roles: 2,
            moves_per_role: 3,
            latches: 4,
            view_gates: 150,
            next_gates: 40,
            max_fanin: 12,
            percepts_per_role: 0,
        },
        // GDL-II: percepts read moves and state.
        RandomSpec {
            roles: 2,
            moves_per_role: 4,
            latches: 16,
            view_gates: 40,
            next_gates: 60,
            max_fanin: 4,
            percepts_per_role: 6,
        },
    ]
}

const EQUIV: EquivOptions = EquivOptions {
    seed: 11,
    playouts: 12,
    max_steps: 40,
};

#[test]
fn every_pass_alone_keeps_random_netlists_equivalent() {
    let mut changed = vec![0usize; PASSES.len()];
    for (s, spec) in specs().iter().enumerate() {
        for seed in 0..12u64 {
            let net = random_netlist(seed * 31 + s as u64, spec);
            for (k, (name, pass)) in PASSES.iter().enumerate() {
                let mut out = net.clone();
                if pass(&mut out, &crate::Cancel::never()) {
                    changed[k] += 1;
                }
                validate(&out)
                    .unwrap_or_else(|e| panic!("{name}, spec {s}, seed {seed}: invalid: {e}"));
                check_equivalent(&net, &out, &EQUIV)
                    .unwrap_or_else(|e| panic!("{name}, spec {s}, seed {seed}: {e}"));
            }
        }
    }
    for ((name, _), c) in PASSES.iter().zip(changed) {
        assert!(
            c > 0,
            "pass {name} never changed any random netlist: the test does not exercise it"
        );
    }
}

#[test]
fn optimize_keeps_random_netlists_equivalent_and_reaches_a_fixpoint() {
    for (s, spec) in specs().iter().enumerate() {
        for seed in 0..12u64 {
            let net = random_netlist(seed * 17 + s as u64, spec);
            let mut out = net.clone();
            let report = optimize(&mut out, &OptimizeOptions::default());
            assert!(report.converged, "spec {s}, seed {seed}: {report}");
            check_equivalent(&net, &out, &EQUIV)
                .unwrap_or_else(|e| panic!("spec {s}, seed {seed}: {e}\n{report}"));
            assert!(
                out.logic_gate_count() <= net.logic_gate_count(),
                "spec {s}, seed {seed}: grew\n{report}"
            );
            let fluents = out.latches.len() + out.fixed_fluents.len() + out.aliased_fluents.len();
            assert_eq!(fluents, net.latches.len());
            // A second run finds nothing left to do.
            let mut again = out.clone();
            let second = optimize(&mut again, &OptimizeOptions::default());
            assert_eq!(
                second.iterations, 1,
                "spec {s}, seed {seed}: not a fixpoint\n{second}"
            );
            assert_eq!(again, out);
        }
    }
}

#[test]
fn optimize_shrinks_random_netlists() {
    let (mut before, mut after) = (0, 0);
    for seed in 0..20 {
        let mut net = random_netlist(seed, &RandomSpec::default());
        before += net.logic_gate_count();
        optimize(&mut net, &OptimizeOptions::default());
        after += net.logic_gate_count();
    }
    // Random netlists have dead logic, constants and duplicates: expect a real reduction.
    assert!(after * 10 < before * 9, "logic gates {before} -> {after}");
}

#[test]
fn optimize_without_latch_dropping_keeps_every_latch() {
    let net = random_netlist(5, &RandomSpec::default());
    let mut out = net.clone();
    optimize(
        &mut out,
        &OptimizeOptions {
            drop_constant_latches: false,
            ..Default::default()
        },
    );
    let names = |n: &crate::Netlist| {
        n.latches
            .iter()
            .map(|l| (l.name.clone(), l.init))
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&out), names(&net));
    assert!(out.fixed_fluents.is_empty());
    check_equivalent(&net, &out, &EQUIV).unwrap();
}

#[test]
fn check_equivalent_detects_differences() {
    let net = random_netlist(3, &RandomSpec::default());
    check_equivalent(&net, &net, &EQUIV).unwrap();
    // A different initial value of a latch shows in the state at step 0.
    let mut other = net.clone();
    other.latches[4].init = !other.latches[4].init;
    let e = check_equivalent(&net, &other, &EQUIV).unwrap_err();
    assert_eq!((e.playout, e.step), (0, 0));
    assert!(e.what.contains("(f 004)"), "{e}");
    // A negated legal gate changes that role's legal moves at step 0.
    let mut other = net.clone();
    let g = other.roles[0].legal[0].gate;
    let not = other.push(Gate::Not(g));
    other.roles[0].legal[0].gate = not;
    let e = check_equivalent(&net, &other, &EQUIV).unwrap_err();
    assert!(
        e.what.starts_with("legal moves of r0") || e.what.starts_with("terminal"),
        "{e}"
    );
    // A negated percept gate changes that role's percepts after the first joint move.
    let spec = RandomSpec {
        percepts_per_role: 3,
        ..RandomSpec::default()
    };
    let net = random_netlist(3, &spec);
    let mut other = net.clone();
    let g = other.roles[1].percepts[2].gate;
    let not = other.push(Gate::Not(g));
    other.roles[1].percepts[2].gate = not;
    let e = check_equivalent(&net, &other, &EQUIV).unwrap_err();
    assert_eq!((e.playout, e.step), (0, 1), "{e}");
    assert!(e.what.starts_with("percepts of r1 after"), "{e}");
}

#[test]
fn drop_constant_latches_records_fixed_fluents() {
    let src = "role r0 \"p\"\nlatch l0 \"(c)\" init 1\nlatch l1 \"(k)\" init 0\nlatch l2 \"(t)\" init 0\n\
               input i0 r0 \"(go)\"\ng0 = const 1\ng1 = latch l0\ng2 = latch l1\ng3 = latch l2\ng4 = not g3\n\
               next l0 g0\nnext l1 g2\nnext l2 g4\nlegal r0 i0 g1\nterminal g2\n";
    let net = from_text(src).unwrap();
    assert_eq!(
        drop_constant_latches::constant_latches(&net),
        vec![true, true, false]
    );
    let mut out = net.clone();
    assert!(drop_constant_latches::run(&mut out));
    assert_eq!(out.latches.len(), 1);
    assert_eq!(out.latches[0].name, "(t)");
    assert_eq!(
        out.fixed_fluents,
        vec![("(c)".to_string(), true), ("(k)".to_string(), false)]
    );
    assert_eq!(out.true_fluents(&[true]), vec!["(c)", "(t)"]);
    assert!(out
        .gates
        .iter()
        .all(|g| !matches!(g, Gate::Latch(l) if l.0 > 0)));
    assert!(
        !drop_constant_latches::run(&mut out),
        "nothing left to drop"
    );
    check_equivalent(&net, &out, &EQUIV).unwrap();
}

#[test]
fn report_counts_each_pass() {
    let mut net = random_netlist(9, &RandomSpec::default());
    let report = optimize(&mut net, &OptimizeOptions::default());
    let per_round = |i: usize| report.steps.iter().filter(|s| s.iteration == i).count();
    for i in 1..=report.iterations {
        assert!((PASSES.len() - EXPENSIVE.len()..=PASSES.len()).contains(&per_round(i)));
    }
    assert_eq!(
        per_round(report.iterations),
        PASSES.len(),
        "the last round runs every pass"
    );
    assert!(report
        .steps
        .iter()
        .any(|s| s.changed && s.logic_after < s.logic_before));
    assert_eq!(
        report.after.and + report.after.or + report.after.not,
        net.logic_gate_count()
    );
    let first = report.steps.first().unwrap();
    assert_eq!(
        first.logic_before,
        report.before.and + report.before.or + report.before.not
    );
    for w in report.steps.windows(2) {
        assert_eq!(w[0].gates_after, w[1].gates_before);
    }
    assert!(report.to_string().contains("remove_dead"));
}

fn spec_strategy() -> impl Strategy<Value = RandomSpec> {
    (
        1usize..4,
        1usize..6,
        1usize..30,
        0usize..80,
        0usize..80,
        1usize..6,
        0usize..4,
    )
        .prop_map(
            |(roles, moves_per_role, latches, view_gates, next_gates, max_fanin, percepts)| {
                RandomSpec {
                    roles,
                    moves_per_role,
                    latches,
                    view_gates,
                    next_gates,
                    max_fanin,
                    percepts_per_role: percepts,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn optimize_is_equivalent_on_generated_specs(spec in spec_strategy(), seed in any::<u64>()) {
        let net = random_netlist(seed, &spec);
        let mut out = net.clone();
        let report = optimize(&mut out, &OptimizeOptions::default());
        prop_assert!(report.converged);
        validate(&out).map_err(|e| TestCaseError::fail(e.to_string()))?;
        check_equivalent(&net, &out, &EQUIV).map_err(|e| TestCaseError::fail(format!("{e}\n{report}")))?;
    }
}
