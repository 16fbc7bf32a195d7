//! Plans the join of one rule body: literals with bound arguments come first, positive
//! literals are looked up through hash indexes on their bound argument (sub)terms, and
//! `distinct`, `not` and equality are checked as soon as their variables are bound.

use super::index::{IndexSpec, Path};
use super::rules::{CRule, PAtom, PLit, PTerm};
use super::terms::RelId;

/// Where a scan step takes its candidate atoms from.
#[derive(Clone, Debug)]
pub enum Source {
    /// Every atom of the relation.
    All,
    /// `list[lo..hi]` of the relation (the semi-naive delta).
    Range(usize, usize),
    /// An index (position in the grounder's index table) looked up with the pattern
    /// subterms at the spec's ground paths.
    Index(usize, Vec<PTerm>),
}

/// One step of a join plan.
#[derive(Clone, Debug)]
pub enum Step {
    /// Match body literal `lit` (positive) against candidate atoms, binding variables.
    Scan {
        /// Body literal index.
        lit: usize,
        /// Candidate atoms.
        source: Source,
    },
    /// Body literal `lit` is positive and ground: look it up.
    Check {
        /// Body literal index.
        lit: usize,
    },
    /// Body literal `lit` is negative and ground.
    Neg {
        /// Body literal index.
        lit: usize,
    },
    /// Body literal `lit` is negative with variables no positive literal binds: true when
    /// no matching atom exists (negation as failure of the open call).
    NegExists {
        /// Body literal index.
        lit: usize,
    },
    /// `distinct` (or, with `equal`, equality) of two terms; unbound variables equal only
    /// themselves.
    Compare {
        /// Body literal index.
        lit: usize,
        /// True for equality, false for `distinct`.
        equal: bool,
    },
}

/// How a plan treats literals over dynamic relations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Reachability: negative dynamic literals are assumed satisfiable.
    Relaxed,
    /// Instance enumeration: dynamic literals are recorded as the instance's body.
    Record,
}

/// Orders a rule body. `first` puts that positive literal first (semi-naive delta).
/// `size(rel)` estimates relation sizes; `spec_ok` says whether an index spec is worth it.
/// Returns the steps and, per scan step, the index spec it wants (to be resolved to an
/// index id by the caller).
pub fn plan(
    rule: &CRule,
    nvars: usize,
    first: Option<usize>,
    size: &dyn Fn(RelId) -> usize,
) -> Vec<(Step, Option<IndexSpec>)> {
    let mut bound = vec![false; nvars];
    let mut done = vec![false; rule.body.len()];
    let mut steps = Vec::new();
    let bind = |bound: &mut Vec<bool>, a: &PAtom| {
        for v in a.vars() {
            bound[v as usize] = true;
        }
    };
    if let Some(i) = first {
        if let PLit::Pos(a) = &rule.body[i] {
            steps.push((
                Step::Scan {
                    lit: i,
                    source: Source::Range(0, 0),
                },
                None,
            ));
            bind(&mut bound, a);
            done[i] = true;
        }
    }
    loop {
        // Filters whose variables are all bound go first.
        let mut progressed = false;
        for (i, lit) in rule.body.iter().enumerate() {
            if done[i] {
                continue;
            }
            let step = match lit {
                PLit::Pos(a) if a.args.iter().all(|t| t.ground_under(&bound)) => {
                    Step::Check { lit: i }
                }
                PLit::Neg(a) if a.args.iter().all(|t| t.ground_under(&bound)) => {
                    Step::Neg { lit: i }
                }
                PLit::Distinct(x, y) if x.ground_under(&bound) && y.ground_under(&bound) => {
                    Step::Compare {
                        lit: i,
                        equal: false,
                    }
                }
                PLit::Equal(x, y) if x.ground_under(&bound) && y.ground_under(&bound) => {
                    Step::Compare {
                        lit: i,
                        equal: true,
                    }
                }
                _ => continue,
            };
            steps.push((step, None));
            done[i] = true;
            progressed = true;
        }
        if progressed {
            continue;
        }
        // Best positive literal: most bound subterms, then fewest functor-matching atoms.
        let mut best: Option<(usize, IndexSpec, (usize, usize, usize))> = None;
        for (i, lit) in rule.body.iter().enumerate() {
            if done[i] {
                continue;
            }
            if let PLit::Pos(a) = lit {
                let spec = spec_for(a, &bound);
                let score = (
                    spec.grounds.len(),
                    spec.functors.len(),
                    usize::MAX - size(a.rel),
                );
                if best.as_ref().is_none_or(|b| score > b.2) {
                    best = Some((i, spec, score));
                }
            }
        }
        if let Some((i, spec, _)) = best {
            if let PLit::Pos(a) = &rule.body[i] {
                bind(&mut bound, a);
            }
            done[i] = true;
            let keys = ground_patterns(&rule.body[i], &spec);
            let want = (!spec.grounds.is_empty() || !spec.functors.is_empty()).then_some(spec);
            let source = if want.is_some() {
                Source::Index(usize::MAX, keys)
            } else {
                Source::All
            };
            steps.push((Step::Scan { lit: i, source }, want));
            continue;
        }
        // Only unsafe leftovers remain (variables no positive literal binds).
        for (i, lit) in rule.body.iter().enumerate() {
            if done[i] {
                continue;
            }
            let step = match lit {
                PLit::Neg(_) => Step::NegExists { lit: i },
                PLit::Distinct(..) => Step::Compare {
                    lit: i,
                    equal: false,
                },
                PLit::Equal(..) => Step::Compare {
                    lit: i,
                    equal: true,
                },
                PLit::Pos(_) => unreachable!("positive literals are all planned"),
            };
            steps.push((step, None));
            done[i] = true;
        }
        return steps;
    }
}

fn spec_items(p: &PTerm, path: &mut Path, bound: &[bool], spec: &mut IndexSpec) {
    if p.ground_under(bound) {
        spec.grounds.push(path.clone());
        return;
    }
    if let PTerm::Fn(f, args) = p {
        spec.functors.push((path.clone(), *f, args.len() as u32));
        if path.len() < 4 {
            for (i, a) in args.iter().enumerate().take(256) {
                path.push(i as u8);
                spec_items(a, path, bound, spec);
                path.pop();
            }
        }
    }
}

/// The index spec for looking up `a` when the variables in `bound` are bound.
pub fn spec_for(a: &PAtom, bound: &[bool]) -> IndexSpec {
    let mut spec = IndexSpec {
        rel: a.rel,
        functors: Vec::new(),
        grounds: Vec::new(),
    };
    for (i, t) in a.args.iter().enumerate().take(256) {
        let mut path = vec![i as u8];
        spec_items(t, &mut path, bound, &mut spec);
    }
    spec
}

fn pattern_at<'a>(args: &'a [PTerm], path: &[u8]) -> &'a PTerm {
    let mut t = &args[path[0] as usize];
    for &p in &path[1..] {
        match t {
            PTerm::Fn(_, kids) => t = &kids[p as usize],
            _ => unreachable!("spec paths follow the pattern"),
        }
    }
    t
}

fn ground_patterns(lit: &PLit, spec: &IndexSpec) -> Vec<PTerm> {
    match lit {
        PLit::Pos(a) => spec
            .grounds
            .iter()
            .map(|p| pattern_at(&a.args, p).clone())
            .collect(),
        _ => Vec::new(),
    }
}
