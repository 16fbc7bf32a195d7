//! Factors an operand shared by the `And` operands of an `Or`: `a∧b ∨ a∧c ∨ d` →
//! `a∧(b∨c) ∨ d` (and dually `(a∨b)∧(a∨c)` → `a∨(b∧c)`), where the factored gates have no
//! other user and the rewrite saves gates or edges without adding either. The most frequent
//! shared operand is taken first, then the next among the operands left, and so on.

use super::rebuild::{rebuild, Rebuilder, Rewrite};
use crate::{Gate, GateId, Netlist};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Runs the pass; returns true when the netlist changed.
pub fn run(net: &mut Netlist) -> bool {
    rebuild(net, |rb, _, gate| match gate {
        Gate::Or(ops) => factor(rb, ops, false),
        Gate::And(ops) => factor(rb, ops, true),
        _ => Rewrite::Keep,
    })
}

/// The operands of `x` when it is a single-use gate of the inner kind (`And` inside an `Or`
/// when `outer_and` is false) with at least two operands.
fn inner_ops(rb: &Rebuilder, x: GateId, outer_and: bool) -> Option<&[GateId]> {
    match rb.gate(x) {
        Gate::And(v) if !outer_and && v.len() >= 2 && rb.single_use(x) => Some(v),
        Gate::Or(v) if outer_and && v.len() >= 2 && rb.single_use(x) => Some(v),
        _ => None,
    }
}

/// How often each operand occurs in the inner gates among a gate's operands that are not
/// factored yet, kept up to date as holders leave; the most frequent comes first.
struct Shared {
    /// Inner gates among the operands with their operand lists; `None` once factored.
    inner: Vec<Option<(GateId, Vec<GateId>)>>,
    /// Per operand: its count and the indices into `inner` of the gates holding it.
    holders: HashMap<GateId, (u32, Vec<u32>)>,
    /// (count, operand) candidates, possibly stale (counts only fall).
    queue: BinaryHeap<(u32, Reverse<GateId>)>,
}

impl Shared {
    fn new(rb: &Rebuilder, ops: &[GateId], outer_and: bool) -> Shared {
        let inner: Vec<_> = ops
            .iter()
            .filter_map(|&x| inner_ops(rb, x, outer_and).map(|v| Some((x, v.to_vec()))))
            .collect();
        let mut holders: HashMap<GateId, (u32, Vec<u32>)> = HashMap::new();
        for (i, entry) in inner.iter().enumerate() {
            for &o in &entry.as_ref().expect("all present").1 {
                // Every occurrence counts (as the choice always did); a gate listing an
                // operand twice is still one holder.
                let h = holders.entry(o).or_default();
                h.0 += 1;
                if h.1.last() != Some(&(i as u32)) {
                    h.1.push(i as u32);
                }
            }
        }
        let queue = holders
            .iter()
            .filter(|(_, h)| h.0 >= 2)
            .map(|(&o, h)| (h.0, Reverse(o)))
            .collect();
        Shared {
            inner,
            holders,
            queue,
        }
    }

    /// The operand shared by most remaining inner gates (at least two; ties to the smallest
    /// id), with those gates (sorted, each once).
    fn best(&mut self) -> Option<(GateId, Vec<GateId>)> {
        while let Some((c, Reverse(a))) = self.queue.pop() {
            let (now, at) = &self.holders[&a];
            if *now != c {
                if *now >= 2 {
                    self.queue.push((*now, Reverse(a)));
                }
                continue;
            }
            let mut gates: Vec<GateId> = at
                .iter()
                .filter_map(|&i| self.inner[i as usize].as_ref().map(|e| e.0))
                .collect();
            gates.sort_unstable();
            return Some((a, gates));
        }
        None
    }

    /// Removes the inner gates holding `a` from the counts.
    fn take(&mut self, a: GateId) {
        let at = std::mem::take(&mut self.holders.get_mut(&a).expect("counted").1);
        for i in at {
            if let Some((_, v)) = self.inner[i as usize].take() {
                for o in v {
                    self.holders.get_mut(&o).expect("counted").0 -= 1;
                }
            }
        }
    }
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
    let mut shared = Shared::new(rb, &rest, outer_and);
    while let Some((a, holders)) = shared.best() {
        if !pays(rb, a, &holders, rest.len() + factored.len(), outer_and) {
            break;
        }
        shared.take(a);
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

#[cfg(test)]
mod tests {
    use crate::from_text;

    #[test]
    fn an_operand_listed_twice_in_one_gate_is_one_holder() {
        // `a` twice in the only single-use `And`: nothing to share, nothing to rewrite.
        let text = "role r0 \"p\"\ninput i0 r0 \"(go)\"\n\
            latch l0 \"(a)\" init 0\nlatch l1 \"(b)\" init 1\nlatch l2 \"(c)\" init 0\n\
            g0 = latch l0\ng1 = latch l1\ng2 = latch l2\n\
            g3 = and g0 g0 g1\ng4 = or g3 g2\ng5 = input i0\n\
            next l0 g4\nnext l1 g1\nnext l2 g2\nlegal r0 i0 g1\nterminal g2\n";
        let net = from_text(text).expect("valid text");
        let mut out = net.clone();
        assert!(!super::run(&mut out), "rewrote:\n{}", crate::to_text(&out));
        assert_eq!(out, net);
    }
}
