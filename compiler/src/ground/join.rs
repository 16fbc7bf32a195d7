//! Runs a planned join of one rule body against the derived atoms (nested loops over index
//! lookups, backtracking over variable bindings), calling back per solution; looks at the
//! clock every 4096 steps so a time budget stops it promptly.

pub use super::index::{Index, IndexSpec, Path};
pub use super::plan::{plan, spec_for, Mode, Source, Step};
use super::rules::{CRule, PAtom, PLit};
use super::terms::{AtomArena, AtomId, RelId, TermArena, TermId};
pub use super::unify::{find_term, make_term};
use super::unify::{pat_eq, unify};
use std::time::Instant;

/// The per-solution callback of a join: `emit(bindings, body)` with the recorded dynamic
/// body literals as `atom << 1 | negated`; returns false to stop.
pub type Emit<'e> = dyn FnMut(&[Option<TermId>], &[u32]) -> bool + 'e;

/// Signals that enumeration stopped early (time or count budget).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The wall-clock deadline passed.
    Time,
    /// The callback asked to stop (its own budget).
    Callback,
}

/// Read-only view of the derived atoms that a join runs against.
pub struct Db<'a> {
    /// Ground terms.
    pub terms: &'a TermArena,
    /// Derived atoms.
    pub atoms: &'a AtomArena,
    /// Per relation: its atoms in derivation order.
    pub rel_atoms: &'a [Vec<AtomId>],
    /// Index table.
    pub indexes: &'a [Index],
    /// Per relation: static (evaluated exactly) or dynamic.
    pub is_static: &'a [bool],
}

/// Runs a plan. For every satisfying assignment calls `emit(bindings, body)` where `body`
/// lists the recorded dynamic literals as `atom << 1 | negated`; `emit` returns false to stop.
pub struct Join<'a, 'r> {
    db: &'a Db<'a>,
    rule: &'r CRule,
    steps: &'r [Step],
    mode: Mode,
    binds: Vec<Option<TermId>>,
    trail: Vec<u16>,
    body: Vec<u32>,
    deadline: Instant,
    ticks: u32,
    args: Vec<TermId>,
}

impl<'a, 'r> Join<'a, 'r> {
    /// A join of `rule` following `steps` (from [`plan`], with index ids resolved).
    pub fn new(
        db: &'a Db<'a>,
        rule: &'r CRule,
        steps: &'r [Step],
        mode: Mode,
        deadline: Instant,
    ) -> Self {
        Join {
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
        }
    }

    /// Enumerates all solutions.
    pub fn run(&mut self, emit: &mut Emit<'_>) -> Result<(), Stop> {
        self.step(0, emit)
    }

    fn tick(&mut self) -> Result<(), Stop> {
        self.ticks = self.ticks.wrapping_add(1);
        if self
            .ticks
            .is_multiple_of(super::fixpoint::CLOCK_EVERY as u32)
            && Instant::now() > self.deadline
        {
            return Err(Stop::Time);
        }
        Ok(())
    }

