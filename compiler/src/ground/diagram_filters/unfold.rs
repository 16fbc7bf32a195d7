//! Unfolds a static literal into a disjunction of clauses over fact relations, `distinct`
//! and equality: the form the decision-diagram builder ([`super::states`]) can evaluate one
//! variable at a time.
//!
//! A relation given only by ground facts is a *primitive* (its facts are the table). A
//! static relation defined by rules that are not recursive is replaced by its rules' bodies
//! (each rule one alternative), its head unified with the call; a negated one by the
//! conjunction of its negated alternatives, multiplied out. Whatever would need a
//! variable of a callee's body that its head does not bind (a local), a recursive relation,
//! or more than [`MAX_CLAUSES`] alternatives is refused (`None`), and the caller keeps that
//! literal as it was.

use std::collections::{HashMap, HashSet};

use crate::gdl::{Lit, Program, RelKey, RelationInfo, Sym, Term};

/// Most alternatives one unfolded literal may have.
pub(super) const MAX_CLAUSES: usize = 4096;
/// Deepest chain of definitions unfolded.
const MAX_DEPTH: usize = 16;

/// A set of filter variables, one bit each ([`super::MAX_VARS`] at most).
pub(super) type Vars = u128;

/// The set holding only variable `v`.
pub(super) fn bit(v: u16) -> Vars {
    1 << v
}

/// A term of a primitive: a filter variable (its position in the diagram's variable
/// order), a constant, or a function term. A value is a term without `V`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum T {
    V(u16),
    C(Sym),
    F(Sym, Vec<T>),
}

impl T {
    /// The term of a ground GDL term, `None` when it has a variable.
    pub(super) fn of_ground(t: &Term) -> Option<T> {
        Some(match t {
            Term::Var(_) => return None,
            Term::Const(c) => T::C(*c),
            Term::Fn(f, a) => T::F(*f, a.iter().map(T::of_ground).collect::<Option<_>>()?),
        })
    }

    /// The GDL term of a value.
    pub(super) fn to_term(&self) -> Term {
        match self {
            T::V(_) => unreachable!("a value has no variable"),
            T::C(c) => Term::Const(*c),
            T::F(f, a) => Term::Fn(*f, a.iter().map(T::to_term).collect()),
        }
    }

    /// Adds the bit of every variable of the term to `mask`.
    pub(super) fn mask(&self, mask: &mut Vars) {
        match self {
            T::V(v) => *mask |= bit(*v),
            T::C(_) => {}
            T::F(_, a) => a.iter().for_each(|t| t.mask(mask)),
        }
    }

    /// True when the term has no variable.
    pub(super) fn is_ground(&self) -> bool {
        match self {
            T::V(_) => false,
            T::C(_) => true,
            T::F(_, a) => a.iter().all(T::is_ground),
        }
    }

    /// The term with variable `v` replaced by `value`.
    pub(super) fn subst(&self, v: u16, value: &T) -> T {
        match self {
            T::V(x) if *x == v => value.clone(),
            T::V(_) | T::C(_) => self.clone(),
            T::F(f, a) => T::F(*f, a.iter().map(|t| t.subst(v, value)).collect()),
        }
    }

    /// True when the ground term `value` is an instance of this pattern (variables match
    /// anything; repeated variables are not required to agree).
    fn admits(&self, value: &T) -> bool {
        match (self, value) {
            (T::V(_), _) => true,
            (T::C(a), T::C(b)) => a == b,
            (T::F(f, a), T::F(g, b)) => {
                f == g && a.len() == b.len() && a.iter().zip(b).all(|(p, v)| p.admits(v))
            }
            _ => false,
        }
    }
}

/// One test of a clause.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Prim {
    /// `(rel args…)` holds (`neg`: does not hold) for the facts of table `table`.
    Fact { table: u32, neg: bool, args: Vec<T> },
    /// The two terms differ.
    Distinct(T, T),
    /// The two terms are equal.
    Equal(T, T),
}

