//! Writes one playout engine (`<prefix>_engine`): latch register bank, game core, one
//! to four RNG banks (Threefry draw + `k_c` precompute) and one k-th-legal-move chooser per
//! role, and the playout controller.
//!
//! Timing: in the run phase the engine makes one joint move per clock cycle. The random
//! draw for `(seed, playout, step, role)` depends on no game state, so it is requested
//! [`draw_latency`]`(S) = S + 1` cycles ahead (`S` = RNG pipeline stages): `S` cycles in
//! the Threefry pipeline, then one cycle that precomputes the chooser's `k_c = (x·c)>>32`
//! for every possible legal-move count `c` (so the multiplier is off the
//! one-step-per-cycle path, which only selects `k_c` by the count). A bank's pipeline
//! advances only when its draws are consumed (a step) or while it fills, so a filled,
//! idle bank holds the first `S + 1` draws of a playout.
//!
//! - One bank (no prefetch): after a playout ends the bank refills for the next one,
//!   so a playout costs `length + 2 + S` cycles (`+1`: the cycle that detects the end and
//!   loads the next start state; `S + 1` fill cycles).
//! - Two banks (ping-pong): the idle bank prefetches the next playout (index
//!   `current + engines`) while the active one serves the current playout; at the end the
//!   banks swap, so a playout costs `max(length, S + 1) + 1` cycles (a playout shorter than
//!   `S + 1` steps waits for the prefetch). The price is a second Threefry pipeline and
//!   `k_c` register set per role.
//! - `K` = 3 or 4 banks (a ring): the bank freed when a playout finishes fetches the
//!   playout `K` later, so it has the `K − 1` playouts in between to fill; a playout waits
//!   only when those together are shorter than `S + 1` steps (connect four with `S = 20`:
//!   almost never with three banks; tic-tac-toe needs four). Each bank is one more
//!   Threefry pipeline per role (and thread).
//! - C-slow (`cslow = 2`; Leiserson & Saxe, "Retiming synchronous circuitry", 1991): the
//!   core is split ([`crate::core::write_core_split`]) and a register level sits between
//!   stage 0 (state → legal, terminal, goal and the state-only cut) and stage 1 (chooser →
//!   move-dependent next state → latches). Two playout threads alternate: while one is in
//!   stage 0 the other is in stage 1, so each thread makes a joint move every other cycle
//!   and the engine one per cycle at a higher clock. Every per-playout register (step,
//!   step-limit flag, playout indices, bank counters) is a two-register ring; the controller
//!   updates the stage-1 thread's copy. Without prefetch one bank pipeline per role is
//!   shared by the threads (its latency rounded up to an even number of cycles so a draw
//!   comes back to the thread that asked); with prefetch each thread has its own bank
//!   pipelines per role, clock-enabled in its slots.
//!
//! [`engine_cycles`] gives the exact count for a sequence of playouts, [`draw_slots`] the
//! draw latency in a thread's slots.

use crate::core::CoreShape;
use crate::Names;
use propnet_netlist::Netlist;
use std::fmt::Write;

/// Roles with at most this many legal entries get the precomputed `k_c` registers (one
/// constant multiplication per count `c`); roles with more keep one `x·count` multiplier
/// (fed by a registered draw, so the latency is the same) to bound the area.
pub const PRECOMPUTE_MAX_MOVES: usize = 32;

/// Roles with at most this many legal entries compare each entry's prefix count with
/// every `k_c` in parallel and select the result by the count (`n·(n−1)` small comparators);
/// larger roles select `k` by the count first and then compare.
pub const PARALLEL_COMPARE_MAX_MOVES: usize = 16;

/// Cycles from requesting a draw to its chooser input being ready, for `stages` Threefry
/// pipeline stages and `cslow` interleaved threads: `stages + 1` (the `+1` is the `k_c`
/// precompute register), rounded up to a multiple of `cslow` (so a draw returns to the
/// thread that requested it).
pub fn draw_latency(stages: u32, cslow: u32) -> u32 {
    let c = cslow.max(1);
    (stages + 1).div_ceil(c) * c
}

/// Draw latency in a thread's slots (one slot every `cslow` cycles): `S + 1` for one thread
/// or with prefetch banks (then each thread has its own bank pipelines, advancing in its
/// slots), else [`draw_latency`]` / cslow` (one pipeline shared by the interleaved threads).
pub fn draw_slots(stages: u32, banks: u32, cslow: u32) -> u32 {
    if banks >= 2 || cslow <= 1 {
        stages + 1
    } else {
        draw_latency(stages, cslow) / cslow
    }
}

