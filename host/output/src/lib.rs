//! Output files: atomic for regular files, in place for special files, never replaces a
//! symlink.
//!
//! Every file propnet writes at a path a user names (`compile -o`, the files of `hdl -o`,
//! `compare --out`, `bench --results`, `match --json-out` and `--record-dir`, the player's
//! `--log-dir` logs, the FPGA tools' logs) goes through this crate, so every command treats
//! the path alike:
//!
//! - a **regular file**, or a missing one, is written to a fresh temporary file beside it
//!   (`NAME.PID-N.partial`, created exclusively) and renamed over it at the end: nobody
//!   reads half a file, a command that fails leaves the old file as it was, and the old
//!   file's permissions are kept;
//! - a **symlink** is followed (a chain too, and links among the folders) and its target
//!   written as above, in the target's own folder: the link stays the same link;
//! - a **character device** (`/dev/null`, a terminal) or a **FIFO** is opened and written
//!   in place, with no temporary file; a FIFO that nobody reads is refused at once
//!   ([`OutputError::NoReader`]) instead of blocking forever;
//! - a path through `/proc` (`/dev/stdout`, `/dev/fd/1`) names an open descriptor: it is
//!   written in place (appended to, when it is a regular file);
//! - a folder, a block device or a socket is refused with a message that says what to give.
//!
//! [`write`] writes a whole file; [`check`] checks a path early without opening it;
//! [`folder`] makes an output folder (and refuses a path that holds anything else);
//! [`Output`] is prepared early (so a missing folder or a
//! FIFO without a reader is reported before minutes of work) and finished later, and its
//! [`Output::file`] can be handed to a child process; [`append`] opens a log to append
//! to. Nothing here panics.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Most symbolic links followed from one path (Linux's own limit).
pub const MAX_LINKS: usize = 40;

/// Why an output file could not be written; every message starts `cannot write PATH:`
/// (the path as given) and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// An I/O error (permissions, a full disk, a read-only file system).
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// The path as given.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The folder that would hold the file does not exist.
    #[error(
        "cannot write {}: the folder {} does not exist; create it first or give another path",
        path.display(),
        folder.display()
    )]
    MissingFolder {
        /// The path as given.
        path: PathBuf,
        /// The missing folder (after following symlinks).
        folder: PathBuf,
    },
    /// The path is a folder.
    #[error("cannot write {}: it is a folder; give the path of a file", path.display())]
    Folder {
        /// The path as given.
        path: PathBuf,
    },
    /// The path is a FIFO that no process has open for reading.
    #[error(
        "cannot write {}: it is a FIFO that nothing reads; start its reader first (e.g. `cat {}`) or give the path of a file",
        path.display(),
        path.display()
    )]
    NoReader {
        /// The path as given.
        path: PathBuf,
    },
    /// The path is a special file that propnet does not write into.
    #[error(
        "cannot write {}: it is a {kind}; give the path of a regular file (or of a FIFO or a character device)",
        path.display()
    )]
    Refused {
        /// The path as given.
        path: PathBuf,
        /// `block device` or `socket`.
        kind: &'static str,
    },
    /// An output folder's path holds something else.
    #[error(
        "cannot write into {}: it is a {kind}, not a folder; give a folder (it is created when missing)",
        path.display()
    )]
    NotAFolder {
        /// The path as given.
        path: PathBuf,
        /// `file`, `FIFO`, `character device`, …
        kind: &'static str,
    },
    /// Following the path's symlinks did not end.
    #[error(
        "cannot write {}: more than {MAX_LINKS} symbolic links to follow (a loop?); give the path of a file",
        path.display()
    )]
    LinkLoop {
        /// The path as given.
        path: PathBuf,
    },
}

impl OutputError {
    /// The path as given.
    pub fn path(&self) -> &Path {
        match self {
            Self::Io { path, .. }
            | Self::MissingFolder { path, .. }
            | Self::Folder { path }
            | Self::NoReader { path }
            | Self::Refused { path, .. }
            | Self::NotAFolder { path, .. }
            | Self::LinkLoop { path } => path,
        }
    }
}

impl From<OutputError> for std::io::Error {
    fn from(e: OutputError) -> Self {
        let kind = match &e {
            OutputError::Io { source, .. } => source.kind(),
            OutputError::MissingFolder { .. } => std::io::ErrorKind::NotFound,
            _ => std::io::ErrorKind::InvalidInput,
        };
        std::io::Error::new(kind, e)
    }
}

