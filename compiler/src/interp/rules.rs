//! Lowers a GDL [`Program`] to the interpreter's rule form: relations numbered, variables
//! numbered per rule, ground sub-terms pre-interned; then splits the relations into
//! strongly connected components (strata) and classifies them as static / state / move.

use super::InterpError;
use crate::gdl::{Atom, Lit, Program, Span, Sym, Term};
use crate::terms::{TermArena, TermId};
use std::collections::HashMap;

pub use crate::gdl::MAX_RULE_VARIABLES;

/// Handle of a relation (name + arity).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelId(pub u32);

/// When a relation's extension can change.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Depends on neither `true` nor `does`: computed once at load.
    Static,
    /// Depends on `true` (the state) but not on `does`.
    State,
    /// Depends on `does` (the joint move).
    Move,
}

/// Facts about one relation.
#[derive(Clone, Debug)]
pub struct RelInfo {
    /// Relation name.
    pub name: Sym,
    /// Number of arguments.
    pub arity: usize,
    /// Static / state / move.
    pub class: Class,
    /// Index of its stratum in [`Rules::strata`].
    pub stratum: usize,
}

/// A term pattern of a rule with variables numbered `0..nvars` (at most
/// [`MAX_RULE_VARIABLES`]: [`lower`] rejects a rule with more, so a slot never wraps).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pat {
    /// Variable slot.
    Var(u16),
    /// A ground sub-term, pre-interned.
    Ground(TermId),
    /// A function term with at least one variable inside.
    Fn(Sym, Box<[Pat]>),
}

impl Pat {
    /// Adds the variables of this pattern to `out` (a bitset over slots).
    pub fn vars(&self, out: &mut Vec<bool>) {
        match self {
            Pat::Var(v) => out[*v as usize] = true,
            Pat::Ground(_) => {}
            Pat::Fn(_, args) => args.iter().for_each(|a| a.vars(out)),
        }
    }
}

/// A relation applied to patterns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CAtom {
    /// The relation.
    pub rel: RelId,
    /// One pattern per argument.
    pub args: Box<[Pat]>,
}

/// A body literal of a lowered rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CLit {
    /// Positive atom.
    Pos(CAtom),
    /// Negation as failure.
    Neg(CAtom),
    /// The two terms differ.
    Distinct(Pat, Pat),
    /// The two terms are equal.
    Equal(Pat, Pat),
}

impl CLit {
    /// The variables of the literal, as a bitset over `nvars` slots.
    pub fn vars(&self, nvars: usize) -> Vec<bool> {
        let mut v = vec![false; nvars];
        match self {
            CLit::Pos(a) | CLit::Neg(a) => a.args.iter().for_each(|p| p.vars(&mut v)),
            CLit::Distinct(x, y) | CLit::Equal(x, y) => {
                x.vars(&mut v);
                y.vars(&mut v);
            }
        }
        v
    }
}

/// A lowered rule.
#[derive(Clone, Debug)]
pub struct CRule {
    /// Head atom.
    pub head: CAtom,
    /// Body literals in source order.
    pub body: Vec<CLit>,
    /// Number of variable slots.
    pub nvars: usize,
    /// Variable names (for messages).
    pub var_names: Vec<Sym>,
    /// Where the rule stands in the source.
    pub span: Span,
}

/// One stratum: a strongly connected component of the dependency graph.
#[derive(Clone, Debug)]
pub struct Stratum {
    /// Relations defined together.
    pub rels: Vec<RelId>,
    /// Indices into [`Rules::rules`] of the rules whose head is in this stratum.
    pub rules: Vec<usize>,
    /// Class shared by its relations.
    pub class: Class,
    /// Some relation depends on another of this stratum (recursion).
    pub recursive: bool,
    /// Some relation depends *negatively* on one of this stratum (only locally
    /// stratified at best; evaluated by alternating fixpoint).
    pub negative_cycle: bool,
}

/// The lowered program.
#[derive(Clone, Debug)]
pub struct Rules {
    /// All relations, indexed by [`RelId`].
    pub rels: Vec<RelInfo>,
    /// Relation lookup by (name, arity).
    pub rel_map: HashMap<(Sym, usize), RelId>,
    /// All rules.
    pub rules: Vec<CRule>,
    /// Strata, dependencies first.
    pub strata: Vec<Stratum>,
    /// `true/1`.
    pub true_rel: RelId,
    /// `does/2`.
    pub does_rel: RelId,
}

