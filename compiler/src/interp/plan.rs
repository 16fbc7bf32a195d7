//! Chooses the join order of each rule body and the indexes the joins need.
//!
//! Every test (`not`, `distinct`, equality) runs as soon as all its variables are bound, so
//! games that write them before their binders work; tests whose variables are never bound
//! (unsafe rules) run last. Positive literals are joined one at a time, each time taking,
//! by priority: one whose arguments are all bound (it only filters); one with some
//! argument bound; anything before a recursive call that binds a variable no other literal
//! binds (its other free arguments would open a goal of the call's table per binding and
//! each goal enumerates more: it waits for the literals that bind them); most bound
//! arguments; the smallest average fan-out for the bound columns among
//! relations given by ground facts; source order.
//!
//! Relations are either *materialized* (relations given by ground facts only, `true`/`does`,
//! strata with negation inside a cycle, and static strata small enough to compute in full
//! at load: computed bottom-up into a store) or evaluated *on demand* (every other derived
//! relation, including static strata too big to materialize: computed per call pattern
//! and memoized, recursive ones by tabling, so a relation only ever called with bound
//! arguments is never enumerated in full — a `lessthan` over a long successor chain, or a
//! list type whose full extension is infinite). A demand rule gets one plan per
//! *adornment* (which head arguments the call binds), found from the queries (`legal`,
//! `goal`, `terminal`, `next`, `init`) by propagation.

use super::rules::{CAtom, CLit, CRule, Class, Pat, RelId, Rules};
use crate::gdl::Sym;
use crate::terms::TermId;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;

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
        index: Option<usize>,
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
    /// Match a positive literal of an on-demand relation: call it with the arguments bound
    /// now and join its answers.
    Call {
        /// Body literal.
        lit: usize,
    },
}

/// Bit `i` set = argument `i` is bound by the call (arguments past 63 count as free).
pub type Mask = u64;

/// Join plans of one materialized rule: the full plan and, for each body literal on the
/// rule's own stratum, a plan starting with that literal's delta.
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
    fn add(&mut self, rel: RelId, spec: IndexSpec) -> usize {
        let list = &mut self.specs[rel.0 as usize];
        if let Some(i) = list.iter().position(|s| *s == spec) {
            return i;
        }
        list.push(spec);
        list.len() - 1
    }
}

/// All plans of a program.
#[derive(Clone, Debug, Default)]
pub struct Plans {
    /// `demand[rel]`: relation is evaluated on demand (else materialized): every derived
    /// relation except those of strata with negation inside a cycle and of the static
    /// strata that were small enough to materialize at load.
    pub demand: Vec<bool>,
    /// Rules per head relation.
    pub rules_of: Vec<Vec<usize>>,
    /// Bottom-up plans of materialized rules and of the rules of recursive demand strata
    /// (`None` for other demand rules).
    pub materialized: Vec<Option<RulePlans>>,
    /// Plans of demand rules per (rule, adornment).
    pub adorned: FxHashMap<(usize, Mask), Vec<Step>>,
    /// Index specs of materialized relations.
    pub registry: Registry,
}

/// The adornment of calling `args` with the variables in `bound` bound.
pub fn mask_of(args: &[Pat], bound: &[bool]) -> Mask {
    let mut m = 0;
    for (i, a) in args.iter().enumerate().take(64) {
        if ground_at(a, bound) {
            m |= 1 << i;
        }
    }
    m
}

/// What the join order is chosen from: fan-out estimates for relations given only by
/// ground facts (no rule with a body), i.e. how many facts match a call binding some
/// columns, on average; and each relation's stratum.
struct Stats {
    /// `stratum[rel]`: the relation's stratum.
    stratum: Vec<usize>,
    /// `facts[rel]`: the relation's fact tuples when it is given by ground facts only.
    facts: Vec<Option<Vec<Vec<TermId>>>>,
    /// `too_big[rel]`: a static relation with rules that was too big to materialize at
    /// load (evaluated on demand).
    too_big: Vec<bool>,
    /// Computed fan-outs per (relation, bound columns).
    cache: std::cell::RefCell<std::collections::HashMap<(RelId, Vec<usize>), usize>>,
}

