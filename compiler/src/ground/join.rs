//! Plans and runs the join of one rule body against the derived atoms: body literals are
//! ordered so that literals with bound arguments come first, positive literals are looked
//! up through hash indexes on their bound argument (sub)terms, and `distinct`, `not` and
//! equality are checked as soon as their variables are bound.

use super::rules::{CRule, PAtom, PLit, PTerm};
use super::terms::{AtomArena, AtomId, GTerm, RelId, TermArena, TermId};
use crate::gdl::Sym;
use std::collections::HashMap;
use std::time::Instant;

/// Path from an atom's argument list down into a subterm: argument index, then child
/// indexes.
pub type Path = Vec<u8>;

/// Which atoms of a relation an index covers and what its key is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IndexSpec {
    /// The relation.
    pub rel: RelId,
    /// Only atoms with this function symbol and arity at this path are indexed.
    pub functors: Vec<(Path, Sym, u32)>,
    /// The key: the ground subterms at these paths.
    pub grounds: Vec<Path>,
}

/// A hash index over one relation's atoms, kept up to date incrementally.
#[derive(Default)]
pub struct Index {
    /// How many atoms of the relation's list are already indexed.
    pub absorbed: usize,
    /// Key → atoms.
    pub map: HashMap<Box<[TermId]>, Vec<AtomId>>,
}

/// The subterm of an atom's arguments at a path, if the structure has it.
fn at_path(terms: &TermArena, args: &[TermId], path: &[u8]) -> Option<TermId> {
    let mut t = *args.get(path[0] as usize)?;
    for &p in &path[1..] {
        match terms.get(t) {
            GTerm::Fn(_, kids) => t = *kids.get(p as usize)?,
            GTerm::Const(_) => return None,
        }
    }
    Some(t)
}

impl Index {
    /// Adds the atoms `list[absorbed..]` to the index.
    pub fn catch_up(
        &mut self,
        spec: &IndexSpec,
        list: &[AtomId],
        atoms: &AtomArena,
        terms: &TermArena,
    ) {
        let mut key = Vec::with_capacity(spec.grounds.len());
        'atoms: for &a in &list[self.absorbed..] {
            let args = atoms.args(a);
            for (path, f, n) in &spec.functors {
                match at_path(terms, args, path).map(|t| terms.get(t)) {
                    Some(GTerm::Fn(g, kids)) if g == f && kids.len() as u32 == *n => {}
                    _ => continue 'atoms,
                }
            }
            key.clear();
            for path in &spec.grounds {
                match at_path(terms, args, path) {
                    Some(t) => key.push(t),
                    None => continue 'atoms,
                }
            }
            self.map.entry(key.as_slice().into()).or_default().push(a);
        }
        self.absorbed = list.len();
    }
}

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
}

/// How a plan treats literals over dynamic relations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Reachability: negative dynamic literals are assumed satisfiable.
    Relaxed,
    /// Instance enumeration: dynamic literals are recorded as the instance's body.
    Record,
}

