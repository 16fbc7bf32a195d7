//! Writes the group-wise k-th-legal-entry chooser for roles with many legal entries: counts
//! per group of [`GROUP_SIZE`] consecutive entries, a prefix over the group counts, then the
//! chosen group and the entry inside it.
//!
//! For a role with `n` legal entries (`n >` [`GROUPED_ABOVE_MOVES`]) and legal bits `lg`,
//! the move is the entry `j` with `lg[j]` set and exactly `k` set bits before it
//! (`k = (x·count)>>32`, [`propnet_netlist::rng::choose`]). A flat Kogge–Stone prefix count
//! over all `n` bits costs `ceil(log2 n)` levels of `n` `ceil(log2 n)`-bit adders
//! (breakthrough, `n = 155`: ~1 k 8-bit adders per role). Here:
//! 1. in-group inclusive prefix counts `q` of `G` bits (Sklansky, `bits(G)`-bit adders);
//!    the last one is the group count `C_g`;
//! 2. exclusive prefix `P_g` over the `m = ceil(n/G)` group counts (Sklansky over `m`);
//!    `count = P_m`;
//! 3. group `g` is chosen iff `P_g ≤ k < P_{g+1}` (one `k ≥ P_g` comparator per group; an
//!    empty group has `P_g = P_{g+1}` and is never chosen; the last group needs no upper
//!    bound because `k < count` whenever a bit is set);
//! 4. per group `d_g = (k − P_g) mod 2^b`, `b = bits(G − 1)`: in the chosen group
//!    `k − P_g < C_g ≤ G`, so the low `b` bits are the whole difference (a `b`-bit subtract,
//!    in parallel with the comparator);
//! 5. entry `j` (position `i` in group `g`) is selected iff `lg[j]`, group `g` is chosen and
//!    its in-group exclusive prefix (`q_{i−1}`, 0 for `i = 0`) equals `d_g`.
//!
//! With C-slow 2 steps 1–2 run in stage 0 on the unregistered legal bits and `q`, `P` are
//! registered with them, so stage 1 starts the multiplier from a registered count.
//!
//! The result is exactly the flat chooser's for every count, 0 included (no bit set: no
//! entry selected). Adders are gate-level ripples ([`crate::engine`]'s `write_gate_add`) so ABC
//! can merge them with the logic around them.

use crate::engine::{bits_for, write_gate_add};
use std::fmt::Write;

/// Roles with more legal entries than this use the group-wise chooser; smaller roles keep the
/// flat prefix count (timing-tuned for connect four and tic-tac-toe). Equal to
/// [`crate::engine::PRECOMPUTE_MAX_MOVES`], so every grouped role takes `k` from the
/// registered-draw multiplier.
pub const GROUPED_ABOVE_MOVES: usize = 32;

/// Entries per group (`G`). Measured on one 155-entry breakthrough role alone (`synth_ice40`,
/// without the multiplier): 8 → 1494 LUT4, 16 → 1613 LUT4.
pub const GROUP_SIZE: usize = 8;

/// `v` (`from` bits) zero-extended to `to ≥ from` bits, as an expression.
fn widen(v: &str, from: usize, to: usize) -> String {
    if to == from {
        v.to_string()
    } else {
        format!("{{{}'d0, {v}}}", to - from)
    }
}

/// Writes a Sklansky inclusive prefix sum (J. Sklansky, "Conditional-sum addition logic",
/// IRE Trans. Electronic Computers 1960: at level `l` every entry with bit `l` of its index
/// set adds the last sum of the lower half of its `2^(l+1)` block) of `terms` = (expression,
/// largest value) into wires `<name>_<level>_<i>`, each as wide as its largest value needs (so
/// no adder bit is structurally constant); returns (wire, largest value) of the inclusive
/// sums. `ceil(log2 len)` adder levels like Kogge–Stone, but at most `len/2` adders per level
/// instead of up to `len − 1` (fan-out costs nothing in LUTs).
fn write_scan(s: &mut String, name: &str, terms: &[(String, usize)]) -> Vec<(String, usize)> {
    let n = terms.len();
    let mut cur: Vec<(String, usize)> = Vec::with_capacity(n);
    for (i, (t, max)) in terms.iter().enumerate() {
        let _ = writeln!(s, "wire [{}:0] {name}_0_{i} = {t};", bits_for(*max) - 1);
        cur.push((format!("{name}_0_{i}"), *max));
    }
    let mut level = 0;
    while (1usize << level) < n {
        let d = 1usize << level;
        let mut next = Vec::with_capacity(n);
        for i in 0..n {
            let out = format!("{name}_{}_{i}", level + 1);
            let (a, ma) = &cur[i];
            if i & d != 0 {
                let (b, mb) = &cur[(i & !(2 * d - 1)) + d - 1];
                let max = ma + mb;
                let w = bits_for(max);
                let _ = writeln!(
                    s,
                    "wire [{w1}:0] {out}_a = {};\nwire [{w1}:0] {out}_b = {};",
                    widen(a, bits_for(*ma), w),
                    widen(b, bits_for(*mb), w),
                    w1 = w - 1
                );
                write_gate_add(s, &out, &format!("{out}_a"), &format!("{out}_b"), w);
                next.push((out, max));
            } else {
                let _ = writeln!(s, "wire [{}:0] {out} = {a};", bits_for(*ma) - 1);
                next.push((out, *ma));
            }
        }
        cur = next;
        level += 1;
    }
    cur
}

