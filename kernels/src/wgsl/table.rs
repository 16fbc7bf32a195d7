//! [`super::Layout::Table`]: gates as a levelized stream of fixed-size records in the `tab`
//! storage buffer, interpreted by a loop without inner loops or branches; gate values, state
//! and inputs live in the `vals` storage buffer (slot `x` of invocation `me` at
//! `x * ninv + me`, so neighbouring invocations touch neighbouring words).
//!
//! Record: `[flags, dst, a0, a1, a2, a3]` (6 words) computes
//! `v = a0 & a1 & a2 & a3` (flag bit 0 clear) or `a0 | a1 | a2 | a3` (bit 0 set), inverted
//! when flag bit 1 is set, into slot `dst`; operands are slots, unused ones point at the
//! constant slot `S_ONES` (and) or `S_ZEROS` (or). Constants, inputs, latches and `not` are
//! one-operand cases. Gates with more than 4 operands are split into a tree whose inner nodes
//! get temporary slots after the constants. View gates (not reading inputs) come first, in
//! arena order (a topological order), then the gates evaluated after the move choice.

use super::common::{unrolled, unrolled_cost, UNROLL_WIDE};
use super::Tables;
use propnet_netlist::{Gate, Netlist, NetlistInfo};
use std::fmt::Write as _;

/// Words per gate record.
pub(crate) const RECORD: usize = 6;
/// Operands per record.
const FANIN: usize = 4;
/// Records per interpreter loop iteration.
pub(crate) const UNROLL_GATES: u32 = 16;

/// Slot layout of one invocation: gates (slot = gate index), latches, inputs, the two
/// constants, temporaries.
pub(crate) struct Slots {
    /// Slot of latch 0.
    pub state: usize,
    /// Slot of input 0.
    pub input: usize,
    /// The all-ones constant.
    pub ones: usize,
    /// The all-zeros constant.
    pub zeros: usize,
}

/// The slot layout of `net`'s interpreted form.
pub(crate) fn slots(net: &Netlist) -> Slots {
    let state = net.gates.len();
    let input = state + net.latches.len();
    let ones = input + net.inputs.len();
    Slots {
        state,
        input,
        ones,
        zeros: ones + 1,
    }
}

/// Appends one record (operands already at most [`FANIN`]).
fn record(w: &mut Vec<u32>, s: &Slots, or: bool, invert: bool, args: &[u32], dst: u32) {
    w.push(u32::from(or) | (u32::from(invert) << 1));
    w.push(dst);
    let pad = if or { s.zeros } else { s.ones } as u32;
    w.extend((0..FANIN).map(|k| args.get(k).copied().unwrap_or(pad)));
}

/// Appends the records of one gate, splitting wide ones into temporaries taken from `next`.
fn encode(gate: &Gate, dst: u32, s: &Slots, next: &mut usize, w: &mut Vec<u32>) {
    let (or, invert, mut args): (bool, bool, Vec<u32>) = match gate {
        Gate::Const(false) => (true, false, vec![]),
        Gate::Const(true) => (false, false, vec![]),
        Gate::Input(i) => (false, false, vec![(s.input + i.index()) as u32]),
        Gate::Latch(l) => (false, false, vec![(s.state + l.index()) as u32]),
        Gate::Not(a) => (false, true, vec![a.0]),
        Gate::And(ops) => (false, false, ops.iter().map(|o| o.0).collect()),
        Gate::Or(ops) => (true, false, ops.iter().map(|o| o.0).collect()),
    };
    while args.len() > FANIN {
        args = args
            .chunks(FANIN)
            .map(|c| {
                if c.len() == 1 {
                    return c[0];
                }
                let t = *next as u32;
                *next += 1;
                record(w, s, or, false, c, t);
                t
            })
            .collect();
    }
    record(w, s, or, invert, &args, dst);
}

/// Appends the gate records to the tables and records their bounds: `prog` is the word
/// offset of the first record, `prog_next` and `prog_end` are record indices (end of the
/// view gates, end of all); `slots` counts the slots including temporaries.
pub(crate) fn append_program(net: &Netlist, info: &NetlistInfo, t: &mut Tables) {
    let s = slots(net);
    let mut next = s.zeros + 1;
    t.prog = t.words.len();
    for phase in [false, true] {
        if phase {
            t.prog_next = (t.words.len() - t.prog) / RECORD;
        }
        for (g, gate) in info.ids().zip(&net.gates) {
            if info.reads_move(g) == phase {
                encode(gate, g.0, &s, &mut next, &mut t.words);
            }
        }
    }
    t.prog_end = (t.words.len() - t.prog) / RECORD;
    t.slots = next;
}

