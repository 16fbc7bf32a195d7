//! Orders a recursive on-demand call before a literal that would enumerate its free
//! arguments, so the call is made with the bindings its caller has.
//!
//! Arithmetic written as recursion over `succ`, such as
//! `absDiff(x, y, z) :- lt(y, x), succ(xm1, x), absDiff(xm1, y, zm1), succ(zm1, z)`, asked
//! for `absDiff(x, _, z)`, is answered by one call `absDiff(x - 1, _, z - 1)` per level. The
//! planner otherwise binds every variable a call shares before making it, so `lt(y, x)`
//! enumerates every `y` below `x` first and each opens a fully bound call of its own, which
//! opens more: millions of goals with no answers. Within the rules of an on-demand
//! relation, a call into the relation's own component therefore does not wait for a
//! literal over a complete (materialized) static relation that returns more than
//! [`ENUMERATES`] atoms per lookup with the arguments bound at that point (estimated from
//! the number of distinct values at its bound argument positions). Literals that bind
//! functionally, like `succ(xm1, x)` with `x` bound, still come first.

use super::fixpoint::Grounder;
use super::rules::{CRule, PLit, RelKind};
use crate::gdl::RelId;
use crate::terms::TermId;
use rustc_hash::{FxHashMap, FxHashSet};

/// Atoms per lookup above which a literal counts as enumerating.
pub const ENUMERATES: usize = 2;

/// Number of distinct values per argument position of complete static relations.
#[derive(Default)]
pub struct Distinct {
    counts: FxHashMap<(RelId, usize), usize>,
}

impl Distinct {
    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.counts.capacity() * (std::mem::size_of::<(RelId, usize)>() + 8)
    }
}

/// What the planner needs to know about one rule of an on-demand relation: per body
/// literal, whether it is a call into the rule's own component and, for a literal over a
/// materialized relation, its size and distinct values per argument position.
pub struct CallHint {
    recursive: Vec<bool>,
    sizes: Vec<Option<(usize, Vec<usize>)>>,
}

impl CallHint {
    /// Whether body literal `call` (a recursive call) may be made before body literal
    /// `other` while the variables in `bound` are bound: `other` would enumerate.
    pub fn call_first(&self, rule: &CRule, call: usize, other: usize, bound: &[bool]) -> bool {
        if !self.recursive[call] {
            return false;
        }
        let (Some((size, distinct)), Some(a)) = (&self.sizes[other], rule.body[other].atom())
        else {
            return false;
        };
        let keyed = a
            .args
            .iter()
            .zip(distinct)
            .filter(|(t, _)| t.ground_under(bound))
            .map(|(_, &d)| d.max(1))
            .max()
            .unwrap_or(1);
        size.div_ceil(keyed) > ENUMERATES
    }
}

impl Grounder<'_> {
    /// The [`CallHint`] of `rule`, a rule of an on-demand relation.
    pub fn call_hint(&mut self, rule: &CRule, comp_of: &[u32]) -> CallHint {
        let comp = comp_of[rule.head.rel.0 as usize];
        let mut recursive = Vec::with_capacity(rule.body.len());
        let mut sizes = Vec::with_capacity(rule.body.len());
        for lit in &rule.body {
            let a = match lit {
                PLit::Pos(a) => Some(a),
                _ => None,
            };
            recursive.push(a.is_some_and(|a| {
                self.kind[a.rel.0 as usize] == RelKind::OnDemand
                    && comp_of[a.rel.0 as usize] == comp
            }));
            sizes.push(
                a.filter(|a| self.kind[a.rel.0 as usize] == RelKind::Static)
                    .map(|a| {
                        let d = (0..a.args.len()).map(|i| self.distinct(a.rel, i)).collect();
                        (self.store.rel_atoms[a.rel.0 as usize].len(), d)
                    }),
            );
        }
        CallHint { recursive, sizes }
    }

    /// Distinct values at argument position `i` of the materialized relation `rel`.
    fn distinct(&mut self, rel: RelId, i: usize) -> usize {
        if let Some(&n) = self.distinct_values.counts.get(&(rel, i)) {
            return n;
        }
        let values: FxHashSet<TermId> = self.store.rel_atoms[rel.0 as usize]
            .iter()
            .map(|&atom| self.store.atoms.args(atom)[i])
            .collect();
        self.distinct_values.counts.insert((rel, i), values.len());
        values.len()
    }
}
