//! Parser: tokens → s-expressions with spans (iterative, so deep nesting cannot overflow
//! the stack; nesting beyond [`MAX_DEPTH`] is reported as an error).

use super::{lex, KifError, SourceFile, TokenKind};
use crate::gdl::ast::Span;

/// Deepest list nesting accepted. Real games nest a handful of levels; the limit keeps
/// every later recursive walk (lowering, printing, dropping) far from stack overflow.
pub const MAX_DEPTH: usize = 500;

/// An s-expression with the byte range it was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SExpr {
    /// A symbol, `?variable` or `<=`, with its text exactly as written (case kept).
    Atom {
        /// Source text of the token.
        text: String,
        /// Where it stands.
        span: Span,
    },
    /// A parenthesized list `( … )`; the span covers both parentheses.
    List {
        /// The elements.
        items: Vec<SExpr>,
        /// Where it stands.
        span: Span,
    },
}

impl SExpr {
    /// The byte range of this expression.
    pub fn span(&self) -> Span {
        match self {
            SExpr::Atom { span, .. } | SExpr::List { span, .. } => *span,
        }
    }

    /// The text if this is an atom.
    pub fn as_atom(&self) -> Option<&str> {
        match self {
            SExpr::Atom { text, .. } => Some(text),
            SExpr::List { .. } => None,
        }
    }

    /// Nesting depth: 0 for an atom, 1 + deepest element for a list.
    pub fn depth(&self) -> usize {
        match self {
            SExpr::Atom { .. } => 0,
            SExpr::List { items, .. } => 1 + items.iter().map(SExpr::depth).max().unwrap_or(0),
        }
    }
}

/// Parses a whole file into its top-level s-expressions, in order.
///
/// # Errors
/// Lexer errors, a `)` with no open list ("unexpected `)`"), end of file inside a list
/// (located at the unclosed `(`), or nesting deeper than [`MAX_DEPTH`].
pub fn parse(src: &SourceFile) -> Result<Vec<SExpr>, KifError> {
    let tokens = lex(src)?;
    let err = |at: u32, text: &str, message: String| KifError {
        loc: src.loc(at),
        text: text.to_string(),
        message,
    };
    let mut top = Vec::new();
    // Open lists: start offset of the `(` and the items read so far.
    let mut stack: Vec<(u32, Vec<SExpr>)> = Vec::new();
    for tok in &tokens {
        let text = src.slice(tok.span);
        let done = match tok.kind {
            TokenKind::LParen => {
                if stack.len() >= MAX_DEPTH {
                    return Err(err(
                        tok.span.start,
                        text,
                        format!("lists nested deeper than {MAX_DEPTH} levels"),
                    ));
                }
                stack.push((tok.span.start, Vec::new()));
                continue;
            }
            TokenKind::RParen => match stack.pop() {
                Some((start, items)) => SExpr::List {
                    items,
                    span: Span {
                        start,
                        end: tok.span.end,
                    },
                },
                None => {
                    return Err(err(
                        tok.span.start,
                        text,
                        "unexpected `)` with no open `(`".to_string(),
                    ))
                }
            },
            TokenKind::Implies | TokenKind::Variable | TokenKind::Symbol => SExpr::Atom {
                text: text.to_string(),
                span: tok.span,
            },
        };
        match stack.last_mut() {
            Some((_, items)) => items.push(done),
            None => top.push(done),
        }
    }
    if let Some((start, _)) = stack.last() {
        let open = stack.len();
        return Err(err(
            *start,
            "(",
            format!("end of file inside this list ({open} unclosed `(`; missing `)`)"),
        ));
    }
    Ok(top)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<Vec<SExpr>, KifError> {
        parse(&SourceFile::new("t.kif", text.as_bytes())?)
    }

    #[test]
    fn parses_nested_lists_with_spans() {
        let got = parse_str("p (q (f a) ?x)").unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[0],
            SExpr::Atom {
                text: "p".into(),
                span: Span { start: 0, end: 1 }
            }
        );
        let SExpr::List { items, span } = &got[1] else {
            panic!("not a list")
        };
        assert_eq!(*span, Span { start: 2, end: 14 });
        assert_eq!(items.len(), 3);
        assert_eq!(items[1].span(), Span { start: 5, end: 10 });
        assert_eq!(got[1].depth(), 2);
    }

    #[test]
    fn stray_close_paren_is_located() {
        let err = parse_str("(role x)\n(p a))\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.kif:2:6: unexpected `)` with no open `(`"
        );
        assert_eq!(err.text, ")");
    }

    #[test]
    fn eof_inside_list_points_at_the_open_paren() {
        let err = parse_str("(role x)\r\n  (<= (p ?x)\r\n (q ?x)").unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.kif:2:3: end of file inside this list (1 unclosed `(`; missing `)`)"
        );
    }

    #[test]
    fn too_deep_nesting_is_an_error_not_a_crash() {
        let text = "(".repeat(100_000);
        let err = parse_str(&text).unwrap_err();
        assert_eq!(err.loc.col as usize, MAX_DEPTH + 1);
        assert!(err.message.contains("nested deeper"), "{err}");
    }
}
