//! Writes the combinational game logic of a netlist as one Verilog module (`<prefix>_core`).
//!
//! Ports: `st[L-1:0]` (latch values, bit l = latch l), `mv[I-1:0]` (chosen inputs, bit i =
//! input i), `nx[L-1:0]` (next latch values), `lg[NL-1:0]` (legal bits of every role's legal
//! list, role by role, in netlist choice order), `term`. Only gates that reach an output are
//! written; GDL names appear in comments only. The goal logic is not here: it runs off the
//! step loop in its own pipelined module ([`crate::goal`]).
//!
//! Split form (for the C-slow engine, [`write_core_split`]): the gates that depend on no
//! input (`does`) are computed from `st` alone; those of them that a move-dependent gate or
//! a latch's next value needs leave on `cut_out[K-1:0]`, and the move-dependent part
//! computes `nx` from `cut_in` (the engine's registered copy of `cut_out`) and `mv`, so a
//! register level can sit between legal/terminal and the next-state logic.

use crate::names::comment;
use propnet_netlist::{Gate, GateId, Netlist};
use std::fmt::Write;

/// Sizes of the core ports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreShape {
    /// Latches (`L`).
    pub latches: usize,
    /// Inputs (`I`).
    pub inputs: usize,
    /// Legal entries per role, in role order (`NL` is their sum).
    pub legal_per_role: Vec<usize>,
}

impl CoreShape {
    /// Shape of `net`'s core.
    pub fn of(net: &Netlist) -> Self {
        Self {
            latches: net.latches.len(),
            inputs: net.inputs.len(),
            legal_per_role: net.roles.iter().map(|r| r.legal.len()).collect(),
        }
    }
    /// Total legal entries (`NL`).
    pub fn legal_total(&self) -> usize {
        self.legal_per_role.iter().sum()
    }
}

/// Marks every gate the core's outputs (next state, legal, terminal; with `goals` also the
/// goal gates) depend on.
fn live_gates(net: &Netlist, goals: bool) -> Vec<bool> {
    let mut live = vec![false; net.gates.len()];
    let mut mark = |g: GateId| live[g.index()] = true;
    net.latches.iter().for_each(|l| mark(l.next));
    mark(net.terminal);
    for r in &net.roles {
        r.legal.iter().for_each(|l| mark(l.gate));
        if goals {
            r.goals.iter().for_each(|g| mark(g.gate));
        }
    }
    for i in (0..net.gates.len()).rev() {
        if live[i] {
            for o in net.gates[i].operands() {
                live[o.index()] = true;
            }
        }
    }
    live
}

/// Marks every gate that depends (transitively) on an input gate.
fn move_dependent(net: &Netlist) -> Vec<bool> {
    let mut dep = vec![false; net.gates.len()];
    for (i, g) in net.gates.iter().enumerate() {
        dep[i] = matches!(g, Gate::Input(_)) || g.operands().iter().any(|o| dep[o.index()]);
    }
    dep
}

/// The cut of the split core: live gates that depend on no input but feed a move-dependent
/// gate or are a latch's next value, in gate order.
pub fn cut_gates(net: &Netlist) -> Vec<GateId> {
    let live = live_gates(net, false);
    let dep = move_dependent(net);
    let mut cut = vec![false; net.gates.len()];
    for (i, g) in net.gates.iter().enumerate() {
        if live[i] && dep[i] {
            for o in g.operands() {
                if !dep[o.index()] {
                    cut[o.index()] = true;
                }
            }
        }
    }
    for l in &net.latches {
        if !dep[l.next.index()] {
            cut[l.next.index()] = true;
        }
    }
    (0..net.gates.len())
        .filter(|&i| cut[i])
        .map(|i| GateId(i as u32))
        .collect()
}

/// Writes the `<prefix>_core` module for `net` (which must be valid, see
/// `propnet_netlist::validate`, and have at least one latch, input and legal entry).
pub fn write_core(net: &Netlist, module: &str) -> String {
    write_core_impl(net, module, false)
}

/// Writes the split `<prefix>_core` module (see the module docs): ports as [`write_core`]
/// plus `cut_out[K-1:0]` / `cut_in[K-1:0]`, `K` = `max(1, cut_gates(net).len())` (bit k =
/// k-th gate of [`cut_gates`]); `nx` depends only on `cut_in` and `mv`.
pub fn write_core_split(net: &Netlist, module: &str) -> String {
    write_core_impl(net, module, true)
}