impl Rules {
    /// `name/arity` of a relation, for messages.
    pub fn rel_name(&self, syms: &crate::gdl::Symbols, r: RelId) -> String {
        let info = &self.rels[r.0 as usize];
        let name = if (info.name.0 as usize) < syms.len() {
            syms.name(info.name)
        } else if r == self.true_rel {
            "true"
        } else {
            "does"
        };
        format!("{name}/{}", info.arity)
    }

    /// The relation `name/arity` if the program mentions it.
    pub fn rel(&self, name: Sym, arity: usize) -> Option<RelId> {
        self.rel_map.get(&(name, arity)).copied()
    }
}

struct Lower<'a> {
    program: &'a Program,
    terms: &'a mut TermArena,
    rels: Vec<RelInfo>,
    rel_map: HashMap<(Sym, usize), RelId>,
    /// Slot of each variable of the rule being lowered.
    slots: HashMap<Sym, usize>,
    /// The rule being lowered has more than [`MAX_RULE_VARIABLES`] variables.
    too_many_vars: bool,
    /// There are more relations than a [`RelId`] numbers.
    too_many_rels: bool,
}

impl Lower<'_> {
    fn rel(&mut self, name: Sym, arity: usize) -> RelId {
        let n = self.rels.len();
        let rels = &mut self.rels;
        let too_many = &mut self.too_many_rels;
        *self.rel_map.entry((name, arity)).or_insert_with(|| {
            rels.push(RelInfo {
                name,
                arity,
                class: Class::Static,
                stratum: 0,
            });
            RelId(u32::try_from(n).unwrap_or_else(|_| {
                *too_many = true;
                u32::MAX
            }))
        })
    }

    fn pat(&mut self, t: &Term, vars: &mut Vec<Sym>) -> Pat {
        match t {
            Term::Var(v) => {
                let slot = *self.slots.entry(*v).or_insert_with(|| {
                    vars.push(*v);
                    vars.len() - 1
                });
                match u16::try_from(slot) {
                    Ok(s) if slot < MAX_RULE_VARIABLES => Pat::Var(s),
                    // Never used: the rule is rejected once lowered.
                    _ => {
                        self.too_many_vars = true;
                        Pat::Var(u16::MAX)
                    }
                }
            }
            Term::Const(c) => Pat::Ground(self.terms.constant(*c)),
            Term::Fn(f, args) => {
                let ps: Vec<Pat> = args.iter().map(|a| self.pat(a, vars)).collect();
                if ps.iter().all(|p| matches!(p, Pat::Ground(_))) {
                    let ids: Vec<TermId> = ps
                        .iter()
                        .map(|p| match p {
                            Pat::Ground(g) => *g,
                            _ => unreachable!("checked all ground"),
                        })
                        .collect();
                    Pat::Ground(self.terms.function(*f, &ids))
                } else {
                    Pat::Fn(*f, ps.into())
                }
            }
        }
    }

    fn atom(&mut self, a: &Atom, vars: &mut Vec<Sym>) -> CAtom {
        let rel = self.rel(a.rel, a.args.len());
        let args = a.args.iter().map(|t| self.pat(t, vars)).collect();
        CAtom { rel, args }
    }
}

