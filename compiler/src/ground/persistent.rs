//! Fluents that never change: when every `next` rule that can make an `f` fluent is the
//! frame axiom `(<= (next (f ?x1 … ?xn)) (true (f ?x1 … ?xn)))` (and one of them has
//! distinct variables, so it copies every `f` fluent), the `f` fluents of every
//! reachable state are exactly those of `init`: by induction, a true one is copied and a
//! false one has no rule to make it. Body literals `(true (f …))` are then replaced by
//! `(init (f …))`, a static relation, so negation over them is decided exactly at
//! compile time (walls of a maze: `(not (true (wall ?x ?y north)))` no longer lets the
//! relaxed reachability walk through walls). The `f` fluents keep their latches (they
//! are part of the state), copied by their frame axiom.

use super::rules::{CRule, PAtom, PLit, PTerm, Special};
use crate::gdl::Sym;

/// A fluent's top symbol: constant `c` (`None`) or function `f` with `n` arguments.
type Functor = (Sym, Option<usize>);

fn functor(t: &PTerm) -> Option<Functor> {
    match t {
        PTerm::Var(_) => None,
        PTerm::Const(c) => Some((*c, None)),
        PTerm::Fn(f, args) => Some((*f, Some(args.len()))),
    }
}

/// True when a head pattern can produce a fluent with top symbol `f`.
fn may_make(head: &PTerm, f: Functor) -> bool {
    functor(head).is_none_or(|g| g == f)
}

/// `next(P) :- true(P)` with the same pattern on both sides.
fn is_copy(rule: &CRule, special: Special) -> bool {
    match rule.body.as_slice() {
        [PLit::Pos(PAtom { rel, args })] => *rel == special.true_ && *args == rule.head.args,
        _ => false,
    }
}

/// A copy rule of all `f` fluents: the pattern is `f` applied to distinct variables.
fn copies_all(rule: &CRule, special: Special) -> bool {
    if !is_copy(rule, special) {
        return false;
    }
    match &rule.head.args[0] {
        PTerm::Const(_) => true,
        PTerm::Fn(_, args) => {
            let mut seen = Vec::new();
            args.iter().all(|a| match a {
                PTerm::Var(v) if !seen.contains(v) => {
                    seen.push(*v);
                    true
                }
                _ => false,
            })
        }
        PTerm::Var(_) => true,
    }
}

/// The functors of fluents that never change (module docs).
pub fn persistent_functors(rules: &[CRule], special: Special) -> Vec<Functor> {
    let next: Vec<&CRule> = rules
        .iter()
        .filter(|r| r.head.rel == special.next && r.head.args.len() == 1)
        .collect();
    let mut candidates: Vec<Functor> = next
        .iter()
        .filter(|r| copies_all(r, special))
        .filter_map(|r| functor(&r.head.args[0]))
        .collect();
    candidates.sort_unstable();
    candidates.dedup();
    candidates.retain(|&f| {
        next.iter()
            .filter(|r| may_make(&r.head.args[0], f))
            .all(|r| is_copy(r, special))
    });
    candidates
}

/// Replaces `(true (f …))` by `(init (f …))` in every rule but the frame axioms, for the
/// persistent functors `f`.
pub fn rewrite(rules: &mut [CRule], special: Special) {
    let fixed = persistent_functors(rules, special);
    if fixed.is_empty() {
        return;
    }
    for rule in rules.iter_mut() {
        if rule.head.rel == special.next && is_copy(rule, special) {
            continue;
        }
        for lit in &mut rule.body {
            if let PLit::Pos(a) | PLit::Neg(a) = lit {
                let persistent = a.rel == special.true_
                    && a.args.len() == 1
                    && functor(&a.args[0]).is_some_and(|f| fixed.contains(&f));
                if persistent {
                    a.rel = special.init;
                }
            }
        }
    }
}
