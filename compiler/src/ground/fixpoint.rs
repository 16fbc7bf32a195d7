//! The grounder's working state and the fixpoint over the derived atoms: materialized
//! static relations exactly, dynamic and demand relations by a relaxed semi-naive
//! fixpoint that ignores negation, with `true` atoms from `init` ∪ `next` and `does`
//! atoms from `legal`.

use super::budget::{limit_text, BudgetKind, Meter};
use super::call_order::Distinct;
use super::join::{Db, Emit, Join, Stop};
use super::plan::{plan, CallFirst, Mode, Source, Step};
use super::rules::{CRule, Lowered, PLit, PTerm, RelKind};
use super::statics::Statics;
use super::store::{AtomId, Index, IndexSpec, Store};
use super::unify::make_term;
use super::{Budget, GroundError};
use crate::gdl::RelId;
use crate::intern::Tuples;
use crate::terms::TermId;
use propnet_netlist::Cancel;
use rustc_hash::FxHashMap;

/// Reports progress of long grounding work: a short text naming what is being done.
pub type Progress<'p> = &'p dyn Fn(&str);

/// The grounder's working state: terms, derived atoms, per-relation lists and indexes,
/// and the answers of on-demand relations.
pub struct Grounder<'l> {
    /// The lowered program.
    pub low: &'l Lowered,
    /// Terms and atoms.
    pub store: Store,
    /// Per relation: how it is grounded (on-demand static relations are decided while
    /// materializing).
    pub kind: Vec<RelKind>,
    indexes: Vec<Index>,
    index_specs: Vec<IndexSpec>,
    index_of: FxHashMap<IndexSpec, usize>,
    /// Answers of on-demand static relations.
    pub statics: Statics,
    /// Distinct values per argument position of materialized relations (for ordering
    /// on-demand calls, [`super::call_order`]).
    pub distinct_values: Distinct,
    /// Limits and the clock.
    pub meter: Meter,
    /// Join solutions found by the fixpoint so far (over all rules and rounds).
    pub solutions: usize,
    /// Per relation: the relation it is the demand relation of, or itself
    /// ([`Self::report`] runs once per component: a search there is quadratic).
    origin_of: Vec<RelId>,
    /// Where progress is reported.
    pub progress: Progress<'l>,
    /// Most bytes the budget counted at any check so far (tables plus transient buffers).
    peak: std::cell::Cell<usize>,
}

/// What one run of a rule's join left to do.
pub struct Outcome {
    /// Calls of on-demand relations that had no answers yet.
    pub missing: Vec<(RelId, Vec<Option<TermId>>)>,
    /// Goals of the open table that were read.
    pub reads: Vec<u32>,
}

/// Bytes held by each of the grounder's tables (from their capacities).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableBytes {
    /// Ground terms (hash-consed, flat).
    pub terms: usize,
    /// Atoms: relation, argument ids and the hash table over them.
    pub atoms: usize,
    /// Per relation its atoms in derivation order, and per atom the rule that made it.
    pub atom_lists: usize,
    /// Hash indexes over relations' atoms, for joins.
    pub indexes: usize,
    /// Calls and answers of static relations computed per call, and the counts of
    /// distinct values the join planner estimates with.
    pub on_demand: usize,
}

impl TableBytes {
    /// All the tables together.
    pub fn total(&self) -> usize {
        self.terms + self.atoms + self.atom_lists + self.indexes + self.on_demand
    }
}

impl<'l> Grounder<'l> {
    /// A grounder with nothing derived yet.
    pub fn new(low: &'l Lowered, budget: Budget, cancel: Cancel, progress: Progress<'l>) -> Self {
        Grounder {
            low,
            store: Store::new(low.rels.len()),
            kind: low.kind.clone(),
            indexes: Vec::new(),
            index_specs: Vec::new(),
            index_of: FxHashMap::default(),
            statics: Statics::default(),
            distinct_values: Distinct::default(),
            meter: Meter::new(budget, cancel),
            solutions: 0,
            origin_of: origins(low),
            progress,
            peak: std::cell::Cell::new(0),
        }
    }