impl Stats {
    fn new(rules: &Rules, rules_of: &[Vec<usize>]) -> Self {
        let facts = rules_of
            .iter()
            .map(|rs| {
                let mut out = Vec::new();
                for &ri in rs {
                    let r = &rules.rules[ri];
                    if !r.body.is_empty() {
                        return None;
                    }
                    let mut t = Vec::with_capacity(r.head.args.len());
                    for a in r.head.args.iter() {
                        match a {
                            Pat::Ground(g) => t.push(*g),
                            _ => return None,
                        }
                    }
                    out.push(t);
                }
                (!out.is_empty()).then_some(out)
            })
            .collect();
        Stats {
            stratum: rules.rels.iter().map(|r| r.stratum).collect(),
            facts,
            too_big: vec![false; rules.rels.len()],
            cache: Default::default(),
        }
    }

    /// Average number of facts of `rel` matching a call that binds the `Whole` columns of
    /// `spec`; `usize::MAX` for a relation with rules (size unknown before evaluation).
    fn fanout(&self, rel: RelId, spec: &IndexSpec) -> usize {
        let Some(facts) = &self.facts[rel.0 as usize] else {
            return usize::MAX;
        };
        let cols: Vec<usize> = spec
            .parts
            .iter()
            .filter_map(|p| match p {
                KeyPart::Whole(c) => Some(*c),
                _ => None,
            })
            .collect();
        let mut cache = self.cache.borrow_mut();
        *cache.entry((rel, cols)).or_insert_with_key(|(_, cols)| {
            let keys: std::collections::HashSet<Vec<TermId>> = facts
                .iter()
                .map(|t| cols.iter().map(|&c| t[c]).collect())
                .collect();
            facts.len().div_ceil(keys.len().max(1))
        })
    }
}

/// Plans every rule for the given queries (relation, adornment). Static strata are
/// materialized except where `lazy_static[stratum]` is set (see [`Plans::demand`]).
pub fn plan_all(rules: &Rules, queries: &[(RelId, Mask)], lazy_static: &[bool]) -> Plans {
    let n = rules.rels.len();
    let mut rules_of = vec![Vec::new(); n];
    for (i, r) in rules.rules.iter().enumerate() {
        rules_of[r.head.rel.0 as usize].push(i);
    }
    let mut stats = Stats::new(rules, &rules_of);
    stats.too_big = (0..n)
        .map(|r| {
            let info = &rules.rels[r];
            info.class == Class::Static && lazy_static[info.stratum] && !rules_of[r].is_empty()
        })
        .collect();
    let demand: Vec<bool> = (0..n)
        .map(|r| {
            let info = &rules.rels[r];
            !rules.strata[info.stratum].negative_cycle
                && !rules_of[r].is_empty()
                && stats.facts[r].is_none()
                && (info.class != Class::Static || lazy_static[info.stratum])
        })
        .collect();
    let mut p = Plans {
        demand,
        rules_of,
        materialized: vec![None; rules.rules.len()],
        adorned: FxHashMap::default(),
        registry: Registry {
            specs: vec![Vec::new(); n],
        },
    };
    let mut work: Vec<(RelId, Mask)> = queries.to_vec();
    for (ri, r) in rules.rules.iter().enumerate() {
        let head = r.head.rel.0 as usize;
        let stratum = rules.rels[head].stratum;
        // a recursive demand stratum also gets bottom-up plans (reading its own relations
        // from a store): the fallback when tabling opens too many goals
        let own: &[RelId] = match (p.demand[head], rules.strata[stratum].recursive) {
            (false, _) => &[],
            (true, true) => &rules.strata[stratum].rels,
            (true, false) => {
                work.push((r.head.rel, 0));
                continue;
            }
        };
        if p.demand[head] {
            work.push((r.head.rel, 0));
        }
        let full = plan_rule(r, None, None, own, &stats, &mut p, &mut work);
        let mut deltas = Vec::new();
        for (i, l) in r.body.iter().enumerate() {
            if let CLit::Pos(a) = l {
                if rules.rels[a.rel.0 as usize].stratum == stratum {
                    deltas.push((
                        i,
                        plan_rule(r, Some(i), None, own, &stats, &mut p, &mut work),
                    ));
                }
            }
        }
        p.materialized[ri] = Some(RulePlans { full, deltas });
    }
    let mut done = std::collections::HashSet::new();
    while let Some((rel, mask)) = work.pop() {
        if !p.demand[rel.0 as usize] || !done.insert((rel, mask)) {
            continue;
        }
        for ri in p.rules_of[rel.0 as usize].clone() {
            let steps = plan_rule(
                &rules.rules[ri],
                None,
                Some(mask),
                &[],
                &stats,
                &mut p,
                &mut work,
            );
            p.adorned.insert((ri, mask), steps);
        }
    }
    p
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
            parts.push(KeyPart::Shape {
                col,
                f: *f,
                n: sub.len(),
            });
            for (j, s) in sub.iter().enumerate() {
                if ground_at(s, bound) {
                    parts.push(KeyPart::Sub {
                        col,
                        f: *f,
                        n: sub.len(),
                        j,
                    });
                }
            }
        }
    }
    IndexSpec { parts }
}

