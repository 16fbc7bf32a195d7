//! Every generated shader must parse and validate with naga (the WGSL front end wgpu uses),
//! on hand-built and random netlists, in both layouts and several lane counts.

mod common;

use propnet_kernels::wgsl::{Error, Kernel, Layout, Options};
use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_netlist::{validate, Netlist};

/// The shader of a netlist that must be valid.
fn compile(net: &Netlist, opts: &Options) -> Result<Kernel, Error> {
    propnet_kernels::wgsl::compile(net, &validate(net).expect("valid netlist"), opts)
}

fn validate_wgsl(what: &str, src: &str) {
    let module = naga::front::wgsl::parse_str(src)
        .unwrap_or_else(|e| panic!("{what}: parse error:\n{}", e.emit_to_string(src)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{what}: validation error:\n{}", e.emit_to_string(src)));
}

fn all_layouts(what: &str, net: &Netlist) {
    for layout in [Layout::Inline, Layout::Table] {
        for lanes in [32, 1, 7] {
            let k = compile(
                net,
                &Options {
                    layout,
                    lanes,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(k.layout, layout);
            validate_wgsl(&format!("{what} {layout:?} lanes {lanes}"), &k.wgsl);
        }
    }
}

#[test]
fn hand_built_shaders_validate() {
    all_layouts("counter", &common::counter());
    all_layouts("stuck", &common::stuck());
}

#[test]
fn random_netlist_shaders_validate() {
    for seed in 0..12u64 {
        let spec = RandomSpec {
            roles: 1 + seed as usize % 4,
            moves_per_role: 1 + seed as usize % 6,
            latches: 1 + seed as usize * 5,
            ..Default::default()
        };
        all_layouts(&format!("random seed {seed}"), &random_netlist(seed, &spec));
    }
}

#[test]
fn netlist_without_moves_goals_or_latches_validates() {
    // The smallest netlist validation accepts: one role with no legal move or goal, no
    // latch, terminal at once (a netlist without roles is rejected before any writer).
    let mut n = Netlist::default();
    n.terminal = n.push(propnet_netlist::Gate::Const(true));
    n.roles.push(propnet_netlist::Role {
        percepts: Vec::new(),
        name: "r".into(),
        legal: Vec::new(),
        goals: Vec::new(),
    });
    all_layouts("empty", &n);
}

#[test]
fn auto_layout_switches_to_table_above_the_limit() {
    let net = random_netlist(3, &RandomSpec::default());
    let small = compile(
        &net,
        &Options {
            inline_gate_limit: net.gates.len(),
            ..Default::default()
        },
    )
    .unwrap();
    let big = compile(
        &net,
        &Options {
            inline_gate_limit: net.gates.len() - 1,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!((small.layout, big.layout), (Layout::Inline, Layout::Table));
    assert!(big.slots as usize >= net.gates.len() + net.latches.len());
    // a word per latch, input, legal and goal entry in private arrays: the second limit
    let words = net.latches.len()
        + net.inputs.len()
        + (net.roles.iter())
            .map(|r| r.legal.len() + r.goals.len())
            .sum::<usize>();
    let layout = |limit| {
        let opts = Options {
            inline_private_limit: limit,
            ..Default::default()
        };
        compile(&net, &opts).unwrap().layout
    };
    assert_eq!(
        (layout(words), layout(words - 1)),
        (Layout::Inline, Layout::Table)
    );
}

/// Both forms of the step kernel validate, with and without percepts, without a GPU.
#[test]
fn step_kernels_validate() {
    for seed in 0..4u64 {
        let spec = RandomSpec {
            roles: 1 + seed as usize % 3,
            percepts_per_role: 3 * (seed as usize % 2),
            ..RandomSpec::default()
        };
        let net = random_netlist(seed, &spec);
        let info = validate(&net).expect("random netlists are valid");
        let inline = propnet_kernels::wgsl::step::step_kernel(&net);
        validate_wgsl(&format!("step kernel, seed {seed}"), &inline.wgsl);
        let table = propnet_kernels::wgsl::step_table::step_table(&net, &info);
        validate_wgsl(
            &format!("interpreted step kernel, seed {seed}"),
            &table.wgsl,
        );
    }
}

/// On a CPU adapter (llvmpipe) straight-line code stops at 1,000 gates; elsewhere the
/// options are kept, and so is an explicit layout.
#[test]
fn cpu_adapters_take_the_table_layout_sooner() {
    use propnet_kernels::runner::{for_adapter, CPU_ADAPTER_INLINE_GATES};
    let opts = Options::default();
    let cpu = for_adapter(&opts, wgpu::DeviceType::Cpu);
    assert_eq!(cpu.inline_gate_limit, CPU_ADAPTER_INLINE_GATES);
    assert_eq!(for_adapter(&opts, wgpu::DeviceType::DiscreteGpu), opts);
    let low = Options {
        inline_gate_limit: 10,
        layout: Layout::Inline,
        ..Default::default()
    };
    assert_eq!(for_adapter(&low, wgpu::DeviceType::Cpu), low);
}

#[test]
fn bad_options_are_errors() {
    let net = common::counter();
    assert!(compile(
        &net,
        &Options {
            lanes: 0,
            ..Default::default()
        }
    )
    .is_err());
    assert!(compile(
        &net,
        &Options {
            lanes: 33,
            ..Default::default()
        }
    )
    .is_err());
    assert!(compile(
        &net,
        &Options {
            workgroup_size: 0,
            ..Default::default()
        }
    )
    .is_err());
    let mut bad = net.clone();
    bad.terminal = propnet_netlist::GateId(10_000);
    assert!(
        validate(&bad).is_err(),
        "invalid netlists never reach the writer"
    );
}
