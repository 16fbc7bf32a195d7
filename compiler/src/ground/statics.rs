//! Static relations (independent of `true`/`does`): computed exactly at compile time.
//!
//! Each static component (dependencies first) is first *materialized*: computed in full,
//! bottom-up, semi-naively. When that derives more than [`MATERIALIZE_LIMIT`] atoms, or
//! builds ever deeper terms, or outgrows the memory budget, it is rolled back and the
//! component becomes *on demand*: computed per call pattern (the relation and its bound
//! arguments), only for the calls the rules make, and memoized. A static relation only
//! ever called with some arguments bound then gets answers only for the bindings that
//! occur, and unbounded static recursion (lists that grow without bound, a `lessthan`
//! over a long chain) only produces what is reachable from the call sites. The outputs
//! (`init`, and static `legal`/`goal`/`next`/`terminal`) are always materialized.
//!
//! Calls are evaluated by tabling (the subgoals of a recursive component iterated to a
//! common fixpoint; Tamaki & Sato, "OLD resolution with tabulation", ICLP 1986), one
//! component at a time, lowest first: a goal is re-solved only when a goal it read
//! gained answers since, and a component's goals are complete together when a pass
//! changes nothing. Static negation is stratified ([`super::rules::lower`] checks it), so
//! a negated call is always into a lower component, which is completed first. Joins never
//! nest: a call without answers is recorded as missing, computed, and the join re-run.
//! Within a pass the goals a solving opens are solved next, depth first, and then the goal
//! that needed them, so a recursion that calls one level down is solved from the bottom
//! in one pass, not one level per pass.
//! A call that a goal of a more general call (bound on part of its bound positions, few
//! answers) covers reads that goal's answers instead of opening its own; a recursive call
//! is planned with the bindings its caller has ([`super::call_order`]).

use super::budget::BudgetKind;
use super::fixpoint::Grounder;
use super::join::{Answers, Calls, Stop};
use super::plan::{Mode, Step};
use super::rules::RelKind;
use super::store::Mark;
use super::unify::make_term;
use super::GroundError;
use crate::gdl::RelId;
use crate::intern::Tuples;
use crate::terms::TermId;
use rustc_hash::FxHashMap;

/// Most atoms one static component may derive when computed in full before it is
/// computed on demand instead.
pub const MATERIALIZE_LIMIT: usize = 1_000_000;

/// Most answers of a more general goal that a call reads instead of opening its own.
pub const GENERAL_ROWS: usize = 64;

/// Why a static join stopped before its end.
#[derive(Clone, Copy, Debug)]
enum RowStop {
    /// A head variable was not bound.
    Unbound,
    /// A materialization attempt passed its answer cap.
    Cap,
    /// The rows (these bytes, with the growth the next rows would make) outgrew the
    /// memory budget.
    Memory(usize),
}

/// One call of an on-demand relation and its answers. Its key lives in
/// [`Statics::keys`] (the goal's id is the key's id), so a goal that has no answers and
/// read nothing holds no heap memory of its own: a rule body can open millions of
/// fully bound calls.
#[derive(Debug)]
struct Goal {
    rel: RelId,
    comp: u32,
    done: bool,
    /// Answers, flat rows of the relation's arity.
    rows: Vec<TermId>,
    count: u32,
    /// Clock when its last solving began (0: never solved; a solving ticks it to 1 or more).
    solved: u64,
    /// Clock when it last gained an answer.
    changed: u64,
    /// Goals its last solving read, and whether a call it needed was missing.
    reads: Box<[u32]>,
    blocked: bool,
}

/// The calls of on-demand relations made so far and their answers.
#[derive(Default)]
pub struct Statics {
    keys: Tuples,
    goals: Vec<Goal>,
    /// `(goal, row)` pairs, to keep each goal's answers distinct.
    seen: Tuples,
    open: Vec<u32>,
    clock: u64,
    /// Per relation: its static component (position in the dependency order).
    comp_of: Vec<u32>,
    /// Per relation: the bound positions ([`bound_bits`]) of its calls so far, most bound
    /// first.
    patterns: FxHashMap<u32, Vec<u64>>,
    plans: FxHashMap<(usize, Vec<bool>), Vec<Step>>,
    answers: usize,
    /// Heap bytes the goals hold (answers, reads), kept up to date.
    goal_bytes: usize,
    /// While a component is being materialized: the most answers calls may hold before
    /// it gives up (its calls into on-demand relations are too general).
    cap: Option<usize>,
}

