//! Factors an atom's rule instances before they become gates: the literals that every
//! instance of one rule shares are taken out of that rule's `Or`,
//! `p :- a, b(k1), c(k1) | a, b(k2), c(k2) | …` → `And(a, Or(And(b(k1), c(k1)), …))`,
//! where that makes fewer gates.
//!
//! Instances of one rule for one head atom differ only in the bindings of the rule's
//! body-only variables, so the literals over head variables alone (in chess's `legal`:
//! `control`, the piece on the source square, the pseudo-legal move) recur in every one,
//! and only the body-only part (the king's square and the check test there) varies. Taken
//! out, the varying parts are small `And`s that hash-consing shares between head atoms (one
//! king square and threat test serve many moves) instead of one wide `And` per head atom
//! and binding: chess's `legal` falls from 2.45 M gates and 18.4 M edges to 0.48 M and
//! 2.86 M.
//!
//! Where the varying parts are single literals the optimizer's `factor_shared` pass does
//! the same and more, and where they are wider but never recur factoring adds a gate per
//! atom, so a rule's instances are factored only when there are many
//! ([`MIN_INSTANCES`]), most varying parts have two literals or more, and factoring makes
//! fewer new gates: each varying part seen before (in this relation) is counted as
//! shared, each full instance `And` already made as free. Without the last test
//! othello-comp2007 ends 144 gates larger. The result is logically the same `Or` of `And`s
//! (distributivity).

use super::gates::Gates;
use propnet_netlist::{Gate, GateId};
use rustc_hash::{FxHashSet, FxHasher};
use std::hash::{Hash, Hasher};

/// Most varying parts remembered per relation (8 bytes each).
const MAX_SEEN: usize = 1 << 22;

/// Fewest instances of one rule for one atom that are factored. Below it the optimizer's
/// `factor_shared` and `merge_equivalent` find forms as small or smaller (measured on the
/// corpus: with 4, kalaha_2009 ends 34 gates larger, with 8 six; with 16 no game but the
/// chess-like ones changes).
const MIN_INSTANCES: usize = 16;

/// The instances of one head atom.
#[derive(Default)]
pub struct Instances {
    /// Per instance: rule index and end of its body in `lits`.
    heads: Vec<(usize, usize)>,
    /// Bodies: sorted literals (`atom << 1 | negated`) without repeats.
    lits: Vec<u32>,
}

/// Hashes of the varying parts (gates of two or more literals) seen so far in one
/// relation's atoms, what factoring counts as shared.
pub type Seen = FxHashSet<u64>;

impl Instances {
    /// Adds an instance of rule `rule` with body `body` (sorted, no repeats); the
    /// instances of one rule must come one after another.
    pub fn push(&mut self, rule: usize, body: &[u32]) {
        self.lits.extend_from_slice(body);
        self.heads.push((rule, self.lits.len()));
    }

    /// Every body literal of every instance (`atom << 1 | negated`).
    pub fn literals(&self) -> &[u32] {
        &self.lits
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        16 * self.heads.capacity() + 4 * self.lits.capacity()
    }

    /// The `Or` of the instances as gates (module docs); `lit` makes a literal's gate,
    /// `seen` holds the varying parts of the relation's earlier atoms.
    pub fn gate(
        &self,
        gates: &mut Gates,
        seen: &mut Seen,
        lit: &mut dyn FnMut(&mut Gates, u32) -> GateId,
    ) -> GateId {
        let mut terms: Vec<GateId> = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i < self.heads.len() {
            let rule = self.heads[i].0;
            let mut j = i;
            let mut bodies: Vec<&[u32]> = Vec::new();
            while j < self.heads.len() && self.heads[j].0 == rule {
                let end = self.heads[j].1;
                bodies.push(&self.lits[start..end]);
                start = end;
                j += 1;
            }
            rule_terms(gates, &bodies, lit, seen, &mut terms);
            i = j;
        }
        gates.nary(false, terms)
    }
}

/// The `And` of literals `ls`.
fn and_of(gates: &mut Gates, ls: &[u32], lit: &mut dyn FnMut(&mut Gates, u32) -> GateId) -> GateId {
    let ops: Vec<GateId> = ls.iter().map(|&l| lit(gates, l)).collect();
    gates.nary(true, ops)
}

/// Pushes onto `terms` the `Or` operands for `bodies` (instances of one rule): their
/// `And`s, or one `And` with the shared literals factored out when that makes fewer new
/// gates (module docs).
fn rule_terms(
    gates: &mut Gates,
    bodies: &[&[u32]],
    lit: &mut dyn FnMut(&mut Gates, u32) -> GateId,
    seen: &mut FxHashSet<u64>,
    terms: &mut Vec<GateId>,
) {
    let common = if bodies.len() >= MIN_INSTANCES {
        shared(bodies)
    } else {
        Vec::new()
    };
    // Single-literal varying parts are left to `factor_shared`, which also shares
    // their `Or`s between atoms (module docs).
    let wide = bodies
        .iter()
        .filter(|b| b.len() >= common.len() + 2)
        .count();
    if common.is_empty() || 2 * wide < bodies.len() || !pays(gates, bodies, &common, lit, seen) {
        terms.extend(bodies.iter().map(|b| and_of(gates, b, lit)));
        return;
    }
    let mut rest = Vec::new();
    let mut ands = Vec::with_capacity(bodies.len());
    for b in bodies {
        rest.clear();
        rest.extend(
            b.iter()
                .copied()
                .filter(|l| common.binary_search(l).is_err()),
        );
        if rest.is_empty() {
            // This instance is the shared part alone: it implies every other one.
            terms.push(and_of(gates, &common, lit));
            return;
        }
        ands.push(and_of(gates, &rest, lit));
    }
    let alternatives = gates.nary(false, ands);
    let mut ops: Vec<GateId> = common.iter().map(|&l| lit(gates, l)).collect();
    ops.push(alternatives);
    terms.push(gates.nary(true, ops));
}

