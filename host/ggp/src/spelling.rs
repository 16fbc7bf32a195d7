//! Symbol spelling: the KIF reader folds case, but a game manager compares moves as text,
//! so moves go back spelled as in the rules received. [`Spelling`] remembers each symbol's
//! first spelling and re-spells canonical (lower-case) terms with it.

use propnet_compiler::gdl::lower::fold_case;
use propnet_compiler::kif::{self, SExpr, SourceFile};
use std::collections::HashMap;

/// Folded symbol → its spelling at first occurrence in the rules.
#[derive(Clone, Debug, Default)]
pub struct Spelling {
    map: HashMap<String, String>,
}

impl Spelling {
    /// Learns the spellings of every symbol (not variables) in `rules`, first one wins.
    pub fn from_rules(rules: &[SExpr]) -> Self {
        let mut s = Self::default();
        let mut stack: Vec<&SExpr> = rules.iter().rev().collect();
        while let Some(e) = stack.pop() {
            match e {
                SExpr::Atom { text, .. } => {
                    if !text.starts_with('?') {
                        s.map.entry(fold_case(text)).or_insert_with(|| text.clone());
                    }
                }
                SExpr::List { items, .. } => stack.extend(items.iter().rev()),
            }
        }
        s
    }

    /// The original spelling of one folded symbol (itself when unknown).
    pub fn symbol<'a>(&'a self, folded: &'a str) -> &'a str {
        self.map.get(folded).map_or(folded, String::as_str)
    }

    /// `term` (canonical text, e.g. `(mark 1 2)`) with every symbol spelled as in the
    /// rules; text that does not read as one KIF term is returned unchanged.
    pub fn respell(&self, term: &str) -> String {
        let parsed = SourceFile::new("move", term.as_bytes())
            .ok()
            .and_then(|src| kif::parse(&src).ok());
        match parsed.as_deref() {
            Some([e]) => {
                let mut out = String::new();
                write_with(&mut out, e, &|t, o| o.push_str(self.symbol(t)));
                out
            }
            _ => term.to_string(),
        }
    }
}

/// Appends `e` as text with single spaces, each atom written by `atom` (so that printing,
/// case folding and re-spelling share one walk).
pub fn write_with(out: &mut String, e: &SExpr, atom: &dyn Fn(&str, &mut String)) {
    match e {
        SExpr::Atom { text, .. } => atom(text, out),
        SExpr::List { items, .. } => {
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_with(out, item, atom);
            }
            out.push(')');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_get_the_rules_spelling_back() {
        let src = SourceFile::new(
            "r",
            b"(ROLE White) (<= (LEGAL ?p (Mark ?x 1)) (true ?p)) (mark a)",
        )
        .unwrap();
        let rules = kif::parse(&src).unwrap();
        let s = Spelling::from_rules(&rules);
        assert_eq!(s.respell("(mark 2 1)"), "(Mark 2 1)");
        assert_eq!(s.respell("white"), "White");
        assert_eq!(s.respell("noop"), "noop");
        assert_eq!(s.respell("(legal ?p"), "(legal ?p");
        assert_eq!(s.symbol("?p"), "?p");
    }
}
