//! [`super::Layout::Inline`]: every gate is one WGSL `let` of bitwise operations on 32-lane
//! words, state and inputs live in private arrays.

use super::namer::{comment_text, Namer};
use propnet_netlist::{Gate, GateId, Netlist, NetlistInfo};
use std::fmt::Write as _;

/// Identifiers of the shader template that gate names must avoid.
const FIXED: &[&str] = &[
    "prm",
    "jobs",
    "starts",
    "ctr",
    "ctx",
    "iter",
    "c",
    "out",
    "tab",
    "me",
    "st",
    "inp",
    "lg",
    "gl",
    "term_w",
    "go",
    "live",
    "empty",
    "main",
    "finish",
    "decide",
    "load_lane",
    "threefry",
    "mulhi",
    "rotl",
    "st_get",
    "st_put",
    "legal_word",
    "goal_word",
    "set_input",
    "clear_inputs",
];

/// Emits the private state/input/output arrays and the accessors over them.
pub(crate) fn write_accessors(o: &mut String, net: &Netlist) {
    let nleg: usize = net.roles.iter().map(|r| r.legal.len()).sum();
    let ngoal: usize = net.roles.iter().map(|r| r.goals.len()).sum();
    let _ = writeln!(
        o,
        "var<private> st: array<u32, {}>;",
        net.latches.len().max(1)
    );
    // A zero-value constructor, not a loop: no loop back edges (see `LoopBound`).
    let _ = writeln!(
        o,
        "const NUM_INPUT_WORDS: u32 = {}u;\nvar<private> inp: array<u32, NUM_INPUT_WORDS>;",
        net.inputs.len().max(1)
    );
    let _ = writeln!(o, "var<private> lg: array<u32, {}>;", nleg.max(1));
    let _ = writeln!(o, "var<private> gl: array<u32, {}>;\n", ngoal.max(1));
    o.push_str(
        "fn st_get(l: u32) -> u32 {
    return st[l];
}

fn st_put(l: u32, w: u32) {
    st[l] = w;
}

fn legal_word(j: u32) -> u32 {
    return lg[j];
}

fn goal_word(j: u32) -> u32 {
    return gl[j];
}

fn set_input(i: u32, bit: u32) {
    inp[i] = inp[i] | bit;
}

fn clear_inputs() {
    inp = array<u32, NUM_INPUT_WORDS>();
}

",
    );
}

fn expr(g: &Gate, names: &[String]) -> String {
    let join = |ops: &[propnet_netlist::GateId], sep: &str| {
        ops.iter()
            .map(|o| names[o.index()].as_str())
            .collect::<Vec<_>>()
            .join(sep)
    };
    match g {
        Gate::Const(false) => "0u".into(),
        Gate::Const(true) => "0xffffffffu".into(),
        Gate::Input(i) => format!("inp[{}]", i.0),
        Gate::Latch(l) => format!("st[{}]", l.0),
        Gate::Not(a) => format!("~{}", names[a.index()]),
        Gate::And(ops) if ops.is_empty() => "0xffffffffu".into(),
        Gate::Or(ops) if ops.is_empty() => "0u".into(),
        Gate::And(ops) => join(ops, " & "),
        Gate::Or(ops) => join(ops, " | "),
    }
}

/// The per-step code: `(views, next)`. `views` evaluates the gates that do not read inputs
/// and copies legal/goal/terminal words; `next` evaluates the rest and latches the next state
/// for the lanes in `go`.
pub(crate) fn step_code(net: &Netlist, info: &NetlistInfo, comments: bool) -> (String, String) {
    let mut namer = Namer::with_fixed(FIXED);
    let names: Vec<String> = (0..net.gates.len())
        .map(|i| namer.fresh(&format!("g{i}")))
        .collect();
    let mut views = String::new();
    let mut next = String::new();
    for (i, g) in net.gates.iter().enumerate() {
        let (buf, ind) = if info.reads_move(GateId(i as u32)) {
            (&mut next, "            ")
        } else {
            (&mut views, "        ")
        };
        let _ = write!(buf, "{ind}let {} = {};", names[i], expr(g, &names));
        if comments {
            match g {
                Gate::Latch(l) => {
                    let _ = write!(buf, " // {}", comment_text(&net.latches[l.index()].name));
                }
                Gate::Input(x) => {
                    let inp = &net.inputs[x.index()];
                    let role = net
                        .roles
                        .get(inp.role.index())
                        .map_or("?", |r| r.name.as_str());
                    let _ = write!(
                        buf,
                        " // does {} {}",
                        comment_text(role),
                        comment_text(&inp.name)
                    );
                }
                _ => {}
            }
        }
        buf.push('\n');
    }
    let mut j = 0;
    for role in &net.roles {
        for l in &role.legal {
            let _ = writeln!(views, "        lg[{j}] = {};", names[l.gate.index()]);
            j += 1;
        }
    }
    let mut j = 0;
    for role in &net.roles {
        for g in &role.goals {
            let _ = writeln!(views, "        gl[{j}] = {};", names[g.gate.index()]);
            j += 1;
        }
    }
    let _ = writeln!(
        views,
        "        let term_w = {};",
        names[net.terminal.index()]
    );
    for (l, latch) in net.latches.iter().enumerate() {
        let _ = writeln!(
            next,
            "            st[{l}] = ({} & go) | (st[{l}] & ~go);",
            names[latch.next.index()]
        );
    }
    (views, next)
}
