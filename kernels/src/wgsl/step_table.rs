//! The step kernel's interpreted form, for netlists above the inline form's gate limit:
//! the gates as [`super::table`]'s records in the `tab` storage buffer, their values in
//! the `vals` storage buffer, 32 (state, joint move) pairs per invocation, bit `k` of
//! every word belonging to pair `32 * me + k` (bit-sliced: a gate record is evaluated once
//! for 32 pairs). Shader size does not depend on the netlist.
//!
//! Records `src` and `dst` are [`super::step`]'s (one row per pair; the caller pads the
//! rows to a multiple of 32 pairs). Bindings of group 0: 0 uniform `StepParams`, 1 storage
//! read `src`, 2 storage read_write `dst` (zeroed by the caller), 3 storage read `tab`
//! (records, then the slots of the outputs: latches' next gates, then every role's
//! percept gates in role order), 4 storage read_write `vals` ([`StepTable::slots`] words
//! per invocation, slot `x` of invocation `me` at `x * ninv + me`).
//!
//! One transition is several dispatches of the same pipeline that differ in `StepParams`
//! ([`StepTable::dispatches`]), each over a range `start..end`: `mode` 0 gathers latches
//! and inputs (latch `l` is item `l`, input `i` item `latches + i`) from the pairs' `src`
//! rows into their slots, `mode` 1 interprets gate records, `mode` 2 scatters outputs into
//! the pairs' `dst` rows. Ranges are cut so that no dispatch takes more than 32,768 loop
//! back edges: llvmpipe stops every loop of a dispatch after 65,535.

use super::common::unrolled;
use super::step::StepShape;
use super::table::{append_program, slots, write_interpreter, UNROLL_GATES};
use super::Tables;
use propnet_netlist::{Netlist, NetlistInfo};
use std::fmt::Write as _;

/// Pairs per invocation (bits of a `u32`).
pub const PAIRS_PER_INVOCATION: u32 = 32;
/// Invocations per workgroup.
pub const STEP_TABLE_WORKGROUP: u32 = 64;
/// Most records one dispatch interprets: 32,768 loop back edges at 16 records each.
pub const SEGMENT_RECORDS: u32 = 32_768 * UNROLL_GATES;
/// Items (latches and inputs, or outputs) per back edge of the load and store loops: each
/// item is 32 reads or writes, so the unrolled body stays small for the shader compiler.
const UNROLL_IO: u32 = 4;
/// Most items one load or store dispatch moves.
const SEGMENT_ITEMS: u32 = 32_768 * UNROLL_IO;

/// A generated interpreted step kernel and its shapes.
#[derive(Clone, Debug)]
pub struct StepTable {
    /// WGSL source; entry point `main`.
    pub wgsl: String,
    /// The `tab` buffer: gate records, then the output slots.
    pub tab: Vec<u32>,
    /// Words of `vals` per invocation (gates, latches, inputs, constants, temporaries).
    pub slots: u32,
    /// Gate records.
    pub records: u32,
    /// Record shapes.
    pub shape: StepShape,
    /// Latches and inputs (items of the load dispatches).
    pub loads: u32,
    /// Latches' next values and percepts (items of the store dispatches).
    pub stores: u32,
    /// Records per interpreting dispatch ([`SEGMENT_RECORDS`] unless a caller lowers it).
    pub segment: u32,
}

/// One dispatch of a transition: `StepParams` but for `ninv`, which the caller sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dispatch {
    /// 0 load, 1 interpret, 2 store.
    pub mode: u32,
    /// First record (mode 1).
    pub start: u32,
    /// End of the records (mode 1).
    pub end: u32,
}

impl StepTable {
    /// The dispatches of one transition, in order: loads, record segments, stores.
    pub fn dispatches(&self) -> Vec<Dispatch> {
        let cut = |mode: u32, n: u32, step: u32| {
            (0..n).step_by(step as usize).map(move |start| Dispatch {
                mode,
                start,
                end: (start + step).min(n),
            })
        };
        (cut(0, self.loads, SEGMENT_ITEMS.min(self.segment)))
            .chain(cut(1, self.records, self.segment))
            .chain(cut(2, self.stores, SEGMENT_ITEMS.min(self.segment)))
            .collect()
    }
}

