//! Factors an operand shared by the `And` operands of an `Or`: `a∧b ∨ a∧c ∨ d` →
//! `a∧(b∨c) ∨ d` (and dually `(a∨b)∧(a∨c)` → `a∨(b∧c)`), where the factored gates have no
//! other user and the rewrite saves gates or edges without adding either. The most frequent
//! shared operand is taken first, then the next among the operands left, and so on.

use super::rebuild::{rebuild, Rebuilder, Rewrite};
use crate::{Gate, GateId, Netlist};
use std::collections::HashMap;

/// Runs the pass; returns true when the netlist changed.
pub fn run(net: &mut Netlist) -> bool {
    rebuild(net, |rb, _, gate| match gate {
        Gate::Or(ops) => factor(rb, ops, false),
        Gate::And(ops) => factor(rb, ops, true),
        _ => Rewrite::Keep,
    })
}

/// Most operands factored out of one gate in one run (each costs a scan of its operands).
const MAX_FACTORS: usize = 8;

/// The operands of `x` when it is a single-use gate of the inner kind (`And` inside an `Or`
/// when `outer_and` is false) with at least two operands.
fn inner_ops(rb: &Rebuilder, x: GateId, outer_and: bool) -> Option<&[GateId]> {
    match rb.gate(x) {
        Gate::And(v) if !outer_and && v.len() >= 2 && rb.single_use(x) => Some(v),
        Gate::Or(v) if outer_and && v.len() >= 2 && rb.single_use(x) => Some(v),
        _ => None,
    }
}

/// The operand shared by most inner gates among `ops` (at least two), with those gates.
fn best_shared(rb: &Rebuilder, ops: &[GateId], outer_and: bool) -> Option<(GateId, Vec<GateId>)> {
    let mut count: HashMap<GateId, u32> = HashMap::new();
    for &x in ops {
        if let Some(v) = inner_ops(rb, x, outer_and) {
            for &o in v {
                *count.entry(o).or_default() += 1;
            }
        }
    }
    let (&a, &m) = count
        .iter()
        .max_by_key(|(&o, &c)| (c, std::cmp::Reverse(o)))?;
    if m < 2 {
        return None;
    }
    let holders = ops
        .iter()
        .copied()
        .filter(|&x| inner_ops(rb, x, outer_and).is_some_and(|v| v.contains(&a)))
        .collect();
    Some((a, holders))
}

/// Whether factoring `a` out of `holders` (of an outer gate with `k` operands) saves
/// something: gates and edges both do not grow and one of them shrinks.
fn pays(rb: &Rebuilder, a: GateId, holders: &[GateId], k: usize, outer_and: bool) -> bool {
    let m = holders.len() as i64;
    let (mut residual_gates, mut residual_edges, mut old_edges) = (0i64, 0i64, 0i64);
    for &x in holders {
        let v = inner_ops(rb, x, outer_and).expect("holder");
        let r = v.iter().filter(|&&o| o != a).count() as i64;
        old_edges += v.len() as i64;
        if r >= 2 {
            residual_gates += 1;
            residual_edges += r;
        }
    }
    let outer_left = k as i64 > m;
    let gates = residual_gates + 2 + i64::from(outer_left) - m - 1;
    let edges = residual_edges + m + 2 + if outer_left { k as i64 - m + 1 } else { 0 }
        - old_edges
        - k as i64;
    gates <= 0 && edges <= 0 && gates + edges < 0
}

/// Factors the operands of an outer `Or` (`outer_and` false) or `And`.
fn factor(rb: &mut Rebuilder, ops: &[GateId], outer_and: bool) -> Rewrite {
    let mut rest: Vec<GateId> = ops.to_vec();
    rest.sort_unstable();
    rest.dedup();
    let mut factored = Vec::new();
    // Bounded work per gate; the next optimize round continues.
    while factored.len() < MAX_FACTORS {
        let Some((a, holders)) = best_shared(rb, &rest, outer_and) else {
            break;
        };
        if !pays(rb, a, &holders, rest.len() + factored.len(), outer_and) {
            break;
        }
        let residuals: Vec<GateId> = holders
            .iter()
            .map(|&x| {
                let v: Vec<GateId> = inner_ops(rb, x, outer_and)
                    .expect("holder")
                    .iter()
                    .copied()
                    .filter(|&o| o != a)
                    .collect();
                if v.len() == 1 {
                    v[0]
                } else {
                    rb.push(Gate::and_or(!outer_and, v))
                }
            })
            .collect();
        let mut joined = residuals;
        joined.sort_unstable();
        joined.dedup();
        let joined = rb.push(Gate::and_or(outer_and, joined));
        let mut pair = vec![a, joined];
        pair.sort_unstable();
        factored.push(rb.push(Gate::and_or(!outer_and, pair)));
        rest.retain(|x| holders.binary_search(x).is_err());
    }
    if factored.is_empty() {
        return Rewrite::Keep;
    }
    rest.extend(factored);
    if rest.len() == 1 {
        return Rewrite::To(rest[0]);
    }
    rest.sort_unstable();
    Rewrite::Gate(Gate::and_or(outer_and, rest))
}
