//! Removes inverters: `Not(Not x)` → `x`, and De Morgan rewrites only where they save gates:
//! `Not(Or(Not a, Not b, ..))` → `And(a, b, ..)` when the `Or` has no other user (and dually),
//! and `And(Not a, Not b, ..)` → `Not(Or(a, b, ..))` when each of the k ≥ 2 `Not`s has no
//! other user (k + 1 gates become 2; dually for `Or`). Mixed operand lists are left alone.

use super::rebuild::{rebuild, Rebuilder, Rewrite};
use crate::{Gate, GateId, Netlist};

/// Runs the pass; returns true when the netlist changed.
pub fn run(net: &mut Netlist) -> bool {
    rebuild(net, |rb, _, gate| match gate {
        Gate::Not(a) => match rb.gate(*a) {
            Gate::Not(x) => Rewrite::To(*x),
            Gate::And(ops) | Gate::Or(ops) if rb.single_use(*a) => {
                let is_and = matches!(rb.gate(*a), Gate::And(_));
                match inverted(rb, ops, false) {
                    Some(inner) => Rewrite::Gate(Gate::and_or(!is_and, inner)),
                    None => Rewrite::Keep,
                }
            }
            _ => Rewrite::Keep,
        },
        Gate::And(ops) => pull_out(rb, ops, true),
        Gate::Or(ops) => pull_out(rb, ops, false),
        _ => Rewrite::Keep,
    })
}

/// `And(Not a, Not b, ..)` → `Not(Or(a, b, ..))` when at least two `Not`s, all single-use.
fn pull_out(rb: &mut Rebuilder, ops: &[GateId], is_and: bool) -> Rewrite {
    if ops.len() >= 2 {
        if let Some(inner) = inverted(rb, ops, true) {
            let g = rb.push(Gate::and_or(!is_and, inner));
            return Rewrite::Gate(Gate::Not(g));
        }
    }
    Rewrite::Keep
}

/// The operands of the `Not`s in `ops`, if every operand is a `Not` (each single-use when
/// `single` is set) and there is at least one.
fn inverted(rb: &Rebuilder, ops: &[GateId], single: bool) -> Option<Vec<GateId>> {
    if ops.is_empty() {
        return None;
    }
    ops.iter()
        .map(|&o| match rb.gate(o) {
            Gate::Not(x) if !single || rb.single_use(o) => Some(*x),
            _ => None,
        })
        .collect()
}