fn selectivity(spec: &IndexSpec) -> usize {
    spec.parts
        .iter()
        .filter(|p| !matches!(p, KeyPart::Shape { .. }))
        .count()
}

/// The join plan of `rule`: a delta scan of body literal `first` when given, the head
/// arguments of `head_mask` bound when given, then the body literals in the order of the
/// module docs. Calls of demand relations (not in `own`, the relations read from a store)
/// and the relations of negative tests are pushed on `work` with their call pattern; the
/// indexes the scans need are added to `p.registry`.
fn plan_rule(
    rule: &CRule,
    first: Option<usize>,
    head_mask: Option<Mask>,
    own: &[RelId],
    stats: &Stats,
    p: &mut Plans,
    work: &mut Vec<(RelId, Mask)>,
) -> Vec<Step> {
    let mut order = JoinOrder::new(rule, first, head_mask);
    loop {
        order.place_tests(work);
        let Some((i, spec)) = order.best_positive(own, stats, p) else {
            break;
        };
        order.place_positive(i, spec, own, p, work);
    }
    order.finish(work)
}

/// The score of a positive literal as the next join (higher first): all arguments bound,
/// some argument bound, not a recursive call waiting for its binders, not a partly bound
/// call of a static relation too big to materialize (`(exactlyOne 1 ?m1 … ?m9)` with two
/// cells known has millions of answers; with all nine, one), bound key parts, smallest
/// fan-out.
type Score = (bool, bool, bool, bool, usize, Reverse<usize>);

/// The join order of one rule being built: which body literals are placed, which variables
/// they bind, and the steps so far.
struct JoinOrder<'r> {
    rule: &'r CRule,
    /// `bound[v]`: variable `v` is bound by the steps so far (or the head's call pattern).
    bound: Vec<bool>,
    /// `placed[i]`: body literal `i` has its step.
    placed: Vec<bool>,
    steps: Vec<Step>,
}

impl<'r> JoinOrder<'r> {
    /// The empty order of `rule` with the head arguments of `head_mask` bound, starting
    /// with the delta of body literal `first` when given.
    fn new(rule: &'r CRule, first: Option<usize>, head_mask: Option<Mask>) -> Self {
        let mut order = JoinOrder {
            rule,
            bound: vec![false; rule.nvars],
            placed: vec![false; rule.body.len()],
            steps: Vec::new(),
        };
        if let Some(m) = head_mask {
            for (i, a) in rule.head.args.iter().enumerate().take(64) {
                if m & (1 << i) != 0 {
                    a.vars(&mut order.bound);
                }
            }
        }
        if let Some(i) = first {
            order.steps.push(Step::Delta { lit: i });
            order.bind(i);
        }
        order
    }

    /// Marks body literal `i` placed and its variables bound.
    fn bind(&mut self, i: usize) {
        self.placed[i] = true;
        let n = self.rule.nvars;
        for (b, v) in self.bound.iter_mut().zip(self.rule.body[i].vars(n)) {
            *b |= v;
        }
    }