/// Exact clock cycles (as the `CYCLES` counter reports them) that one engine spends on its
/// playouts, `lengths` = their joint moves in index order (thread `j` of `C = cslow` runs
/// the ones at positions `j, j+C, …`), for `stages` RNG pipeline stages and `banks` RNG
/// banks per role (1 = no prefetch). Per thread, in its slots (one every `C` cycles):
/// `T + Σ (L_k + 1) + Σ W_k`, `T` = [`draw_slots`]. With one bank every later playout waits
/// `W_k = T` (the refill). With `K ≥ 2` banks the bank of playout `k ≥ K` is freed when
/// playout `k − K` finishes and fills while playouts `k − K + 1 ..= k − 1` run, so
/// `W_k = max(0, T + 1 − Σ_{i=k−K+1}^{k−1} (L_i + 1) − Σ_{i=k−K+2}^{k−1} W_i)` (the first
/// `K` playouts' banks fill together at the start). The engine is busy until the last
/// thread's last slot (`C·(n_j − 1) + j + 1` cycles) plus one cycle that adds the last
/// playout to the result counters and [`crate::goal::GOAL_LATENCY`] more for its goals.
/// 0 for no playouts.
pub fn engine_cycles(lengths: &[u32], stages: u32, banks: u32, cslow: u32) -> u64 {
    let c = cslow.max(1) as usize;
    let k = banks.max(1) as usize;
    let t = u64::from(draw_slots(stages, banks, cslow));
    (0..c)
        .filter_map(|j| {
            let mine: Vec<u64> = lengths
                .iter()
                .skip(j)
                .step_by(c)
                .map(|&l| u64::from(l))
                .collect();
            if mine.is_empty() {
                return None;
            }
            let run: u64 = mine.iter().map(|l| l + 1).sum();
            let mut waits = vec![0u64; mine.len()];
            for p in 1..mine.len() {
                waits[p] = if k == 1 {
                    t
                } else if p < k {
                    0
                } else {
                    let busy: u64 = (p + 1 - k..p).map(|i| mine[i] + 1).sum::<u64>()
                        + (p + 2 - k..p).map(|i| waits[i]).sum::<u64>();
                    (t + 1).saturating_sub(busy)
                };
            }
            let n = t + run + waits.iter().sum::<u64>();
            Some(c as u64 * (n - 1) + j as u64 + 2 + u64::from(crate::goal::GOAL_LATENCY))
        })
        .max()
        .unwrap_or(0)
}

/// Bits needed to hold the number `n`.
pub(crate) fn bits_for(n: usize) -> usize {
    (usize::BITS - n.leading_zeros()).max(1) as usize
}

/// `bit` zero-extended to `w` bits as a Verilog expression.
fn zext(bit: &str, w: usize) -> String {
    if w == 1 {
        bit.to_string()
    } else {
        format!("{{{{{}{{1'b0}}}}, {bit}}}", w - 1)
    }
}

/// Writes `out = a + b` (`w` bits, carry out dropped) as a ripple of xor/and/or gates rather
/// than `+`: yosys maps `+` to carry chains before ABC sees the logic, while these tiny
/// (≤ 6-bit) sums on the step path are faster when ABC can merge them into the LUT logic
/// around them.
pub(crate) fn write_gate_add(s: &mut String, out: &str, a: &str, b: &str, w: usize) {
    let _ = writeln!(
        s,
        "wire [{}:0] {out};\nassign {out}[0] = {a}[0] ^ {b}[0];\nwire {out}_c1 = {a}[0] & {b}[0];",
        w - 1
    );
    for i in 1..w {
        let _ = writeln!(s, "assign {out}[{i}] = {a}[{i}] ^ {b}[{i}] ^ {out}_c{i};");
        if i + 1 < w {
            let _ = writeln!(
                s,
                "wire {out}_c{} = ({a}[{i}] & {b}[{i}]) | ({out}_c{i} & ({a}[{i}] ^ {b}[{i}]));",
                i + 1
            );
        }
    }
    if w == 1 {
        let _ = writeln!(s, "wire {out}_unused = {out}_c1;");
    }
}

