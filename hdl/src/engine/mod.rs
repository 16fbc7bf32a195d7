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
//!   core is split (`core::write_core_split`) and a register level sits between
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

mod banks;
mod controller;
mod count;

use crate::{Names, Writer};
use banks::{bank_mux, cur_bits, write_k, Pipes};
use count::write_prefix_counts;
pub(crate) use count::{bits_for, write_gate_add};
use propnet_netlist::{Netlist, NetlistInfo, Role, RoleId};
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

/// Start indices per thread in the engine's `ids` port: `K + 3` would do for every field;
/// the controller uses offsets `0 ..= max(2, K − 1)` strides.
fn start_id_slots(banks: u32) -> u32 {
    banks.max(3)
}

/// 32-bit words of the engine's `ids` port for `banks` banks and `cslow` threads.
pub(crate) fn start_id_count(banks: u32, cslow: u32) -> u32 {
    start_id_slots(banks) * cslow.max(1)
}

/// Bit offset in `ids` of thread `j`'s start index `k` strides after its first playout.
pub(crate) fn start_id_offset(banks: u32, j: u32, k: u32) -> u32 {
    32 * (j * start_id_slots(banks) + k)
}

/// The `ids` port value of engine `engine` of `engines` (word `j·slots + k` =
/// `engine + engines·j + k·engines·cslow`, the playout index thread `j` starts `k` playouts
/// after its first), as a Verilog concatenation, most significant word first. The values
/// are the instance's constants, given as a port (not a parameter) so every engine is one
/// module, synthesized once with its hierarchy kept.
pub(crate) fn start_ids_literal(engine: u32, engines: u32, banks: u32, cslow: u32) -> String {
    let slots = start_id_slots(banks);
    let words: Vec<String> = (0..cslow.max(1))
        .flat_map(|j| (0..slots).map(move |k| (j, k)))
        .map(|(j, k)| format!("32'd{}", engine + engines * j + k * engines * cslow.max(1)))
        .rev()
        .collect();
    format!("{{{}}}", words.join(", "))
}

/// Writes the engine module of `w`'s design (see the module docs).
pub(crate) fn write_engine(w: &Writer<'_>) -> String {
    let e = Engine::new(w);
    let mut s = String::new();
    e.write_header(&mut s);
    e.write_core_instance(&mut s);
    e.write_context(&mut s);
    e.write_bank_enables(&mut s);
    let mut sel_of_input: Vec<Vec<String>> = vec![Vec::new(); e.i];
    let mut nones = Vec::new();
    for (ri, role) in e.net.roles.iter().enumerate() {
        nones.push(e.write_chooser(&mut s, ri, role, &mut sel_of_input));
    }
    for (x, sels) in sel_of_input.iter().enumerate() {
        let e = if sels.is_empty() {
            "1'b0".to_string()
        } else {
            sels.join(" | ")
        };
        let _ = writeln!(s, "assign mv[{x}] = {e};");
    }
    e.write_controller(&mut s, &nones);
    e.write_bank_updates(&mut s);
    e.write_registers(&mut s);
    e.write_counters(&mut s);
    e.write_trace(&mut s);
    s
}

/// The shape of one engine: the netlist and its analysis, the options as numbers, and what
/// follows from them (draw latency, strides, the context registers).
struct Engine<'a> {
    net: &'a Netlist,
    info: &'a NetlistInfo,
    names: &'a Names,
    /// Latches, inputs, legal entries over all roles, roles.
    l: usize,
    i: usize,
    nl: usize,
    r: usize,
    /// RNG pipeline stages (`S`), engines in the design, RNG banks per role, threads.
    stages: u32,
    engines: u32,
    banks: u32,
    cslow: u32,
    /// Two interleaved threads (C-slow 2).
    c2: bool,
    /// Two or more banks: the idle ones prefetch the next playouts' draws.
    prefetch: bool,
    /// Per-playout record port (`rec_v`, `rec`) for the top's record buffer.
    records: bool,
    pipes: Pipes,
    /// Draw latency in cycles of one pipeline (see [`draw_latency`]).
    lat: u32,
    /// Extra draw registers aligning the latency to the thread interleave.
    pad: u32,
    /// Draw latency in a thread's slots ([`draw_slots`]).
    slots: u32,
    /// Playout index stride of a thread: engines · threads.
    stride: u32,
    /// Per-thread context registers (name, bits). With two threads every field has a second
    /// register `<f>_r` (the thread in stage 0); the controller updates the stage-1 thread's
    /// fields into `<f>_nx`, which go to `<f>_r` while `<f>_r` moves to `<f>` (a
    /// two-register ring).
    fields: Vec<(String, usize)>,
}

impl<'a> Engine<'a> {
    fn new(w: &'a Writer<'a>) -> Self {
        let (net, o) = (w.net, &w.opts);
        let (stages, engines, banks, cslow) = (o.rng_stages, o.engines, o.banks, o.cslow);
        let prefetch = banks >= 2;
        let pipes = Pipes::new(banks, cslow);
        let lat = if pipes.per_thread {
            draw_latency(stages, 1)
        } else {
            draw_latency(stages, cslow)
        };
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
        Self {
            net,
            info: w.info,
            names: &w.names,
            l: net.latches.len(),
            i: net.inputs.len(),
            nl: w.info.legal_total(),
            r: net.roles.len(),
            stages,
            engines,
            banks,
            cslow,
            c2: cslow == 2,
            prefetch,
            records: o.records > 0,
            pipes,
            lat,
            pad: lat - draw_latency(stages, 1),
            slots: draw_slots(stages, banks, cslow),
            stride: engines * cslow,
            fields,
        }
    }

