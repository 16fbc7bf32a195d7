//! The player's HTTP server: hyper (HTTP/1 only) on a tokio runtime, one connection per
//! message, as game managers send them.
//!
//! hyper reads the requests and writes the replies; this module adds what a GGP player
//! needs around it:
//! - the receipt time is taken when the connection is accepted (a reply's deadline is
//!   receipt + clock − margin);
//! - the handler runs on tokio's blocking threads, so a PLAY that waits for its deadline
//!   never holds up INFO, STOP or ABORT; a handler that panics is answered `500`;
//! - heads over [`ServerLimits::max_head`] are answered `431` and malformed heads `400`
//!   (both by hyper), bodies over [`ServerLimits::max_body`] `413`; a head not received
//!   within [`ServerLimits::io_timeout`] closes the connection (hyper's header read
//!   timeout), a body that stalls for that long or is not complete by
//!   [`ServerLimits::request_deadline`] after receipt is answered `408`, and a reply the
//!   client does not take within `io_timeout` closes the connection;
//! - at most [`ServerLimits::max_connections`] requests are handled at once (counted
//!   once a request has been read: idle connections take no handler) and more are
//!   answered `503`; at most [`ServerLimits::max_open`] connections are open at once,
//!   idle ones included (each closed after `io_timeout` without a head), and more are
//!   closed at once.
//!
//! Every reply has `Content-Type: text/acl`, `Content-Length`, CORS headers
//! (`Access-Control-Allow-Origin: *`, …) and `Connection: close`, with title-case header
//! names as older managers expect, in the request's HTTP version (an HTTP/1.0 request gets
//! `HTTP/1.0 200 OK`).

use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Bytes, Incoming};
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// Limits of the server.
#[derive(Clone, Debug)]
pub struct ServerLimits {
    /// Largest request head (request line and headers), bytes.
    pub max_head: usize,
    /// Largest body, bytes (rules of big games are ~100 KB).
    pub max_body: usize,
    /// Longest wait for the head, for each part of the body, and for the client to take
    /// the reply.
    pub io_timeout: Duration,
    /// Longest time from receipt to the end of the body.
    pub request_deadline: Duration,
    /// Most requests handled at once (a handler may block: a PLAY until its deadline);
    /// a request read while that many run is answered `503`.
    pub max_connections: usize,
    /// Most connections open at once, idle ones included (sockets of clients that have
    /// not sent a whole request); more are closed at once.
    pub max_open: usize,
}

impl Default for ServerLimits {
    fn default() -> Self {
        Self {
            max_head: 64 * 1024,
            max_body: 16 * 1024 * 1024,
            io_timeout: Duration::from_secs(5),
            request_deadline: Duration::from_secs(10),
            max_connections: 64,
            max_open: 1024,
        }
    }
}

