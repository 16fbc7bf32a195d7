//! Compiles a large static filter of a rule into a decision diagram, so the rule grounds
//! to gates per diagram edge instead of one conjunction per satisfying assignment.
//!
//! The shape (a 9×9 sudoku's row check): dynamic literals bind variables, and static
//! literals defined by rules test them together —
//! `(<= (goodRow ?i) (true (mark ?i 1 ?m1)) … (true (mark ?i 9 ?m9)) (exactlyOne 1 ?m1 … ?m9) … (exactlyOne 9 ?m1 … ?m9))`.
//! The relaxed grounder would join the nine `true` literals (9⁹ bindings) and keep the 9!
//! that pass, one conjunction each. Here the static literals are unfolded into clauses
//! over fact relations ([`unfold`]) and turned into a diagram over the variables in the
//! order the dynamic literals bind them ([`states`]): a state per residual check (for a
//! row, the set of digits used so far). The rule becomes a chain, one rule per level:
//!
//! ```text
//! (diagram#N.1 U1 q1)  :- P1, (diagram#N.1.edges G1 q1)
//! (diagram#N.k Uk qk)  :- (diagram#N.k-1 Uk-1 qk-1), Pk, (diagram#N.k.edges qk-1 Gk qk)
//! head                 :- (diagram#N.n Un), the rule's other literals
//! ```
//!
//! where `Pk` is the k-th dynamic literal that binds a new filter variable, `Gk` those
//! variables, `Uk` the variables bound so far that something later reads, and the
//! `edges` relations are the diagram's edges as static facts. Derivations correspond one
//! to one with the original rule's (a path of the diagram is a satisfying assignment), so
//! the atoms and the netlist's truth are the same; the gates are the diagram's, about
//! 2,300 per row of a sudoku instead of 9! conjunctions.
//!
//! Only filters that pay are rewritten ([`PAYS`]): the product of the variables' domains
//! at least 2²⁰ and the satisfying assignments at least 16 times the edges; every other
//! rule (every game of the corpus) is left as written.

mod chain;
mod states;
#[cfg(test)]
mod tests;
mod unfold;

use std::collections::{HashMap, HashSet};

use crate::gdl::{Atom, Lit, Program, RelKey, RelationInfo, Rule, Span, Sym, Term};
use states::{Diagram, Limits};
use unfold::{bit, Clause, Conj, Prim, Unfolder, Vars, T};

/// When a filter pays for a diagram.
#[derive(Clone, Copy, Debug)]
pub(super) struct Thresholds {
    /// Smallest product of the filter variables' domains.
    pub(super) min_product: f64,
    /// Satisfying assignments per diagram edge.
    pub(super) min_gain: f64,
}

/// The thresholds of every compilation: filters of at least 2²⁰ candidate assignments
/// with 16 satisfying ones per edge.
pub(super) const PAYS: Thresholds = Thresholds {
    min_product: (1u64 << 20) as f64,
    min_gain: 16.0,
};
/// Most filter variables of one rule (a bit of a [`unfold::Vars`] each).
const MAX_VARS: usize = 128;
/// Limits of one diagram.
const LIMITS: Limits = Limits {
    max_states: 200_000,
    max_edges: 1_000_000,
    max_tries: 20_000_000,
};

/// True for the name of a relation of a diagram's chain (`diagram#…`): its atoms are
/// computed forward from the first level, never on demand. (A game's own relation of such
/// a name is computed in full too: slower, never wrong.)
pub(super) fn is_chain(name: &str) -> bool {
    name.starts_with("diagram#")
}

/// What one rewritten rule became, for `compile --stats`.
#[derive(Clone, Debug, PartialEq)]
pub struct FilterDiagram {
    /// The rule's head relation, `name/arity`.
    pub head: String,
    /// The rule.
    pub span: Span,
    /// Levels of the diagram (dynamic literals binding filter variables).
    pub levels: usize,
    /// Its edges (facts of the `edges` relations).
    pub edges: usize,
    /// Assignments satisfying the filter (rule instances the rule would have had per
    /// binding of the other variables).
    pub paths: f64,
}

/// The program with every large static filter compiled to a diagram, and what was done;
/// `None` when no rule pays.
pub(super) fn run(program: &Program, pays: Thresholds) -> Option<(Program, Vec<FilterDiagram>)> {
    let info = RelationInfo::new(program);
    let mut unfolder = Unfolder::new(program, &info);
    let mut out: Option<Program> = None;
    let mut done = Vec::new();
    let mut rules = Vec::with_capacity(program.rules.len());
    for rule in &program.rules {
        let Some((filter, diagram)) = plan(rule, &info, &mut unfolder, pays) else {
            rules.push(rule.clone());
            continue;
        };
        let p = out.get_or_insert_with(|| program.clone());
        done.push(FilterDiagram {
            head: RelKey::of(&rule.head).text(&program.symbols),
            span: rule.span,
            levels: diagram.levels.len(),
            edges: diagram.edges(),
            paths: diagram.paths,
        });
        let tag = done.len();
        rules.extend(chain::rewrite(rule, &filter, &diagram, tag, &mut p.symbols));
    }
    let mut p = out?;
    p.rules = rules;
    Some((p, done))
}