/// Writes the exclusive prefix counts `pre_<r>_<j>` = number of legal bits among entries
/// `0..j` of role `r` (j = 1..=n; `pre_<r>_0` is written by the caller), as a Kogge-Stone
/// parallel prefix (Kogge & Stone, IEEE Trans. Computers 1973): `ceil(log2 n)` adder levels
/// instead of a ripple of `n` adders, which is on the one-step-per-cycle critical path.
fn write_prefix_counts(s: &mut String, ri: usize, n: usize, w: usize, off: usize) {
    let w1 = w - 1;
    for j in 0..n {
        let _ = writeln!(
            s,
            "wire [{w1}:0] ps_{ri}_0_{j} = {};",
            zext(&format!("lg[{}]", off + j), w)
        );
    }
    let mut level = 0;
    while (1usize << level) < n {
        let d = 1usize << level;
        for j in 0..n {
            let out = format!("ps_{ri}_{}_{j}", level + 1);
            if j >= d {
                let a = format!("ps_{ri}_{level}_{j}");
                let b = format!("ps_{ri}_{level}_{}", j - d);
                write_gate_add(s, &out, &a, &b, w);
            } else {
                let _ = writeln!(s, "wire [{w1}:0] {out} = ps_{ri}_{level}_{j};");
            }
        }
        level += 1;
    }
    for j in 0..n {
        let _ = writeln!(s, "wire [{w1}:0] pre_{ri}_{} = ps_{ri}_{level}_{j};", j + 1);
    }
}

/// The physical RNG pipelines of a role: one per bank, and with prefetch banks and two
/// threads one per (thread, bank), advancing only in its thread's slots.
struct Pipes {
    /// (suffix, clock-enable expression) per pipeline; the suffix ends with the bank digit.
    list: Vec<(String, String)>,
    banks: u32,
    per_thread: bool,
}

impl Pipes {
    fn new(banks: u32, cslow: u32) -> Self {
        let per_thread = banks >= 2 && cslow == 2;
        let mut list = Vec::new();
        if per_thread {
            for t in 0..2 {
                for b in 0..banks {
                    let ph = if t == 0 { "~ph" } else { "ph" };
                    list.push((format!("{t}{b}"), format!("en_{b} & {ph}")));
                }
            }
        } else {
            for b in 0..banks {
                list.push((format!("{b}"), format!("en_{b}")));
            }
        }
        Self {
            list,
            banks,
            per_thread,
        }
    }
    /// (suffix, clock enable) of each pipeline.
    fn list(&self) -> impl Iterator<Item = (&str, &str)> {
        self.list.iter().map(|(n, ce)| (n.as_str(), ce.as_str()))
    }
    /// Declares `out` (`w` bits) = the active pipeline's value `f(suffix)`. With per-thread
    /// pipelines the pick is a register loaded a cycle early for the stage-0 thread (its
    /// pipelines do not advance in the other thread's slot, and `cur_r` is its bank), so
    /// the bank mux is off the step path.
    fn write_pick(&self, s: &mut String, out: &str, w: usize, f: impl Fn(&str) -> String) {
        let w1 = w - 1;
        let _ = match (self.per_thread, self.banks) {
            (true, k) => writeln!(
                s,
                "reg  [{w1}:0] {out};\nalways @(posedge clk) {out} <= ph ? {} : {};",
                bank_mux("cur_r", k, |b| f(&format!("0{b}"))),
                bank_mux("cur_r", k, |b| f(&format!("1{b}"))),
            ),
            (false, k) if k >= 2 => writeln!(
                s,
                "wire [{w1}:0] {out} = {};",
                bank_mux("cur", k, |b| f(&b.to_string()))
            ),
            _ => writeln!(s, "wire [{w1}:0] {out} = {};", f("0")),
        };
    }
}

/// Bits of the active-bank register `cur` for `banks` ≥ 2 banks.
fn cur_bits(banks: u32) -> usize {
    bits_for(banks as usize - 1)
}

/// A Verilog expression selecting `f(b)` for the bank `b` = `sel` (a [`cur_bits`]-bit
/// register; `banks` ≥ 2).
fn bank_mux(sel: &str, banks: u32, f: impl Fn(u32) -> String) -> String {
    let w = cur_bits(banks);
    let mut e = f(0);
    for b in 1..banks {
        e = format!("({sel} == {w}'d{b}) ? {} : {e}", f(b));
    }
    format!("({e})")
}

