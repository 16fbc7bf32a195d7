//! Located errors of the KIF reader.

use std::fmt;
use std::sync::Arc;

/// A 1-based `line:column` position in a named file; displays as `file:line:column`.
///
/// Columns count characters (a tab is one column), lines are separated by `\n`, `\r\n` or
/// a lone `\r`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Loc {
    /// File name as given to [`super::SourceFile::new`].
    pub file: Arc<str>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// A syntax error: where, the offending text (possibly empty, e.g. at end of file) and
/// what is wrong. Displays as `file:line:column: message`; the message quotes the
/// offending text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{loc}: {message}")]
pub struct KifError {
    /// Where the problem starts.
    pub loc: Loc,
    /// The offending source text (a token, a byte shown escaped, or empty).
    pub text: String,
    /// Human-readable description, including the offending text.
    pub message: String,
}
