//! Finds the sentence a bad goal value comes from: the goal rule itself when it writes the
//! value, else the fact (or rule) that bound the value's variable, followed through rules
//! that pass it on unchanged.

use super::fixpoint::Grounder;
use super::rules::{PLit, PTerm};
use super::store::AtomId;
use crate::gdl::Span;
use crate::terms::TermId;

/// Rules followed from the goal rule before giving up (a cycle of rules passing the value
/// on stops there, at the last rule reached).
const MAX_HOPS: usize = 16;

/// The span of the sentence that put the value `value` (a term of the store) into `atom`:
/// starting at the rule that derived `atom`, while that rule's head has a variable at the
/// value's argument position `pos` and a positive body atom binds the variable as one of
/// its own arguments, moves to the rule that derived the first atom of that relation with
/// `value` there. Returns the last rule reached.
pub fn value_origin(g: &Grounder<'_>, atom: AtomId, pos: usize, value: TermId) -> Span {
    let mut pos = pos;
    let mut rule = &g.low.rules[g.store.origin[atom.index()] as usize];
    for _ in 0..MAX_HOPS {
        let Some(PTerm::Var(v)) = rule.head.args.get(pos) else {
            break;
        };
        let Some((next, next_pos)) = binding(g, &rule.body, *v, value) else {
            break;
        };
        pos = next_pos;
        rule = &g.low.rules[g.store.origin[next.index()] as usize];
    }
    rule.span
}

/// The first atom (and argument position) of a positive body literal that has variable `v`
/// as a whole argument and `value` at that position.
fn binding(g: &Grounder<'_>, body: &[PLit], v: u16, value: TermId) -> Option<(AtomId, usize)> {
    body.iter().find_map(|lit| {
        let PLit::Pos(a) = lit else { return None };
        let pos = a.args.iter().position(|t| *t == PTerm::Var(v))?;
        let found = g
            .atoms_of(a.rel)
            .iter()
            .copied()
            .find(|&x| g.store.atoms.args(x).get(pos) == Some(&value))?;
        Some((found, pos))
    })
}
