//! The player's logs: one JSON line per message (message, reply, think time, iterations,
//! playouts/s, backend, errors) in `DIR/<match id>.jsonl` for match messages and
//! `DIR/player.jsonl` for the rest, and a short human line on stderr.

use serde_json::{json, Value};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// Longest message text kept in a log line (rules are long); longer ones end in `…`.
pub const MAX_LOGGED_MESSAGE: usize = 400;

/// Writes log lines; without a directory only stderr gets them.
pub struct Log {
    dir: Option<PathBuf>,
    started: Instant,
    files: Mutex<Vec<(String, File)>>,
}

impl Log {
    /// A log writing into `dir` (created when missing).
    ///
    /// # Errors
    /// The directory cannot be created.
    pub fn new(dir: Option<&Path>) -> std::io::Result<Self> {
        if let Some(d) = dir {
            std::fs::create_dir_all(d)?;
        }
        Ok(Self {
            dir: dir.map(Path::to_path_buf),
            started: Instant::now(),
            files: Mutex::new(Vec::new()),
        })
    }

    /// Appends `fields` (a JSON object) with the time since start to the log of `file`
    /// (a match id, or `player`), and prints `human` on stderr.
    pub fn line(&self, file: &str, human: &str, mut fields: Value) {
        eprintln!("[propnet player] {human}");
        let Some(dir) = &self.dir else { return };
        if let Value::Object(m) = &mut fields {
            m.insert(
                "time_ms".into(),
                json!(self.started.elapsed().as_secs_f64() * 1000.0),
            );
        }
        let name = sanitize(file);
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        if !files.iter().any(|(n, _)| *n == name) {
            match File::options()
                .create(true)
                .append(true)
                .open(dir.join(format!("{name}.jsonl")))
            {
                Ok(f) => files.push((name.clone(), f)),
                Err(e) => {
                    eprintln!("[propnet player] cannot write the log of {name}: {e}");
                    return;
                }
            }
        }
        if let Some((_, f)) = files.iter_mut().find(|(n, _)| *n == name) {
            let _ = writeln!(f, "{fields}");
        }
    }

    /// Closes the file of a finished match.
    pub fn close(&self, file: &str) {
        let name = sanitize(file);
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        files.retain(|(n, _)| *n != name);
    }
}

/// `text` cut to [`MAX_LOGGED_MESSAGE`] characters.
pub fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_LOGGED_MESSAGE {
        return text.to_string();
    }
    let mut s: String = text.chars().take(MAX_LOGGED_MESSAGE - 1).collect();
    s.push('…');
    s
}

/// A file name from a match id: letters, digits, `-`, `_` and `.` kept, others `_`.
fn sanitize(id: &str) -> String {
    let s: String = id
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        format!("match_{s}")
    } else {
        s
    }
}
