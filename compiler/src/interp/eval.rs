//! Bottom-up evaluation of one stratum: semi-naive rounds of nested-loop joins over hash
//! indexes; a stratum with a negative cycle (only locally stratified) is evaluated by the
//! alternating fixpoint of Van Gelder ("The alternating fixpoint of logic programs with
//! negation", PODS 1989), which gives its unique two-valued model when one exists.

use super::plan::{RulePlans, Step};
use super::rules::{CAtom, CLit, CRule, Class, Pat, RelId, Rules, Stratum};
use super::store::{RelFacts, Store, Tuple};
use super::terms::{GroundTerm, GroundTermId, TermTable};
use super::{InterpError, Limits};
use crate::gdl::Symbols;
use std::collections::HashMap;

const UNBOUND: GroundTermId = GroundTermId(u32::MAX);

/// The stores an evaluation reads, by relation class.
pub struct View<'a> {
    /// `[static, state, move]`.
    pub by_class: [&'a Store; 3],
    /// For an alternating-fixpoint round: the approximation that `not` on the stratum's own
    /// relations reads.
    pub neg: Option<(&'a Store, usize)>,
}

fn class_ix(c: Class) -> usize {
    match c {
        Class::Static => 0,
        Class::State => 1,
        Class::Move => 2,
    }
}

/// Everything a stratum evaluation needs besides the stores.
pub struct Ctx<'a> {
    /// The lowered program.
    pub rules: &'a Rules,
    /// Join plans, like `rules.rules`.
    pub plans: &'a [RulePlans],
    /// Symbols (for error messages).
    pub syms: &'a Symbols,
    /// Budgets.
    pub limits: &'a Limits,
}

struct Join<'a> {
    rules: &'a Rules,
    view: &'a View<'a>,
    terms: &'a TermTable,
    rule: &'a CRule,
    steps: &'a [Step],
    delta: (usize, usize),
    binds: Vec<GroundTermId>,
    trail: Vec<u16>,
    out: &'a mut Vec<GroundTermId>,
}