/// What is known of a primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Truth {
    True,
    False,
    Open,
}

impl Prim {
    /// The primitive that holds exactly when this one does not.
    fn negated(&self) -> Prim {
        match self {
            Prim::Fact { table, neg, args } => Prim::Fact {
                table: *table,
                neg: !neg,
                args: args.clone(),
            },
            Prim::Distinct(a, b) => Prim::Equal(a.clone(), b.clone()),
            Prim::Equal(a, b) => Prim::Distinct(a.clone(), b.clone()),
        }
    }

    /// The variables the primitive mentions, as a bit mask.
    pub(super) fn mask(&self) -> Vars {
        let mut m = 0;
        match self {
            Prim::Fact { args, .. } => args.iter().for_each(|t| t.mask(&mut m)),
            Prim::Distinct(a, b) | Prim::Equal(a, b) => {
                a.mask(&mut m);
                b.mask(&mut m);
            }
        }
        m
    }

    /// The primitive with variable `v` replaced by `value`.
    pub(super) fn subst(&self, v: u16, value: &T) -> Prim {
        match self {
            Prim::Fact { table, neg, args } => Prim::Fact {
                table: *table,
                neg: *neg,
                args: args.iter().map(|t| t.subst(v, value)).collect(),
            },
            Prim::Distinct(a, b) => Prim::Distinct(a.subst(v, value), b.subst(v, value)),
            Prim::Equal(a, b) => Prim::Equal(a.subst(v, value), b.subst(v, value)),
        }
    }

    /// Decides the primitive when it is ground; a positive fact test with no matching
    /// fact is false already.
    pub(super) fn truth(&self, tables: &[FactTable]) -> Truth {
        let decided = |b: bool| if b { Truth::True } else { Truth::False };
        match self {
            Prim::Fact { table, neg, args } => {
                let t = &tables[*table as usize];
                if args.iter().all(T::is_ground) {
                    decided(t.set.contains(args) != *neg)
                } else if !*neg
                    && !t
                        .list
                        .iter()
                        .any(|f| args.iter().zip(f).all(|(p, v)| p.admits(v)))
                {
                    Truth::False
                } else {
                    Truth::Open
                }
            }
            Prim::Distinct(a, b) if a.is_ground() && b.is_ground() => decided(a != b),
            Prim::Equal(a, b) if a.is_ground() && b.is_ground() => decided(a == b),
            _ => Truth::Open,
        }
    }
}

/// The facts of a primitive relation.
#[derive(Debug, Default)]
pub(super) struct FactTable {
    /// Every fact, for membership.
    pub(super) set: HashSet<Vec<T>>,
    /// Every fact, in source order, for projections and partial matches.
    pub(super) list: Vec<Vec<T>>,
}

/// A conjunction of primitives.
pub(super) type Clause = Vec<Prim>;

/// A conjunction of disjunctions of clauses.
pub(super) type Conj = Vec<Vec<Clause>>;

/// Unfolds static literals of one program; primitive tables are shared by every literal.
pub(super) struct Unfolder<'p> {
    program: &'p Program,
    info: &'p RelationInfo,
    /// Primitive relations met so far, by relation.
    table_of: HashMap<RelKey, u32>,
    /// Their facts.
    pub(super) tables: Vec<FactTable>,
}

/// How a callee's head variable is bound while unfolding one of its rules.
type Binding = HashMap<Sym, T>;

impl<'p> Unfolder<'p> {
    pub(super) fn new(program: &'p Program, info: &'p RelationInfo) -> Self {
        Unfolder {
            program,
            info,
            table_of: HashMap::new(),
            tables: Vec::new(),
        }
    }