/// Writes `k_<r>` = `(x·cnt_<r>)>>32` for the draw `x` of role `r` (`n` legal entries,
/// `w`-bit counts) from the draws `draw_<r>_<b>` of the `banks` RNG banks; bank `b`'s
/// registers advance only when `en_<b>` is high, and `cur` selects the active bank when
/// there are two.
///
/// `n <= PRECOMPUTE_MAX_MOVES`: per bank, registers `kc_<r>_<b>_<c>` = `(x·c)>>32` for
/// `c = 2..=n` (constant multiplications, written as shift-adds; `c = 1` gives 0, so a role with
/// one legal move needs no draw logic at all), and `k` is a mux on the count. Otherwise the
/// draw is registered per bank and multiplied by the count in the step cycle.
fn write_k(s: &mut String, ri: usize, n: usize, w: usize, pipes: &Pipes, mux_k: bool) {
    let w1 = w - 1;
    if n > PRECOMPUTE_MAX_MOVES {
        for (b, ce) in pipes.list() {
            let _ = writeln!(
                s,
                "reg  [31:0] drawq_{ri}_{b};\nalways @(posedge clk) if ({ce}) drawq_{ri}_{b} <= draw_{ri}_{b};"
            );
        }
        pipes.write_pick(s, &format!("drawq_{ri}"), 32, |b| format!("drawq_{ri}_{b}"));
        let _ = writeln!(
            s,
            "wire [{w1}:0] k_{ri};\n\
             wire [31:0] frac_unused_{ri}; // k = (draw * count) >> 32; the low word is not needed\n\
             assign {{k_{ri}, frac_unused_{ri}}} = {{{{{w}{{1'b0}}}}, drawq_{ri}}} * {{{{32{{1'b0}}}}, cnt_{ri}}};"
        );
        return;
    }
    if mux_k {
        let _ = writeln!(s, "reg  [{w1}:0] k_{ri};");
    }
    let mut cases = String::new();
    for c in 2..=n {
        for (b, ce) in pipes.list() {
            // x·c as shifts and adds (no `*`: yosys would put a constant product into a slow
            // DSP block on ECP5 / xc7).
            let terms: Vec<String> = (0..bits_for(c))
                .filter(|bit| c >> bit & 1 == 1)
                .map(|bit| format!("({{{{{w}{{1'b0}}}}, draw_{ri}_{b}}} << {bit})"))
                .collect();
            let _ = writeln!(
                s,
                "wire [{h}:0] kp_{ri}_{b}_{c} = {};\n\
                 reg  [{w1}:0] kc_{ri}_{b}_{c};\n\
                 always @(posedge clk) if ({ce}) kc_{ri}_{b}_{c} <= kp_{ri}_{b}_{c}[{h}:32];\n\
                 wire [31:0] kp_unused_{ri}_{b}_{c} = kp_{ri}_{b}_{c}[31:0];",
                terms.join(" + "),
                h = 31 + w,
            );
        }
        pipes.write_pick(s, &format!("kc_{ri}_{c}"), w, |b| {
            format!("kc_{ri}_{b}_{c}")
        });
        let _ = writeln!(cases, "        {w}'d{c}: k_{ri} = kc_{ri}_{c};");
    }
    if mux_k {
        let _ = writeln!(
            s,
            "always @* begin\n    case (cnt_{ri})\n{cases}        default: k_{ri} = {w}'d0;\n    endcase\nend"
        );
    }
}

