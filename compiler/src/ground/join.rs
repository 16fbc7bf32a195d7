//! Runs a planned join of one rule body against the derived atoms (nested loops over index
//! lookups, backtracking over variable bindings), calling back per solution; looks at the
//! clock every 4096 steps so a time budget stops it promptly.
//!
//! Literals over on-demand static relations read the answers of their call (relation and
//! bound arguments) from [`Calls`]; a call that has no answers yet is recorded in
//! [`Join::missing`] and yields nothing, so the caller computes it and runs the join
//! again (joins never nest, and every call is answered completely before it is used).
//! A join stops once [`MISSING_BATCH`] calls are missing: its solutions are incomplete
//! then anyway, and a rule whose join opens hundreds of millions of calls (a ten-argument
//! static relation checked on every combination of nine board cells) would otherwise
//! hold them all in memory before any is computed.

use super::budget::Deadline;
use super::plan::{Mode, Source, Step};
use super::rules::{CRule, PAtom, PLit, RelKind};
use super::store::{AtomArena, AtomId, Index, Postings};
use super::unify::{find_term, make_term, pat_eq, unify};
use crate::gdl::RelId;
use crate::terms::{TermArena, TermId};

/// Most missing calls one join records before it stops (see the module docs).
#[cfg(not(test))]
pub const MISSING_BATCH: usize = 1 << 16;
/// Most missing calls one join records before it stops: in the unit tests so few that
/// every test with on-demand relations runs joins that stop and run again.
#[cfg(test)]
pub const MISSING_BATCH: usize = 3;

/// Candidate atoms of a scan.
enum Cands<'a> {
    Slice(std::slice::Iter<'a, AtomId>),
    Index(Postings<'a>),
}

impl Iterator for Cands<'_> {
    type Item = AtomId;
    fn next(&mut self) -> Option<AtomId> {
        match self {
            Cands::Slice(it) => it.next().copied(),
            Cands::Index(it) => it.next(),
        }
    }
}

/// How many tuples the grounder's loops handle between two looks at the clock.
pub const CLOCK_EVERY: usize = 4096;

/// The per-solution callback of a join: `emit(terms, bindings, body)` with the recorded
/// dynamic body literals as `atom << 1 | negated`; returns false to stop.
pub type Emit<'e> = dyn FnMut(&mut TermArena, &[Option<TermId>], &[u32]) -> bool + 'e;

/// Signals that enumeration stopped early (time or count budget).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The CPU-time limit passed.
    Time,
    /// The callback asked to stop (its own budget).
    Callback,
}

/// The answers of one call of an on-demand relation.
pub enum Answers<'a> {
    /// `count` answers, flat rows of the relation's arity; `goal` is set when the call is
    /// a goal of the table being computed (its answers so far).
    Rows {
        /// Goal of the open table, if the answers are not final.
        goal: Option<u32>,
        /// The rows, concatenated.
        rows: &'a [TermId],
        /// Number of rows (needed for arity 0).
        count: usize,
    },
    /// Not computed yet.
    Missing,
}

/// Where on-demand relations' answers come from.
pub trait Calls {
    /// The answers of `rel` called with `key` (per argument: `Some` when bound).
    fn answers(&self, rel: RelId, key: &[Option<TermId>]) -> Answers<'_>;
}

/// Read-only view of the derived atoms that a join runs against.
pub struct Db<'a> {
    /// Derived atoms.
    pub atoms: &'a AtomArena,
    /// Per relation: its atoms in derivation order.
    pub rel_atoms: &'a [Vec<AtomId>],
    /// Index table.
    pub indexes: &'a [Index],
    /// Per relation: how it is grounded.
    pub kind: &'a [RelKind],
    /// On-demand relations.
    pub calls: &'a dyn Calls,
}

/// Runs a plan. For every satisfying assignment calls `emit(terms, bindings, body)` where
/// `body` lists the recorded dynamic literals as `atom << 1 | negated`; `emit` returns
/// false to stop.
pub struct Join<'a, 'r> {
    terms: &'a mut TermArena,
    db: &'a Db<'a>,
    rule: &'r CRule,
    steps: &'r [Step],
    mode: Mode,
    binds: Vec<Option<TermId>>,
    trail: Vec<u16>,
    body: Vec<u32>,
    deadline: Deadline,
    ticks: u32,
    args: Vec<TermId>,
    /// Calls of on-demand relations that had no answers yet (the join skipped them); at
    /// most [`MISSING_BATCH`].
    pub missing: Vec<(RelId, Vec<Option<TermId>>)>,
    /// Set when `missing` reached [`MISSING_BATCH`] and the join unwound.
    batch_full: bool,
    /// Goals of the open table whose answers the join read.
    pub reads: Vec<u32>,
}

