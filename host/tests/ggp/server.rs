//! The HTTP server alone (`propnet_ggp::http`), in-process on 127.0.0.1 with small
//! limits: reply framing and headers per HTTP version, chunked bodies, a panicking handler,
//! a blocking handler beside others, the connection bound, stalled heads and bodies, the
//! request deadline, and the stop flag.

use super::support::{exchange, raw};
use propnet_ggp::http::{self, HttpReply, HttpRequest, ServerLimits};
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// A server on a free loopback port; stopped (and its thread joined) when dropped.
struct Server {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<std::io::Result<()>>>,
    log: Arc<Mutex<Vec<String>>>,
    /// Each `/slow` request sends `()` here when its handler starts…
    started: mpsc::Receiver<()>,
    /// …and returns when it receives `()` from here.
    release: mpsc::Sender<()>,
}

impl Server {
    /// Starts a server whose handler echoes `METHOD PATH BODY`, panics on `/panic` and
    /// blocks on `/slow` until released.
    fn start(limits: ServerLimits) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().unwrap().port();
        let (started_tx, started) = mpsc::channel();
        let (release, release_rx) = mpsc::channel::<()>();
        let (started_tx, release_rx) = (Mutex::new(started_tx), Mutex::new(release_rx));
        let handler: http::Handler = Arc::new(move |req: HttpRequest| match req.path.as_str() {
            "/panic" => panic!("a handler bug (expected by the test)"),
            "/slow" => {
                let _ = started_tx.lock().unwrap().send(());
                let _ = release_rx
                    .lock()
                    .unwrap()
                    .recv_timeout(Duration::from_secs(20));
                HttpReply::ok("slow")
            }
            _ => HttpReply::ok(format!(
                "{} {} {}",
                req.method,
                req.path,
                String::from_utf8_lossy(&req.body)
            )),
        });
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = log.clone();
        let error_log: http::ErrorLog = Arc::new(move |line| sink.lock().unwrap().push(line));
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread =
            std::thread::spawn(move || http::serve(listener, limits, handler, error_log, flag));
        Self {
            port,
            stop,
            thread: Some(thread),
            log,
            started,
            release,
        }
    }

    /// The log line containing `want`, or a panic listing the log. The server may log a
    /// connection's end just after the client sees it closed, so the log is polled for up
    /// to 5 s.
    fn logged(&self, want: &str) {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            let log = self.log.lock().unwrap();
            if log.iter().any(|l| l.contains(want)) {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no `{want}` in the log: {log:#?}"
            );
            drop(log);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends a `/slow` request on its own thread and waits (at most 20 s) until its
    /// handler runs.
    fn slow(&self) -> JoinHandle<(u16, String)> {
        let port = self.port;
        let h = std::thread::spawn(move || raw(port, b"GET /slow HTTP/1.0\r\n\r\n", false));
        self.started
            .recv_timeout(Duration::from_secs(20))
            .expect("the slow handler started");
        h
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn limits() -> ServerLimits {
    ServerLimits {
        max_head: 1024,
        max_body: 1000,
        io_timeout: Duration::from_millis(300),
        request_deadline: Duration::from_millis(800),
        max_connections: 2,
        max_open: 6,
    }
}

fn text(port: u16, bytes: &[u8]) -> String {
    String::from_utf8_lossy(&exchange(port, bytes, false)).into_owned()
}

#[test]
fn replies_keep_the_request_version_and_carry_the_ggp_headers() {
    let s = Server::start(limits());
    let old = text(
        s.port,
        b"POST / HTTP/1.0\r\nContent-Length: 6\r\n\r\n(INFO)",
    );
    assert!(old.starts_with("HTTP/1.0 200 OK\r\n"), "{old}");
    for h in [
        "\r\nContent-Type: text/acl\r\n",
        "\r\nContent-Length: 13\r\n",
        "\r\nAccess-Control-Allow-Origin: *\r\n",
        "\r\nConnection: close\r\n",
    ] {
        assert!(old.contains(h), "no `{}` in {old}", h.trim());
    }
    assert!(old.ends_with("\r\n\r\nPOST / (INFO)"), "{old}");
    let new = text(s.port, b"GET /%28INFO%29 HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(new.starts_with("HTTP/1.1 200 OK\r\n"), "{new}");
    assert_eq!(new.matches("Connection: close").count(), 1, "{new}");
    assert!(new.ends_with("\r\n\r\nGET /%28INFO%29 "), "{new}");
    let options = text(s.port, b"OPTIONS / HTTP/1.1\r\nOrigin: x\r\n\r\n");
    for h in [
        "Access-Control-Allow-Methods: POST, GET, OPTIONS",
        "Access-Control-Allow-Headers: Content-Type, Sender, Receiver",
        "Content-Length: 10",
    ] {
        assert!(options.contains(h), "no `{h}` in {options}");
    }
}

#[test]
fn chunked_bodies_are_read_and_bounded() {
    let s = Server::start(limits());
    let two =
        b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n(IN\r\n3\r\nFO)\r\n0\r\n\r\n";
    assert_eq!(raw(s.port, two, false), (200, "POST / (INFO)".into()));
    let mut big = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..3 {
        big.extend_from_slice(format!("190\r\n{}\r\n", "x".repeat(400)).as_bytes());
    }
    big.extend_from_slice(b"0\r\n\r\n");
    let (status, body) = raw(s.port, &big, false);
    assert!(
        status == 413 && body.contains("over the limit of 1000 bytes"),
        "{status} {body}"
    );
    let declared = b"POST / HTTP/1.0\r\nContent-Length: 1001\r\n\r\n";
    assert_eq!(raw(s.port, declared, false).0, 413);
    s.logged("bad request (413)");
}

#[test]
fn a_panicking_handler_is_answered_500_and_the_server_goes_on() {
    let s = Server::start(ServerLimits {
        max_connections: 1,
        ..limits()
    });
    for _ in 0..3 {
        let (status, body) = raw(s.port, b"GET /panic HTTP/1.0\r\n\r\n", false);
        assert_eq!((status, body.as_str()), (500, "internal error"));
    }
    // the connections of the panicking handlers were given back (the limit is 1)
    assert_eq!(raw(s.port, b"GET /ok HTTP/1.0\r\n\r\n", false).0, 200);
    s.logged("internal error while answering (a bug)");
}

#[test]
fn a_blocking_handler_holds_up_no_other_and_the_bound_answers_503() {
    let s = Server::start(limits());
    let first = s.slow();
    // a handler blocked: others are still answered
    let (status, body) = raw(s.port, b"GET /info HTTP/1.0\r\n\r\n", false);
    assert_eq!((status, body.as_str()), (200, "GET /info "));
    let second = s.slow();
    // two connections open: the limit
    let (status, body) = raw(s.port, b"GET /info HTTP/1.0\r\n\r\n", false);
    assert!(
        status == 503 && body.contains("too many connections"),
        "{status} {body}"
    );
    for _ in 0..2 {
        s.release.send(()).unwrap();
    }
    assert_eq!(first.join().unwrap(), (200, "slow".into()));
    assert_eq!(second.join().unwrap(), (200, "slow".into()));
    assert_eq!(raw(s.port, b"GET /info HTTP/1.0\r\n\r\n", false).0, 200);
    s.logged("too many connections; answered 503");
}

/// Connections that send nothing take no handler: with more of them open than
/// `max_connections`, a request is still answered; past `max_open` a new connection is
/// closed at once, and once the idle ones time out it is served again.
#[test]
fn idle_connections_do_not_lock_out_requests() {
    let s = Server::start(limits());
    let idle: Vec<TcpStream> = (0..5)
        .map(|_| TcpStream::connect(("127.0.0.1", s.port)).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(50));
    let (status, body) = raw(s.port, b"GET /info HTTP/1.0\r\n\r\n", false);
    assert_eq!((status, body.as_str()), (200, "GET /info "));
    let sixth = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let mut seventh = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    seventh
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut got = Vec::new();
    let _ = std::io::Read::read_to_end(&mut seventh, &mut got);
    assert!(got.is_empty(), "a 7th connection got {got:?}");
    s.logged("too many open connections; closed");
    // the idle ones are closed after io_timeout (300 ms), and their slots given back
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(raw(s.port, b"GET /info HTTP/1.0\r\n\r\n", false).0, 200);
    drop((idle, sixth));
}

#[test]
fn stalled_heads_and_bodies_and_the_request_deadline() {
    let s = Server::start(limits());
    let head = exchange(s.port, b"POST / HTTP/1.0\r\nContent-Le", false);
    assert!(head.is_empty(), "a stalled head got {head:?}");
    s.logged("request head not received in time");
    let body = b"POST / HTTP/1.0\r\nContent-Length: 9\r\n\r\n(IN";
    let (status, why) = raw(s.port, body, false);
    assert!(
        status == 408 && why.contains("not received in time"),
        "{status} {why}"
    );
    // every byte within the read timeout, but the body is not done by the deadline
    let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    c.write_all(b"POST / HTTP/1.0\r\nContent-Length: 40\r\n\r\n")
        .unwrap();
    let mut cut = false;
    for _ in 0..40 {
        std::thread::sleep(Duration::from_millis(100));
        if c.write_all(b" ").is_err() {
            cut = true;
            break;
        }
    }
    assert!(cut, "a body trickled past the deadline was not cut off");
    s.logged("request body not received in time (not complete 800ms after receipt)");
    let truncated = b"POST / HTTP/1.0\r\nContent-Length: 10\r\n\r\n(INFO)";
    let (status, why) = raw(s.port, truncated, true);
    assert!(
        status == 400 && why.contains("after 6 of 10 body bytes"),
        "{status} {why}"
    );
}

#[test]
fn the_stop_flag_ends_serve() {
    let mut s = Server::start(limits());
    assert_eq!(raw(s.port, b"GET / HTTP/1.0\r\n\r\n", false).0, 200);
    s.stop.store(true, Ordering::Relaxed);
    let (tx, rx) = mpsc::channel();
    let thread = s.thread.take().unwrap();
    std::thread::spawn(move || tx.send(thread.join().map(|r| r.is_ok())));
    let ended = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("serve returned");
    assert!(matches!(ended, Ok(true)), "serve failed or panicked");
}
