//! Lowers KIF s-expressions to a normalized [`Program`]: folds case, reads facts and
//! `(<= head body…)` rules, pushes `not` down to atoms and expands `or` to disjunctive
//! normal form (one [`Rule`] per alternative, see [`super::dnf`]).
//!
//! It checks only the *shape* of sentences (names are symbols, keyword argument counts,
//! no connective in a head); the semantic checks are in [`super::check`].

use std::collections::BTreeMap;

use super::ast::{Atom, Program, Rule, Span, Symbols, Term};
use super::dnf::{self, Formula};
use super::error::{Diagnostic, GdlError, Violation};
use crate::kif::{self, SExpr, SourceFile};

/// Most rules one sentence may expand to through `or`.
pub const MAX_OR_EXPANSION: usize = 65_536;

/// Most rules the `or` expansions of one file may give in all: sixteen rules of ten
/// three-way `or`s each, 59,049 rules apiece and 944 k in all, took 6.8 GB to check.
pub const MAX_OR_EXPANSION_TOTAL: usize = 4 * MAX_OR_EXPANSION;

/// Most literals one rule body may have (after `or` expansion). Public games stay below a
/// hundred; the joins of the grounder and the interpreter recurse once per literal, and the
/// interpreter's cost grows with the square of the body's length (10,000 literals: about
/// 2 s per state).
pub const MAX_BODY_LITERALS: usize = 10_000;

/// Lower-cases the ASCII letters of `text` (GDL is case-insensitive; the oracle folds the
/// whole file). Only ASCII is folded, as the GGP world does: a Unicode fold may change a
/// symbol's length or give characters the reader rejects (`İ` becomes `i` and U+0307), so
/// a folded move would no longer read back; other characters are kept as written.
pub fn fold_case(text: &str) -> String {
    text.to_ascii_lowercase()
}

/// Lowers the top-level s-expressions of `src` to a program, in source order. Roles are
/// the arguments of `role` facts in file order (checked later by [`super::check`]).
///
/// Warnings: a relation or function name used with several arities.
///
/// # Errors
/// [`GdlError::Invalid`] located at the offending expression for malformed sentences.
pub fn lower(src: &SourceFile, sexprs: &[SExpr]) -> Result<(Program, Vec<Diagnostic>), GdlError> {
    let mut cx = Lowerer {
        src,
        symbols: Symbols::default(),
        rel_arities: BTreeMap::new(),
        fn_arities: BTreeMap::new(),
        or_rules: 0,
    };
    let mut rules = Vec::new();
    for e in sexprs {
        cx.sentence(e, &mut rules)?;
    }
    let role = cx.symbols.intern("role");
    let roles = rules
        .iter()
        .filter(|r: &&Rule| r.head.rel == role && r.head.args.len() == 1 && r.body.is_empty())
        .filter_map(|r| match r.head.args[0] {
            Term::Const(c) => Some(c),
            _ => None,
        })
        .collect();
    let mut warnings = Vec::new();
    for (what, map) in [("relation", &cx.rel_arities), ("function", &cx.fn_arities)] {
        for (name, arities) in map {
            if arities.len() > 1 {
                let list: Vec<String> = arities.keys().map(|a| a.to_string()).collect();
                // Located at the first use of the arity that appeared last.
                let at = arities.values().map(|s| s.start).max().unwrap_or(0);
                warnings.push(Diagnostic {
                    loc: src.loc(at),
                    message: format!(
                        "{what} `{name}` is used with arities {}; each arity is a different {what}",
                        list.join(" and ")
                    ),
                });
            }
        }
    }
    Ok((
        Program {
            symbols: cx.symbols,
            roles,
            rules,
            gdl2: false,
        },
        warnings,
    ))
}

struct Lowerer<'a> {
    src: &'a SourceFile,
    symbols: Symbols,
    /// name → arity → span of the first use with that arity.
    rel_arities: BTreeMap<String, BTreeMap<usize, Span>>,
    fn_arities: BTreeMap<String, BTreeMap<usize, Span>>,
    /// Rules given so far by the expansion of rules with an `or`.
    or_rules: usize,
}

