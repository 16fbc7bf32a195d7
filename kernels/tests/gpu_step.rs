//! GPU step kernel == scalar reference, bit for bit: next states and every role's percepts
//! of many (state, joint move) pairs on random GDL-II-shaped netlists (percept outputs
//! reading the state before the move, the joint move and latches' next values). Runs on
//! lavapipe in CI; skips without any adapter unless `PROPNET_REQUIRE_GPU=1`.

mod common;

use propnet_kernels::runner::GpuStepper;
use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_netlist::scalar::{random_transitions, ScalarNet};
use propnet_netlist::{validate, Gate, InputId, Netlist, NetlistInfo, Percept, Role};

/// Steps many random transitions of six random GDL-II-shaped netlists with a stepper made
/// by `make` and compares each with the scalar reference.
fn check_against_the_scalar_reference(make: &dyn Fn(&Netlist, &NetlistInfo) -> GpuStepper) {
    let mut checked = 0;
    let mut seen_any = 0;
    for seed in 0..6u64 {
        let spec = RandomSpec {
            roles: 1 + (seed as usize % 3),
            latches: 10 + 13 * seed as usize,
            percepts_per_role: 1 + 7 * (seed as usize % 4),
            ..RandomSpec::default()
        };
        let net = random_netlist(seed, &spec);
        let info = validate(&net).expect("random netlists are valid");
        let stepper = make(&net, &info);
        let pairs = random_transitions(&net, 7, (40, 12), usize::MAX);
        let refs: Vec<(&[bool], &[InputId])> = (pairs.iter())
            .map(|(s, j)| (s.as_slice(), j.as_slice()))
            .collect();
        let got = stepper.step(&refs).expect("dispatch");
        assert_eq!(got.len(), pairs.len());
        let mut scalar = ScalarNet::new(&net);
        for (k, ((s, j), g)) in pairs.iter().zip(&got).enumerate() {
            let (next, percepts) = scalar.next_with_percepts(&net, s, j);
            assert_eq!(g.next, next, "seed {seed} pair {k}: next state");
            assert_eq!(g.percepts, percepts, "seed {seed} pair {k}: percepts");
            seen_any += percepts.iter().map(Vec::len).sum::<usize>();
            checked += 1;
        }
    }
    assert!(checked > 500, "{checked} pairs checked");
    assert!(
        seen_any > 0,
        "some percepts hold (else the check shows little)"
    );
}

#[test]
fn step_kernel_equals_the_scalar_reference_on_percepts_and_next_states() {
    if !common::gpu_available() {
        return;
    }
    check_against_the_scalar_reference(&|net, info| {
        let s = GpuStepper::new(net, info, usize::MAX).expect("step kernel");
        assert!(s.describe().contains("straight-line"), "{}", s.describe());
        s
    });
}

/// Above the inline limit the interpreted form (32 pairs an invocation, records run in
/// segments of dispatches) gives the same transitions: here every netlist is above a limit
/// of 0, and a segment is 7 records, so a transition takes many dispatches.
#[test]
fn interpreted_step_kernel_equals_the_scalar_reference_across_segments() {
    if !common::gpu_available() {
        return;
    }
    check_against_the_scalar_reference(&|net, info| {
        let mut s = GpuStepper::new(net, info, 0).expect("step kernel");
        assert!(s.describe().contains("interpreted"), "{}", s.describe());
        s.set_segment_records(7);
        s
    });
}

/// Steps `pairs` of `net` with the straight-line form and with the interpreted form
/// (`segment` records a dispatch) and compares both with the scalar reference.
fn both_forms_equal_the_reference(
    net: &Netlist,
    pairs: &[(Vec<bool>, Vec<InputId>)],
    segment: u32,
) {
    let info = validate(net).expect("valid netlist");
    let refs: Vec<(&[bool], &[InputId])> = (pairs.iter())
        .map(|(s, j)| (s.as_slice(), j.as_slice()))
        .collect();
    let mut scalar = ScalarNet::new(net);
    let want: Vec<_> = (pairs.iter())
        .map(|(s, j)| scalar.next_with_percepts(net, s, j))
        .collect();
    for limit in [usize::MAX, 0] {
        let mut stepper = GpuStepper::new(net, &info, limit).expect("step kernel");
        stepper.set_segment_records(segment);
        let got = stepper.step(&refs).expect("dispatch");
        assert_eq!(got.len(), pairs.len());
        for (k, (g, (next, percepts))) in got.iter().zip(&want).enumerate() {
            let form = stepper.describe();
            assert_eq!(&g.next, next, "{form}, pair {k} of {}: next", pairs.len());
            assert_eq!(
                &g.percepts,
                percepts,
                "{form}, pair {k} of {}: percepts",
                pairs.len()
            );
        }
    }
}

/// No latches and no inputs: nothing to load, yet the constants must be set (the
/// interpreted form once read its all-ones slot as 0 here) and the straight-line form must
/// bind `src` though no gate reads it.
#[test]
fn a_netlist_without_latches_or_inputs_steps_on_both_forms() {
    if !common::gpu_available() {
        return;
    }
    let mut net = Netlist::default();
    let yes = net.push(Gate::Const(true));
    let no = net.push(Gate::Const(false));
    let and = net.push(Gate::And(vec![yes]));
    net.terminal = no;
    net.gdl2 = true;
    net.roles.push(Role {
        name: "r".into(),
        percepts: vec![
            Percept {
                name: "a".into(),
                gate: yes,
            },
            Percept {
                name: "b".into(),
                gate: and,
            },
        ],
        ..Default::default()
    });
    both_forms_equal_the_reference(&net, &vec![(vec![], vec![]); 3], 7);
}

/// Pair counts around the interpreted form's 32 pairs an invocation, and no percepts.
#[test]
fn pair_counts_around_32_and_no_percepts_step_on_both_forms() {
    if !common::gpu_available() {
        return;
    }
    let spec = RandomSpec {
        roles: 2,
        latches: 36,
        percepts_per_role: 17,
        ..RandomSpec::default()
    };
    let net = random_netlist(3, &spec);
    let all = random_transitions(&net, 9, (100, 12), usize::MAX);
    assert!(all.len() >= 65, "{} transitions", all.len());
    for n in [1, 31, 32, 33, 65] {
        both_forms_equal_the_reference(&net, &all[..n], 5);
    }
    let mut silent = net.clone();
    silent.roles.iter_mut().for_each(|r| r.percepts.clear());
    both_forms_equal_the_reference(&silent, &all[..40], 1000);
}