impl<'a, 'r> Join<'a, 'r> {
    /// A join of `rule` following `steps` (from [`super::plan::plan`], with index ids
    /// resolved), with `binds` as the initial bindings.
    pub fn new(
        terms: &'a mut TermArena,
        db: &'a Db<'a>,
        (rule, steps): (&'r CRule, &'r [Step]),
        mode: Mode,
        deadline: Deadline,
    ) -> Self {
        Join {
            terms,
            db,
            rule,
            steps,
            mode,
            binds: vec![None; rule.var_names.len()],
            trail: Vec::new(),
            body: Vec::new(),
            deadline,
            ticks: 0,
            args: Vec::new(),
            missing: Vec::new(),
            batch_full: false,
            reads: Vec::new(),
        }
    }

    /// Matches `p` against `t` before the run, binding variables; false if they differ.
    pub fn bind_pattern(&mut self, p: &super::rules::PTerm, t: TermId) -> bool {
        unify(self.terms, p, t, &mut self.binds, &mut self.trail)
    }

    /// Enumerates all solutions, or stops early with [`MISSING_BATCH`] calls in
    /// [`Join::missing`].
    pub fn run(&mut self, emit: &mut Emit<'_>) -> Result<(), Stop> {
        self.trail.clear();
        match self.step(0, emit) {
            Err(Stop::Callback) if self.batch_full => Ok(()),
            r => r,
        }
    }

    fn tick(&mut self) -> Result<(), Stop> {
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks.is_multiple_of(CLOCK_EVERY as u32) && self.deadline.passed() {
            return Err(Stop::Time);
        }
        Ok(())
    }

