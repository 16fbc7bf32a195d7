//! Canonical term text of moves, fluents and roles written by other reasoners.
//!
//! The oracle's canonical form (`shared/oracle/README.md`): lower case, constants as they
//! are, a compound term `(f a b)` with single spaces, a zero-argument function `(f)`
//! distinct from the constant `f`. Other reasoners write the same terms differently:
//! ggp-base prints `( mark 1 1 )`, the 2006 competition files are upper case. [`canonical`]
//! maps any of these to the one text the netlist and the interpreter use.

/// Why a term text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TermError {
    /// Nothing but white space.
    #[error("empty term")]
    Empty,
    /// A `(` without its `)`.
    #[error("unbalanced `(` in `{0}`")]
    Unclosed(String),
    /// A `)` without its `(`, or text after the term.
    #[error("unexpected `{found}` after the term in `{text}`")]
    Trailing {
        /// The offending text.
        found: String,
        /// The whole input.
        text: String,
    },
    /// `()`: a list without a function name.
    #[error("`()` is not a term (in `{0}`)")]
    EmptyList(String),
}

/// The tokens of `text`: `(`, `)` and symbols; a `"string"` is one symbol, quotes included,
/// as the rules' reader has it (an unterminated one runs to the end).
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let mut quoted_until = 0;
    for (i, c) in text.char_indices() {
        if i < quoted_until {
            continue;
        }
        if c == '"' && start.is_none() {
            let close = text[i + 1..]
                .find('"')
                .map_or(text.len(), |k| i + 1 + k + 1);
            out.push(&text[i..close]);
            quoted_until = close;
            continue;
        }
        let delim = c == '(' || c == ')' || c.is_whitespace();
        if delim {
            if let Some(s) = start.take() {
                out.push(&text[s..i]);
            }
            if !c.is_whitespace() {
                out.push(&text[i..i + 1]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

/// Writes the term starting at `toks[*at]` to `out`, advancing `at`.
fn term(toks: &[&str], at: &mut usize, out: &mut String, text: &str) -> Result<(), TermError> {
    match toks.get(*at) {
        None => Err(TermError::Unclosed(text.to_string())),
        Some(&"(") => {
            *at += 1;
            out.push('(');
            let mut first = true;
            loop {
                match toks.get(*at) {
                    None => return Err(TermError::Unclosed(text.to_string())),
                    Some(&")") if first => return Err(TermError::EmptyList(text.to_string())),
                    Some(&")") => {
                        *at += 1;
                        out.push(')');
                        return Ok(());
                    }
                    Some(_) => {
                        if !first {
                            out.push(' ');
                        }
                        first = false;
                        term(toks, at, out, text)?;
                    }
                }
            }
        }
        Some(&")") => Err(TermError::Trailing {
            found: ")".into(),
            text: text.to_string(),
        }),
        Some(atom) => {
            *at += 1;
            out.push_str(&atom.to_lowercase());
            Ok(())
        }
    }
}

/// The canonical text of one term written in any case and spacing:
/// `( MARK 1  1 )` → `(mark 1 1)`, `NOOP` → `noop`, `(f)` stays `(f)`.
///
/// # Errors
/// [`TermError`] for empty text, unbalanced parentheses, `()` or text after the term.
pub fn canonical(text: &str) -> Result<String, TermError> {
    let toks = tokens(text);
    if toks.is_empty() {
        return Err(TermError::Empty);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    term(&toks, &mut at, &mut out, text)?;
    match toks.get(at) {
        None => Ok(out),
        Some(t) => Err(TermError::Trailing {
            found: (*t).to_string(),
            text: text.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spacing_and_case_are_normalised() {
        assert_eq!(canonical("( MARK 1  1 )").unwrap(), "(mark 1 1)");
        assert_eq!(canonical("noop").unwrap(), "noop");
        assert_eq!(canonical(" NoOp ").unwrap(), "noop");
        assert_eq!(canonical("(f)").unwrap(), "(f)");
        assert_eq!(canonical("( f )").unwrap(), "(f)");
        assert_eq!(
            canonical("(move (pos a 1)\t(pos B 2))").unwrap(),
            "(move (pos a 1) (pos b 2))"
        );
    }

    #[test]
    fn malformed_terms_are_errors() {
        assert_eq!(canonical("  "), Err(TermError::Empty));
        assert!(matches!(canonical("(mark 1"), Err(TermError::Unclosed(_))));
        assert!(matches!(canonical("()"), Err(TermError::EmptyList(_))));
        assert!(matches!(canonical("a b"), Err(TermError::Trailing { .. })));
        assert!(matches!(canonical(")"), Err(TermError::Trailing { .. })));
    }

    #[test]
    fn strings_are_one_symbol_like_in_the_rules() {
        assert_eq!(canonical("\"Hello World\"").unwrap(), "\"hello world\"");
        assert_eq!(
            canonical("(say \"a (b) c\"  x)").unwrap(),
            "(say \"a (b) c\" x)"
        );
    }
}
