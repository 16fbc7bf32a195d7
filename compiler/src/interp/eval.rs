//! Evaluation: nested-loop joins over hash indexes. A materialized stratum is computed
//! bottom-up in semi-naive rounds; a stratum with a negative cycle (only locally
//! stratified) by the alternating fixpoint of Van Gelder ("The alternating fixpoint of
//! logic programs with negation", PODS 1989), which gives its unique two-valued model when
//! one exists. An on-demand relation is computed per call pattern (bound arguments pushed
//! into its rules) and memoized; a recursive one by tabling ([`super::table`]).

use super::plan::{Plans, Step};
use super::rules::{CAtom, CLit, CRule, Class, Pat, RelId, Rules, Stratum};
use super::store::{RelFacts, Store, Tuple};
use super::{InterpError, Limits};
use crate::gdl::{Span, Symbols};
use crate::terms::{TermArena, TermId, TermRef};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

const UNBOUND: TermId = TermId(u32::MAX);

/// A call of an on-demand relation: the relation and its bound arguments.
pub type CallKey = (RelId, Box<[Option<TermId>]>);

/// Memoized answers of on-demand relations, per call (relation, bound arguments).
#[derive(Clone, Debug, Default)]
pub struct Memo {
    pub(super) map: FxHashMap<CallKey, Rc<[Tuple]>>,
    /// Number of answers held.
    pub total: usize,
}