fn write_core_impl(net: &Netlist, module: &str, split: bool) -> String {
    let shape = CoreShape::of(net);
    let (l, i, nl, r) = (
        shape.latches,
        shape.inputs,
        shape.legal_total(),
        net.roles.len(),
    );
    let live = live_gates(net, false);
    let dep = move_dependent(net);
    let cut = if split { cut_gates(net) } else { Vec::new() };
    let k_cut = cut.len().max(1);
    let mut s = String::new();
    let cut_ports = if split {
        format!(
            "\n    output wire [{k1}:0] cut_out,\n    input  wire [{k1}:0] cut_in,",
            k1 = k_cut - 1
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "// Game logic of a propnet: {} gates ({} live), {l} latches, {i} inputs, {r} roles.\n\
         // Generated by propnet-hdl; do not edit.\n\
         `default_nettype none\n\
         module {module} ({cut_ports}\n    \
         input  wire [{}:0] st,\n    \
         input  wire [{}:0] mv,\n    \
         output wire [{}:0] nx,\n    \
         output wire [{}:0] lg,\n    \
         output wire term\n);",
        net.gates.len(),
        live.iter().filter(|&&b| b).count(),
        l - 1,
        i - 1,
        l - 1,
        nl - 1,
    );
    let mut latch_used = vec![false; l];
    let mut input_used = vec![false; i];
    // In split mode a move-dependent gate reads its state-only operands from the cut.
    let mut in_cut = vec![false; net.gates.len()];
    for (k, g) in cut.iter().enumerate() {
        in_cut[g.index()] = true;
        let _ = writeln!(
            s,
            "wire c{} = cut_in[{k}];\nassign cut_out[{k}] = g{};",
            g.0, g.0
        );
    }
    if split && cut.is_empty() {
        let _ = writeln!(
            s,
            "assign cut_out[0] = 1'b0;\nwire _unused_cut = cut_in[0];"
        );
    }
    let name = |user: usize, o: &GateId| {
        if split && dep[user] && in_cut[o.index()] {
            format!("c{}", o.0)
        } else {
            format!("g{}", o.0)
        }
    };
    for (id, gate) in net.gates.iter().enumerate() {
        if !live[id] {
            continue;
        }
        let _ = match gate {
            Gate::Input(x) => {
                input_used[x.index()] = true;
                let inp = &net.inputs[x.index()];
                let role = net
                    .roles
                    .get(inp.role.index())
                    .map_or("?", |r| r.name.as_str());
                writeln!(
                    s,
                    "wire g{id} = mv[{}]; // does {}",
                    x.0,
                    comment(&format!("{role} {}", inp.name))
                )
            }
            _ => {
                write_state_gate(&mut s, net, id, &|o| name(id, o), &mut latch_used);
                Ok(())
            }
        };
    }
    for (x, latch) in net.latches.iter().enumerate() {
        let _ = writeln!(
            s,
            "assign nx[{x}] = {}; // next {}",
            if split && !dep[latch.next.index()] {
                format!("c{}", latch.next.0)
            } else {
                format!("g{}", latch.next.0)
            },
            comment(&latch.name)
        );
    }
    let mut k = 0;
    for role in &net.roles {
        for legal in &role.legal {
            let name = &net.inputs[legal.input.index()].name;
            let _ = writeln!(
                s,
                "assign lg[{k}] = g{}; // legal {} {}",
                legal.gate.0,
                comment(&role.name),
                comment(name)
            );
            k += 1;
        }
    }
    let _ = writeln!(s, "assign term = g{};", net.terminal.0);
    let unused: Vec<String> = (0..l)
        .filter(|&x| !latch_used[x])
        .map(|x| format!("st[{x}]"))
        .chain(
            (0..i)
                .filter(|&x| !input_used[x])
                .map(|x| format!("mv[{x}]")),
        )
        .collect();
    write_unused(&mut s, &unused);
    s.push_str("endmodule\n`default_nettype wire\n");
    s
}

/// Writes `wire g<id> = …;` for gate `id` of `net` when it is a constant, a latch (read from
/// port `st`; marked in `latch_used`) or a logic gate, naming operands with `operand`.
/// Returns false, writing nothing, for an input gate (each module reads inputs its own way).
pub(crate) fn write_state_gate(
    s: &mut String,
    net: &Netlist,
    id: usize,
    operand: &dyn Fn(&GateId) -> String,
    latch_used: &mut [bool],
) -> bool {
    let join = |ops: &[GateId], op: &str| ops.iter().map(operand).collect::<Vec<_>>().join(op);
    let _ = match &net.gates[id] {
        Gate::Input(_) => return false,
        Gate::Const(c) => writeln!(s, "wire g{id} = 1'b{};", u8::from(*c)),
        Gate::Latch(x) => {
            latch_used[x.index()] = true;
            writeln!(
                s,
                "wire g{id} = st[{}]; // {}",
                x.0,
                comment(&net.latches[x.index()].name)
            )
        }
        Gate::Not(a) => writeln!(s, "wire g{id} = ~{};", operand(a)),
        Gate::And(ops) if ops.is_empty() => writeln!(s, "wire g{id} = 1'b1;"),
        Gate::Or(ops) if ops.is_empty() => writeln!(s, "wire g{id} = 1'b0;"),
        Gate::And(ops) => writeln!(s, "wire g{id} = {};", join(ops, " & ")),
        Gate::Or(ops) => writeln!(s, "wire g{id} = {};", join(ops, " | ")),
    };
    true
}

/// Writes a `_unused_ok` wire over the `ports` bits no output reads (so `verilator -Wall`
/// stays clean); nothing when there are none.
pub(crate) fn write_unused(s: &mut String, ports: &[String]) {
    if !ports.is_empty() {
        let _ = writeln!(
            s,
            "// Ports no output depends on.\nwire _unused_ok = &{{1'b0, {}}};",
            ports.join(", ")
        );
    }
}

/// Number of live `And`/`Or`/`Not` gates (those [`write_core`] and the goal module write as
/// logic; a gate both use counts once).
pub fn live_logic_gates(net: &Netlist) -> usize {
    live_gates(net, true)
        .iter()
        .zip(&net.gates)
        .filter(|(&l, g)| l && matches!(g, Gate::And(_) | Gate::Or(_) | Gate::Not(_)))
        .count()
}
