//! The step kernel: one transition per invocation, for callers that ask for more than
//! playouts (percepts for traces and belief tracking). Input per pair: a state and a joint
//! move; output: the next state and every role's percepts (GDL-II), bit for bit what
//! [`propnet_netlist::scalar::ScalarNet::next_with_percepts`] computes.
//!
//! Bindings of group 0: 0 uniform `StepParams` (`n`: pairs in the dispatch), 1 storage
//! read `src` ([`StepKernel::src_words`] per pair: state words, 32 latches per word, then
//! input words, 32 inputs per word, bit `i % 32` of word `i / 32` set for each input of the
//! joint move), 2 storage read_write `dst` ([`StepKernel::dst_words`] per pair: next-state
//! words, then percept words: every role's percepts concatenated in role order, each role's
//! in its `percepts` order, 32 per word).
//!
//! Every gate is one WGSL `let` on a `u32` that is all zeros or all ones (one pair per
//! invocation, not bit-sliced: a transition is read and written once, so the transposition
//! a bit-sliced form needs would cost as much as the gates of small games); the shader's
//! size grows with the netlist, so callers use [`super::step_table`] above a gate limit.

use propnet_netlist::{Gate, Netlist};
use std::fmt::Write as _;

/// Invocations per workgroup of the step kernel.
pub const STEP_WORKGROUP: u32 = 64;

/// The record shapes of a netlist's transitions, the same for both forms of the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepShape {
    /// Words per pair in `src`: state words then input words.
    pub src_words: u32,
    /// Words per pair in `dst`: next-state words then percept words.
    pub dst_words: u32,
    /// State words per pair (`ceil(latches / 32)`).
    pub state_words: u32,
    /// Percepts of all roles together.
    pub percepts: u32,
}

impl StepShape {
    /// The shapes of `net`'s records.
    pub fn of(net: &Netlist) -> Self {
        let state_words = net.latches.len().div_ceil(32) as u32;
        let input_words = net.inputs.len().div_ceil(32) as u32;
        let percepts: usize = net.roles.iter().map(|r| r.percepts.len()).sum();
        StepShape {
            src_words: (state_words + input_words).max(1),
            dst_words: (state_words + percepts.div_ceil(32) as u32).max(1),
            state_words,
            percepts: percepts as u32,
        }
    }
}

/// A generated step kernel and its record shapes.
#[derive(Clone, Debug)]
pub struct StepKernel {
    /// WGSL source; entry point `main`.
    pub wgsl: String,
    /// Record shapes.
    pub shape: StepShape,
}

/// Generates the step kernel of `net` (valid), one `let` per gate.
pub fn step_kernel(net: &Netlist) -> StepKernel {
    let shape = StepShape::of(net);
    let state_words = shape.state_words;
    let mut o = String::new();
    let _ = write!(
        o,
        "// propnet step kernel: {} gates, {} latches, {} inputs, {} percepts
struct StepParams {{
    n: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}}

@group(0) @binding(0) var<uniform> prm: StepParams;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

// All ones when bit i of w is set, else zero.
fn bit(w: u32, i: u32) -> u32 {{
    return 0u - ((w >> i) & 1u);
}}

@compute @workgroup_size({STEP_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let me = gid.x;
    if (me >= prm.n) {{
        return;
    }}
    let s = me * {}u;
    _ = src[s]; // bound even when no gate reads the state or the move
    let d = me * {}u;
",
        net.gates.len(),
        net.latches.len(),
        net.inputs.len(),
        shape.percepts,
        shape.src_words,
        shape.dst_words,
    );
    for (i, g) in net.gates.iter().enumerate() {
        let _ = writeln!(o, "    let g{i} = {};", expr(g, state_words));
    }
    let outputs = net.latches.iter().map(|l| l.next).chain(
        net.roles
            .iter()
            .flat_map(|r| r.percepts.iter().map(|p| p.gate)),
    );
    let outputs: Vec<_> = outputs.collect();
    let next_words = state_words as usize;
    for (w, chunk) in outputs[..net.latches.len()].chunks(32).enumerate() {
        write_word(&mut o, w, chunk);
    }
    for (w, chunk) in outputs[net.latches.len()..].chunks(32).enumerate() {
        write_word(&mut o, next_words + w, chunk);
    }
    o.push_str("}\n");
    StepKernel { wgsl: o, shape }
}

/// `dst[d + w] = …`: bit `k` is gate `gates[k]`.
fn write_word(o: &mut String, w: usize, gates: &[propnet_netlist::GateId]) {
    let bits: Vec<String> = (gates.iter().enumerate())
        .map(|(k, g)| format!("((g{} & 1u) << {k}u)", g.index()))
        .collect();
    let _ = writeln!(o, "    dst[d + {w}u] = {};", bits.join(" | "));
}

/// The WGSL of one gate (its operands are `g<index>`).
fn expr(g: &Gate, state_words: u32) -> String {
    let join = |ops: &[propnet_netlist::GateId], sep: &str| {
        (ops.iter().map(|o| format!("g{}", o.index())))
            .collect::<Vec<_>>()
            .join(sep)
    };
    match g {
        Gate::Const(false) => "0u".into(),
        Gate::Const(true) => "0xffffffffu".into(),
        Gate::Input(i) => format!("bit(src[s + {}u], {}u)", state_words + i.0 / 32, i.0 % 32),
        Gate::Latch(l) => format!("bit(src[s + {}u], {}u)", l.0 / 32, l.0 % 32),
        Gate::Not(a) => format!("~g{}", a.index()),
        Gate::And(ops) if ops.is_empty() => "0xffffffffu".into(),
        Gate::Or(ops) if ops.is_empty() => "0u".into(),
        Gate::And(ops) => join(ops, " & "),
        Gate::Or(ops) => join(ops, " | "),
    }
}