/// A point to roll [`Statics`] back to.
#[derive(Copy, Clone, Debug)]
pub struct StaticsMark {
    goals: usize,
    seen: usize,
    answers: usize,
    goal_bytes: usize,
}

/// Calls `f` with the key encoded as `u32`s (`0` free, `t + 1` bound to term `t`).
fn with_key<R>(key: &[Option<TermId>], f: impl FnOnce(&[u32]) -> R) -> R {
    let code = |k: &Option<TermId>| k.map_or(0, |t| t.0 + 1);
    const SHORT: usize = 16;
    if key.len() <= SHORT {
        let mut buf = [0u32; SHORT];
        for (b, k) in buf.iter_mut().zip(key) {
            *b = code(k);
        }
        f(&buf[..key.len()])
    } else {
        f(&key.iter().map(code).collect::<Vec<_>>())
    }
}

/// The bound positions of a call key as bits (`None` above 64 arguments).
fn bound_bits(key: &[Option<TermId>]) -> Option<u64> {
    (key.len() <= 64).then(|| {
        key.iter()
            .enumerate()
            .filter(|(_, k)| k.is_some())
            .fold(0, |m, (i, _)| m | 1 << i)
    })
}

impl Calls for Statics {
    fn answers(&self, rel: RelId, key: &[Option<TermId>]) -> Answers<'_> {
        let exact = with_key(key, |k| self.keys.find(rel.0, k));
        match exact.or_else(|| self.general_goal(rel, key)) {
            None => Answers::Missing,
            Some(id) => {
                let g = &self.goals[id as usize];
                Answers::Rows {
                    goal: (!g.done).then_some(id),
                    rows: &g.rows,
                    count: g.count as usize,
                }
            }
        }
    }
}

impl Statics {
    /// Answers held by all calls.
    pub fn answer_count(&self) -> usize {
        self.answers
    }

    /// Number of calls made.
    pub fn calls(&self) -> usize {
        self.goals.len()
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.keys.heap_bytes()
            + self.seen.heap_bytes()
            + self.goals.capacity() * std::mem::size_of::<Goal>()
            + self.goal_bytes
    }

    /// The current state, to roll back to.
    pub fn mark(&self) -> StaticsMark {
        debug_assert!(self.open.is_empty(), "marks are taken between calls");
        StaticsMark {
            goals: self.goals.len(),
            seen: self.seen.len(),
            answers: self.answers,
            goal_bytes: self.goal_bytes,
        }
    }

    /// Forgets the calls made since `m`.
    pub fn rollback(&mut self, m: StaticsMark) {
        self.goals.truncate(m.goals);
        self.keys.truncate(m.goals);
        self.open.retain(|&g| (g as usize) < m.goals);
        self.seen.truncate(m.seen);
        self.answers = m.answers;
        self.goal_bytes = m.goal_bytes;
    }

    /// A goal of a more general call than `rel(key)`, bound on a part of its bound
    /// positions, the most bound one with at most [`GENERAL_ROWS`] answers (each call
    /// reads them all): its answers include the call's, and the join keeps
    /// those that match the bound arguments. So a rule that asks for `absDiff(x, y, z)`
    /// with everything bound reads the goal `absDiff(x, _, z)` the fixpoint already
    /// solved instead of opening one goal per triple (tabling by call pattern).
    fn general_goal(&self, rel: RelId, key: &[Option<TermId>]) -> Option<u32> {
        let bound = bound_bits(key)?;
        let general = self.patterns.get(&rel.0)?;
        general
            .iter()
            .filter(|&&m| m & bound == m && m != bound)
            .find_map(|&m| {
                let sub: Vec<Option<TermId>> = key
                    .iter()
                    .enumerate()
                    .map(|(i, k)| k.filter(|_| m >> i & 1 == 1))
                    .collect();
                with_key(&sub, |k| self.keys.find(rel.0, k))
                    .filter(|&g| self.goals[g as usize].count as usize <= GENERAL_ROWS)
            })
    }