    /// Places every unplaced test whose variables are all bound (a negative one's call
    /// pattern goes on `work`).
    fn place_tests(&mut self, work: &mut Vec<(RelId, Mask)>) {
        let n = self.rule.nvars;
        for (i, l) in self.rule.body.iter().enumerate() {
            if !self.placed[i] && !matches!(l, CLit::Pos(_)) {
                let vs = l.vars(n);
                if vs.iter().zip(&self.bound).all(|(v, b)| !v || *b) {
                    if let CLit::Neg(a) = l {
                        work.push((a.rel, mask_of(&a.args, &self.bound)));
                    }
                    self.steps.push(Step::Test { lit: i });
                    self.placed[i] = true;
                }
            }
        }
    }

    /// The unplaced positive literal to join next (best [`Score`], then source order) and
    /// its index key, or `None` when every positive literal is placed.
    fn best_positive(&self, own: &[RelId], stats: &Stats, p: &Plans) -> Option<(usize, IndexSpec)> {
        let mut best: Option<(usize, Score, IndexSpec)> = None;
        for (i, l) in self.rule.body.iter().enumerate() {
            if let (false, CLit::Pos(a)) = (self.placed[i], l) {
                let (s, spec) = self.score(i, a, own, stats, p);
                if best.as_ref().is_none_or(|(_, bs, _)| s > *bs) {
                    best = Some((i, s, spec));
                }
            }
        }
        best.map(|(i, _, spec)| (i, spec))
    }

    /// The [`Score`] and index key of joining positive body literal `i` (atom `a`) next.
    fn score(
        &self,
        i: usize,
        a: &CAtom,
        own: &[RelId],
        stats: &Stats,
        p: &Plans,
    ) -> (Score, IndexSpec) {
        let spec = key_spec(a, &self.bound);
        let sel = selectivity(&spec);
        let all_bound = a.args.iter().all(|p| ground_at(p, &self.bound));
        let call = p.demand[a.rel.0 as usize] && !own.contains(&a.rel);
        let recursive =
            stats.stratum[a.rel.0 as usize] == stats.stratum[self.rule.head.rel.0 as usize];
        let s = (
            all_bound,
            sel > 0,
            !(call && recursive && !all_bound && self.binds_own_variable(i)),
            all_bound || !stats.too_big[a.rel.0 as usize],
            sel,
            Reverse(stats.fanout(a.rel, &spec)),
        );
        (s, spec)
    }

    /// Whether body literal `i` binds a variable that no other unplaced positive literal
    /// binds. A recursive call that the other literals would turn into a check is made now
    /// (one goal serves every binding); one that binds a variable of its own anyway waits
    /// for the binders of its other arguments.
    fn binds_own_variable(&self, i: usize) -> bool {
        let n = self.rule.nvars;
        let vs = self.rule.body[i].vars(n);
        (0..n).any(|v| {
            vs[v]
                && !self.bound[v]
                && !self.rule.body.iter().enumerate().any(|(j, m)| {
                    j != i && !self.placed[j] && matches!(m, CLit::Pos(_)) && m.vars(n)[v]
                })
        })
    }

    /// Places positive body literal `i`: a call of a demand relation not in `own` (its call
    /// pattern goes on `work`), else a scan through the index of key `spec` (a full scan
    /// when the key is empty).
    fn place_positive(
        &mut self,
        i: usize,
        spec: IndexSpec,
        own: &[RelId],
        p: &mut Plans,
        work: &mut Vec<(RelId, Mask)>,
    ) {
        let CLit::Pos(a) = &self.rule.body[i] else {
            unreachable!("best is positive")
        };
        if p.demand[a.rel.0 as usize] && !own.contains(&a.rel) {
            work.push((a.rel, mask_of(&a.args, &self.bound)));
            self.steps.push(Step::Call { lit: i });
        } else {
            let index = if spec.parts.is_empty() {
                None
            } else {
                Some(p.registry.add(a.rel, spec))
            };
            self.steps.push(Step::Scan { lit: i, index });
        }
        self.bind(i);
    }

    /// The steps, with the unsafe leftovers (tests whose variables were never bound) last.
    fn finish(mut self, work: &mut Vec<(RelId, Mask)>) -> Vec<Step> {
        for (i, pl) in self.placed.iter().enumerate() {
            if !pl {
                if let CLit::Neg(a) = &self.rule.body[i] {
                    work.push((a.rel, mask_of(&a.args, &self.bound)));
                }
                self.steps.push(Step::Test { lit: i });
            }
        }
        self.steps
    }
}
