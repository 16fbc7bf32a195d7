//! Writes one playout engine (`<prefix>_engine`): latch register bank, game core, one
//! Threefry draw and one k-th-legal-move chooser per role, and the playout controller FSM.
//!
//! Timing: in the run phase the engine makes one joint move per clock cycle. The random
//! draw for `(seed, playout, step, role)` is requested [`draw_latency`]`(S) = S + 1` cycles
//! ahead (`S` = RNG pipeline stages), because its counter is known in advance: `S` cycles in
//! the Threefry pipeline, then one cycle that precomputes the chooser's
//! `k_c = (x·c)>>32` for every possible legal-move count `c` (so the multiplier is off the
//! one-step-per-cycle path, which only selects `k_c` by the count). A new playout therefore
//! starts with `S + 1` fill cycles. Cycles per playout = `length + 2 + S` (the extra `+1` is
//! the cycle that detects the end and loads the next start state).

use crate::core::CoreShape;
use crate::Names;
use propnet_compiler::netlist::Netlist;
use std::fmt::Write;

/// Roles with at most this many legal entries get the precomputed `k_c` registers (one
/// constant multiplication per count `c`); roles with more keep one `x·count` multiplier
/// (fed by a registered draw, so the latency is the same) to bound the area.
pub const PRECOMPUTE_MAX_MOVES: usize = 32;

/// Cycles from requesting a draw to its chooser input being ready, for `stages` Threefry
/// pipeline stages: `stages + 1` (the `+1` is the `k_c` precompute register).
pub fn draw_latency(stages: u32) -> u32 {
    stages + 1
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
            let e = if j >= d {
                format!("ps_{ri}_{level}_{j} + ps_{ri}_{level}_{}", j - d)
            } else {
                format!("ps_{ri}_{level}_{j}")
            };
            let _ = writeln!(s, "wire [{w1}:0] ps_{ri}_{}_{j} = {e};", level + 1);
        }
        level += 1;
    }
    for j in 0..n {
        let _ = writeln!(s, "wire [{w1}:0] pre_{ri}_{} = ps_{ri}_{level}_{j};", j + 1);
    }
}

/// Writes `k_<r>` = `(x·cnt_<r>)>>32` for the draw `x` of role `r` (`n` legal entries,
/// `w`-bit counts), one cycle after the draw leaves the Threefry pipeline.
///
/// `n <= PRECOMPUTE_MAX_MOVES`: registers `kc_<r>_<c>` = `(x·c)>>32` for `c = 2..=n` (constant
/// multiplications, i.e. shift-adds; `c = 1` gives 0, so a role with one legal move needs
/// no draw logic at all), and `k` is a mux on the count. Otherwise the draw is registered
/// and multiplied by the count in the step cycle.
fn write_k(s: &mut String, ri: usize, n: usize, w: usize) {
    let w1 = w - 1;
    if n > PRECOMPUTE_MAX_MOVES {
        let _ = writeln!(
            s,
            "reg  [31:0] drawq_{ri};\nalways @(posedge clk) drawq_{ri} <= draw_{ri};\n\
             wire [{w1}:0] k_{ri};\n\
             wire [31:0] frac_unused_{ri}; // k = (draw * count) >> 32; the low word is not needed\n\
             assign {{k_{ri}, frac_unused_{ri}}} = {{{{{w}{{1'b0}}}}, drawq_{ri}}} * {{{{32{{1'b0}}}}, cnt_{ri}}};"
        );
        return;
    }
    let _ = writeln!(s, "reg  [{w1}:0] k_{ri};");
    let mut cases = String::new();
    for c in 2..=n {
        let _ = writeln!(
            s,
            "wire [{h}:0] kp_{ri}_{c} = {{{{{w}{{1'b0}}}}, draw_{ri}}} * {ww}'d{c};\n\
             reg  [{w1}:0] kc_{ri}_{c};\n\
             always @(posedge clk) kc_{ri}_{c} <= kp_{ri}_{c}[{h}:32];\n\
             wire [31:0] kp_unused_{ri}_{c} = kp_{ri}_{c}[31:0];",
            h = 31 + w,
            ww = 32 + w
        );
        let _ = writeln!(cases, "        {w}'d{c}: k_{ri} = kc_{ri}_{c};");
    }
    let _ = writeln!(
        s,
        "always @* begin\n    case (cnt_{ri})\n{cases}        default: k_{ri} = {w}'d0;\n    endcase\nend"
    );
}

