//! KIF reader: source files with line:column locations ([`SourceFile`]), the lexer
//! ([`lex`]), the s-expression parser ([`parse`]) and printer ([`print`]).
//!
//! This layer knows nothing about GDL: it turns bytes into located s-expressions and back.
//! Errors are [`KifError`]s carrying `file:line:column`, the offending text and a message;
//! no input makes it panic (invalid UTF-8, stray bytes, unbalanced parentheses and absurd
//! nesting are all reported).

mod error;
mod lex;
mod parse;
mod print;
mod source;

pub use error::{KifError, Loc};
pub use lex::{lex, Token, TokenKind};
pub use parse::{parse, SExpr, MAX_DEPTH};
pub use print::{print, print_all, quote, write_sexpr, MAX_QUOTE};
pub use source::SourceFile;
