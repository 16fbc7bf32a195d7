//! External reasoners by gdl-perf's process convention (Landau's gdl-perf), so existing
//! adapters plug in unchanged:
//! - performance: `COMMAND GAME OUTFILE SECONDS` runs flat Monte Carlo from the initial
//!   state for about SECONDS and writes `key=value` lines to OUTFILE: `version`,
//!   `millisecondsTaken`, `numStateChanges`, `numRollouts`, or `errorMessage` on failure;
//! - correctness: `COMMAND GAME OUTFILE STATE_CHANGES` writes a trace of random playouts
//!   covering at least STATE_CHANGES joint moves (gdl-perf's `!R!…` lines, or the oracle's
//!   JSON lines) to OUTFILE.
//!
//! COMMAND is split into words like a shell would (quotes, no expansion); gdl-perf adds its
//! arguments after the command's own. Each run gets its own process group; one that runs
//! past the kill timeout is killed with its children. A crash, a hang, an error message
//! or a result file that is not `key=value` lines is an [`ExternalError`] naming what
//! happened, with the end of the process's output.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// An external reasoner: its name and its command's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalCommand {
    /// Name in reports.
    pub name: String,
    /// Program and leading arguments.
    pub argv: Vec<String>,
}

/// Why an external run gave no result.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ExternalError {
    /// The command text is empty or its quotes do not close.
    #[error("bad command `{0}`: empty or unbalanced quotes")]
    BadCommand(String),
    /// The program could not be started.
    #[error("cannot start `{program}`: {message}")]
    Spawn {
        /// The program.
        program: String,
        /// The OS error.
        message: String,
    },
    /// The process exited with a failure status or was killed by a signal.
    #[error("crashed ({status}); output ends: {tail}")]
    Crashed {
        /// Exit status as the OS reports it.
        status: String,
        /// Last lines of its stdout/stderr.
        tail: String,
    },
    /// The process ran past the kill timeout and was killed.
    #[error("still running after {seconds:.1} s: killed (hang); output ends: {tail}")]
    Hung {
        /// The timeout.
        seconds: f64,
        /// Last lines of its stdout/stderr.
        tail: String,
    },
    /// The process exited without writing its result file.
    #[error("exited without writing {0}")]
    NoResult(String),
    /// The result file is not what the convention says.
    #[error("garbage in {file}:{line}: {message}")]
    Garbage {
        /// The result file.
        file: String,
        /// Line (from 1; 0 for the file as a whole).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The reasoner reported an error (`errorMessage=`).
    #[error("reports an error: {0}")]
    Reported(String),
}

/// The result of a performance run, as written by the reasoner.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PerfReport {
    /// `version`, when given.
    pub version: Option<String>,
    /// `millisecondsTaken`: the measured time.
    pub milliseconds: f64,
    /// `numStateChanges`: transitions computed.
    pub state_changes: u64,
    /// `numRollouts`: terminal states reached.
    pub rollouts: u64,
}

/// What the process itself cost, measured from outside.
#[derive(Copy, Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ProcessCost {
    /// Wall seconds from start to exit.
    pub wall_seconds: f64,
    /// CPU seconds of the process and its waited-for children (Unix), when known.
    pub cpu_seconds: Option<f64>,
}

impl ExternalCommand {
    /// Splits `command` into words (shell quoting rules, no expansion).
    ///
    /// # Errors
    /// [`ExternalError::BadCommand`] when it is empty or a quote does not close.
    pub fn parse(name: &str, command: &str) -> Result<Self, ExternalError> {
        match shlex::split(command) {
            Some(argv) if !argv.is_empty() => Ok(ExternalCommand {
                name: name.to_string(),
                argv,
            }),
            _ => Err(ExternalError::BadCommand(command.to_string())),
        }
    }

    /// Runs `COMMAND GAME OUTFILE SECONDS` and reads the result file (see the module docs).
    /// The process's stdout and stderr go to `log`.
    ///
    /// # Errors
    /// [`ExternalError`] for every way the run can fail.
    pub fn run_perf(
        &self,
        game: &Path,
        out_file: &Path,
        seconds: f64,
        kill_after: Duration,
        log: &Path,
    ) -> Result<(PerfReport, ProcessCost), ExternalError> {
        let cost = self.run(game, out_file, &seconds_arg(seconds), kill_after, log)?;
        Ok((read_perf_file(out_file)?, cost))
    }

    /// Runs `COMMAND GAME OUTFILE STATE_CHANGES` and returns the trace it wrote.
    ///
    /// # Errors
    /// [`ExternalError`] for every way the run can fail.
    pub fn run_trace(
        &self,
        game: &Path,
        out_file: &Path,
        state_changes: u64,
        kill_after: Duration,
        log: &Path,
    ) -> Result<(String, ProcessCost), ExternalError> {
        let cost = self.run(game, out_file, &state_changes.to_string(), kill_after, log)?;
        let text = std::fs::read_to_string(out_file)
            .map_err(|_| ExternalError::NoResult(out_file.display().to_string()))?;
        Ok((text, cost))
    }