/// Writes the engine module. `stages` is the RNG pipeline depth, `engines` the number of
/// engines in the design (the playout index stride), `banks` the RNG banks per role (1, or
/// 2..=4: the idle ones prefetch the next playouts' first draws), `cslow` the number of
/// interleaved playout threads (1 or 2); see the module docs.
pub fn write_engine(
    net: &Netlist,
    names: &Names,
    stages: u32,
    engines: u32,
    banks: u32,
    cslow: u32,
) -> String {
    let shape = CoreShape::of(net);
    let (l, i, nl, r) = (
        shape.latches,
        shape.inputs,
        shape.legal_total(),
        net.roles.len(),
    );
    let c2 = cslow == 2;
    let prefetch = banks >= 2;
    let pipes = Pipes::new(banks, cslow);
    let lat = if pipes.per_thread {
        draw_latency(stages, 1)
    } else {
        draw_latency(stages, cslow)
    };
    let pad = lat - draw_latency(stages, 1);
    let slots = draw_slots(stages, banks, cslow);
    let stride = engines * cslow;
    let k_cut = crate::core::cut_gates(net).len().max(1);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// One playout engine: {cslow} interleaved playout thread(s); thread j runs playouts\n\
         // ENGINE_ID+{engines}*j, then every {stride}th index after it, < playouts.\n\
         // {banks} RNG bank(s) per role, draw latency {lat} cycles.\n\
         // Generated by propnet-hdl; do not edit.\n\
         `default_nettype none\n\
         module {m} #(\n    parameter [31:0] ENGINE_ID = 32'd0\n) (\n    \
         input  wire clk,\n    input  wire rst,\n    input  wire start,\n    \
         input  wire [63:0] seed,\n    input  wire [31:0] playouts,\n    \
         input  wire [31:0] max_steps,\n    input  wire [{l1}:0] start_state,\n    \
         output wire busy,\n    output reg  [31:0] n_play,\n    output reg  [47:0] n_steps,\n    \
         output reg  [31:0] n_term,\n    output reg  [31:0] n_limit,\n    \
         output reg  [31:0] n_stuck,\n    output reg  [{g1}:0] gsum\n);\n\
         reg  [{l1}:0] st;\n\
         wire [{l1}:0] nx;\nwire [{nl1}:0] lg_a;\nwire term_a;\nwire [{i1}:0] mv;",
        m = names.engine,
        l1 = l - 1,
        nl1 = nl - 1,
        i1 = i - 1,
        g1 = 48 * r - 1,
    );
    if c2 {
        // Stage 0 (thread A): st -> legal / terminal / cut, registered; stage 1
        // (thread B, the previous cycle's stage 0): choice and next state.
        let _ = writeln!(
            s,
            "wire [{k1}:0] cut_a;\n\
             reg  [{k1}:0] cut_s;\nreg  [{l1}:0] st_s;\nreg  [{nl1}:0] lg;\nreg  term;\n\
             always @(posedge clk) begin cut_s <= cut_a; lg <= lg_a; term <= term_a; end\n\
             {core} core (.st(st), .mv(mv), .cut_out(cut_a), .cut_in(cut_s), .nx(nx), .lg(lg_a), \
             .term(term_a));",
            k1 = k_cut - 1,
            l1 = l - 1,
            nl1 = nl - 1,
            core = names.core,
        );
    } else {
        let _ = writeln!(
            s,
            "wire [{l1}:0] st_s = st;\nwire [{nl1}:0] lg = lg_a;\nwire term = term_a;\n\
             {core} core (.st(st), .mv(mv), .nx(nx), .lg(lg_a), .term(term_a));",
            l1 = l - 1,
            nl1 = nl - 1,
            core = names.core,
        );
    }
    // Per-thread context. With two threads every field has a second register `<f>_r` (the
    // thread in stage 0); the controller updates the stage-1 thread's fields into `<f>_nx`,
    // which go to `<f>_r` while `<f>_r` moves to `<f>` (a two-register ring).
    let mut fields: Vec<(String, usize)> = vec![
        ("run".into(), 1),
        ("step".into(), 32),
        ("lim".into(), 1),
        ("more".into(), 1),
        ("nidx".into(), 32),
        ("nn".into(), 33),
    ];
    for b in 0..banks {
        fields.push((format!("iss_{b}"), 24));
        fields.push((format!("rdy_{b}"), 1));
        fields.push((format!("bp_{b}"), 32));
    }
    if prefetch {
        fields.push(("cur".into(), cur_bits(banks)));
    }
    let decl = |f: &str, w: usize| {
        if w == 1 {
            format!("reg  {f};")
        } else {
            format!("reg  [{}:0] {f};", w - 1)
        }
    };
    for (f, w) in &fields {
        let _ = writeln!(s, "{}", decl(f, *w));
        if c2 {
            let _ = writeln!(s, "{}", decl(&format!("{f}_r"), *w));
        }
    }
    // RNG banks: issue counter `iss` (the pipeline holds the draws of steps iss - slots ..
    // once `rdy`), playout index `bp`, clock enable `en`. The active bank advances every
    // cycle (it is discarded at the end of a playout); the idle one until it is full.
    if prefetch {
        // A ring of banks: `cur` serves the playout, `cur + 1` holds the next one's draws.
        let w = cur_bits(banks);
        for b in 0..banks {
            let _ = writeln!(s, "wire en_{b} = (cur == {w}'d{b}) | ~rdy_{b};");
        }
        let _ = writeln!(
            s,
            "wire rdy_cur = {};\nwire rdy_nxt = {};",
            bank_mux("cur", banks, |b| format!("rdy_{b}")),
            bank_mux("cur", banks, |b| format!("rdy_{}", (b + 1) % banks)),
        );
    } else {
        let _ = writeln!(
            s,
            "wire en_0 = 1'b1;\nwire rdy_cur = rdy_0;\nwire rdy_nxt = 1'b1;"
        );
    }
    // Choosers.
    let mut sel_of_input: Vec<Vec<String>> = vec![Vec::new(); i];
    let mut off = 0;
    let mut nones = Vec::new();
    for (ri, role) in net.roles.iter().enumerate() {
        let n = role.legal.len();
        let _ = writeln!(
            s,
            "// Role {ri}: {} ({n} moves).",
            crate::names::comment(&role.name)
        );
        if n == 0 {
            let _ = writeln!(s, "wire none_{ri} = 1'b1;");
            nones.push(format!("none_{ri}"));
            continue;
        }
        let w = bits_for(n);
        for (b, ce) in pipes.list() {
            let clk = if stages > 0 {
                format!(".clk(clk), .ce({ce}), ")
            } else {
                String::new()
            };
            let out = if pad > 0 {
                format!("draw_raw_{ri}_{b}")
            } else {
                format!("draw_{ri}_{b}")
            };
            let bank = &b[b.len() - 1..];
            let _ = writeln!(
                s,
                "wire [31:0] {out};\n{rng} rng_{ri}_{b} ({clk}.key0(seed[31:0]), \
                 .key1(seed[63:32]), .ctr0(bp_{bank}), .ctr1({{iss_{bank}, 8'd{ri}}}), .draw({out}));",
                rng = names.threefry,
            );
            if pad > 0 {
                // Align the draw latency to the thread interleave.
                let _ = writeln!(
                    s,
                    "reg  [31:0] draw_{ri}_{b};\nalways @(posedge clk) draw_{ri}_{b} <= {out};"
                );
            }
        }
        let grouped = n > crate::chooser::GROUPED_ABOVE_MOVES;
        if grouped {
            crate::chooser::write_group_counts(&mut s, ri, n, w, off, c2);
        } else {
            let _ = writeln!(s, "wire [{w1}:0] pre_{ri}_0 = {w}'d0;", w1 = w - 1);
            write_prefix_counts(&mut s, ri, n, w, off);
            let _ = writeln!(s, "wire [{w1}:0] cnt_{ri} = pre_{ri}_{n};", w1 = w - 1);
        }
        let parallel = n <= PARALLEL_COMPARE_MAX_MOVES;
        write_k(&mut s, ri, n, w, &pipes, !parallel);
        if grouped {
            crate::chooser::write_group_select(&mut s, ri, n, w, off);
        }
        // No legal move: an OR of the legal bits, shallower than the count.
        let _ = writeln!(s, "wire none_{ri} = ~(|lg[{}:{off}]);", off + n - 1);
        for (j, legal) in role.legal.iter().enumerate() {
            if parallel {
                // Compare the prefix count with every k_c in parallel with the count, then
                // pick by the count: one mux level instead of mux then compare.
                let mut cases = String::new();
                for c in 2..=n {
                    let _ = writeln!(
                        cases,
                        "        {w}'d{c}: hit_{ri}_{j} = (pre_{ri}_{j} == kc_{ri}_{c});"
                    );
                }
                let _ = writeln!(
                    s,
                    "reg  hit_{ri}_{j};\nalways @* begin\n    case (cnt_{ri})\n{cases}        \
                     default: hit_{ri}_{j} = (pre_{ri}_{j} == {w}'d0);\n    endcase\nend\n\
                     wire sel_{ri}_{j} = lg[{}] & hit_{ri}_{j};",
                    off + j
                );
            } else if !grouped {
                let _ = writeln!(
                    s,
                    "wire sel_{ri}_{j} = lg[{}] & (pre_{ri}_{j} == k_{ri});",
                    off + j
                );
            }
            sel_of_input[legal.input.index()].push(format!("sel_{ri}_{j}"));
        }
        nones.push(format!("none_{ri}"));
        off += n;
    }
    for (x, sels) in sel_of_input.iter().enumerate() {
        let e = if sels.is_empty() {
            "1'b0".to_string()
        } else {
            sels.join(" | ")
        };
        let _ = writeln!(s, "assign mv[{x}] = {e};");
    }
    // Controller of the stage-1 thread: next values of its context.
    let _ = writeln!(
        s,
        "wire stuck = {nones};\nwire at_limit = lim;\nwire running = run & rdy_cur;\n\
         wire ending = running & (term | at_limit | stuck);\n\
         wire step_now = running & ~ending;\n\
         // A playout finishes once the next one's draws are ready (or there is no next one).\n\
         wire finish = ending & (~more | rdy_nxt);\n\
         wire go_next = finish & more;\n\
         // nn = nidx + stride and max_steps - 1 are kept in registers, so no carry chain\n\
         // feeds the step-limit and more-playouts flags.\n\
         reg  [31:0] msm1;\nalways @(posedge clk) msm1 <= max_steps - 32'd1;\n\
         wire [32:0] nn_nx = go_next ? nn + 33'd{stride} : nn;\n\
         wire [31:0] step1 = step + 32'd1;\n\
         wire run_nx = run & ~(finish & ~more);\n\
         wire [31:0] step_nx = go_next ? 32'd0 : step_now ? step1 : step;\n\
         wire lim_nx = go_next ? (max_steps == 32'd0) : step_now ? (step == msm1) : lim;\n\
         wire more_nx = go_next ? (nn < {{1'b0, playouts}}) : more;\n\
         wire [31:0] nidx_nx = go_next ? nn[31:0] : nidx;\n\
         wire [{l1}:0] st_nx = go_next ? start_state : step_now ? nx : st_s;",
        nones = nones.join(" | "),
        l1 = l - 1,
    );
    let dm1 = slots - 1;
    for b in 0..banks {
        // Freed at the end of a playout: the single bank, or (prefetch) the active one, which
        // then fetches the playout `banks` later in the thread's sequence.
        let (freed, bp_next) = match banks {
            1 => ("go_next".to_string(), "nidx".to_string()),
            // Two banks: the playout after next is `nn`, already in a register.
            k => (
                format!("go_next & (cur == {}'d{b})", cur_bits(k)),
                if k == 2 {
                    "nn[31:0]".to_string()
                } else {
                    format!("bp_{b} + 32'd{}", k * stride)
                },
            ),
        };
        let _ = writeln!(
            s,
            "wire [23:0] iss_{b}_nx = ({freed}) ? 24'd0 : (run & en_{b}) ? iss_{b} + 24'd1 : iss_{b};\n\
             wire rdy_{b}_nx = ({freed}) ? 1'b0 : rdy_{b} | (run & en_{b} & (iss_{b} == 24'd{dm1}));\n\
             wire [31:0] bp_{b}_nx = ({freed}) ? {bp_next} : bp_{b};"
        );
    }
    if prefetch {
        let w = cur_bits(banks);
        let _ = writeln!(
            s,
            "wire [{}:0] cur_nx = go_next ? ((cur == {w}'d{}) ? {w}'d0 : cur + {w}'d1) : cur;",
            w - 1,
            banks - 1
        );
    }
    // Start values per thread j: playout ENGINE_ID + engines·j.
    let init = |j: u32, f: &str| -> String {
        let first = format!("(ENGINE_ID + 32'd{})", engines * j);
        let after = format!("({{1'b0, ENGINE_ID}} + 33'd{})", engines * j + stride);
        match f {
            "run" => format!(
                "({{1'b0, ENGINE_ID}} + 33'd{}) < {{1'b0, playouts}}",
                engines * j
            ),
            "step" => "32'd0".into(),
            "lim" => "(max_steps == 32'd0)".into(),
            "more" => format!("{after} < {{1'b0, playouts}}"),
            "nidx" => format!("ENGINE_ID + 32'd{}", engines * j + stride),
            "nn" => format!("{{1'b0, ENGINE_ID}} + 33'd{}", engines * j + 2 * stride),
            "bp_0" => first,
            f if f.starts_with("bp_") => {
                let b: u32 = f[3..].parse().unwrap_or(0);
                format!("ENGINE_ID + 32'd{}", engines * j + b * stride)
            }
            "cur" => format!("{}'d0", cur_bits(banks)),
            f if f.starts_with("iss_") => "24'd0".into(),
            _ => "1'b0".into(), // rdy_b
        }
    };
    let mut on_start = String::new();
    let mut on_cycle = String::new();
    for (f, _) in &fields {
        let _ = write!(on_start, "\n        {f} <= {};", init(0, f));
        if c2 {
            let _ = write!(on_start, " {f}_r <= {};", init(1, f));
            let _ = write!(on_cycle, "\n        {f} <= {f}_r; {f}_r <= {f}_nx;");
        } else {
            let _ = write!(on_cycle, "\n        {f} <= {f}_nx;");
        }
    }
    let (st_start, st_cycle) = match (c2, pipes.per_thread) {
        (true, true) => (
            "st <= start_state; st_s <= start_state; ph <= 1'b0;",
            "st <= st_nx; st_s <= st; ph <= ~ph;",
        ),
        (true, false) => (
            "st <= start_state; st_s <= start_state;",
            "st <= st_nx; st_s <= st;",
        ),
        _ => ("st <= start_state;", "st <= st_nx;"),
    };
    if pipes.per_thread {
        let _ = writeln!(
            s,
            "reg  ph; // thread in stage 1: its bank pipelines advance"
        );
    }
    let run_rst = if c2 {
        "run <= 1'b0; run_r <= 1'b0;"
    } else {
        "run <= 1'b0;"
    };
    let _ = writeln!(
        s,
        "always @(posedge clk) begin\n    \
         if (rst) begin\n        {run_rst}\n    \
         end else if (start) begin\n        {st_start}{on_start}\n    \
         end else begin\n        {st_cycle}{on_cycle}\n    \
         end\nend"
    );
    let mut gsum_clear = String::new();
    let mut gsum_add = String::new();
    for ri in 0..r {
        let _ = write!(gsum_clear, " gsum[{}:{}] <= 48'd0;", 48 * ri + 47, 48 * ri);
        let _ = write!(
            gsum_add,
            "\n            gsum[{h}:{lo}] <= gsum[{h}:{lo}] + {{40'd0, goal_p[{gh}:{gl}]}};",
            h = 48 * ri + 47,
            lo = 48 * ri,
            gh = 8 * ri + 7,
            gl = 8 * ri
        );
    }
    let busy = if c2 {
        "run | run_r | fin_q | fin_q2 | fin_q3"
    } else {
        "run | fin_q | fin_q2 | fin_q3"
    };
    let _ = writeln!(
        s,
        "// Result counters, one cycle behind the finish (off the step path); the goal sums\n\
         // {gl} cycles later, from the pipelined goal logic on the registered final state.\n\
         reg  fin_q;\nreg  fin_q2;\nreg  fin_q3;\nreg  term_q;\nreg  lim_q;\nreg  [31:0] len_q;\n\
         reg  [{l1}:0] st_fin;\nwire [{r8}:0] goal_p;\n\
         {goal} goals (.clk(clk), .st(st_fin), .goal(goal_p));\n\
         assign busy = {busy};\n\
         always @(posedge clk) begin\n    \
         term_q <= term; lim_q <= at_limit; len_q <= step; st_fin <= st_s;\n    \
         if (rst | start) begin\n        \
         fin_q <= 1'b0; fin_q2 <= 1'b0; fin_q3 <= 1'b0; n_play <= 32'd0; n_steps <= 48'd0; n_term <= 32'd0; n_limit <= 32'd0; n_stuck <= 32'd0;{gsum_clear}\n    \
         end else begin\n        \
         fin_q <= run & finish; fin_q2 <= fin_q; fin_q3 <= fin_q2;\n        \
         if (fin_q) begin\n            \
         n_play <= n_play + 32'd1;\n            \
         n_steps <= n_steps + {{16'd0, len_q}};\n            \
         if (term_q) n_term <= n_term + 32'd1;\n            \
         else if (lim_q) n_limit <= n_limit + 32'd1;\n            \
         else n_stuck <= n_stuck + 32'd1;\n        \
         end\n        \
         if (fin_q3) begin{gsum_add}\n        \
         end\n    \
         end\nend",
        r8 = 8 * r - 1,
        l1 = l - 1,
        gl = 1 + crate::goal::GOAL_LATENCY,
        goal = names.goal,
    );
    let none_bits: Vec<String> = (0..r).rev().map(|ri| format!("none_{ri}")).collect();
    // Trace record: playout index, step, term, limit, the no-move bits and the state.
    let rec_w = 32 + 32 + 2 + r + l;
    let _ = writeln!(
        s,
        "`ifdef PROPNET_TRACE\n\
         // Simulation only: one line per finished playout, parsed by propnet-hdl's sim module,\n\
         // printed when its goals leave the goal pipeline (the other fields delayed to match).\n\
         wire [{rw1}:0] rec_0 = {{{pidx}, step, term, at_limit, {nones}, st_s}};\n\
         reg  [{rw1}:0] rec_1, rec_2, rec_3;\n\
         always @(posedge clk) begin\n    \
         rec_1 <= rec_0; rec_2 <= rec_1; rec_3 <= rec_2;\n    \
         if (!rst && !start && fin_q3)\n        \
         $display(\"REC %0d %0d %0d %0d %0d %b %h %h\", ENGINE_ID, rec_3[{p_hi}:{p_lo}], \
         rec_3[{s_hi}:{s_lo}], rec_3[{t}], rec_3[{a}], rec_3[{n_hi}:{n_lo}], goal_p, rec_3[{l1}:0]);\n\
         end\n\
         `endif\nendmodule\n`default_nettype wire",
        nones = none_bits.join(", "),
        rw1 = rec_w - 1,
        p_hi = rec_w - 1,
        p_lo = rec_w - 32,
        s_hi = rec_w - 33,
        s_lo = rec_w - 64,
        t = rec_w - 65,
        a = rec_w - 66,
        n_hi = l + r - 1,
        n_lo = l,
        l1 = l - 1,
        pidx = if prefetch {
            bank_mux("cur", banks, |b| format!("bp_{b}"))
        } else {
            "bp_0".to_string()
        }
    );
    s
}
