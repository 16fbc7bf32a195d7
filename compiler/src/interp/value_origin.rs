//! Finds the sentence a bad goal value comes from, by the rules' patterns: a rule whose
//! head writes the value, or, where a head passes on a variable bound by a body atom, the
//! rules of that atom's relation, followed to one that writes it.

use super::rules::{CAtom, CLit, CRule, Pat};
use crate::gdl::Span;
use crate::terms::TermId;
use std::collections::HashSet;

/// The span of the first `goal` rule (`goals`, indices into `rules`) that can derive
/// `(goal role value)`, moved to the sentence that writes `value` where the rule takes it
/// from a body atom ([`writer`]); `None` when no rule can derive it.
pub fn goal_value_origin(
    rules: &[CRule],
    goals: impl Iterator<Item = usize>,
    role: TermId,
    value: TermId,
) -> Option<Span> {
    let mut first = None;
    let mut seen = HashSet::new();
    for k in goals {
        let head = &rules[k].head;
        if !(can_derive(&head.args[0], role) && can_derive(&head.args[1], value)) {
            continue;
        }
        if let Some(span) = writer(rules, k, 1, value, &mut seen) {
            return Some(span);
        }
        first.get_or_insert(rules[k].span);
    }
    first
}

/// Whether a head pattern can produce `t`: a variable or function pattern can (as far as
/// patterns tell), a ground one only when it is `t`.
fn can_derive(p: &Pat, t: TermId) -> bool {
    match p {
        Pat::Ground(x) => *x == t,
        _ => true,
    }
}

/// The span of the sentence that writes `value` at argument `pos` of rule `k`'s head: the
/// rule itself when its head has `value` there; when it has a variable bound by a body
/// atom (as a whole argument), the writer among the rules of that atom's relation. Each
/// (rule, position) is looked at once (`seen`), so recursion ends.
fn writer(
    rules: &[CRule],
    k: usize,
    pos: usize,
    value: TermId,
    seen: &mut HashSet<(usize, usize)>,
) -> Option<Span> {
    if !seen.insert((k, pos)) {
        return None;
    }
    let rule = &rules[k];
    match &rule.head.args[pos] {
        Pat::Ground(x) if *x == value => return Some(rule.span),
        Pat::Var(v) => {
            let (atom, at) = binding(&rule.body, *v)?;
            let defs = rules
                .iter()
                .enumerate()
                .filter(|(_, r)| r.head.rel == atom.rel);
            for (j, _) in defs {
                if let Some(span) = writer(rules, j, at, value, seen) {
                    return Some(span);
                }
            }
        }
        _ => {}
    }
    None
}

/// The first positive body atom with variable `v` as a whole argument, and its position.
fn binding(body: &[CLit], v: u16) -> Option<(&CAtom, usize)> {
    body.iter().find_map(|lit| match lit {
        CLit::Pos(a) => Some((a, a.args.iter().position(|p| *p == Pat::Var(v))?)),
        _ => None,
    })
}