    /// Declares the module, its ports and the core's wires.
    fn write_header(&self, s: &mut String) {
        let names = self.names;
        let (l, i, nl, r) = (self.l, self.i, self.nl, self.r);
        let (cslow, engines, stride, banks, lat) =
            (self.cslow, self.engines, self.stride, self.banks, self.lat);
        let _ = writeln!(
        s,
        "// One playout engine: {cslow} interleaved playout thread(s); thread j runs playouts\n\
         // ENGINE_ID+{engines}*j, then every {stride}th index after it, < playouts.\n\
         // {banks} RNG bank(s) per role, draw latency {lat} cycles.\n\
         // `ids` = the start playout indices (constants of the instance; see propnet-hdl).\n\
         // Generated by propnet-hdl; do not edit.\n\
         `default_nettype none\n\
         module {m} (\n    \
         input  wire clk,\n    input  wire [{ids1}:0] ids,\n    input  wire rst,\n    input  wire start,\n    \
         input  wire [63:0] seed,\n    input  wire [31:0] base,\n    input  wire [31:0] playouts,\n    \
         input  wire [31:0] max_steps,\n    input  wire [{l1}:0] start_state,\n    \
         output wire busy,\n    output reg  [31:0] n_play,\n    output reg  [47:0] n_steps,\n    \
         output reg  [31:0] n_term,\n    output reg  [31:0] n_limit,\n    \
         output reg  [31:0] n_stuck,\n    output reg  [{g1}:0] gsum{rec_ports}\n);\n\
         reg  [{l1}:0] st;\n\
         wire [{l1}:0] nx;\nwire [{nl1}:0] lg_a;\nwire term_a;\nwire [{i1}:0] mv;",
        m = names.engine,
        ids1 = 32 * start_id_count(banks, cslow) - 1,
        l1 = l - 1,
        nl1 = nl - 1,
        i1 = i - 1,
        g1 = 48 * r - 1,
        rec_ports = if self.records {
            format!(
                ",\n    output wire rec_v,\n    output wire [{}:0] rec",
                crate::records::record_bits(r, l) - 1
            )
        } else {
            String::new()
        },
    );
    }

    /// Instantiates the core; with two threads, registers stage 0's outputs and the cut.
    fn write_core_instance(&self, s: &mut String) {
        let names = self.names;
        let (l, nl) = (self.l, self.nl);
        if self.c2 {
            let k_cut = crate::core::cut_gates(self.net, self.info).len().max(1);
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
    }

    /// Declares the per-thread context registers ([`Engine::fields`]).
    fn write_context(&self, s: &mut String) {
        let c2 = self.c2;
        let fields = &self.fields;
        let decl = |f: &str, w: usize| {
            if w == 1 {
                format!("reg  {f};")
            } else {
                format!("reg  [{}:0] {f};", w - 1)
            }
        };
        for (f, w) in fields {
            let _ = writeln!(s, "{}", decl(f, *w));
            if c2 {
                let _ = writeln!(s, "{}", decl(&format!("{f}_r"), *w));
            }
        }
    }

    /// Writes the RNG banks' clock enables and ready flags.
    fn write_bank_enables(&self, s: &mut String) {
        let (banks, prefetch) = (self.banks, self.prefetch);
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
    }

    /// Writes role `ri`'s chooser: its RNG bank pipelines, the prefix counts of its legal
    /// bits, `k`, and one select bit per legal entry (appended to `sel_of_input` of the
    /// entry's input). Returns the role's no-legal-move wire.
    fn write_chooser(
        &self,
        s: &mut String,
        ri: usize,
        role: &Role,
        sel_of_input: &mut [Vec<String>],
    ) -> String {
        let (pipes, c2) = (&self.pipes, self.c2);
        let off = self.info.legal_range(RoleId(ri as u32)).start;
        let n = role.legal.len();
        let _ = writeln!(
            s,
            "// Role {ri}: {} ({n} moves).",
            crate::names::comment(&role.name)
        );
        if n == 0 {
            let _ = writeln!(s, "wire none_{ri} = 1'b1;");
            return format!("none_{ri}");
        }
        let w = bits_for(n);
        self.write_draws(s, ri);
        let grouped = n > crate::chooser::GROUPED_ABOVE_MOVES;
        if grouped {
            crate::chooser::write_group_counts(s, ri, n, w, off, c2);
        } else {
            let _ = writeln!(s, "wire [{w1}:0] pre_{ri}_0 = {w}'d0;", w1 = w - 1);
            write_prefix_counts(s, ri, n, w, off);
            let _ = writeln!(s, "wire [{w1}:0] cnt_{ri} = pre_{ri}_{n};", w1 = w - 1);
        }
        let parallel = n <= PARALLEL_COMPARE_MAX_MOVES;
        write_k(s, ri, n, w, pipes, !parallel);
        if grouped {
            crate::chooser::write_group_select(s, ri, n, w, off);
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
        format!("none_{ri}")
    }

    /// Writes role `ri`'s RNG bank pipelines (`draw_<ri>_<bank>`), with the extra draw
    /// register when the latency is padded to the thread interleave.
    fn write_draws(&self, s: &mut String, ri: usize) {
        let (names, stages, pad, pipes) = (self.names, self.stages, self.pad, &self.pipes);
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
                 .key1(seed[63:32]), .base0(base), .ctr0(bp_{bank}), .ctr1({{iss_{bank}, 8'd{ri}}}), .draw({out}));",
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
    }
}