/// Emits the `vals` binding, slot addressing, the accessors and the interpreter `run_prog`.
pub(crate) fn write_accessors(o: &mut String, net: &Netlist, _t: &Tables) {
    let s = slots(net);
    let _ = writeln!(
        o,
        "@group(0) @binding(6) var<storage, read_write> vals: array<u32>;\n"
    );
    let _ = writeln!(o, "const S_STATE: u32 = {}u;", s.state);
    let _ = writeln!(o, "const S_INPUT: u32 = {}u;", s.input);
    let _ = writeln!(o, "const S_ONES: u32 = {}u;", s.ones);
    let _ = writeln!(o, "const S_ZEROS: u32 = {}u;\n", s.zeros);
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
",
    );
    unrolled(o, "    ", "i", "0u", "NUM_INPUTS", UNROLL_WIDE, &|x| {
        format!("vals[slot(S_INPUT + {x})] = 0u;")
    });
    o.push_str("}\n\n");
    write_interpreter(o);
}

/// Emits the gate interpreter: `gate(p)` evaluates the gate record at word `p` of `tab`
/// (an AND or OR of four slots, optionally inverted) and `run_prog(start, end)` runs the
/// records `start..end`. Needs `slot(x)`, `tab`, `vals` and `T_PROG` in scope.
pub(crate) fn write_interpreter(o: &mut String) {
    o.push_str(
        "// Evaluates the gate record at word p of tab.
fn gate(p: u32) {
    let a0 = vals[slot(tab[p + 2u])];
    let a1 = vals[slot(tab[p + 3u])];
    let a2 = vals[slot(tab[p + 4u])];
    let a3 = vals[slot(tab[p + 5u])];
    let h = tab[p];
    let v = select(a0 & a1 & a2 & a3, a0 | a1 | a2 | a3, (h & 1u) != 0u);
    vals[slot(tab[p + 1u])] = v ^ (0u - ((h >> 1u) & 1u));
}

// Interprets gate records start..end (record indices).
fn run_prog(start: u32, end: u32) {
    var i = 0u;
",
    );
    unrolled(o, "    ", "i", "start", "end", UNROLL_GATES, &|x| {
        format!("gate(T_PROG + {RECORD}u * {x});")
    });
    o.push_str("}\n\n");
}

/// The per-dispatch prologue (constant slots) and the per-step loop back edges of this
/// layout (interpreter, input clearing, latching; see [`super::LoopBound`]).
pub(crate) fn prologue_and_cost(net: &Netlist, t: &Tables) -> (String, u64) {
    let prologue = "    vals[slot(S_ONES)] = 0xffffffffu;\n    vals[slot(S_ZEROS)] = 0u;\n";
    let views = t.prog_next as u64;
    let after = (t.prog_end - t.prog_next) as u64;
    let cost = unrolled_cost(views, UNROLL_GATES)
        + unrolled_cost(after, UNROLL_GATES)
        + unrolled_cost(net.inputs.len() as u64, UNROLL_WIDE)
        + unrolled_cost(net.latches.len() as u64, UNROLL_WIDE);
    (prologue.to_string(), cost)
}

/// The per-step code `(views, next)` of the interpreted layout.
pub(crate) fn step_code(net: &Netlist) -> (String, String) {
    let _ = net;
    let views = "        run_prog(0u, T_PROG_NEXT);\n        let term_w = vals[slot(TERMINAL)];\n"
        .to_string();
    let mut next = "            run_prog(T_PROG_NEXT, T_PROG_END);\n".to_string();
    unrolled(
        &mut next,
        "            ",
        "l",
        "0u",
        "NUM_LATCHES",
        UNROLL_WIDE,
        &|x| {
            format!(
                "st_put({x}, (vals[slot(tab[T_LATCH_NEXT + {x}])] & go) | (st_get({x}) & ~go));"
            )
        },
    );
    (views, next)
}
