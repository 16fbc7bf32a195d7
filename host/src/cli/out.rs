//! The one writer of standard output for every subcommand: `outln!` and `out!` (defined
//! in `cli/mod.rs`, visible in every subcommand module) write like `println!`/`print!` but return a write error (a full
//! disk, a closed pipe) as an [`anyhow::Error`] instead of panicking, so `main` ends with
//! exit status 1 and one line on stderr (a closed pipe ends quietly with status 0).
//! Files at paths the user names are written by `propnet_output` (atomic for regular
//! files, in place for special files, never replacing a symlink).

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
