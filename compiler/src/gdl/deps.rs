//! Relation dependency analysis: the graph "head relation depends on body relation"
//! keyed by (name, arity), its SCCs, strata for negation, which relations are static
//! (independent of `true`/`does`) or dynamic, which are recursive, and a rule-level
//! stratification that also covers programs that are only locally stratified.
//!
//! The interpreter and the grounder use it for evaluation order.

use std::collections::HashMap;

use super::ast::{Atom, Lit, Program, Sym, Symbols, Term};
use crate::graph::sccs_of_lists as sccs;

/// A relation: a name with an arity (`p/1` and `p/2` are different relations).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelKey {
    /// Relation name.
    pub name: Sym,
    /// Number of arguments.
    pub arity: usize,
}

impl RelKey {
    /// The relation of an atom.
    pub fn of(atom: &Atom) -> RelKey {
        RelKey {
            name: atom.rel,
            arity: atom.args.len(),
        }
    }

    /// `name/arity`.
    pub fn text(&self, symbols: &Symbols) -> String {
        format!("{}/{}", symbols.name(self.name), self.arity)
    }
}

/// Index of a relation in [`RelationInfo::relations`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelId(pub u32);

impl RelId {
    fn ix(self) -> usize {
        self.0 as usize
    }
}

/// One dependency edge: the head relation depends on `to` through `rule`'s body.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The body relation.
    pub to: RelId,
    /// Through a negative literal.
    pub negative: bool,
    /// Index (in [`Program::rules`]) of the first rule giving this edge.
    pub rule: usize,
}

/// Dependency analysis of a [`Program`]. All per-relation vectors are indexed by
/// [`RelId`]; `rule_*` vectors by rule index.
#[derive(Clone, Debug, Default)]
pub struct RelationInfo {
    /// Every relation that appears in a head or body, in order of first appearance.
    pub relations: Vec<RelKey>,
    index: HashMap<RelKey, RelId>,
    /// Rules (indices into [`Program::rules`]) whose head is this relation.
    pub rules_of: Vec<Vec<usize>>,
    /// Dependency edges, one per (body relation, polarity).
    pub edges: Vec<Vec<Edge>>,
    /// SCC index of each relation.
    pub scc_of: Vec<u32>,
    /// SCCs, dependencies first (every SCC comes after the SCCs it depends on).
    pub sccs: Vec<Vec<RelId>>,
    /// Relation-level stratum: 0 for relations that negate nothing, otherwise one more
    /// than the highest stratum negated (and at least that of every positive dependency).
    /// Only meaningful when [`Self::stratified`].
    pub stratum: Vec<u32>,
    /// True when no SCC contains a negative edge, so [`Self::stratum`] is a valid
    /// evaluation order. When false, the program is locally stratified at rule level (or
    /// rejected by the checks) and evaluators must use [`Self::rule_stratum`].
    pub stratified: bool,
    /// Depends (transitively, or is) `true/1` or `does/2`: changes with the state.
    pub dynamic: Vec<bool>,
    /// Depends (transitively, or is) `does/2`.
    pub depends_on_does: Vec<bool>,
    /// On a dependency cycle (an SCC of several relations, or a self-loop).
    pub recursive: Vec<bool>,
    /// Rule-level stratum of every rule: evaluating the rules stratum by stratum, each to
    /// its fixpoint, is correct whenever the checks accepted the program. A rule depends
    /// on a rule whose head can unify with one of its body atoms (see [`may_match`]).
    pub rule_stratum: Vec<u32>,
    /// A rule on a rule-level negative cycle with the negated relation, if any.
    pub negative_cycle: Option<(usize, RelId)>,
}

