//! GDL-II (Thielscher, "A General Game Description Language for Incomplete Information
//! Games", AAAI 2010): the `random` role and `sees` percepts, and the dialect public
//! GDL-II games are written in.
//!
//! Mode, as the oracle (`shared/oracle/README.md`): a game is GDL-II when a rule head or
//! body names a relation `sees` (any arity); a role named `random` alone does not make it
//! one. In GDL-II mode [`prepare`] rejects, located at the rule, a `sees` of arity other
//! than 2 and a `sees` in a rule body (also under `not`/`or`), and accepts with a located
//! warning what the Dresden GameController and Prolog-based reasoners play:
//! - a variable first argument of a `legal`/`sees`/`goal` head bound by no positive
//!   literal: bound by the role being asked, so `(role ?r)` is added to the body;
//! - a variable that occurs only in negated literals: read as "no binding makes it true"
//!   ([`negation_local`]; [`super::check`] then does not call it unsafe);
//! - `next` in the body of a `sees` rule: a percept about the state after the move;
//! - a helper rule whose unsafe variables every call binds ([`super::call_bound`]).
//!
//! - a bare `not` as a body literal: the proposition `not`, which no rule defines (an
//!   undefined relation, warned about as such: always false), as the oracle reads it;
//!   outside GDL-II mode it stays the error it was.
//!
//! In every mode, an unsafe `base`/`input` rule (propnet reads neither) is dropped with a
//! located warning, unless a rule body reads the relation.

use super::ast::{Atom, Lit, Program, Rule, Sym, Term};
use super::error::{Diagnostic, GdlError, Violation};
use crate::kif::{quote, SourceFile, TokenKind};

/// Applies the GDL-II checks and dialect to `program` (see the module documentation) and
/// sets [`Program::gdl2`]; appends a warning per accepted dialect rule to `warnings`.
///
/// # Errors
/// [`Violation::KeywordArity`] for a `sees` without 2 arguments and
/// [`Violation::SeesInBody`] for a `sees` in a rule body, located at the rule.
pub fn prepare(
    src: &SourceFile,
    program: &mut Program,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), GdlError> {
    drop_unsafe_declarations(src, program, warnings);
    program.gdl2 = mentions_sees(program);
    if !program.gdl2 {
        return bare_not(src, program);
    }
    for rule in &program.rules {
        sees_placement(src, program, rule)?;
    }
    let role = program.symbols.intern("role");
    let warn = |rule: &Rule, what: String| Diagnostic {
        loc: src.loc(rule.span.start),
        message: format!(
            "GDL-II dialect: {what}, in rule `{}`",
            quote(src, rule.span)
        ),
    };
    for i in 0..program.rules.len() {
        let syms = &program.symbols;
        let rule = &program.rules[i];
        let head = syms.name(rule.head.rel);
        if let Some(v) = asked_role(program, rule) {
            warnings.push(warn(
                rule,
                format!(
                    "role variable {} of `{head}` is bound only by the role being asked \
                     (read as bound by `(role {})`)",
                    syms.name(v),
                    syms.name(v)
                ),
            ));
            let lit = Lit::Pos(Atom {
                rel: role,
                args: vec![Term::Var(v)],
            });
            program.rules[i].body.insert(0, lit);
        }
        let (syms, rule) = (&program.symbols, &program.rules[i]);
        for v in negation_local(rule) {
            warnings.push(warn(
                rule,
                format!(
                    "variable {} occurs only in a negated literal (read as \"no binding \
                     makes it true\")",
                    syms.name(v)
                ),
            ));
        }
        if is_sees_head(program, rule) && reads(program, rule, "next", 1) {
            warnings.push(warn(
                rule,
                "`next` in the body of a `sees` rule (a percept about the state after the \
                 move)"
                    .to_string(),
            ));
        }
    }
    super::call_bound::rewrite(src, program, warnings);
    Ok(())
}

