//! The RNG banks of a role: its Threefry pipelines ([`Pipes`]), the bank multiplexer and the
//! `k = (x·count)>>32` logic fed by the active bank.

use super::{bits_for, PRECOMPUTE_MAX_MOVES};
use std::fmt::Write;

/// The physical RNG pipelines of a role: one per bank, and with prefetch banks and two
/// threads one per (thread, bank), advancing only in its thread's slots.
pub(super) struct Pipes {
    /// (suffix, clock-enable expression) per pipeline; the suffix ends with the bank digit.
    list: Vec<(String, String)>,
    banks: u32,
    pub(super) per_thread: bool,
}

impl Pipes {
    pub(super) fn new(banks: u32, cslow: u32) -> Self {
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
    pub(super) fn list(&self) -> impl Iterator<Item = (&str, &str)> {
        self.list.iter().map(|(n, ce)| (n.as_str(), ce.as_str()))
    }
    /// Declares `out` (`w` bits) = the active pipeline's value `f(suffix)`. With per-thread
    /// pipelines the pick is a register loaded a cycle early for the stage-0 thread (its
    /// pipelines do not advance in the other thread's slot, and `cur_r` is its bank), so
    /// the bank mux is off the step path.
    pub(super) fn write_pick(
        &self,
        s: &mut String,
        out: &str,
        w: usize,
        f: impl Fn(&str) -> String,
    ) {
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
pub(super) fn cur_bits(banks: u32) -> usize {
    bits_for(banks as usize - 1)
}

/// A Verilog expression selecting `f(b)` for the bank `b` = `sel` (a [`cur_bits`]-bit
/// register; `banks` ≥ 2).
pub(super) fn bank_mux(sel: &str, banks: u32, f: impl Fn(u32) -> String) -> String {
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
pub(super) fn write_k(s: &mut String, ri: usize, n: usize, w: usize, pipes: &Pipes, mux_k: bool) {
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
