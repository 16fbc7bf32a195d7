//! The player's HTTP server: one connection per message, as game managers send them.
//!
//! Request heads are parsed by `httparse`; the body is read by `Content-Length`. Every
//! read and write has a timeout and each request an overall deadline, heads and bodies
//! have size limits, and each connection is served on its own thread (at most
//! [`ServerLimits::max_connections`] at once), so a stalled or hostile client never holds
//! up the messages of the match. Replies are `HTTP/1.0 200 OK` with `Content-Type:
//! text/acl`, `Content-Length`, CORS headers and `Connection: close`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Limits of the server.
#[derive(Clone, Debug)]
pub struct ServerLimits {
    /// Largest request head (request line and headers), bytes.
    pub max_head: usize,
    /// Largest body, bytes (rules of big games are ~100 KB).
    pub max_body: usize,
    /// Timeout of each socket read and write.
    pub io_timeout: Duration,
    /// Longest time to receive a whole request.
    pub request_deadline: Duration,
    /// Most connections served at once; more are answered `503` at once.
    pub max_connections: usize,
}

impl Default for ServerLimits {
    fn default() -> Self {
        Self {
            max_head: 64 * 1024,
            max_body: 16 * 1024 * 1024,
            io_timeout: Duration::from_secs(5),
            request_deadline: Duration::from_secs(10),
            max_connections: 64,
        }
    }
}

/// A request as the handler sees it.
#[derive(Clone, Debug)]
pub struct HttpRequest {
    /// `POST`, `GET`, `OPTIONS`, …
    pub method: String,
    /// The request target, still percent-encoded.
    pub path: String,
    /// The body.
    pub body: Vec<u8>,
    /// When the connection was accepted (the message's receipt time).
    pub received: Instant,
}

/// A reply: status code and text body (sent as `text/acl`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpReply {
    /// Status code.
    pub status: u16,
    /// Body.
    pub body: String,
}

impl HttpReply {
    /// `200 OK` with this body.
    pub fn ok(body: impl Into<String>) -> Self {
        Self {
            status: 200,
            body: body.into(),
        }
    }
    /// An error status with this body.
    pub fn error(status: u16, body: impl Into<String>) -> Self {
        Self {
            status,
            body: body.into(),
        }
    }
}

/// Handles one request; called on the connection's thread.
pub type Handler = Arc<dyn Fn(HttpRequest) -> HttpReply + Send + Sync>;

/// Called with one line for every request that could not be read (bad head, timeout, …).
pub type ErrorLog = Arc<dyn Fn(String) + Send + Sync>;

/// Serves `listener` until `stop` is set (checked every 50 ms).
///
/// # Errors
/// Setting the listener non-blocking failed.
pub fn serve(
    listener: TcpListener,
    limits: ServerLimits,
    handler: Handler,
    log: ErrorLog,
    stop: Arc<AtomicBool>,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let active = Arc::new(AtomicUsize::new(0));
    while !stop.load(Ordering::Relaxed) {
        let (stream, peer) = match listener.accept() {
            Ok(s) => s,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(2));
                continue;
            }
            Err(e) => {
                log(format!("accept failed: {e}"));
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        let received = Instant::now();
        if active.load(Ordering::SeqCst) >= limits.max_connections {
            log(format!("{peer}: too many connections; answered 503"));
            let _ = reply_on(stream, &limits, &HttpReply::error(503, "busy"));
            continue;
        }
        active.fetch_add(1, Ordering::SeqCst);
        let (limits, handler, log, active) =
            (limits.clone(), handler.clone(), log.clone(), active.clone());
        std::thread::spawn(move || {
            match read_request(&stream, &limits, received) {
                Ok(req) => {
                    // a bug in the handler must not take the connection count down with it
                    let run = std::panic::AssertUnwindSafe(|| handler(req));
                    let reply = std::panic::catch_unwind(run).unwrap_or_else(|_| {
                        log(format!("{peer}: internal error while answering (a bug)"));
                        HttpReply::error(500, "internal error")
                    });
                    if let Err(e) = reply_on(stream, &limits, &reply) {
                        log(format!("{peer}: writing the reply failed: {e}"));
                    }
                }
                Err((status, why)) => {
                    log(format!("{peer}: bad request ({status}): {why}"));
                    let _ = reply_on(stream, &limits, &HttpReply::error(status, why));
                }
            }
            active.fetch_sub(1, Ordering::SeqCst);
        });
    }
    Ok(())
}