/// Writes the engine module. `stages` is the RNG pipeline depth, `engines` the number of
/// engines in the design (the playout index stride).
pub fn write_engine(net: &Netlist, names: &Names, stages: u32, engines: u32) -> String {
    let shape = CoreShape::of(net);
    let (l, i, nl, r) = (
        shape.latches,
        shape.inputs,
        shape.legal_total(),
        net.roles.len(),
    );
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// One playout engine: runs playouts ENGINE_ID, ENGINE_ID+{engines}, ... < playouts.\n\
         // Generated by propnet-hdl; do not edit.\n\
         `default_nettype none\n\
         module {m} #(\n    parameter [31:0] ENGINE_ID = 32'd0\n) (\n    \
         input  wire clk,\n    input  wire rst,\n    input  wire start,\n    \
         input  wire [63:0] seed,\n    input  wire [31:0] playouts,\n    \
         input  wire [31:0] max_steps,\n    input  wire [{l1}:0] start_state,\n    \
         output reg  busy,\n    output reg  [31:0] n_play,\n    output reg  [47:0] n_steps,\n    \
         output reg  [31:0] n_term,\n    output reg  [31:0] n_limit,\n    \
         output reg  [31:0] n_stuck,\n    output reg  [{g1}:0] gsum\n);\n\
         reg  [{l1}:0] st;\nreg  [31:0] step;\nreg  [31:0] pidx;\nreg  [23:0] iss;\n\
         wire [{l1}:0] nx;\nwire [{nl1}:0] lg;\nwire term;\nwire [{r8}:0] goal;\nwire [{i1}:0] mv;\n\
         {core} core (.st(st), .mv(mv), .nx(nx), .lg(lg), .term(term), .goal(goal));",
        m = names.engine,
        core = names.core,
        l1 = l - 1,
        nl1 = nl - 1,
        i1 = i - 1,
        r8 = 8 * r - 1,
        g1 = 48 * r - 1,
    );
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
        let clk = if stages > 0 { ".clk(clk), " } else { "" };
        let _ = writeln!(
            s,
            "wire [31:0] draw_{ri};\n{rng} rng_{ri} ({clk}.key0(seed[31:0]), .key1(seed[63:32]), \
             .ctr0(pidx), .ctr1({{iss, 8'd{ri}}}), .draw(draw_{ri}));\n\
             wire [{w1}:0] pre_{ri}_0 = {w}'d0;",
            rng = names.threefry,
            w1 = w - 1
        );
        write_prefix_counts(&mut s, ri, n, w, off);
        let _ = writeln!(s, "wire [{w1}:0] cnt_{ri} = pre_{ri}_{n};", w1 = w - 1);
        write_k(&mut s, ri, n, w);
        let _ = writeln!(s, "wire none_{ri} = (cnt_{ri} == {w}'d0);");
        for (j, legal) in role.legal.iter().enumerate() {
            let _ = writeln!(
                s,
                "wire sel_{ri}_{j} = lg[{}] & (pre_{ri}_{j} == k_{ri});",
                off + j
            );
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
    let lat = draw_latency(stages);
    let fill = lat > 0;
    let _ = writeln!(
        s,
        "wire stuck = {};\nwire at_limit = (step == max_steps);",
        nones.join(" | ")
    );
    if fill {
        let _ = writeln!(
            s,
            "reg filling;\nreg [4:0] fcnt;\nwire running = busy & ~filling;"
        );
    } else {
        let _ = writeln!(s, "wire running = busy;");
    }
    let restart = if fill {
        format!("filling <= 1'b1; fcnt <= 5'd{};", lat - 1)
    } else {
        String::new()
    };
    let mut gsum_clear = String::new();
    let mut gsum_add = String::new();
    for ri in 0..r {
        let _ = write!(gsum_clear, " gsum[{}:{}] <= 48'd0;", 48 * ri + 47, 48 * ri);
        let _ = write!(
            gsum_add,
            "\n                gsum[{h}:{lo}] <= gsum[{h}:{lo}] + {{40'd0, goal[{gh}:{gl}]}};",
            h = 48 * ri + 47,
            lo = 48 * ri,
            gh = 8 * ri + 7,
            gl = 8 * ri
        );
    }
    let fill_step = if fill {
        "if (filling) begin\n                if (fcnt == 5'd0) filling <= 1'b0; else fcnt <= fcnt - 5'd1;\n            end else "
    } else {
        ""
    };
    let _ = writeln!(
        s,
        "wire ending = running & (term | at_limit | stuck);\n\
         wire [32:0] next_idx = {{1'b0, pidx}} + 33'd{engines};\n\
         wire more = next_idx < {{1'b0, playouts}};\n\
         always @(posedge clk) begin\n    \
         if (rst) begin\n        \
         busy <= 1'b0; n_play <= 32'd0; n_steps <= 48'd0; n_term <= 32'd0; n_limit <= 32'd0; n_stuck <= 32'd0;{gsum_clear}\n    \
         end else if (start) begin\n        \
         n_play <= 32'd0; n_steps <= 48'd0; n_term <= 32'd0; n_limit <= 32'd0; n_stuck <= 32'd0;{gsum_clear}\n        \
         busy <= (ENGINE_ID < playouts);\n        \
         pidx <= ENGINE_ID; st <= start_state; step <= 32'd0; iss <= 24'd0; {restart}\n    \
         end else if (busy) begin\n        \
         iss <= iss + 24'd1;\n        \
         {fill_step}if (ending) begin\n            \
         n_play <= n_play + 32'd1;\n            \
         n_steps <= n_steps + {{16'd0, step}};\n            \
         if (term) n_term <= n_term + 32'd1;\n            \
         else if (at_limit) n_limit <= n_limit + 32'd1;\n            \
         else n_stuck <= n_stuck + 32'd1;{gsum_add}\n            \
         if (more) begin\n                \
         pidx <= next_idx[31:0]; st <= start_state; step <= 32'd0; iss <= 24'd0; {restart}\n            \
         end else begin\n                busy <= 1'b0;\n            end\n        \
         end else begin\n            st <= nx;\n            step <= step + 32'd1;\n        end\n    \
         end\nend",
    );
    let none_bits: Vec<String> = (0..r).rev().map(|ri| format!("none_{ri}")).collect();
    let _ = writeln!(
        s,
        "`ifdef PROPNET_TRACE\n\
         // Simulation only: one line per finished playout, parsed by propnet-hdl's sim module.\n\
         always @(posedge clk)\n    \
         if (!rst && !start && ending)\n        \
         $display(\"REC %0d %0d %0d %0d %0d %b %h %h\", ENGINE_ID, pidx, step, term, at_limit, {{{}}}, goal, st);\n\
         `endif\nendmodule\n`default_nettype wire",
        none_bits.join(", ")
    );
    s
}
