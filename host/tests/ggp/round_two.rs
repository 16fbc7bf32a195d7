//! Issue #42 (hostile input, round two), the player and manager items: 3 (match ids,
//! START replies other than `ready`, one URL for two roles), 7 (a big START), 8 (moves
//! whose Unicode lower case changes length) and 9 (the log's cap on every field). Item 11
//! is tested in `propnet-ggp` (`tests/late_reply.rs`) and `propnet-mcts`.

use super::support::{
    check_record, json, manager, manager_output, one_match_args, player, player_with_stderr, post,
    root, scratch,
};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn tictactoe() -> String {
    root()
        .join("bench-games/tictactoe.kif")
        .display()
        .to_string()
}

fn tictactoe_rules() -> String {
    let text = std::fs::read_to_string(root().join("bench-games/tictactoe.kif")).unwrap();
    format!("({text}\n)")
}

/// A player at a loopback port that answers every message `busy` and keeps each
/// message's keyword; it serves at most 200 connections, for at most 120 s, until
/// stopped.
struct BusyPlayer {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl BusyPlayer {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (seen.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let until = Instant::now() + Duration::from_secs(120);
            let mut served = 0;
            while served < 200 && Instant::now() < until && !st.load(Ordering::SeqCst) {
                let Ok((mut conn, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                served += 1;
                let _ = conn.set_nonblocking(false);
                let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
                let body = read_request(&mut conn);
                let keyword: String = body
                    .trim_start_matches(|c: char| c == '(' || c.is_whitespace())
                    .chars()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .collect();
                s.lock().unwrap().push(keyword.to_ascii_uppercase());
                let reply =
                    "HTTP/1.0 200 OK\r\nContent-Type: text/acl\r\nContent-Length: 4\r\n\r\nbusy";
                let _ = conn.write_all(reply.as_bytes());
            }
        });
        Self {
            port,
            seen,
            stop,
            thread: Some(thread),
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for BusyPlayer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The body of one HTTP request (head, then Content-Length bytes; at most 16 MB).
fn read_request(conn: &mut std::net::TcpStream) -> String {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    loop {
        let text = String::from_utf8_lossy(&buf).to_string();
        if let Some(head_end) = text.find("\r\n\r\n") {
            let length = text[..head_end]
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if buf.len() >= head_end + 4 + length {
                return String::from_utf8_lossy(&buf[head_end + 4..]).to_string();
            }
        }
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => return String::from_utf8_lossy(&buf).to_string(),
            Ok(n) if buf.len() + n <= 16 << 20 => buf.extend_from_slice(&chunk[..n]),
            Ok(_) => return String::new(),
        }
    }
}

fn records(dir: &Path) -> Vec<serde_json::Value> {
    let mut recs: Vec<_> = std::fs::read_dir(dir)
        .expect("records")
        .map(|e| json(&e.unwrap().path()))
        .collect();
    recs.sort_by_key(|r| r["matchId"].as_str().unwrap_or("").to_string());
    recs
}

/// Item 3: one URL for two roles is refused before anything is sent; a player that
/// answers START with `busy` is recorded (`NR busy`), gets no other message, and the
/// match is played without it (its moves the manager's, each recorded `NR`); match ids
/// differ between games and between runs.
#[test]
fn item03_match_ids_are_unique_and_a_busy_start_is_an_error_of_that_player() {
    let dir = scratch("item03");
    let same = [
        tictactoe(),
        "--players".into(),
        "http://127.0.0.1:9/,http://127.0.0.1:9".into(),
    ];
    let (code, out, err) = manager_output(&same, Duration::from_secs(60));
    assert_eq!(code, Some(1), "one URL for two roles: {err}");
    assert!(
        err.contains("http://127.0.0.1:9 is given twice (players 1 and 2)")
            && err.contains("one match at a time"),
        "{err}"
    );
    assert!(out.is_empty(), "nothing played: {out}");

    let busy = BusyPlayer::start();
    let run = |name: &str, games: u32| {
        let rec_dir = dir.join(name);
        let args: Vec<String> = vec![
            tictactoe(),
            "--players".into(),
            format!("{},random", busy.url()),
            "--startclock".into(),
            "2".into(),
            "--playclock".into(),
            "1".into(),
            "--games".into(),
            games.to_string(),
            "--record-dir".into(),
            rec_dir.display().to_string(),
        ];
        let (code, _, err) = manager_output(&args, Duration::from_secs(120));
        assert_eq!(code, Some(0), "{err}");
        assert!(
            err.contains("answered START with `busy`, not `ready`"),
            "no warning: {err}"
        );
        records(&rec_dir)
    };
    let first = run("run1", 2);
    let second = run("run2", 1);
    let ids: Vec<&str> = first
        .iter()
        .chain(&second)
        .map(|r| r["matchId"].as_str().unwrap())
        .collect();
    for (i, a) in ids.iter().enumerate() {
        assert!(a.starts_with("propnet.tictactoe."), "{a}");
        assert!(
            !ids[i + 1..].contains(a),
            "match id {a} used twice: {ids:?}"
        );
    }
    for rec in first.iter().chain(&second) {
        let names = rec["playerNamesFromHost"].as_array().unwrap();
        let r = names
            .iter()
            .position(|n| n.as_str() == Some(busy.url().as_str()))
            .expect("the busy player has a role");
        let errors = rec["errors"].as_array().unwrap();
        assert_eq!(errors[0][r], "NR busy", "{}", rec["errors"]);
        assert!(errors.len() > 5, "a whole game was played");
        for e in &errors[1..] {
            assert_eq!(e[r], "NR", "{}", rec["errors"]);
            assert_eq!(e[1 - r], "", "{}", rec["errors"]);
        }
        assert_eq!(rec["isCompleted"], true);
    }
    let seen = busy.seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec!["START"; 3],
        "only STARTs reach a player not in the match"
    );
    drop(busy);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A one-move game whose goal depends on one rule with `n` variables (as in
/// `rule_limits.rs`): too many for the grounder and the interpreter, and costly to read.
fn wide_rules(n: usize) -> String {
    let vars: Vec<String> = (0..n).map(|i| format!("?v{i}")).collect();
    let args: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    format!(
        "((role r) (init s) (<= (legal r go) (true s)) (<= (next t) (does r go)) \
         (<= terminal (true t)) (<= (goal r 100) (true t) big) \
         (<= (goal r 0) (true t) (not big)) (<= (goal r 50) (true s)) (f {}) \
         (<= big (f {})))",
        args.join(" "),
        vars.join(" ")
    )
}

/// Item 7: a 3.4 MB START (one rule of 215,000 variables) with a start clock of 5 s is
/// answered `ready` before the clock ends, and an INFO sent meanwhile within 0.5 s.
#[test]
fn item07_a_big_start_is_answered_in_time_and_info_meanwhile_at_once() {
    let dir = scratch("item07");
    let (_p, port) = player(&dir, &[]);
    let start = format!("(START big r {} 5 5)", wide_rules(215_000));
    assert!(start.len() > 3_400_000, "{} bytes", start.len());
    let sent = Instant::now();
    let starting = std::thread::spawn(move || (post(port, &start), sent.elapsed()));
    std::thread::sleep(Duration::from_millis(1000));
    let t = Instant::now();
    let info = post(port, "(INFO)");
    let info_took = t.elapsed();
    let ((status, reply), took) = starting.join().unwrap();
    eprintln!("START answered after {took:?}; INFO meanwhile after {info_took:?}");
    assert_eq!((status, reply.as_str()), (200, "ready"));
    assert!(
        took < Duration::from_secs(5),
        "START answered after {took:?}"
    );
    assert_eq!(info, (200, "((name propnet) (status busy))".into()));
    assert!(
        info_took < Duration::from_millis(500),
        "INFO took {info_took:?}"
    );
    assert_eq!(post(port, "(ABORT big)"), (200, "aborted".into()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A game whose roles and moves hold `İ` (lower case `i` + U+0307 in Unicode, which the
/// reader does not accept): folded as ASCII, they read back as written.
const DOTTED: &str = "(role İlk) (role son)\n(init (step 1))\n\
    (succ 1 2) (succ 2 3) (succ 3 4)\n\
    (legal İlk (İşaret 1)) (legal İlk (İşaret 2))\n\
    (legal son NOOP) (legal son Ünİ)\n\
    (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))\n\
    (<= (next (seen ?m)) (does İlk ?m))\n\
    (<= (next (seen ?m)) (true (seen ?m)))\n\
    (<= terminal (true (step 4)))\n\
    (<= (goal İlk 100) (true (seen (İşaret 1))))\n\
    (<= (goal İlk 0) (not (true (seen (İşaret 1)))))\n\
    (goal son 50)\n";

/// Item 8: a match between propnet processes whose moves hold `İ`: every move is
/// accepted (no error in the record), spelled as in the rules.
#[test]
fn item08_moves_with_dotted_capital_i_round_trip_between_manager_and_player() {
    let dir = scratch("item08");
    let game = dir.join("dotted.kif");
    std::fs::write(&game, DOTTED).unwrap();
    let (_a, pa) = player(&dir.join("log-a"), &[]);
    let (_b, pb) = player(&dir.join("log-b"), &[]);
    let rec_dir = dir.join("records");
    let args = one_match_args(&game, (pa, pb), &rec_dir);
    manager(&args, Duration::from_secs(120));
    let recs = records(&rec_dir);
    assert_eq!(recs.len(), 1);
    check_record(&recs[0], &game);
    let moves = recs[0]["moves"].to_string();
    assert!(
        moves.contains("(İşaret "),
        "moves spelled as in the rules: {moves}"
    );
    assert_eq!(recs[0]["isCompleted"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 9: megabyte match ids in START, PLAY, STOP and ABORT: every line of the log
/// files and of stderr stays within the cap.
#[test]
fn item09_megabyte_match_ids_are_cut_in_the_log_and_on_stderr() {
    let dir = scratch("item09");
    let stderr_path = dir.join("stderr.txt");
    let stderr = std::fs::File::create(&stderr_path).unwrap();
    let logs = dir.join("logs");
    let (p, port) = player_with_stderr(&logs, &[], stderr.into());
    let id = format!("m{}", "x".repeat(1 << 20));
    let other = format!("n{}", "y".repeat(1 << 20));
    let rules = tictactoe_rules();
    assert_eq!(
        post(port, &format!("(START {id} o {rules} 2 1)")).1,
        "ready"
    );
    assert_eq!(post(port, &format!("(PLAY {id} NIL)")).1, "noop");
    assert_eq!(post(port, &format!("(PLAY {other} NIL)")).1, "busy");
    assert_eq!(post(port, &format!("(STOP {other} NIL)")).1, "busy");
    assert_eq!(post(port, &format!("(ABORT {id})")).1, "aborted");
    assert_eq!(post(port, &format!("(ABORT {id})")).1, "busy");
    drop(p);
    let text = std::fs::read_to_string(&stderr_path).unwrap();
    assert!(text.lines().count() >= 6, "{text}");
    for line in text.lines() {
        assert!(
            line.chars().count() <= 420,
            "stderr line of {} chars",
            line.len()
        );
    }
    let mut total = 0;
    for e in std::fs::read_dir(&logs).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
        total += text.len();
        for line in text.lines() {
            assert!(
                line.chars().count() <= 3000,
                "log line of {} chars",
                line.len()
            );
        }
    }
    assert!(total < 64 << 10, "the logs hold {total} bytes");
    let _ = std::fs::remove_dir_all(&dir);
}
