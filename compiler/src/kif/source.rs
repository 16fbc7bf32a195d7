//! A named source text with byte offset → line:column mapping.

use std::sync::Arc;

use super::{KifError, Loc};
use crate::gdl::ast::Span;

/// A source file held as UTF-8 text plus the byte offsets at which its lines start.
#[derive(Clone, Debug)]
pub struct SourceFile {
    name: Arc<str>,
    text: String,
    /// Byte offset of the first byte of each line; `line_starts[0] == 0`.
    line_starts: Vec<u32>,
}

impl SourceFile {
    /// Wraps `bytes` read from the file `name`.
    ///
    /// # Errors
    /// A [`KifError`] located at the first byte that is not valid UTF-8, or at the start of
    /// the file when it is 4 GiB or larger (offsets are `u32`).
    pub fn new(name: &str, bytes: &[u8]) -> Result<SourceFile, KifError> {
        let name: Arc<str> = Arc::from(name);
        if bytes.len() >= u32::MAX as usize {
            return Err(KifError {
                loc: Loc {
                    file: name,
                    line: 1,
                    col: 1,
                },
                text: String::new(),
                message: format!("file too large ({} bytes; at most 4 GiB)", bytes.len()),
            });
        }
        let line_starts = line_starts(bytes);
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok(SourceFile {
                name,
                text: text.to_string(),
                line_starts,
            }),
            Err(_) if invalid_only_in_comments(bytes) => {
                let text = String::from_utf8_lossy(bytes).into_owned();
                Ok(SourceFile {
                    name,
                    line_starts: self::line_starts(text.as_bytes()),
                    text,
                })
            }
            Err(e) => {
                let bad = e.valid_up_to();
                let len = e.error_len().unwrap_or(bytes.len() - bad);
                let shown: String = bytes[bad..bad + len]
                    .iter()
                    .map(|b| format!("\\x{b:02x}"))
                    .collect();
                // The prefix up to `bad` is valid, so columns can be counted there.
                let src = SourceFile {
                    name,
                    text: String::from_utf8_lossy(&bytes[..bad]).into_owned(),
                    line_starts,
                };
                Err(KifError {
                    loc: src.loc(bad as u32),
                    message: format!(
                        "invalid UTF-8 byte sequence `{shown}` (rules must be UTF-8; re-encode \
                         the file, e.g. `iconv -f latin1 -t utf-8`)"
                    ),
                    text: shown,
                })
            }
        }
    }

    /// The file name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The shared file name (cheap to clone into [`Loc`]s).
    pub fn name_arc(&self) -> &Arc<str> {
        &self.name
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text of `span` (empty if the span is out of range or splits a character).
    pub fn slice(&self, span: Span) -> &str {
        self.text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    /// Number of lines (a final line without newline counts; an empty file has one line).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// 1-based line and column (in characters) of byte `offset`; offsets past the end map
    /// to the end of the text.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let offset = offset.min(self.text.len() as u32);
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let mut end = offset as usize;
        while end > start && !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let col = self.text[start..end].chars().count() + 1;
        (line as u32 + 1, col as u32)
    }

    /// `message` prefixed with `file:line:column` of the rule at `span`, and the rule's text
    /// (whitespace collapsed, cut to 160 characters) on a second line; without a span (or an
    /// empty one), prefixed with the file name only.
    pub fn locate(&self, span: Option<Span>, message: &dyn std::fmt::Display) -> String {
        match span {
            Some(span) if span.end > span.start => {
                let rule: String = self
                    .slice(span)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                let rule = if rule.chars().count() > 160 {
                    rule.chars().take(160).collect::<String>() + "…"
                } else {
                    rule
                };
                format!("{}: {message}\n  in rule: {rule}", self.loc(span.start))
            }
            _ => format!("{}: {message}", self.name()),
        }
    }

    /// The location of byte `offset`.
    pub fn loc(&self, offset: u32) -> Loc {
        let (line, col) = self.line_col(offset);
        Loc {
            file: self.name.clone(),
            line,
            col,
        }
    }
}

/// Whether every invalid UTF-8 sequence of `bytes` stands in a `;` comment (after a `;`
/// outside a `"string"` on its line; files in Latin-1 often have such comments). A
/// comment is never read, so [`SourceFile::new`] replaces those bytes with U+FFFD.
fn invalid_only_in_comments(bytes: &[u8]) -> bool {
    let mut at = 0;
    loop {
        let Err(e) = std::str::from_utf8(&bytes[at..]) else {
            return true;
        };
        let bad = at + e.valid_up_to();
        if !in_comment(bytes, bad) {
            return false;
        }
        match e.error_len() {
            Some(n) => at = bad + n,
            None => return true,
        }
    }
}

/// Whether byte `pos` follows a `;` outside a string on its line.
fn in_comment(bytes: &[u8], pos: usize) -> bool {
    let line_start = bytes[..pos]
        .iter()
        .rposition(|&b| b == b'\n' || b == b'\r')
        .map_or(0, |i| i + 1);
    let mut quoted = false;
    for &b in &bytes[line_start..pos] {
        match b {
            b'"' => quoted = !quoted,
            b';' if !quoted => return true,
            _ => {}
        }
    }
    false
}

/// Offsets at which lines start: after `\n`, and after a `\r` not followed by `\n`.
fn line_starts(bytes: &[u8]) -> Vec<u32> {
    let mut starts = vec![0u32];
    for (i, &b) in bytes.iter().enumerate() {
        let is_break = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        if is_break {
            starts.push(i as u32 + 1);
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_handles_lf_crlf_cr_and_tabs() {
        let src = SourceFile::new("t.kif", b"ab\ncd\r\nef\rg\th").unwrap();
        assert_eq!(src.line_count(), 4);
        assert_eq!(src.line_col(0), (1, 1));
        assert_eq!(src.line_col(1), (1, 2));
        assert_eq!(src.line_col(3), (2, 1));
        assert_eq!(src.line_col(7), (3, 1));
        assert_eq!(src.line_col(10), (4, 1));
        assert_eq!(src.line_col(12), (4, 3));
        assert_eq!(src.loc(12).to_string(), "t.kif:4:3");
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let src = SourceFile::new("u.kif", "(é x)".as_bytes()).unwrap();
        assert_eq!(src.line_col(4), (1, 4));
    }

    #[test]
    fn invalid_utf8_is_located() {
        let err = SourceFile::new("bad.kif", b"(role x)\n(p \xff)").unwrap_err();
        assert_eq!(err.loc.to_string(), "bad.kif:2:4");
        assert_eq!(err.text, "\\xff");
        assert_eq!(
            err.to_string(),
            "bad.kif:2:4: invalid UTF-8 byte sequence `\\xff` (rules must be UTF-8; re-encode \
             the file, e.g. `iconv -f latin1 -t utf-8`)"
        );
        let in_string = SourceFile::new("s.kif", b"(p \"a;\xff\")").unwrap_err();
        assert_eq!(in_string.loc.to_string(), "s.kif:1:7");
    }

    #[test]
    fn invalid_utf8_in_comments_is_replaced() {
        let src = SourceFile::new("c.kif", b"; caf\xe9\n(role x) ; \"q\" \xff\xfe\n(p y)").unwrap();
        assert_eq!(
            src.text(),
            "; caf\u{fffd}\n(role x) ; \"q\" \u{fffd}\u{fffd}\n(p y)"
        );
        assert_eq!(src.line_col(src.text().find("(p").unwrap() as u32), (3, 1));
    }
}
