//! The player's protocol suite: every message form (case variants, extra whitespace,
//! GET, OPTIONS), and hostile requests, each with its expected reply and log line; the
//! player keeps serving throughout.

use super::support::{exchange, player, post, raw, root, scratch};
use std::time::{Duration, Instant};

const INFO_FREE: &str = "((name suite) (status available))";
const INFO_BUSY: &str = "((name suite) (status busy))";

fn tictactoe_rules() -> String {
    let text = std::fs::read_to_string(root().join("bench-games/tictactoe.kif")).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.split(';').next().unwrap_or(""))
        .collect();
    format!("({})", lines.join(" "))
}

fn is_mark(reply: &str) -> bool {
    let r = reply.trim();
    r.starts_with("(mark ") && r.ends_with(')') && r.len() == 10
}

#[test]
fn protocol_messages_and_hostile_requests() {
    let dir = scratch("protocol");
    let (_p, port) = player(&dir, &["--name", "suite", "--margin-ms", "200"]);
    // message forms
    assert_eq!(post(port, "(INFO)"), (200, INFO_FREE.into()));
    assert_eq!(post(port, "  ( info\r\n\t)  "), (200, INFO_FREE.into()));
    let get = format!("GET /%28INFO%29 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    assert_eq!(raw(port, get.as_bytes(), false), (200, INFO_FREE.into()));
    let get_root = "GET / HTTP/1.0\r\n\r\n";
    assert_eq!(
        raw(port, get_root.as_bytes(), false),
        (200, INFO_FREE.into())
    );
    let options = raw(port, b"OPTIONS / HTTP/1.1\r\nOrigin: x\r\n\r\n", false);
    assert_eq!(options, (200, String::new()));
    let rules = tictactoe_rules();
    assert_eq!(
        post(port, &format!("(PREVIEW {rules} 5)")),
        (200, "ready".into())
    );
    let t = Instant::now();
    let start = format!("(Start  m1 X {rules} 2 1)");
    assert_eq!(post(port, &start), (200, "ready".into()));
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "ready within the start clock"
    );
    assert_eq!(post(port, "(INFO)"), (200, INFO_BUSY.into()));
    assert_eq!(post(port, &format!("(START m9 o {rules} 2 1)")).1, "busy");
    assert_eq!(post(port, "(PLAY nosuch NIL)").1, "busy");
    // INFO while thinking: a PLAY in flight, INFO answered at once
    let think = std::thread::spawn(move || {
        let t = Instant::now();
        (post(port, "(play m1 nil)"), t.elapsed())
    });
    std::thread::sleep(Duration::from_millis(150));
    let t = Instant::now();
    assert_eq!(post(port, "(INFO)").1, INFO_BUSY);
    assert!(
        t.elapsed() < Duration::from_millis(500),
        "INFO waited for the search"
    );
    let ((status, mv), took) = think.join().unwrap();
    assert!(status == 200 && is_mark(&mv), "first move `{mv}`");
    assert!(took < Duration::from_secs(1), "PLAY took {took:?}");
    let reply = post(port, &format!("(PLAY m1 ({mv} NOOP))")).1;
    assert_eq!(reply, "noop", "o is to move");
    // an illegal joint move (x marks again while o is to move) still gets a legal reply
    let reply = post(port, "(PLAY m1 ((mark 1 1) (mark 1 1)))").1;
    assert!(reply == "noop" || is_mark(&reply), "reply `{reply}`");
    assert_eq!(
        post(port, "(STOP m1 ((mark 1 2) noop))"),
        (200, "done".into())
    );
    assert_eq!(post(port, "(INFO)").1, INFO_FREE);
    assert_eq!(post(port, "(STOP m1 NIL)").1, "busy");
    assert_eq!(post(port, &format!("(START m2 o {rules} 1 1)")).1, "ready");
    assert_eq!(post(port, "(ABORT m2)"), (200, "aborted".into()));
    assert_eq!(post(port, "(ABORT m2)").1, "busy");
    hostile(port, &rules);
    assert_eq!(
        post(port, "(INFO)"),
        (200, INFO_FREE.into()),
        "still serving"
    );
    let log = std::fs::read_to_string(dir.join("player.jsonl")).unwrap();
    for want in [
        "unknown message keyword",
        "takes 2 arguments",
        "between 0 and",
        "rules rejected",
        "is not a role of the game",
        "over the limit",
        "malformed HTTP request head",
        "request body not received in time",
        "request head not received in time",
        "connection closed after 10 of 100 body bytes",
        "method PUT not allowed",
        "PLAY for unknown match",
    ] {
        assert!(
            log.contains(want),
            "player.jsonl has no `{want}` line:\n{log}"
        );
    }
    let m1 = std::fs::read_to_string(dir.join("m1.jsonl")).unwrap();
    assert!(m1.contains("is not legal here"), "m1.jsonl:\n{m1}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Hostile requests: each gets its status and a message naming the problem (a stalled
/// head, which gets no reply, a line in the log).
fn hostile(port: u16, rules: &str) {
    let stalled = std::thread::spawn(move || {
        raw(
            port,
            b"POST / HTTP/1.0\r\nContent-Length: 6\r\n\r\n(IN",
            false,
        )
    });
    let stalled_head =
        std::thread::spawn(move || exchange(port, b"POST / HTTP/1.0\r\nContent-Le", false));
    let cases: Vec<(String, u16, &str)> = vec![
        ("(((".into(), 400, "end of file inside this list"),
        ("(DANCE m1)".into(), 400, "unknown message keyword `DANCE`"),
        (
            "(PLAY m1)".into(),
            400,
            "PLAY takes 2 arguments (GDL-I: id moves) or 4",
        ),
        (format!("(START m3 x {rules} -5 1)"), 400, "between 0 and"),
        (format!("(START m3 x {rules} nan 1)"), 400, "between 0 and"),
        (
            "(START m3 x rules 5 1)".into(),
            400,
            "the rules must be a list",
        ),
        ("".into(), 400, "found 0 top-level expressions"),
        ("(INFO) (INFO)".into(), 400, "found 2 top-level expressions"),
        ("(PLAY m1 X)".into(), 400, "NIL or a list"),
        ("(".repeat(2000), 400, "nested deeper"),
        (
            "(START m3 x ((role x) (<= (legal x ?m) (true (c)))) 5 1)".into(),
            200,
            "busy",
        ),
        (format!("(START m3 nobody {rules} 5 1)"), 200, "busy"),
    ];
    for (msg, status, want) in &cases {
        let (s, body) = post(port, msg);
        assert!(
            s == *status && body.contains(want),
            "{msg:.60}: got {s} `{body}`, want {status} `{want}`"
        );
    }
    let bad_utf8 = b"POST / HTTP/1.0\r\nContent-Length: 3\r\n\r\n(\xff)";
    assert_eq!(raw(port, bad_utf8, false).0, 400);
    let big = format!("POST / HTTP/1.0\r\nContent-Length: {}\r\n\r\n", 64 << 20);
    let (s, body) = raw(port, big.as_bytes(), false);
    assert!(s == 413 && body.contains("over the limit"), "{s} {body}");
    // a chunked body is read like any other (HTTP/1.1 allows it; managers do not send it)
    let chunked = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n(INFO)\r\n0\r\n\r\n";
    assert_eq!(raw(port, chunked, false), (200, INFO_FREE.into()));
    let bad_chunk =
        b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n(INFO)\r\n0\r\n\r\n";
    assert_eq!(raw(port, bad_chunk, false).0, 400);
    assert_eq!(raw(port, b"HELLO THERE\r\n\r\n", false).0, 400);
    let length = b"POST / HTTP/1.0\r\nContent-Length: abc\r\n\r\n(INFO)";
    assert_eq!(raw(port, length, false).0, 400);
    let truncated = b"POST / HTTP/1.0\r\nContent-Length: 100\r\n\r\n(INFO)    ";
    assert_eq!(raw(port, truncated, true).0, 400);
    let huge_head = format!("GET / HTTP/1.0\r\nX: {}\r\n\r\n", "a".repeat(70_000));
    assert_eq!(raw(port, huge_head.as_bytes(), false).0, 431);
    assert_eq!(
        raw(port, b"PUT / HTTP/1.0\r\nContent-Length: 0\r\n\r\n", false).0,
        405
    );
    // the stalled body is cut by the read timeout, and everything above was served meanwhile
    let (s, body) = stalled.join().unwrap();
    assert!(
        s == 408 && body.contains("not received in time"),
        "stalled: {s} {body}"
    );
    // a stalled head: the connection is closed by the header read timeout, without a reply
    let reply = stalled_head.join().unwrap();
    assert!(reply.is_empty(), "stalled head got {reply:?}");
}

/// A play clock of 0 (at or below `--margin-ms`): every deadline has passed when the PLAY
/// arrives, yet each reply must be a legal move of the state after the PLAY's joint move
/// (it used to be the last legal move of the previous state, e.g. `noop` on o's turn).
/// The test referees with the reference interpreter: x plays its first legal move, o is
/// the player, for a whole game (at most 9 joint moves).
#[test]
fn play_clock_zero_still_gets_a_legal_move_of_the_current_state() {
    use propnet_compiler::gdl;
    use propnet_compiler::interp::Interp;
    use propnet_ggp::manager::canonical_reply;

    let dir = scratch("clock-zero");
    let (_p, port) = player(&dir, &["--margin-ms", "250"]);
    let rules = tictactoe_rules();
    let start = format!("(START z1 o {rules} 0 0)");
    assert_eq!(post(port, &start), (200, "ready".into()));
    let g = gdl::load(&root().join("bench-games/tictactoe.kif")).expect("tictactoe loads");
    let mut it = Interp::new(&g.program).expect("interpreter");
    let mut state = it.initial_state().unwrap();
    let mut previous = "nil".to_string();
    let mut steps = 0;
    loop {
        let mut pos = it.evaluate(&state).unwrap();
        if it.terminal_in(&pos) {
            break;
        }
        assert!(steps < 9, "tictactoe lasts at most 9 joint moves");
        steps += 1;
        let (status, reply) = post(port, &format!("(PLAY z1 {previous})"));
        assert_eq!(status, 200, "PLAY {steps}: `{reply}`");
        let want = canonical_reply(&reply).unwrap_or_else(|| panic!("reply `{reply}`"));
        let legal_o = it.legal_in(&pos, 1);
        let o = legal_o.iter().find(|(t, _)| *t == want).unwrap_or_else(|| {
            let texts: Vec<_> = legal_o.iter().map(|(t, _)| t.as_str()).collect();
            panic!("step {steps}: reply `{reply}` is not legal for o; legal: {texts:?}")
        });
        let x = it.legal_in(&pos, 0)[0].clone();
        previous = format!("({} {})", x.0, o.0);
        state = it.next_from(&mut pos, &[x.1, o.1]).unwrap();
    }
    assert!(steps >= 5, "a game of tictactoe has at least 5 joint moves");
    assert_eq!(
        post(port, &format!("(STOP z1 {previous})")),
        (200, "done".into())
    );
    let log = std::fs::read_to_string(dir.join("z1.jsonl")).unwrap();
    assert!(
        log.contains("not above the reply margin"),
        "START with a play clock of 0 is logged as a warning:\n{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An ABORT while a PLAY is being searched ends the search: the PLAY is answered soon
/// after, not at its deadline a minute later (the worker's search stop is raised when
/// the match ends).
#[test]
fn abort_ends_the_search_of_a_pending_play() {
    let dir = scratch("abort-search");
    let (_p, port) = player(&dir, &["--name", "suite"]);
    let text = std::fs::read_to_string(root().join("bench-games/connectfour.kif")).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.split(';').next().unwrap_or(""))
        .collect();
    let start = format!("(START a1 red ({}) 5 60)", lines.join(" "));
    assert_eq!(post(port, &start), (200, "ready".into()));
    let play = std::thread::spawn(move || {
        let t = Instant::now();
        (post(port, "(PLAY a1 NIL)"), t.elapsed())
    });
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(post(port, "(ABORT a1)"), (200, "aborted".into()));
    let ((status, reply), took) = play.join().unwrap();
    assert_eq!(status, 200, "{reply}");
    assert!(
        took < Duration::from_secs(30),
        "the PLAY was answered after {took:?}: the search went on after the ABORT"
    );
    assert_eq!(post(port, "(INFO)"), (200, INFO_FREE.into()));
    let _ = std::fs::remove_dir_all(&dir);
}
