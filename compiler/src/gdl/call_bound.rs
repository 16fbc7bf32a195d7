//! GDL-II dialect: helper rules whose unsafe variables every call binds.
//!
//! Public GDL-II games (ii_meier's `(<= (sort ?x ?y ?y ?x) (not (gteq ?x ?y)))`,
//! BattleshipsFog's `should_see_ghost`) have rules with a head variable bound by no
//! positive literal, which Prolog-based controllers evaluate top-down: the caller binds
//! it. When every call of the relation (positive or negated, in any rule) binds such a
//! variable through a head argument, the rule is read as those controllers read it: a
//! call relation collects the bindings of the calls (a rule per call, whose body is the
//! caller's positive literals before the call, the ones Prolog has run when it calls), and
//! the rule gets the call relation as a positive literal (the "magic sets" rewrite of
//! Bancilhon et al., PODS 1986, for this one rule). Anything else stays unsafe.

use std::collections::BTreeSet;

use super::ast::{Atom, Lit, Program, Rule, Sym, Term};
use super::error::Diagnostic;
use crate::kif::{quote, SourceFile};

/// Relations queried from outside the rules, whose calls the rules cannot show.
const KEYWORDS: [&str; 9] = [
    "role", "init", "next", "legal", "goal", "terminal", "sees", "base", "input",
];

fn vars_of(t: &Term, out: &mut BTreeSet<Sym>) {
    match t {
        Term::Var(v) => {
            out.insert(*v);
        }
        Term::Const(_) => {}
        Term::Fn(_, args) => args.iter().for_each(|a| vars_of(a, out)),
    }
}

fn atom_vars(a: &Atom, out: &mut BTreeSet<Sym>) {
    a.args.iter().for_each(|t| vars_of(t, out));
}

/// The variables of `rule` that no positive literal binds but the head, a `not` or a
/// `distinct`/equality needs (variables only in negated literals excepted).
fn unsafe_vars(rule: &Rule) -> BTreeSet<Sym> {
    let mut bound = BTreeSet::new();
    let mut used = BTreeSet::new();
    atom_vars(&rule.head, &mut used);
    for l in &rule.body {
        match l {
            Lit::Pos(a) => atom_vars(a, &mut bound),
            Lit::Neg(a) => atom_vars(a, &mut used),
            Lit::Distinct(x, y) | Lit::Equal(x, y) => {
                vars_of(x, &mut used);
                vars_of(y, &mut used);
            }
        }
    }
    let local: BTreeSet<Sym> = super::gdl2::negation_local(rule).into_iter().collect();
    used.retain(|v| !bound.contains(v) && !local.contains(v));
    used
}

/// A call of a relation: the rule, the literal and the variables bound when it runs.
struct Call<'a> {
    rule: &'a Rule,
    atom: &'a Atom,
    prefix: Vec<Atom>,
    bound: BTreeSet<Sym>,
}

/// `(role ?r)` when `rule` is a `legal`/`sees`/`goal` rule whose role argument is the
/// variable `?r`: the role being asked binds it before the body runs.
fn asked_role(program: &Program, rule: &Rule) -> Option<Atom> {
    let name = program.symbols.name(rule.head.rel);
    match (name, rule.head.args.first()) {
        ("legal" | "sees" | "goal", Some(Term::Var(v))) if rule.head.args.len() == 2 => {
            Some(Atom {
                rel: program.symbols.get("role")?,
                args: vec![Term::Var(*v)],
            })
        }
        _ => None,
    }
}

