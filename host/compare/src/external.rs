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
    /// The result file reads, but its figures cannot be right (see [`check_perf`]).
    #[error("figures rejected: {message} ({file})")]
    Implausible {
        /// The result file.
        file: String,
        /// Why the figures cannot be right.
        message: String,
    },
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
        let report = read_perf_file(out_file)?;
        check_perf(&report, seconds, &cost).map_err(|message| ExternalError::Implausible {
            file: out_file.display().to_string(),
            message,
        })?;
        Ok((report, cost))
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
        let file = out_file.display().to_string();
        if !out_file.exists() {
            return Err(ExternalError::NoResult(file));
        }
        let garbage = |message: String| ExternalError::Garbage {
            file: file.clone(),
            line: 0,
            message,
        };
        // At most gdl::MAX_INPUT_BYTES, like `propnet verify`'s trace.
        let bytes =
            propnet_compiler::gdl::read_file(out_file).map_err(|e| garbage(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            garbage(format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ))
        })?;
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

/// Bytes read from the end of a log to show its tail: however long the log, only these
/// are read (one seek).
pub const TAIL_READ_BYTES: u64 = 4 << 10;

/// The last `TAIL_READ_BYTES` bytes of the file at `path` (fewer when it is shorter;
/// nothing when it cannot be read), read with one seek from its end.
fn read_end(path: &Path) -> Vec<u8> {
    use std::io::{Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let len = f.metadata().map_or(0, |m| m.len());
    let from = len.saturating_sub(TAIL_READ_BYTES);
    let mut bytes = Vec::new();
    if f.seek(SeekFrom::Start(from)).is_ok() {
        let _ = f.take(TAIL_READ_BYTES).read_to_end(&mut bytes);
    }
    bytes
}

/// The last few lines of the log (at most 400 bytes), on one line; only the log's end is
/// read ([`TAIL_READ_BYTES`]), so a log of any size costs the same.
fn tail(log: &Path) -> String {
    let text = String::from_utf8_lossy(&read_end(log)).into_owned();
    let t = text.trim_end();
    let start = t.len().saturating_sub(400);
    let start = (start..=t.len())
        .find(|&i| t.is_char_boundary(i))
        .unwrap_or(t.len());
    // Control characters (a terminal's escape sequences, NUL bytes) are not shown as such.
    let s: String = t[start..]
        .replace('\n', " | ")
        .chars()
        .map(|c| match c.is_control() && c != '\t' {
            true => char::REPLACEMENT_CHARACTER,
            false => c,
        })
        .collect();
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

/// Most bytes of a result file: a few `key=value` lines, never more.
pub const MAX_RESULT_BYTES: u64 = 64 << 10;

/// Most a count of a result may be: 2^53, the last integer a rate's arithmetic (f64)
/// holds exactly, and far beyond what any run counts.
pub const MAX_COUNT: u64 = 1 << 53;

/// Most state changes or rollouts per second a result may claim: 10^12 (a transition in
/// under a picosecond on average is beyond any reasoner on any machine).
pub const MAX_RATE: f64 = 1e12;

/// The least share of the asked seconds (or of the wall clock, when the process ended
/// sooner) a run's claimed time may be.
pub const MIN_TIME_SHARE: f64 = 0.1;

/// A key as a message shows it: at most 60 characters.
fn shown_key(k: &str) -> String {
    k.chars().take(60).collect()
}

/// A figure as a message shows it: `2000`, `0.5`, or `1e190` and `5e-324` when very large
/// or small (never hundreds of digits).
fn number_text(x: f64) -> String {
    if (1e-4..1e15).contains(&x.abs()) || x == 0.0 {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Seconds as a message shows them: `2.004`, or `1.000e187` when very large or small.
fn seconds_text(s: f64) -> String {
    if (1e-3..1e6).contains(&s) {
        format!("{s:.3}")
    } else {
        format!("{s:.3e}")
    }
}

/// Checks that a performance result can be right for a run asked to last `asked` seconds
/// that cost `cost` as measured from outside; `Err` says why it cannot. Rejected: a count
/// over [`MAX_COUNT`], a claimed time longer than the process lived, shorter than
/// [`MIN_TIME_SHARE`] of the asked time (or of the wall clock when the process ended
/// sooner), a rate over [`MAX_RATE`].
///
/// # Errors
/// The reason, naming the figure.
pub fn check_perf(r: &PerfReport, asked: f64, cost: &ProcessCost) -> Result<(), String> {
    for (key, n) in [
        ("numStateChanges", r.state_changes),
        ("numRollouts", r.rollouts),
    ] {
        if n > MAX_COUNT {
            return Err(format!(
                "{key}={n} is more than 2^53: no run counts that far"
            ));
        }
    }
    let claimed = r.milliseconds / 1000.0;
    let ms = format!("millisecondsTaken={}", number_text(r.milliseconds));
    let wall = cost.wall_seconds;
    // The process's own clock may run a little ahead of ours: 5 % and 50 ms of slack.
    if claimed > wall * 1.05 + 0.05 {
        return Err(format!(
            "{ms} claims {} s, but the process ran {} s by the wall clock",
            seconds_text(claimed),
            seconds_text(wall)
        ));
    }
    if claimed < MIN_TIME_SHARE * asked.min(wall) {
        let (a, w) = (seconds_text(asked), seconds_text(wall));
        return Err(match asked <= wall {
            true => format!(
                "{ms} is under a tenth of the {a} s the run was asked to last (it took {w} s \
                 by the wall clock)"
            ),
            false => {
                format!("{ms} is under a tenth of the {w} s the process ran by the wall clock")
            }
        });
    }
    for (key, n) in [
        ("numStateChanges", r.state_changes),
        ("numRollouts", r.rollouts),
    ] {
        let rate = n as f64 / claimed;
        if rate > MAX_RATE {
            return Err(format!(
                "{key}={n} in {} s is {rate:.3e} per second, beyond any reasoner (at most \
                 {MAX_RATE:e})",
                seconds_text(claimed)
            ));
        }
    }
    Ok(())
}

/// Checks a result's rollouts against its state changes on a game whose initial state is
/// terminal or not (`initial_terminal`): from a non-terminal initial state every rollout
/// makes at least one state change.
///
/// # Errors
/// The reason, naming the figures.
pub fn check_rollouts(r: &PerfReport, initial_terminal: bool) -> Result<(), String> {
    let (s, n) = (r.state_changes, r.rollouts);
    if !initial_terminal && s < n {
        return Err(format!(
            "numStateChanges={s} for numRollouts={n}: every rollout from this game's \
             non-terminal initial state makes at least one state change"
        ));
    }
    Ok(())
}

/// Reads a gdl-perf result file (`key=value` lines; `\n` or `\r\n`; spaces around keys
/// and values ignored).
///
/// # Errors
/// [`ExternalError::NoResult`] when missing, [`ExternalError::Reported`] for an
/// `errorMessage`, [`ExternalError::Garbage`] for a file over [`MAX_RESULT_BYTES`], a line
/// that is not `key=value`, a missing key or a value that is not a valid count or
/// duration, [`ExternalError::Implausible`] for a key given twice.
pub fn read_perf_file(path: &Path) -> Result<PerfReport, ExternalError> {
    let file = path.display().to_string();
    let garbage = |line, message: String| ExternalError::Garbage {
        file: file.clone(),
        line,
        message,
    };
    let bytes = std::fs::File::open(path)
        .map_err(|_| ExternalError::NoResult(file.clone()))
        .and_then(|f| {
            propnet_compiler::gdl::read_limited(f, MAX_RESULT_BYTES).map_err(|_| {
                let kib = MAX_RESULT_BYTES >> 10;
                garbage(0, format!("more than {kib} KiB: not a few key=value lines"))
            })
        })?;
    let text = String::from_utf8_lossy(&bytes);
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
        let k = k.trim().to_string();
        if let Some((first, _)) = kv.insert(k.clone(), (i + 1, v.trim().to_string())) {
            return Err(ExternalError::Implausible {
                file: file.clone(),
                message: format!(
                    "`{}` is given twice (lines {first} and {}): which figure counts is unclear",
                    shown_key(&k),
                    i + 1
                ),
            });
        }
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

    fn report(ms: f64, states: u64, rollouts: u64) -> PerfReport {
        PerfReport {
            version: None,
            milliseconds: ms,
            state_changes: states,
            rollouts,
        }
    }

    fn wall(s: f64) -> ProcessCost {
        ProcessCost {
            wall_seconds: s,
            cpu_seconds: None,
        }
    }

    /// Issue #42 item 4: figures that cannot be right are rejected, saying why.
    #[test]
    fn figures_that_cannot_be_right_are_rejected_with_the_reason() {
        let ok = report(2000.0, 30_000, 3_000);
        assert_eq!(check_perf(&ok, 2.0, &wall(2.4)), Ok(()));
        assert_eq!(check_perf(&ok, 2.0, &wall(30.0)), Ok(()), "a slow start");
        for (r, asked, w, want) in [
            (
                report(1e190, 1000, 10),
                2.0,
                2.1,
                "millisecondsTaken=1e190 claims 1.000e187 s, but the process ran 2.100 s",
            ),
            (
                report(1.0, 1000, 10),
                2.0,
                2.0,
                "millisecondsTaken=1 is under a tenth of the 2.000 s the run was asked to \
                 last (it took 2.000 s by the wall clock)",
            ),
            (
                report(5e-324, 1000, 10),
                2.0,
                2.0,
                "millisecondsTaken=5e-324 is under a tenth of the 2.000 s the run was asked",
            ),
            (
                report(2000.0, u64::MAX, 10),
                2.0,
                2.0,
                "numStateChanges=18446744073709551615 is more than 2^53",
            ),
            (
                report(2000.0, 10, u64::MAX),
                2.0,
                2.0,
                "numRollouts=18446744073709551615 is more than 2^53",
            ),
            (
                report(1000.0, 1000, 10),
                2.0,
                0.5,
                "millisecondsTaken=1000 claims 1.000 s, but the process ran 0.500 s",
            ),
            (
                report(10.0, 1000, 10),
                2.0,
                0.5,
                "millisecondsTaken=10 is under a tenth of the 0.500 s the process ran",
            ),
            (
                report(2000.0, 1 << 50, 10),
                2.0,
                2.0,
                "numStateChanges=1125899906842624 in 2.000 s is 5.629e14 per second",
            ),
        ] {
            let e = check_perf(&r, asked, &wall(w)).unwrap_err();
            assert!(e.contains(want), "{e}\nwanted: {want}");
        }
        let none = report(2000.0, 0, 1_000_000);
        let e = check_rollouts(&none, false).unwrap_err();
        assert!(
            e.contains("numStateChanges=0 for numRollouts=1000000"),
            "{e}"
        );
        assert_eq!(check_rollouts(&none, true), Ok(()));
        assert_eq!(check_rollouts(&ok, false), Ok(()));
    }

    #[test]
    fn a_key_given_twice_or_a_huge_result_file_is_refused() {
        let d = scratch("dup");
        let f = d.join("r.txt");
        std::fs::write(
            &f,
            "millisecondsTaken=2000\nnumStateChanges=300\nnumRollouts=30\nnumRollouts=3\n",
        )
        .unwrap();
        let e = read_perf_file(&f).unwrap_err();
        assert!(
            matches!(&e, ExternalError::Implausible { message, .. }
                if message.contains("`numRollouts` is given twice (lines 3 and 4)")),
            "{e}"
        );
        assert!(e.to_string().starts_with("figures rejected: "), "{e}");
        let big = std::fs::File::create(&f).unwrap();
        big.set_len(1 << 30).unwrap();
        let e = read_perf_file(&f).unwrap_err();
        assert!(
            e.to_string()
                .contains("more than 64 KiB: not a few key=value lines"),
            "{e}"
        );
    }

    /// Issue #42 item 6: only the end of a log is read to show its tail, whatever its size
    /// (a sparse 1 GiB log here), and control characters are not shown as such.
    #[test]
    fn the_tail_of_a_huge_log_is_read_from_its_end() {
        use std::io::Write;
        let d = scratch("tail");
        let log = d.join("huge.log");
        let f = std::fs::File::create(&log).unwrap();
        f.set_len(1 << 30).unwrap();
        let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        f.write_all(b"\x1b[31mlast words\nthe end\n").unwrap();
        let t = tail(&log);
        assert!(t.ends_with("\u{fffd}[31mlast words | the end"), "{t}");
        assert!(t.len() <= 3 * 400, "{}", t.len());
        assert_eq!(tail(&d.join("none.log")), "(no output)");
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