/// Lowers `program`, checks that every rule is safe (each head variable occurs in a
/// positive body literal) and does not define `true`/`does`, and computes the strata.
///
/// Errors: [`InterpError::UnsafeRule`], [`InterpError::ReservedHead`],
/// [`InterpError::TooManyVariables`] (more than [`MAX_RULE_VARIABLES`] in one rule),
/// [`InterpError::TooManyRelations`].
pub fn lower(program: &Program, terms: &mut TermArena) -> Result<Rules, InterpError> {
    let syms = &program.symbols;
    let mut lw = Lower {
        program,
        terms,
        rels: Vec::new(),
        rel_map: HashMap::new(),
        slots: HashMap::new(),
        too_many_vars: false,
        too_many_rels: false,
    };
    let true_sym = sym_of(&program.symbols, "true");
    let does_sym = sym_of(&program.symbols, "does");
    let mut rules = Vec::new();
    for r in &lw.program.rules {
        let mut vars = Vec::new();
        lw.slots.clear();
        let head = lw.atom(&r.head, &mut vars);
        let body: Vec<CLit> = r
            .body
            .iter()
            .map(|l| match l {
                Lit::Pos(a) => CLit::Pos(lw.atom(a, &mut vars)),
                Lit::Neg(a) => CLit::Neg(lw.atom(a, &mut vars)),
                Lit::Distinct(x, y) => CLit::Distinct(lw.pat(x, &mut vars), lw.pat(y, &mut vars)),
                Lit::Equal(x, y) => CLit::Equal(lw.pat(x, &mut vars), lw.pat(y, &mut vars)),
            })
            .collect();
        let head_name = syms.atom_text(&r.head);
        if lw.too_many_vars {
            return Err(InterpError::TooManyVariables {
                rule: head_name,
                count: vars.len(),
                limit: MAX_RULE_VARIABLES,
                span: r.span,
            });
        }
        if lw.too_many_rels {
            return Err(InterpError::TooManyRelations {
                limit: u32::MAX as usize,
                span: r.span,
            });
        }
        if (Some(r.head.rel) == true_sym && r.head.args.len() == 1)
            || (Some(r.head.rel) == does_sym && r.head.args.len() == 2)
        {
            return Err(InterpError::ReservedHead {
                rule: head_name,
                span: r.span,
            });
        }
        let nvars = vars.len();
        let mut bound = vec![false; nvars];
        for l in &body {
            if let CLit::Pos(_) = l {
                for (b, v) in bound.iter_mut().zip(l.vars(nvars)) {
                    *b |= v;
                }
            }
        }
        let mut hv = vec![false; nvars];
        head.args.iter().for_each(|p| p.vars(&mut hv));
        if let Some(i) = (0..nvars).find(|&i| hv[i] && !bound[i]) {
            return Err(InterpError::UnsafeRule {
                rule: head_name,
                var: syms.name(vars[i]).to_string(),
                span: r.span,
            });
        }
        rules.push(CRule {
            head,
            body,
            nvars,
            var_names: vars,
            span: r.span,
        });
    }
    let true_rel = lw.rel(true_sym.unwrap_or(Sym(u32::MAX)), 1);
    let does_rel = lw.rel(does_sym.unwrap_or(Sym(u32::MAX - 1)), 2);
    if lw.too_many_rels {
        return Err(InterpError::TooManyRelations {
            limit: u32::MAX as usize,
            span: lw
                .program
                .rules
                .last()
                .map_or_else(Span::default, |r| r.span),
        });
    }
    let Lower {
        mut rels, rel_map, ..
    } = lw;
    let strata = stratify(&mut rels, &rules, true_rel, does_rel);
    Ok(Rules {
        rels,
        rel_map,
        rules,
        strata,
        true_rel,
        does_rel,
    })
}

fn sym_of(syms: &crate::gdl::Symbols, name: &str) -> Option<Sym> {
    syms.get(name)
}

/// Tarjan's strongly connected components over relation dependencies (head → body);
/// components come out dependencies first. Sets each relation's class and stratum.
fn stratify(rels: &mut [RelInfo], rules: &[CRule], t: RelId, d: RelId) -> Vec<Stratum> {
    let n = rels.len();
    // edges[head] = (body relation, negative?)
    let mut edges: Vec<Vec<(usize, bool)>> = vec![Vec::new(); n];
    let mut rules_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (ri, r) in rules.iter().enumerate() {
        let h = r.head.rel.0 as usize;
        rules_of[h].push(ri);
        for l in &r.body {
            match l {
                CLit::Pos(a) => edges[h].push((a.rel.0 as usize, false)),
                CLit::Neg(a) => edges[h].push((a.rel.0 as usize, true)),
                _ => {}
            }
        }
    }
    let succ: Vec<Vec<usize>> = edges
        .iter()
        .map(|es| es.iter().map(|&(w, _)| w).collect())
        .collect();
    let comps = crate::graph::sccs_of_lists(&succ);
    let mut comp_of = vec![0usize; n];
    for (ci, c) in comps.iter().enumerate() {
        for &v in c {
            comp_of[v] = ci;
        }
    }
    let mut strata = Vec::with_capacity(comps.len());
    for (ci, c) in comps.iter().enumerate() {
        let mut class = Class::Static;
        let (mut recursive, mut negative_cycle) = (false, false);
        for &v in c {
            if v == t.0 as usize {
                class = class.max(Class::State);
            }
            if v == d.0 as usize {
                class = class.max(Class::Move);
            }
            for &(w, neg) in &edges[v] {
                if comp_of[w] == ci {
                    recursive = true;
                    negative_cycle |= neg;
                } else {
                    // dependencies come first, so their class is final
                    class = class.max(rels[w].class);
                }
            }
        }
        for &v in c {
            rels[v].class = class;
            rels[v].stratum = ci;
        }
        let mut rs: Vec<usize> = c
            .iter()
            .flat_map(|&v| rules_of[v].iter().copied())
            .collect();
        rs.sort_unstable();
        strata.push(Stratum {
            // `v` < the number of relations, which `lower` keeps within `u32`.
            rels: c.iter().map(|&v| RelId(v as u32)).collect(),
            rules: rs,
            class,
            recursive,
            negative_cycle,
        });
    }
    strata
}
