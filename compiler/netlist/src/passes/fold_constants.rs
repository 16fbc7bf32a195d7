//! Propagates constants through `Not`/`And`/`Or` (dropping neutral operands, folding on an
//! absorbing one) and removes inputs of moves that are never legal (their `Input` gate becomes
//! `Const(false)`). Constant *latches* are found by `drop_constant_latches`, not here.

use super::rebuild::{rebuild, Rebuilder, Rewrite};
use crate::{Gate, GateId, InputId, Netlist};

/// Runs the pass; returns true when the netlist changed.
pub fn run(net: &mut Netlist) -> bool {
    let folded = rebuild(net, |rb, _, gate| match gate {
        Gate::Not(a) => match rb.const_value(*a) {
            Some(v) => Rewrite::To(rb.constant(!v)),
            None => Rewrite::Keep,
        },
        Gate::And(ops) => fold(rb, ops, true),
        Gate::Or(ops) => fold(rb, ops, false),
        _ => Rewrite::Keep,
    });
    let dropped = drop_never_legal(net);
    folded || dropped
}

/// Folds an `And` (`is_and`) or `Or`: its neutral element is `is_and`, its absorbing one `!is_and`.
fn fold(rb: &mut Rebuilder, ops: &[GateId], is_and: bool) -> Rewrite {
    if !ops.is_empty() && ops.iter().all(|&o| rb.const_value(o).is_none()) {
        return Rewrite::Keep;
    }
    let mut kept = Vec::with_capacity(ops.len());
    for &o in ops {
        match rb.const_value(o) {
            Some(v) if v == is_and => {}
            Some(_) => return Rewrite::To(rb.constant(!is_and)),
            None => kept.push(o),
        }
    }
    if kept.is_empty() {
        Rewrite::To(rb.constant(is_and))
    } else {
        Rewrite::Gate(Gate::and_or(is_and, kept))
    }
}

/// Removes every input that no role can ever choose: its legal gate is `Const(false)`, or it
/// is in no legal list at all. Its `Input` gate becomes `Const(false)`; inputs are renumbered
/// compactly and legal lists keep their order. Returns true when an input was removed.
pub(crate) fn drop_never_legal(net: &mut Netlist) -> bool {
    let is_false = |g: GateId, gates: &[Gate]| matches!(gates[g.index()], Gate::Const(false));
    let mut keep = vec![false; net.inputs.len()];
    for role in &mut net.roles {
        role.legal.retain(|l| !is_false(l.gate, &net.gates));
        for l in &role.legal {
            keep[l.input.index()] = true;
        }
    }
    if keep.iter().all(|&k| k) {
        return false;
    }
    let mut renumber = vec![None; net.inputs.len()];
    let mut next = 0u32;
    for (i, &k) in keep.iter().enumerate() {
        if k {
            renumber[i] = Some(InputId(next));
            next += 1;
        }
    }
    let mut i = 0;
    net.inputs.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    for g in &mut net.gates {
        if let Gate::Input(x) = *g {
            *g = match renumber[x.index()] {
                Some(y) => Gate::Input(y),
                None => Gate::Const(false),
            };
        }
    }
    for role in &mut net.roles {
        for l in &mut role.legal {
            l.input = renumber[l.input.index()].expect("kept inputs are renumbered");
        }
    }
    true
}