    /// Starts the process, waits at most `kill_after`, and checks its exit status.
    fn run(
        &self,
        game: &Path,
        out_file: &Path,
        last: &str,
        kill_after: Duration,
        log: &Path,
    ) -> Result<ProcessCost, ExternalError> {
        let _ = std::fs::remove_file(out_file);
        let spawn_err = |e: std::io::Error| ExternalError::Spawn {
            program: self.argv[0].clone(),
            message: e.to_string(),
        };
        let log_out =
            propnet_output::Output::create(log).map_err(|e| spawn_err(std::io::Error::from(e)))?;
        let mut cmd = Command::new(&self.argv[0]);
        cmd.args(&self.argv[1..])
            .arg(absolute(game))
            .arg(absolute(out_file))
            .arg(last)
            .stdin(Stdio::null())
            .stdout(log_out.file().try_clone().map_err(spawn_err)?)
            .stderr(log_out.file().try_clone().map_err(spawn_err)?);
        own_process_group(&mut cmd);
        let cpu0 = children_cpu_seconds();
        let t0 = Instant::now();
        let mut child = cmd.spawn().map_err(spawn_err)?;
        let waited = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Ok(status),
                Ok(None) if t0.elapsed() >= kill_after => {
                    kill_group(&mut child);
                    break Err(None);
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => break Err(Some(e)),
            }
        };
        // The log moves into place once the process is gone, so that its tail can be read.
        let _ = log_out.commit();
        let status = match waited {
            Ok(status) => status,
            Err(None) => {
                return Err(ExternalError::Hung {
                    seconds: kill_after.as_secs_f64(),
                    tail: tail(log),
                })
            }
            Err(Some(e)) => return Err(spawn_err(e)),
        };
        let cost = ProcessCost {
            wall_seconds: t0.elapsed().as_secs_f64(),
            cpu_seconds: children_cpu_seconds()
                .zip(cpu0)
                .map(|(a, b)| (a - b).max(0.0)),
        };
        if !status.success() {
            return Err(ExternalError::Crashed {
                status: describe_status(status),
                tail: tail(log),
            });
        }
        Ok(cost)
    }
}

/// SECONDS as gdl-perf passes it: a whole number when whole (`2`), else a decimal (`0.3`).
pub fn seconds_arg(seconds: f64) -> String {
    if seconds.fract() == 0.0 {
        format!("{}", seconds as u64)
    } else {
        format!("{seconds}")
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

fn describe_status(s: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return format!("killed by signal {sig}");
        }
    }
    match s.code() {
        Some(c) => format!("exit status {c}"),
        None => s.to_string(),
    }
}

/// The last few lines of the log (at most 400 bytes), on one line.
fn tail(log: &Path) -> String {
    let mut text = String::new();
    if let Ok(mut f) = std::fs::File::open(log) {
        let mut bytes = Vec::new();
        let _ = f.read_to_end(&mut bytes);
        text = String::from_utf8_lossy(&bytes).into_owned();
    }
    let t = text.trim_end();
    let start = t.len().saturating_sub(400);
    let start = (start..=t.len())
        .find(|&i| t.is_char_boundary(i))
        .unwrap_or(t.len());
    let s = t[start..].replace('\n', " | ");
    if s.is_empty() {
        "(no output)".into()
    } else {
        s
    }
}

#[cfg(unix)]
fn own_process_group(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
}

#[cfg(not(unix))]
fn own_process_group(_: &mut Command) {}

/// Kills the child's whole process group (its children too), then reaps it.
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        use nix::sys::signal::{killpg, Signal};
        use nix::unistd::Pid;
        if let Ok(pid) = i32::try_from(child.id()) {
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// CPU seconds (user + system) of all waited-for children of this process so far.
fn children_cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        use nix::sys::resource::{getrusage, UsageWho};
        let u = getrusage(UsageWho::RUSAGE_CHILDREN).ok()?;
        let s = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 * 1e-6;
        Some(s(u.user_time()) + s(u.system_time()))
    }
    #[cfg(not(unix))]
    None
}