/// The static literals of a rule chosen for a diagram, and the order of their variables.
struct Filter {
    /// Body positions of the unfolded static literals (left out of the rewritten rule).
    pub(super) lits: HashSet<usize>,
    /// Body positions of the dynamic literals that bind filter variables, in order: one
    /// level each.
    pub(super) binders: Vec<usize>,
    /// The filter variables each of those binds first.
    pub(super) groups: Vec<Vec<Sym>>,
    /// Per body position: a positive literal of a dynamic relation.
    pub(super) dynamic: Vec<bool>,
}

/// The filter of `rule` and its diagram, when one pays.
fn plan(
    rule: &Rule,
    info: &RelationInfo,
    unfolder: &mut Unfolder<'_>,
    pays: Thresholds,
) -> Option<(Filter, Diagram)> {
    let dynamic = |a: &Atom| {
        info.id_of(RelKey::of(a))
            .is_some_and(|id| !info.is_static(id))
    };
    let binder_vars: HashSet<Sym> = rule
        .body
        .iter()
        .filter_map(|l| match l {
            Lit::Pos(a) if dynamic(a) => Some(a),
            _ => None,
        })
        .flat_map(|a| vars_of(&a.args))
        .collect();
    let candidates: Vec<usize> = (0..rule.body.len())
        .filter(|&i| match &rule.body[i] {
            Lit::Pos(a) => {
                unfolder.unfoldable(RelKey::of(a))
                    && vars_of(&a.args).iter().all(|v| binder_vars.contains(v))
            }
            _ => false,
        })
        .collect();
    if candidates.is_empty() {
        return None;
    }
    // Unfold once to learn which literals can be; then number the variables of those.
    let order = order_of(rule, &candidates, &dynamic)?;
    let kept: Vec<usize> = candidates
        .into_iter()
        .filter(|&i| unfold_lit(&rule.body[i], &order.index, unfolder).is_some())
        .collect();
    if kept.is_empty() {
        return None;
    }
    let order = order_of(rule, &kept, &dynamic)?;
    let mut literals: Vec<Vec<Clause>> = Vec::new();
    for &i in &kept {
        literals.extend(unfold_lit(&rule.body[i], &order.index, unfolder)?);
    }
    let domains = domains(&literals, order.index.len(), &unfolder.tables)?;
    let product: f64 = domains.iter().map(|d| d.len() as f64).product();
    if product < pays.min_product {
        return None;
    }
    let groups: Vec<Vec<u16>> = order
        .groups
        .iter()
        .map(|g| g.iter().map(|v| order.index[v]).collect())
        .collect();
    let diagram = states::build(&literals, &groups, &domains, &unfolder.tables, LIMITS)?;
    if diagram.paths < pays.min_gain * diagram.edges() as f64 || diagram.edges() == 0 {
        return None;
    }
    let filter = Filter {
        lits: kept.into_iter().collect(),
        binders: order.binders,
        groups: order.groups,
        dynamic: rule
            .body
            .iter()
            .map(|l| matches!(l, Lit::Pos(a) if dynamic(a)))
            .collect(),
    };
    Some((filter, diagram))
}

/// Filter variables numbered in the order the dynamic literals bind them.
struct Order {
    index: HashMap<Sym, u16>,
    binders: Vec<usize>,
    groups: Vec<Vec<Sym>>,
}

/// The order of the variables of the body literals `lits`: by the first dynamic literal
/// binding each (in body order), then by position in it. `None` past [`MAX_VARS`].
fn order_of(rule: &Rule, lits: &[usize], dynamic: &dyn Fn(&Atom) -> bool) -> Option<Order> {
    let wanted: HashSet<Sym> = lits
        .iter()
        .flat_map(|&i| match &rule.body[i] {
            Lit::Pos(a) => vars_of(&a.args),
            _ => Vec::new(),
        })
        .collect();
    let mut order = Order {
        index: HashMap::new(),
        binders: Vec::new(),
        groups: Vec::new(),
    };
    for (i, l) in rule.body.iter().enumerate() {
        let Lit::Pos(a) = l else { continue };
        if !dynamic(a) {
            continue;
        }
        let mut group = Vec::new();
        for v in vars_of(&a.args) {
            if wanted.contains(&v) && !order.index.contains_key(&v) {
                order.index.insert(v, order.index.len() as u16);
                group.push(v);
            }
        }
        if !group.is_empty() {
            order.binders.push(i);
            order.groups.push(group);
        }
    }
    (order.index.len() <= MAX_VARS && order.index.len() == wanted.len()).then_some(order)
}

