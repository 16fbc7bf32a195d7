//! The `<prefix>_percept` module in Icarus Verilog (and Verilator) equals the scalar reference: every
//! role's percepts of many (state, joint move) pairs on random GDL-II-shaped netlists.
//! Skips without iverilog unless `PROPNET_REQUIRE_TOOLS` is set (CI sets it).

use propnet_hdl::percept::{simulate_percepts, write_percept_module};
use propnet_hdl::sim::Simulator;
use propnet_hdl::tools::available_for_tests;
use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_netlist::scalar::{random_transitions, ScalarNet};
use propnet_netlist::validate;

#[test]
fn percept_module_equals_the_scalar_reference() {
    if !available_for_tests("iverilog") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("propnet-percept-sim-{}", std::process::id()));
    let (mut checked, mut seen) = (0, 0);
    for seed in 0..4u64 {
        let spec = RandomSpec {
            roles: 1 + (seed as usize % 3),
            latches: 12 + 9 * seed as usize,
            percepts_per_role: 2 + 5 * seed as usize,
            ..RandomSpec::default()
        };
        let net = random_netlist(seed, &spec);
        let info = validate(&net).expect("valid");
        let pairs = random_transitions(&net, 11, (200, 10), 400);
        // Icarus, and Verilator on one of the netlists (a build takes seconds).
        let sims: &[Simulator] = if seed == 3 && available_for_tests("verilator") {
            &[Simulator::Icarus, Simulator::Verilator]
        } else {
            &[Simulator::Icarus]
        };
        let runs: Vec<_> = sims
            .iter()
            .map(|&sim| {
                simulate_percepts(
                    &net,
                    &info,
                    &pairs,
                    &dir.join(format!("{seed}-{sim:?}")),
                    sim,
                )
                .unwrap_or_else(|e| panic!("seed {seed}, {sim:?}: {e}"))
            })
            .collect();
        assert!(
            runs.windows(2).all(|w| w[0] == w[1]),
            "seed {seed}: simulators differ"
        );
        let got = &runs[0];
        let mut scalar = ScalarNet::new(&net);
        for (k, ((s, j), g)) in pairs.iter().zip(got).enumerate() {
            let (_, want) = scalar.next_with_percepts(&net, s, j);
            assert_eq!(g, &want, "seed {seed} pair {k}");
            seen += want.iter().map(Vec::len).sum::<usize>();
            checked += 1;
        }
    }
    assert!(checked > 300, "{checked} pairs");
    assert!(seen > 0, "some percepts hold");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_gdl1_netlist_has_no_percept_module() {
    let net = random_netlist(1, &RandomSpec::default());
    let info = validate(&net).expect("valid");
    assert!(write_percept_module(&net, &info, "m").is_none());
    let err = simulate_percepts(
        &net,
        &info,
        &[],
        std::path::Path::new("/nonexistent"),
        Simulator::Icarus,
    );
    assert!(err
        .unwrap_err()
        .to_string()
        .contains("no percepts (not GDL-II)"));
}