/// Whether factoring `common` out of `bodies` makes fewer new gates than one `And` per
/// body, counting varying parts seen before as shared and remembering these ones.
fn pays(
    gates: &mut Gates,
    bodies: &[&[u32]],
    common: &[u32],
    lit: &mut dyn FnMut(&mut Gates, u32) -> GateId,
    seen: &mut FxHashSet<u64>,
) -> bool {
    let (mut factored, mut plain) = (2usize, 0usize);
    let mut rest: Vec<GateId> = Vec::new();
    for b in bodies {
        rest.clear();
        for &l in b.iter().filter(|l| common.binary_search(l).is_err()) {
            rest.push(lit(gates, l));
        }
        rest.sort_unstable();
        rest.dedup();
        if rest.len() >= 2 {
            let mut h = FxHasher::default();
            rest.hash(&mut h);
            let key = h.finish();
            if !seen.contains(&key) {
                factored += 1;
                if seen.len() < MAX_SEEN {
                    seen.insert(key);
                }
            }
        }
        let mut ops: Vec<GateId> = b.iter().map(|&l| lit(gates, l)).collect();
        ops.sort_unstable();
        ops.dedup();
        if ops.len() >= 2 && !gates.exists(&Gate::And(ops)) {
            plain += 1;
        }
    }
    factored < plain
}

/// The literals in every one of `bodies` (each sorted), sorted.
fn shared(bodies: &[&[u32]]) -> Vec<u32> {
    let mut common: Vec<u32> = bodies[0].to_vec();
    for b in &bodies[1..] {
        common.retain(|l| b.binary_search(l).is_ok());
        if common.is_empty() {
            break;
        }
    }
    common
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet_netlist::InputId;

    /// Input gates standing for atoms `0..n` (literal `l` is atom `l >> 1`).
    fn atom_gates(gates: &mut Gates, n: u32) -> Vec<GateId> {
        (0..n)
            .map(|i| gates.push(Gate::Input(InputId(i))))
            .collect()
    }

    fn ops(gates: &Gates, g: GateId) -> Vec<GateId> {
        gates.net.gates[g.0 as usize].operands().to_vec()
    }

    /// `n` instances of rule 0 per head atom: the atom's own literal (`shared`) and a
    /// varying part of two literals, the same `n` parts for every head atom.
    fn head_atoms(gates: &mut Gates, shared: &[u32], n: u32) -> Vec<GateId> {
        let ins = atom_gates(gates, 2 * n + shared.len() as u32 + 2);
        let mut lit = |_: &mut Gates, l: u32| ins[(l >> 1) as usize];
        let mut seen = Seen::default();
        let mut heads = Vec::new();
        for &s in shared {
            let mut insts = Instances::default();
            for k in 0..n {
                let base = 2 * (shared.len() as u32 + 2 * k);
                let mut body = vec![2 * s, base, base + 2];
                body.sort_unstable();
                insts.push(0, &body);
            }
            heads.push(insts.gate(gates, &mut seen, &mut lit));
        }
        heads
    }

    #[test]
    fn recurring_varying_parts_are_factored_and_shared() {
        let mut gates = Gates::default();
        let heads = head_atoms(&mut gates, &[0, 1, 2], MIN_INSTANCES as u32);
        // The first atom pays for new parts and stays a plain Or of Ands; the later
        // ones are And(own literal, Or(parts)) and share that Or.
        assert_eq!(ops(&gates, heads[0]).len(), MIN_INSTANCES);
        let h1 = ops(&gates, heads[1]);
        let h2 = ops(&gates, heads[2]);
        assert_eq!(h1.len(), 2, "{h1:?}");
        assert_eq!(h2.len(), 2, "{h2:?}");
        let alternatives = |h: &[GateId]| *h.iter().max().unwrap();
        assert_eq!(alternatives(&h1), alternatives(&h2));
        assert_eq!(ops(&gates, alternatives(&h1)).len(), MIN_INSTANCES);
    }

    #[test]
    fn few_instances_stay_plain() {
        let mut gates = Gates::default();
        let n = MIN_INSTANCES as u32 - 1;
        let heads = head_atoms(&mut gates, &[0, 1, 2], n);
        for h in heads {
            assert_eq!(ops(&gates, h).len(), n as usize);
        }
    }

    #[test]
    fn rules_keep_their_instances_apart() {
        let mut gates = Gates::default();
        let ins = atom_gates(&mut gates, 8);
        let mut lit = |_: &mut Gates, l: u32| ins[(l >> 1) as usize];
        let mut insts = Instances::default();
        insts.push(0, &[0, 2]);
        insts.push(1, &[4]);
        let g = insts.gate(&mut gates, &mut Seen::default(), &mut lit);
        let terms = ops(&gates, g);
        assert_eq!(terms.len(), 2);
        assert!(terms.contains(&ins[2]));
    }
}
