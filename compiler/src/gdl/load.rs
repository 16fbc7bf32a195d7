//! Entry points of the front end: file or bytes → checked [`Game`].

use std::path::Path;

use super::ast::Program;
use super::deps::RelationInfo;
use super::error::{Diagnostic, GdlError};
use super::{check, lower};
use crate::kif::{self, SourceFile};

/// A loaded, checked game: the normalized program, its source (for locating messages),
/// the warnings and the relation dependency analysis.
#[derive(Clone, Debug)]
pub struct Game {
    /// The normalized program.
    pub program: Program,
    /// The source text; [`SourceFile::loc`] turns a [`super::ast::Span`] into line:column.
    pub source: SourceFile,
    /// Warnings, in order of discovery.
    pub warnings: Vec<Diagnostic>,
    /// Dependency graph, strata, static/dynamic relations.
    pub info: RelationInfo,
}

/// Reads and checks the game at `path`; messages name the file as `path` was given.
///
/// # Errors
/// [`GdlError::Io`] if the file cannot be read, otherwise as [`parse_source`].
pub fn load(path: &Path) -> Result<Game, GdlError> {
    let bytes = std::fs::read(path).map_err(|error| GdlError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    parse_source(&path.display().to_string(), &bytes)
}

/// Parses, lowers and checks the game text `text` (any bytes) read from the file `name`.
///
/// # Errors
/// [`GdlError::Syntax`] for malformed KIF (including invalid UTF-8), and
/// [`GdlError::Invalid`] for KIF that is not valid GDL. Never panics.
pub fn parse_source(name: &str, text: &[u8]) -> Result<Game, GdlError> {
    let source = SourceFile::new(name, text)?;
    let sexprs = kif::parse(&source)?;
    let (program, mut warnings) = lower::lower(&source, &sexprs)?;
    let info = RelationInfo::new(&program);
    check::check(&source, &program, &info, &mut warnings)?;
    Ok(Game {
        program,
        source,
        warnings,
        info,
    })
}

/// Reads ground terms a user typed (moves, fluents) with the same KIF reader and case
/// policy as game rules, and returns each term's canonical text as the netlist names it:
/// `(MARK  1 1)` and `(mark 1 1)` both give `(mark 1 1)`. `name` labels the text in
/// messages (e.g. `--moves`).
///
/// # Errors
/// [`GdlError::Syntax`] (with `name:line:column`) for malformed KIF.
pub fn read_terms(name: &str, text: &str) -> Result<Vec<String>, GdlError> {
    let source = SourceFile::new(name, text.as_bytes())?;
    let sexprs = kif::parse(&source)?;
    Ok(sexprs.iter().map(canonical).collect())
}

/// The canonical text of `e` with every atom case-folded like the rules.
fn canonical(e: &kif::SExpr) -> String {
    match e {
        kif::SExpr::Atom { text, .. } => lower::fold_case(text),
        kif::SExpr::List { items, .. } => {
            let parts: Vec<String> = items.iter().map(canonical).collect();
            format!("({})", parts.join(" "))
        }
    }
}
