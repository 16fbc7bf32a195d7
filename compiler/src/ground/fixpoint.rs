//! Computes the reachable ground atoms: static relations exactly (stratum by stratum),
//! dynamic relations by a relaxed semi-naive fixpoint that ignores negation, with `true`
//! atoms from `init` ∪ `next` and `does` atoms from `legal`.

use super::join::{plan, Db, Index, IndexSpec, Join, Mode, Source, Step, Stop};
use super::rules::{CRule, Lowered, PLit};
use super::terms::{AtomArena, AtomId, RelId, TermArena, TermId};
use super::{Budget, BudgetKind, GroundError};
use rustc_hash::{FxHashMap, FxHashSet};
use std::time::Instant;

/// How many tuples the grounder's loops handle between two looks at the clock.
pub const CLOCK_EVERY: usize = 4096;

/// The grounder's working state: terms, derived atoms, per-relation lists and indexes.
pub struct Grounder<'l> {
    /// The lowered program.
    pub low: &'l Lowered,
    /// Ground terms.
    pub terms: TermArena,
    /// Derived atoms (reachable ones for dynamic relations, exact ones for static ones).
    pub atoms: AtomArena,
    /// Per relation: its atoms in derivation order.
    pub rel_atoms: Vec<Vec<AtomId>>,
    /// Per atom: the rule that first derived it (for error messages).
    pub origin: Vec<u32>,
    indexes: Vec<Index>,
    index_specs: Vec<IndexSpec>,
    index_of: FxHashMap<IndexSpec, usize>,
    /// Limits.
    pub budget: Budget,
    /// When grounding started.
    pub start: Instant,
    /// Join solutions found by the fixpoint so far (over all rules and rounds).
    pub solutions: usize,
}

impl<'l> Grounder<'l> {
    /// A grounder with nothing derived yet.
    pub fn new(low: &'l Lowered, budget: Budget) -> Self {
        Grounder {
            low,
            terms: TermArena::default(),
            atoms: AtomArena::default(),
            rel_atoms: vec![Vec::new(); low.rels.len()],
            origin: Vec::new(),
            indexes: Vec::new(),
            index_specs: Vec::new(),
            index_of: FxHashMap::default(),
            budget,
            start: Instant::now(),
            solutions: 0,
        }
    }

    /// The wall-clock deadline.
    pub fn deadline(&self) -> Instant {
        self.start + self.budget.max_time
    }

    /// Plans `rule` (with body literal `first` over `list[lo..hi]` if given), creating and
    /// updating the indexes the plan needs.
    pub fn prepare(&mut self, rule: &CRule, first: Option<(usize, usize, usize)>) -> Vec<Step> {
        let sizes: Vec<usize> = self.rel_atoms.iter().map(Vec::len).collect();
        let planned = plan(
            rule,
            rule.var_names.len(),
            first.map(|f| f.0),
            &|r: RelId| sizes[r.0 as usize],
        );
        let mut steps = Vec::with_capacity(planned.len());
        for (mut step, spec) in planned {
            if let Step::Scan { source, .. } = &mut step {
                match source {
                    Source::Range(lo, hi) => {
                        let f = first.expect("a range scan only comes from a delta literal");
                        (*lo, *hi) = (f.1, f.2);
                    }
                    Source::Index(ix, _) => {
                        let spec = spec.expect("an index scan has a spec");
                        *ix = self.index_id(spec);
                    }
                    Source::All => {}
                }
            }
            steps.push(step);
        }
        steps
    }

    fn index_id(&mut self, spec: IndexSpec) -> usize {
        let id = match self.index_of.get(&spec) {
            Some(&id) => id,
            None => {
                let id = self.indexes.len();
                self.indexes.push(Index::default());
                self.index_specs.push(spec.clone());
                self.index_of.insert(spec, id);
                id
            }
        };
        let rel = self.index_specs[id].rel.0 as usize;
        self.indexes[id].catch_up(
            &self.index_specs[id],
            &self.rel_atoms[rel],
            &self.atoms,
            &self.terms,
        );
        id
    }

    /// Runs a prepared join, calling `emit` per solution.
    pub fn run_join(
        &self,
        rule: &CRule,
        steps: &[Step],
        mode: Mode,
        emit: &mut super::join::Emit<'_>,
    ) -> Result<(), Stop> {
        let db = Db {
            terms: &self.terms,
            atoms: &self.atoms,
            rel_atoms: &self.rel_atoms,
            indexes: &self.indexes,
            is_static: &self.low.is_static,
        };
        Join::new(&db, rule, steps, mode, self.deadline()).run(emit)
    }

