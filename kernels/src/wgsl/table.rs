//! [`super::Layout::Table`]: gates as a levelized opcode stream in the `tab` storage buffer,
//! interpreted by a loop; gate values, state and inputs live in the `vals` storage buffer
//! (slot `x` of invocation `me` at `x * ninv + me`, so neighbouring invocations touch
//! neighbouring words).
//!
//! Opcode stream: per gate `[op | n << 3, dst, arg0 … arg(n-1)]` with `op` 0 const false,
//! 1 const true, 2 input (arg = input index), 3 latch (arg = latch index), 4 not, 5 and,
//! 6 or. View gates (not reading inputs) come first, in arena order (a topological order),
//! then the gates evaluated after the move choice.

use super::{Analysis, Tables};
use propnet_compiler::netlist::{Gate, Netlist};
use std::fmt::Write as _;

fn encode(gate: &Gate, dst: u32, w: &mut Vec<u32>) {
    let (op, args): (u32, Vec<u32>) = match gate {
        Gate::Const(false) => (0, vec![]),
        Gate::Const(true) => (1, vec![]),
        Gate::Input(i) => (2, vec![i.0]),
        Gate::Latch(l) => (3, vec![l.0]),
        Gate::Not(a) => (4, vec![a.0]),
        Gate::And(ops) => (5, ops.iter().map(|o| o.0).collect()),
        Gate::Or(ops) => (6, ops.iter().map(|o| o.0).collect()),
    };
    w.push(op | ((args.len() as u32) << 3));
    w.push(dst);
    w.extend(args);
}

/// Appends the opcode program to the tables and records its bounds.
pub(crate) fn append_program(net: &Netlist, an: &Analysis, t: &mut Tables) {
    t.prog = t.words.len();
    for phase in [false, true] {
        if phase {
            t.prog_next = t.words.len();
        }
        for (i, g) in net.gates.iter().enumerate() {
            if an.after_move[i] == phase {
                encode(g, i as u32, &mut t.words);
            }
        }
    }
    t.prog_end = t.words.len();
}

/// Emits the `vals` binding, slot addressing, the accessors and the interpreter `run_prog`.
pub(crate) fn write_accessors(o: &mut String, net: &Netlist, _t: &Tables) {
    let _ = writeln!(
        o,
        "@group(0) @binding(6) var<storage, read_write> vals: array<u32>;\n"
    );
    let _ = writeln!(o, "const S_STATE: u32 = {}u;", net.gates.len());
    let _ = writeln!(
        o,
        "const S_INPUT: u32 = {}u;\n",
        net.gates.len() + net.latches.len()
    );
    o.push_str(
        "fn slot(x: u32) -> u32 {
    return x * prm.ninv + me;
}

fn st_get(l: u32) -> u32 {
    return vals[slot(S_STATE + l)];
}

fn st_put(l: u32, w: u32) {
    vals[slot(S_STATE + l)] = w;
}

fn legal_word(j: u32) -> u32 {
    return vals[slot(tab[T_LEGAL_GATE + j])];
}

fn goal_word(j: u32) -> u32 {
    return vals[slot(tab[T_GOAL_GATE + j])];
}

fn set_input(i: u32, bit: u32) {
    let s = slot(S_INPUT + i);
    vals[s] = vals[s] | bit;
}

fn clear_inputs() {
    var i = 0u;
    for (i = 0u; i < NUM_INPUTS; i = i + 1u) {
        vals[slot(S_INPUT + i)] = 0u;
    }
}

// Interprets the opcode stream tab[start..end).
fn run_prog(start: u32, end: u32) {
    var pc = start;
    var v = 0u;
    var i = 0u;
    while (pc < end) {
        let h = tab[pc];
        let n = h >> 3u;
        let a = pc + 2u;
        v = 0u;
        switch (h & 7u) {
            case 1u: {
                v = 0xffffffffu;
            }
            case 2u: {
                v = vals[slot(S_INPUT + tab[a])];
            }
            case 3u: {
                v = vals[slot(S_STATE + tab[a])];
            }
            case 4u: {
                v = ~vals[slot(tab[a])];
            }
            case 5u: {
                v = 0xffffffffu;
                for (i = 0u; i < n; i = i + 1u) {
                    v = v & vals[slot(tab[a + i])];
                }
            }
            case 6u: {
                for (i = 0u; i < n; i = i + 1u) {
                    v = v | vals[slot(tab[a + i])];
                }
            }
            default: {
                v = 0u;
            }
        }
        vals[slot(tab[pc + 1u])] = v;
        pc = a + n;
    }
}

",
    );
}

/// The per-step code `(views, next)` of the interpreted layout.
pub(crate) fn step_code(net: &Netlist) -> (String, String) {
    let _ = net;
    let views =
        "        run_prog(T_PROG, T_PROG_NEXT);\n        let term_w = vals[slot(TERMINAL)];\n"
            .to_string();
    let next = "            run_prog(T_PROG_NEXT, T_PROG_END);
            for (l = 0u; l < NUM_LATCHES; l = l + 1u) {
                st_put(l, (vals[slot(tab[T_LATCH_NEXT + l])] & go) | (st_get(l) & ~go));
            }
"
    .to_string();
    (views, next)
}