/// A request as the handler sees it.
#[derive(Clone, Debug)]
pub struct HttpRequest {
    /// `POST`, `GET`, `OPTIONS`, …
    pub method: String,
    /// The request target's path and query, still percent-encoded.
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

/// Handles one request; called on a blocking thread of the server's runtime, so it may
/// block (until its reply is due).
pub type Handler = Arc<dyn Fn(HttpRequest) -> HttpReply + Send + Sync>;

/// Called with one line for every request that could not be read or answered (bad head,
/// timeout, a panicking handler, …).
pub type ErrorLog = Arc<dyn Fn(String) + Send + Sync>;

/// How often the accept loop looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(50);

/// Headers of every reply (`Content-Length` is added by hyper).
const REPLY_HEADERS: [(HeaderName, &str); 6] = [
    (header::CONTENT_TYPE, "text/acl"),
    (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
    (header::ACCESS_CONTROL_ALLOW_METHODS, "POST, GET, OPTIONS"),
    (
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        "Content-Type, Sender, Receiver",
    ),
    (header::ACCESS_CONTROL_MAX_AGE, "86400"),
    (header::CONNECTION, "close"),
];

/// Serves `listener` until `stop` is set (looked at every 50 ms). Handlers still running
/// then are left to finish on their own threads.
///
/// # Errors
/// Setting the listener non-blocking, or building the runtime, failed.
pub fn serve(
    listener: TcpListener,
    limits: ServerLimits,
    handler: Handler,
    log: ErrorLog,
    stop: Arc<AtomicBool>,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .max_blocking_threads(limits.max_connections.max(1))
        .thread_name("ggp-http-handler")
        .build()?;
    let server = Arc::new(Server {
        limits,
        handler,
        log,
        open: Arc::new(AtomicUsize::new(0)),
        handling: Arc::new(AtomicUsize::new(0)),
    });
    let result = runtime.block_on(server.accept_loop(listener, stop));
    runtime.shutdown_background();
    result
}

/// What every connection shares.
struct Server {
    limits: ServerLimits,
    handler: Handler,
    log: ErrorLog,
    /// Connections open now.
    open: Arc<AtomicUsize>,
    /// Requests whose handler runs now.
    handling: Arc<AtomicUsize>,
}

/// One taken unit of a counter of [`Server`], given back when dropped.
struct Taken(Arc<AtomicUsize>);

impl Taken {
    /// Takes one unit of `counter` unless it has reached `max` already.
    fn take(counter: &Arc<AtomicUsize>, max: usize) -> Option<Self> {
        let before = counter.fetch_add(1, Ordering::SeqCst);
        let taken = Taken(counter.clone());
        (before < max).then_some(taken)
    }
}

impl Drop for Taken {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Server {
    async fn accept_loop(
        self: Arc<Self>,
        listener: TcpListener,
        stop: Arc<AtomicBool>,
    ) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let mut tick = tokio::time::interval(STOP_POLL);
        while !stop.load(Ordering::Relaxed) {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, peer)) => self.admit(stream, peer),
                    Err(e) => {
                        (self.log)(format!("accept failed: {e}"));
                        tokio::time::sleep(STOP_POLL).await;
                    }
                },
                _ = tick.tick() => {}
            }
        }
        Ok(())
    }

    /// Counts a new connection and serves it, or closes it at once when
    /// [`ServerLimits::max_open`] are open.
    fn admit(self: &Arc<Self>, stream: tokio::net::TcpStream, peer: SocketAddr) {
        let received = Instant::now();
        let Some(open) = Taken::take(&self.open, self.limits.max_open) else {
            (self.log)(format!("{peer}: too many open connections; closed"));
            return;
        };
        let server = self.clone();
        tokio::spawn(async move {
            server.connection(stream, peer, received).await;
            drop(open);
        });
    }

    /// Serves one connection (one request: no keep-alive) until the reply is written, or
    /// until the client has not taken it for `io_timeout`.
    async fn connection(
        self: Arc<Self>,
        stream: tokio::net::TcpStream,
        peer: SocketAddr,
        received: Instant,
    ) {
        let answered = Arc::new(Notify::new());
        let service = {
            let (server, answered) = (self.clone(), answered.clone());
            hyper::service::service_fn(move |req| {
                let (server, answered) = (server.clone(), answered.clone());
                async move {
                    let reply = server.answer(req, peer, received).await;
                    answered.notify_one();
                    Ok::<_, Infallible>(response(reply))
                }
            })
        };
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(self.limits.io_timeout)
            .max_header_size(self.limits.max_head)
            .keep_alive(false)
            .half_close(true)
            .title_case_headers(true)
            .serve_connection(TokioIo::new(stream), service);
        let reply_taken = async {
            answered.notified().await;
            tokio::time::sleep(self.limits.io_timeout).await;
        };
        tokio::select! {
            done = conn => {
                if let Err(e) = done {
                    self.connection_error(peer, &e);
                }
            }
            () = reply_taken => (self.log)(format!(
                "{peer}: the reply was not taken within {:?}; connection closed",
                self.limits.io_timeout
            )),
        }
    }

    /// Reads the body and runs the handler on a blocking thread (or answers `503` while
    /// [`ServerLimits::max_connections`] handlers run, or the body's error status).
    async fn answer(
        &self,
        req: Request<Incoming>,
        peer: SocketAddr,
        received: Instant,
    ) -> HttpReply {
        let method = req.method().as_str().to_string();
        let path = req
            .uri()
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_string();
        let body = match read_body(req.into_body(), &self.limits, received).await {
            Ok(b) => b,
            Err((status, why)) => {
                (self.log)(format!("{peer}: bad request ({status}): {why}"));
                return HttpReply::error(status, why);
            }
        };
        let Some(_handling) = Taken::take(&self.handling, self.limits.max_connections) else {
            (self.log)(format!("{peer}: too many connections; answered 503"));
            return HttpReply::error(503, "busy: too many connections, try again");
        };
        let request = HttpRequest {
            method,
            path,
            body,
            received,
        };
        let handler = self.handler.clone();
        match tokio::task::spawn_blocking(move || handler(request)).await {
            Ok(reply) => reply,
            Err(e) => {
                (self.log)(format!(
                    "{peer}: internal error while answering (a bug): {e}"
                ));
                HttpReply::error(500, "internal error")
            }
        }
    }

    /// Logs why a connection ended without a request served (hyper has already answered
    /// a malformed or oversized head).
    fn connection_error(&self, peer: SocketAddr, e: &hyper::Error) {
        let line = if e.is_parse_too_large() {
            let max = self.limits.max_head;
            format!("{peer}: bad request (431): request head over {max} bytes")
        } else if e.is_parse() {
            format!("{peer}: bad request (400): malformed HTTP request head: {e}")
        } else if e.is_timeout() {
            let t = self.limits.io_timeout;
            format!("{peer}: request head not received in time ({t:?}); connection closed")
        } else if e.is_incomplete_message() {
            format!("{peer}: connection closed before the request was complete")
        } else {
            format!("{peer}: connection failed: {}", chain(e))
        };
        (self.log)(line);
    }
}