impl<'a> Join<'a> {
    fn facts(&self, rel: RelId) -> &'a RelFacts {
        let c = self.rules.rels[rel.0 as usize].class;
        self.view.by_class[class_ix(c)].rel(rel)
    }

    fn undo(&mut self, mark: usize) {
        for v in self.trail.drain(mark..) {
            self.binds[v as usize] = UNBOUND;
        }
    }

    /// Matches pattern `p` against ground term `t`, binding variables (recorded on the
    /// trail). On failure some bindings may remain: the caller undoes to its mark.
    fn unify(&mut self, p: &Pat, t: GroundTermId) -> bool {
        match p {
            Pat::Var(v) => {
                let b = self.binds[*v as usize];
                if b == UNBOUND {
                    self.binds[*v as usize] = t;
                    self.trail.push(*v);
                    true
                } else {
                    b == t
                }
            }
            Pat::Ground(g) => *g == t,
            Pat::Fn(f, ps) => match self.terms.get(t) {
                GroundTerm::Fn(g, args) if g == f && args.len() == ps.len() => {
                    ps.iter().zip(args.iter()).all(|(p, &a)| self.unify(p, a))
                }
                _ => false,
            },
        }
    }

    fn unify_row(&mut self, args: &[Pat], row: &[GroundTermId]) -> bool {
        args.iter().zip(row).all(|(p, &t)| self.unify(p, t))
    }

    /// The ground term a pattern stands for now, if it exists in the table. `Err(())` when
    /// a variable is unbound.
    fn inst(&self, p: &Pat) -> Result<Option<GroundTermId>, ()> {
        match p {
            Pat::Var(v) => match self.binds[*v as usize] {
                UNBOUND => Err(()),
                b => Ok(Some(b)),
            },
            Pat::Ground(g) => Ok(Some(*g)),
            Pat::Fn(f, ps) => {
                let mut args = Vec::with_capacity(ps.len());
                let mut missing = false;
                for p in ps.iter() {
                    match self.inst(p)? {
                        Some(a) => args.push(a),
                        None => missing = true,
                    }
                }
                if missing {
                    return Ok(None);
                }
                Ok(self.terms.lookup(&GroundTerm::Fn(*f, args.into())))
            }
        }
    }

    /// Identity of a ground term and a pattern (an unbound variable is identical to nothing).
    fn eq_tp(&self, t: GroundTermId, p: &Pat) -> bool {
        match p {
            Pat::Var(v) => self.binds[*v as usize] == t,
            Pat::Ground(g) => *g == t,
            Pat::Fn(f, ps) => match self.terms.get(t) {
                GroundTerm::Fn(g, args) if g == f && args.len() == ps.len() => {
                    ps.iter().zip(args.iter()).all(|(p, &a)| self.eq_tp(a, p))
                }
                _ => false,
            },
        }
    }

    /// Identity of two patterns under the bindings (Prolog's `==`: an unbound variable is
    /// identical only to itself).
    fn eq(&self, x: &Pat, y: &Pat) -> bool {
        match (x, y) {
            (Pat::Var(a), Pat::Var(b)) if a == b => true,
            (Pat::Var(v), q) | (q, Pat::Var(v)) => match self.binds[*v as usize] {
                UNBOUND => false,
                t => self.eq_tp(t, q),
            },
            (Pat::Ground(g), q) | (q, Pat::Ground(g)) => self.eq_tp(*g, q),
            (Pat::Fn(f, ps), Pat::Fn(g, qs)) => {
                f == g && ps.len() == qs.len() && ps.iter().zip(qs.iter()).all(|(p, q)| self.eq(p, q))
            }
        }
    }

    /// True when some fact of `a`'s relation matches `a` (used by `not`).
    fn exists(&mut self, a: &CAtom) -> bool {
        let view: &'a View<'a> = self.view;
        let facts: &'a RelFacts = match view.neg {
            Some((store, stratum)) if self.rules.rels[a.rel.0 as usize].stratum == stratum => {
                store.rel(a.rel)
            }
            _ => self.facts(a.rel),
        };
        let mut tuple = Vec::with_capacity(a.args.len());
        for p in a.args.iter() {
            match self.inst(p) {
                Ok(Some(t)) => tuple.push(t),
                Ok(None) => return false,
                Err(()) => {
                    // unsafe: unbound variables match anything
                    let mark = self.trail.len();
                    let found = facts.rows.iter().any(|row| {
                        let ok = self.unify_row(&a.args, row);
                        self.undo(mark);
                        ok
                    });
                    return found;
                }
            }
        }
        facts.set.contains(tuple.as_slice())
    }

    fn test(&mut self, lit: &CLit) -> bool {
        match lit {
            CLit::Pos(a) => self.exists(a),
            CLit::Neg(a) => !self.exists(a),
            CLit::Distinct(x, y) => !self.eq(x, y),
            CLit::Equal(x, y) => self.eq(x, y),
        }
    }

    fn run(&mut self, k: usize) {
        let Some(step) = self.steps.get(k) else {
            if self.binds.is_empty() {
                self.out.push(UNBOUND); // one solution of a rule without variables
            } else {
                self.out.extend_from_slice(&self.binds);
            }
            return;
        };
        let rule = self.rule;
        match *step {
            Step::Test { lit } => {
                if self.test(&rule.body[lit]) {
                    self.run(k + 1);
                }
            }
            Step::Delta { lit } => {
                let CLit::Pos(a) = &rule.body[lit] else { return };
                let facts = self.facts(a.rel);
                for row in &facts.rows[self.delta.0..self.delta.1] {
                    self.try_row(k, a, row);
                }
            }
            Step::Scan { lit, index } => {
                let CLit::Pos(a) = &rule.body[lit] else { return };
                let facts = self.facts(a.rel);
                match index {
                    None => {
                        for row in &facts.rows {
                            self.try_row(k, a, row);
                        }
                    }
                    Some(ix) => {
                        let ix = &facts.indexes[ix as usize];
                        let Some(key) = self.key(a, &ix.spec) else { return };
                        if let Some(rows) = ix.map.get(&key) {
                            for &r in rows {
                                self.try_row(k, a, &facts.rows[r as usize]);
                            }
                        }
                    }
                }
            }
        }
    }

    fn try_row(&mut self, k: usize, a: &CAtom, row: &[GroundTermId]) {
        let mark = self.trail.len();
        if self.unify_row(&a.args, row) {
            self.run(k + 1);
        }
        self.undo(mark);
    }

    fn key(&self, a: &CAtom, spec: &super::plan::IndexSpec) -> Option<Vec<GroundTermId>> {
        use super::plan::KeyPart;
        let mut key = Vec::with_capacity(spec.parts.len());
        for part in &spec.parts {
            match *part {
                KeyPart::Whole(col) => key.push(self.inst(&a.args[col]).ok()??),
                KeyPart::Shape { .. } => {}
                KeyPart::Sub { col, j, .. } => {
                    let Pat::Fn(_, sub) = &a.args[col] else { return None };
                    key.push(self.inst(&sub[j]).ok()??);
                }
            }
        }
        Some(key)
    }
}

/// Builds the ground term for `p` under `binds`, interning new terms.
fn build(terms: &mut TermTable, p: &Pat, binds: &[GroundTermId]) -> GroundTermId {
    match p {
        Pat::Var(v) => binds[*v as usize],
        Pat::Ground(g) => *g,
        Pat::Fn(f, ps) => {
            let args: Vec<GroundTermId> = ps.iter().map(|p| build(terms, p, binds)).collect();
            terms.intern(GroundTerm::Fn(*f, args.into()))
        }
    }
}

/// Runs one plan of rule `ri`; appends the variable bindings of every solution to `out`.
fn run_plan(
    ctx: &Ctx<'_>,
    view: &View<'_>,
    terms: &TermTable,
    ri: usize,
    steps: &[Step],
    delta: (usize, usize),
    out: &mut Vec<GroundTermId>,
) {
    let rule = &ctx.rules.rules[ri];
    let mut j = Join {
        rules: ctx.rules,
        view,
        terms,
        rule,
        steps,
        delta,
        binds: vec![UNBOUND; rule.nvars],
        trail: Vec::new(),
        out,
    };
    j.run(0);
}

