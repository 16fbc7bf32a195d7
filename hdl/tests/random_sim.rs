//! Generated engines on random netlists: simulated in iverilog, compared bit for bit with
//! `reference_playout`; Threefry module alone against `rng::threefry2x32_20`; lint.

use propnet_compiler::netlist::random::{random_netlist, RandomSpec};
use propnet_compiler::netlist::Netlist;
use propnet_compiler::playout::{reference_playout, PlayoutEnd};
use propnet_compiler::rng::threefry2x32_20;
use propnet_hdl::sim::{simulate, SimRun};
use propnet_hdl::{generate, tools, Options};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("propnet-hdl-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn have(tool: &str) -> bool {
    if tools::available(tool) {
        return true;
    }
    assert!(std::env::var("PROPNET_REQUIRE_TOOLS").is_err(), "{tool} is required but not installed");
    eprintln!("skipping: {tool} not installed");
    false
}

/// Simulates `net` and requires every record and counter to equal the reference.
fn check(net: &Netlist, opts: &Options, seed: u64, playouts: u32, max_steps: u32, start: Option<Vec<bool>>, tag: &str) {
    let design = generate(net, opts).expect("generate");
    let dir = scratch(tag);
    let run = SimRun { seed, playouts, max_steps, start: start.clone(), max_cycles: 1_000_000 };
    let out = simulate(&design, &dir, &run).unwrap_or_else(|e| panic!("{tag}: {e}"));
    let start = start.unwrap_or_else(|| net.initial_state());
    let want: Vec<_> = (0..playouts).map(|p| reference_playout(net, &start, seed, p, max_steps)).collect();
    assert_eq!(out.records, want, "{tag}: records differ");
    for (rec, e) in out.records.iter().zip(&out.engine_of) {
        assert_eq!(rec.index % opts.engines, *e, "{tag}: playout {} ran on engine {e}", rec.index);
    }
    let c = |k: &str| out.counters[k];
    assert_eq!(c("playouts"), u64::from(playouts), "{tag}");
    assert_eq!(c("steps"), want.iter().map(|r| u64::from(r.length)).sum::<u64>(), "{tag}");
    assert_eq!(c("terminal"), want.iter().filter(|r| r.end == PlayoutEnd::Terminal).count() as u64, "{tag}");
    assert_eq!(c("step_limit"), want.iter().filter(|r| r.end == PlayoutEnd::StepLimit).count() as u64, "{tag}");
    for ri in 0..net.roles.len() {
        let sum: u64 = want.iter().map(|r| u64::from(r.goals[ri])).sum();
        assert_eq!(c(&format!("goal_sum_{ri}")), sum, "{tag}: goal sum of role {ri}");
    }
    // One joint move per cycle: each engine takes length + 1 + S cycles per playout.
    let s = u64::from(opts.rng_stages);
    let busiest = (0..opts.engines)
        .map(|e| want.iter().filter(|r| r.index % opts.engines == e).map(|r| u64::from(r.length) + 1 + s).sum::<u64>())
        .max()
        .unwrap_or(0);
    assert_eq!(c("cycles"), busiest, "{tag}: cycle count");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn random_netlists_match_reference() {
    if !have("iverilog") {
        return;
    }
    for seed in 0..6u64 {
        let spec = RandomSpec { roles: 1 + (seed as usize % 3), ..Default::default() };
        let net = random_netlist(seed, &spec);
        let opts = Options { engines: 1 + (seed as u32 % 3), rng_stages: [0, 1, 2, 4, 5, 20][seed as usize], ..Default::default() };
        check(&net, &opts, 0x1234_5678_9abc + seed, 7, 30, None, &format!("rand{seed}"));
    }
}
