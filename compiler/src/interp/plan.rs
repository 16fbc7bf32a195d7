//! Chooses the join order of each rule body and the indexes the joins need.
//!
//! Positive literals are joined left to right, each time taking the one with the most
//! arguments already bound (source order breaks ties); every test (`not`, `distinct`,
//! equality) runs as soon as all its variables are bound, so games that write them before
//! their binders work. Tests whose variables are never bound (unsafe rules) run last.

use super::rules::{CAtom, CLit, CRule, Pat, RelId, Rules};
use crate::gdl::Sym;

/// One component of an index key, extracted from a fact's arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KeyPart {
    /// The whole argument at this column.
    Whole(usize),
    /// Only a filter: the argument at `col` is a function term `f` with `n` arguments.
    Shape {
        /// Column.
        col: usize,
        /// Function symbol.
        f: Sym,
        /// Its number of arguments.
        n: usize,
    },
    /// Argument `j` of the function term `f/n` at column `col`.
    Sub {
        /// Column.
        col: usize,
        /// Function symbol.
        f: Sym,
        /// Its number of arguments.
        n: usize,
        /// Which argument.
        j: usize,
    },
}

/// An index over one relation: facts grouped by the key parts' values.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct IndexSpec {
    /// Key parts in order.
    pub parts: Vec<KeyPart>,
}

/// One step of a join plan; `lit` indexes the rule body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Match a positive literal against all facts of its relation, through index `index`
    /// of that relation (or a scan of all facts when `None`).
    Scan {
        /// Body literal.
        lit: usize,
        /// Index number within the relation's specs.
        index: Option<u32>,
    },
    /// Match a positive literal against the facts new in the last round (semi-naive).
    Delta {
        /// Body literal.
        lit: usize,
    },
    /// Check a `not`, `distinct` or equality literal.
    Test {
        /// Body literal.
        lit: usize,
    },
}

/// Join plans of one rule: the full plan and, for each body literal on the rule's own
/// stratum, a plan starting with that literal's delta.
#[derive(Clone, Debug)]
pub struct RulePlans {
    /// All literals over all facts.
    pub full: Vec<Step>,
    /// (literal, plan) per recursive positive literal.
    pub deltas: Vec<(usize, Vec<Step>)>,
}

/// Index specs needed per relation.
#[derive(Clone, Debug, Default)]
pub struct Registry {
    /// `specs[rel]` lists the indexes of relation `rel`.
    pub specs: Vec<Vec<IndexSpec>>,
}

impl Registry {
    fn add(&mut self, rel: RelId, spec: IndexSpec) -> u32 {
        let list = &mut self.specs[rel.0 as usize];
        if let Some(i) = list.iter().position(|s| *s == spec) {
            return i as u32;
        }
        list.push(spec);
        (list.len() - 1) as u32
    }
}

/// Plans every rule; returns the plans (indexed like `rules.rules`) and the index specs.
pub fn plan_all(rules: &Rules) -> (Vec<RulePlans>, Registry) {
    let mut reg = Registry { specs: vec![Vec::new(); rules.rels.len()] };
    let plans = rules
        .rules
        .iter()
        .map(|r| {
            let stratum = rules.rels[r.head.rel.0 as usize].stratum;
            let full = plan_rule(r, None, &mut reg);
            let deltas = r
                .body
                .iter()
                .enumerate()
                .filter_map(|(i, l)| match l {
                    CLit::Pos(a) if rules.rels[a.rel.0 as usize].stratum == stratum => {
                        Some((i, plan_rule(r, Some(i), &mut reg)))
                    }
                    _ => None,
                })
                .collect();
            RulePlans { full, deltas }
        })
        .collect();
    (plans, reg)
}

fn ground_at(p: &Pat, bound: &[bool]) -> bool {
    match p {
        Pat::Var(v) => bound[*v as usize],
        Pat::Ground(_) => true,
        Pat::Fn(_, args) => args.iter().all(|a| ground_at(a, bound)),
    }
}

/// The index key for matching `atom` when the variables in `bound` are bound.
pub fn key_spec(atom: &CAtom, bound: &[bool]) -> IndexSpec {
    let mut parts = Vec::new();
    for (col, p) in atom.args.iter().enumerate() {
        if ground_at(p, bound) {
            parts.push(KeyPart::Whole(col));
        } else if let Pat::Fn(f, sub) = p {
            parts.push(KeyPart::Shape { col, f: *f, n: sub.len() });
            for (j, s) in sub.iter().enumerate() {
                if ground_at(s, bound) {
                    parts.push(KeyPart::Sub { col, f: *f, n: sub.len(), j });
                }
            }
        }
    }
    IndexSpec { parts }
}

fn selectivity(spec: &IndexSpec) -> usize {
    spec.parts.iter().filter(|p| !matches!(p, KeyPart::Shape { .. })).count()
}

fn plan_rule(rule: &CRule, first: Option<usize>, reg: &mut Registry) -> Vec<Step> {
    let n = rule.nvars;
    let mut bound = vec![false; n];
    let mut placed = vec![false; rule.body.len()];
    let mut steps = Vec::new();
    let bind = |bound: &mut Vec<bool>, l: &CLit| {
        for (b, v) in bound.iter_mut().zip(l.vars(n)) {
            *b |= v;
        }
    };
    if let Some(i) = first {
        steps.push(Step::Delta { lit: i });
        placed[i] = true;
        bind(&mut bound, &rule.body[i]);
    }
    loop {
        // tests whose variables are all bound
        for (i, l) in rule.body.iter().enumerate() {
            if !placed[i] && !matches!(l, CLit::Pos(_)) {
                let vs = l.vars(n);
                if vs.iter().zip(&bound).all(|(v, b)| !v || *b) {
                    steps.push(Step::Test { lit: i });
                    placed[i] = true;
                }
            }
        }
        // next positive literal: most bound arguments, then source order
        let mut best: Option<(usize, usize, IndexSpec)> = None;
        for (i, l) in rule.body.iter().enumerate() {
            if let (false, CLit::Pos(a)) = (placed[i], l) {
                let spec = key_spec(a, &bound);
                let s = selectivity(&spec);
                if best.as_ref().is_none_or(|(_, bs, _)| s > *bs) {
                    best = Some((i, s, spec));
                }
            }
        }
        let Some((i, _, spec)) = best else { break };
        let CLit::Pos(a) = &rule.body[i] else { unreachable!("best is positive") };
        let index = if spec.parts.is_empty() { None } else { Some(reg.add(a.rel, spec)) };
        steps.push(Step::Scan { lit: i, index });
        placed[i] = true;
        bind(&mut bound, &rule.body[i]);
    }
    // unsafe leftovers
    for (i, p) in placed.iter().enumerate() {
        if !p {
            steps.push(Step::Test { lit: i });
        }
    }
    steps
}
