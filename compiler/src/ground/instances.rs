//! Enumerates the ground instances of the rules of one reachable dynamic atom: each rule
//! of its relation is joined with the head bound to the atom; static and demand literals
//! are decided at compile time and dropped, dynamic ones become the instance's body.

use super::fixpoint::Grounder;
use super::join::{Join, Stop};
use super::plan::{Mode, Step};
use super::rules::{CRule, PLit};
use super::store::AtomId;
use super::GroundError;
use rustc_hash::FxHashMap;

/// Join plans of rules with their head bound, per rule: the rule joined (its demand
/// guard left out: the head atom exists, so its demand does) and the plan.
#[derive(Default)]
pub struct HeadPlans {
    plans: FxHashMap<usize, (CRule, Vec<Step>)>,
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
        f: &mut dyn FnMut(usize, &[u32]),
    ) -> Result<usize, GroundError> {
        let low = self.low;
        let rel = self.store.atoms.rel(a);
        let args = self.store.atoms.args(a).to_vec();
        let mut count = 0;
        for &k in &low.rules_of[rel.0 as usize] {
            let rule = &low.rules[k];
            if rule.synthetic {
                continue;
            }
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
                let s = self.prepare(&joined, &bound, None);
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
                let r = self.run_join(rule, steps, Mode::Record, &init, &mut |_, _, body| {
                    bodies.extend_from_slice(body);
                    ends.push(bodies.len());
                    true
                });
                let out = match r {
                    Ok(out) => out,
                    Err(Stop::Time) => return Err(self.time_error(k)),
                    Err(Stop::Callback) => unreachable!("the callback never stops"),
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
                    f(k, &body);
                }
                break;
            }
        }
        Ok(count)
    }
}
