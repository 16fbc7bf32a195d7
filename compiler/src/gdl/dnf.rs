//! Disjunctive normal form of rule bodies: expands nested `and`/`or` of literals into
//! the list of alternative conjunctions (`not` is already pushed down by lowering).

use super::ast::Lit;

/// A rule body formula whose negations are already at the literals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Formula {
    /// One literal.
    Lit(Lit),
    /// All of these (the empty conjunction is true).
    And(Vec<Formula>),
    /// One of these (the empty disjunction is false).
    Or(Vec<Formula>),
}

/// The alternatives of `f`: each is a conjunction of literals in source order. Returns
/// `None` when there would be more than `limit` alternatives. An empty result means `f`
/// is false (e.g. an empty `or`).
pub fn expand(f: &Formula, limit: usize) -> Option<Vec<Vec<Lit>>> {
    match f {
        Formula::Lit(l) => Some(vec![vec![l.clone()]]),
        Formula::Or(parts) => {
            let mut out = Vec::new();
            for p in parts {
                out.extend(expand(p, limit)?);
                if out.len() > limit {
                    return None;
                }
            }
            Some(out)
        }
        Formula::And(parts) => {
            let mut acc: Vec<Vec<Lit>> = vec![Vec::new()];
            for p in parts {
                let mut alts = expand(p, limit)?;
                if acc.len().saturating_mul(alts.len()) > limit {
                    return None;
                }
                if alts.len() == 1 {
                    // A plain conjunct: extend in place (a long body stays linear).
                    let b = alts.pop().unwrap_or_default();
                    for a in &mut acc {
                        a.extend(b.iter().cloned());
                    }
                    continue;
                }
                let mut next = Vec::with_capacity(acc.len() * alts.len());
                for a in &acc {
                    for b in &alts {
                        let mut c = a.clone();
                        c.extend(b.iter().cloned());
                        next.push(c);
                    }
                }
                acc = next;
            }
            Some(acc)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gdl::ast::{Atom, Sym};

    fn p(i: u32) -> Formula {
        Formula::Lit(Lit::Pos(Atom {
            rel: Sym(i),
            args: vec![],
        }))
    }
    fn rels(alts: &[Vec<Lit>]) -> Vec<Vec<u32>> {
        alts.iter()
            .map(|c| {
                c.iter()
                    .map(|l| match l {
                        Lit::Pos(a) => a.rel.0,
                        _ => u32::MAX,
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn nested_or_expands_in_order() {
        // a ∧ (b ∨ (c ∧ (d ∨ e)))
        let f = Formula::And(vec![
            p(0),
            Formula::Or(vec![
                p(1),
                Formula::And(vec![p(2), Formula::Or(vec![p(3), p(4)])]),
            ]),
        ]);
        let got = expand(&f, 100).unwrap();
        assert_eq!(rels(&got), vec![vec![0, 1], vec![0, 2, 3], vec![0, 2, 4]]);
    }

    #[test]
    fn empty_or_is_false_and_limit_is_enforced() {
        assert_eq!(
            expand(&Formula::And(vec![p(0), Formula::Or(vec![])]), 10)
                .unwrap()
                .len(),
            0
        );
        let wide = Formula::Or(vec![p(0), p(1), p(2)]);
        let f = Formula::And(vec![wide.clone(), wide.clone(), wide]);
        assert_eq!(expand(&f, 27).unwrap().len(), 27);
        assert!(expand(&f, 26).is_none());
    }
}
