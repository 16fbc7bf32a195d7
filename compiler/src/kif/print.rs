//! Printer: s-expressions → canonical text (single spaces, no line breaks), so that
//! `print(parse(print(e))) == print(e)`.

use super::SExpr;

/// Appends the text of `e` to `out`: atoms as written, lists as `(a b c)`.
pub fn write_sexpr(out: &mut String, e: &SExpr) {
    match e {
        SExpr::Atom { text, .. } => out.push_str(text),
        SExpr::List { items, .. } => {
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_sexpr(out, item);
            }
            out.push(')');
        }
    }
}

/// The text of one s-expression.
pub fn print(e: &SExpr) -> String {
    let mut s = String::new();
    write_sexpr(&mut s, e);
    s
}

/// The text of a file's s-expressions, one per line.
pub fn print_all(es: &[SExpr]) -> String {
    let mut s = String::new();
    for e in es {
        write_sexpr(&mut s, e);
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kif::{parse, SourceFile};

    #[test]
    fn prints_canonically_and_round_trips() {
        let src = SourceFile::new("t.kif", b"(<=  (P ?x)\r\n\t(q (f) a) ) ; c\nr").unwrap();
        let es = parse(&src).unwrap();
        let text = print_all(&es);
        assert_eq!(text, "(<= (P ?x) (q (f) a))\nr\n");
        let again = parse(&SourceFile::new("u.kif", text.as_bytes()).unwrap()).unwrap();
        assert_eq!(print_all(&again), text);
    }
}

/// Longest sentence text quoted in messages, in characters; longer ones end in `…`.
pub const MAX_QUOTE: usize = 240;

/// The source text of `span` in canonical spacing (comments and line breaks dropped, case
/// kept), shortened to [`MAX_QUOTE`] characters: used to quote rules in messages.
pub fn quote(src: &super::SourceFile, span: crate::gdl::ast::Span) -> String {
    let raw = src.slice(span);
    let mut out = String::new();
    let mut prev_open = true;
    let tokens = super::SourceFile::new("", raw.as_bytes()).and_then(|s| {
        let toks = super::lex(&s)?;
        Ok(toks
            .iter()
            .map(|t| (t.kind, s.slice(t.span).to_string()))
            .collect::<Vec<_>>())
    });
    match tokens {
        Ok(tokens) => {
            for (kind, text) in tokens {
                let close = kind == super::TokenKind::RParen;
                if !prev_open && !close {
                    out.push(' ');
                }
                out.push_str(&text);
                prev_open = kind == super::TokenKind::LParen;
            }
        }
        Err(_) => out.push_str(raw),
    }
    if out.chars().count() > MAX_QUOTE {
        out = out.chars().take(MAX_QUOTE - 1).collect();
        out.push('…');
    }
    out
}
