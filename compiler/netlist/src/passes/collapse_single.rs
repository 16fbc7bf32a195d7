//! Replaces an `And`/`Or` with one operand by that operand, and flattens a same-kind operand
//! that has no other user into its user (`And(And(a, b), c)` → `And(a, b, c)`). Shared inner
//! gates are left alone (inlining them would add edges without removing a gate).

use super::rebuild::{rebuild, Rebuilder, Rewrite};
use crate::{Gate, GateId, Netlist};

/// Runs the pass; returns true when the netlist changed.
pub fn run(net: &mut Netlist) -> bool {
    rebuild(net, |rb, _, gate| match gate {
        Gate::And(ops) => collapse(rb, ops, true),
        Gate::Or(ops) => collapse(rb, ops, false),
        _ => Rewrite::Keep,
    })
}

fn collapse(rb: &Rebuilder, ops: &[GateId], is_and: bool) -> Rewrite {
    let inlined = |o: GateId| match rb.gate(o) {
        Gate::And(_) => is_and && rb.single_use(o),
        Gate::Or(_) => !is_and && rb.single_use(o),
        _ => false,
    };
    if ops.len() != 1 && !ops.iter().any(|&o| inlined(o)) {
        return Rewrite::Keep;
    }
    let mut flat = Vec::with_capacity(ops.len());
    for &o in ops {
        match rb.gate(o) {
            Gate::And(inner) if is_and && rb.single_use(o) => flat.extend_from_slice(inner),
            Gate::Or(inner) if !is_and && rb.single_use(o) => flat.extend_from_slice(inner),
            _ => flat.push(o),
        }
    }
    match (flat.len(), is_and) {
        (1, _) => Rewrite::To(flat[0]),
        (_, true) => Rewrite::Gate(Gate::And(flat)),
        (_, false) => Rewrite::Gate(Gate::Or(flat)),
    }
}
