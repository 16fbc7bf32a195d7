//! Matches term patterns against ground terms under variable bindings: unification that
//! binds variables, structural equality (`distinct`, `=`), and building ground terms.

use super::rules::PTerm;
use crate::terms::{TermArena, TermId, TermRef};

/// The value of a pattern under bindings, if it is ground and already interned.
pub fn find_term(terms: &TermArena, p: &PTerm, binds: &[Option<TermId>]) -> Option<TermId> {
    match p {
        PTerm::Var(v) => binds[*v as usize],
        PTerm::Const(c) => terms.find_constant(*c),
        PTerm::Fn(f, args) => {
            let mut kids = Vec::with_capacity(args.len());
            for a in args {
                kids.push(find_term(terms, a, binds)?);
            }
            terms.find_function(*f, &kids)
        }
    }
}

/// The value of a pattern under bindings, interning new terms. `None` if a variable is
/// unbound.
pub fn make_term(terms: &mut TermArena, p: &PTerm, binds: &[Option<TermId>]) -> Option<TermId> {
    Some(match p {
        PTerm::Var(v) => binds[*v as usize]?,
        PTerm::Const(c) => terms.constant(*c),
        PTerm::Fn(f, args) => {
            let mut kids = Vec::with_capacity(args.len());
            for a in args {
                kids.push(make_term(terms, a, binds)?);
            }
            terms.function(*f, &kids)
        }
    })
}

/// Matches `p` against `t`, binding unbound variables (each pushed on `trail`). On
/// failure some bindings may remain: the caller undoes to its trail mark.
pub fn unify(
    terms: &TermArena,
    p: &PTerm,
    t: TermId,
    binds: &mut [Option<TermId>],
    trail: &mut Vec<u16>,
) -> bool {
    match p {
        PTerm::Var(v) => match binds[*v as usize] {
            Some(b) => b == t,
            None => {
                binds[*v as usize] = Some(t);
                trail.push(*v);
                true
            }
        },
        PTerm::Const(c) => terms.get(t) == TermRef::Const(*c),
        PTerm::Fn(f, args) => match terms.get(t) {
            TermRef::Fn(g, kids) if g == *f && kids.len() == args.len() => args
                .iter()
                .zip(kids.iter())
                .all(|(a, &k)| unify(terms, a, k, binds, trail)),
            _ => false,
        },
    }
}

fn pat_eq_term(terms: &TermArena, p: &PTerm, t: TermId, binds: &[Option<TermId>]) -> bool {
    match p {
        PTerm::Var(v) => binds[*v as usize] == Some(t),
        PTerm::Const(c) => terms.get(t) == TermRef::Const(*c),
        PTerm::Fn(f, args) => match terms.get(t) {
            TermRef::Fn(g, kids) if g == *f && kids.len() == args.len() => args
                .iter()
                .zip(kids.iter())
                .all(|(a, &k)| pat_eq_term(terms, a, k, binds)),
            _ => false,
        },
    }
}

/// Structural equality of two patterns under bindings; an unbound variable equals only
/// itself (the oracle's `==`).
pub fn pat_eq(terms: &TermArena, a: &PTerm, b: &PTerm, binds: &[Option<TermId>]) -> bool {
    match (a, b) {
        (PTerm::Var(x), PTerm::Var(y)) if x == y => true,
        (PTerm::Var(x), _) => binds[*x as usize].is_some_and(|t| pat_eq_term(terms, b, t, binds)),
        (_, PTerm::Var(y)) => binds[*y as usize].is_some_and(|t| pat_eq_term(terms, a, t, binds)),
        (PTerm::Const(c), PTerm::Const(d)) => c == d,
        (PTerm::Fn(f, xs), PTerm::Fn(g, ys)) => {
            f == g
                && xs.len() == ys.len()
                && xs.iter().zip(ys).all(|(x, y)| pat_eq(terms, x, y, binds))
        }
        _ => false,
    }
}
