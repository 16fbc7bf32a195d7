//! The one writer of standard output for every subcommand: `outln!` and `out!` (defined
//! in `cli/mod.rs`, visible in every subcommand module) write like `println!`/`print!` but return a write error (a full
//! disk, a closed pipe) as an [`anyhow::Error`] instead of panicking, so `main` ends with
//! exit status 1 and one line on stderr (a closed pipe ends quietly with status 0).

use std::fmt;
use std::io::Write;

/// Writes `args` (and a newline when `newline`) to standard output.
///
/// # Errors
/// `cannot write to standard output: …` wrapping the [`std::io::Error`].
pub fn write(args: fmt::Arguments<'_>, newline: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| {
            if newline {
                out.write_all(b"\n")
            } else {
                Ok(())
            }
        })
        .map_err(wrap)
}

/// Flushes standard output (at the end of a command; `print!` output without a final
/// newline is still buffered).
///
/// # Errors
/// As [`write`].
pub fn flush() -> anyhow::Result<()> {
    std::io::stdout().lock().flush().map_err(wrap)
}

/// The error of a failed write to standard output.
pub fn wrap(e: std::io::Error) -> anyhow::Error {
    anyhow::Error::new(e).context("cannot write to standard output")
}

/// A file written at the end of a long command but checked at its start: [`Self::prepare`]
/// creates `PATH.partial` beside it at once (so a missing or read-only folder is reported
/// before minutes of compiling), and [`Self::finish`] writes the text there and renames it
/// over `PATH`. A command that fails in between leaves no file and no old file truncated.
pub struct OutputFile {
    path: std::path::PathBuf,
    partial: std::path::PathBuf,
}

impl OutputFile {
    /// Creates the partial file beside `path`.
    ///
    /// # Errors
    /// `cannot write PATH: …` when the folder is missing or not writable.
    pub fn prepare(path: &std::path::Path) -> anyhow::Result<Self> {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".partial");
        let partial = path.with_file_name(name);
        std::fs::File::create(&partial)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        Ok(Self {
            path: path.to_path_buf(),
            partial,
        })
    }

    /// Writes `text` and moves it into place.
    ///
    /// # Errors
    /// `cannot write PATH: …` (a full disk).
    pub fn finish(self, text: &str) -> anyhow::Result<()> {
        std::fs::write(&self.partial, text)
            .and_then(|()| std::fs::rename(&self.partial, &self.path))
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", self.path.display()))
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        // After `finish` the partial file is gone (renamed); otherwise it is removed.
        let _ = std::fs::remove_file(&self.partial);
    }
}
