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
    let bytes = std::fs::read(path).map_err(|source| GdlError::Io {
        path: path.to_path_buf(),
        source,
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