/// Generates the interpreted step kernel of `net` (valid; `info` its analysis).
///
/// # Panics
/// If `info` was computed for another netlist.
pub fn step_table(net: &Netlist, info: &NetlistInfo) -> StepTable {
    assert!(info.describes(net), "NetlistInfo of another netlist");
    let mut t = Tables::default();
    append_program(net, info, &mut t);
    let records = t.prog_end as u32;
    let outputs: Vec<u32> = (net.latches.iter().map(|l| l.next.0))
        .chain(
            net.roles
                .iter()
                .flat_map(|r| r.percepts.iter().map(|p| p.gate.0)),
        )
        .collect();
    let t_out = t.words.len();
    let mut tab = t.words;
    tab.extend(&outputs);
    let shape = StepShape::of(net);
    let StepShape {
        src_words,
        dst_words,
        state_words,
        percepts,
    } = shape;
    let s = slots(net);
    let mut o = String::new();
    let _ = write!(
        o,
        "// propnet step kernel, interpreted: {} gates as {records} records, {} latches, {} inputs, {percepts} percepts
struct StepParams {{
    ninv: u32,
    mode: u32,
    start: u32,
    end: u32,
}}

@group(0) @binding(0) var<uniform> prm: StepParams;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read> tab: array<u32>;
@group(0) @binding(4) var<storage, read_write> vals: array<u32>;

const SRC_WORDS: u32 = {src_words}u;
const DST_WORDS: u32 = {dst_words}u;
const STATE_WORDS: u32 = {state_words}u;
const NUM_LATCHES: u32 = {}u;
const NUM_INPUTS: u32 = {}u;
const NUM_OUT: u32 = {}u;
const S_STATE: u32 = {}u;
const S_INPUT: u32 = {}u;
const S_ONES: u32 = {}u;
const S_ZEROS: u32 = {}u;
const T_PROG: u32 = 0u;
const T_OUT: u32 = {t_out}u;

var<private> me: u32;

fn slot(x: u32) -> u32 {{
    return x * prm.ninv + me;
}}

",
        net.gates.len(),
        net.latches.len(),
        net.inputs.len(),
        net.latches.len(),
        net.inputs.len(),
        outputs.len(),
        s.state,
        s.input,
        s.ones,
        s.zeros,
    );
    write_gather_scatter(&mut o);
    write_load_store(&mut o);
    write_interpreter(&mut o);
    let _ = write!(
        o,
        "@compute @workgroup_size({STEP_TABLE_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
    me = gid.x;
    if (me >= prm.ninv) {{
        return;
    }}
    // every dispatch: a netlist without latches and inputs has no load dispatch
    vals[slot(S_ONES)] = 0xffffffffu;
    vals[slot(S_ZEROS)] = 0u;
    if (prm.mode == 0u) {{
        load(prm.start, prm.end);
    }} else if (prm.mode == 1u) {{
        run_prog(prm.start, prm.end);
    }} else {{
        store(prm.start, prm.end);
    }}
}}
"
    );
    StepTable {
        wgsl: o,
        tab,
        slots: t.slots as u32,
        records,
        shape,
        loads: (net.latches.len() + net.inputs.len()) as u32,
        stores: outputs.len() as u32,
        segment: SEGMENT_RECORDS,
    }
}

/// `gather(w, b)`: bit `b` of word `w` of this invocation's 32 `src` rows, pair `k` in bit
/// `k`; `scatter(pos, v)`: bit `k` of `v` into bit `pos` of pair `k`'s `dst` row.
fn write_gather_scatter(o: &mut String) {
    o.push_str("fn gather(w: u32, b: u32) -> u32 {\n    let r = me * 32u * SRC_WORDS + w;\n    var v = 0u;\n");
    for k in 0..PAIRS_PER_INVOCATION {
        let _ = writeln!(
            o,
            "    v = v | (((src[r + {k}u * SRC_WORDS] >> b) & 1u) << {k}u);"
        );
    }
    o.push_str("    return v;\n}\n\n");
    o.push_str("fn scatter(pos: u32, v: u32) {\n    let r = me * 32u * DST_WORDS + pos / 32u;\n    let b = pos % 32u;\n");
    for k in 0..PAIRS_PER_INVOCATION {
        let _ = writeln!(
            o,
            "    dst[r + {k}u * DST_WORDS] = dst[r + {k}u * DST_WORDS] | (((v >> {k}u) & 1u) << b);"
        );
    }
    o.push_str("}\n\n");
}

/// `load(start, end)`: items `start..end` (latch `x`, or input
/// `x - latches`; slot `S_STATE + x` either way) into their slots; `store(start, end)`:
/// outputs `start..end` into `dst` (next state at bit `j`, percept `p` at bit
/// `32 * STATE_WORDS + p`).
fn write_load_store(o: &mut String) {
    o.push_str("fn load(start: u32, end: u32) {\n    var x = 0u;\n");
    unrolled(o, "    ", "x", "start", "end", UNROLL_IO, &|x| {
        format!(
            "let latch = {x} < NUM_LATCHES;\n\
             let k = select({x} - NUM_LATCHES, {x}, latch);\n\
             let w = select(STATE_WORDS + k / 32u, k / 32u, latch);\n\
             vals[slot(S_STATE + {x})] = gather(w, k % 32u);"
        )
    });
    o.push_str("}\n\nfn store(start: u32, end: u32) {\n    var j = 0u;\n");
    unrolled(o, "    ", "j", "start", "end", UNROLL_IO, &|x| {
        format!(
            "let pos = select(32u * STATE_WORDS + {x} - NUM_LATCHES, {x}, {x} < NUM_LATCHES);\n\
             scatter(pos, vals[slot(tab[T_OUT + {x}])]);"
        )
    });
    o.push_str("}\n\n");
}
