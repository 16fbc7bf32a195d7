//! Enumerates the ground instances of the rules of one reachable dynamic atom: each rule
//! of its relation is joined with the head bound to the atom; static and demand literals
//! are decided at compile time and dropped, dynamic ones become the instance's body.

use super::fixpoint::Grounder;
use super::join::{Join, Stop};
use super::plan::{Mode, Step};
use super::rules::{CRule, PLit, PTerm};
use super::store::AtomId;
use super::GroundError;
use crate::gdl::{RelId, Sym};
use crate::terms::TermRef;
use rustc_hash::FxHashMap;

/// Join plans of rules with their head bound, per rule: the rule joined (its demand
/// guard left out: the head atom exists, so its demand does) and the plan.
#[derive(Default)]
pub struct HeadPlans {
    plans: FxHashMap<usize, (CRule, Vec<Step>)>,
    /// Per relation, its rules indexed by the head's outermost symbols.
    heads: FxHashMap<RelId, HeadIndex>,
}

/// The outermost symbol of a term: a constant (`u32::MAX`) or a functor and its arity.
type HeadKey = (Sym, u32);

/// The outermost symbol of a head pattern, `None` for a variable.
fn pattern_key(p: &PTerm) -> Option<HeadKey> {
    match p {
        PTerm::Var(_) => None,
        PTerm::Const(s) => Some((*s, u32::MAX)),
        PTerm::Fn(s, args) => Some((*s, args.len() as u32)),
    }
}

/// The outermost symbol of a ground term, as [`pattern_key`] gives it for a pattern.
fn term_key(t: TermRef<'_>) -> HeadKey {
    match t {
        TermRef::Const(s) => (s, u32::MAX),
        TermRef::Fn(s, args) => (s, args.len() as u32),
    }
}

/// The rules (non-synthetic, in `rules_of` order) of one relation by the outermost symbol
/// of their head's argument `pos`, so that an atom is joined only with the rules whose
/// head can match it: a relation of 10,000 facts costs 10,000 joins, not 10⁸.
struct HeadIndex {
    /// The argument position with the most distinct keys.
    pos: usize,
    /// Rules by their key at `pos`, each list ascending.
    by_key: FxHashMap<HeadKey, Vec<usize>>,
    /// Rules with a variable at `pos` (all of them when the relation has no arguments).
    any: Vec<usize>,
}

impl HeadIndex {
    fn new(rules: &[CRule], of_rel: &[usize]) -> Self {
        let live: Vec<usize> = of_rel
            .iter()
            .copied()
            .filter(|&k| !rules[k].synthetic)
            .collect();
        let arity = live.first().map_or(0, |&k| rules[k].head.args.len());
        let distinct = |i: usize| {
            let mut keys: Vec<HeadKey> = live
                .iter()
                .filter_map(|&k| pattern_key(&rules[k].head.args[i]))
                .collect();
            keys.sort_unstable();
            keys.dedup();
            keys.len()
        };
        let pos = (0..arity).max_by_key(|&i| (distinct(i), usize::MAX - i));
        let mut index = HeadIndex {
            pos: pos.unwrap_or(0),
            by_key: FxHashMap::default(),
            any: Vec::new(),
        };
        for k in live {
            match pos.and_then(|i| pattern_key(&rules[k].head.args[i])) {
                Some(key) => index.by_key.entry(key).or_default().push(k),
                None => index.any.push(k),
            }
        }
        index
    }

    /// The rules whose head can match an atom with argument `key` at [`Self::pos`], in
    /// rule order.
    fn candidates(&self, key: Option<HeadKey>) -> Vec<usize> {
        let keyed = key.and_then(|k| self.by_key.get(&k));
        let mut out: Vec<usize> = keyed
            .into_iter()
            .flatten()
            .chain(&self.any)
            .copied()
            .collect();
        out.sort_unstable();
        out
    }
}

impl Grounder<'_> {
    /// Calls `f(rule, body)` for every ground instance of a rule with head atom `a`;
    /// `body` is sorted, without repeats, as `atom << 1 | negated`. Instances with `p`
    /// and `not p` in one body (which never fire) are left out. Returns the number of
    /// instances.
    ///
    /// # Errors
    /// Budget errors.
    pub fn instances_of(
        &mut self,
        a: AtomId,
        plans: &mut HeadPlans,
        held: usize,
        f: &mut dyn FnMut(usize, &[u32]),
    ) -> Result<usize, GroundError> {
        let low = self.low;
        // One atom may have millions of instances (SmallDominion2's `next (money …)`: 96 M
        // in all): their bodies are checked against the memory budget as they are found,
        // with what the caller `held` and the instances handed on so far.
        let (base, meter) = (self.used_bytes() + held, self.meter.clone());
        let mut handed = 0usize;
        let rel = self.store.atoms.rel(a);
        let args = self.store.atoms.args(a).to_vec();
        let index = plans
            .heads
            .entry(rel)
            .or_insert_with(|| HeadIndex::new(&low.rules, &low.rules_of[rel.0 as usize]));
        let key = args
            .get(index.pos)
            .map(|&t| term_key(self.store.terms.get(t)));
        let mut count = 0;
        for k in index.candidates(key) {
            let rule = &low.rules[k];
            if let std::collections::hash_map::Entry::Vacant(slot) = plans.plans.entry(k) {
                let mut joined = rule.clone();
                let guard = low.demand_of[rel.0 as usize];
                if guard.is_some()
                    && joined.body.first().and_then(PLit::atom).map(|a| a.rel) == guard
                {
                    joined.body.remove(0);
                }
                let mut bound = vec![false; rule.var_names.len()];
                for v in rule.head.vars() {
                    bound[v as usize] = true;
                }
                let s = self.prepare(&joined, &bound, None, None);
                slot.insert((joined, s));
            }
            let (rule, steps) = &plans.plans[&k];
            loop {
                let mut bodies: Vec<u32> = Vec::new();
                let mut ends: Vec<usize> = Vec::new();
                let init = |j: &mut Join<'_, '_>| {
                    rule.head
                        .args
                        .iter()
                        .zip(&args)
                        .all(|(p, &t)| j.bind_pattern(p, t))
                };
                let mut over = 0usize;
                let r = self.run_join(rule, steps, Mode::Record, &init, &mut |_, _, body| {
                    bodies.extend_from_slice(body);
                    ends.push(bodies.len());
                    if ends.len().is_multiple_of(4096) {
                        // found bodies, and as much again once handed on
                        let found = 2 * (bodies.capacity() * 4 + ends.capacity() * 8);
                        if meter.over(base + handed + found) {
                            over = handed + found;
                            return false;
                        }
                    }
                    true
                });
                let out = match r {
                    Ok(out) => out,
                    Err(Stop::Time) => return Err(self.time_error(k)),
                    Err(Stop::Callback) => return Err(self.memory_error(k, held + over)),
                };
                if !out.missing.is_empty() {
                    self.resolve(out.missing)?;
                    continue;
                }
                let mut start = 0;
                let mut body = Vec::new();
                for end in ends {
                    body.clear();
                    body.extend_from_slice(&bodies[start..end]);
                    start = end;
                    body.sort_unstable();
                    body.dedup();
                    if body.windows(2).any(|w| w[0] >> 1 == w[1] >> 1) {
                        continue;
                    }
                    count += 1;
                    handed += 4 * body.len() + 16;
                    f(k, &body);
                }
                break;
            }
        }
        Ok(count)
    }
}
