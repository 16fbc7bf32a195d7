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
    let bytes = read_file(path)?;
    parse_source(&path.display().to_string(), &bytes)
}

/// Most bytes a file read whole may have (game rules, a netlist, a trace): 256 MiB, far
/// above any real game (the largest are a few MB), so that `/dev/zero` or a wrong path
/// fails at once with a clear message instead of filling memory.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Reads the whole file at `path`, at most [`MAX_INPUT_BYTES`]: a larger regular file is
/// refused before reading, a device or pipe once it has given that many bytes.
///
/// # Errors
/// [`GdlError::Io`] (`PATH: cannot read file: …`) when the file cannot be read or is too
/// large.
pub fn read_file(path: &Path) -> Result<Vec<u8>, GdlError> {
    let io = |error| GdlError::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    if size > MAX_INPUT_BYTES {
        return Err(io(too_large(MAX_INPUT_BYTES)));
    }
    read_limited(file, MAX_INPUT_BYTES).map_err(io)
}

/// Reads `reader` to its end, failing once it has given more than `limit` bytes (a pipe,
/// stdin or a device has no size to check before reading).
///
/// # Errors
/// The reader's error, or [`std::io::ErrorKind::FileTooLarge`] with a message saying the
/// limit and what to check.
pub fn read_limited(reader: impl std::io::Read, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    reader.take(limit + 1).read_to_end(&mut bytes)?;
    match bytes.len() as u64 > limit {
        true => Err(too_large(limit)),
        false => Ok(bytes),
    }
}

/// The error of an input over `limit` bytes.
fn too_large(limit: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::FileTooLarge,
        format!(
            "more than {} MiB, the most a game, netlist or trace file may have: is it the \
             right file?",
            limit >> 20
        ),
    )
}

/// Parses, lowers and checks the game text `text` (any bytes) read from the file `name`.
///
/// # Errors
/// [`GdlError::Syntax`] for malformed KIF (including invalid UTF-8), and
/// [`GdlError::Invalid`] for KIF that is not valid GDL. Never panics.
pub fn parse_source(name: &str, text: &[u8]) -> Result<Game, GdlError> {
    let source = SourceFile::new(name, text)?;
    let sexprs = kif::parse(&source)?;
    let (mut program, mut warnings) = lower::lower(&source, &sexprs)?;
    super::gdl2::prepare(&source, &mut program, &mut warnings)?;
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
