//! Netlist → WGSL code generator (naga-style: [`Options`], [`Error`], a [`Writer`] and the
//! free function [`write_string`]).
//!
//! The generated shader runs whole playouts. Bindings of group 0:
//!
//! | binding | type | contents |
//! |---|---|---|
//! | 0 | uniform `Params` | chunk size, job count, seed, step limit, record stride, invocations, step budget, resume flag, probe trip count (2) |
//! | 1 | storage read `jobs` | 3 words per job: first sequence number, first playout index, start-state word offset |
//! | 2 | storage read `starts` | start states, 32 latches per word, bit `l % 32` of word `l / 32` |
//! | 3 | storage read_write `ctr` | atomic counters: next sequence number, invocations that saved lanes (`pending`), invocations whose loops a driver cut short (`overrun`) |
//! | 4 | storage read_write `out` | one record of `rec_words` words per playout (see [`Kernel`]) |
//! | 5 | storage read `tab` | constant tables of the netlist ([`Kernel::tables`]) |
//! | 6 | storage read_write `vals` | [`Layout::Table`] only: gate values, [`Kernel::slots`] words per invocation |
//! | 7 | storage read_write `ctx` | saved lanes of invocations that ran out of step budget ([`Kernel::ctx_words`] each) |
//!
//! Record layout (u32 words): `[length, end, goal words…, state words…]`, `end` = 1 terminal,
//! 2 step limit, `3 + r` role `r` had no legal move (0: never written); goals packed 4 per
//! word (byte `r % 4` of word `r / 4`); state words only when `want_state` is set.

mod common;
pub use common::LoopBound;
mod inline;
mod namer;
pub mod step;
pub mod step_table;
mod table;

use propnet_netlist::{Netlist, NetlistInfo};
use std::fmt::Write as _;

/// How gate evaluation is emitted.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Straight-line code up to [`Options::inline_gate_limit`] gates and
    /// [`Options::inline_private_limit`] words of private arrays, [`Layout::Table`] above.
    Auto,
    /// One WGSL `let` per gate: fastest, but shader size and driver compile time grow with
    /// the netlist.
    Inline,
    /// Gates as an opcode stream in the `tab` storage buffer, interpreted by a loop; gate
    /// values live in the `vals` storage buffer. Shader size is independent of the netlist.
    Table,
}

/// Code generation options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Gate emission strategy.
    pub layout: Layout,
    /// Playouts per invocation, 1..=32 (bits of the `u32` words used). 32 = fully bit-sliced;
    /// 1 = one playout per invocation (kept for measuring the layout choice).
    pub lanes: u32,
    /// Invocations per workgroup (1..=256).
    pub workgroup_size: u32,
    /// [`Layout::Auto`] switches to [`Layout::Table`] above this many gates.
    pub inline_gate_limit: usize,
    /// [`Layout::Auto`] switches to [`Layout::Table`] when the inline layout's private
    /// arrays (a word per latch, input, legal entry and goal entry) would hold more words
    /// than this: arrays indexed at run time that large live in device memory on a GPU
    /// anyway, and llvmpipe takes minutes to compile them (BattleshipsFog's 4,228 inputs).
    pub inline_private_limit: usize,
    /// Emit `//` comments naming latches and moves (sanitized GDL text).
    pub comments: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            layout: Layout::Auto,
            lanes: 32,
            workgroup_size: 64,
            inline_gate_limit: 20_000,
            inline_private_limit: 2_048,
            comments: true,
        }
    }
}

/// Why no shader could be generated.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An option is out of range.
    #[error("bad option {name} = {value}: {reason}")]
    BadOption {
        /// Option name.
        name: &'static str,
        /// Its value.
        value: String,
        /// The allowed range.
        reason: &'static str,
    },
    /// A table index does not fit in 32 bits.
    #[error("netlist too large for 32-bit table indices ({0} words)")]
    TooLarge(usize),
}

