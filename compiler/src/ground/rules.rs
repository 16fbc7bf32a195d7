//! Lowers GDL rules to grounding patterns (variables as numbered slots, relations as
//! [`RelId`]s) and classifies relations as static or dynamic.

use crate::graph::{sccs_from, Graph};
use super::terms::RelId;
use super::GroundError;
use crate::gdl::{Atom, Lit, Program, Span, Sym, Symbols, Term};
use std::collections::HashMap;

/// A term pattern: a variable slot, a constant, or a function term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PTerm {
    /// Variable slot (index into the rule's bindings).
    Var(u16),
    /// A constant.
    Const(Sym),
    /// A function term.
    Fn(Sym, Vec<PTerm>),
}

impl PTerm {
    /// Adds the variable slots of this term to `out`.
    pub fn vars(&self, out: &mut Vec<u16>) {
        match self {
            PTerm::Var(v) => out.push(*v),
            PTerm::Const(_) => {}
            PTerm::Fn(_, args) => args.iter().for_each(|a| a.vars(out)),
        }
    }

    /// True when every variable of the term is bound in `bound`.
    pub fn ground_under(&self, bound: &[bool]) -> bool {
        match self {
            PTerm::Var(v) => bound[*v as usize],
            PTerm::Const(_) => true,
            PTerm::Fn(_, args) => args.iter().all(|a| a.ground_under(bound)),
        }
    }
}

/// An atom pattern.
#[derive(Clone, Debug)]
pub struct PAtom {
    /// The relation.
    pub rel: RelId,
    /// Argument patterns.
    pub args: Vec<PTerm>,
}

impl PAtom {
    /// Variable slots of the atom.
    pub fn vars(&self) -> Vec<u16> {
        let mut v = Vec::new();
        self.args.iter().for_each(|a| a.vars(&mut v));
        v
    }
}

/// A body literal pattern.
#[derive(Clone, Debug)]
pub enum PLit {
    /// Positive atom.
    Pos(PAtom),
    /// Negated atom.
    Neg(PAtom),
    /// The two terms differ.
    Distinct(PTerm, PTerm),
    /// The two terms are equal.
    Equal(PTerm, PTerm),
}

/// A rule ready for grounding.
#[derive(Clone, Debug)]
pub struct CRule {
    /// Head pattern.
    pub head: PAtom,
    /// Body literals in source order.
    pub body: Vec<PLit>,
    /// Variable names by slot (for error messages).
    pub var_names: Vec<Sym>,
    /// Source location of the rule (default for the built-in `true`/`does` rules).
    pub span: Span,
    /// True for the built-in rules `true(F) :- init(F)`, `true(F) :- next(F)`,
    /// `does(R, M) :- legal(R, M)` that only drive reachability.
    pub synthetic: bool,
}

/// The relation table: name and arity per [`RelId`].
#[derive(Clone, Debug, Default)]
pub struct Relations {
    keys: Vec<(Sym, u32)>,
    map: HashMap<(Sym, u32), RelId>,
}

impl Relations {
    /// The id of relation `name/arity`, adding it if new.
    pub fn intern(&mut self, name: Sym, arity: u32) -> RelId {
        *self.map.entry((name, arity)).or_insert_with(|| {
            self.keys.push((name, arity));
            RelId(self.keys.len() as u32 - 1)
        })
    }
    /// The id of `name/arity` if any rule mentions it.
    pub fn get(&self, name: Sym, arity: u32) -> Option<RelId> {
        self.map.get(&(name, arity)).copied()
    }
    /// Name and arity of a relation.
    pub fn key(&self, r: RelId) -> (Sym, u32) {
        self.keys[r.0 as usize]
    }
    /// Number of relations.
    pub fn len(&self) -> usize {
        self.keys.len()
    }
    /// True when there are no relations.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
    /// `name/arity` text.
    pub fn text(&self, syms: &Symbols, r: RelId) -> String {
        let (n, a) = self.key(r);
        format!("{}/{}", syms.name(n), a)
    }
}