    /// The table of `key` when it is defined by ground facts only (and at least one).
    pub(super) fn primitive(&mut self, key: RelKey) -> Option<u32> {
        if let Some(&t) = self.table_of.get(&key) {
            return Some(t);
        }
        let id = self.info.id_of(key)?;
        let rules = &self.info.rules_of[id.0 as usize];
        let mut table = FactTable::default();
        for &ri in rules {
            let r = &self.program.rules[ri];
            if !r.body.is_empty() {
                return None;
            }
            let fact: Vec<T> = r
                .head
                .args
                .iter()
                .map(T::of_ground)
                .collect::<Option<_>>()?;
            if table.set.insert(fact.clone()) {
                table.list.push(fact);
            }
        }
        if table.list.is_empty() {
            return None;
        }
        let t = self.tables.len() as u32;
        self.tables.push(table);
        self.table_of.insert(key, t);
        Some(t)
    }

    /// True when `key` is static, defined by rules (not only facts) and not recursive:
    /// a literal over it is what this pass unfolds.
    pub(super) fn unfoldable(&mut self, key: RelKey) -> bool {
        let Some(id) = self.info.id_of(key) else {
            return false;
        };
        let ix = id.0 as usize;
        self.info.is_static(id)
            && !self.info.recursive[ix]
            && !self.info.rules_of[ix].is_empty()
            && self.primitive(key).is_none()
    }

    /// The literal `key(args)`, its arguments already over filter variables, as a
    /// conjunction of disjunctions of clauses: a call that only one rule can match is that
    /// rule's body, literal by literal (nine `once` tests stay nine disjunctions of nine
    /// clauses instead of 9⁹ clauses); one that several rules match is the union of their
    /// bodies multiplied out. Ground primitives are decided (a false one drops its clause,
    /// a true one is left out). `None` when the literal cannot be unfolded.
    pub(super) fn unfold(&mut self, key: RelKey, args: &[T], depth: usize) -> Option<Conj> {
        if let Some(table) = self.primitive(key) {
            let fact = Prim::Fact {
                table,
                neg: false,
                args: args.to_vec(),
            };
            return Some(vec![self.decided(vec![fact])]);
        }
        if depth >= MAX_DEPTH || !self.unfoldable(key) {
            return None;
        }
        let id = self.info.id_of(key)?;
        let mut bodies: Vec<Conj> = Vec::new();
        for &ri in &self.info.rules_of[id.0 as usize].clone() {
            let rule = &self.program.rules[ri];
            let mut bind = Binding::new();
            let mut eqs = Vec::new();
            let unified = rule
                .head
                .args
                .iter()
                .zip(args)
                .try_fold((), |(), (h, c)| unify(h, c, &mut bind, &mut eqs));
            match unified {
                Err(Unify::Fails) => continue,
                Err(Unify::Local) => return None,
                Ok(()) => {}
            }
            let mut conj: Conj = vec![self.decided(eqs)];
            for lit in &rule.body {
                conj.extend(self.unfold_lit(lit, &bind, depth)?);
            }
            bodies.push(conj);
        }
        if bodies.len() == 1 {
            return bodies.pop();
        }
        let mut out = Vec::new();
        for conj in bodies {
            out.extend(self.flatten(conj)?);
            if out.len() > MAX_CLAUSES {
                return None;
            }
        }
        Some(vec![out])
    }

    /// One disjunction equal to the conjunction `conj`, `None` past [`MAX_CLAUSES`].
    fn flatten(&self, conj: Conj) -> Option<Vec<Clause>> {
        let mut out = vec![Vec::new()];
        for alts in conj {
            out = product(&out, &alts)?;
        }
        Some(self.decide_all(out))
    }