/// Orders a rule body. `first` puts that positive literal first (semi-naive delta).
/// `size(rel)` estimates relation sizes; `spec_ok` says whether an index spec is worth it.
/// Returns the steps and, per scan step, the index spec it wants (to be resolved to an
/// index id by the caller).
pub fn plan(
    rule: &CRule,
    nvars: usize,
    first: Option<usize>,
    size: &dyn Fn(RelId) -> usize,
) -> Vec<(Step, Option<IndexSpec>)> {
    let mut bound = vec![false; nvars];
    let mut done = vec![false; rule.body.len()];
    let mut steps = Vec::new();
    let bind = |bound: &mut Vec<bool>, a: &PAtom| {
        for v in a.vars() {
            bound[v as usize] = true;
        }
    };
    if let Some(i) = first {
        if let PLit::Pos(a) = &rule.body[i] {
            steps.push((
                Step::Scan {
                    lit: i,
                    source: Source::Range(0, 0),
                },
                None,
            ));
            bind(&mut bound, a);
            done[i] = true;
        }
    }
    loop {
        // Filters whose variables are all bound go first.
        let mut progressed = false;
        for (i, lit) in rule.body.iter().enumerate() {
            if done[i] {
                continue;
            }
            let step = match lit {
                PLit::Pos(a) if a.args.iter().all(|t| t.ground_under(&bound)) => {
                    Step::Check { lit: i }
                }
                PLit::Neg(a) if a.args.iter().all(|t| t.ground_under(&bound)) => {
                    Step::Neg { lit: i }
                }
                PLit::Distinct(x, y) if x.ground_under(&bound) && y.ground_under(&bound) => {
                    Step::Compare {
                        lit: i,
                        equal: false,
                    }
                }
                PLit::Equal(x, y) if x.ground_under(&bound) && y.ground_under(&bound) => {
                    Step::Compare {
                        lit: i,
                        equal: true,
                    }
                }
                _ => continue,
            };
            steps.push((step, None));
            done[i] = true;
            progressed = true;
        }
        if progressed {
            continue;
        }
        // Best positive literal: most bound subterms, then fewest functor-matching atoms.
        let mut best: Option<(usize, IndexSpec, (usize, usize, usize))> = None;
        for (i, lit) in rule.body.iter().enumerate() {
            if done[i] {
                continue;
            }
            if let PLit::Pos(a) = lit {
                let spec = spec_for(a, &bound);
                let score = (
                    spec.grounds.len(),
                    spec.functors.len(),
                    usize::MAX - size(a.rel),
                );
                if best.as_ref().is_none_or(|b| score > b.2) {
                    best = Some((i, spec, score));
                }
            }
        }
        if let Some((i, spec, _)) = best {
            if let PLit::Pos(a) = &rule.body[i] {
                bind(&mut bound, a);
            }
            done[i] = true;
            let keys = ground_patterns(&rule.body[i], &spec);
            let want = (!spec.grounds.is_empty() || !spec.functors.is_empty()).then_some(spec);
            let source = if want.is_some() {
                Source::Index(usize::MAX, keys)
            } else {
                Source::All
            };
            steps.push((Step::Scan { lit: i, source }, want));
            continue;
        }
        // Only unsafe leftovers remain (variables no positive literal binds).
        for (i, lit) in rule.body.iter().enumerate() {
            if done[i] {
                continue;
            }
            let step = match lit {
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
        return steps;
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

fn ground_patterns(lit: &PLit, spec: &IndexSpec) -> Vec<PTerm> {
    match lit {
        PLit::Pos(a) => spec
            .grounds
            .iter()
            .map(|p| pattern_at(&a.args, p).clone())
            .collect(),
        _ => Vec::new(),
    }
}

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

/// The value of a pattern under bindings, if it is ground and already interned.
pub fn find_term(terms: &TermArena, p: &PTerm, binds: &[Option<TermId>]) -> Option<TermId> {
    match p {
        PTerm::Var(v) => binds[*v as usize],
        PTerm::Const(c) => terms.find(&GTerm::Const(*c)),
        PTerm::Fn(f, args) => {
            let kids: Option<Box<[TermId]>> =
                args.iter().map(|a| find_term(terms, a, binds)).collect();
            terms.find(&GTerm::Fn(*f, kids?))
        }
    }
}

/// The value of a pattern under bindings, interning new terms. `None` if a variable is
/// unbound.
pub fn make_term(terms: &mut TermArena, p: &PTerm, binds: &[Option<TermId>]) -> Option<TermId> {
    Some(match p {
        PTerm::Var(v) => binds[*v as usize]?,
        PTerm::Const(c) => terms.intern(GTerm::Const(*c)),
        PTerm::Fn(f, args) => {
            let kids: Option<Box<[TermId]>> =
                args.iter().map(|a| make_term(terms, a, binds)).collect();
            terms.intern(GTerm::Fn(*f, kids?))
        }
    })
}

fn unify(
    terms: &TermArena,
    p: &PTerm,
    t: TermId,
    binds: &mut [Option<TermId>],
    trail: &mut Vec<u16>,
) -> bool {
    match p {
        PTerm::Var(v) => match binds[*v as usize] {
            Some(b) => b == t,
            None => {
                binds[*v as usize] = Some(t);
                trail.push(*v);
                true
            }
        },
        PTerm::Const(c) => matches!(terms.get(t), GTerm::Const(d) if d == c),
        PTerm::Fn(f, args) => match terms.get(t) {
            GTerm::Fn(g, kids) if g == f && kids.len() == args.len() => args
                .iter()
                .zip(kids.iter())
                .all(|(a, &k)| unify(terms, a, k, binds, trail)),
            _ => false,
        },
    }
}

fn pat_eq_term(terms: &TermArena, p: &PTerm, t: TermId, binds: &[Option<TermId>]) -> bool {
    match p {
        PTerm::Var(v) => binds[*v as usize] == Some(t),
        PTerm::Const(c) => matches!(terms.get(t), GTerm::Const(d) if d == c),
        PTerm::Fn(f, args) => match terms.get(t) {
            GTerm::Fn(g, kids) if g == f && kids.len() == args.len() => args
                .iter()
                .zip(kids.iter())
                .all(|(a, &k)| pat_eq_term(terms, a, k, binds)),
            _ => false,
        },
    }
}

/// Structural equality of two patterns under bindings; an unbound variable equals only
/// itself (the oracle's `==`).
fn pat_eq(terms: &TermArena, a: &PTerm, b: &PTerm, binds: &[Option<TermId>]) -> bool {
    match (a, b) {
        (PTerm::Var(x), PTerm::Var(y)) if x == y => true,
        (PTerm::Var(x), _) => binds[*x as usize].is_some_and(|t| pat_eq_term(terms, b, t, binds)),
        (_, PTerm::Var(y)) => binds[*y as usize].is_some_and(|t| pat_eq_term(terms, a, t, binds)),
        (PTerm::Const(c), PTerm::Const(d)) => c == d,
        (PTerm::Fn(f, xs), PTerm::Fn(g, ys)) => {
            f == g
                && xs.len() == ys.len()
                && xs.iter().zip(ys).all(|(x, y)| pat_eq(terms, x, y, binds))
        }
        _ => false,
    }
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
    pub fn run(
        &mut self,
        emit: &mut dyn FnMut(&[Option<TermId>], &[u32]) -> bool,
    ) -> Result<(), Stop> {
        self.step(0, emit)
    }

    fn tick(&mut self) -> Result<(), Stop> {
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks % 4096 == 0 && Instant::now() > self.deadline {
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

    fn step(
        &mut self,
        k: usize,
        emit: &mut dyn FnMut(&[Option<TermId>], &[u32]) -> bool,
    ) -> Result<(), Stop> {
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
