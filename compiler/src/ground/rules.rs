//! Lowers GDL rules to grounding patterns (variables as numbered slots, relations as
//! [`RelId`]s), splits rule bodies ([`super::split`]), adds the reachability rules of
//! `true`/`does` and the demand rules ([`super::demand`]), and classifies relations.

use super::explore::Guards;
use super::GroundError;
use crate::gdl::{Atom, Lit, Program, RelId, Span, Sym, Symbols, Term};
use crate::graph::{sccs_from, Graph};
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

    /// Nesting depth (0 for a variable or a constant), as [`crate::terms::Terms::depth`]
    /// counts it for ground terms.
    pub fn depth(&self) -> u32 {
        match self {
            PTerm::Var(_) | PTerm::Const(_) => 0,
            PTerm::Fn(_, args) => 1 + args.iter().map(PTerm::depth).max().unwrap_or(0),
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PAtom {
    /// The relation.
    pub rel: RelId,
    /// Argument patterns.
    pub args: Vec<PTerm>,
}

impl PAtom {
    /// Variable slots of the atom (with repeats).
    pub fn vars(&self) -> Vec<u16> {
        let mut v = Vec::new();
        self.args.iter().for_each(|a| a.vars(&mut v));
        v
    }
}

/// A body literal pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
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

impl PLit {
    /// The atom of a positive or negative literal.
    pub fn atom(&self) -> Option<&PAtom> {
        match self {
            PLit::Pos(a) | PLit::Neg(a) => Some(a),
            PLit::Distinct(..) | PLit::Equal(..) => None,
        }
    }

    /// The variable slots of the literal, sorted, without repeats.
    pub fn vars(&self) -> Vec<u16> {
        let mut v = Vec::new();
        match self {
            PLit::Pos(a) | PLit::Neg(a) => a.args.iter().for_each(|t| t.vars(&mut v)),
            PLit::Distinct(a, b) | PLit::Equal(a, b) => {
                a.vars(&mut v);
                b.vars(&mut v);
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    }
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

/// How a relation is grounded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RelKind {
    /// Independent of `true`/`does`, computed exactly in full before the dynamic
    /// relations ("materialized"); its atoms are compile-time constants.
    Static,
    /// Static, but too large (or infinite) to compute in full: evaluated exactly per call
    /// pattern, only for the bound arguments the rules actually call it with
    /// ([`super::statics`]).
    OnDemand,
    /// Depends on `true` or `does`: its reachable atoms become gates.
    Dynamic,
    /// A demand relation ([`super::demand`]): which atoms of a dynamic relation the rules
    /// ask for. Computed with the reachable atoms, never a gate.
    Demand,
}

impl RelKind {
    /// Independent of the state (computed exactly at compile time).
    pub fn is_static(self) -> bool {
        matches!(self, RelKind::Static | RelKind::OnDemand)
    }
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
    /// Name and arity of a relation.
    pub fn key(&self, r: RelId) -> (Sym, u32) {
        self.keys[r.0 as usize]
    }
    /// Number of arguments of a relation.
    pub fn arity(&self, r: RelId) -> usize {
        self.keys[r.0 as usize].1 as usize
    }
    /// Number of relations.
    pub fn len(&self) -> usize {
        self.keys.len()
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
    /// `sees/2` (GDL-II percepts; no atoms in a GDL-I game).
    pub sees: RelId,
}

impl Special {
    /// The relations every netlist needs in full: the outputs and the state.
    pub fn roots(&self) -> [RelId; 8] {
        [
            self.sees,
            self.init,
            self.next,
            self.legal,
            self.goal,
            self.terminal,
            self.true_,
            self.does,
        ]
    }
}

/// The lowered program with its relation analysis.
pub struct Lowered {
    /// Symbols of the program plus the GDL keywords.
    pub syms: Symbols,
    /// Relation table.
    pub rels: Relations,
    /// Special relations.
    pub special: Special,
    /// All rules, synthetic and demand rules included.
    pub rules: Vec<CRule>,
    /// Per relation: how it is grounded ([`RelKind::OnDemand`] is decided later, by
    /// [`super::statics`]; here every static relation is [`RelKind::Static`]).
    pub kind: Vec<RelKind>,
    /// Relations the outputs depend on, grouped in components, dependencies first.
    pub rel_sccs: Vec<Vec<RelId>>,
    /// Per relation: the rules with that head.
    pub rules_of: Vec<Vec<usize>>,
    /// Per relation: its demand relation, when the rules only ever ask for some of its
    /// atoms ([`super::demand`]).
    pub demand_of: Vec<Option<RelId>>,
    /// Roles in the order of the `role` facts.
    pub roles: Vec<Sym>,
    /// The game is GDL-II ([`Program::gdl2`]): its netlist says so and has percepts.
    pub gdl2: bool,
    /// The deepest term the rules and facts can derive as written (heads and `=`): a
    /// ground term deeper than that was built by binding a variable to a function term.
    pub written_depth: u32,
}

/// The variables of one rule in order of first occurrence, with each one's slot (a map,
/// so that lowering a rule of many variables stays linear in its size).
#[derive(Default)]
struct RuleVars {
    order: Vec<Sym>,
    slots: HashMap<Sym, usize>,
}

impl RuleVars {
    /// The slot of `v`, a new one at its first occurrence.
    fn slot(&mut self, v: Sym) -> usize {
        *self.slots.entry(v).or_insert_with(|| {
            self.order.push(v);
            self.order.len() - 1
        })
    }

    fn len(&self) -> usize {
        self.order.len()
    }
}

fn lower_term(t: &Term, vars: &mut RuleVars) -> PTerm {
    match t {
        Term::Var(v) => {
            // a rule of more than u16::MAX variables is rejected once lowered
            let slot = vars.slot(*v);
            PTerm::Var(u16::try_from(slot).unwrap_or(u16::MAX))
        }
        Term::Const(c) => PTerm::Const(*c),
        Term::Fn(f, args) => PTerm::Fn(*f, args.iter().map(|a| lower_term(a, vars)).collect()),
    }
}

fn lower_atom(a: &Atom, rels: &mut Relations, vars: &mut RuleVars) -> PAtom {
    PAtom {
        rel: rels.intern(a.rel, a.args.len() as u32),
        args: a.args.iter().map(|t| lower_term(t, vars)).collect(),
    }
}

/// Interns the GDL keywords and their relations.
fn special_relations(syms: &mut Symbols, rels: &mut Relations) -> Special {
    let mut rel = |name: &str, arity: u32| rels.intern(syms.intern(name), arity);
    Special {
        true_: rel("true", 1),
        does: rel("does", 2),
        init: rel("init", 1),
        next: rel("next", 1),
        legal: rel("legal", 2),
        goal: rel("goal", 2),
        terminal: rel("terminal", 0),
        sees: rel("sees", 2),
    }
}

/// Lowers every rule of the program.
fn lower_rules(
    p: &Program,
    rels: &mut Relations,
    special: Special,
) -> Result<Vec<CRule>, GroundError> {
    let mut rules = Vec::with_capacity(p.rules.len() + 3);
    for r in &p.rules {
        let mut vars = RuleVars::default();
        let head = lower_atom(&r.head, rels, &mut vars);
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
                Lit::Pos(a) => PLit::Pos(lower_atom(a, rels, &mut vars)),
                Lit::Neg(a) => PLit::Neg(lower_atom(a, rels, &mut vars)),
                Lit::Distinct(a, b) => {
                    PLit::Distinct(lower_term(a, &mut vars), lower_term(b, &mut vars))
                }
                Lit::Equal(a, b) => PLit::Equal(lower_term(a, &mut vars), lower_term(b, &mut vars)),
            })
            .collect();
        if vars.len() > crate::gdl::MAX_RULE_VARIABLES {
            return Err(GroundError::BadRule {
                span: r.span,
                message: format!(
                    "{} variables in one rule, more than the {} a rule may have; split the rule (move part of its body into a helper relation)",
                    vars.len(),
                    crate::gdl::MAX_RULE_VARIABLES
                ),
            });
        }
        rules.push(CRule {
            head,
            body,
            var_names: vars.order,
            span: r.span,
            synthetic: false,
        });
    }
    Ok(rules)
}

/// The built-in rules `true(F) :- init(F)`, `true(F) :- next(F)`, `does(R, M) :-
/// legal(R, M)`, which make the relaxed fixpoint compute the reachable states and moves.
/// With `guards` (the states found by [`super::explore`]) each also requires its atom to
/// be one of those found: `true(F) :- next(F), reached(true)(F)`.
fn reachability_rules(
    special: Special,
    syms: &mut Symbols,
    guards: Option<(RelId, RelId)>,
) -> [CRule; 3] {
    let x = syms.intern("?x");
    let y = syms.intern("?y");
    let copy = |from: RelId, to: RelId, arity: u16, guard: Option<RelId>| {
        let args: Vec<PTerm> = (0..arity).map(PTerm::Var).collect();
        let mut body = vec![PLit::Pos(PAtom {
            rel: from,
            args: args.clone(),
        })];
        if let Some(rel) = guard {
            body.push(PLit::Pos(PAtom {
                rel,
                args: args.clone(),
            }));
        }
        CRule {
            head: PAtom { rel: to, args },
            body,
            var_names: [x, y][..arity as usize].to_vec(),
            span: Span::default(),
            synthetic: true,
        }
    };
    let (fluent, moves) = (guards.map(|g| g.0), guards.map(|g| g.1));
    [
        copy(special.init, special.true_, 1, fluent),
        copy(special.next, special.true_, 1, fluent),
        copy(special.legal, special.does, 2, moves),
    ]
}

/// Per relation: true when it is `true`, `does` or depends on one of them.
pub(super) fn dynamic_relations(rules: &[CRule], nrels: usize, special: Special) -> Vec<bool> {
    let mut dynamic = vec![false; nrels];
    dynamic[special.true_.0 as usize] = true;
    dynamic[special.does.0 as usize] = true;
    close_dynamic(rules, &mut dynamic);
    dynamic
}

/// Marks in `dynamic` (one flag per relation) every relation with a rule whose body reads
/// (positively or negatively) a marked one, until nothing changes. Propagated along
/// "read by" edges from the marked relations: O(rules + literals), where a pass over the
/// rules per change took a chain of 20,000 rules written head first 20,000 passes.
pub(super) fn close_dynamic(rules: &[CRule], dynamic: &mut [bool]) {
    let mut readers: Vec<Vec<u32>> = vec![Vec::new(); dynamic.len()];
    for (k, r) in rules.iter().enumerate() {
        for a in r.body.iter().filter_map(PLit::atom) {
            if let Some(list) = readers.get_mut(a.rel.0 as usize) {
                list.push(k as u32);
            }
        }
    }
    let mut work: Vec<usize> = (0..dynamic.len()).filter(|&r| dynamic[r]).collect();
    while let Some(rel) = work.pop() {
        for &k in &readers[rel] {
            let h = rules[k as usize].head.rel.0 as usize;
            if !dynamic[h] {
                dynamic[h] = true;
                work.push(h);
            }
        }
    }
}

/// The relation dependency graph (head → body relations) and the rules of each relation.
fn dependency_graph(rules: &[CRule], nrels: usize) -> (Graph, Vec<Vec<usize>>) {
    let mut rules_of = vec![Vec::new(); nrels];
    let mut edges = Vec::new();
    for (k, r) in rules.iter().enumerate() {
        rules_of[r.head.rel.0 as usize].push(k);
        for a in r.body.iter().filter_map(PLit::atom) {
            edges.push((r.head.rel.0, a.rel.0));
        }
    }
    edges.sort_unstable();
    edges.dedup();
    (Graph::from_edges(nrels, &edges), rules_of)
}

/// Static relations must be stratified: no negative edge inside a static component (of
/// the relations the roots reach; `comps` holds only those).
fn check_stratified(
    rules: &[CRule],
    comps: &[Vec<u32>],
    kind: &[RelKind],
    rels: &Relations,
    syms: &Symbols,
) -> Result<(), GroundError> {
    let mut comp_of = vec![u32::MAX; kind.len()];
    for (ci, comp) in comps.iter().enumerate() {
        for &r in comp {
            comp_of[r as usize] = ci as u32;
        }
    }
    for r in rules {
        let h = r.head.rel.0 as usize;
        // A relation no root reaches is in no component: never grounded, nothing to check.
        if !kind[h].is_static() || comp_of[h] == u32::MAX {
            continue;
        }
        for lit in &r.body {
            if let PLit::Neg(a) = lit {
                if comp_of[a.rel.0 as usize] == comp_of[h] {
                    return Err(GroundError::Unstratified {
                        span: r.span,
                        message: format!(
                            "relation {} depends negatively on itself through {}",
                            rels.text(syms, r.head.rel),
                            rels.text(syms, a.rel)
                        ),
                    });
                }
            }
        }
    }
    Ok(())
}

/// With `PROPNET_GROUND_RULES=name` set, prints the lowered rules that define or use
/// relation `name` to stderr (a development aid).
fn trace_rules(rules: &[CRule], rels: &Relations, syms: &Symbols) {
    let Ok(name) = std::env::var("PROPNET_GROUND_RULES") else {
        return;
    };
    let named = |r: RelId| syms.name(rels.key(r).0) == name;
    let text = |a: &PAtom| format!("{}{:?}", rels.text(syms, a.rel), a.args);
    for r in rules {
        if named(r.head.rel) || r.body.iter().filter_map(PLit::atom).any(|a| named(a.rel)) {
            let body: Vec<String> = r
                .body
                .iter()
                .map(|l| match l {
                    PLit::Pos(a) => text(a),
                    PLit::Neg(a) => format!("not {}", text(a)),
                    other => format!("{other:?}"),
                })
                .collect();
            eprintln!("{} :- {}", text(&r.head), body.join(", "));
        }
    }
}

/// Lowers the program, splits rule bodies, adds the reachability and demand rules and
/// classifies relations.
///
/// # Errors
/// [`GroundError::BadRule`] for a rule defining `true` or `does`, with more than 65535
/// variables, or an `init` that depends on the state; [`GroundError::Unstratified`] when
/// a static relation depends negatively on itself.
pub fn lower(p: &Program, guards: Option<Guards>) -> Result<Lowered, GroundError> {
    let mut syms = p.symbols.clone();
    let mut rels = Relations::default();
    let special = special_relations(&mut syms, &mut rels);
    let guards = guards.map(|g| (rels.intern(g.fluent, 1), rels.intern(g.moves, 2)));
    let mut rules = lower_rules(p, &mut rels, special)?;
    super::persistent::rewrite(&mut rules, special);
    let mut roots = vec![false; rels.len()];
    roots[special.true_.0 as usize] = true;
    roots[special.does.0 as usize] = true;
    let reach = reachability_rules(special, &mut syms, guards);
    let mut domains = super::domains::Domains::analyse(rules.iter().chain(&reach));
    let mut rules = super::split::split_rules(rules, roots, &mut domains, &mut rels, &mut syms);
    rules.extend(reach);
    let dynamic = dynamic_relations(&rules, rels.len(), special);
    let demand = super::demand::add_demand(&mut rules, &dynamic, special, &mut rels, &mut syms);
    let nrels = rels.len();
    let mut kind: Vec<RelKind> = (0..nrels)
        .map(|r| match dynamic.get(r) {
            Some(true) => RelKind::Dynamic,
            Some(false) => RelKind::Static,
            None => RelKind::Demand,
        })
        .collect();
    // A demand relation that depends on no state is static: computed exactly.
    let dynamic = dynamic_relations(&rules, nrels, special);
    for (r, k) in kind.iter_mut().enumerate() {
        if *k == RelKind::Demand && !dynamic[r] {
            *k = RelKind::Static;
        }
    }
    let (graph, rules_of) = dependency_graph(&rules, nrels);
    let comps = sccs_from(&graph, special.roots().map(|r| r.0));
    check_stratified(&rules, &comps, &kind, &rels, &syms)?;
    if kind[special.init.0 as usize] != RelKind::Static {
        let span = rules_of[special.init.0 as usize]
            .first()
            .map(|&k| rules[k].span)
            .unwrap_or_default();
        return Err(GroundError::BadRule {
            span,
            message: "`init` depends on `true` or `does`".into(),
        });
    }
    trace_rules(&rules, &rels, &syms);
    let mut demand_of = vec![None; nrels];
    for (rel, m) in demand {
        demand_of[rel.0 as usize] = Some(m);
    }
    let written_depth = written_depth(&rules);
    Ok(Lowered {
        syms,
        rels,
        special,
        rules,
        kind,
        rel_sccs: comps
            .into_iter()
            .map(|c| c.into_iter().map(RelId).collect())
            .collect(),
        rules_of,
        demand_of,
        roles: p.roles.clone(),
        gdl2: p.gdl2,
        written_depth,
    })
}

/// The deepest term a rule can put into a derived atom: those of heads (facts included) and
/// of `=` literals, which may bind a variable. Terms only tested in bodies do not count.
fn written_depth(rules: &[CRule]) -> u32 {
    let atom = |a: &PAtom| a.args.iter().map(PTerm::depth).max().unwrap_or(0);
    let lit = |l: &PLit| match l {
        PLit::Equal(x, y) => x.depth().max(y.depth()),
        PLit::Pos(_) | PLit::Neg(_) | PLit::Distinct(..) => 0,
    };
    (rules.iter())
        .map(|r| atom(&r.head).max(r.body.iter().map(lit).max().unwrap_or(0)))
        .max()
        .unwrap_or(0)
}
