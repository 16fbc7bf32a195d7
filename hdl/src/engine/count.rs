//! Small counting circuits of the chooser: bit widths, gate-level adders and the prefix
//! counts of legal bits.

use std::fmt::Write;

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
pub(super) fn write_prefix_counts(s: &mut String, ri: usize, n: usize, w: usize, off: usize) {
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