/// What a path names once its symlinks are followed.
#[derive(Debug)]
enum Place {
    /// A regular file or nothing, at this path (no symlink in it): written atomically.
    File(PathBuf),
    /// A path through `/proc` (an open descriptor): opened as given, written in place.
    Descriptor,
}

/// The kinds of file a path can hold.
#[derive(Debug)]
enum Kind {
    Missing,
    Regular(std::fs::Permissions),
    Folder,
    Fifo,
    CharDevice,
    Other(&'static str),
}

fn kind_of(meta: std::io::Result<std::fs::Metadata>) -> std::io::Result<Kind> {
    let meta = match meta {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Kind::Missing),
        Err(e) => return Err(e),
    };
    let t = meta.file_type();
    if t.is_file() {
        return Ok(Kind::Regular(meta.permissions()));
    }
    if t.is_dir() {
        return Ok(Kind::Folder);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Ok(Kind::Fifo);
        }
        if t.is_char_device() {
            return Ok(Kind::CharDevice);
        }
        if t.is_block_device() {
            return Ok(Kind::Other("block device"));
        }
        if t.is_socket() {
            return Ok(Kind::Other("socket"));
        }
    }
    Ok(Kind::Other("special file"))
}

/// `p` with its folder's symlinks resolved (when the folder exists).
fn real_folder(p: &Path) -> PathBuf {
    match (p.parent(), p.file_name()) {
        (Some(dir), Some(name)) if !dir.as_os_str().is_empty() => std::fs::canonicalize(dir)
            .map(|d| d.join(name))
            .unwrap_or_else(|_| p.to_path_buf()),
        _ => p.to_path_buf(),
    }
}

/// Follows the symlinks of `path` to what it names.
fn resolve(path: &Path) -> Result<Place, OutputError> {
    let io = |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut p = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        p = real_folder(&p);
        if p.starts_with("/proc") {
            return Ok(Place::Descriptor);
        }
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&p).map_err(io)?;
                p = match p.parent() {
                    Some(dir) if !link.is_absolute() => dir.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(Place::File(p)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // A link whose text is no path (`pipe:[…]`) that the kernel still opens.
                if std::fs::metadata(path).is_ok() && p != path {
                    return Ok(Place::Descriptor);
                }
                return Ok(Place::File(p));
            }
            Err(e) => return Err(io(e)),
        }
    }
    Err(OutputError::LinkLoop {
        path: path.to_path_buf(),
    })
}

/// Opens the FIFO `fifo` for writing, refusing it when nothing reads it.
fn open_fifo(fifo: &Path, shown: &Path) -> Result<File, OutputError> {
    let io = |source| OutputError::Io {
        path: shown.to_path_buf(),
        source,
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Without a reader a plain open blocks; a non-blocking one fails with ENXIO.
        let probe = OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(fifo);
        match probe {
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => Err(OutputError::NoReader {
                path: shown.to_path_buf(),
            }),
            Err(e) => Err(io(e)),
            // A reader is there, so this blocking open returns at once; the probe is held
            // until then so the FIFO never lacks a writer in between.
            Ok(probe) => {
                let file = OpenOptions::new().write(true).open(fifo).map_err(io);
                drop(probe);
                file
            }
        }
    }
    #[cfg(not(unix))]
    {
        OpenOptions::new().write(true).open(fifo).map_err(io)
    }
}

/// Opens `target` (of kind `kind`) in place; `append` for a regular file.
fn open_in_place(target: &Path, kind: Kind, shown: &Path) -> Result<File, OutputError> {
    let shown_buf = || shown.to_path_buf();
    let io = |source| OutputError::Io {
        path: shown_buf(),
        source,
    };
    match kind {
        Kind::Fifo => open_fifo(target, shown),
        Kind::CharDevice => OpenOptions::new().write(true).open(target).map_err(io),
        Kind::Regular(_) | Kind::Missing => OpenOptions::new()
            .create(true)
            .append(true)
            .open(target)
            .map_err(|e| missing_folder(target, shown, e)),
        Kind::Folder => Err(OutputError::Folder { path: shown_buf() }),
        Kind::Other(kind) => Err(OutputError::Refused {
            path: shown_buf(),
            kind,
        }),
    }
}

