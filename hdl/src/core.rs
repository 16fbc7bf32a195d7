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
use propnet_netlist::{Gate, GateId, Netlist, NetlistInfo, Output};
use std::fmt::Write;

/// The core's live gates: those legal, terminal or a latch's next value depend on (goal
/// gates have their own module).
fn live_in_core(info: &NetlistInfo, g: GateId) -> bool {
    info.needed_by(g, Output::LegalTerminal) || info.needed_by(g, Output::Next)
}

/// The cut of the split core: live gates that depend on no input but feed a move-dependent
/// gate or are a latch's next value, in gate order.
pub(crate) fn cut_gates(net: &Netlist, info: &NetlistInfo) -> Vec<GateId> {
    let mut cut = vec![false; net.gates.len()];
    for (g, gate) in info.ids().zip(&net.gates) {
        if live_in_core(info, g) && info.reads_move(g) {
            for &o in gate.operands() {
                if !info.reads_move(o) {
                    cut[o.index()] = true;
                }
            }
        }
    }
    for l in &net.latches {
        if !info.reads_move(l.next) {
            cut[l.next.index()] = true;
        }
    }
    info.ids().filter(|g| cut[g.index()]).collect()
}

/// Writes the `<prefix>_core` module for `net` (valid, with its analysis `info`, and with
/// at least one latch, input and legal entry).
pub(crate) fn write_core(net: &Netlist, info: &NetlistInfo, module: &str) -> String {
    write_core_impl(net, info, module, false)
}

/// Writes the split `<prefix>_core` module (see the module docs): ports as [`write_core`]
/// plus `cut_out[K-1:0]` / `cut_in[K-1:0]`, `K` = `max(1, cut_gates(net).len())` (bit k =
/// k-th gate of [`cut_gates`]); `nx` depends only on `cut_in` and `mv`.
pub(crate) fn write_core_split(net: &Netlist, info: &NetlistInfo, module: &str) -> String {
    write_core_impl(net, info, module, true)
}

fn write_core_impl(net: &Netlist, info: &NetlistInfo, module: &str, split: bool) -> String {
    let cut = if split {
        cut_gates(net, info)
    } else {
        Vec::new()
    };
    let mut s = String::new();
    write_ports(&mut s, net, info, module, split.then_some(cut.len().max(1)));
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
        if split && info.reads_move(GateId(user as u32)) && in_cut[o.index()] {
            format!("c{}", o.0)
        } else {
            format!("g{}", o.0)
        }
    };
    let (latch_used, input_used) = write_live_gates(&mut s, net, info, &name);
    write_outputs(&mut s, net, info, split);
    let unused: Vec<String> = (0..net.latches.len())
        .filter(|&x| !latch_used[x])
        .map(|x| format!("st[{x}]"))
        .chain(
            (0..net.inputs.len())
                .filter(|&x| !input_used[x])
                .map(|x| format!("mv[{x}]")),
        )
        .collect();
    write_unused(&mut s, &unused);
    s.push_str("endmodule\n`default_nettype wire\n");
    s
}

/// Writes the module header and ports; `cut` is the cut width `K` of the split core.
fn write_ports(
    s: &mut String,
    net: &Netlist,
    info: &NetlistInfo,
    module: &str,
    cut: Option<usize>,
) {
    let (l, i, nl, r) = (
        net.latches.len(),
        net.inputs.len(),
        info.legal_total(),
        net.roles.len(),
    );
    let cut_ports = match cut {
        Some(k) => format!(
            "\n    output wire [{k1}:0] cut_out,\n    input  wire [{k1}:0] cut_in,",
            k1 = k - 1
        ),
        None => String::new(),
    };
    let live = info.ids().filter(|&g| live_in_core(info, g)).count();
    let _ = writeln!(
        s,
        "// Game logic of a propnet: {} gates ({live} live), {l} latches, {i} inputs, {r} roles.\n\
         // Generated by propnet-hdl; do not edit.\n\
         `default_nettype none\n\
         module {module} ({cut_ports}\n    \
         input  wire [{}:0] st,\n    \
         input  wire [{}:0] mv,\n    \
         output wire [{}:0] nx,\n    \
         output wire [{}:0] lg,\n    \
         output wire term\n);",
        net.gates.len(),
        l - 1,
        i - 1,
        l - 1,
        nl - 1,
    );
}

/// Writes one wire per live gate of the core, naming operands with `name(user, operand)`;
/// returns which latches and inputs the gates read.
fn write_live_gates(
    s: &mut String,
    net: &Netlist,
    info: &NetlistInfo,
    name: &dyn Fn(usize, &GateId) -> String,
) -> (Vec<bool>, Vec<bool>) {
    let mut latch_used = vec![false; net.latches.len()];
    let mut input_used = vec![false; net.inputs.len()];
    for (g, gate) in info.ids().zip(&net.gates) {
        if !live_in_core(info, g) {
            continue;
        }
        let id = g.index();
        if let Gate::Input(x) = gate {
            input_used[x.index()] = true;
            let inp = &net.inputs[x.index()];
            let role = net
                .roles
                .get(inp.role.index())
                .map_or("?", |r| r.name.as_str());
            let _ = writeln!(
                s,
                "wire g{id} = mv[{}]; // does {}",
                x.0,
                comment(&format!("{role} {}", inp.name))
            );
        } else {
            write_state_gate(s, net, id, &|o| name(id, o), &mut latch_used);
        }
    }
    (latch_used, input_used)
}

/// Writes the `nx`, `lg` and `term` assignments; in the split core a state-only next value
/// comes from the cut.
fn write_outputs(s: &mut String, net: &Netlist, info: &NetlistInfo, split: bool) {
    for (x, latch) in net.latches.iter().enumerate() {
        let _ = writeln!(
            s,
            "assign nx[{x}] = {}; // next {}",
            if split && !info.reads_move(latch.next) {
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
    let join = |ops: &[GateId], op: &str| {
        crate::names::join_wrapped(&ops.iter().map(operand).collect::<Vec<_>>(), op)
    };
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
pub(crate) fn live_logic_gates(net: &Netlist, info: &NetlistInfo) -> usize {
    info.ids()
        .zip(&net.gates)
        .filter(|&(g, gate)| {
            info.live(g) && matches!(gate, Gate::And(_) | Gate::Or(_) | Gate::Not(_))
        })
        .count()
}
