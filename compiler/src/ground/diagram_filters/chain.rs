//! Writes the chain of rules that replaces a rule with a diagram filter: one rule per
//! level, the diagram's edges as facts, and the rule's own head at the end.
//!
//! The rule's other literals go where they cost least: a static positive one (a fact
//! lookup such as `(succ ?i ?i2)`) into the first level that binds one of its variables,
//! so it binds the rest early instead of being carried as a product; a negative one,
//! `distinct` or an equality into the first level where its variables are bound; a dynamic
//! positive one that binds no filter variable into the last rule. Each level's head carries
//! only the variables some later literal or the head reads.

use std::collections::HashSet;

use super::states::Diagram;
use super::unfold::T;
use super::{lit_vars, vars_of, Filter};
use crate::gdl::{Atom, Lit, Rule, Sym, Symbols, Term};

/// The chain of rules and the edge facts that replace `rule`; its relations are named
/// `diagram#TAG.K` (level K's atoms) and `diagram#TAG.K.edges` (its edges), TAG the
/// first from `tag` on whose names the game does not use.
pub(super) fn rewrite(
    rule: &Rule,
    filter: &Filter,
    diagram: &Diagram,
    tag: usize,
    symbols: &mut Symbols,
) -> Vec<Rule> {
    let n = filter.binders.len();
    let (extras, last) = place(rule, filter);
    // The variables read after level k (later levels, the last rule, the head).
    let mut read_after: Vec<HashSet<Sym>> = vec![HashSet::new(); n];
    let mut later: HashSet<Sym> = vars_of(&rule.head.args).into_iter().collect();
    last.iter().for_each(|l| later.extend(lit_vars(l)));
    for k in (0..n).rev() {
        read_after[k] = later.clone();
        later.extend(lit_vars(&rule.body[filter.binders[k]]));
        extras[k].iter().for_each(|l| later.extend(lit_vars(l)));
    }
    // KIF can spell `#` too: every name made here is one the game does not use.
    let tag = (tag..)
        .find(|t| {
            (1..=n).all(|k| {
                let level = format!("diagram#{t}.{k}");
                symbols.get(&level).is_none() && symbols.get(&format!("{level}.edges")).is_none()
            })
        })
        .expect("a free tag");
    let q_in = Term::Var(symbols.fresh("?diagram#from"));
    let q_out = Term::Var(symbols.fresh("?diagram#to"));
    let mut out = Vec::new();
    let mut bound: Vec<Sym> = Vec::new();
    let mut prev: Option<Atom> = None;
    for k in 0..n {
        let binder = &rule.body[filter.binders[k]];
        for l in std::iter::once(binder).chain(&extras[k]) {
            for v in lit_vars(l) {
                if !bound.contains(&v) {
                    bound.push(v);
                }
            }
        }
        let is_last = k + 1 == n;
        let mut step_args: Vec<Term> = bound
            .iter()
            .filter(|v| read_after[k].contains(v))
            .map(|v| Term::Var(*v))
            .collect();
        let edges_rel = symbols.intern(&format!("diagram#{tag}.{}.edges", k + 1));
        let mut edge_args: Vec<Term> = Vec::new();
        if k > 0 {
            edge_args.push(q_in.clone());
        }
        edge_args.extend(filter.groups[k].iter().map(|v| Term::Var(*v)));
        if !is_last {
            edge_args.push(q_out.clone());
            step_args.push(q_out.clone());
        }
        let head = Atom {
            rel: symbols.intern(&format!("diagram#{tag}.{}", k + 1)),
            args: step_args,
        };
        let mut body = Vec::new();
        if let Some(p) = prev.take() {
            let mut a = p;
            *a.args.last_mut().expect("a state argument") = q_in.clone();
            body.push(Lit::Pos(a));
        }
        body.push(binder.clone());
        body.extend(extras[k].iter().cloned());
        body.push(Lit::Pos(Atom {
            rel: edges_rel,
            args: edge_args,
        }));
        out.push(Rule {
            head: head.clone(),
            body,
            span: rule.span,
        });
        out.extend(diagram.levels[k].iter().map(|e| {
            let mut args = Vec::new();
            if k > 0 {
                args.push(state(symbols, e.from));
            }
            args.extend(e.values.iter().map(T::to_term));
            if !is_last {
                args.push(state(symbols, e.to));
            }
            Rule {
                head: Atom {
                    rel: edges_rel,
                    args,
                },
                body: Vec::new(),
                span: rule.span,
            }
        }));
        prev = Some(head);
    }
    let mut body = vec![Lit::Pos(prev.expect("at least one level"))];
    body.extend(last);
    out.push(Rule {
        head: rule.head.clone(),
        body,
        span: rule.span,
    });
    out
}

/// The constant naming diagram state `k` (only ever in the state arguments of the
/// chain's own relations, so it cannot meet a constant of the game's).
fn state(symbols: &mut Symbols, k: u32) -> Term {
    Term::Const(symbols.intern(&format!("#{k}")))
}

/// The rule's literals other than the filter and the binders: those each level takes, and
/// those left for the last rule.
fn place(rule: &Rule, filter: &Filter) -> (Vec<Vec<Lit>>, Vec<Lit>) {
    let n = filter.binders.len();
    let mut rest: Vec<usize> = (0..rule.body.len())
        .filter(|i| !filter.lits.contains(i) && !filter.binders.contains(i))
        .collect();
    let mut extras = vec![Vec::new(); n];
    let mut bound: HashSet<Sym> = HashSet::new();
    for (k, extra) in extras.iter_mut().enumerate() {
        bound.extend(lit_vars(&rule.body[filter.binders[k]]));
        loop {
            let before = rest.len();
            rest.retain(|&i| {
                let l = &rule.body[i];
                let vars = lit_vars(l);
                let takes = match l {
                    Lit::Pos(_) if filter.dynamic[i] => false,
                    Lit::Pos(_) => vars.iter().any(|v| bound.contains(v)),
                    _ => vars.iter().all(|v| bound.contains(v)),
                };
                if takes {
                    bound.extend(vars);
                    extra.push(l.clone());
                }
                !takes
            });
            if rest.len() == before {
                break;
            }
        }
    }
    let last = rest.into_iter().map(|i| rule.body[i].clone()).collect();
    (extras, last)
}