/// Every literal of `name/arity` in a rule body, with what is bound when it is called.
fn calls<'a>(program: &'a Program, rel: Sym, arity: usize) -> Vec<Call<'a>> {
    let mut out = Vec::new();
    for rule in &program.rules {
        let asked = asked_role(program, rule);
        let positives: Vec<&Atom> = (rule.body.iter())
            .filter_map(|l| match l {
                Lit::Pos(a) => Some(a),
                _ => None,
            })
            .collect();
        for (k, l) in rule.body.iter().enumerate() {
            let (atom, negated) = match l {
                Lit::Pos(a) => (a, false),
                Lit::Neg(a) => (a, true),
                _ => continue,
            };
            if atom.rel != rel || atom.args.len() != arity {
                continue;
            }
            // Prolog runs a positive call after the positive literals before it; a `not`
            // after the positive literal that binds its last variable
            let before: Vec<&Atom> = match negated {
                true => positives.clone(),
                false => (rule.body[..k].iter())
                    .filter_map(|l| match l {
                        Lit::Pos(a) => Some(a),
                        _ => None,
                    })
                    .collect(),
            };
            let prefix: Vec<Atom> = (asked.iter().chain(before)).cloned().collect();
            let mut bound = BTreeSet::new();
            prefix.iter().for_each(|a| atom_vars(a, &mut bound));
            out.push(Call {
                rule,
                atom,
                prefix,
                bound,
            });
        }
    }
    out
}

/// For each unsafe variable of `rule`, a head position holding it that every call binds;
/// `None` when one has none (or there are no calls).
fn bound_positions(
    rule: &Rule,
    unsafe_vars: &BTreeSet<Sym>,
    calls: &[Call<'_>],
) -> Option<Vec<usize>> {
    if calls.is_empty() {
        return None;
    }
    let mut positions = Vec::new();
    for v in unsafe_vars {
        let j = (0..rule.head.args.len()).find(|&j| {
            rule.head.args[j] == Term::Var(*v)
                && calls.iter().all(|c| {
                    let mut vs = BTreeSet::new();
                    vars_of(&c.atom.args[j], &mut vs);
                    vs.is_subset(&c.bound)
                })
        })?;
        positions.push(j);
    }
    positions.sort_unstable();
    positions.dedup();
    Some(positions)
}

/// Rewrites, in a GDL-II game, each rule whose unsafe variables every call binds (see the
/// module documentation), with a located warning.
pub fn rewrite(src: &SourceFile, program: &mut Program, warnings: &mut Vec<Diagnostic>) {
    let mut added = Vec::new();
    for i in 0..program.rules.len() {
        let rule = &program.rules[i];
        let name = program.symbols.name(rule.head.rel).to_string();
        let vars = unsafe_vars(rule);
        if vars.is_empty() || KEYWORDS.contains(&name.as_str()) {
            continue;
        }
        let sites = calls(program, rule.head.rel, rule.head.args.len());
        let Some(positions) = bound_positions(rule, &vars, &sites) else {
            continue;
        };
        let texts: Vec<&str> = vars.iter().map(|v| program.symbols.name(*v)).collect();
        warnings.push(Diagnostic {
            loc: src.loc(rule.span.start),
            message: format!(
                "GDL-II dialect: {} bound by no positive literal but by every call of \
                 `{name}/{}` (read with the callers' bindings, as Prolog-based controllers \
                 do), in rule `{}`",
                texts.join(" "),
                rule.head.args.len(),
                quote(src, rule.span)
            ),
        });
        let pick = |a: &Atom| positions.iter().map(|&j| a.args[j].clone()).collect();
        let call_name = format!("{name}#call{i}");
        let head = Atom {
            rel: Sym(u32::MAX),
            args: pick(&rule.head),
        };
        let new_rules: Vec<Rule> = (sites.iter())
            .map(|c| Rule {
                head: Atom {
                    rel: Sym(u32::MAX),
                    args: pick(c.atom),
                },
                body: c.prefix.iter().cloned().map(Lit::Pos).collect(),
                span: c.rule.span,
            })
            .collect();
        added.push((i, call_name, head, new_rules));
    }
    for (i, call_name, mut head, mut new_rules) in added {
        let rel = program.symbols.intern(&call_name);
        head.rel = rel;
        new_rules.iter_mut().for_each(|r| r.head.rel = rel);
        program.rules[i].body.insert(0, Lit::Pos(head));
        program.rules.extend(new_rules);
    }
}
