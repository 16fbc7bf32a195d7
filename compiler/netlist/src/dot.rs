//! Graphviz DOT picture of a netlist (`--emit dot`): constants as plain text, latches as
//! boxes, inputs as house shapes, `and`/`or`/`not` as ellipses/triangles, and every output
//! (legal, goal, terminal) as a labelled note; latch `next` edges are dashed.

use super::ir::{Gate, Netlist};
use std::fmt::Write;

/// The netlist as a DOT digraph (edges run from operand to user).
pub fn to_dot(net: &Netlist) -> String {
    let mut s =
        String::from("digraph netlist {\n  rankdir=LR;\n  node [fontname=\"monospace\"];\n");
    for (i, g) in net.gates.iter().enumerate() {
        let (label, shape) = match g {
            Gate::Const(v) => ((*v as u8).to_string(), "plaintext"),
            Gate::Input(x) => {
                let input = &net.inputs[x.index()];
                let role = &net.roles[input.role.index()].name;
                (format!("{x} does {role} {}", input.name), "house")
            }
            Gate::Latch(l) => (format!("{l} {}", net.latches[l.index()].name), "box"),
            Gate::Not(_) => ("not".to_string(), "invtriangle"),
            Gate::And(_) => ("and".to_string(), "ellipse"),
            Gate::Or(_) => ("or".to_string(), "diamond"),
        };
        let _ = writeln!(
            s,
            "  g{i} [label=\"g{i} {}\" shape={shape}];",
            escape(&label)
        );
        for o in g.operands() {
            let _ = writeln!(s, "  {o} -> g{i};");
        }
    }
    let mut reader = vec![None; net.latches.len()];
    for (i, g) in net.gates.iter().enumerate() {
        if let Gate::Latch(l) = g {
            reader[l.index()] = Some(i);
        }
    }
    for (l, r) in net.latches.iter().zip(reader) {
        if let Some(i) = r {
            let _ = writeln!(
                s,
                "  {} -> g{i} [style=dashed constraint=false label=\"next\"];",
                l.next
            );
        }
    }
    let mut out = 0;
    let mut output = |s: &mut String, label: String, gate: super::ir::GateId| {
        let _ = writeln!(
            s,
            "  o{out} [label=\"{}\" shape=note];\n  {gate} -> o{out};",
            escape(&label)
        );
        out += 1;
    };
    for role in &net.roles {
        for l in &role.legal {
            output(
                &mut s,
                format!("legal {} {}", role.name, net.inputs[l.input.index()].name),
                l.gate,
            );
        }
        for g in &role.goals {
            output(&mut s, format!("goal {} {}", role.name, g.value), g.gate);
        }
    }
    output(&mut s, "terminal".into(), net.terminal);
    s.push_str("}\n");
    s
}

fn escape(label: &str) -> String {
    label.replace('\\', "\\\\").replace('"', "\\\"")
}