/// `e` from creating `target`, as [`OutputError::MissingFolder`] when its folder is missing.
fn missing_folder(target: &Path, shown: &Path, e: std::io::Error) -> OutputError {
    let folder = target.parent().filter(|d| !d.as_os_str().is_empty());
    match folder {
        Some(d) if e.kind() == std::io::ErrorKind::NotFound && !d.is_dir() => {
            OutputError::MissingFolder {
                path: shown.to_path_buf(),
                folder: d.to_path_buf(),
            }
        }
        _ => OutputError::Io {
            path: shown.to_path_buf(),
            source: e,
        },
    }
}

/// Where an [`Output`]'s bytes go.
#[derive(Debug)]
enum Sink {
    /// A temporary file renamed over `target` by [`Output::commit`].
    Atomic {
        file: File,
        temp: PathBuf,
        target: PathBuf,
        committed: bool,
    },
    /// A special file (or a descriptor) written directly.
    InPlace(File),
}

/// One output file, opened now and finished later: see the crate's doc for what each kind
/// of path gets. Dropped without [`Output::commit`], it leaves the old file as it was and
/// no temporary file.
#[derive(Debug)]
pub struct Output {
    path: PathBuf,
    sink: Sink,
}

/// Numbers the temporary files of one process.
static SEQUENCE: AtomicU64 = AtomicU64::new(0);

impl Output {
    /// Opens `path` for writing: creates the temporary file beside a regular (or missing)
    /// file, opens a character device or a FIFO.
    ///
    /// # Errors
    /// [`OutputError`]: a folder, a FIFO without a reader, a block device or socket, a
    /// missing folder, a symlink loop, or the I/O error.
    pub fn create(path: &Path) -> Result<Self, OutputError> {
        let shown = path.to_path_buf();
        let sink = match resolve(path)? {
            Place::Descriptor => {
                let kind = kind_of(std::fs::metadata(path)).map_err(|source| OutputError::Io {
                    path: shown.clone(),
                    source,
                })?;
                Sink::InPlace(open_in_place(path, kind, path)?)
            }
            Place::File(target) => {
                let kind = kind_of(std::fs::symlink_metadata(&target)).map_err(|source| {
                    OutputError::Io {
                        path: shown.clone(),
                        source,
                    }
                })?;
                match kind {
                    Kind::Missing => Self::temp_beside(&target, path, None)?,
                    Kind::Regular(perm) => Self::temp_beside(&target, path, Some(perm))?,
                    other => Sink::InPlace(open_in_place(&target, other, path)?),
                }
            }
        };
        Ok(Self { path: shown, sink })
    }

    /// A fresh temporary file beside `target`, with `perm` when given.
    fn temp_beside(
        target: &Path,
        shown: &Path,
        perm: Option<std::fs::Permissions>,
    ) -> Result<Sink, OutputError> {
        let Some(name) = target.file_name() else {
            return Err(OutputError::Folder {
                path: shown.to_path_buf(),
            });
        };
        let mut temp_name = name.to_os_string();
        temp_name.push(format!(
            ".{}-{}.partial",
            std::process::id(),
            SEQUENCE.fetch_add(1, Ordering::Relaxed)
        ));
        let temp = target.with_file_name(temp_name);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(|e| missing_folder(target, shown, e))?;
        let sink = Sink::Atomic {
            file,
            temp,
            target: target.to_path_buf(),
            committed: false,
        };
        if let (Some(perm), Sink::Atomic { file, .. }) = (perm, &sink) {
            // Keeping the old file's mode is a courtesy; a failure (another owner) is not
            // worth failing the command for.
            let _ = file.set_permissions(perm);
        }
        Ok(sink)
    }

    /// The path as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the bytes go straight to a special file (no temporary file, no rename).
    pub fn in_place(&self) -> bool {
        matches!(self.sink, Sink::InPlace(_))
    }

    /// The open file the bytes go to (the temporary file, or the special file), e.g. to
    /// hand to a child process as its output.
    pub fn file(&self) -> &File {
        match &self.sink {
            Sink::Atomic { file, .. } | Sink::InPlace(file) => file,
        }
    }

    fn io(&self, source: std::io::Error) -> OutputError {
        OutputError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// Writes `bytes`.
    ///
    /// # Errors
    /// [`OutputError::Io`] (a full disk, a FIFO whose reader left).
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), OutputError> {
        let r = match &mut self.sink {
            Sink::Atomic { file, .. } | Sink::InPlace(file) => file.write_all(bytes),
        };
        r.map_err(|e| self.io(e))
    }

