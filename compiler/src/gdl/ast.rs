//! The validated GDL program that the reference interpreter and the grounder read.
//!
//! Produced by the front end (`kif` reader → `gdl` lowering and checks). Everything is
//! lower case (GDL is case-insensitive; this matches the oracle). `or` is already expanded
//! to disjunctive normal form (one [`Rule`] per alternative) and `not` is pushed down to
//! atoms, so a rule body is a flat conjunction of [`Lit`]s.

use std::collections::HashMap;

/// An interned symbol (constant, function name, relation name or variable name).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// Symbol table: interns strings to [`Sym`]s and back.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    names: Vec<String>,
    map: HashMap<String, Sym>,
}

impl Symbols {
    /// The symbol for `name`, interning it if new.
    pub fn intern(&mut self, name: &str) -> Sym {
        if let Some(&s) = self.map.get(name) {
            return s;
        }
        let s = Sym(self.names.len() as u32);
        self.names.push(name.to_string());
        self.map.insert(name.to_string(), s);
        s
    }
    /// The first name of `candidates` that is not interned yet, interned: how passes make
    /// names of their own (`split#3`, `demand#cell/2`) that never collide with the game's,
    /// since KIF can spell `#` too. `candidates` must hold an unused name.
    pub fn intern_unused(&mut self, candidates: impl IntoIterator<Item = String>) -> Sym {
        let name = candidates
            .into_iter()
            .find(|n| !self.map.contains_key(n))
            .expect("the candidate names run out before an unused one");
        self.intern(&name)
    }
    /// `base` interned if unused, otherwise the first unused of `base'2`, `base'3`, …
    pub fn fresh(&mut self, base: &str) -> Sym {
        let suffixed = (2..).map(|i| format!("{base}'{i}"));
        self.intern_unused(std::iter::once(base.to_string()).chain(suffixed))
    }
    /// The symbol for `name` if it was interned.
    pub fn get(&self, name: &str) -> Option<Sym> {
        self.map.get(name).copied()
    }
    /// The text of a symbol.
    pub fn name(&self, s: Sym) -> &str {
        &self.names[s.0 as usize]
    }
    /// Number of interned symbols.
    pub fn len(&self) -> usize {
        self.names.len()
    }
    /// True when nothing is interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// A byte range in a source file; [`crate::kif::SourceFile`] turns it into line:column.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

/// A term: variable, constant or function term of any depth.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// A variable; the symbol's text includes the leading `?`.
    Var(Sym),
    /// A constant (numbers are constants too: `07` and `7` differ).
    Const(Sym),
    /// A function term `(f t1 … tn)`; `n` may be 0, and `(f)` differs from the constant `f`.
    Fn(Sym, Vec<Term>),
}

/// A relation applied to arguments. `true`, `does`, `role`, `init`, `next`, `legal`,
/// `goal`, `terminal`, `base`, `input` are ordinary relation names here. A relation is
/// identified by name *and* arity.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    /// Relation name.
    pub rel: Sym,
    /// Arguments (`(p)` in sentence position has none, same as `p`).
    pub args: Vec<Term>,
}

/// One literal of a normalized rule body.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Lit {
    /// A positive atom.
    Pos(Atom),
    /// Negation as failure of an atom.
    Neg(Atom),
    /// `(distinct a b)`: the two (ground, at evaluation time) terms differ.
    Distinct(Term, Term),
    /// `(not (distinct a b))`: the two terms are equal.
    Equal(Term, Term),
}

/// A normalized rule `head :- body` (a fact has an empty body).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The head atom.
    pub head: Atom,
    /// Flat conjunction, in source order (evaluators reorder as they need).
    pub body: Vec<Lit>,
    /// Where the source sentence (`(<= …)` or the fact) stands.
    pub span: Span,
}

/// A validated GDL program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Symbol table for every name in the program.
    pub symbols: Symbols,
    /// Roles in the order of the `role` facts.
    pub roles: Vec<Sym>,
    /// All rules and facts, `or` expanded (one rule per DNF alternative).
    pub rules: Vec<Rule>,
    /// GDL-II mode (Thielscher 2010): a rule names a relation `sees`. Then `sees/2` gives
    /// each role's percepts and the GDL-II dialect applies ([`super::gdl2`]).
    pub gdl2: bool,
}

impl Symbols {
    /// Canonical text of a term: constants as-is, `(f a b)` with single spaces, `(f)` for a
    /// zero-argument function term. This is the oracle's format.
    pub fn term_text(&self, t: &Term) -> String {
        let mut s = String::new();
        self.write_term(&mut s, t);
        s
    }

    /// Appends the canonical text of `t` to `out`.
    pub fn write_term(&self, out: &mut String, t: &Term) {
        match t {
            Term::Var(v) | Term::Const(v) => out.push_str(self.name(*v)),
            Term::Fn(f, args) => {
                out.push('(');
                out.push_str(self.name(*f));
                for a in args {
                    out.push(' ');
                    self.write_term(out, a);
                }
                out.push(')');
            }
        }
    }

    /// Canonical text of an atom: `p` for arity 0, else `(p a b)`.
    pub fn atom_text(&self, a: &Atom) -> String {
        if a.args.is_empty() {
            return self.name(a.rel).to_string();
        }
        let mut s = String::from("(");
        s.push_str(self.name(a.rel));
        for t in &a.args {
            s.push(' ');
            self.write_term(&mut s, t);
        }
        s.push(')');
        s
    }
}