    fn atom_of(&self, lit: usize) -> &'r PAtom {
        self.rule.body[lit].atom().expect("the literal is an atom")
    }

    fn ground_atom(&mut self, a: &PAtom) -> Option<AtomId> {
        self.args.clear();
        for t in &a.args {
            let id = find_term(self.terms, t, &self.binds)?;
            self.args.push(id);
        }
        self.db.atoms.find(a.rel, &self.args)
    }

    fn record(&self, rel: RelId) -> bool {
        self.mode == Mode::Record && self.db.kind[rel.0 as usize] == RelKind::Dynamic
    }

    fn is_static(&self, rel: RelId) -> bool {
        self.db.kind[rel.0 as usize].is_static()
    }

    fn step(&mut self, k: usize, emit: &mut Emit<'_>) -> Result<(), Stop> {
        self.tick()?;
        let Some(step) = self.steps.get(k) else {
            return if emit(self.terms, &self.binds, &self.body) {
                Ok(())
            } else {
                Err(Stop::Callback)
            };
        };
        match step {
            Step::Scan { lit, source } => self.scan(k, *lit, source, emit),
            Step::Check { lit } => {
                let a = self.atom_of(*lit);
                match self.ground_atom(a) {
                    Some(x) => self.with_literal(a.rel, x.0 << 1, k, emit),
                    None => Ok(()),
                }
            }
            Step::Neg { lit } => {
                let a = self.atom_of(*lit);
                let found = self.ground_atom(a);
                if self.is_static(a.rel) {
                    return match found {
                        Some(_) => Ok(()),
                        None => self.step(k + 1, emit),
                    };
                }
                match (self.mode, found) {
                    (Mode::Record, Some(x)) => self.with_literal(a.rel, x.0 << 1 | 1, k, emit),
                    _ => self.step(k + 1, emit),
                }
            }
            Step::NegExists { lit } => self.neg_exists(k, *lit, emit),
            Step::Compare { lit, equal } => {
                let (x, y) = match &self.rule.body[*lit] {
                    PLit::Distinct(x, y) | PLit::Equal(x, y) => (x, y),
                    _ => unreachable!("compare step on a comparison"),
                };
                if pat_eq(self.terms, x, y, &self.binds) == *equal {
                    self.step(k + 1, emit)
                } else {
                    Ok(())
                }
            }
            Step::Call { lit } => self.call(k, *lit, emit),
        }
    }

    /// Continues with literal `lit` (`atom << 1 | negated`) recorded when `rel` is.
    fn with_literal(
        &mut self,
        rel: RelId,
        lit: u32,
        k: usize,
        emit: &mut Emit<'_>,
    ) -> Result<(), Stop> {
        let rec = self.record(rel);
        if rec {
            self.body.push(lit);
        }
        let r = self.step(k + 1, emit);
        if rec {
            self.body.pop();
        }
        r
    }

    fn scan(
        &mut self,
        k: usize,
        lit: usize,
        source: &Source,
        emit: &mut Emit<'_>,
    ) -> Result<(), Stop> {
        let a = self.atom_of(lit);
        let rel = a.rel.0 as usize;
        let db = self.db;
        let list = match source {
            Source::All => Cands::Slice(db.rel_atoms[rel].iter()),
            Source::Range(lo, hi) => Cands::Slice(db.rel_atoms[rel][*lo..*hi].iter()),
            Source::Index(ix, keys) => {
                let mut key = Vec::with_capacity(keys.len());
                for p in keys {
                    match find_term(self.terms, p, &self.binds) {
                        Some(t) => key.push(t),
                        None => return Ok(()),
                    }
                }
                Cands::Index(db.indexes[*ix].get(&key))
            }
        };
        for cand in list {
            let mark = self.trail.len();
            let ok = a
                .args
                .iter()
                .zip(db.atoms.args(cand))
                .all(|(p, &t)| unify(self.terms, p, t, &mut self.binds, &mut self.trail));
            let r = if ok {
                self.with_literal(a.rel, cand.0 << 1, k, emit)
            } else {
                Ok(())
            };
            self.undo(mark);
            r?;
            self.tick()?;
        }
        Ok(())
    }

    fn neg_exists(&mut self, k: usize, lit: usize, emit: &mut Emit<'_>) -> Result<(), Stop> {
        let a = self.atom_of(lit);
        let is_static = self.is_static(a.rel);
        if !is_static && self.mode == Mode::Relaxed {
            return self.step(k + 1, emit);
        }
        let db = self.db;
        let base = self.body.len();
        for &cand in &db.rel_atoms[a.rel.0 as usize] {
            let mark = self.trail.len();
            let ok = a
                .args
                .iter()
                .zip(db.atoms.args(cand))
                .all(|(p, &t)| unify(self.terms, p, t, &mut self.binds, &mut self.trail));
            self.undo(mark);
            if ok {
                if is_static {
                    self.body.truncate(base);
                    return Ok(());
                }
                if self.record(a.rel) {
                    self.body.push(cand.0 << 1 | 1);
                }
            }
        }
        let r = self.step(k + 1, emit);
        self.body.truncate(base);
        r
    }

    /// A literal over an on-demand relation: its call's answers.
    fn call(&mut self, k: usize, lit: usize, emit: &mut Emit<'_>) -> Result<(), Stop> {
        let (a, negated) = match &self.rule.body[lit] {
            PLit::Pos(a) => (a, false),
            PLit::Neg(a) => (a, true),
            _ => unreachable!("call step on an atom"),
        };
        let key: Vec<Option<TermId>> = a
            .args
            .iter()
            .map(|t| make_term(self.terms, t, &self.binds))
            .collect();
        let db = self.db;
        let (goal, rows, count) = match db.calls.answers(a.rel, &key) {
            Answers::Missing => {
                self.missing.push((a.rel, key));
                if self.missing.len() >= MISSING_BATCH {
                    self.batch_full = true;
                    return Err(Stop::Callback); // unwinds to `run`
                }
                return Ok(());
            }
            Answers::Rows { goal, rows, count } => (goal, rows, count),
        };
        if let Some(g) = goal {
            self.reads.push(g);
        }
        let arity = a.args.len();
        let mut any = false;
        for r in 0..count {
            let row = &rows[r * arity..(r + 1) * arity];
            let mark = self.trail.len();
            let ok = a
                .args
                .iter()
                .zip(row)
                .all(|(p, &t)| unify(self.terms, p, t, &mut self.binds, &mut self.trail));
            let res = if ok && !negated {
                self.step(k + 1, emit)
            } else {
                Ok(())
            };
            self.undo(mark);
            res?;
            if ok && negated {
                any = true;
                break;
            }
            self.tick()?;
        }
        if negated && !any {
            return self.step(k + 1, emit);
        }
        Ok(())
    }

    fn undo(&mut self, mark: usize) {
        for v in self.trail.drain(mark..) {
            self.binds[v as usize] = None;
        }
    }
}
