//! GPU step kernel == scalar reference, bit for bit: next states and every role's percepts
//! of many (state, joint move) pairs on random GDL-II-shaped netlists (percept outputs
//! reading the state before the move, the joint move and latches' next values). Runs on
//! lavapipe in CI; skips without any adapter unless `PROPNET_REQUIRE_GPU=1`.

mod common;

use propnet_kernels::runner::GpuStepper;
use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_netlist::scalar::{random_transitions, ScalarNet};
use propnet_netlist::{validate, InputId};

#[test]
fn step_kernel_equals_the_scalar_reference_on_percepts_and_next_states() {
    if !common::gpu_available() {
        return;
    }
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
        validate(&net).expect("random netlists are valid");
        let stepper = GpuStepper::new(&net, 20_000).expect("step kernel");
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
fn a_netlist_past_the_gate_limit_is_refused_with_the_reason() {
    let net = random_netlist(3, &RandomSpec::default());
    let err = match GpuStepper::new(&net, 5) {
        Ok(_) => panic!("5 gates allowed"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("over its limit of 5"), "{err}");
}