    /// Bytes held by the grounder's tables.
    pub fn used_bytes(&self) -> usize {
        self.table_bytes().total()
    }

    /// [`Self::used_bytes`] by table.
    pub fn table_bytes(&self) -> TableBytes {
        TableBytes {
            terms: self.store.terms.heap_bytes(),
            atoms: self.store.atoms.heap_bytes(),
            atom_lists: self.store.lists_bytes(),
            indexes: self.indexes.iter().map(Index::heap_bytes).sum(),
            on_demand: self.statics.heap_bytes() + self.distinct_values.heap_bytes(),
        }
    }

    /// Entries of the grounder's tables: ground terms, atoms, answers of on-demand calls
    /// and index postings (what [`Self::used_bytes`] is spent on).
    pub fn table_entries(&self) -> usize {
        self.store.terms.len()
            + self.store.atoms.len()
            + self.statics.answer_count()
            + self.indexes.iter().map(Index::postings).sum::<usize>()
    }

    /// The most bytes the budget has counted so far (the grounder's tables plus the
    /// transient buffers checked with them: join results, the netlist's gates).
    pub fn peak_bytes(&self) -> usize {
        self.peak.get().max(self.used_bytes())
    }

    /// Records `bytes` counted by the budget, keeping the peak.
    fn note(&self, bytes: usize) -> usize {
        self.peak.set(self.peak.get().max(bytes));
        bytes
    }