    fn atom_of(&self, lit: usize) -> &'r PAtom {
        match &self.rule.body[lit] {
            PLit::Pos(a) | PLit::Neg(a) => a,
            _ => unreachable!("literal {lit} is an atom"),
        }
    }

    fn ground_atom(&mut self, a: &PAtom) -> Option<AtomId> {
        self.args.clear();
        for t in &a.args {
            let id = find_term(self.db.terms, t, &self.binds)?;
            self.args.push(id);
        }
        self.db
            .atoms
            .find(a.rel, &self.args)
            .filter(|&x| self.db.atoms.rel(x) == a.rel)
    }

    fn record(&self, rel: RelId) -> bool {
        self.mode == Mode::Record && !self.db.is_static[rel.0 as usize]
    }

    fn step(&mut self, k: usize, emit: &mut Emit<'_>) -> Result<(), Stop> {
        self.tick()?;
        let Some(step) = self.steps.get(k) else {
            return if emit(&self.binds, &self.body) {
                Ok(())
            } else {
                Err(Stop::Callback)
            };
        };
        match step {
            Step::Scan { lit, source } => {
                let a = self.atom_of(*lit);
                let rel = a.rel.0 as usize;
                let list: &[AtomId] = match source {
                    Source::All => &self.db.rel_atoms[rel],
                    Source::Range(lo, hi) => &self.db.rel_atoms[rel][*lo..*hi],
                    Source::Index(ix, keys) => {
                        let mut key = Vec::with_capacity(keys.len());
                        for p in keys {
                            match find_term(self.db.terms, p, &self.binds) {
                                Some(t) => key.push(t),
                                None => return Ok(()),
                            }
                        }
                        match self.db.indexes[*ix].map.get(key.as_slice()) {
                            Some(v) => v,
                            None => return Ok(()),
                        }
                    }
                };
                let rec = self.record(a.rel);
                for &cand in list {
                    let mark = self.trail.len();
                    let ok = a.args.iter().zip(self.db.atoms.args(cand)).all(|(p, &t)| {
                        unify(self.db.terms, p, t, &mut self.binds, &mut self.trail)
                    });
                    if ok {
                        if rec {
                            self.body.push(cand.0 << 1);
                        }
                        let r = self.step(k + 1, emit);
                        if rec {
                            self.body.pop();
                        }
                        if r.is_err() {
                            self.undo(mark);
                            return r;
                        }
                    }
                    self.undo(mark);
                    self.tick()?;
                }
                Ok(())
            }
            Step::Check { lit } => {
                let a = self.atom_of(*lit);
                match self.ground_atom(a) {
                    Some(x) => {
                        let rec = self.record(a.rel);
                        if rec {
                            self.body.push(x.0 << 1);
                        }
                        let r = self.step(k + 1, emit);
                        if rec {
                            self.body.pop();
                        }
                        r
                    }
                    None => Ok(()),
                }
            }
            Step::Neg { lit } => {
                let a = self.atom_of(*lit);
                let is_static = self.db.is_static[a.rel.0 as usize];
                let found = self.ground_atom(a);
                if is_static {
                    return if found.is_some() {
                        Ok(())
                    } else {
                        self.step(k + 1, emit)
                    };
                }
                match (self.mode, found) {
                    (Mode::Record, Some(x)) => {
                        self.body.push(x.0 << 1 | 1);
                        let r = self.step(k + 1, emit);
                        self.body.pop();
                        r
                    }
                    _ => self.step(k + 1, emit),
                }
            }
            Step::NegExists { lit } => {
                let a = self.atom_of(*lit);
                let is_static = self.db.is_static[a.rel.0 as usize];
                if !is_static && self.mode == Mode::Relaxed {
                    return self.step(k + 1, emit);
                }
                let base = self.body.len();
                for &cand in &self.db.rel_atoms[a.rel.0 as usize] {
                    let mark = self.trail.len();
                    let ok = a.args.iter().zip(self.db.atoms.args(cand)).all(|(p, &t)| {
                        unify(self.db.terms, p, t, &mut self.binds, &mut self.trail)
                    });
                    self.undo(mark);
                    if ok {
                        if is_static {
                            self.body.truncate(base);
                            return Ok(());
                        }
                        self.body.push(cand.0 << 1 | 1);
                    }
                }
                let r = self.step(k + 1, emit);
                self.body.truncate(base);
                r
            }
            Step::Compare { lit, equal } => {
                let (x, y) = match &self.rule.body[*lit] {
                    PLit::Distinct(x, y) | PLit::Equal(x, y) => (x, y),
                    _ => unreachable!("compare step on a comparison"),
                };
                if pat_eq(self.db.terms, x, y, &self.binds) == *equal {
                    self.step(k + 1, emit)
                } else {
                    Ok(())
                }
            }
        }
    }

    fn undo(&mut self, mark: usize) {
        for v in self.trail.drain(mark..) {
            self.binds[v as usize] = None;
        }
    }
}
