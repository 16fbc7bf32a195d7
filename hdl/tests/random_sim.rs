//! Generated engines on random netlists: simulated in iverilog, compared bit for bit with
//! `reference_playout`; Threefry module alone against `rng::threefry2x32_20`; lint.

use propnet_hdl::sim::{simulate, SimRun, Simulator};
use propnet_hdl::{tools, Design, Error, Options};
use propnet_netlist::playout::{reference_playout, PlayoutEnd};
use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_netlist::rng::threefry2x32_20;
use propnet_netlist::{validate, Gate, Netlist};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// A scratch folder given as a path relative to the working directory (the crate's), as a
/// user's `propnet hdl -o out` would: the tools run inside it, so this checks that no source
/// path is passed relative to the wrong folder.
fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(format!(
        "../target/propnet-hdl-tests/{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The design of a netlist that must be valid.
fn generate(net: &Netlist, opts: &Options) -> Result<Design, Error> {
    propnet_hdl::generate(net, &validate(net).expect("valid netlist"), opts)
}

fn have(tool: &str) -> bool {
    tools::available_for_tests(tool)
}

/// Simulates `net` in Icarus Verilog and requires every record and counter to equal the
/// reference.
fn check(
    net: &Netlist,
    opts: &Options,
    seed: u64,
    playouts: u32,
    max_steps: u32,
    start: Option<Vec<bool>>,
    tag: &str,
) {
    let run = SimRun {
        seed,
        playouts,
        max_steps,
        start,
        max_cycles: 1_000_000,
        simulator: Simulator::Icarus,
    };
    check_run(net, opts, &run, tag);
}

/// Simulates `net` as `run` says and requires every record and counter to equal the
/// reference.
fn check_run(net: &Netlist, opts: &Options, run: &SimRun, tag: &str) {
    let SimRun {
        seed,
        playouts,
        max_steps,
        ..
    } = *run;
    let design = generate(net, opts).expect("generate");
    let dir = scratch(tag);
    let out = simulate(&design, &dir, run).unwrap_or_else(|e| panic!("{tag}: {e}"));
    let start = run.start.clone().unwrap_or_else(|| net.initial_state());
    let want: Vec<_> = (0..playouts)
        .map(|p| reference_playout(net, &start, seed, p, max_steps))
        .collect();
    assert_eq!(out.records, want, "{tag}: records differ");
    for (rec, e) in out.records.iter().zip(&out.engine_of) {
        assert_eq!(
            rec.index % opts.engines,
            *e,
            "{tag}: playout {} ran on engine {e}",
            rec.index
        );
    }
    let c = |k: &str| out.counters[k];
    assert_eq!(c("playouts"), u64::from(playouts), "{tag}");
    assert_eq!(
        c("steps"),
        want.iter().map(|r| u64::from(r.length)).sum::<u64>(),
        "{tag}"
    );
    assert_eq!(
        c("terminal"),
        want.iter()
            .filter(|r| r.end == PlayoutEnd::Terminal)
            .count() as u64,
        "{tag}"
    );
    assert_eq!(
        c("step_limit"),
        want.iter()
            .filter(|r| r.end == PlayoutEnd::StepLimit)
            .count() as u64,
        "{tag}"
    );
    for ri in 0..net.roles.len() {
        let sum: u64 = want.iter().map(|r| u64::from(r.goals[ri])).sum();
        assert_eq!(
            c(&format!("goal_sum_{ri}")),
            sum,
            "{tag}: goal sum of role {ri}"
        );
    }
    // One joint move per cycle plus the fill / end cycles of `engine_cycles`.
    let busiest = (0..opts.engines)
        .map(|e| {
            let lengths: Vec<u32> = want
                .iter()
                .filter(|r| r.index % opts.engines == e)
                .map(|r| r.length)
                .collect();
            propnet_hdl::engine::engine_cycles(&lengths, opts.rng_stages, opts.banks, opts.cslow)
        })
        .max()
        .unwrap_or(0);
    assert_eq!(c("cycles"), busiest, "{tag}: cycle count");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The first random netlist from seed `from` on whose reference playouts (`seed`, `playouts`,
/// `steps`) make at least half of the possible steps, with [`record_moves`] latches: many
/// random netlists are terminal in the initial state, which would test no chooser at all.
fn lively_netlist(from: u64, spec: &RandomSpec, seed: u64, playouts: u32, steps: u32) -> Netlist {
    (from..from + 200)
        .map(|s| random_netlist(s, spec))
        .find(|net| {
            let start = net.initial_state();
            let made: u32 = (0..playouts)
                .map(|p| reference_playout(net, &start, seed, p, steps).length)
                .sum();
            2 * made >= playouts * steps
        })
        .map(record_moves)
        .expect("some random netlist should have long playouts")
}

/// Roles with up to `PRECOMPUTE_MAX_MOVES` legal entries choose through the precomputed
/// `k_c` registers, roles with more through the registered-draw multiplier: both at the
/// boundary, bit for bit.
#[test]
fn many_moves_per_role_match_reference() {
    if !have("iverilog") {
        return;
    }
    let max = propnet_hdl::engine::PRECOMPUTE_MAX_MOVES;
    for (seed, moves, stages) in [(21u64, max, 1u32), (22, max + 1, 2)] {
        let spec = RandomSpec {
            roles: 2,
            moves_per_role: moves,
            ..Default::default()
        };
        let net = lively_netlist(seed, &spec, 0xfeed + seed, 6, 30);
        assert!(net.roles.iter().any(|r| r.legal.len() == moves));
        let opts = Options {
            engines: 1,
            rng_stages: stages,
            banks: 2,
            cslow: if stages == 1 { 1 } else { 2 },
            ..Default::default()
        };
        let design = generate(&net, &opts).unwrap();
        let engine = &design
            .sources
            .iter()
            .find(|f| f.name == format!("{}.v", design.names.engine))
            .expect("engine file")
            .text;
        assert_eq!(engine.contains("drawq_"), moves > max, "multiplier path");
        assert_eq!(engine.contains("kc_0_2"), moves <= max, "precomputed path");
        let grouped = moves > propnet_hdl::chooser::GROUPED_ABOVE_MOVES;
        assert_eq!(engine.contains("gsel_0_0"), grouped, "group-wise chooser");
        assert_eq!(engine.contains("pre_0_1 "), !grouped, "flat prefix count");
        check(
            &net,
            &opts,
            0xfeed + seed,
            6,
            30,
            None,
            &format!("moves{moves}"),
        );
    }
}

/// Legal-move counts per role over the states the reference playouts visit (the same
/// semantics as `reference_playout`: roles choose in order, a role with no legal move ends
/// the playout).
fn visited_counts(net: &Netlist, seed: u64, playouts: u32, max_steps: u32) -> Vec<BTreeSet<usize>> {
    use propnet_netlist::playout::{eval_gates, legal_of};
    use propnet_netlist::rng::{choose, draw};
    let mut seen = vec![BTreeSet::new(); net.roles.len()];
    let none = vec![false; net.inputs.len()];
    for p in 0..playouts {
        let mut state = net.initial_state();
        for step in 0..max_steps {
            let values = eval_gates(net, &state, &none);
            if values[net.terminal.index()] {
                break;
            }
            let legal = legal_of(net, &values);
            let mut inputs = none.clone();
            let mut stuck = false;
            for (r, moves) in legal.iter().enumerate() {
                seen[r].insert(moves.len());
                if moves.is_empty() {
                    stuck = true;
                    break;
                }
                let k = choose(draw(seed, p, step, r as u32), moves.len() as u32);
                inputs[moves[k as usize].index()] = true;
            }
            if stuck {
                break;
            }
            let values = eval_gates(net, &state, &inputs);
            state = net.latches.iter().map(|l| values[l.next.index()]).collect();
        }
    }
    seen
}

/// Adds one sticky latch per input, set once the move is played, so every wrong choice of a
/// playout shows in its final state (in a random netlist most inputs feed no next-state gate).
fn record_moves(mut net: Netlist) -> Netlist {
    use propnet_netlist::{Gate, GateId, InputId, Latch, LatchId};
    for x in 0..net.inputs.len() {
        let at = net
            .gates
            .iter()
            .position(|g| matches!(g, Gate::Input(i) if i.index() == x));
        let input = match at {
            Some(at) => GateId(at as u32),
            None => net.push(Gate::Input(InputId(x as u32))),
        };
        let id = LatchId(net.latches.len() as u32);
        let held = net.push(Gate::Latch(id));
        let next = net.push(Gate::Or(vec![held, input]));
        net.latches.push(Latch {
            name: format!("(played {x})"),
            init: false,
            next,
        });
    }
    propnet_netlist::validate(&net).unwrap();
    net
}

/// A random netlist with `moves` legal entries per role whose legal bits are thinned so the
/// group-wise chooser sees empty groups, sparse groups and counts 0 and 1: role 0's second
/// group is never legal; in role 1 only the first entry of each group keeps its random legal
/// gate, the others also need two latches, and latch `block` makes every move illegal.
fn sparse_netlist(seed: u64, moves: usize, block: usize) -> Netlist {
    use propnet_netlist::{Gate, GateId};
    let mut net = random_netlist(
        seed,
        &RandomSpec {
            roles: 2,
            moves_per_role: moves,
            latches: 30,
            ..Default::default()
        },
    );
    let latch = |net: &Netlist, x: usize| {
        let at = net
            .gates
            .iter()
            .position(|g| matches!(g, Gate::Latch(l) if l.index() == x));
        GateId(at.expect("latch gate") as u32)
    };
    let g = propnet_hdl::chooser::GROUP_SIZE;
    let off = net.push(Gate::Const(false));
    for j in g..(2 * g).min(moves) {
        net.roles[0].legal[j].gate = off;
    }
    let (a, b, x) = (latch(&net, 1), latch(&net, 2), latch(&net, block));
    let rare = net.push(Gate::And(vec![a, b]));
    let open = net.push(Gate::Not(x));
    for j in 0..moves {
        let mut ops = vec![net.roles[1].legal[j].gate, open];
        if j % g != 0 {
            ops.push(rare);
        }
        net.roles[1].legal[j].gate = net.push(Gate::And(ops));
    }
    record_moves(net)
}

/// Roles above `GROUPED_ABOVE_MOVES` entries choose group-wise: bit for bit with the
/// reference for a role whose last group has one entry, and for thinned legal bits whose
/// counts include 0, 1 and values spanning several groups.
#[test]
fn grouped_chooser_matches_reference() {
    if !have("iverilog") {
        return;
    }
    let above = propnet_hdl::chooser::GROUPED_ABOVE_MOVES;
    let g = propnet_hdl::chooser::GROUP_SIZE;
    // One entry over a multiple of the group size: a last group of one entry.
    let moves = (above / g + 1) * g + 1;
    let spec = RandomSpec {
        roles: 2,
        moves_per_role: moves,
        ..Default::default()
    };
    let net = lively_netlist(31, &spec, 0xabc, 6, 30);
    let opts = Options {
        engines: 1,
        rng_stages: 2,
        banks: 2,
        cslow: 2,
        ..Default::default()
    };
    check(&net, &opts, 0xabc, 6, 30, None, "grouped_tail");

    let (seed, playouts, steps) = (0x5a5a, 10, 30);
    let moves = above + 3 * g + 3;
    let (net, seen) = (0..40u64)
        .flat_map(|s| (3..30).map(move |x| (s, x)))
        .map(|(s, x)| {
            let net = sparse_netlist(s, moves, x);
            let seen = visited_counts(&net, seed, playouts, steps);
            (net, seen)
        })
        .find(|(_, seen)| {
            let c = &seen[1];
            c.contains(&0) && c.contains(&1) && c.iter().any(|&n| n > 2 * g)
        })
        .expect("some thinned netlist should visit counts 0, 1 and > 2 groups");
    assert!(
        seen[0].iter().all(|&n| n <= moves - g),
        "role 0's second group is empty"
    );
    for (stages, banks, cslow) in [(1u32, 1u32, 1u32), (0, 3, 2)] {
        let opts = Options {
            engines: 2,
            rng_stages: stages,
            banks,
            cslow,
            ..Default::default()
        };
        check(
            &net,
            &opts,
            seed,
            playouts,
            steps,
            None,
            &format!("grouped_sparse{stages}"),
        );
    }
}

#[test]
fn random_netlists_match_reference() {
    if !have("iverilog") {
        return;
    }
    for seed in 0..6u64 {
        let spec = RandomSpec {
            roles: 1 + (seed as usize % 3),
            ..Default::default()
        };
        // Playouts that make moves (many random netlists are terminal at once), of varied
        // lengths, so short ones wait for their bank.
        let net = lively_netlist(1000 * seed, &spec, 0x1234_5678_9abc + seed, 7, 30);
        let opts = Options {
            engines: 1 + (seed as u32 % 3),
            rng_stages: [0, 1, 2, 4, 5, 20][seed as usize],
            banks: [3, 2, 1, 4, 1, 3][seed as usize],
            cslow: if seed % 3 == 0 { 2 } else { 1 },
            ..Default::default()
        };
        check(
            &net,
            &opts,
            0x1234_5678_9abc + seed,
            7,
            30,
            None,
            &format!("rand{seed}"),
        );
    }
}

/// The same testbench compiled by Verilator (what `propnet hdl --check` uses for large
/// designs): records, counters and cycle counts equal the reference, from a start state
/// given by plusarg, on two engines.
#[test]
fn verilator_runs_the_testbench_like_icarus() {
    if !have("verilator") {
        return;
    }
    let net = lively_netlist(
        7000,
        &RandomSpec {
            roles: 2,
            latches: 40,
            ..Default::default()
        },
        0x77,
        9,
        30,
    );
    let start: Vec<bool> = (0..net.latches.len()).map(|i| i % 3 == 0).collect();
    let opts = Options {
        engines: 2,
        rng_stages: 4,
        banks: 2,
        ..Default::default()
    };
    for (start, tag) in [(None, "verilator_init"), (Some(start), "verilator_state")] {
        let run = SimRun {
            seed: 0x77,
            playouts: 9,
            max_steps: 30,
            start,
            max_cycles: 1_000_000,
            simulator: Simulator::Verilator,
        };
        check_run(&net, &opts, &run, tag);
    }
}

#[test]
fn start_state_from_host_and_no_legal_move() {
    if !have("iverilog") {
        return;
    }
    let net = random_netlist(
        11,
        &RandomSpec {
            roles: 2,
            latches: 40,
            ..Default::default()
        },
    );
    // A start state that is not init, spanning two 32-bit words.
    let start: Vec<bool> = (0..net.latches.len())
        .map(|i| (i * 7 + 3) % 5 < 2)
        .collect();
    assert_ne!(start, net.initial_state());
    check(
        &net,
        &Options {
            engines: 2,
            rng_stages: 4,
            ..Default::default()
        },
        99,
        5,
        25,
        Some(start),
        "state",
    );

    // Make role 1's moves all illegal in some states: the engine must stop with NoLegalMove(1).
    // Search the latches for one whose value blocks role 1 during some playout.
    let net = (0..20u64)
        .flat_map(|seed| {
            let base = random_netlist(
                seed,
                &RandomSpec {
                    roles: 2,
                    ..Default::default()
                },
            );
            (0..base.latches.len()).map(move |x| (base.clone(), x))
        })
        .map(|(base, x)| {
            use propnet_netlist::{Gate, GateId};
            let mut net = base.clone();
            let latch = net
                .gates
                .iter()
                .position(|g| matches!(g, Gate::Latch(l) if l.index() == x))
                .unwrap();
            let blocked = net.push(Gate::Not(GateId(latch as u32)));
            for k in 0..net.roles[1].legal.len() {
                let g = net.roles[1].legal[k].gate;
                net.roles[1].legal[k].gate = net.push(Gate::And(vec![g, blocked]));
            }
            net
        })
        .find(|net| {
            (0..12).any(|p| {
                matches!(
                    reference_playout(net, &net.initial_state(), 5, p, 40).end,
                    PlayoutEnd::NoLegalMove(1)
                )
            })
        })
        .expect("some latch should block role 1 in a playout");
    // Appended gates sit after the input gates; that is still topological.
    propnet_netlist::validate(&net).unwrap();
    check(
        &net,
        &Options {
            engines: 3,
            rng_stages: 0,
            banks: 1,
            cslow: 2,
            ..Default::default()
        },
        5,
        12,
        40,
        None,
        "stuck",
    );
}

#[test]
fn threefry_matches_rng() {
    if !have("iverilog") {
        return;
    }
    for stages in [0u32, 5, 20] {
        let dir = scratch(&format!("tf{stages}"));
        std::fs::create_dir_all(&dir).unwrap();
        let text = propnet_hdl::threefry::write_threefry("tf", stages);
        std::fs::write(dir.join("tf.v"), text).unwrap();
        let cases: Vec<([u32; 2], [u32; 2])> = (0..16u32)
            .map(|i| {
                let r = threefry2x32_20([i, 77], [i, 5]);
                ([r[0], r[1]], [i.wrapping_mul(0x9e37_79b9), r[0] ^ r[1]])
            })
            .chain([([0, 0], [0, 0]), ([u32::MAX; 2], [u32::MAX; 2])])
            .collect();
        let mut tb = String::from(
            "module tb;\nreg clk = 0;\nreg [31:0] k0, k1, b0, c0, c1;\nwire [31:0] d;\n",
        );
        let clk = if stages > 0 {
            ".clk(clk), .ce(1'b1), "
        } else {
            ""
        };
        tb += &format!(
            "tf u ({clk}.key0(k0), .key1(k1), .base0(b0), .ctr0(c0), .ctr1(c1), .draw(d));\ninitial begin\n"
        );
        // The playout base is added to counter word 0: half the cases split the index.
        let base = |i: usize| {
            if i.is_multiple_of(2) {
                0
            } else {
                0x8000_0001u32.wrapping_mul(i as u32)
            }
        };
        for (i, (k, c)) in cases.iter().enumerate() {
            tb += &format!(
                "k0 = 32'h{:x}; k1 = 32'h{:x}; b0 = 32'h{:x}; c0 = 32'h{:x}; c1 = 32'h{:x};\n",
                k[0],
                k[1],
                base(i),
                c[0].wrapping_sub(base(i)),
                c[1]
            );
            tb += &format!(
                "repeat ({clocks}) begin #1 clk = 1; #1 clk = 0; end\n#1 $display(\"D %h\", d);\n",
                // One more clock with a pipeline: the registered key words.
                clocks = stages + u32::from(stages > 0)
            );
        }
        tb += "end\nendmodule\n";
        std::fs::write(dir.join("tb.v"), tb).unwrap();
        let ok = std::process::Command::new("iverilog")
            .args(["-o", "t.vvp", "tf.v", "tb.v"])
            .current_dir(&dir)
            .status()
            .unwrap();
        assert!(ok.success());
        let out = std::process::Command::new("vvp")
            .args(["-n", "t.vvp"])
            .current_dir(&dir)
            .output()
            .unwrap();
        let got: Vec<u32> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("D "))
            .map(|h| u32::from_str_radix(h.trim(), 16).unwrap())
            .collect();
        let want: Vec<u32> = cases
            .iter()
            .map(|(k, c)| threefry2x32_20(*k, *c)[0])
            .collect();
        assert_eq!(got, want, "threefry with {stages} stages");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn generated_verilog_is_lint_clean() {
    if !have("verilator") {
        return;
    }
    // The last one has a group-wise chooser.
    for (seed, stages, engines, banks, cslow, moves) in [
        (3u64, 0u32, 1u32, 1u32, 1u32, 5usize),
        (4, 2, 3, 2, 1, 5),
        (5, 5, 2, 1, 2, 5),
        (6, 20, 1, 3, 2, 5),
        (7, 10, 2, 4, 1, 5),
        (8, 2, 1, 2, 2, 41),
    ] {
        let net = random_netlist(
            seed,
            &RandomSpec {
                roles: 1 + seed as usize % 3,
                moves_per_role: moves,
                ..Default::default()
            },
        );
        let design = generate(
            &net,
            &Options {
                engines,
                rng_stages: stages,
                prefix: "module".into(),
                banks,
                cslow,
                records: 0,
            },
        )
        .unwrap();
        assert_eq!(design.names.top, "module_1_top");
        assert_eq!(design.sources[0].text.contains("cut_in"), cslow == 2);
        let dir = scratch(&format!("lint{seed}"));
        let warnings = tools::lint(&design, &dir).unwrap_or_else(|e| panic!("{e}"));
        assert!(warnings.is_empty(), "verilator -Wall warnings:\n{warnings}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn bad_options_and_netlists_are_errors() {
    let net = random_netlist(1, &RandomSpec::default());
    assert!(matches!(
        generate(
            &net,
            &Options {
                rng_stages: 3,
                ..Default::default()
            }
        ),
        Err(propnet_hdl::Error::BadOption(_))
    ));
    assert!(matches!(
        generate(
            &net,
            &Options {
                engines: 0,
                ..Default::default()
            }
        ),
        Err(propnet_hdl::Error::BadOption(_))
    ));
    for (cslow, banks) in [(0u32, 1u32), (3, 1), (3, 2), (1, 0), (1, 5)] {
        assert!(matches!(
            generate(
                &net,
                &Options {
                    cslow,
                    banks,
                    ..Default::default()
                }
            ),
            Err(propnet_hdl::Error::BadOption(_))
        ));
    }
    let mut bad = net.clone();
    bad.terminal = propnet_netlist::GateId(u32::MAX);
    assert!(
        validate(&bad).is_err(),
        "invalid netlists never reach the writer"
    );
    let mut empty = Netlist::default();
    empty.terminal = empty.push(Gate::Const(true));
    assert!(
        matches!(
            validate(&empty),
            Err(propnet_netlist::ValidateError::NoRoles)
        ),
        "a netlist without roles never reaches the writer"
    );
}

/// The synthesis flow end to end on a tiny netlist (yosys `synth_ice40` + nextpnr-ice40).
#[test]
fn tiny_netlist_synthesizes_for_ice40() {
    if !have("yosys") || !have("nextpnr-ice40") {
        return;
    }
    let spec = RandomSpec {
        percepts_per_role: 0,
        roles: 1,
        moves_per_role: 3,
        latches: 8,
        view_gates: 12,
        next_gates: 12,
        max_fanin: 3,
    };
    let net = random_netlist(2, &spec);
    let design = generate(
        &net,
        &Options {
            rng_stages: 4,
            ..Default::default()
        },
    )
    .unwrap();
    let dir = scratch("synth");
    let rep = propnet_hdl::synth::synthesize(&design, &dir, propnet_hdl::synth::Target::Ice40)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        rep.luts > 100,
        "a Threefry alone needs hundreds of LUTs: {rep:?}"
    );
    assert!(
        rep.ffs >= 8 + 4 * 32,
        "latches + pipeline registers: {rep:?}"
    );
    assert!(rep.fits);
    assert!(rep.fmax_mhz.is_some_and(|f| f > 1.0), "{rep:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
