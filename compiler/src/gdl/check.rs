//! Validity checks of a lowered program (GDL spec, Love et al., "General Game Playing:
//! Game Description Language Specification", Stanford LG-2006-01, §3 and §4):
//! keyword arities and placement, roles, safety, ground goal values, `does` not reaching
//! `legal`/`terminal`/`goal`/`init`, stratified negation. Warnings: undefined relations,
//! recursion restriction, negation that is only stratified rule by rule, a game
//! missing `terminal` rules or a role missing `legal` or `goal` rules, and relations no
//! rule reads ([`super::unused`]).
//!
//! Negation policy: a relation-level negative cycle is accepted when the *rule-level*
//! dependency graph (a rule depends on the rules whose heads may match its body atoms,
//! see [`super::deps::may_match`]) has no negative cycle. Then every ground instance
//! depends negatively only on instances of a lower rule stratum, so the program is
//! locally stratified and [`RelationInfo::rule_stratum`] is a correct evaluation order.
//! Example: `(<= (goal r 100) (not (goal r 0)))` — `(goal r 0)` never matches the head
//! `(goal r 100)`. Anything else is rejected, naming a rule on the cycle.

use std::collections::{BTreeSet, VecDeque};

use super::ast::{Atom, Lit, Program, Rule, Sym, Term};
use super::deps::{RelId, RelKey, RelationInfo};
use super::error::{Diagnostic, GdlError, Violation};
use crate::kif::{quote, SourceFile};
use propnet_netlist::rng::MAX_ROLES;

/// Keywords with a fixed number of arguments.
const KEYWORD_ARITY: [(&str, usize); 8] = [
    ("role", 1),
    ("init", 1),
    ("true", 1),
    ("next", 1),
    ("does", 2),
    ("legal", 2),
    ("goal", 2),
    ("terminal", 0),
];

/// Runs every check on `program`; appends warnings to `warnings`.
///
/// # Errors
/// The first violation found, scanning rules in source order and then the whole-program
/// checks (`does` dependencies, negative cycles); located at the offending rule.
pub fn check(
    src: &SourceFile,
    program: &Program,
    info: &RelationInfo,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), GdlError> {
    let cx = Checker { src, program, info };
    let mut roles = BTreeSet::new();
    for rule in &program.rules {
        cx.rule_shape(rule, &mut roles)?;
        cx.safety(rule)?;
        cx.goal_value(rule)?;
    }
    if program.roles.is_empty() {
        return Err(GdlError::Invalid {
            loc: src.loc(0),
            violation: Violation::NoRoles,
        });
    }
    cx.does_dependencies()?;
    cx.init_is_static()?;
    cx.negation(warnings)?;
    cx.undefined_relations(warnings);
    cx.recursion_restriction(warnings);
    cx.missing_game_rules(warnings);
    cx.base_input_static(warnings);
    super::unused::unused_relations(src, program, info, warnings);
    Ok(())
}

struct Checker<'a> {
    src: &'a SourceFile,
    program: &'a Program,
    info: &'a RelationInfo,
}

fn vars_of(t: &Term, out: &mut Vec<Sym>) {
    match t {
        Term::Var(v) => out.push(*v),
        Term::Const(_) => {}
        Term::Fn(_, args) => args.iter().for_each(|a| vars_of(a, out)),
    }
}

fn is_ground(t: &Term) -> bool {
    match t {
        Term::Var(_) => false,
        Term::Const(_) => true,
        Term::Fn(_, args) => args.iter().all(is_ground),
    }
}