/// True when a rule head or body names a relation `sees` (any arity).
pub fn mentions_sees(program: &Program) -> bool {
    let Some(sees) = program.symbols.get("sees") else {
        return false;
    };
    program.rules.iter().any(|r| {
        r.head.rel == sees
            || r.body
                .iter()
                .any(|l| matches!(l, Lit::Pos(a) | Lit::Neg(a) if a.rel == sees))
    })
}

/// True when `rule`'s head is `(sees R P)`.
pub fn is_sees_head(program: &Program, rule: &Rule) -> bool {
    program.symbols.name(rule.head.rel) == "sees" && rule.head.args.len() == 2
}

/// Whether `rule`'s body has a literal (positive or negated) of `name/arity`.
fn reads(program: &Program, rule: &Rule, name: &str, arity: usize) -> bool {
    rule.body.iter().any(|l| {
        matches!(l, Lit::Pos(a) | Lit::Neg(a)
            if a.args.len() == arity && program.symbols.name(a.rel) == name)
    })
}

/// `sees` has 2 arguments and stands in rule heads only.
fn sees_placement(src: &SourceFile, program: &Program, rule: &Rule) -> Result<(), GdlError> {
    let fail = |violation| GdlError::Invalid {
        loc: src.loc(rule.span.start),
        violation,
    };
    let syms = &program.symbols;
    if syms.name(rule.head.rel) == "sees" && rule.head.args.len() != 2 {
        return Err(fail(Violation::KeywordArity {
            keyword: "sees".into(),
            expected: 2,
            found: rule.head.args.len(),
            text: syms.atom_text(&rule.head),
        }));
    }
    let in_body = rule.body.iter().find_map(|l| match l {
        Lit::Pos(a) | Lit::Neg(a) if syms.name(a.rel) == "sees" => Some(a),
        _ => None,
    });
    match in_body {
        Some(a) => Err(fail(Violation::SeesInBody {
            atom: syms.atom_text(a),
            rule: quote(src, rule.span),
        })),
        None => Ok(()),
    }
}

fn vars_of(t: &Term, out: &mut Vec<Sym>) {
    match t {
        Term::Var(v) => out.push(*v),
        Term::Const(_) => {}
        Term::Fn(_, args) => args.iter().for_each(|a| vars_of(a, out)),
    }
}

/// Variables of positive body literals.
fn positive_vars(rule: &Rule) -> Vec<Sym> {
    let mut bound = Vec::new();
    for l in &rule.body {
        if let Lit::Pos(a) = l {
            a.args.iter().for_each(|t| vars_of(t, &mut bound));
        }
    }
    bound
}

/// The role variable of a `legal`/`sees`/`goal` head (its first argument) when no
/// positive body literal binds it.
fn asked_role(program: &Program, rule: &Rule) -> Option<Sym> {
    let name = program.symbols.name(rule.head.rel);
    if !matches!(name, "legal" | "sees" | "goal") || rule.head.args.len() != 2 {
        return None;
    }
    match rule.head.args[0] {
        Term::Var(v) if !positive_vars(rule).contains(&v) => Some(v),
        _ => None,
    }
}

