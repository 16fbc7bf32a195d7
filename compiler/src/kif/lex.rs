//! Lexer: KIF text → tokens with byte spans.
//!
//! Tokens are `(`, `)`, `<=`, `?variables` and symbols. Whitespace is space, tab, `\n`,
//! `\r`, form feed and vertical tab; `;` starts a comment that ends at `\n` or `\r` (or at
//! the end of the file). A symbol is a run of printable ASCII other than `(`, `)`, `;`, or
//! of alphanumeric non-ASCII characters. Anything else (control bytes, other Unicode) is
//! an error at its position.

use super::{KifError, SourceFile};
use crate::gdl::ast::Span;

/// What a token is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `<=` (the rule arrow).
    Implies,
    /// `?name`, a variable.
    Variable,
    /// Any other symbol: constant, relation or function name, number, keyword.
    Symbol,
}

/// One token: its kind and where it stands. Its text is [`SourceFile::slice`] of the span.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Token {
    /// Kind.
    pub kind: TokenKind,
    /// Byte range in the source.
    pub span: Span,
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// True for characters that may appear in a symbol or variable name.
pub(crate) fn is_symbol_char(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_graphic() && !matches!(c, '(' | ')' | ';')
    } else {
        c.is_alphanumeric()
    }
}

/// Splits the whole file into tokens.
///
/// # Errors
/// A [`KifError`] at the first character that can start no token, or at a `?` with no
/// name after it.
pub fn lex(src: &SourceFile) -> Result<Vec<Token>, KifError> {
    let text = src.text();
    let mut tokens = Vec::new();
    let mut it = text.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let start = i as u32;
        let one = |kind| Token {
            kind,
            span: Span {
                start,
                end: start + 1,
            },
        };
        match c {
            '(' => tokens.push(one(TokenKind::LParen)),
            ')' => tokens.push(one(TokenKind::RParen)),
            ';' => {
                while let Some(&(_, c)) = it.peek() {
                    if c == '\n' || c == '\r' {
                        break;
                    }
                    it.next();
                }
            }
            c if is_space(c) => {}
            c if is_symbol_char(c) => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, c)) = it.peek() {
                    if !is_symbol_char(c) {
                        break;
                    }
                    end = j + c.len_utf8();
                    it.next();
                }
                let word = &text[i..end];
                let kind = if word == "<=" {
                    TokenKind::Implies
                } else if word.starts_with('?') {
                    TokenKind::Variable
                } else {
                    TokenKind::Symbol
                };
                if word == "?" {
                    return Err(KifError {
                        loc: src.loc(start),
                        text: word.to_string(),
                        message: "`?` must be followed by a variable name".to_string(),
                    });
                }
                tokens.push(Token {
                    kind,
                    span: Span {
                        start,
                        end: end as u32,
                    },
                });
            }
            c => {
                let shown: String = c.escape_default().collect();
                return Err(KifError {
                    loc: src.loc(start),
                    text: shown.clone(),
                    message: format!("unexpected character `{shown}`"),
                });
            }
        }
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(TokenKind, String)> {
        let src = SourceFile::new("t.kif", text.as_bytes()).unwrap();
        lex(&src)
            .unwrap()
            .iter()
            .map(|t| (t.kind, src.slice(t.span).to_string()))
            .collect()
    }

    #[test]
    fn tokens_and_comments() {
        use TokenKind::*;
        let got = kinds("; c\r(<= (p ?X)\t(q b-1)) ; last line comment");
        let want = [
            (LParen, "("),
            (Implies, "<="),
            (LParen, "("),
            (Symbol, "p"),
            (Variable, "?X"),
            (RParen, ")"),
            (LParen, "("),
            (Symbol, "q"),
            (Symbol, "b-1"),
            (RParen, ")"),
            (RParen, ")"),
        ];
        let want: Vec<_> = want.iter().map(|(k, s)| (*k, s.to_string())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn comment_ends_at_lone_cr() {
        let got = kinds(";x\rp");
        assert_eq!(got, vec![(TokenKind::Symbol, "p".to_string())]);
    }

    #[test]
    fn control_byte_is_an_error_with_location() {
        let src = SourceFile::new("t.kif", b"(p a)\n  (q \x01)").unwrap();
        let err = lex(&src).unwrap_err();
        assert_eq!(err.to_string(), "t.kif:2:6: unexpected character `\\u{1}`");
    }

    #[test]
    fn lone_question_mark_is_an_error() {
        let src = SourceFile::new("t.kif", b"(p ? a)").unwrap();
        let err = lex(&src).unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.kif:1:4: `?` must be followed by a variable name"
        );
    }
}