    /// Every [`CLOCK_EVERY`] calls (`n` counts them), fails with the time error for `rel`
    /// when the deadline has passed: loops over many tuples call it so a budget error
    /// comes soon after the limit.
    ///
    /// # Errors
    /// [`GroundError::Budget`] of kind [`BudgetKind::Seconds`].
    pub fn check_clock(&self, n: usize, rel: RelId) -> Result<(), GroundError> {
        if n % CLOCK_EVERY == CLOCK_EVERY - 1 && Instant::now() > self.deadline() {
            return Err(self.time_error(rel));
        }
        Ok(())
    }

    /// The error for running out of time while working on `rel`.
    pub fn time_error(&self, rel: RelId) -> GroundError {
        self.budget_error(BudgetKind::Seconds, rel, String::new())
    }

    /// A budget error naming `rel`.
    pub fn budget_error(&self, kind: BudgetKind, rel: RelId, detail: String) -> GroundError {
        let limit = match kind {
            BudgetKind::Atoms => self.budget.max_atoms as u64,
            BudgetKind::Instances => self.budget.max_instances as u64,
            BudgetKind::Seconds => self.budget.max_time.as_secs(),
            BudgetKind::TermDepth => self.budget.max_term_depth as u64,
        };
        GroundError::Budget {
            kind,
            limit,
            relation: self.low.rels.text(&self.low.syms, rel),
            count: self.rel_atoms[rel.0 as usize].len(),
            detail,
        }
    }

    /// Runs `rule` once (optionally semi-naive on `first`) and adds the new head atoms.
    /// Returns how many atoms were new.
    fn fire(
        &mut self,
        k: usize,
        first: Option<(usize, usize, usize)>,
    ) -> Result<usize, GroundError> {
        let low = self.low;
        let rule = &low.rules[k];
        let t0 = Instant::now();
        let steps = self.prepare(rule, first);
        let head_vars: Vec<u16> = {
            let mut v = rule.head.vars();
            v.sort_unstable();
            v.dedup();
            v
        };
        let mut seen: FxHashSet<Box<[TermId]>> = FxHashSet::default();
        let mut order: Vec<Box<[TermId]>> = Vec::new();
        let mut unbound = None;
        let cap = self.budget.max_atoms;
        let mut buf = Vec::with_capacity(head_vars.len());
        // Each solution is a rule instance the netlist would need, so one firing with more
        // solutions than the instance budget already proves the game too big.
        // The fixpoint may meet an instance again in later rounds (once per delta literal),
        // so over all firings three times the instance budget is allowed.
        let max_solutions = self
            .budget
            .max_instances
            .min((3 * self.budget.max_instances).saturating_sub(self.solutions));
        let mut solutions = 0usize;
        let r = self.run_join(rule, &steps, Mode::Relaxed, &mut |binds, _| {
            solutions += 1;
            if solutions > max_solutions {
                return false;
            }
            buf.clear();
            for &v in &head_vars {
                match binds[v as usize] {
                    Some(t) => buf.push(t),
                    None => {
                        unbound = Some(v);
                        return false;
                    }
                }
            }
            if !seen.contains(buf.as_slice()) {
                seen.insert(buf.as_slice().into());
                order.push(buf.as_slice().into());
            }
            seen.len() <= cap
        });
        if let Some(v) = unbound {
            return Err(GroundError::Unsafe {
                span: rule.span,
                message: format!(
                    "variable {} of the head of a {} rule is not bound by a positive body literal",
                    low.syms.name(rule.var_names[v as usize]),
                    low.rels.text(&low.syms, rule.head.rel)
                ),
            });
        }
        match r {
            Err(Stop::Time) => return Err(self.time_error(rule.head.rel)),
            Err(Stop::Callback) if solutions > max_solutions => {
                return Err(self.budget_error(
                    BudgetKind::Instances,
                    rule.head.rel,
                    format!(
                        "the reachability fixpoint met {} instances",
                        self.solutions + solutions
                    ),
                ))
            }
            Err(Stop::Callback) => {
                return Err(self.budget_error(
                    BudgetKind::Atoms,
                    rule.head.rel,
                    "in one rule".into(),
                ))
            }
            Ok(()) => {}
        }
        self.solutions += solutions;
        let mut binds = vec![None; rule.var_names.len()];
        let mut new = 0;
        let mut args = Vec::with_capacity(rule.head.args.len());
        drop(seen);
        for (n, tuple) in order.into_iter().enumerate() {
            self.check_clock(n, rule.head.rel)?;
            for (&v, &t) in head_vars.iter().zip(tuple.iter()) {
                binds[v as usize] = Some(t);
            }
            args.clear();
            for p in &rule.head.args {
                let t = super::join::make_term(&mut self.terms, p, &binds)
                    .expect("head variables are bound");
                if self.terms.depth(t) > self.budget.max_term_depth {
                    let text = self.terms.text(&low.syms, t, 200);
                    return Err(self.budget_error(
                        BudgetKind::TermDepth,
                        rule.head.rel,
                        format!(
                            "term {text} (growing terms: the rules generate ever deeper terms)"
                        ),
                    ));
                }
                args.push(t);
            }
            let (id, fresh) = self.atoms.intern(rule.head.rel, &args);
            if fresh {
                self.rel_atoms[rule.head.rel.0 as usize].push(id);
                self.origin.push(k as u32);
                new += 1;
                if self.atoms.len() > self.budget.max_atoms {
                    let worst = self.largest_relation();
                    return Err(self.budget_error(BudgetKind::Atoms, worst, String::new()));
                }
            }
        }
        if std::env::var_os("PROPNET_GROUND_TRACE").is_some() && t0.elapsed().as_millis() > 100 {
            eprintln!(
                "  rule {k} ({}) delta {first:?}: {solutions} solutions, {new} new atoms, {:?}; plan {steps:?}",
                low.rels.text(&low.syms, rule.head.rel),
                t0.elapsed()
            );
        }
        Ok(new)
    }