impl RelationInfo {
    /// Analyses `program`.
    pub fn new(program: &Program) -> RelationInfo {
        let mut info = RelationInfo::default();
        for r in &program.rules {
            info.intern(RelKey::of(&r.head));
            for l in &r.body {
                if let Lit::Pos(a) | Lit::Neg(a) = l {
                    info.intern(RelKey::of(a));
                }
            }
        }
        let n = info.relations.len();
        info.rules_of = vec![Vec::new(); n];
        info.edges = vec![Vec::new(); n];
        for (ri, r) in program.rules.iter().enumerate() {
            let h = info.index[&RelKey::of(&r.head)];
            info.rules_of[h.ix()].push(ri);
            for l in &r.body {
                let (a, negative) = match l {
                    Lit::Pos(a) => (a, false),
                    Lit::Neg(a) => (a, true),
                    _ => continue,
                };
                let to = info.index[&RelKey::of(a)];
                let edges = &mut info.edges[h.ix()];
                if !edges.iter().any(|e| e.to == to && e.negative == negative) {
                    edges.push(Edge {
                        to,
                        negative,
                        rule: ri,
                    });
                }
            }
        }
        info.analyse_relations(program);
        info.analyse_rules(program);
        info
    }

    fn intern(&mut self, key: RelKey) -> RelId {
        let next = RelId(self.relations.len() as u32);
        *self.index.entry(key).or_insert_with(|| {
            self.relations.push(key);
            next
        })
    }

    /// The relation `name/arity`, if it occurs.
    pub fn id(&self, symbols: &Symbols, name: &str, arity: usize) -> Option<RelId> {
        let name = symbols.get(name)?;
        self.index.get(&RelKey { name, arity }).copied()
    }

    /// The relation of `key`, if it occurs.
    pub fn id_of(&self, key: RelKey) -> Option<RelId> {
        self.index.get(&key).copied()
    }

    /// `name/arity` of a relation.
    pub fn text(&self, symbols: &Symbols, r: RelId) -> String {
        self.relations[r.ix()].text(symbols)
    }

    /// True for relations that do not depend on `true`/`does`.
    pub fn is_static(&self, r: RelId) -> bool {
        !self.dynamic[r.ix()]
    }

    fn analyse_relations(&mut self, program: &Program) {
        let n = self.relations.len();
        let succ: Vec<Vec<usize>> = self
            .edges
            .iter()
            .map(|es| es.iter().map(|e| e.to.ix()).collect())
            .collect();
        let comps = sccs(&succ);
        self.scc_of = vec![0; n];
        for (ci, comp) in comps.iter().enumerate() {
            for &v in comp {
                self.scc_of[v] = ci as u32;
            }
        }
        self.sccs = comps
            .iter()
            .map(|c| c.iter().map(|&v| RelId(v as u32)).collect())
            .collect();
        self.recursive = (0..n)
            .map(|v| comps[self.scc_of[v] as usize].len() > 1 || succ[v].contains(&v))
            .collect();
        let base = |name: &str, arity: usize| {
            program
                .symbols
                .get(name)
                .and_then(|s| self.index.get(&RelKey { name: s, arity }))
        };
        let true_rel = base("true", 1).copied();
        let does_rel = base("does", 2).copied();
        self.dynamic = vec![false; n];
        self.depends_on_does = vec![false; n];
        self.stratum = vec![0; n];
        self.stratified = true;
        // SCCs come dependencies first, so one pass in order propagates everything.
        for comp in &comps {
            let mut dynamic = false;
            let mut does = false;
            let mut stratum = 0u32;
            let me = self.scc_of[comp[0]];
            for &v in comp {
                dynamic |= Some(RelId(v as u32)) == true_rel || Some(RelId(v as u32)) == does_rel;
                does |= Some(RelId(v as u32)) == does_rel;
                for e in &self.edges[v] {
                    let w = e.to.ix();
                    if self.scc_of[w] == me {
                        if e.negative {
                            self.stratified = false;
                        }
                        continue;
                    }
                    dynamic |= self.dynamic[w];
                    does |= self.depends_on_does[w];
                    stratum = stratum.max(self.stratum[w] + u32::from(e.negative));
                }
            }
            for &v in comp {
                self.dynamic[v] = dynamic;
                self.depends_on_does[v] = does;
                self.stratum[v] = stratum;
            }
        }
    }

