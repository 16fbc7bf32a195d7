//! Absorption against a gate's own operands: in `And(a, .., X)` an operand `X = And(xs)`
//! needs only the `xs` that are not already operands (none left: `X` is dropped; one left:
//! `X` is replaced by it), and an operand `X = Or(xs)` with some `x` among the operands is
//! implied and dropped (`a ∧ (a ∨ y) = a`); dually for `Or`. Unlike flattening
//! (`collapse_single`) this also applies to shared `X`, and never adds an edge.

use super::rebuild::{rebuild, Rebuilder, Rewrite};
use crate::{Gate, GateId, Netlist};

/// Runs the pass; returns true when the netlist changed.
pub fn run(net: &mut Netlist) -> bool {
    rebuild(net, |rb, _, gate| match gate {
        Gate::And(ops) => absorb(rb, ops, true),
        Gate::Or(ops) => absorb(rb, ops, false),
        _ => Rewrite::Keep,
    })
}

/// What becomes of one operand `X` of the gate.
enum Fate {
    Keep,
    Drop,
    Replace(GateId),
}

fn fate(rb: &Rebuilder, sorted: &[GateId], x: GateId, is_and: bool) -> Fate {
    let inside = |o: &GateId| sorted.binary_search(o).is_ok();
    match rb.gate(x) {
        Gate::And(xs) | Gate::Or(xs) if xs.is_empty() => Fate::Keep,
        Gate::And(xs) | Gate::Or(xs) if matches!(rb.gate(x), Gate::And(_)) == is_and => {
            let mut rest = xs.iter().filter(|o| !inside(o));
            match (rest.next(), rest.next()) {
                (None, _) => Fate::Drop,
                (Some(&r), None) => Fate::Replace(r),
                _ => Fate::Keep,
            }
        }
        Gate::And(xs) | Gate::Or(xs) if xs.iter().any(inside) => Fate::Drop,
        _ => Fate::Keep,
    }
}

/// Absorbs the operands of an `And` (`is_and`) or `Or` gate with operands `ops`.
fn absorb(rb: &mut Rebuilder, ops: &[GateId], is_and: bool) -> Rewrite {
    if ops.len() < 2 {
        return Rewrite::Keep;
    }
    let mut sorted = ops.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let fates: Vec<Fate> = ops.iter().map(|&x| fate(rb, &sorted, x, is_and)).collect();
    if fates.iter().all(|f| matches!(f, Fate::Keep)) {
        return Rewrite::Keep;
    }
    let mut out: Vec<GateId> = ops
        .iter()
        .zip(&fates)
        .filter_map(|(&x, f)| match f {
            Fate::Keep => Some(x),
            Fate::Drop => None,
            Fate::Replace(r) => Some(*r),
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    match (out.len(), is_and) {
        (0, _) => Rewrite::To(rb.constant(is_and)),
        (1, _) => Rewrite::To(out[0]),
        (_, _) => Rewrite::Gate(Gate::and_or(is_and, out)),
    }
}