/// Reads a gdl-perf result file (`key=value` lines; `\n` or `\r\n`; spaces around keys
/// and values ignored).
///
/// # Errors
/// [`ExternalError::NoResult`] when missing, [`ExternalError::Reported`] for an
/// `errorMessage`, [`ExternalError::Garbage`] for a line that is not `key=value`, a
/// missing key or a value that is not a valid count or duration.
pub fn read_perf_file(path: &Path) -> Result<PerfReport, ExternalError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|_| ExternalError::NoResult(file.clone()))?;
    let garbage = |line, message: String| ExternalError::Garbage {
        file: file.clone(),
        line,
        message,
    };
    let mut kv = std::collections::HashMap::new();
    for (i, l) in text.lines().enumerate() {
        let l = l.trim();
        if l.is_empty() {
            continue;
        }
        let Some((k, v)) = l.split_once('=') else {
            let shown: String = l.chars().take(60).collect();
            return Err(garbage(i + 1, format!("`{shown}` is not key=value")));
        };
        kv.insert(k.trim().to_string(), (i + 1, v.trim().to_string()));
    }
    if let Some((_, m)) = kv.get("errorMessage") {
        return Err(ExternalError::Reported(m.clone()));
    }
    let get = |k: &str| {
        kv.get(k)
            .ok_or_else(|| garbage(0, format!("no `{k}` line")))
    };
    let count = |k: &str| -> Result<u64, ExternalError> {
        let (line, v) = get(k)?;
        v.parse::<u64>()
            .map_err(|_| garbage(*line, format!("{k}={v}: not a count")))
    };
    let (line, ms) = get("millisecondsTaken")?;
    let milliseconds = ms
        .parse::<f64>()
        .ok()
        .filter(|m| m.is_finite() && *m > 0.0)
        .ok_or_else(|| {
            garbage(
                *line,
                format!("millisecondsTaken={ms}: not a positive time"),
            )
        })?;
    Ok(PerfReport {
        version: kv.get("version").map(|(_, v)| v.clone()),
        milliseconds,
        state_changes: count("numStateChanges")?,
        rollouts: count("numRollouts")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("propnet-ext-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn result_files_parse_or_say_why_not() {
        let d = scratch("parse");
        let f = d.join("r.txt");
        std::fs::write(
            &f,
            "version = 1.2\r\nmillisecondsTaken=2000\nnumStateChanges=300\nnumRollouts=30\n",
        )
        .unwrap();
        let r = read_perf_file(&f).unwrap();
        assert_eq!(r.version.as_deref(), Some("1.2"));
        assert_eq!(
            (r.milliseconds, r.state_changes, r.rollouts),
            (2000.0, 300, 30)
        );
        std::fs::write(&f, "version=1\nerrorMessage=out of memory\n").unwrap();
        assert_eq!(
            read_perf_file(&f),
            Err(ExternalError::Reported("out of memory".into()))
        );
        std::fs::write(&f, "hello world\n").unwrap();
        assert!(matches!(
            read_perf_file(&f),
            Err(ExternalError::Garbage { line: 1, .. })
        ));
        std::fs::write(
            &f,
            "millisecondsTaken=-5\nnumStateChanges=1\nnumRollouts=1\n",
        )
        .unwrap();
        assert!(matches!(
            read_perf_file(&f),
            Err(ExternalError::Garbage { line: 1, .. })
        ));
        std::fs::write(
            &f,
            "millisecondsTaken=5\nnumStateChanges=x\nnumRollouts=1\n",
        )
        .unwrap();
        assert!(matches!(
            read_perf_file(&f),
            Err(ExternalError::Garbage { line: 2, .. })
        ));
        std::fs::write(&f, "millisecondsTaken=5\nnumRollouts=1\n").unwrap();
        assert!(matches!(
            read_perf_file(&f),
            Err(ExternalError::Garbage { line: 0, .. })
        ));
        assert!(matches!(
            read_perf_file(&d.join("none")),
            Err(ExternalError::NoResult(_))
        ));
        assert_eq!(seconds_arg(2.0), "2");
        assert_eq!(seconds_arg(0.3), "0.3");
    }

    #[cfg(unix)]
    #[test]
    fn crashes_and_hangs_are_reported() {
        let d = scratch("run");
        let (game, out, log) = (d.join("g.kif"), d.join("out.txt"), d.join("log.txt"));
        let crash = ExternalCommand::parse("c", "sh -c 'echo boom >&2; exit 3' sh").unwrap();
        let e = crash
            .run_perf(&game, &out, 1.0, Duration::from_secs(20), &log)
            .unwrap_err();
        assert!(
            matches!(&e, ExternalError::Crashed { status, tail } if status == "exit status 3" && tail.contains("boom")),
            "{e}"
        );
        let hang = ExternalCommand::parse("h", "sh -c 'sleep 30 & wait' sh").unwrap();
        let t0 = Instant::now();
        let e = hang
            .run_perf(&game, &out, 1.0, Duration::from_millis(300), &log)
            .unwrap_err();
        assert!(matches!(e, ExternalError::Hung { .. }), "{e}");
        assert!(t0.elapsed() < Duration::from_secs(10));
        let ok = ExternalCommand::parse(
            "ok",
            "sh -c 'printf \"millisecondsTaken=10\\nnumStateChanges=4\\nnumRollouts=2\\n\" > \"$2\"' sh",
        )
        .unwrap();
        let (r, cost) = ok
            .run_perf(&game, &out, 1.0, Duration::from_secs(20), &log)
            .unwrap();
        assert_eq!((r.state_changes, r.rollouts), (4, 2));
        assert!(cost.wall_seconds > 0.0);
        assert!(ExternalCommand::parse("x", "'unclosed").is_err());
        assert!(ExternalCommand::parse("x", "  ").is_err());
    }
}