impl Checker<'_> {
    fn name(&self, s: Sym) -> &str {
        self.program.symbols.name(s)
    }

    fn fail(&self, rule: &Rule, violation: Violation) -> GdlError {
        GdlError::Invalid {
            loc: self.src.loc(rule.span.start),
            violation,
        }
    }

    fn quote(&self, rule: &Rule) -> String {
        quote(self.src, rule.span)
    }

    /// Keyword arities, keyword placement, `role` facts.
    fn rule_shape(&self, rule: &Rule, roles: &mut BTreeSet<Sym>) -> Result<(), GdlError> {
        // GDL-II dialect: a percept about the state after the move ([`super::gdl2`])
        let sees_rule = self.program.gdl2 && super::gdl2::is_sees_head(self.program, rule);
        let atoms =
            std::iter::once((&rule.head, true)).chain(rule.body.iter().filter_map(|l| match l {
                Lit::Pos(a) | Lit::Neg(a) => Some((a, false)),
                _ => None,
            }));
        for (atom, in_head) in atoms {
            let name = self.name(atom.rel);
            if let Some(&(_, expected)) = KEYWORD_ARITY.iter().find(|(k, _)| *k == name) {
                if atom.args.len() != expected {
                    let v = Violation::KeywordArity {
                        keyword: name.to_string(),
                        expected,
                        found: atom.args.len(),
                        text: self.program.symbols.atom_text(atom),
                    };
                    return Err(self.fail(rule, v));
                }
            }
            let misplaced = match (name, in_head) {
                ("true" | "does", true) => Some("head"),
                ("next", false) if sees_rule => None,
                ("next" | "init", false) => Some("body"),
                _ => None,
            };
            if let Some(place) = misplaced {
                let v = Violation::KeywordPlacement {
                    keyword: name.to_string(),
                    place,
                    rule: self.quote(rule),
                };
                return Err(self.fail(rule, v));
            }
        }
        if self.name(rule.head.rel) == "role" {
            let problem = if !rule.body.is_empty() {
                Some("`role` must be a fact, not a rule")
            } else {
                match &rule.head.args[0] {
                    Term::Const(c) if !roles.insert(*c) => Some("duplicate role"),
                    Term::Const(_) if roles.len() > MAX_ROLES => {
                        return Err(self.fail(
                            rule,
                            Violation::TooManyRoles {
                                limit: MAX_ROLES,
                                rule: self.quote(rule),
                            },
                        ));
                    }
                    Term::Const(_) => None,
                    _ => Some("a role must be a constant"),
                }
            };
            if let Some(problem) = problem {
                return Err(self.fail(
                    rule,
                    Violation::BadRole {
                        problem,
                        rule: self.quote(rule),
                    },
                ));
            }
        }
        Ok(())
    }

    /// Every variable of the head, of a `not` and of a `distinct`/equality occurs in a
    /// positive body literal; in GDL-II mode, variables that occur only in negated
    /// literals are accepted ([`super::gdl2::negation_local`], warned about there).
    fn safety(&self, rule: &Rule) -> Result<(), GdlError> {
        let mut bound = match self.program.gdl2 {
            true => super::gdl2::negation_local(rule),
            false => Vec::new(),
        };
        for l in &rule.body {
            if let Lit::Pos(a) = l {
                a.args.iter().for_each(|t| vars_of(t, &mut bound));
            }
        }
        // a set: one rule may have hundreds of thousands of variables
        let bound: std::collections::HashSet<Sym> = bound.into_iter().collect();
        let check = |terms: &mut dyn Iterator<Item = &Term>, place| {
            let mut vs = Vec::new();
            terms.for_each(|t| vars_of(t, &mut vs));
            match vs.into_iter().find(|v| !bound.contains(v)) {
                Some(v) => Err(self.fail(
                    rule,
                    Violation::UnsafeVariable {
                        var: self.name(v).to_string(),
                        place,
                        rule: self.quote(rule),
                    },
                )),
                None => Ok(()),
            }
        };
        check(&mut rule.head.args.iter(), "the head")?;
        for l in &rule.body {
            match l {
                Lit::Pos(_) => {}
                Lit::Neg(a) => check(&mut a.args.iter(), "a not")?,
                Lit::Distinct(x, y) => check(&mut [x, y].into_iter(), "a distinct")?,
                Lit::Equal(x, y) => check(&mut [x, y].into_iter(), "a (not (distinct …))")?,
            }
        }
        Ok(())
    }

    /// A ground goal value must be an integer 0..=100 (written with digits only).
    fn goal_value(&self, rule: &Rule) -> Result<(), GdlError> {
        let head = &rule.head;
        if self.name(head.rel) != "goal" || head.args.len() != 2 || !is_ground(&head.args[1]) {
            return Ok(());
        }
        let ok = match &head.args[1] {
            Term::Const(c) => super::goal_value(self.name(*c)).is_some(),
            _ => false,
        };
        if ok {
            return Ok(());
        }
        let value = self.program.symbols.term_text(&head.args[1]);
        Err(self.fail(
            rule,
            Violation::BadGoalValue {
                value,
                rule: self.quote(rule),
            },
        ))
    }

    /// `legal`, `terminal`, `goal` and `init` must not depend on `does`.
    fn does_dependencies(&self) -> Result<(), GdlError> {
        let Some(does) = self.info.id(&self.program.symbols, "does", 2) else {
            return Ok(());
        };
        for (target, arity) in [("init", 1), ("legal", 2), ("terminal", 0), ("goal", 2)] {
            let Some(t) = self.info.id(&self.program.symbols, target, arity) else {
                continue;
            };
            if !self.info.depends_on_does[t.0 as usize] {
                continue;
            }
            let (chain, first_rule) = self.path(t, does);
            let rule = &self.program.rules[first_rule];
            let v = Violation::DoesReaches {
                target: target.to_string(),
                chain,
                rule: self.quote(rule),
            };
            return Err(self.fail(rule, v));
        }
        Ok(())
    }

    /// `init` must not depend on `true` (GDL spec §4: evaluators compute `init` before any
    /// state exists); rejected here so that every command gives the same verdict.
    fn init_is_static(&self) -> Result<(), GdlError> {
        let syms = &self.program.symbols;
        let (Some(init), Some(tru)) =
            (self.info.id(syms, "init", 1), self.info.id(syms, "true", 1))
        else {
            return Ok(());
        };
        if self.info.is_static(init) {
            return Ok(());
        }
        let (chain, first_rule) = self.path(init, tru);
        let rule = &self.program.rules[first_rule];
        let v = Violation::InitReadsTrue {
            chain,
            rule: self.quote(rule),
        };
        Err(self.fail(rule, v))
    }

    /// Shortest dependency chain from `from` to `to` as `a/1 -> b/2 -> …`, and the rule of
    /// its first edge. `to` must be reachable.
    fn path(&self, from: RelId, to: RelId) -> (String, usize) {
        let n = self.info.relations.len();
        let mut parent: Vec<Option<(RelId, usize)>> = vec![None; n];
        let mut queue = VecDeque::from([from]);
        let mut seen = vec![false; n];
        seen[from.0 as usize] = true;
        while let Some(v) = queue.pop_front() {
            if v == to {
                break;
            }
            for e in &self.info.edges[v.0 as usize] {
                if !seen[e.to.0 as usize] {
                    seen[e.to.0 as usize] = true;
                    parent[e.to.0 as usize] = Some((v, e.rule));
                    queue.push_back(e.to);
                }
            }
        }
        let mut chain = vec![to];
        let mut first_rule = 0;
        let mut at = to;
        while let Some((p, rule)) = parent[at.0 as usize] {
            chain.push(p);
            first_rule = rule;
            at = p;
        }
        let text: Vec<String> = chain
            .iter()
            .rev()
            .map(|&r| self.info.text(&self.program.symbols, r))
            .collect();
        (text.join(" -> "), first_rule)
    }

    /// Rejects negative cycles that are not stratified even rule by rule; warns when
    /// negation is only locally stratified.
    fn negation(&self, warnings: &mut Vec<Diagnostic>) -> Result<(), GdlError> {
        if self.info.stratified {
            return Ok(());
        }
        let syms = &self.program.symbols;
        if let Some((ri, negated)) = self.info.negative_cycle {
            let rule = &self.program.rules[ri];
            let v = Violation::NegativeCycle {
                head: RelKey::of(&rule.head).text(syms),
                negated: self.info.text(syms, negated),
                rule: self.quote(rule),
            };
            return Err(self.fail(rule, v));
        }
        for (v, edges) in self.info.edges.iter().enumerate() {
            for e in edges {
                if e.negative && self.info.scc_of[e.to.0 as usize] == self.info.scc_of[v] {
                    let rule = &self.program.rules[e.rule];
                    warnings.push(Diagnostic {
                        loc: self.src.loc(rule.span.start),
                        message: format!(
                            "`{}` is negated inside its own recursion but never on instances \
                             the rule defines (locally stratified; evaluate by rule strata) \
                             in rule `{}`",
                            self.info.text(syms, e.to),
                            self.quote(rule)
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    /// Warns about relations used in bodies that no rule or fact defines (always false).
    fn undefined_relations(&self, warnings: &mut Vec<Diagnostic>) {
        let syms = &self.program.symbols;
        for (i, key) in self.info.relations.iter().enumerate() {
            let name = syms.name(key.name);
            let base = (name == "true" && key.arity == 1) || (name == "does" && key.arity == 2);
            if base || !self.info.rules_of[i].is_empty() {
                continue;
            }
            let user = self.program.rules.iter().find(|r| {
                r.body
                    .iter()
                    .any(|l| matches!(l, Lit::Pos(a) | Lit::Neg(a) if RelKey::of(a) == *key))
            });
            if let Some(rule) = user {
                warnings.push(Diagnostic {
                    loc: self.src.loc(rule.span.start),
                    message: format!(
                        "relation `{}` has no rules or facts (always false), used in rule `{}`",
                        key.text(syms),
                        self.quote(rule)
                    ),
                });
            }
        }
    }

    /// GDL's recursion restriction (spec §3.5): in a rule whose head `p` is recursive, each
    /// argument of a positive body atom in `p`'s SCC is ground, a head argument, or has all
    /// its variables bound by positive atoms outside the SCC. Breaking it is a warning:
    /// evaluators cope, but the game may be infinite.
    fn recursion_restriction(&self, warnings: &mut Vec<Diagnostic>) {
        let scc_of = |a: &Atom| {
            self.info
                .id_of(RelKey::of(a))
                .map(|r| self.info.scc_of[r.0 as usize])
        };
        for rule in &self.program.rules {
            let Some(h) = self.info.id_of(RelKey::of(&rule.head)) else {
                continue;
            };
            if !self.info.recursive[h.0 as usize] {
                continue;
            }
            let my_scc = self.info.scc_of[h.0 as usize];
            let mut outside = Vec::new();
            for l in &rule.body {
                if let Lit::Pos(a) = l {
                    if scc_of(a) != Some(my_scc) {
                        a.args.iter().for_each(|t| vars_of(t, &mut outside));
                    }
                }
            }
            let outside: std::collections::HashSet<Sym> = outside.into_iter().collect();
            let head: std::collections::HashSet<&Term> = rule.head.args.iter().collect();
            let bad = rule.body.iter().find_map(|l| match l {
                Lit::Pos(a) if scc_of(a) == Some(my_scc) => a
                    .args
                    .iter()
                    .find(|t| {
                        let mut vs = Vec::new();
                        vars_of(t, &mut vs);
                        !(head.contains(t) || vs.iter().all(|v| outside.contains(v)))
                    })
                    .map(|t| (a, t)),
                _ => None,
            });
            if let Some((atom, term)) = bad {
                let syms = &self.program.symbols;
                warnings.push(Diagnostic {
                    loc: self.src.loc(rule.span.start),
                    message: format!(
                        "recursion restriction: argument `{}` of recursive `{}` is not ground, \
                         not a head argument and not bound outside the recursion, in rule `{}`",
                        syms.term_text(term),
                        syms.atom_text(atom),
                        self.quote(rule)
                    ),
                });
            }
        }
    }

    /// Warns when `base/1` or `input/2` depends on `true` or `does`: GDL defines them from
    /// static relations only (they describe every possible fluent and move, not a state).
    /// propnet does not read them, so the game still plays; other players may reject it.
    fn base_input_static(&self, warnings: &mut Vec<Diagnostic>) {
        let syms = &self.program.symbols;
        for (name, arity) in [("base", 1), ("input", 2)] {
            let Some(rel) = self.info.id(syms, name, arity) else {
                continue;
            };
            if self.info.is_static(rel) {
                continue;
            }
            let reached = if self.info.depends_on_does[rel.0 as usize] {
                self.info.id(syms, "does", 2)
            } else {
                self.info.id(syms, "true", 1)
            };
            let Some(dynamic) = reached else { continue };
            let (chain, first_rule) = self.path(rel, dynamic);
            let rule = &self.program.rules[first_rule];
            warnings.push(Diagnostic {
                loc: self.src.loc(rule.span.start),
                message: format!(
                    "`{name}` depends on the state ({chain}): GDL defines `base` and `input` \
                     from static relations only; propnet ignores them, other players may \
                     reject the game, in rule `{}`",
                    self.quote(rule)
                ),
            });
        }
    }

    /// Warns when no rule defines `terminal` (the game never ends), or when no `legal` /
    /// `goal` rule can apply to a role (its head names the role or has a variable there).
    /// Located at the role fact (the first one for `terminal`).
    fn missing_game_rules(&self, warnings: &mut Vec<Diagnostic>) {
        let role_fact = |role: Sym| {
            self.program.rules.iter().find(|r| {
                self.name(r.head.rel) == "role"
                    && r.body.is_empty()
                    && matches!(r.head.args.first(), Some(Term::Const(c)) if *c == role)
            })
        };
        let loc_of = |role: Sym| self.src.loc(role_fact(role).map_or(0, |r| r.span.start));
        let heads = |keyword: &'static str, arity: usize| {
            self.program
                .rules
                .iter()
                .filter(move |r| self.name(r.head.rel) == keyword && r.head.args.len() == arity)
        };
        if heads("terminal", 0).next().is_none() {
            if let Some(&first) = self.program.roles.first() {
                warnings.push(Diagnostic {
                    loc: loc_of(first),
                    message: "the game has no `terminal` rules: it never ends (playouts stop \
                              only at the step limit)"
                        .to_string(),
                });
            }
        }
        for &role in &self.program.roles {
            for (keyword, effect) in [
                ("legal", "it never has a legal move"),
                ("goal", "its goal value is always 0"),
            ] {
                let applies = heads(keyword, 2).any(|r| match &r.head.args[0] {
                    Term::Var(_) => true,
                    Term::Const(c) => *c == role,
                    Term::Fn(..) => false,
                });
                if !applies {
                    warnings.push(Diagnostic {
                        loc: loc_of(role),
                        message: format!(
                            "role `{}` has no `{keyword}` rules: {effect}",
                            self.name(role)
                        ),
                    });
                }
            }
        }
        self.undeclared_roles(warnings);
    }

    /// Warns at each `legal`/`goal` rule whose role is a constant that no `role` fact
    /// declares (the rule can never apply), and at each `does` literal of such a role (it
    /// never holds).
    fn undeclared_roles(&self, warnings: &mut Vec<Diagnostic>) {
        // (sentence, role): a sentence's `or` alternatives share their `does` literals.
        let mut seen = BTreeSet::new();
        for r in &self.program.rules {
            let does = r.body.iter().filter_map(|l| match l {
                Lit::Pos(a) | Lit::Neg(a) => Some(a),
                _ => None,
            });
            for a in does.filter(|a| self.name(a.rel) == "does" && a.args.len() == 2) {
                if let Term::Const(c) = &a.args[0] {
                    if !self.program.roles.contains(c) && seen.insert((r.span.start, c.0)) {
                        warnings.push(Diagnostic {
                            loc: self.src.loc(r.span.start),
                            message: format!(
                                "`does` of `{}`, which is not a role: it never holds, in rule `{}`",
                                self.name(*c),
                                self.quote(r)
                            ),
                        });
                    }
                }
            }
        }
        for r in &self.program.rules {
            let keyword = self.name(r.head.rel);
            if !matches!(keyword, "legal" | "goal") || r.head.args.len() != 2 {
                continue;
            }
            if let Term::Const(c) = &r.head.args[0] {
                if !self.program.roles.contains(c) {
                    warnings.push(Diagnostic {
                        loc: self.src.loc(r.span.start),
                        message: format!(
                            "`{keyword}` rule for `{}`, which is not a role: it never applies, in rule `{}`",
                            self.name(*c),
                            self.quote(r)
                        ),
                    });
                }
            }
        }
    }
}