/// Reads a whole body within the limits: `413` over `max_body`, `408` when a part does not
/// come within `io_timeout` or the whole by `received + request_deadline`, `400` when the
/// client closes the connection early.
async fn read_body(
    mut body: Incoming,
    limits: &ServerLimits,
    received: Instant,
) -> Result<Vec<u8>, (u16, String)> {
    let over = |n: String| {
        let max = limits.max_body;
        (
            413,
            format!("body of {n} bytes is over the limit of {max} bytes"),
        )
    };
    let declared = body.size_hint().exact();
    if let Some(n) = declared.filter(|&n| n > limits.max_body as u64) {
        return Err(over(n.to_string()));
    }
    let deadline = received + limits.request_deadline;
    let mut data = Vec::with_capacity(declared.unwrap_or(0) as usize);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let frame = match tokio::time::timeout(limits.io_timeout.min(left), body.frame()).await {
            Err(_) => {
                let why = if left < limits.io_timeout {
                    let d = limits.request_deadline;
                    format!("not complete {d:?} after receipt")
                } else {
                    format!("nothing for {:?}", limits.io_timeout)
                };
                return Err((408, format!("request body not received in time ({why})")));
            }
            Ok(None) => return Ok(data),
            Ok(Some(Err(e))) => {
                let got = data.len();
                let why = match declared {
                    Some(n) if closed_early(&e) => {
                        format!("connection closed after {got} of {n} body bytes")
                    }
                    _ => format!("reading the body failed after {got} bytes: {}", chain(&e)),
                };
                return Err((400, why));
            }
            Ok(Some(Ok(frame))) => frame,
        };
        if let Ok(chunk) = frame.into_data() {
            if data.len() + chunk.len() > limits.max_body {
                return Err(over(format!("more than {}", limits.max_body)));
            }
            data.extend_from_slice(&chunk);
        }
    }
}

/// `e` and its causes, as `error: cause: cause`.
fn chain(e: &hyper::Error) -> String {
    causes(e).fold(e.to_string(), |text, c| format!("{text}: {c}"))
}

/// The causes of `e`, nearest first.
fn causes(e: &hyper::Error) -> impl Iterator<Item = &(dyn std::error::Error + 'static)> {
    std::iter::successors(std::error::Error::source(e), |c| c.source())
}

/// Whether a body error is the client closing the connection before the body's end.
fn closed_early(e: &hyper::Error) -> bool {
    let eof = |c: &(dyn std::error::Error + 'static)| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::UnexpectedEof)
    };
    e.is_incomplete_message() || causes(e).any(eof)
}

/// The HTTP response of `reply`.
fn response(reply: HttpReply) -> Response<Full<Bytes>> {
    let mut resp = Response::new(Full::new(Bytes::from(reply.body)));
    *resp.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = resp.headers_mut();
    for (name, value) in REPLY_HEADERS {
        headers.insert(name, HeaderValue::from_static(value));
    }
    resp
}