/// Variables of `rule` that occur in negated literals and nowhere else (not in the head,
/// a positive literal or a `distinct`/equality): in GDL-II mode such a literal holds when
/// no binding of them makes the atom true, as Prolog-based controllers read it.
pub fn negation_local(rule: &Rule) -> Vec<Sym> {
    let mut elsewhere = positive_vars(rule);
    rule.head
        .args
        .iter()
        .for_each(|t| vars_of(t, &mut elsewhere));
    let mut negated = Vec::new();
    for l in &rule.body {
        match l {
            Lit::Pos(_) => {}
            Lit::Neg(a) => a.args.iter().for_each(|t| vars_of(t, &mut negated)),
            Lit::Distinct(x, y) | Lit::Equal(x, y) => {
                vars_of(x, &mut elsewhere);
                vars_of(y, &mut elsewhere);
            }
        }
    }
    let mut out: Vec<Sym> = negated
        .into_iter()
        .filter(|v| !elsewhere.contains(v))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether a variable of the head, of a `not` or of a `distinct`/equality is bound by no
/// positive literal.
fn unsafe_rule(rule: &Rule) -> bool {
    let bound = positive_vars(rule);
    let mut used = Vec::new();
    rule.head.args.iter().for_each(|t| vars_of(t, &mut used));
    for l in &rule.body {
        match l {
            Lit::Pos(_) => {}
            Lit::Neg(a) => a.args.iter().for_each(|t| vars_of(t, &mut used)),
            Lit::Distinct(x, y) | Lit::Equal(x, y) => {
                vars_of(x, &mut used);
                vars_of(y, &mut used);
            }
        }
    }
    used.iter().any(|v| !bound.contains(v))
}

/// Drops unsafe `base/1` and `input/2` rules, with a located warning, when no rule body
/// reads that relation: they only declare the fluents and moves, which propnet computes
/// from the rules themselves.
fn drop_unsafe_declarations(
    src: &SourceFile,
    program: &mut Program,
    warnings: &mut Vec<Diagnostic>,
) {
    let declaration = |program: &Program, rule: &Rule| {
        let name = program.symbols.name(rule.head.rel);
        let arity = rule.head.args.len();
        let keyword = matches!((name, arity), ("base", 1) | ("input", 2));
        keyword
            && unsafe_rule(rule)
            && !program.rules.iter().any(|r| reads(program, r, name, arity))
    };
    let drop: Vec<bool> = program
        .rules
        .iter()
        .map(|r| declaration(program, r))
        .collect();
    let mut kept = Vec::with_capacity(program.rules.len());
    for (rule, drop) in std::mem::take(&mut program.rules).into_iter().zip(drop) {
        if drop {
            warnings.push(Diagnostic {
                loc: src.loc(rule.span.start),
                message: format!(
                    "unsafe `{}` declaration ignored (a variable not bound by a positive \
                     literal; propnet does not use base/input declarations), in rule `{}`",
                    program.symbols.name(rule.head.rel),
                    quote(src, rule.span)
                ),
            });
        } else {
            kept.push(rule);
        }
    }
    program.rules = kept;
}

/// Outside GDL-II mode, a bare `not` body literal (lowered as the proposition `not`) is
/// refused as a misplaced connective, located at the `not` itself.
///
/// # Errors
/// [`Violation::MisplacedConnective`] for the first rule that has one.
fn bare_not(src: &SourceFile, program: &Program) -> Result<(), GdlError> {
    let Some(not) = program.symbols.get("not") else {
        return Ok(());
    };
    let rule = program
        .rules
        .iter()
        .find(|r| (r.body.iter()).any(|l| matches!(l, Lit::Pos(a) | Lit::Neg(a) if a.rel == not)));
    let Some(rule) = rule else { return Ok(()) };
    Err(GdlError::Invalid {
        loc: src.loc(bare_not_offset(src, rule)),
        violation: Violation::MisplacedConnective {
            keyword: "not".into(),
            place: "literal without arguments",
            text: "not".into(),
        },
    })
}

/// Where the first bare `not` (a `not` symbol not right after `(`) of `rule` stands, or
/// the rule's start.
fn bare_not_offset(src: &SourceFile, rule: &Rule) -> u32 {
    let text = src.slice(rule.span);
    let Ok(part) = SourceFile::new("", text.as_bytes()) else {
        return rule.span.start;
    };
    let tokens = crate::kif::lex(&part).unwrap_or_default();
    let mut prev = None;
    for t in &tokens {
        let word = part.slice(t.span);
        if t.kind == TokenKind::Symbol
            && word.eq_ignore_ascii_case("not")
            && prev != Some(TokenKind::LParen)
        {
            return rule.span.start + t.span.start;
        }
        prev = Some(t.kind);
    }
    rule.span.start
}