/// The relations GDL gives a meaning to.
#[derive(Copy, Clone, Debug)]
pub struct Special {
    /// `true/1`.
    pub true_: RelId,
    /// `does/2`.
    pub does: RelId,
    /// `init/1`.
    pub init: RelId,
    /// `next/1`.
    pub next: RelId,
    /// `legal/2`.
    pub legal: RelId,
    /// `goal/2`.
    pub goal: RelId,
    /// `terminal/0`.
    pub terminal: RelId,
}

/// The lowered program with its relation analysis.
pub struct Lowered {
    /// Symbols of the program plus the GDL keywords.
    pub syms: Symbols,
    /// Relation table.
    pub rels: Relations,
    /// Special relations.
    pub special: Special,
    /// All rules, synthetic ones included.
    pub rules: Vec<CRule>,
    /// Per relation: true when it does not depend on `true` or `does`.
    pub is_static: Vec<bool>,
    /// Relations the outputs depend on, grouped in components, dependencies first.
    pub rel_sccs: Vec<Vec<RelId>>,
    /// Per relation: the rules with that head.
    pub rules_of: Vec<Vec<usize>>,
    /// Roles in the order of the `role` facts.
    pub roles: Vec<Sym>,
}

fn lower_term(t: &Term, vars: &mut Vec<Sym>) -> PTerm {
    match t {
        Term::Var(v) => {
            let slot = vars.iter().position(|x| x == v).unwrap_or_else(|| {
                vars.push(*v);
                vars.len() - 1
            });
            PTerm::Var(slot as u16)
        }
        Term::Const(c) => PTerm::Const(*c),
        Term::Fn(f, args) => PTerm::Fn(*f, args.iter().map(|a| lower_term(a, vars)).collect()),
    }
}

fn lower_atom(a: &Atom, rels: &mut Relations, vars: &mut Vec<Sym>) -> PAtom {
    PAtom {
        rel: rels.intern(a.rel, a.args.len() as u32),
        args: a.args.iter().map(|t| lower_term(t, vars)).collect(),
    }
}