    /// Plans `rule` when the variables in `bound0` are bound (with body literal `first`
    /// over `list[lo..hi]` if given; `call_first`: see [`plan`]), creating and updating the
    /// indexes the plan needs.
    pub fn prepare(
        &mut self,
        rule: &CRule,
        bound0: &[bool],
        first: Option<(usize, usize, usize)>,
        call_first: Option<CallFirst<'_>>,
    ) -> Vec<Step> {
        // Read in place: a copy of every relation's size per rule is quadratic in a game of
        // many relations (100 k chained `not` rules).
        let (kind, rel_atoms) = (&self.kind, &self.store.rel_atoms);
        let info = |r: RelId| (kind[r.0 as usize], rel_atoms[r.0 as usize].len());
        let planned = plan(rule, bound0, first.map(|f| f.0), &info, call_first);
        let mut steps = Vec::with_capacity(planned.len());
        for (mut step, spec) in planned {
            if let Step::Scan { source, .. } = &mut step {
                match source {
                    Source::Range(lo, hi) => {
                        let f = first.expect("a range scan only comes from a delta literal");
                        (*lo, *hi) = (f.1, f.2);
                    }
                    Source::Index(ix, _) => {
                        *ix = self.index_id(spec.expect("an index scan has a spec"));
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
            &self.store.rel_atoms[rel],
            &self.store.atoms,
            &self.store.terms,
        );
        id
    }

    /// Empties the indexes over dynamic and demand relations, once every reachable atom
    /// is known: the joins that built them are done, and building the netlist rebuilds
    /// only those its plans use ([`Self::index_id`] catches an index up when a plan is
    /// made). Indexes over static relations stay: plans of on-demand calls keep their
    /// ids.
    pub fn drop_dynamic_indexes(&mut self) {
        for (ix, spec) in self.indexes.iter_mut().zip(&self.index_specs) {
            if !self.kind[spec.rel.0 as usize].is_static() {
                ix.clear();
            }
        }
    }

    /// Empties the indexes over `rels` (after their atoms were rolled back).
    pub fn clear_indexes(&mut self, rels: &[RelId]) {
        for (ix, spec) in self.indexes.iter_mut().zip(&self.index_specs) {
            if rels.contains(&spec.rel) {
                ix.clear();
            }
        }
    }

    /// Runs a prepared join once, calling `emit` per solution; `init` binds variables
    /// before the run (returns false when the rule cannot apply).
    pub fn run_join(
        &mut self,
        rule: &CRule,
        steps: &[Step],
        mode: Mode,
        init: &dyn Fn(&mut Join<'_, '_>) -> bool,
        emit: &mut Emit<'_>,
    ) -> Result<Outcome, Stop> {
        let deadline = self.meter.deadline();
        let db = Db {
            atoms: &self.store.atoms,
            rel_atoms: &self.store.rel_atoms,
            indexes: &self.indexes,
            kind: &self.kind,
            calls: &self.statics,
        };
        let mut join = Join::new(&mut self.store.terms, &db, (rule, steps), mode, deadline);
        if init(&mut join) {
            join.run(emit)?;
        }
        Ok(Outcome {
            missing: join.missing,
            reads: join.reads,
        })
    }

    /// The error for running out of time while grounding rule `k`.
    pub fn time_error(&self, k: usize) -> GroundError {
        self.budget_error(BudgetKind::Seconds, k, String::new())
    }

    /// A budget error naming rule `k` (its relation and source location).
    pub fn budget_error(&self, kind: BudgetKind, k: usize, detail: String) -> GroundError {
        let rule = &self.low.rules[k];
        let rel = self.origin_relation(rule.head.rel);
        GroundError::Budget {
            kind,
            limit: limit_text(kind, &self.meter.budget),
            relation: self.low.rels.text(&self.low.syms, rel),
            span: (rule.span.end > rule.span.start).then_some(rule.span),
            atoms: self.store.atoms.len() + self.statics.answer_count(),
            instances: self.solutions,
            mib: self.used_bytes() >> 20,
            detail,
            growing: self.low.rules_of[rule.head.rel.0 as usize]
                .iter()
                .any(|&r| self.builds_terms_recursively(&self.low.rules[r]))
                && self.store.terms.deepest() > self.low.written_depth,
        }
    }

    /// Whether `rule` calls its own component and puts a function term with a variable in
    /// its head: each round can then derive atoms with deeper terms than the last. (Only
    /// when some derived term is deeper than every written one has it done so: `next` and
    /// `true` form a component in every game, and `(next (money ?p ?x))` is such a rule.)
    fn builds_terms_recursively(&self, rule: &CRule) -> bool {
        let Some(scc) = self
            .low
            .rel_sccs
            .iter()
            .find(|c| c.contains(&rule.head.rel))
        else {
            return false;
        };
        let recursive = rule
            .body
            .iter()
            .any(|l| matches!(l, PLit::Pos(a) | PLit::Neg(a) if scc.contains(&a.rel)));
        let builds = rule
            .head
            .args
            .iter()
            .any(|t| matches!(t, PTerm::Fn(_, args) if args.iter().any(|a| !matches!(a, PTerm::Const(_)))));
        recursive && builds
    }

    /// The relation a demand relation asks for (the relation itself otherwise), for
    /// messages.
    fn origin_relation(&self, rel: RelId) -> RelId {
        self.origin_of[rel.0 as usize]
    }

    /// The memory error for rule `k` when the tables (plus `extra` bytes of buffers)
    /// exceed the budget, or the atom-count error past [`Budget::max_atoms`].
    pub fn check_memory(&self, k: usize, extra: usize) -> Result<(), GroundError> {
        if self.meter.over(self.note(self.used_bytes() + extra)) {
            return Err(self.memory_error(k, extra));
        }
        if self.atom_count() > self.meter.budget.max_atoms {
            return Err(self.budget_error(BudgetKind::Atoms, k, String::new()));
        }
        Ok(())
    }

    /// The atoms the atom budget counts: ground atoms and the answers of per-call goals.
    pub(super) fn atom_count(&self) -> usize {
        self.store.atoms.len() + self.statics.answer_count()
    }

    /// The memory budget error for rule `k`, with `extra` bytes of buffers counted.
    pub fn memory_error(&self, k: usize, extra: usize) -> GroundError {
        if std::env::var_os("PROPNET_DEBUG_MEM").is_some() {
            let ix: Vec<(usize, usize)> = self
                .indexes
                .iter()
                .map(|i| (i.heap_bytes() >> 20, i.postings()))
                .filter(|x| x.0 > 0)
                .collect();
            eprintln!("DEBUG terms {} ({}), atoms {} ({}), store {}, statics {}, extra {}, indexes {:?} specs {:?}", self.store.terms.heap_bytes() >> 20, self.store.terms.len(), self.store.atoms.heap_bytes() >> 20, self.store.atoms.len(), self.store.heap_bytes() >> 20, self.statics.heap_bytes() >> 20, extra >> 20, ix, self.index_specs.len());
        }
        let mut e = self.budget_error(BudgetKind::Memory, k, String::new());
        if let GroundError::Budget { mib, .. } = &mut e {
            *mib = (self.used_bytes() + extra) >> 20;
        }
        e
    }

    /// Runs rule `k` once over everything derived so far (or semi-naively with body
    /// literal `first.0` over `first.1..first.2` of its relation), computing the
    /// on-demand calls it makes, and adds the new head atoms. With `limit`, stops early
    /// when the rule derives more atoms than that. Returns how many atoms are new, or
    /// `None` when the limit stopped it.
    ///
    /// # Errors
    /// Budget errors, and [`GroundError::Unsafe`] for a head variable no literal binds.
    pub fn fire(
        &mut self,
        k: usize,
        first: Option<(usize, usize, usize)>,
        limit: Option<usize>,
    ) -> Result<Option<usize>, GroundError> {
        let low = self.low;
        let rule = &low.rules[k];
        let head_vars: Vec<u16> = {
            let mut v = rule.head.vars();
            v.sort_unstable();
            v.dedup();
            v
        };
        let no_vars = vec![false; rule.var_names.len()];
        loop {
            let steps = self.prepare(rule, &no_vars, first, None);
            let Some((found, missing)) = self.fire_join(k, &steps, &head_vars, limit)? else {
                return Ok(None);
            };
            if !missing.is_empty() {
                if !self.resolve(missing)? {
                    return Ok(None);
                }
                continue;
            }
            let new = self.add_heads(k, &head_vars, &found)?;
            return Ok(Some(new));
        }
    }

    /// The join of [`Self::fire`]: the distinct head-variable tuples found and the calls
    /// that were missing; `None` when `limit` stopped it.
    #[allow(clippy::type_complexity)]
    fn fire_join(
        &mut self,
        k: usize,
        steps: &[Step],
        head_vars: &[u16],
        limit: Option<usize>,
    ) -> Result<Option<(Tuples, Vec<(RelId, Vec<Option<TermId>>)>)>, GroundError> {
        let rule = &self.low.rules[k];
        let mut found = Tuples::default();
        let mut unbound = None;
        let mut buf: Vec<u32> = Vec::with_capacity(head_vars.len());
        let mut solutions = 0usize;
        let base = self.used_bytes();
        let meter = self.meter.clone();
        let mut over = false;
        let cap = limit.unwrap_or(usize::MAX);
        let r = self.run_join(rule, steps, Mode::Relaxed, &|_| true, &mut |_, binds, _| {
            solutions += 1;
            buf.clear();
            for &v in head_vars {
                match binds[v as usize] {
                    Some(t) => buf.push(t.0),
                    None => {
                        unbound = Some(v);
                        return false;
                    }
                }
            }
            found.intern(0, &buf);
            if solutions.is_multiple_of(4096)
                && meter.over(base + found.heap_bytes() + found.growth_bytes(4096))
            {
                over = true;
                return false;
            }
            found.len() <= cap && solutions <= cap.saturating_mul(4)
        });
        self.solutions += solutions;
        let extra = found.heap_bytes();
        self.note(base + extra);
        if let Some(v) = unbound {
            let low = self.low;
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
            Err(Stop::Time) => Err(self.time_error(k)),
            Err(Stop::Callback) if over => Err(self.memory_error(k, extra)),
            Err(Stop::Callback) => Ok(None),
            Ok(out) => Ok(Some((found, out.missing))),
        }
    }

    /// Interns the head atoms of rule `k` for the head-variable tuples in `found`.
    fn add_heads(
        &mut self,
        k: usize,
        head_vars: &[u16],
        found: &Tuples,
    ) -> Result<usize, GroundError> {
        let low = self.low;
        let rule = &low.rules[k];
        let mut binds = vec![None; rule.var_names.len()];
        let mut new = 0;
        let mut args = Vec::with_capacity(rule.head.args.len());
        let max_depth = self.meter.budget.max_term_depth;
        for n in 0..found.len() {
            if n % 4096 == 4095 && self.meter.late() {
                return Err(self.time_error(k));
            }
            for (&v, &t) in head_vars.iter().zip(found.items(n as u32)) {
                binds[v as usize] = Some(TermId(t));
            }
            args.clear();
            for p in &rule.head.args {
                let t =
                    make_term(&mut self.store.terms, p, &binds).expect("head variables are bound");
                if self.store.terms.depth(t) + 1 > max_depth {
                    let text = self.store.terms.text_cut(&low.syms, t, 200);
                    return Err(self.budget_error(
                        BudgetKind::TermDepth,
                        k,
                        format!("; the rules build terms deeper than that, such as {text}"),
                    ));
                }
                args.push(t);
            }
            if self.store.add(rule.head.rel, &args, k).1 {
                new += 1;
                // Checked per atom, so that `--ground-atoms` stops at the limit itself.
                if self.atom_count() > self.meter.budget.max_atoms {
                    return Err(self.budget_error(BudgetKind::Atoms, k, String::new()));
                }
            }
        }
        self.check_memory(k, 0)?;
        Ok(new)
    }

    /// Computes one component of relations (dependencies first): every rule once, then
    /// semi-naive rounds while recursive rules derive new atoms. With `limit`, gives up
    /// (returns false) when the component derives more atoms than that.
    pub fn saturate_component(
        &mut self,
        comp: &[RelId],
        limit: Option<usize>,
    ) -> Result<bool, GroundError> {
        let low = self.low;
        let rules: Vec<usize> = comp
            .iter()
            .flat_map(|r| low.rules_of[r.0 as usize].iter().copied())
            .collect();
        // Only this component's rules add atoms here, so the arena's growth is the
        // component's (counting the component's relations instead made a large component
        // quadratic).
        let start = self.store.atoms.len();
        let within = |g: &Self, fired: Option<usize>| {
            fired.is_some() && limit.is_none_or(|l| g.store.atoms.len() - start <= l)
        };
        let mut marks: Vec<usize> = comp
            .iter()
            .map(|r| self.store.rel_atoms[r.0 as usize].len())
            .collect();
        let mut seen = start;
        for &k in &rules {
            let fired = self.fire(k, None, limit)?;
            if !within(self, fired) {
                return Ok(false);
            }
        }
        let recursive = rules.iter().any(|&k| {
            low.rules[k]
                .body
                .iter()
                .any(|l| matches!(l, PLit::Pos(a) if comp.contains(&a.rel)))
        });
        if !recursive {
            return Ok(true);
        }
        // (position in `rules`, literal) of every positive body literal over a relation of
        // the component, by the relation's place in `comp`: a round visits the readers of
        // the relations that grew, not every rule (a chain of n relations written head
        // first grows one relation a round: n rounds over n rules were cubic in n)
        let place: FxHashMap<RelId, usize> =
            comp.iter().enumerate().map(|(c, &r)| (r, c)).collect();
        let mut readers: Vec<Vec<(usize, usize)>> = vec![Vec::new(); comp.len()];
        for (pos, &k) in rules.iter().enumerate() {
            for (i, lit) in low.rules[k].body.iter().enumerate() {
                if let PLit::Pos(a) = lit {
                    if let Some(&c) = place.get(&a.rel) {
                        readers[c].push((pos, i));
                    }
                }
            }
        }
        loop {
            // the relations that grew since the last round, from the atoms added since
            let mut grown: Vec<usize> = (seen..self.store.atoms.len())
                .filter_map(|a| place.get(&self.store.atoms.rel(AtomId(a as u32))).copied())
                .collect();
            seen = self.store.atoms.len();
            if grown.is_empty() {
                return Ok(true);
            }
            grown.sort_unstable();
            grown.dedup();
            // fired in rule order, then literal order, as a pass over every rule would
            let mut due: Vec<(usize, usize, usize, usize)> = Vec::new();
            for c in grown {
                let (lo, hi) = (marks[c], self.store.rel_atoms[comp[c].0 as usize].len());
                due.extend(readers[c].iter().map(|&(pos, i)| (pos, i, lo, hi)));
                marks[c] = hi;
            }
            due.sort_unstable();
            self.report(comp[0]);
            for (pos, i, lo, hi) in due {
                let fired = self.fire(rules[pos], Some((i, lo, hi)), limit)?;
                if !within(self, fired) {
                    return Ok(false);
                }
            }
            if self.meter.late() {
                return Err(self.time_error(rules[0]));
            }
        }
    }

    /// Reports progress: grounding `rel`, with the atom count so far.
    pub fn report(&self, rel: RelId) {
        let low = self.low;
        let rel = self.origin_relation(rel);
        (self.progress)(&format!(
            "grounding {} ({} atoms)",
            low.rels.text(&low.syms, rel),
            self.store.atoms.len()
        ));
    }

    /// Computes every needed relation: the static ones first ([`Self::materialize`]),
    /// then the dynamic and demand ones, component by component (dependencies first).
    pub fn saturate(&mut self) -> Result<(), GroundError> {
        self.materialize()?;
        let low = self.low;
        for comp in &low.rel_sccs {
            if comp.iter().all(|r| self.kind[r.0 as usize].is_static()) {
                continue;
            }
            self.report(comp[0]);
            self.saturate_component(comp, None)?;
        }
        Ok(())
    }

    /// The atoms of a relation.
    pub fn atoms_of(&self, rel: RelId) -> &[AtomId] {
        &self.store.rel_atoms[rel.0 as usize]
    }
}

/// Per relation of `low`: the first relation whose demand relation it is, or itself.
fn origins(low: &Lowered) -> Vec<RelId> {
    let mut origin: Vec<RelId> = (0..low.rels.len() as u32).map(RelId).collect();
    // A relation made by splitting a rule body or by a filter diagram stands for the
    // head of the game's rule it comes from (the rule with the same source span).
    let made = |r: RelId| {
        let name = low.syms.name(low.rels.key(r).0);
        name.starts_with("split#") || name.starts_with("diagram#")
    };
    let mut head_at = std::collections::HashMap::new();
    for rule in low.rules.iter().filter(|r| !made(r.head.rel)) {
        head_at
            .entry((rule.span.start, rule.span.end))
            .or_insert(rule.head.rel);
    }
    for rule in low
        .rules
        .iter()
        .filter(|r| made(r.head.rel) && r.span.end > r.span.start)
    {
        if let Some(&h) = head_at.get(&(rule.span.start, rule.span.end)) {
            origin[rule.head.rel.0 as usize] = h;
        }
    }
    for (r, m) in low.demand_of.iter().enumerate().rev() {
        if let Some(m) = m {
            origin[m.0 as usize] = origin[r];
        }
    }
    origin
}