    /// One body literal of a callee's rule under `bind`, as a conjunction.
    fn unfold_lit(&mut self, lit: &Lit, bind: &Binding, depth: usize) -> Option<Conj> {
        let s = |t: &Term| apply(t, bind);
        match lit {
            Lit::Pos(a) => {
                let args: Vec<T> = a.args.iter().map(s).collect::<Option<_>>()?;
                self.unfold(RelKey::of(a), &args, depth + 1)
            }
            Lit::Neg(a) => {
                let args: Vec<T> = a.args.iter().map(s).collect::<Option<_>>()?;
                let conj = self.unfold(RelKey::of(a), &args, depth + 1)?;
                // not (C1 or C2 …) = (not C1) and (not C2) …, each a disjunction of
                // negated primitives.
                let clauses = self.flatten(conj)?;
                Some(
                    clauses
                        .iter()
                        .map(|c| self.decide_all(c.iter().map(|p| vec![p.negated()]).collect()))
                        .collect(),
                )
            }
            Lit::Distinct(a, b) => Some(vec![self.decided(vec![Prim::Distinct(s(a)?, s(b)?)])]),
            Lit::Equal(a, b) => Some(vec![self.decided(vec![Prim::Equal(s(a)?, s(b)?)])]),
        }
    }

    /// The clauses of `alts` with their ground primitives decided.
    fn decide_all(&self, alts: Vec<Clause>) -> Vec<Clause> {
        alts.into_iter()
            .filter_map(|c| self.decided_opt(c))
            .collect()
    }

    /// `[clause]` with its ground primitives decided, or `[]` when one is false.
    fn decided(&self, clause: Clause) -> Vec<Clause> {
        self.decided_opt(clause).into_iter().collect()
    }

    fn decided_opt(&self, clause: Clause) -> Option<Clause> {
        let mut out = Vec::with_capacity(clause.len());
        for p in clause {
            match p.truth(&self.tables) {
                Truth::False => return None,
                Truth::True => {}
                Truth::Open => out.push(p),
            }
        }
        out.sort();
        out.dedup();
        Some(out)
    }
}

/// Why a head did not unify with a call.
enum Unify {
    /// The call can never match this rule.
    Fails,
    /// It would need a variable of the rule's body (a local) in a filter's term.
    Local,
}

/// Unifies the callee's head term `h` with the caller's term `c`, extending `bind` (callee
/// variables to caller terms) and `eqs` (equalities the caller's variables must meet).
fn unify(h: &Term, c: &T, bind: &mut Binding, eqs: &mut Clause) -> Result<(), Unify> {
    match (h, c) {
        (Term::Var(x), _) => match bind.get(x) {
            Some(b) if b == c => Ok(()),
            Some(b) if b.is_ground() && c.is_ground() => Err(Unify::Fails),
            Some(b) => {
                eqs.push(Prim::Equal(b.clone(), c.clone()));
                Ok(())
            }
            None => {
                bind.insert(*x, c.clone());
                Ok(())
            }
        },
        (Term::Const(k), T::C(j)) if k == j => Ok(()),
        (Term::Fn(f, hs), T::F(g, cs)) if f == g && hs.len() == cs.len() => hs
            .iter()
            .zip(cs)
            .try_for_each(|(h, c)| unify(h, c, bind, eqs)),
        (Term::Const(_) | Term::Fn(..), T::V(_)) => {
            let t = apply(h, bind).ok_or(Unify::Local)?;
            eqs.push(Prim::Equal(c.clone(), t));
            Ok(())
        }
        _ => Err(Unify::Fails),
    }
}

/// The callee term `t` over the caller's terms, `None` when it has an unbound variable.
fn apply(t: &Term, bind: &Binding) -> Option<T> {
    Some(match t {
        Term::Var(x) => bind.get(x)?.clone(),
        Term::Const(c) => T::C(*c),
        Term::Fn(f, a) => T::F(*f, a.iter().map(|t| apply(t, bind)).collect::<Option<_>>()?),
    })
}

/// The conjunction of two disjunctions, `None` past [`MAX_CLAUSES`].
fn product(a: &[Clause], b: &[Clause]) -> Option<Vec<Clause>> {
    if a.len().saturating_mul(b.len()) > MAX_CLAUSES {
        return None;
    }
    Some(
        a.iter()
            .flat_map(|x| b.iter().map(move |y| x.iter().chain(y).cloned().collect()))
            .collect(),
    )
}