/// Reads one request: head by `httparse`, body by `Content-Length`.
fn read_request(
    stream: &TcpStream,
    limits: &ServerLimits,
    received: Instant,
) -> Result<HttpRequest, (u16, String)> {
    let io = |e: std::io::Error| (400, format!("setting up the connection failed: {e}"));
    stream.set_nonblocking(false).map_err(io)?;
    stream
        .set_read_timeout(Some(limits.io_timeout))
        .map_err(io)?;
    stream
        .set_write_timeout(Some(limits.io_timeout))
        .map_err(io)?;
    let deadline = received + limits.request_deadline;
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    loop {
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut req = httparse::Request::new(&mut headers);
        match req.parse(&buf) {
            Ok(httparse::Status::Complete(head_len)) => {
                if head_len > limits.max_head {
                    return Err((431, format!("request head over {} bytes", limits.max_head)));
                }
                let method = req.method.unwrap_or("").to_string();
                let path = req.path.unwrap_or("/").to_string();
                let length = body_length(req.headers, limits)?;
                let mut body = buf[head_len..].to_vec();
                while body.len() < length {
                    if read_more(stream, &mut body, deadline, "body")? == 0 {
                        let got = body.len();
                        let why = format!("connection closed after {got} of {length} body bytes");
                        return Err((400, why));
                    }
                }
                body.truncate(length);
                return Ok(HttpRequest {
                    method,
                    path,
                    body,
                    received,
                });
            }
            Ok(httparse::Status::Partial) => {}
            Err(e) => return Err((400, format!("malformed HTTP request head: {e}"))),
        }
        if buf.len() > limits.max_head {
            return Err((431, format!("request head over {} bytes", limits.max_head)));
        }
        if read_more(stream, &mut buf, deadline, "head")? == 0 {
            let why = "connection closed before the request head ended";
            return Err((400, why.into()));
        }
    }
}

/// One read from `stream` appended to `buf`: the bytes read (0 at end of stream), or
/// `408` past `deadline` or when the socket's read timeout expires.
fn read_more(
    mut stream: &TcpStream,
    buf: &mut Vec<u8>,
    deadline: Instant,
    what: &str,
) -> Result<usize, (u16, String)> {
    if Instant::now() >= deadline {
        return Err((408, format!("request {what} not received in time")));
    }
    let mut chunk = [0u8; 8192];
    let n = stream.read(&mut chunk).map_err(|e| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => (
            408,
            format!("request {what} not received in time (read timed out)"),
        ),
        _ => (400, format!("reading the request failed: {e}")),
    })?;
    buf.extend_from_slice(&chunk[..n]);
    Ok(n)
}

/// The body length from the headers (0 without `Content-Length`).
fn body_length(
    headers: &[httparse::Header<'_>],
    limits: &ServerLimits,
) -> Result<usize, (u16, String)> {
    let mut length = 0usize;
    for h in headers {
        if h.name.eq_ignore_ascii_case("transfer-encoding") {
            return Err((
                411,
                "chunked bodies are not accepted; send Content-Length".into(),
            ));
        }
        if h.name.eq_ignore_ascii_case("content-length") {
            let text = String::from_utf8_lossy(h.value);
            length = text
                .trim()
                .parse()
                .map_err(|_| (400, format!("bad Content-Length `{}`", text.trim())))?;
        }
    }
    if length > limits.max_body {
        return Err((
            413,
            format!(
                "body of {length} bytes is over the limit of {} bytes",
                limits.max_body
            ),
        ));
    }
    Ok(length)
}

/// Writes `reply` as an HTTP/1.0 response and closes the connection.
fn reply_on(
    mut stream: TcpStream,
    limits: &ServerLimits,
    reply: &HttpReply,
) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_write_timeout(Some(limits.io_timeout))?;
    let reason = match reply.status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Error",
    };
    let text = format!(
        "HTTP/1.0 {} {reason}\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\
         Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Methods: POST, GET, OPTIONS\r\n\
         Access-Control-Allow-Headers: Content-Type, Sender, Receiver\r\n\
         Access-Control-Max-Age: 86400\r\nConnection: close\r\n\r\n{}",
        reply.status,
        reply.body.len(),
        reply.body
    );
    stream.write_all(text.as_bytes())?;
    stream.flush()?;
    let _ = stream.shutdown(std::net::Shutdown::Write);
    // Drain what the client still sends (a body past Content-Length), briefly, so the
    // close does not reset the connection before the reply is read.
    let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
    let mut sink = [0u8; 1024];
    let end = Instant::now() + Duration::from_millis(200);
    while Instant::now() < end {
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
    Ok(())
}