    /// The goal of a call, opened if new.
    fn goal(&mut self, rel: RelId, key: &[Option<TermId>]) -> (u32, bool) {
        let (id, new) = with_key(key, |k| self.keys.intern(rel.0, k));
        if let Some(bits) = bound_bits(key).filter(|_| new) {
            let known = self.patterns.entry(rel.0).or_default();
            if !known.contains(&bits) {
                known.push(bits);
                known.sort_unstable_by_key(|m| std::cmp::Reverse(m.count_ones()));
            }
        }
        if new {
            let comp = self.comp_of[rel.0 as usize];
            self.goals.push(Goal {
                rel,
                comp,
                done: false,
                rows: Vec::new(),
                count: 0,
                solved: 0,
                changed: 0,
                reads: Box::default(),
                blocked: false,
            });
            self.open.push(id);
        }
        (id, new)
    }

    /// The key of goal `g` (decoded from [`Self::keys`]).
    fn key_of(&self, g: u32) -> Vec<Option<TermId>> {
        let code = |&c: &u32| c.checked_sub(1).map(TermId);
        self.keys.items(g).iter().map(code).collect()
    }

    fn stale(&self, g: u32) -> bool {
        let goal = &self.goals[g as usize];
        let at = goal.solved;
        at == 0
            || goal.blocked
            || goal
                .reads
                .iter()
                .any(|&r| self.goals[r as usize].changed > at)
    }
}

