//! Helpers of the GGP tests: the `propnet` binary as a player or manager process (killed
//! on drop), a raw HTTP client, the shared corpus, and an independent replay of a match
//! record through the reference interpreter.

use propnet_compiler::gdl;
use propnet_compiler::interp::{GoalValue, Interp};
use propnet_ggp::manager::canonical_reply;
use serde_json::Value;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A child process killed (and reaped) when dropped.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The `propnet` binary built for these tests.
pub fn propnet() -> Command {
    Command::new(env!("CARGO_BIN_EXE_propnet"))
}

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fresh scratch folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("propnet-ggp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// A file of the shared corpus, or `None` (skip with a message) when `../shared` is
/// absent; with `PROPNET_REQUIRE_SHARED=1` absence panics.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let p = root().join("../shared").join(rel);
    if p.is_file() {
        return Some(p);
    }
    assert!(
        std::env::var("PROPNET_REQUIRE_SHARED").as_deref() != Ok("1"),
        "shared test file missing: {} (PROPNET_REQUIRE_SHARED=1)",
        p.display()
    );
    eprintln!("skipping: {} not found", p.display());
    None
}

/// Starts `propnet player --port 0` with `extra` flags, logging into `log_dir`; returns
/// the process and its port (read from its `listening on` line within 30 s).
pub fn player(log_dir: &Path, extra: &[&str]) -> (Proc, u16) {
    player_with_stderr(log_dir, extra, Stdio::null())
}

/// [`player`] with its stderr going to `stderr`.
pub fn player_with_stderr(log_dir: &Path, extra: &[&str], stderr: Stdio) -> (Proc, u16) {
    let mut child = propnet()
        .args(["player", "--port", "0", "--threads", "1", "--log-dir"])
        .arg(log_dir)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("spawn propnet player");
    let out = child.stdout.take().expect("stdout");
    let proc = Proc(child);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(out).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("player printed its address");
    let port = line
        .trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("bad address line `{line}`"));
    (proc, port)
}

/// `(did ROLE MOVE)` for every role's move of `joint` (canonical, sorted).
fn every_move(rec: &Value, joint: &Value) -> Vec<String> {
    let roles = rec["gameMetaData"]["roleNames"].as_array().unwrap();
    let mut v: Vec<String> = (roles.iter().zip(joint.as_array().unwrap()))
        .map(|(r, m)| {
            let text = format!("(did {} {})", r.as_str().unwrap(), m.as_str().unwrap());
            canonical_reply(&text).unwrap()
        })
        .collect();
    v.sort();
    v
}

/// The manager's arguments for one match of `game` between the players on ports `pa` and
/// `pb` (start clock 2 s, play clock 1 s), records written to `records`.
pub fn one_match_args(game: &Path, (pa, pb): (u16, u16), records: &Path) -> Vec<String> {
    vec![
        game.display().to_string(),
        "--players".into(),
        format!("http://127.0.0.1:{pa},http://127.0.0.1:{pb}"),
        "--games".into(),
        "1".into(),
        "--startclock".into(),
        "2".into(),
        "--playclock".into(),
        "1".into(),
        "--record-dir".into(),
        records.display().to_string(),
    ]
}

/// Runs `propnet match` with `args` to completion (at most `limit`), returning stdout.
pub fn manager(args: &[String], limit: Duration) -> String {
    let (code, out, err) = manager_output(args, limit);
    assert_eq!(code, Some(0), "propnet match {args:?} failed: {err}");
    out
}

/// Runs `propnet match` with `args` to completion (at most `limit`), returning its exit
/// code, stdout and stderr.
pub fn manager_output(args: &[String], limit: Duration) -> (Option<i32>, String, String) {
    let mut child = Proc(
        propnet()
            .arg("match")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn propnet match"),
    );
    let start = Instant::now();
    loop {
        if let Some(status) = child.0.try_wait().expect("wait") {
            let mut out = String::new();
            let mut err = String::new();
            child
                .0
                .stdout
                .take()
                .map(|mut s| s.read_to_string(&mut out));
            child
                .0
                .stderr
                .take()
                .map(|mut s| s.read_to_string(&mut err));
            return (status.code(), out, err);
        }
        assert!(
            start.elapsed() < limit,
            "propnet match {args:?} ran over {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Sends raw bytes on a fresh connection (optionally closing our side after them) and
/// returns everything read until the server closes (or resets) the connection; panics
/// when it does neither within 20 s.
pub fn exchange(port: u16, bytes: &[u8], close_write: bool) -> Vec<u8> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(bytes).expect("send");
    if close_write {
        s.shutdown(std::net::Shutdown::Write).unwrap();
    }
    let mut buf = Vec::new();
    if let Err(e) = s.read_to_end(&mut buf) {
        let stuck = matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut);
        assert!(!stuck, "the server neither replied nor closed within 20 s");
    }
    buf
}

/// Sends raw bytes on a fresh connection (optionally closing our side after them) and
/// returns the status code and body of the reply.
pub fn raw(port: u16, bytes: &[u8], close_write: bool) -> (u16, String) {
    let buf = exchange(port, bytes, close_write);
    let mut headers = [httparse::EMPTY_HEADER; 32];
    let mut resp = httparse::Response::new(&mut headers);
    let Ok(httparse::Status::Complete(n)) = resp.parse(&buf) else {
        panic!(
            "no HTTP reply to {:?}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(80)])
        );
    };
    (
        resp.code.unwrap_or(0),
        String::from_utf8_lossy(&buf[n..]).into_owned(),
    )
}

/// POSTs one message as game managers do and returns status and body.
pub fn post(port: u16, msg: &str) -> (u16, String) {
    let req = format!(
        "POST / HTTP/1.0\r\nContent-Type: text/acl\r\nSender: GAMESERVER\r\nReceiver: 127.0.0.1:{port}\r\nContent-Length: {}\r\n\r\n{msg}",
        msg.len()
    );
    raw(port, req.as_bytes(), false)
}

/// Reads a JSON file.
pub fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("valid JSON")
}