/// Body literal `lit` unfolded, its variables numbered by `index`.
fn unfold_lit(lit: &Lit, index: &HashMap<Sym, u16>, unfolder: &mut Unfolder<'_>) -> Option<Conj> {
    let Lit::Pos(a) = lit else { return None };
    let args: Vec<T> = a
        .args
        .iter()
        .map(|t| numbered(t, index))
        .collect::<Option<_>>()?;
    unfolder.unfold(RelKey::of(a), &args, 0)
}

/// `t` with its variables replaced by their numbers.
fn numbered(t: &Term, index: &HashMap<Sym, u16>) -> Option<T> {
    Some(match t {
        Term::Var(v) => T::V(*index.get(v)?),
        Term::Const(c) => T::C(*c),
        Term::Fn(f, a) => T::F(
            *f,
            a.iter()
                .map(|t| numbered(t, index))
                .collect::<Option<_>>()?,
        ),
    })
}

/// A superset of the values each filter variable can take in a satisfying assignment.
/// A literal bounds a variable when each of its clauses does: through a positive fact
/// test with the variable as an argument, an equality with a constant, or an equality
/// with a variable the clause bounds; its values are the union over the clauses. A
/// variable's domain is the intersection over the literals that bound it. `None` when no
/// literal bounds some variable (it could take any value).
fn domains(
    literals: &[Vec<Clause>],
    n: usize,
    tables: &[unfold::FactTable],
) -> Option<Vec<Vec<T>>> {
    let mut dom: Vec<Option<Vec<T>>> = vec![None; n];
    for clauses in literals {
        let mut union: Vec<Vec<T>> = vec![Vec::new(); n];
        let mut bounded = Vars::MAX >> (128 - n.max(1));
        for clause in clauses {
            let (covered, values) = clause_values(clause, n, tables);
            bounded &= covered;
            for (u, v) in union.iter_mut().zip(values) {
                u.extend(v);
            }
        }
        if clauses.is_empty() {
            continue;
        }
        for (x, mut values) in union.into_iter().enumerate() {
            if bounded & bit(x as u16) == 0 {
                continue;
            }
            values.sort();
            values.dedup();
            dom[x] = Some(match dom[x].take() {
                None => values,
                Some(d) => d
                    .into_iter()
                    .filter(|t| values.binary_search(t).is_ok())
                    .collect(),
            });
        }
    }
    dom.into_iter().collect()
}

/// The variables one clause bounds (a mask) and the values it allows each of them.
fn clause_values(clause: &Clause, n: usize, tables: &[unfold::FactTable]) -> (Vars, Vec<Vec<T>>) {
    let mut values: Vec<Vec<T>> = vec![Vec::new(); n];
    let mut covered: Vars = 0;
    let mut links = Vec::new();
    for p in clause {
        match p {
            Prim::Fact {
                table,
                neg: false,
                args,
            } => {
                for (k, a) in args.iter().enumerate() {
                    if let T::V(v) = a {
                        covered |= bit(*v);
                        let facts = &tables[*table as usize].list;
                        values[*v as usize].extend(facts.iter().map(|f| f[k].clone()));
                    }
                }
            }
            Prim::Equal(T::V(v), g) | Prim::Equal(g, T::V(v)) if g.is_ground() => {
                covered |= bit(*v);
                values[*v as usize].push(g.clone());
            }
            Prim::Equal(T::V(a), T::V(b)) => links.push((*a as usize, *b as usize)),
            _ => {}
        }
    }
    // Values flow along the clause's equalities (at most one round per link).
    for _ in 0..links.len() {
        for &(a, b) in &links {
            for (x, y) in [(a, b), (b, a)] {
                if covered & bit(y as u16) != 0 {
                    let from = values[y].clone();
                    values[x].extend(from);
                    covered |= bit(x as u16);
                }
            }
        }
    }
    (covered, values)
}

/// The variables of `terms`, in order of first occurrence.
pub(super) fn vars_of(terms: &[Term]) -> Vec<Sym> {
    fn walk(t: &Term, out: &mut Vec<Sym>) {
        match t {
            Term::Var(v) if !out.contains(v) => out.push(*v),
            Term::Var(_) | Term::Const(_) => {}
            Term::Fn(_, a) => a.iter().for_each(|t| walk(t, out)),
        }
    }
    let mut out = Vec::new();
    terms.iter().for_each(|t| walk(t, &mut out));
    out
}

/// The variables of a literal.
pub(super) fn lit_vars(l: &Lit) -> Vec<Sym> {
    match l {
        Lit::Pos(a) | Lit::Neg(a) => vars_of(&a.args),
        Lit::Distinct(a, b) | Lit::Equal(a, b) => vars_of(&[a.clone(), b.clone()]),
    }
}
