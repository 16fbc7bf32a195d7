//! The playout controller of the engine: the stage-1 thread's next context, the RNG banks'
//! counters, the register updates, the result counters and the simulation trace.

use super::{bank_mux, cur_bits, Engine};
use std::fmt::Write;

impl Engine<'_> {
    /// Writes the next values of the stage-1 thread's context (`<f>_nx`) from the end
    /// conditions: terminal, step limit, no legal move (`nones`).
    pub(super) fn write_controller(&self, s: &mut String, nones: &[String]) {
        let (l, stride) = (self.l, self.stride);
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
    }

    /// Writes each RNG bank's next issue counter, ready flag and playout index, and the
    /// active bank's successor.
    pub(super) fn write_bank_updates(&self, s: &mut String) {
        let (banks, slots, stride, prefetch) = (self.banks, self.slots, self.stride, self.prefetch);
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
    }

    /// Writes the clocked updates of the state and context registers: the start values per
    /// thread on `start`, the ring (or plain) update every other cycle.
    pub(super) fn write_registers(&self, s: &mut String) {
        let (c2, banks) = (self.c2, self.banks);
        let (pipes, fields) = (&self.pipes, &self.fields);
        // Start values per thread j: playout ENGINE_ID + engines·j + k·stride, from `ids`.
        let id = |j: u32, k: u32| {
            let lo = super::start_id_offset(banks, j, k);
            format!("ids[{}:{lo}]", lo + 31)
        };
        let init = |j: u32, f: &str| -> String {
            match f {
                "run" => format!("{{1'b0, {}}} < {{1'b0, playouts}}", id(j, 0)),
                "step" => "32'd0".into(),
                "lim" => "(max_steps == 32'd0)".into(),
                "more" => format!("{{1'b0, {}}} < {{1'b0, playouts}}", id(j, 1)),
                "nidx" => id(j, 1),
                "nn" => format!("{{1'b0, {}}}", id(j, 2)),
                "bp_0" => id(j, 0),
                f if f.starts_with("bp_") => id(j, f[3..].parse().unwrap_or(0)),
                "cur" => format!("{}'d0", cur_bits(banks)),
                f if f.starts_with("iss_") => "24'd0".into(),
                _ => "1'b0".into(), // rdy_b
            }
        };
        let mut on_start = String::new();
        let mut on_cycle = String::new();
        for (f, _) in fields {
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
    }

    /// Writes the result counters (one cycle behind a playout's finish) and the goal sums
    /// from the goal module.
    pub(super) fn write_counters(&self, s: &mut String) {
        let (l, r, c2, names) = (self.l, self.r, self.c2, self.names);
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
    }

    /// Writes the per-playout record of finished playouts (the record port with
    /// [`crate::Options::records`], and the simulation-only trace) and closes the module.
    pub(super) fn write_trace(&self, s: &mut String) {
        let (l, r, banks, prefetch) = (self.l, self.r, self.banks, self.prefetch);
        let none_bits: Vec<String> = (0..r).rev().map(|ri| format!("none_{ri}")).collect();
        // Record: playout index, step, term, limit, the no-move bits and the state, delayed
        // to leave with the goals (layout: `crate::records`).
        let rec_w = 32 + 32 + 2 + r + l;
        let (open, close) = if self.records {
            ("", "")
        } else {
            ("`ifdef PROPNET_TRACE\n", "`endif\n")
        };
        let _ = writeln!(
            s,
            "{open}wire [{rw1}:0] rec_0 = {{{pidx}, step, term, at_limit, {nones}, st_s}};\n\
             reg  [{rw1}:0] rec_1, rec_2, rec_3;\n\
             always @(posedge clk) begin rec_1 <= rec_0; rec_2 <= rec_1; rec_3 <= rec_2; end\n{close}",
            nones = none_bits.join(", "),
            rw1 = rec_w - 1,
            pidx = if prefetch {
                bank_mux("cur", banks, |b| format!("bp_{b}"))
            } else {
                "bp_0".to_string()
            }
        );
        if self.records {
            let _ = writeln!(
                s,
                "assign rec_v = fin_q3 & ~rst & ~start;\nassign rec = {{goal_p, rec_3}};"
            );
        }
        let _ = writeln!(
        s,
        "`ifdef PROPNET_TRACE\n\
         // Simulation only: one line per finished playout, parsed by propnet-hdl's sim module,\n\
         // printed when its goals leave the goal pipeline (the other fields delayed to match).\n\
         always @(posedge clk) begin\n    \
         if (!rst && !start && fin_q3)\n        \
         $display(\"REC %0d %0d %0d %0d %0d %b %h %h\", ids[31:0], rec_3[{p_hi}:{p_lo}] + base, \
         rec_3[{s_hi}:{s_lo}], rec_3[{t}], rec_3[{a}], rec_3[{n_hi}:{n_lo}], goal_p, rec_3[{l1}:0]);\n\
         end\n\
         `endif\nendmodule\n`default_nettype wire",
        p_hi = rec_w - 1,
        p_lo = rec_w - 32,
        s_hi = rec_w - 33,
        s_lo = rec_w - 64,
        t = rec_w - 65,
        a = rec_w - 66,
        n_hi = l + r - 1,
        n_lo = l,
        l1 = l - 1,
    );
    }
}