fn is_connective(name: &str) -> bool {
    matches!(name, "not" | "or" | "distinct" | "<=")
}

impl Lowerer<'_> {
    fn invalid(&self, at: Span, violation: Violation) -> GdlError {
        GdlError::Invalid {
            loc: self.src.loc(at.start),
            violation,
        }
    }

    fn text(&self, e: &SExpr) -> String {
        kif::quote(self.src, e.span())
    }

    fn sentence(&mut self, e: &SExpr, out: &mut Vec<Rule>) -> Result<(), GdlError> {
        let span = e.span();
        if let SExpr::List { items, .. } = e {
            if items.first().and_then(SExpr::as_atom) == Some("<=") {
                let Some(head) = items.get(1) else {
                    let v = Violation::NotASentence { text: self.text(e) };
                    return Err(self.invalid(span, v));
                };
                let head = self.atom(head, "rule head")?;
                let body = items[2..]
                    .iter()
                    .map(|b| self.literal(b, true))
                    .collect::<Result<Vec<_>, _>>()?;
                let alternatives =
                    dnf::expand(&Formula::And(body), MAX_OR_EXPANSION).ok_or_else(|| {
                        self.invalid(
                            span,
                            Violation::OrTooLarge {
                                limit: MAX_OR_EXPANSION,
                                rule: self.text(e),
                            },
                        )
                    })?;
                if alternatives.len() > 1 {
                    self.or_rules += alternatives.len();
                    if self.or_rules > MAX_OR_EXPANSION_TOTAL {
                        let v = Violation::OrTotalTooLarge {
                            limit: MAX_OR_EXPANSION_TOTAL,
                            rule: self.text(e),
                        };
                        return Err(self.invalid(span, v));
                    }
                }
                if let Some(long) = alternatives.iter().find(|b| b.len() > MAX_BODY_LITERALS) {
                    let v = Violation::BodyTooLong {
                        limit: MAX_BODY_LITERALS,
                        literals: long.len(),
                        rule: self.text(e),
                    };
                    return Err(self.invalid(span, v));
                }
                for body in alternatives {
                    out.push(Rule {
                        head: head.clone(),
                        body,
                        span,
                    });
                }
                return Ok(());
            }
        }
        if let SExpr::Atom { text, .. } = e {
            if text.starts_with('?') || text == "<=" {
                return Err(self.invalid(span, Violation::NotASentence { text: text.clone() }));
            }
        }
        let head = self.atom(e, "fact")?;
        out.push(Rule {
            head,
            body: Vec::new(),
            span,
        });
        Ok(())
    }

    /// A relation atom: `p`, `(p)` or `(p t…)`.
    fn atom(&mut self, e: &SExpr, place: &'static str) -> Result<Atom, GdlError> {
        let (name_expr, args) = match e {
            SExpr::Atom { .. } => (e, &[][..]),
            SExpr::List { items, .. } => match items.split_first() {
                Some((first, rest)) => (first, rest),
                None => {
                    return Err(self.invalid(e.span(), Violation::EmptyList { text: self.text(e) }))
                }
            },
        };
        let name = self.name(name_expr, e, "relation")?;
        if is_connective(&name) {
            let v = Violation::MisplacedConnective {
                keyword: name,
                place,
                text: self.text(e),
            };
            return Err(self.invalid(e.span(), v));
        }
        let args = args
            .iter()
            .map(|a| self.term(a, e))
            .collect::<Result<Vec<_>, _>>()?;
        self.rel_arities
            .entry(name.clone())
            .or_default()
            .entry(args.len())
            .or_insert(e.span());
        Ok(Atom {
            rel: self.symbols.intern(&name),
            args,
        })
    }

    /// The folded name in `name_expr`, which must be a symbol (not a variable or list).
    fn name(
        &self,
        name_expr: &SExpr,
        whole: &SExpr,
        what: &'static str,
    ) -> Result<String, GdlError> {
        match name_expr {
            SExpr::Atom { text, .. } if !text.starts_with('?') => Ok(fold_case(text)),
            _ => {
                let v = Violation::BadName {
                    what,
                    found: self.text(name_expr),
                    text: self.text(whole),
                };
                Err(self.invalid(name_expr.span(), v))
            }
        }
    }

    fn term(&mut self, e: &SExpr, parent: &SExpr) -> Result<Term, GdlError> {
        match e {
            SExpr::Atom { text, .. } if text.starts_with('?') => {
                Ok(Term::Var(self.symbols.intern(&fold_case(text))))
            }
            SExpr::Atom { text, .. } if is_connective(&fold_case(text)) => {
                let v = Violation::MisplacedConnective {
                    keyword: fold_case(text),
                    place: "term",
                    text: self.text(parent),
                };
                Err(self.invalid(e.span(), v))
            }
            SExpr::Atom { text, .. } => Ok(Term::Const(self.symbols.intern(&fold_case(text)))),
            SExpr::List { items, .. } => {
                let Some((f, args)) = items.split_first() else {
                    return Err(self.invalid(
                        e.span(),
                        Violation::EmptyList {
                            text: self.text(parent),
                        },
                    ));
                };
                // Only `<=` is barred as a function name: `(and (r ?x) (or s t))` makes
                // `or` a function term of the ordinary relation `and`.
                let name = self.name(f, e, "function")?;
                if name == "<=" {
                    let v = Violation::MisplacedConnective {
                        keyword: name,
                        place: "term",
                        text: self.text(e),
                    };
                    return Err(self.invalid(e.span(), v));
                }
                let args = args
                    .iter()
                    .map(|a| self.term(a, e))
                    .collect::<Result<Vec<_>, _>>()?;
                self.fn_arities
                    .entry(name.clone())
                    .or_default()
                    .entry(args.len())
                    .or_insert(e.span());
                Ok(Term::Fn(self.symbols.intern(&name), args))
            }
        }
    }

    /// A body literal under `positive` polarity, as a formula with `not` pushed to atoms.
    fn literal(&mut self, e: &SExpr, positive: bool) -> Result<Formula, GdlError> {
        if let SExpr::List { items, .. } = e {
            if let Some(SExpr::Atom { text, .. }) = items.first() {
                let name = fold_case(text);
                let args = &items[1..];
                let arity = |expected: usize| {
                    if args.len() == expected {
                        Ok(())
                    } else {
                        Err(Violation::KeywordArity {
                            keyword: name.clone(),
                            expected,
                            found: args.len(),
                            text: self.text(e),
                        })
                    }
                };
                match name.as_str() {
                    "not" => {
                        arity(1).map_err(|v| self.invalid(e.span(), v))?;
                        return self.literal(&args[0], !positive);
                    }
                    "or" => {
                        let parts = args
                            .iter()
                            .map(|a| self.literal(a, positive))
                            .collect::<Result<_, _>>()?;
                        return Ok(if positive {
                            Formula::Or(parts)
                        } else {
                            Formula::And(parts)
                        });
                    }
                    "distinct" => {
                        arity(2).map_err(|v| self.invalid(e.span(), v))?;
                        let a = self.term(&args[0], e)?;
                        let b = self.term(&args[1], e)?;
                        return Ok(Formula::Lit(if positive {
                            super::ast::Lit::Distinct(a, b)
                        } else {
                            super::ast::Lit::Equal(a, b)
                        }));
                    }
                    _ => {}
                }
            }
        }
        let atom = match e {
            // a bare `not`: the proposition `not` (refused outside GDL-II, see gdl2.rs)
            SExpr::Atom { text, .. } if fold_case(text) == "not" => Atom {
                rel: self.symbols.intern("not"),
                args: Vec::new(),
            },
            _ => self.atom(e, "literal without arguments")?,
        };
        Ok(Formula::Lit(if positive {
            super::ast::Lit::Pos(atom)
        } else {
            super::ast::Lit::Neg(atom)
        }))
    }
}