/// Number of groups of a role with `n` legal entries.
pub fn groups(n: usize) -> usize {
    n.div_ceil(GROUP_SIZE)
}

/// Bits of an in-group offset: `bits(G − 1)`.
fn offset_bits() -> usize {
    bits_for(GROUP_SIZE - 1)
}

/// Writes the counting half of the grouped chooser of role `ri` (`n >` [`GROUPED_ABOVE_MOVES`]
/// entries at legal bits `off..off+n`, `w = bits_for(n)`): in-group scans `gq_<ri>_<g>_*`,
/// the in-group exclusive prefix `gx_<ri>_<j>` of every entry (`bits(G − 1)` bits), group
/// prefixes `gp_<ri>_<g>` (`g = 1..=m`, `w` bits) and `cnt_<ri>` (`w` bits).
///
/// `early` (C-slow 2): the counts are taken from the stage-0 legal bits `lg_a` and `gx`, `gp`
/// are registered with `lg`, so stage 1 starts the multiplier from a registered count (costs
/// `n·bits(G − 1) + m·w` flip-flops); else they are taken from `lg` combinationally.
pub(crate) fn write_group_counts(
    s: &mut String,
    ri: usize,
    n: usize,
    w: usize,
    off: usize,
    early: bool,
) {
    let m = groups(n);
    let b = offset_bits();
    let src = if early { "lg_a" } else { "lg" };
    let decl = |s: &mut String, name: String, w: usize, expr: String| {
        let _ = if early {
            writeln!(
                s,
                "wire [{w1}:0] {name}_a = {expr};\nreg  [{w1}:0] {name};\n\
                 always @(posedge clk) {name} <= {name}_a;",
                w1 = w - 1
            )
        } else {
            writeln!(s, "wire [{}:0] {name} = {expr};", w - 1)
        };
    };
    let mut counts = Vec::with_capacity(m);
    for g in 0..m {
        let lo = g * GROUP_SIZE;
        let hi = n.min(lo + GROUP_SIZE);
        let terms: Vec<(String, usize)> = (lo..hi)
            .map(|j| (format!("{src}[{}]", off + j), 1))
            .collect();
        let scan = write_scan(s, &format!("gq_{ri}_{g}"), &terms);
        let _ = writeln!(s, "wire [{}:0] gx_{ri}_{lo} = {b}'d0;", b - 1);
        for (i, (sum, max)) in scan[..scan.len() - 1].iter().enumerate() {
            let name = format!("gx_{ri}_{}", lo + i + 1);
            decl(s, name, b, widen(sum, bits_for(*max), b));
        }
        counts.push(scan.last().expect("non-empty group").clone());
    }
    let scan = write_scan(s, &format!("gs_{ri}"), &counts);
    for (g, (sum, max)) in scan.iter().enumerate() {
        decl(
            s,
            format!("gp_{ri}_{}", g + 1),
            w,
            widen(sum, bits_for(*max), w),
        );
    }
    let _ = writeln!(s, "wire [{}:0] cnt_{ri} = gp_{ri}_{m};", w - 1);
}

/// Writes the selecting half of the grouped chooser of role `ri` (after
/// [`write_group_counts`] and the `k_<ri>` wire): the chosen-group flags `gsel_<ri>_<g>`, the
/// in-group offsets `gd_<ri>_<g>` and one `sel_<ri>_<j>` per entry.
pub(crate) fn write_group_select(s: &mut String, ri: usize, n: usize, w: usize, off: usize) {
    let m = groups(n);
    let b1 = offset_bits() - 1;
    assert!(b1 < w, "grouped roles have more than GROUP_SIZE entries");
    for g in 1..m {
        let _ = writeln!(s, "wire gge_{ri}_{g} = (k_{ri} >= gp_{ri}_{g});");
    }
    for g in 0..m {
        // Group 0 has no lower bound; the last group no upper bound (k < count whenever any
        // legal bit is set).
        let sel = match (g == 0, g + 1 == m) {
            (true, true) => "1'b1".to_string(),
            (true, false) => format!("~gge_{ri}_1"),
            (false, true) => format!("gge_{ri}_{g}"),
            (false, false) => format!("gge_{ri}_{g} & ~gge_{ri}_{}", g + 1),
        };
        let d = if g == 0 {
            format!("k_{ri}[{b1}:0]")
        } else {
            format!("k_{ri}[{b1}:0] - gp_{ri}_{g}[{b1}:0]")
        };
        let _ = writeln!(
            s,
            "wire gsel_{ri}_{g} = {sel};\nwire [{b1}:0] gd_{ri}_{g} = {d};"
        );
    }
    for j in 0..n {
        let g = j / GROUP_SIZE;
        let _ = writeln!(
            s,
            "wire sel_{ri}_{j} = lg[{}] & gsel_{ri}_{g} & (gx_{ri}_{j} == gd_{ri}_{g});",
            off + j
        );
    }
}