/// Lowers the program, adds the synthetic reachability rules and classifies relations.
///
/// # Errors
/// [`GroundError::BadRule`] for a rule defining `true` or `does` or with more than 65535
/// variables; [`GroundError::Unstratified`] when a static relation depends negatively on
/// itself.
pub fn lower(p: &Program) -> Result<Lowered, GroundError> {
    let mut syms = p.symbols.clone();
    let mut rels = Relations::default();
    let kw = |s: &mut Symbols, n: &str| s.intern(n);
    let (t, d, i, n, l, g, term) = (
        kw(&mut syms, "true"),
        kw(&mut syms, "does"),
        kw(&mut syms, "init"),
        kw(&mut syms, "next"),
        kw(&mut syms, "legal"),
        kw(&mut syms, "goal"),
        kw(&mut syms, "terminal"),
    );
    let special = Special {
        true_: rels.intern(t, 1),
        does: rels.intern(d, 2),
        init: rels.intern(i, 1),
        next: rels.intern(n, 1),
        legal: rels.intern(l, 2),
        goal: rels.intern(g, 2),
        terminal: rels.intern(term, 0),
    };
    let mut rules = Vec::with_capacity(p.rules.len() + 3);
    for r in &p.rules {
        let mut vars = Vec::new();
        let head = lower_atom(&r.head, &mut rels, &mut vars);
        if head.rel == special.true_ || head.rel == special.does {
            return Err(GroundError::BadRule {
                span: r.span,
                message: format!("a rule may not define `{}`", p.symbols.atom_text(&r.head)),
            });
        }
        let body = r
            .body
            .iter()
            .map(|lit| match lit {
                Lit::Pos(a) => PLit::Pos(lower_atom(a, &mut rels, &mut vars)),
                Lit::Neg(a) => PLit::Neg(lower_atom(a, &mut rels, &mut vars)),
                Lit::Distinct(a, b) => {
                    PLit::Distinct(lower_term(a, &mut vars), lower_term(b, &mut vars))
                }
                Lit::Equal(a, b) => PLit::Equal(lower_term(a, &mut vars), lower_term(b, &mut vars)),
            })
            .collect();
        if vars.len() > u16::MAX as usize {
            return Err(GroundError::BadRule {
                span: r.span,
                message: "more than 65535 variables in one rule".into(),
            });
        }
        rules.push(CRule {
            head,
            body,
            var_names: vars,
            span: r.span,
            synthetic: false,
        });
    }
    let mut rules =
        super::split::split_rules(rules, [special.true_, special.does], &mut rels, &mut syms);
    let x = syms.intern("?x");
    let y = syms.intern("?y");
    let one = |from: RelId, to: RelId| CRule {
        head: PAtom {
            rel: to,
            args: vec![PTerm::Var(0)],
        },
        body: vec![PLit::Pos(PAtom {
            rel: from,
            args: vec![PTerm::Var(0)],
        })],
        var_names: vec![x],
        span: Span::default(),
        synthetic: true,
    };
    rules.push(one(special.init, special.true_));
    rules.push(one(special.next, special.true_));
    rules.push(CRule {
        head: PAtom {
            rel: special.does,
            args: vec![PTerm::Var(0), PTerm::Var(1)],
        },
        body: vec![PLit::Pos(PAtom {
            rel: special.legal,
            args: vec![PTerm::Var(0), PTerm::Var(1)],
        })],
        var_names: vec![x, y],
        span: Span::default(),
        synthetic: true,
    });

    // Relation dependency graph: head -> body relations.
    let nrel = rels.len();
    let mut rules_of = vec![Vec::new(); nrel];
    let mut edges = Vec::new();
    for (k, r) in rules.iter().enumerate() {
        rules_of[r.head.rel.0 as usize].push(k);
        for lit in &r.body {
            if let PLit::Pos(a) | PLit::Neg(a) = lit {
                edges.push((r.head.rel.0, a.rel.0));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    let graph = Graph::from_edges(nrel, &edges);
    let roots = [
        special.init,
        special.next,
        special.legal,
        special.goal,
        special.terminal,
        special.true_,
        special.does,
    ]
    .map(|r| r.0);
    let comps = sccs_from(&graph, roots);

    // Dynamic: depends on true/does. Components come dependencies first.
    let mut is_static = vec![true; nrel];
    is_static[special.true_.0 as usize] = false;
    is_static[special.does.0 as usize] = false;
    for comp in &comps {
        let dynamic = comp.iter().any(|&r| {
            !is_static[r as usize]
                || graph
                    .succ(r as usize)
                    .iter()
                    .any(|&s| !is_static[s as usize])
        });
        if dynamic {
            for &r in comp {
                is_static[r as usize] = false;
            }
        }
    }
    // Stratification of static relations: no negative edge inside a static component.
    let mut comp_of = vec![u32::MAX; nrel];
    for (ci, comp) in comps.iter().enumerate() {
        for &r in comp {
            comp_of[r as usize] = ci as u32;
        }
    }
    for r in &rules {
        let h = r.head.rel.0 as usize;
        if !is_static[h] {
            continue;
        }
        for lit in &r.body {
            if let PLit::Neg(a) = lit {
                if comp_of[a.rel.0 as usize] == comp_of[h] {
                    return Err(GroundError::Unstratified {
                        span: r.span,
                        message: format!(
                            "relation {} depends negatively on itself through {}",
                            rels.text(&syms, r.head.rel),
                            rels.text(&syms, a.rel)
                        ),
                    });
                }
            }
        }
    }
    if !is_static[special.init.0 as usize] {
        let span = rules_of[special.init.0 as usize]
            .first()
            .map(|&k| rules[k].span)
            .unwrap_or_default();
        return Err(GroundError::BadRule {
            span,
            message: "`init` depends on `true` or `does`".into(),
        });
    }
    let rel_sccs = comps
        .into_iter()
        .map(|c| c.into_iter().map(RelId).collect())
        .collect();
    Ok(Lowered {
        syms,
        rels,
        special,
        rules,
        is_static,
        rel_sccs,
        rules_of,
        roles: p.roles.clone(),
    })
}