    fn largest_relation(&self) -> RelId {
        let i = (0..self.rel_atoms.len())
            .max_by_key(|&i| self.rel_atoms[i].len())
            .unwrap_or(0);
        RelId(i as u32)
    }

    /// Computes every needed relation, component by component (dependencies first).
    pub fn saturate(&mut self) -> Result<(), GroundError> {
        let low = self.low;
        let trace = std::env::var_os("PROPNET_GROUND_TRACE").is_some();
        for comp in &low.rel_sccs {
            let t = Instant::now();
            let before = self.atoms.len();
            let in_comp = |r: RelId| comp.contains(&r);
            let rules: Vec<usize> = comp
                .iter()
                .flat_map(|r| low.rules_of[r.0 as usize].iter().copied())
                .collect();
            // Round 0: every rule over everything derived so far.
            let mut marks: Vec<usize> = comp
                .iter()
                .map(|r| self.rel_atoms[r.0 as usize].len())
                .collect();
            for &k in &rules {
                self.fire(k, None)?;
            }
            let recursive = rules.iter().any(|&k| {
                low.rules[k]
                    .body
                    .iter()
                    .any(|l| matches!(l, PLit::Pos(a) if in_comp(a.rel)))
            });
            if !recursive {
                if trace {
                    eprintln!(
                        "{:?} +{} atoms {:?}",
                        comp.iter()
                            .map(|&r| low.rels.text(&low.syms, r))
                            .collect::<Vec<_>>(),
                        self.atoms.len() - before,
                        t.elapsed()
                    );
                }
                continue;
            }
            // Semi-naive rounds: one body literal over the previous round's new atoms.
            loop {
                let now: Vec<usize> = comp
                    .iter()
                    .map(|r| self.rel_atoms[r.0 as usize].len())
                    .collect();
                if now == marks {
                    break;
                }
                let delta: Vec<(RelId, usize, usize)> = comp
                    .iter()
                    .zip(marks.iter().zip(&now))
                    .map(|(&r, (&lo, &hi))| (r, lo, hi))
                    .collect();
                marks = now;
                for &k in &rules {
                    for (i, lit) in low.rules[k].body.iter().enumerate() {
                        let PLit::Pos(a) = lit else { continue };
                        if let Some(&(_, lo, hi)) = delta.iter().find(|d| d.0 == a.rel) {
                            if hi > lo {
                                self.fire(k, Some((i, lo, hi)))?;
                            }
                        }
                    }
                }
                if Instant::now() > self.deadline() {
                    return Err(self.time_error(comp[0]));
                }
            }
            if trace {
                eprintln!(
                    "{:?} +{} atoms {:?} (recursive)",
                    comp.iter()
                        .map(|&r| low.rels.text(&low.syms, r))
                        .collect::<Vec<_>>(),
                    self.atoms.len() - before,
                    t.elapsed()
                );
            }
        }
        Ok(())
    }
}