/// A generated shader with everything the runner needs to bind it.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// WGSL source; entry point `main`.
    pub wgsl: String,
    /// Contents of the `tab` buffer (binding 5), u32 words.
    pub tables: Vec<u32>,
    /// The resolved layout ([`Layout::Inline`] or [`Layout::Table`]).
    pub layout: Layout,
    /// Playouts per invocation.
    pub lanes: u32,
    /// Invocations per workgroup.
    pub workgroup_size: u32,
    /// [`Layout::Table`]: words of `vals` per invocation (gates + latches + inputs); 0 inline.
    pub slots: u32,
    /// Number of roles.
    pub roles: u32,
    /// Words of packed goals per record (`ceil(roles / 4)`).
    pub goal_words: u32,
    /// Words of packed state (`ceil(latches / 32)`).
    pub state_words: u32,
    /// Words of `ctx` per invocation: `2 + 3 * lanes (+ latches for Inline)`.
    pub ctx_words: u32,
    /// Upper bounds on the loop back edges of one invocation (for drivers that cap them).
    pub loop_bound: LoopBound,
}

impl Kernel {
    /// Words per record: `2 + goal_words (+ state_words when want_state)`.
    pub fn record_words(&self, want_state: bool) -> u32 {
        2 + self.goal_words + if want_state { self.state_words } else { 0 }
    }
}

/// Generates the shader and its tables for `net`, whose analysis `info` (from
/// [`propnet_netlist::validate`]) says which gates are evaluated after the move choice.
///
/// # Errors
/// [`Error::BadOption`] for options out of range, [`Error::TooLarge`] past 2^32 words.
///
/// # Panics
/// If `info` was computed for another netlist.
pub fn compile(net: &Netlist, info: &NetlistInfo, opts: &Options) -> Result<Kernel, Error> {
    Writer::new(net, info, opts)?.finish()
}

/// Generates only the WGSL source (see [`compile`] for errors).
pub fn write_string(net: &Netlist, info: &NetlistInfo, opts: &Options) -> Result<String, Error> {
    compile(net, info, opts).map(|k| k.wgsl)
}

/// Offsets of the constant tables inside [`Kernel::tables`].
#[derive(Default)]
pub(crate) struct Tables {
    pub words: Vec<u32>,
    pub role_legal: usize,
    pub legal_input: usize,
    pub legal_gate: usize,
    pub role_goal: usize,
    pub goal_value: usize,
    pub goal_gate: usize,
    pub latch_next: usize,
    /// Start of the opcode program ([`Layout::Table`]), its view/next split and end.
    pub prog: usize,
    pub prog_next: usize,
    pub prog_end: usize,
    /// [`Layout::Table`]: words of `vals` per invocation (gates, latches, inputs, constants,
    /// temporaries of split gates).
    pub slots: usize,
}

/// Words of the inline layout's private arrays: latches, inputs, legal and goal entries.
fn private_words(net: &Netlist) -> usize {
    let entries: usize = (net.roles.iter())
        .map(|r| r.legal.len() + r.goals.len())
        .sum();
    net.latches.len() + net.inputs.len() + entries
}

fn build_tables(net: &Netlist) -> Tables {
    let mut w: Vec<u32> = Vec::new();
    let role_legal = w.len();
    let mut acc = 0u32;
    w.push(0);
    for r in &net.roles {
        acc += r.legal.len() as u32;
        w.push(acc);
    }
    let legal_input = w.len();
    w.extend(
        net.roles
            .iter()
            .flat_map(|r| r.legal.iter().map(|l| l.input.0)),
    );
    let legal_gate = w.len();
    w.extend(
        net.roles
            .iter()
            .flat_map(|r| r.legal.iter().map(|l| l.gate.0)),
    );
    let role_goal = w.len();
    let mut acc = 0u32;
    w.push(0);
    for r in &net.roles {
        acc += r.goals.len() as u32;
        w.push(acc);
    }
    let goal_value = w.len();
    w.extend(
        net.roles
            .iter()
            .flat_map(|r| r.goals.iter().map(|g| u32::from(g.value))),
    );
    let goal_gate = w.len();
    w.extend(
        net.roles
            .iter()
            .flat_map(|r| r.goals.iter().map(|g| g.gate.0)),
    );
    let latch_next = w.len();
    w.extend(net.latches.iter().map(|l| l.next.0));
    let end = w.len();
    Tables {
        words: w,
        role_legal,
        legal_input,
        legal_gate,
        role_goal,
        goal_value,
        goal_gate,
        latch_next,
        prog: end,
        prog_next: end,
        prog_end: end,
        slots: 0,
    }
}