    /// Rule-level graph: rule i depends on rule j when a body atom of i may match the head
    /// of j. Negation inside one SCC of that graph is a genuine negative cycle.
    fn analyse_rules(&mut self, program: &Program) {
        let rules = &program.rules;
        // Facts have no dependencies and stratum 0, so they are left out of the graph (a
        // relation may have thousands); a negated relation with facts only raises the
        // negating rule to stratum 1.
        let n = self.relations.len();
        let mut proper_rules: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut has_fact = vec![false; n];
        for (rel, of) in self.rules_of.iter().enumerate() {
            for &j in of {
                if rules[j].body.is_empty() {
                    has_fact[rel] = true;
                } else {
                    proper_rules[rel].push(j);
                }
            }
        }
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); rules.len()];
        let mut neg_edges: Vec<Vec<usize>> = vec![Vec::new(); rules.len()];
        let mut min_stratum = vec![0u32; rules.len()];
        for (i, r) in rules.iter().enumerate() {
            for l in &r.body {
                let (a, negative) = match l {
                    Lit::Pos(a) => (a, false),
                    Lit::Neg(a) => (a, true),
                    _ => continue,
                };
                let rel = self.index[&RelKey::of(a)].ix();
                if negative && has_fact[rel] {
                    min_stratum[i] = 1;
                }
                for &j in &proper_rules[rel] {
                    if may_match(&a.args, &rules[j].head.args) {
                        succ[i].push(j);
                        if negative {
                            neg_edges[i].push(j);
                        }
                    }
                }
            }
        }
        let comps = sccs(&succ);
        let mut comp_of = vec![0usize; rules.len()];
        for (ci, comp) in comps.iter().enumerate() {
            for &v in comp {
                comp_of[v] = ci;
            }
        }
        self.rule_stratum = vec![0; rules.len()];
        self.negative_cycle = None;
        for (ci, comp) in comps.iter().enumerate() {
            let mut stratum = comp.iter().map(|&i| min_stratum[i]).max().unwrap_or(0);
            for &i in comp {
                for &j in &succ[i] {
                    if comp_of[j] != ci {
                        let neg = neg_edges[i].contains(&j);
                        stratum = stratum.max(self.rule_stratum[j] + u32::from(neg));
                    } else if neg_edges[i].contains(&j) && self.negative_cycle.is_none() {
                        let negated = rules[i]
                            .body
                            .iter()
                            .find_map(|l| match l {
                                Lit::Neg(a)
                                    if rules[j].head.rel == a.rel
                                        && rules[j].head.args.len() == a.args.len()
                                        && may_match(&a.args, &rules[j].head.args) =>
                                {
                                    Some(self.index[&RelKey::of(a)])
                                }
                                _ => None,
                            })
                            .expect("negative edge has a negated atom");
                        self.negative_cycle = Some((i, negated));
                    }
                }
            }
            for &i in comp {
                self.rule_stratum[i] = stratum;
            }
        }
    }
}

/// Whether two argument lists may have a common ground instance, judged position by
/// position: a variable matches anything, constants must be equal, function terms must
/// agree in name, arity and (recursively) arguments. Repeated variables are not tracked,
/// so the answer errs on the side of "may match" — which keeps the rule-level dependency
/// graph an over-approximation of the ground one, and its stratification sound.
pub fn may_match(a: &[Term], b: &[Term]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| term_may_match(x, y))
}

fn term_may_match(a: &Term, b: &Term) -> bool {
    match (a, b) {
        (Term::Var(_), _) | (_, Term::Var(_)) => true,
        (Term::Const(x), Term::Const(y)) => x == y,
        (Term::Fn(f, xs), Term::Fn(g, ys)) => f == g && may_match(xs, ys),
        _ => false,
    }
}