/// What an evaluation reads and the memos it fills.
pub struct Engine<'a> {
    /// Program and plans.
    pub ctx: &'a Ctx<'a>,
    /// Materialized facts `[static, state, move]`.
    pub stores: [&'a Store; 3],
    /// Memos `[static, state, move]`.
    pub memos: [&'a mut Memo; 3],
    /// The term table.
    pub terms: &'a mut TermArena,
    /// For an alternating-fixpoint round: the approximation that `not` on the stratum's own
    /// relations reads.
    pub neg: Option<(&'a Store, usize)>,
    /// Fixpoints of recursive on-demand strata in progress, innermost last.
    pub tables: Vec<super::table::Table>,
    /// Calls in progress, nested ([`Limits::max_call_depth`]).
    pub depth: u32,
}

pub(super) fn class_ix(c: Class) -> usize {
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
    /// Join plans.
    pub plans: &'a Plans,
    /// Symbols (for error messages).
    pub syms: &'a Symbols,
    /// Budgets.
    pub limits: &'a Limits,
}

struct Join<'e, 'a> {
    eng: &'e mut Engine<'a>,
    rule: &'a CRule,
    steps: &'a [Step],
    delta: (usize, usize),
    binds: Vec<TermId>,
    trail: Vec<u16>,
    out: Vec<TermId>,
}

impl<'a> Join<'_, 'a> {
    fn facts(&self, rel: RelId) -> &'a RelFacts {
        let c = self.eng.ctx.rules.rels[rel.0 as usize].class;
        let store: &'a Store = self.eng.stores[class_ix(c)];
        store.rel(rel)
    }

    fn undo(&mut self, mark: usize) {
        for v in self.trail.drain(mark..) {
            self.binds[v as usize] = UNBOUND;
        }
    }

    /// Matches pattern `p` against ground term `t`, binding variables (recorded on the
    /// trail). On failure some bindings may remain: the caller undoes to its mark.
    fn unify(&mut self, p: &Pat, t: TermId) -> bool {
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
            Pat::Fn(f, ps) => {
                match self.eng.terms.get(t) {
                    TermRef::Fn(g, args) if g == *f && args.len() == ps.len() => {}
                    _ => return false,
                }
                for (i, p) in ps.iter().enumerate() {
                    let TermRef::Fn(_, args) = self.eng.terms.get(t) else {
                        return false;
                    };
                    let a = args[i];
                    if !self.unify(p, a) {
                        return false;
                    }
                }
                true
            }
        }
    }

    fn unify_row(&mut self, args: &[Pat], row: &[TermId]) -> bool {
        args.iter().zip(row).all(|(p, &t)| self.unify(p, t))
    }

    /// The ground term a pattern stands for now, if it exists in the table. `Err(())` when
    /// a variable is unbound.
    fn inst(&self, p: &Pat) -> Result<Option<TermId>, ()> {
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
                Ok(self.eng.terms.find_function(*f, &args))
            }
        }
    }

    /// Identity of a ground term and a pattern (an unbound variable is identical to nothing).
    fn eq_tp(&self, t: TermId, p: &Pat) -> bool {
        match p {
            Pat::Var(v) => self.binds[*v as usize] == t,
            Pat::Ground(g) => *g == t,
            Pat::Fn(f, ps) => match self.eng.terms.get(t) {
                TermRef::Fn(g, args) if g == *f && args.len() == ps.len() => {
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
                f == g
                    && ps.len() == qs.len()
                    && ps.iter().zip(qs.iter()).all(|(p, q)| self.eq(p, q))
            }
        }
    }

    /// The call key of `a` now: bound arguments interned, others `None`.
    fn call_key(&mut self, a: &CAtom) -> Box<[Option<TermId>]> {
        a.args
            .iter()
            .map(|p| {
                if self.ground(p) {
                    Some(build(self.eng.terms, p, &self.binds))
                } else {
                    None
                }
            })
            .collect()
    }

    fn ground(&self, p: &Pat) -> bool {
        match p {
            Pat::Var(v) => self.binds[*v as usize] != UNBOUND,
            Pat::Ground(_) => true,
            Pat::Fn(_, ps) => ps.iter().all(|p| self.ground(p)),
        }
    }

    /// True when some fact of `a`'s relation matches `a` (used by `not`).
    fn exists(&mut self, a: &CAtom) -> Result<bool, InterpError> {
        if self.eng.ctx.plans.demand[a.rel.0 as usize] {
            let key = self.call_key(a);
            let answers = call(self.eng, a.rel, key)?;
            let mark = self.trail.len();
            let found = answers.iter().any(|row| {
                let ok = self.unify_row(&a.args, row);
                self.undo(mark);
                ok
            });
            return Ok(found);
        }
        let facts: &'a RelFacts = match self.eng.neg {
            Some((store, stratum))
                if self.eng.ctx.rules.rels[a.rel.0 as usize].stratum == stratum =>
            {
                store.rel(a.rel)
            }
            _ => self.facts(a.rel),
        };
        let mut tuple = Vec::with_capacity(a.args.len());
        for p in a.args.iter() {
            match self.inst(p) {
                Ok(Some(t)) => tuple.push(t),
                Ok(None) => return Ok(false),
                Err(()) => {
                    // unsafe: unbound variables match anything
                    let mark = self.trail.len();
                    let found = facts.rows.iter().any(|row| {
                        let ok = self.unify_row(&a.args, row);
                        self.undo(mark);
                        ok
                    });
                    return Ok(found);
                }
            }
        }
        Ok(facts.set.contains(tuple.as_slice()))
    }

    fn test(&mut self, lit: &CLit) -> Result<bool, InterpError> {
        Ok(match lit {
            CLit::Pos(a) => self.exists(a)?,
            CLit::Neg(a) => !self.exists(a)?,
            CLit::Distinct(x, y) => !self.eq(x, y),
            CLit::Equal(x, y) => self.eq(x, y),
        })
    }

    fn run(&mut self, k: usize) -> Result<(), InterpError> {
        let Some(step) = self.steps.get(k) else {
            if self.binds.is_empty() {
                self.out.push(UNBOUND); // one solution of a rule without variables
            } else {
                self.out.extend_from_slice(&self.binds);
            }
            // a join building more solutions than the budget stops here, not after
            if self.out.len()
                > self
                    .eng
                    .ctx
                    .limits
                    .max_facts
                    .saturating_mul(self.binds.len().max(1))
            {
                let ctx = self.eng.ctx;
                return Err(InterpError::FactBudget {
                    relation: ctx.rules.rel_name(ctx.syms, self.rule.head.rel),
                    limit: ctx.limits.max_facts,
                });
            }
            return Ok(());
        };
        let rule = self.rule;
        match *step {
            Step::Test { lit } => {
                if self.test(&rule.body[lit])? {
                    self.run(k + 1)?;
                }
            }
            Step::Delta { lit } => {
                let CLit::Pos(a) = &rule.body[lit] else {
                    return Ok(());
                };
                let facts = self.facts(a.rel);
                for row in &facts.rows[self.delta.0..self.delta.1] {
                    self.try_row(k, a, row)?;
                }
            }
            Step::Call { lit } => {
                let CLit::Pos(a) = &rule.body[lit] else {
                    return Ok(());
                };
                let key = self.call_key(a);
                let answers = call(self.eng, a.rel, key)?;
                for row in answers.iter() {
                    self.try_row(k, a, row)?;
                }
            }
            Step::Scan { lit, index } => {
                let CLit::Pos(a) = &rule.body[lit] else {
                    return Ok(());
                };
                let facts = self.facts(a.rel);
                match index {
                    None => {
                        for row in &facts.rows {
                            self.try_row(k, a, row)?;
                        }
                    }
                    Some(ix) => {
                        let ix = &facts.indexes[ix];
                        let Some(key) = self.key(a, &ix.spec) else {
                            return Ok(());
                        };
                        if let Some(rows) = ix.map.get(&key) {
                            for &r in rows {
                                self.try_row(k, a, &facts.rows[r as usize])?;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn try_row(&mut self, k: usize, a: &CAtom, row: &[TermId]) -> Result<(), InterpError> {
        let mark = self.trail.len();
        if self.unify_row(&a.args, row) {
            self.run(k + 1)?;
        }
        self.undo(mark);
        Ok(())
    }

    fn key(&self, a: &CAtom, spec: &super::plan::IndexSpec) -> Option<Vec<TermId>> {
        use super::plan::KeyPart;
        let mut key = Vec::with_capacity(spec.parts.len());
        for part in &spec.parts {
            match *part {
                KeyPart::Whole(col) => key.push(self.inst(&a.args[col]).ok()??),
                KeyPart::Shape { .. } => {}
                KeyPart::Sub { col, j, .. } => {
                    let Pat::Fn(_, sub) = &a.args[col] else {
                        return None;
                    };
                    key.push(self.inst(&sub[j]).ok()??);
                }
            }
        }
        Some(key)
    }
}

/// Builds the ground term for `p` under `binds`, interning new terms.
pub(super) fn build(terms: &mut TermArena, p: &Pat, binds: &[TermId]) -> TermId {
    match p {
        Pat::Var(v) => binds[*v as usize],
        Pat::Ground(g) => *g,
        Pat::Fn(f, ps) => {
            let args: Vec<TermId> = ps.iter().map(|p| build(terms, p, binds)).collect();
            terms.function(*f, &args)
        }
    }
}

/// Instantiates the head of `rule` for every solution in `out` (bindings, `nvars` each).
fn heads(
    ctx: &Ctx<'_>,
    terms: &mut TermArena,
    rule: &CRule,
    out: &[TermId],
    mut emit: impl FnMut(&TermArena, Tuple),
) -> Result<(), InterpError> {
    for binds in out.chunks(rule.nvars.max(1)) {
        let mut tuple = Vec::with_capacity(rule.head.args.len());
        for p in rule.head.args.iter() {
            let t = build(terms, p, binds);
            if terms.depth(t) > ctx.limits.max_term_depth {
                return Err(InterpError::TermDepth {
                    relation: ctx.rules.rel_name(ctx.syms, rule.head.rel),
                    limit: ctx.limits.max_term_depth,
                    span: rule.span,
                });
            }
            tuple.push(t);
        }
        emit(terms, tuple.into());
    }
    Ok(())
}

/// Answers of the on-demand relation `rel` for the call `key` (bound arguments `Some`),
/// memoized. A relation of a recursive stratum is answered by tabling ([`super::table`]).
///
/// Errors: [`InterpError::TermDepth`], [`InterpError::FactBudget`].
pub fn call(
    eng: &mut Engine<'_>,
    rel: RelId,
    key: Box<[Option<TermId>]>,
) -> Result<Rc<[Tuple]>, InterpError> {
    let ctx = eng.ctx;
    let info = &ctx.rules.rels[rel.0 as usize];
    let c = class_ix(info.class);
    let memo_key = (rel, key);
    if let Some(a) = eng.memos[c].map.get(&memo_key) {
        return Ok(a.clone());
    }
    if eng.depth >= ctx.limits.max_call_depth {
        return Err(InterpError::CallDepth {
            relation: ctx.rules.rel_name(ctx.syms, rel),
            limit: ctx.limits.max_call_depth,
            span: first_rule_span(ctx, rel),
        });
    }
    eng.depth += 1;
    let answers = if ctx.rules.strata[info.stratum].recursive {
        super::table::call_tabled(eng, info.stratum, memo_key)
    } else {
        solve(eng, &memo_key).and_then(|answers| remember(eng, memo_key, answers))
    };
    eng.depth -= 1;
    answers
}

/// The span of the first rule of `rel`, for an error about the relation (empty when it
/// has none).
pub(super) fn first_rule_span(ctx: &Ctx<'_>, rel: RelId) -> Span {
    ctx.plans.rules_of[rel.0 as usize]
        .first()
        .map_or_else(Span::default, |&ri| ctx.rules.rules[ri].span)
}

/// Stores complete answers of a call in the memo of its relation's class.
///
/// Errors: [`InterpError::FactBudget`] when the memo grows past the budget.
pub(super) fn remember(
    eng: &mut Engine<'_>,
    memo_key: CallKey,
    answers: Vec<Tuple>,
) -> Result<Rc<[Tuple]>, InterpError> {
    let ctx = eng.ctx;
    let rel = memo_key.0;
    let memo = &mut *eng.memos[class_ix(ctx.rules.rels[rel.0 as usize].class)];
    memo.total += answers.len();
    if memo.total > ctx.limits.max_facts {
        return Err(InterpError::FactBudget {
            relation: ctx.rules.rel_name(ctx.syms, rel),
            limit: ctx.limits.max_facts,
        });
    }
    let rc: Rc<[Tuple]> = answers.into();
    memo.map.insert(memo_key, rc.clone());
    Ok(rc)
}

/// Runs every rule of the call's relation once with the call's bound arguments pushed into
/// the head; returns the distinct answers (head tuples). Calls made by the bodies go
/// through [`call`].
///
/// Errors: [`InterpError::TermDepth`], [`InterpError::FactBudget`].
pub(super) fn solve(eng: &mut Engine<'_>, memo_key: &CallKey) -> Result<Vec<Tuple>, InterpError> {
    let ctx = eng.ctx;
    let (rel, key) = (memo_key.0, &memo_key.1);
    let mut mask = 0u64;
    for (i, k) in key.iter().enumerate().take(64) {
        if k.is_some() {
            mask |= 1 << i;
        }
    }
    let mut answers: Vec<Tuple> = Vec::new();
    let mut seen: FxHashSet<Tuple> = FxHashSet::default();
    for &ri in &ctx.plans.rules_of[rel.0 as usize] {
        let rule = &ctx.rules.rules[ri];
        let Some(steps) = ctx
            .plans
            .adorned
            .get(&(ri, mask))
            .or_else(|| ctx.plans.adorned.get(&(ri, 0)))
        else {
            continue;
        };
        let mut j = Join {
            eng: &mut *eng,
            rule,
            steps,
            delta: (0, 0),
            binds: vec![UNBOUND; rule.nvars],
            trail: Vec::new(),
            out: Vec::new(),
        };
        let unified = rule.head.args.iter().zip(key.iter()).all(|(p, k)| match k {
            Some(t) => j.unify(p, *t),
            None => true,
        });
        if !unified {
            continue;
        }
        j.run(0)?;
        let out = std::mem::take(&mut j.out);
        heads(ctx, eng.terms, rule, &out, |_, t| {
            if seen.insert(t.clone()) {
                answers.push(t);
            }
        })?;
    }
    Ok(answers)
}

/// Answers of any relation for the call `key`: a memoized call for an on-demand relation,
/// else the matching stored facts.
pub fn query(
    eng: &mut Engine<'_>,
    rel: RelId,
    key: &[Option<TermId>],
) -> Result<Vec<Tuple>, InterpError> {
    if eng.ctx.plans.demand[rel.0 as usize] {
        return Ok(call(eng, rel, key.into())?.to_vec());
    }
    let c = class_ix(eng.ctx.rules.rels[rel.0 as usize].class);
    Ok(eng.stores[c]
        .rel(rel)
        .rows
        .iter()
        .filter(|row| row.iter().zip(key).all(|(t, k)| k.is_none_or(|k| k == *t)))
        .cloned()
        .collect())
}

/// Evaluates materialized stratum `si` into `target` (the store of the stratum's class),
/// reading the other classes from `others` (`[static, state, move]`; the entry of the
/// target's class is ignored) and calling on-demand relations through `memos`.
///
/// Errors: [`InterpError::TermDepth`], [`InterpError::FactBudget`],
/// [`InterpError::NotStratified`].
pub fn eval_stratum(
    ctx: &Ctx<'_>,
    terms: &mut TermArena,
    memos: [&mut Memo; 3],
    si: usize,
    others: [&Store; 3],
    target: &mut Store,
) -> Result<(), InterpError> {
    let st = &ctx.rules.strata[si];
    if st.rules.is_empty() {
        return Ok(());
    }
    let mut memos = memos;
    if !st.negative_cycle {
        return semi_naive(ctx, terms, &mut memos, si, others, target, None);
    }
    // alternating fixpoint: J_{k+1} = Γ(J_k), J_0 = ∅
    let mut history: Vec<Vec<(RelId, Tuple)>> = Vec::new();
    let mut approx = Store {
        rels: vec![RelFacts::default(); target.rels.len()],
        total: 0,
    };
    for _ in 0..ctx.limits.max_rounds {
        for &r in &st.rels {
            target.clear_rel(r);
        }
        semi_naive(ctx, terms, &mut memos, si, others, target, Some(&approx))?;
        let snap = snapshot(st, target);
        if history.last() == Some(&snap) {
            return Ok(());
        }
        if history.len() >= 2 && history[history.len() - 2] == snap {
            return Err(InterpError::NotStratified {
                relation: ctx.rules.rel_name(ctx.syms, st.rels[0]),
            });
        }
        approx = Store {
            rels: vec![RelFacts::default(); target.rels.len()],
            total: 0,
        };
        for (r, t) in &snap {
            approx.insert(terms, *r, t.clone());
        }
        history.push(snap);
    }
    Err(InterpError::NotStratified {
        relation: ctx.rules.rel_name(ctx.syms, st.rels[0]),
    })
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
    terms: &mut TermArena,
    memos: &mut [&mut Memo; 3],
    si: usize,
    others: [&Store; 3],
    target: &mut Store,
    neg: Option<&Store>,
) -> Result<(), InterpError> {
    let st = &ctx.rules.strata[si];
    let ci = class_ix(st.class);
    // per rule: flattened bindings of new solutions
    let mut found: Vec<(usize, Vec<TermId>)> = Vec::new();
    let mut start: FxHashMap<RelId, usize> = st.rels.iter().map(|&r| (r, 0)).collect();
    let mut first = true;
    loop {
        found.clear();
        {
            let mut stores = others;
            stores[ci] = &*target;
            let [m0, m1, m2] = memos;
            let mut eng = Engine {
                ctx,
                stores,
                memos: [&mut **m0, &mut **m1, &mut **m2],
                terms: &mut *terms,
                neg: neg.map(|s| (s, si)),
                tables: Vec::new(),
                depth: 0,
            };
            for &ri in &st.rules {
                let Some(plans) = &ctx.plans.materialized[ri] else {
                    continue;
                };
                let rule = &ctx.rules.rules[ri];
                let mut runs: Vec<(&[Step], (usize, usize))> = Vec::new();
                if first {
                    runs.push((&plans.full, (0, 0)));
                } else {
                    for (lit, plan) in &plans.deltas {
                        let CLit::Pos(a) = &rule.body[*lit] else {
                            continue;
                        };
                        let d = (start[&a.rel], target.rel(a.rel).rows.len());
                        if d.0 < d.1 {
                            runs.push((plan, d));
                        }
                    }
                }
                let mut out = Vec::new();
                for (steps, delta) in runs {
                    let mut j = Join {
                        eng: &mut eng,
                        rule,
                        steps,
                        delta,
                        binds: vec![UNBOUND; rule.nvars],
                        trail: Vec::new(),
                        out: Vec::new(),
                    };
                    j.run(0)?;
                    out.append(&mut j.out);
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
            heads(ctx, terms, rule, out, |terms, t| {
                added |= target.insert(terms, rule.head.rel, t);
            })?;
            if target.total > ctx.limits.max_facts {
                return Err(InterpError::FactBudget {
                    relation: ctx.rules.rel_name(ctx.syms, rule.head.rel),
                    limit: ctx.limits.max_facts,
                });
            }
        }
        if !added || !st.recursive {
            return Ok(());
        }
    }
}