/// Evaluates stratum `si` into `target` (the store of the stratum's class), reading the
/// other classes from `others` (`[static, state, move]`; the entry of the target's class is
/// ignored).
///
/// Errors: [`InterpError::TermDepth`], [`InterpError::FactBudget`],
/// [`InterpError::NotStratified`].
pub fn eval_stratum(
    ctx: &Ctx<'_>,
    terms: &mut TermTable,
    si: usize,
    others: [&Store; 3],
    target: &mut Store,
) -> Result<(), InterpError> {
    let st = &ctx.rules.strata[si];
    if st.rules.is_empty() {
        return Ok(());
    }
    if !st.negative_cycle {
        return semi_naive(ctx, terms, si, others, target, None);
    }
    // alternating fixpoint: J_{k+1} = Γ(J_k), J_0 = ∅
    let mut history: Vec<Vec<(RelId, Tuple)>> = Vec::new();
    let mut approx = Store { rels: vec![RelFacts::default(); target.rels.len()], total: 0 };
    for _ in 0..ctx.limits.max_rounds {
        for &r in &st.rels {
            target.clear_rel(r);
        }
        semi_naive(ctx, terms, si, others, target, Some(&approx))?;
        let snap = snapshot(st, target);
        if history.last() == Some(&snap) {
            return Ok(());
        }
        if history.len() >= 2 && history[history.len() - 2] == snap {
            return Err(InterpError::NotStratified {
                relation: ctx.rules.rel_name(ctx.syms, st.rels[0]),
            });
        }
        approx = Store { rels: vec![RelFacts::default(); target.rels.len()], total: 0 };
        for (r, t) in &snap {
            approx.insert(terms, *r, t.clone());
        }
        history.push(snap);
    }
    Err(InterpError::NotStratified { relation: ctx.rules.rel_name(ctx.syms, st.rels[0]) })
}

fn snapshot(st: &Stratum, store: &Store) -> Vec<(RelId, Tuple)> {
    let mut v: Vec<(RelId, Tuple)> = st
        .rels
        .iter()
        .flat_map(|&r| store.rel(r).rows.iter().map(move |t| (r, t.clone())))
        .collect();
    v.sort_unstable();
    v
}

fn semi_naive(
    ctx: &Ctx<'_>,
    terms: &mut TermTable,
    si: usize,
    others: [&Store; 3],
    target: &mut Store,
    neg: Option<&Store>,
) -> Result<(), InterpError> {
    let st = &ctx.rules.strata[si];
    let ci = class_ix(st.class);
    // per rule: flattened bindings of new solutions
    let mut found: Vec<(usize, Vec<GroundTermId>)> = Vec::new();
    let mut start: HashMap<RelId, usize> = st.rels.iter().map(|&r| (r, 0)).collect();
    let mut first = true;
    loop {
        found.clear();
        {
            let mut by_class = others;
            by_class[ci] = &*target;
            let view = View { by_class, neg: neg.map(|s| (s, si)) };
            for &ri in &st.rules {
                let mut out = Vec::new();
                if first {
                    run_plan(ctx, &view, terms, ri, &ctx.plans[ri].full, (0, 0), &mut out);
                } else {
                    for (lit, plan) in &ctx.plans[ri].deltas {
                        let CLit::Pos(a) = &ctx.rules.rules[ri].body[*lit] else { continue };
                        let d = (start[&a.rel], target.rel(a.rel).rows.len());
                        if d.0 < d.1 {
                            run_plan(ctx, &view, terms, ri, plan, d, &mut out);
                        }
                    }
                }
                if !out.is_empty() {
                    found.push((ri, out));
                }
            }
        }
        first = false;
        for &r in &st.rels {
            start.insert(r, target.rel(r).rows.len());
        }
        let mut added = false;
        for (ri, out) in &found {
            let rule = &ctx.rules.rules[*ri];
            let n = rule.nvars.max(1);
            for binds in out.chunks(n) {
                let mut tuple = Vec::with_capacity(rule.head.args.len());
                for p in rule.head.args.iter() {
                    let t = build(terms, p, binds);
                    if terms.depth(t) > ctx.limits.max_term_depth {
                        return Err(InterpError::TermDepth {
                            relation: ctx.rules.rel_name(ctx.syms, rule.head.rel),
                            limit: ctx.limits.max_term_depth,
                        });
                    }
                    tuple.push(t);
                }
                added |= target.insert(terms, rule.head.rel, tuple.into());
                if target.total > ctx.limits.max_facts {
                    return Err(InterpError::FactBudget {
                        relation: ctx.rules.rel_name(ctx.syms, rule.head.rel),
                        limit: ctx.limits.max_facts,
                    });
                }
            }
        }
        if !added || !st.recursive {
            return Ok(());
        }
    }
}
