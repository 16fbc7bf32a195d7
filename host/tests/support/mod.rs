//! Shared helpers of the hostile-input CLI tests: run the built `propnet` with a time
//! bound, write small games and edited netlists into a per-process temp folder.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one bounded run of the binary gave.
pub struct Outcome {
    /// Exit status code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub out: String,
    /// Standard error.
    pub err: String,
}

impl Outcome {
    /// Panics with the outputs unless the exit status is `code`.
    pub fn expect_code(&self, code: i32, what: &str) -> &Self {
        assert_eq!(
            self.code,
            Some(code),
            "{what}: exit status\nstdout: {}\nstderr: {}",
            self.out,
            self.err
        );
        self
    }
}

/// A folder for this test process.
pub fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("propnet-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes `text` to `name` in [`dir`].
pub fn file(name: &str, text: &str) -> PathBuf {
    let p = dir().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The bundled tic-tac-toe.
pub fn tictactoe() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-games/tictactoe.kif")
}

/// Runs `propnet ARGS` with stdout to `stdout` (None: captured), killing it after
/// `limit`; a run past its bound fails the test.
pub fn run_with(args: &[&str], stdout: Option<Stdio>, limit: Duration) -> Outcome {
    let child = Command::new(env!("CARGO_BIN_EXE_propnet"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout.unwrap_or_else(Stdio::piped))
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn propnet");
    wait_bounded(child, args, limit)
}

/// Collects a spawned child's piped outputs, killing it after `limit` (`args` name it in
/// the panic): a run past its bound fails the test.
pub fn wait_bounded(mut child: std::process::Child, args: &[&str], limit: Duration) -> Outcome {
    let t0 = Instant::now();
    // Drain the pipes on threads so a chatty child cannot block on a full pipe.
    let out = child.stdout.take().map(reader);
    let err = child.stderr.take().map(reader);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("propnet {args:?} ran past its bound of {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let text = |h: Option<std::thread::JoinHandle<String>>| {
        h.map(|h| h.join().unwrap()).unwrap_or_default()
    };
    Outcome {
        code: status.code(),
        out: text(out),
        err: text(err),
    }
}

fn reader<R: std::io::Read + Send + 'static>(mut r: R) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = r.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    })
}

/// Runs `propnet ARGS` (captured output) within 60 s.
pub fn run(args: &[&str]) -> Outcome {
    run_with(args, None, Duration::from_secs(60))
}

/// The netlist JSON of tic-tac-toe, as `propnet compile` writes it.
pub fn tictactoe_json() -> serde_json::Value {
    let o = run(&["compile", tictactoe().to_str().unwrap()]);
    o.expect_code(0, "compile");
    serde_json::from_str(&o.out).expect("compile writes JSON")
}
