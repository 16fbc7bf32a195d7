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

/// Flattens the single-use same-kind operands of an `And` (`is_and`) or `Or` gate with
/// operands `ops`. Each inlined operand's list is moved out of it (it has no other user and
/// is left empty, dead), and the longest one is extended in place rather than copied: a
/// chain `And(And(And(a, b), c), d)` flattens in time and memory linear in its length.
fn collapse(rb: &mut Rebuilder, ops: &[GateId], is_and: bool) -> Rewrite {
    let inlined = |rb: &Rebuilder, o: GateId| match rb.gate(o) {
        Gate::And(_) => is_and && rb.single_use(o),
        Gate::Or(_) => !is_and && rb.single_use(o),
        _ => false,
    };
    let longest = ops
        .iter()
        .enumerate()
        .filter(|&(_, &o)| inlined(rb, o))
        .max_by_key(|&(k, &o)| (rb.gate(o).operands().len(), std::cmp::Reverse(k)))
        .map(|(k, _)| k);
    if ops.len() != 1 && longest.is_none() {
        return Rewrite::Keep;
    }
    let mut flat = match longest {
        Some(k) => rb.take_operands(ops[k]),
        None => Vec::with_capacity(1),
    };
    // The longest list goes first (where it was when it is the first operand), then the
    // other operands in order.
    for (k, &o) in ops.iter().enumerate() {
        if Some(k) == longest {
            continue;
        }
        match inlined(rb, o) {
            true => flat.extend(rb.take_operands(o)),
            false => flat.push(o),
        }
    }
    match (flat.len(), is_and) {
        (1, _) => Rewrite::To(flat[0]),
        (_, true) => Rewrite::Gate(Gate::And(flat)),
        (_, false) => Rewrite::Gate(Gate::Or(flat)),
    }
}