impl Grounder<'_> {
    /// Computes the static components, materialized or on demand (module docs).
    ///
    /// # Errors
    /// Budget errors while computing an output relation or an on-demand one.
    pub fn materialize(&mut self) -> Result<(), GroundError> {
        let low = self.low;
        self.statics.comp_of = vec![u32::MAX; low.rels.len()];
        for (ci, comp) in low.rel_sccs.iter().enumerate() {
            for r in comp {
                self.statics.comp_of[r.0 as usize] = ci as u32;
            }
        }
        let roots = low.special.roots();
        for comp in &low.rel_sccs {
            if !comp.iter().all(|r| self.kind[r.0 as usize].is_static()) {
                continue;
            }
            let facts_only = comp.iter().all(|r| {
                low.rules_of[r.0 as usize]
                    .iter()
                    .all(|&k| low.rules[k].body.is_empty())
            });
            let must = facts_only || comp.iter().any(|r| roots.contains(r));
            self.report(comp[0]);
            if must {
                self.saturate_component(comp, None)?;
                continue;
            }
            let (mark, smark) = (self.store.mark(), self.statics.mark());
            self.statics.cap = Some(self.statics.answers + MATERIALIZE_LIMIT);
            let tried = self.saturate_component(comp, Some(MATERIALIZE_LIMIT));
            self.statics.cap = None;
            match tried {
                Ok(true) => {}
                Ok(false)
                | Err(GroundError::Budget {
                    kind: BudgetKind::TermDepth | BudgetKind::Memory | BudgetKind::Atoms,
                    ..
                }) => self.demote(comp, mark, smark),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Rolls back a component's materialization and makes it on demand.
    fn demote(&mut self, comp: &[RelId], mark: Mark, smark: super::statics::StaticsMark) {
        self.store.rollback(mark, comp);
        self.clear_indexes(comp);
        self.statics.rollback(smark);
        for r in comp {
            self.kind[r.0 as usize] = RelKind::OnDemand;
        }
    }

    /// Computes the given calls of on-demand relations (and every call they make).
    /// Returns false when a materialization attempt's answer cap stopped it (the calls are
    /// then left incomplete, to be rolled back).
    ///
    /// # Errors
    /// Budget errors, [`GroundError::Unsafe`] for a rule whose head is not ground.
    pub fn resolve(
        &mut self,
        calls: Vec<(RelId, Vec<Option<TermId>>)>,
    ) -> Result<bool, GroundError> {
        for (rel, key) in calls {
            self.open_call(rel, key)?;
        }
        while let Some(c) = self
            .statics
            .open
            .iter()
            .map(|&g| self.statics.goals[g as usize].comp)
            .min()
        {
            let goals: Vec<u32> = self
                .statics
                .open
                .iter()
                .copied()
                .filter(|&g| self.statics.goals[g as usize].comp == c)
                .collect();
            let before = self.statics.goals.len();
            let mut busy = false;
            // Depth first: the goals a solving opens are solved next, then the goal
            // that needed them again, so a chain of recursive calls (`absDiff(x, _, z)`
            // calls `absDiff(x - 1, _, z - 1)`) is solved from its end in one pass
            // instead of one level per pass over every open goal.
            let mut stack: Vec<u32> = goals.into_iter().rev().collect();
            while let Some(g) = stack.pop() {
                if !self.statics.stale(g) {
                    continue;
                }
                let opened = self.statics.goals.len();
                busy |= self.solve(g)?;
                if self.statics.cap.is_some_and(|c| self.statics.answers > c) {
                    self.statics.open.clear();
                    return Ok(false);
                }
                let fresh = opened as u32..self.statics.goals.len() as u32;
                let comp_of = |n: u32| self.statics.goals[n as usize].comp;
                if fresh.clone().any(|n| comp_of(n) < c) {
                    break; // a lower component's goals come first
                }
                if !fresh.is_empty() {
                    stack.push(g);
                    stack.extend(fresh.rev());
                }
                if self.meter.late() {
                    break;
                }
            }
            if !busy && self.statics.goals.len() == before {
                let Statics { goals, open, .. } = &mut self.statics;
                open.retain(|&g| {
                    let goal = &mut goals[g as usize];
                    if goal.comp == c {
                        goal.done = true;
                    }
                    goal.comp != c
                });
            }
            if self.meter.late() {
                let rel = self.low.rel_sccs[c as usize][0];
                return Err(self.time_error(self.first_rule(rel)));
            }
        }
        Ok(true)
    }

    /// Opens the goal of a call (checking the depth of its bound arguments).
    fn open_call(&mut self, rel: RelId, key: Vec<Option<TermId>>) -> Result<u32, GroundError> {
        let max = self.meter.budget.max_term_depth;
        if let Some(t) = key
            .iter()
            .flatten()
            .find(|&&t| self.store.terms.depth(t) + 1 > max)
        {
            let low = self.low;
            let text = self.store.terms.text_cut(&low.syms, *t, 200);
            return Err(self.budget_error(
                BudgetKind::TermDepth,
                self.first_rule(rel),
                format!("; calls with ever deeper arguments, such as {text}"),
            ));
        }
        Ok(self.statics.goal(rel, &key).0)
    }

    /// Solves goal `g` once with the answers known now; true when it gained answers or
    /// needed a call that was missing.
    fn solve(&mut self, g: u32) -> Result<bool, GroundError> {
        let low = self.low;
        let (rel, key) = {
            let goal = &self.statics.goals[g as usize];
            (goal.rel, self.statics.key_of(g))
        };
        self.statics.clock += 1;
        let solved_at = self.statics.clock;
        let arity = key.len();
        let mut rows: Vec<TermId> = Vec::new();
        let mut hits = 0usize;
        let (mut reads, mut missing) = (Vec::new(), Vec::new());
        for &k in &low.rules_of[rel.0 as usize] {
            let out = self.solve_rule(k, &key, &mut rows, &mut hits)?;
            reads.extend(out.reads);
            missing.extend(out.missing);
        }
        let blocked = !missing.is_empty();
        for (r, key) in missing {
            self.open_call(r, key)?;
        }
        self.check_depth(rel, &rows)?;
        let found = rows
            .len()
            .checked_div(arity)
            .unwrap_or(usize::from(hits > 0));
        let mut gained = false;
        let rows_bytes = 4 * rows.capacity();
        for i in 0..found {
            if i % 4096 == 4095 {
                let seen = self.statics.seen.growth_bytes(4096);
                if self.meter.over(self.used_bytes() + rows_bytes + seen) {
                    return Err(self.memory_error(self.first_rule(rel), rows_bytes + seen));
                }
            }
            let row = &rows[i * arity..(i + 1) * arity];
            if self.statics.seen.intern(g, bytemuck::cast_slice(row)).1 {
                let goal = &mut self.statics.goals[g as usize];
                goal.rows.extend_from_slice(row);
                goal.count += 1;
                self.statics.answers += 1;
                self.statics.goal_bytes += 4 * arity;
                gained = true;
                if self.atom_count() > self.meter.budget.max_atoms {
                    let k = self.first_rule(rel);
                    return Err(self.budget_error(BudgetKind::Atoms, k, String::new()));
                }
            }
        }
        if gained {
            self.statics.clock += 1;
        }
        let clock = self.statics.clock;
        let goal = &mut self.statics.goals[g as usize];
        if gained {
            goal.changed = clock;
        }
        goal.solved = solved_at;
        reads.sort_unstable();
        reads.dedup();
        self.statics.goal_bytes += 4 * reads.len().saturating_sub(goal.reads.len());
        goal.reads = reads.into_boxed_slice();
        goal.blocked = blocked;
        self.check_memory(self.first_rule(rel), 0)?;
        Ok(gained || blocked)
    }

    /// A rule of `rel` (for messages).
    fn first_rule(&self, rel: RelId) -> usize {
        self.low.rules_of[rel.0 as usize]
            .first()
            .copied()
            .unwrap_or(0)
    }

    /// The term-depth error when an answer of `rel` is too deep.
    fn check_depth(&self, rel: RelId, rows: &[TermId]) -> Result<(), GroundError> {
        let max = self.meter.budget.max_term_depth;
        match rows.iter().find(|&&t| self.store.terms.depth(t) + 1 > max) {
            None => Ok(()),
            Some(&t) => {
                let text = self.store.terms.text_cut(&self.low.syms, t, 200);
                Err(self.budget_error(
                    BudgetKind::TermDepth,
                    self.first_rule(rel),
                    format!("; the rules build terms deeper than that, such as {text}"),
                ))
            }
        }
    }

    /// Runs rule `k` for a call with `key`, appending the head tuples to `rows`.
    fn solve_rule(
        &mut self,
        k: usize,
        key: &[Option<TermId>],
        rows: &mut Vec<TermId>,
        hits: &mut usize,
    ) -> Result<super::fixpoint::Outcome, GroundError> {
        let low = self.low;
        let rule = &low.rules[k];
        let mask: Vec<bool> = key.iter().map(Option::is_some).collect();
        let steps = match self.statics.plans.get(&(k, mask.clone())) {
            Some(s) => s.clone(),
            None => {
                let mut bound = vec![false; rule.var_names.len()];
                for (t, b) in rule.head.args.iter().zip(&mask) {
                    if *b {
                        let mut vs = Vec::new();
                        t.vars(&mut vs);
                        vs.into_iter().for_each(|v| bound[v as usize] = true);
                    }
                }
                let comp_of = std::mem::take(&mut self.statics.comp_of);
                let hint = self.call_hint(rule, &comp_of);
                self.statics.comp_of = comp_of;
                let call_first = |c: usize, o: usize, b: &[bool]| hint.call_first(rule, c, o, b);
                let s = self.prepare(rule, &bound, None, Some(&call_first));
                self.statics.plans.insert((k, mask), s.clone());
                s
            }
        };
        let mut stop = None;
        // The rows of one call can outgrow everything else (a ten-argument static
        // relation called with nothing bound): the budget is checked as they grow, and a
        // materialization attempt stops at its answer cap, not after the call.
        let (base, meter) = (self.used_bytes(), self.meter.clone());
        let arity = key.len().max(1);
        let cap_rows = self
            .statics
            .cap
            .map(|c| c.saturating_sub(self.statics.answers));
        let init = |j: &mut super::join::Join<'_, '_>| {
            rule.head
                .args
                .iter()
                .zip(key)
                .all(|(p, t)| t.is_none_or(|t| j.bind_pattern(p, t)))
        };
        let r = self.run_join(
            rule,
            &steps,
            Mode::Relaxed,
            &init,
            &mut |terms, binds, _| {
                *hits += 1;
                for p in &rule.head.args {
                    match make_term(terms, p, binds) {
                        Some(t) => rows.push(t),
                        None => {
                            stop = Some(RowStop::Unbound);
                            return false;
                        }
                    }
                }
                if cap_rows.is_some_and(|c| rows.len() / arity > c) {
                    stop = Some(RowStop::Cap);
                    return false;
                }
                // A full `Vec` doubles, the old buffer alive while it is copied.
                let room = rows.capacity() - rows.len() < 4096 * arity;
                let bytes = 4 * rows.capacity() * if room { 3 } else { 1 };
                if hits.is_multiple_of(4096) && meter.over(base + bytes) {
                    stop = Some(RowStop::Memory(bytes));
                    return false;
                }
                true
            },
        );
        match (r, stop) {
            (Ok(out), _) => Ok(out),
            (Err(Stop::Time), _) => Err(self.time_error(k)),
            (Err(Stop::Callback), Some(RowStop::Memory(bytes))) => Err(self.memory_error(k, bytes)),
            (Err(Stop::Callback), Some(RowStop::Cap)) => Err(self.budget_error(
                BudgetKind::Atoms,
                k,
                format!("; more than {MATERIALIZE_LIMIT} answers while materializing"),
            )),
            (Err(Stop::Callback), _) => Err(GroundError::Unsafe {
                span: rule.span,
                message: format!(
                    "a variable of the head of a {} rule is not bound by a positive body literal",
                    low.rels.text(&low.syms, rule.head.rel)
                ),
            }),
        }
    }
}