/// Writes one shader. Holds the netlist, its analysis, the options and the output text.
pub struct Writer<'a> {
    net: &'a Netlist,
    info: &'a NetlistInfo,
    opts: Options,
    layout: Layout,
    tables: Tables,
    out: String,
}

impl<'a> Writer<'a> {
    /// Checks `opts` and prepares the tables.
    ///
    /// # Errors
    /// See [`compile`].
    ///
    /// # Panics
    /// If `info` was computed for another netlist.
    pub fn new(net: &'a Netlist, info: &'a NetlistInfo, opts: &Options) -> Result<Self, Error> {
        assert!(info.describes(net), "NetlistInfo of another netlist");
        if !(1..=32).contains(&opts.lanes) {
            return Err(Error::BadOption {
                name: "lanes",
                value: opts.lanes.to_string(),
                reason: "must be 1..=32",
            });
        }
        if !(1..=256).contains(&opts.workgroup_size) {
            return Err(Error::BadOption {
                name: "workgroup_size",
                value: opts.workgroup_size.to_string(),
                reason: "must be 1..=256",
            });
        }
        let layout = match opts.layout {
            Layout::Auto
                if net.gates.len() > opts.inline_gate_limit
                    || private_words(net) > opts.inline_private_limit =>
            {
                Layout::Table
            }
            Layout::Auto => Layout::Inline,
            l => l,
        };
        let mut tables = build_tables(net);
        if layout == Layout::Table {
            table::append_program(net, info, &mut tables);
        }
        let slots = tables
            .slots
            .max(net.gates.len() + net.latches.len() + net.inputs.len());
        if tables.words.len() > u32::MAX as usize || slots > u32::MAX as usize {
            return Err(Error::TooLarge(tables.words.len().max(slots)));
        }
        Ok(Self {
            net,
            opts: opts.clone(),
            info,
            layout,
            tables,
            out: String::new(),
        })
    }

    /// Emits the shader and returns it with its tables.
    ///
    /// # Errors
    /// None at present beyond those of [`Writer::new`]; kept fallible for future limits.
    pub fn finish(mut self) -> Result<Kernel, Error> {
        let net = self.net;
        let roles = net.roles.len() as u32;
        let goal_words = roles.div_ceil(4);
        let state_words = (net.latches.len() as u32).div_ceil(32);
        self.write_header(goal_words, state_words);
        common::write_rng(&mut self.out);
        let slots = match self.layout {
            Layout::Table => {
                table::write_accessors(&mut self.out, net, &self.tables);
                self.tables.slots as u32
            }
            _ => {
                inline::write_accessors(&mut self.out, net);
                0
            }
        };
        common::write_lane_logic(&mut self.out);
        let (views, next) = match self.layout {
            Layout::Table => table::step_code(net),
            _ => inline::step_code(net, self.info, self.opts.comments),
        };
        let (prologue, layout_cost) = match self.layout {
            Layout::Table => table::prologue_and_cost(net, &self.tables),
            _ => (String::new(), 0),
        };
        common::write_main(
            &mut self.out,
            self.opts.workgroup_size,
            &prologue,
            &views,
            &next,
        );
        let ctx_state = if self.layout == Layout::Table {
            0
        } else {
            net.latches.len()
        };
        let loop_bound = common::loop_bound(
            &net.roles.iter().map(|r| r.legal.len()).collect::<Vec<_>>(),
            &net.roles.iter().map(|r| r.goals.len()).collect::<Vec<_>>(),
            net.latches.len(),
            self.opts.lanes,
            ctx_state,
            layout_cost,
        );
        Ok(Kernel {
            wgsl: self.out,
            tables: self.tables.words,
            layout: self.layout,
            lanes: self.opts.lanes,
            workgroup_size: self.opts.workgroup_size,
            slots,
            roles,
            goal_words,
            state_words,
            ctx_words: 2 + 3 * self.opts.lanes + ctx_state as u32,
            loop_bound,
        })
    }

