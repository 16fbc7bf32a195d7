//! Plans the join of one rule body: literals with bound arguments come first, positive
//! literals are looked up through hash indexes on their bound argument (sub)terms,
//! literals over on-demand static relations are *called* with the arguments bound at
//! that point, and `distinct`, `not` and equality are checked as soon as their variables
//! are bound.

use super::rules::{CRule, PAtom, PLit, PTerm, RelKind};
use super::store::{IndexSpec, Path};
use crate::gdl::RelId;

/// The ordering key of a candidate literal in [`plan`] (the smallest is joined next).
type Rank = (u8, usize, usize, usize);

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
    /// Body literal `lit` is over an on-demand relation: call it with the arguments bound
    /// now; a positive literal joins the answers, a negative one holds when no answer
    /// matches.
    Call {
        /// Body literal index.
        lit: usize,
    },
}

/// How a plan treats literals over dynamic relations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Reachability: negative dynamic literals are assumed satisfiable; static ones are
    /// decided exactly.
    Relaxed,
    /// Instance enumeration: dynamic literals are recorded as the instance's body.
    Record,
}

/// What the planner knows of a relation: how it is grounded and how many atoms it has.
pub type RelInfo<'a> = &'a dyn Fn(RelId) -> (RelKind, usize);

/// Whether the call of body literal `call` may be made before body literal `other`, which
/// would bind more of its arguments, while the variables in `bound` are bound
/// (`(call, other, bound)`; [`super::call_order`]).
pub type CallFirst<'a> = &'a dyn Fn(usize, usize, &[bool]) -> bool;

/// Orders a rule body when the variables in `bound0` are bound. `first` puts that
/// positive literal first (semi-naive delta); `call_first`, when given, lets a call go
/// before literals that would bind more of its arguments. Returns the steps and, per scan
/// step, the index spec it wants (to be resolved to an index id by the caller).
pub fn plan(
    rule: &CRule,
    bound0: &[bool],
    first: Option<usize>,
    info: RelInfo<'_>,
    call_first: Option<CallFirst<'_>>,
) -> Vec<(Step, Option<IndexSpec>)> {
    let mut bound = bound0.to_vec();
    let mut done = vec![false; rule.body.len()];
    let mut steps = Vec::new();
    let bind = |bound: &mut Vec<bool>, a: &PAtom| {
        for v in a.vars() {
            bound[v as usize] = true;
        }
    };
    if let Some(i) = first {
        if let PLit::Pos(a) = &rule.body[i] {
            let source = Source::Range(0, 0);
            steps.push((Step::Scan { lit: i, source }, None));
            bind(&mut bound, a);
            done[i] = true;
        }
    }
    let on_demand = |a: &PAtom| info(a.rel).0 == RelKind::OnDemand;
    loop {
        if push_filters(rule, &bound, &mut done, &mut steps, &on_demand) {
            continue;
        }
        // Best positive literal: a call whose shared variables are all bound; else most
        // bound subterms, then fewest atoms; a call that could get more arguments bound
        // by another literal comes last.
        let mut best: Option<(usize, Option<IndexSpec>, Rank)> = None;
        for (i, lit) in rule.body.iter().enumerate() {
            let PLit::Pos(a) = lit else { continue };
            if done[i] {
                continue;
            }
            let (spec, score) = if on_demand(a) {
                let b = a.args.iter().filter(|t| t.ground_under(&bound)).count();
                let shared_bound = a.vars().iter().all(|&v| {
                    bound[v as usize]
                        || !rule.body.iter().enumerate().any(|(j, l)| {
                            j != i
                                && !done[j]
                                && matches!(l, PLit::Pos(_))
                                && l.vars().contains(&v)
                                && !call_first.is_some_and(|f| f(i, j, &bound))
                        })
                });
                let tier = if shared_bound && b > 0 { 2 } else { 0 };
                (None, (tier, b, 0, 0))
            } else {
                let spec = spec_for(a, &bound);
                let size = info(a.rel).1;
                let score = (
                    1,
                    spec.grounds.len(),
                    spec.functors.len(),
                    usize::MAX - size,
                );
                (Some(spec), score)
            };
            if best.as_ref().is_none_or(|b| score > b.2) {
                best = Some((i, spec, score));
            }
        }
        if let Some((i, spec, _)) = best {
            let PLit::Pos(a) = &rule.body[i] else {
                unreachable!("best is positive")
            };
            bind(&mut bound, a);
            done[i] = true;
            steps.push(match spec {
                None => (Step::Call { lit: i }, None),
                Some(spec) => scan_step(i, a, spec),
            });
            continue;
        }
        push_leftovers(rule, &mut done, &mut steps, &on_demand);
        return steps;
    }
}

/// The scan step for positive literal `i` (atom `a`) with index spec `spec`.
fn scan_step(i: usize, a: &PAtom, spec: IndexSpec) -> (Step, Option<IndexSpec>) {
    let keys = spec
        .grounds
        .iter()
        .map(|p| pattern_at(&a.args, p).clone())
        .collect();
    if spec.grounds.is_empty() && spec.functors.is_empty() {
        (
            Step::Scan {
                lit: i,
                source: Source::All,
            },
            None,
        )
    } else {
        let source = Source::Index(usize::MAX, keys);
        (Step::Scan { lit: i, source }, Some(spec))
    }
}

/// Pushes every not yet planned filter (ground atom, `not`, comparison) whose variables
/// are all bound; true when it pushed one.
fn push_filters(
    rule: &CRule,
    bound: &[bool],
    done: &mut [bool],
    steps: &mut Vec<(Step, Option<IndexSpec>)>,
    on_demand: &dyn Fn(&PAtom) -> bool,
) -> bool {
    let mut progressed = false;
    for (i, lit) in rule.body.iter().enumerate() {
        if done[i] {
            continue;
        }
        let step = match lit {
            PLit::Pos(a) | PLit::Neg(a)
                if on_demand(a) && a.args.iter().all(|t| t.ground_under(bound)) =>
            {
                Step::Call { lit: i }
            }
            PLit::Pos(a) if a.args.iter().all(|t| t.ground_under(bound)) => Step::Check { lit: i },
            PLit::Neg(a) if a.args.iter().all(|t| t.ground_under(bound)) => Step::Neg { lit: i },
            PLit::Distinct(x, y) if x.ground_under(bound) && y.ground_under(bound) => {
                Step::Compare {
                    lit: i,
                    equal: false,
                }
            }
            PLit::Equal(x, y) if x.ground_under(bound) && y.ground_under(bound) => Step::Compare {
                lit: i,
                equal: true,
            },
            _ => continue,
        };
        steps.push((step, None));
        done[i] = true;
        progressed = true;
    }
    progressed
}

/// Pushes the unsafe leftovers (variables no positive literal binds), in source order.
fn push_leftovers(
    rule: &CRule,
    done: &mut [bool],
    steps: &mut Vec<(Step, Option<IndexSpec>)>,
    on_demand: &dyn Fn(&PAtom) -> bool,
) {
    for (i, lit) in rule.body.iter().enumerate() {
        if done[i] {
            continue;
        }
        let step = match lit {
            PLit::Neg(a) if on_demand(a) => Step::Call { lit: i },
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