/// Checks a match record: no error on any step, every remote reply within the play
/// clock (START within the start clock), and goals, completion and (GDL-II matches)
/// each role's percepts after each step as the reference interpreter computes them from
/// the recorded moves. Returns the goals.
pub fn check_record(rec: &Value, game: &Path) -> Vec<i64> {
    let id = rec["matchId"].as_str().unwrap_or("?");
    for (step, errs) in rec["errors"].as_array().expect("errors").iter().enumerate() {
        for e in errs.as_array().expect("per role") {
            assert_eq!(e.as_str(), Some(""), "{id}: error at step {step}: {errs}");
        }
    }
    let clocks = [
        rec["startClock"].as_f64().unwrap(),
        rec["playClock"].as_f64().unwrap(),
    ];
    for (step, ms) in rec["replyMillis"]
        .as_array()
        .expect("replyMillis")
        .iter()
        .enumerate()
    {
        let clock = clocks[(step > 0) as usize] * 1000.0;
        for m in ms.as_array().unwrap().iter().filter_map(Value::as_f64) {
            assert!(
                m <= clock,
                "{id}: step {step} reply took {m:.0} ms of {clock} ms"
            );
        }
    }
    let g = gdl::load(game).expect("game loads");
    let mut it = Interp::new(&g.program).expect("interpreter");
    let mut state = it.initial_state().unwrap();
    for (step, joint) in rec["moves"].as_array().expect("moves").iter().enumerate() {
        let mut pos = it.evaluate(&state).unwrap();
        assert!(!it.terminal_in(&pos), "{id}: moves after a terminal state");
        let ids: Vec<_> = joint
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(r, m)| {
                let want = canonical_reply(m.as_str().unwrap()).unwrap();
                let legal = it.legal_in(&pos, r);
                legal
                    .iter()
                    .find(|(t, _)| *t == want)
                    .unwrap_or_else(|| panic!("{id}: recorded move {m} of role {r} is not legal"))
                    .1
            })
            .collect();
        match rec["percepts"].as_array() {
            None => state = it.next_from(&mut pos, &ids).unwrap(),
            Some(recorded) => {
                let (next, seen) = it.next_with_percepts(&mut pos, &ids).unwrap();
                let want: Vec<Vec<String>> = match g.program.gdl2 {
                    true => (seen.iter())
                        .map(|ps| ps.iter().map(|(t, _)| t.clone()).collect())
                        .collect(),
                    // a GDL-I game under the GDL-II protocol: every role sees every move
                    false => vec![every_move(rec, joint); seen.len()],
                };
                let got: Vec<Vec<String>> = (recorded[step].as_array().unwrap().iter())
                    .map(|ps| {
                        let mut v: Vec<String> = (ps.as_array().unwrap().iter())
                            .map(|p| canonical_reply(p.as_str().unwrap()).unwrap())
                            .collect();
                        v.sort();
                        v
                    })
                    .collect();
                assert_eq!(got, want, "{id}: percepts after step {step}");
                state = next;
            }
        }
    }
    let pos = it.evaluate(&state).unwrap();
    assert_eq!(
        rec["isCompleted"].as_bool(),
        Some(it.terminal_in(&pos)),
        "{id}: completion"
    );
    let goals: Vec<i64> = it
        .goals_in(&pos)
        .iter()
        .map(|vs| {
            vs.iter()
                .filter_map(|v| match v {
                    GoalValue::Int(n) if (0..=100).contains(n) => Some(*n as i64),
                    _ => None,
                })
                .max()
                .unwrap_or(0)
        })
        .collect();
    let recorded: Vec<i64> = rec["goalValues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(
        recorded, goals,
        "{id}: goals differ from the reference interpreter's"
    );
    goals
}