    fn write_header(&mut self, goal_words: u32, state_words: u32) {
        let net = self.net;
        let t = &self.tables;
        let o = &mut self.out;
        let _ = writeln!(
            o,
            "// propnet playout kernel: {} gates, {} latches, {} inputs, {} roles.",
            net.gates.len(),
            net.latches.len(),
            net.inputs.len(),
            net.roles.len()
        );
        let _ = writeln!(
            o,
            "// layout: {:?}, {} playouts per invocation (bit-sliced lanes).",
            self.layout, self.opts.lanes
        );
        if self.opts.comments {
            for (r, role) in net.roles.iter().enumerate() {
                let _ = writeln!(o, "// role {r}: {}", namer::comment_text(&role.name));
            }
        }
        let all = if self.opts.lanes == 32 {
            u32::MAX
        } else {
            (1u32 << self.opts.lanes) - 1
        };
        let _ = write!(
            o,
            "\nstruct Params {{\n    n: u32,\n    njobs: u32,\n    seed_lo: u32,\n    seed_hi: u32,\n    max_steps: u32,\n    rec_words: u32,\n    want_state: u32,\n    ninv: u32,\n    budget: u32,\n    resume: u32,\n    probe: u32,\n    pad1: u32,\n}}\n\nstruct Counters {{\n    next: atomic<u32>,\n    pending: atomic<u32>,\n    overrun: atomic<u32>,\n}}\n\n\
             @group(0) @binding(0) var<uniform> prm: Params;\n\
             @group(0) @binding(1) var<storage, read> jobs: array<u32>;\n\
             @group(0) @binding(2) var<storage, read> starts: array<u32>;\n\
             @group(0) @binding(3) var<storage, read_write> ctr: Counters;\n\
             @group(0) @binding(4) var<storage, read_write> out: array<u32>;\n\
             @group(0) @binding(5) var<storage, read> tab: array<u32>;\n\
             @group(0) @binding(7) var<storage, read_write> ctx: array<u32>;\n\n"
        );
        let consts: [(&str, usize); 15] = [
            ("LANES", self.opts.lanes as usize),
            ("NUM_GATES", net.gates.len()),
            ("NUM_LATCHES", net.latches.len()),
            ("NUM_INPUTS", net.inputs.len()),
            ("NUM_ROLES", net.roles.len()),
            ("GOAL_WORDS", goal_words as usize),
            ("STATE_WORDS", state_words as usize),
            ("TERMINAL", net.terminal.index()),
            ("T_ROLE_LEGAL", t.role_legal),
            ("T_LEGAL_INPUT", t.legal_input),
            ("T_LEGAL_GATE", t.legal_gate),
            ("T_ROLE_GOAL", t.role_goal),
            ("T_GOAL_VALUE", t.goal_value),
            ("T_GOAL_GATE", t.goal_gate),
            ("T_LATCH_NEXT", t.latch_next),
        ];
        for (name, v) in consts {
            let _ = writeln!(o, "const {name}: u32 = {v}u;");
        }
        for (name, v) in [
            ("T_PROG", t.prog),
            ("T_PROG_NEXT", t.prog_next),
            ("T_PROG_END", t.prog_end),
        ] {
            let _ = writeln!(o, "const {name}: u32 = {v}u;");
        }
        let _ = writeln!(o, "const ALL_LANES: u32 = {all:#010x}u;");
        let _ = writeln!(o, "const NO_END: u32 = 0xffffffffu;");
        let ctx_state = if self.layout == Layout::Table {
            0
        } else {
            net.latches.len()
        };
        let _ = writeln!(o, "const CTX_STATE: u32 = {ctx_state}u;");
        let _ = writeln!(
            o,
            "const CTX_WORDS: u32 = {}u;\n",
            2 + 3 * self.opts.lanes as usize + ctx_state
        );
        let _ = writeln!(
            o,
            "var<private> me: u32;\nvar<private> lane_seq: array<u32, {l}>;\nvar<private> lane_po: array<u32, {l}>;\nvar<private> lane_step: array<u32, {l}>;\n",
            l = self.opts.lanes
        );
    }
}