    /// Moves a regular file's bytes into place (renames the temporary file over the
    /// target); a special file is only flushed.
    ///
    /// # Errors
    /// [`OutputError::Io`].
    pub fn commit(mut self) -> Result<(), OutputError> {
        let r = match &mut self.sink {
            Sink::Atomic {
                file,
                temp,
                target,
                committed,
            } => file
                .flush()
                .and_then(|()| std::fs::rename(&*temp, &*target))
                .map(|()| {
                    *committed = true;
                }),
            Sink::InPlace(file) => file.flush(),
        };
        r.map_err(|e| self.io(e))
    }

    /// Writes `bytes` and commits.
    ///
    /// # Errors
    /// As [`Self::write_all`] and [`Self::commit`].
    pub fn finish(mut self, bytes: impl AsRef<[u8]>) -> Result<(), OutputError> {
        self.write_all(bytes.as_ref())?;
        self.commit()
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Sink::Atomic {
            temp,
            committed: false,
            ..
        } = &self.sink
        {
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// Writes the whole file `path` (see the crate's doc for what each kind of path gets).
///
/// # Errors
/// As [`Output::create`] and [`Output::finish`].
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), OutputError> {
    Output::create(path)?.finish(bytes)
}

/// Checks, without opening or creating anything, that `path` can be an output: refuses a
/// folder, a block device, a socket, a symlink loop and a file in a missing folder (for a
/// command that writes its output only at the end; a FIFO's reader is looked for then).
///
/// # Errors
/// As [`Output::create`], except [`OutputError::NoReader`].
pub fn check(path: &Path) -> Result<(), OutputError> {
    let io = |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    };
    let (target, kind) = match resolve(path)? {
        Place::Descriptor => (
            path.to_path_buf(),
            kind_of(std::fs::metadata(path)).map_err(io)?,
        ),
        Place::File(t) => {
            let kind = kind_of(std::fs::symlink_metadata(&t)).map_err(io)?;
            (t, kind)
        }
    };
    match kind {
        Kind::Folder => Err(OutputError::Folder {
            path: path.to_path_buf(),
        }),
        Kind::Other(kind) => Err(OutputError::Refused {
            path: path.to_path_buf(),
            kind,
        }),
        Kind::Missing => match target.parent().filter(|d| !d.as_os_str().is_empty()) {
            Some(d) if !d.is_dir() => Err(OutputError::MissingFolder {
                path: path.to_path_buf(),
                folder: d.to_path_buf(),
            }),
            _ => Ok(()),
        },
        Kind::Regular(_) | Kind::Fifo | Kind::CharDevice => Ok(()),
    }
}

/// Makes sure `dir` is a folder to write files into: creates it (and its parents) when
/// missing, follows a symlink to a folder, refuses anything else with
/// [`OutputError::NotAFolder`].
///
/// # Errors
/// [`OutputError::NotAFolder`], or the I/O error of creating the folder.
pub fn folder(dir: &Path) -> Result<(), OutputError> {
    let io = |source| OutputError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let not_a_folder = |kind| OutputError::NotAFolder {
        path: dir.to_path_buf(),
        kind,
    };
    match kind_of(std::fs::metadata(dir)).map_err(io)? {
        Kind::Folder => Ok(()),
        Kind::Missing => {
            if std::fs::symlink_metadata(dir).is_ok() {
                // A dangling symlink: creating through it would surprise.
                return Err(not_a_folder("symlink to nothing"));
            }
            std::fs::create_dir_all(dir).map_err(io)
        }
        Kind::Regular(_) => Err(not_a_folder("file")),
        Kind::Fifo => Err(not_a_folder("FIFO")),
        Kind::CharDevice => Err(not_a_folder("character device")),
        Kind::Other(kind) => Err(not_a_folder(kind)),
    }
}

/// Opens `path` to append to (a log): a regular file is created when missing and
/// appended to in place (through its symlinks), a character device or a FIFO with a reader
/// is written directly; nothing is replaced.
///
/// # Errors
/// As [`Output::create`].
pub fn append(path: &Path) -> Result<File, OutputError> {
    let io = |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    };
    match resolve(path)? {
        Place::Descriptor => {
            open_in_place(path, kind_of(std::fs::metadata(path)).map_err(io)?, path)
        }
        Place::File(target) => open_in_place(
            &target,
            kind_of(std::fs::symlink_metadata(&target)).map_err(io)?,
            path,
        ),
    }
}

#[cfg(all(test, unix))]
mod tests;
