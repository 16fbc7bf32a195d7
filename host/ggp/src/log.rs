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

/// Most log files kept open at once; past it the least recently written is closed (a
/// line for a match whose file was closed, e.g. a PLAY answered after its ABORT,
/// reopens it), so a long tournament holds a bounded number of descriptors.
pub const MAX_OPEN_LOGS: usize = 16;

/// Writes log lines; without a directory only stderr gets them.
pub struct Log {
    dir: Option<PathBuf>,
    started: Instant,
    /// Open files, least recently written first.
    files: Mutex<Vec<(String, File)>>,
}

impl Log {
    /// A log writing into `dir` (created when missing).
    ///
    /// # Errors
    /// The directory cannot be created.
    pub fn new(dir: Option<&Path>) -> std::io::Result<Self> {
        if let Some(d) = dir {
            propnet_output::folder(d)?;
        }
        Ok(Self {
            dir: dir.map(Path::to_path_buf),
            started: Instant::now(),
            files: Mutex::new(Vec::new()),
        })
    }

    /// Appends `fields` (a JSON object) with the time since start to the log of `file`
    /// (a match id, or `player`), and prints `human` on stderr. Every text is cut to
    /// [`MAX_LOGGED_MESSAGE`] characters first (the human line, and each string of
    /// `fields` however deep), so no message (a megabyte match id, a huge move) can bloat
    /// the log or stderr.
    pub fn line(&self, file: &str, human: &str, mut fields: Value) {
        eprintln!("[propnet player] {}", shorten(human));
        cap_strings(&mut fields);
        let Some(dir) = &self.dir else { return };
        if let Value::Object(m) = &mut fields {
            m.insert(
                "time_ms".into(),
                json!(self.started.elapsed().as_secs_f64() * 1000.0),
            );
        }
        let name = sanitize(file);
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        let entry = match files.iter().position(|(n, _)| *n == name) {
            Some(i) => files.remove(i),
            // Appended to in place: a symlink is written through, a FIFO without a reader
            // is refused at once instead of blocking the player.
            None => match propnet_output::append(&dir.join(format!("{name}.jsonl"))) {
                Ok(f) => (name, f),
                Err(e) => {
                    eprintln!("[propnet player] no log of {name}: {e}");
                    return;
                }
            },
        };
        files.push(entry);
        if files.len() > MAX_OPEN_LOGS {
            files.remove(0);
        }
        if let Some((_, f)) = files.last_mut() {
            let _ = writeln!(f, "{fields}");
        }
    }

    /// How many log files are open (at most [`MAX_OPEN_LOGS`]).
    pub fn open_files(&self) -> usize {
        self.files.lock().unwrap_or_else(|p| p.into_inner()).len()
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

/// Cuts every string in `v` (object keys included) to [`MAX_LOGGED_MESSAGE`] characters.
fn cap_strings(v: &mut Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) if s.len() > MAX_LOGGED_MESSAGE => *s = shorten(s),
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(m) => {
                if m.keys().any(|k| k.len() > MAX_LOGGED_MESSAGE) {
                    let long: Vec<String> = m
                        .keys()
                        .filter(|k| k.len() > MAX_LOGGED_MESSAGE)
                        .cloned()
                        .collect();
                    for k in long {
                        if let Some(x) = m.remove(&k) {
                            m.insert(shorten(&k), x);
                        }
                    }
                }
                stack.extend(m.values_mut());
            }
            _ => {}
        }
    }
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

#[cfg(test)]
mod tests {
    use super::{Log, MAX_OPEN_LOGS};
    use serde_json::json;

    /// Issue #42 (round two), item 9: every text of a line is cut, however deep, and the
    /// human line too.
    #[test]
    fn every_field_is_cut_to_the_cap() {
        let long = "x".repeat(1 << 20);
        let mut v = json!({"a": long, "b": [{"c": long}], "n": 3});
        super::cap_strings(&mut v);
        let text = v.to_string();
        assert!(
            text.len() < 3 * super::MAX_LOGGED_MESSAGE * 4,
            "{}",
            text.len()
        );
        assert_eq!(v["n"], 3);
        assert!(v["b"][0]["c"].as_str().unwrap().ends_with('…'));
    }

    /// Lines for matches already closed reopen their file, and the open files stay
    /// bounded; every line reaches its file.
    #[test]
    fn open_files_are_bounded_and_late_lines_are_kept() {
        let dir = std::env::temp_dir().join(format!("propnet-log-test-{}", std::process::id()));
        let log = Log::new(Some(&dir)).unwrap();
        for i in 0..40 {
            let id = format!("m{i}");
            log.line(&id, "start", json!({"n": 1}));
            log.close(&id);
            log.line(&id, "late play", json!({"n": 2}));
            assert!(log.open_files() <= MAX_OPEN_LOGS);
        }
        let text = std::fs::read_to_string(dir.join("m3.jsonl")).unwrap();
        assert_eq!(text.lines().count(), 2, "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A log file that is a symlink is appended to through it (the link stays), and one
    /// that is a FIFO nobody reads is skipped at once instead of blocking the player.
    #[cfg(unix)]
    #[test]
    fn links_are_written_through_and_fifos_without_reader_never_block() {
        use std::os::unix::fs::FileTypeExt;
        let dir = std::env::temp_dir().join(format!("propnet-log-special-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("target.txt"), "").unwrap();
        std::os::unix::fs::symlink("target.txt", dir.join("player.jsonl")).unwrap();
        let fifo = dir.join("m1.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()));
        let log = Log::new(Some(&dir)).unwrap();
        let t = std::time::Instant::now();
        log.line("player", "hello", json!({"n": 1}));
        log.line("m1", "start", json!({"n": 2}));
        assert!(t.elapsed() < std::time::Duration::from_secs(5));
        let link = std::fs::symlink_metadata(dir.join("player.jsonl")).unwrap();
        assert!(link.file_type().is_symlink());
        let text = std::fs::read_to_string(dir.join("target.txt")).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
