//! The register protocol over a [`Link`]: read and write words of the design's register map
//! ([`propnet_hdl::regs`]) in the shell's frames ([`propnet_hdl::shell::frame`]), with a
//! deadline per reply and a bounded number of retries for garbled frames.

use super::link::Link;
use propnet_hdl::shell::frame::{
    self, parse_reply, read_request, reply_len, write_request, Status, MAX_READ_WORDS,
    MAX_WRITE_WORDS, REPLY_HEADER, REPLY_SYNC,
};
use std::time::{Duration, Instant};

/// Attempts per request when a reply is garbled (bad CRC either way, lost bytes).
const ATTEMPTS: usize = 3;

/// A register client.
pub struct Client {
    link: Box<dyn Link>,
    /// How long to wait for a reply.
    pub reply_timeout: Duration,
}

/// What went wrong talking to the board.
#[derive(Debug)]
pub enum ClientError {
    /// No (complete) reply within the timeout.
    Timeout(String),
    /// The link failed or closed.
    Link(String),
    /// The board refused a request (status byte) or kept sending garbled replies.
    Protocol(String),
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Timeout(s) | ClientError::Link(s) | ClientError::Protocol(s) => {
                f.write_str(s)
            }
        }
    }
}

impl Client {
    /// A client on `link`.
    pub fn new(link: Box<dyn Link>, reply_timeout: Duration) -> Self {
        Self {
            link,
            reply_timeout,
        }
    }

    /// The link's description.
    pub fn describe(&self) -> String {
        self.link.describe()
    }

    /// Receives exactly `buf.len()` bytes before `deadline`.
    fn recv_exact(&mut self, buf: &mut [u8], deadline: Instant) -> Result<(), ClientError> {
        let mut got = 0;
        while got < buf.len() {
            let n = self
                .link
                .recv(&mut buf[got..], deadline)
                .map_err(ClientError::Link)?;
            if n == 0 {
                return Err(ClientError::Timeout(format!(
                    "no reply from the {} within {:.1} s ({got} of {} bytes)",
                    self.link.describe(),
                    self.reply_timeout.as_secs_f64(),
                    buf.len()
                )));
            }
            got += n;
        }
        Ok(())
    }

    /// Sends `request` and returns the decoded reply (one attempt).
    fn exchange(&mut self, request: &[u8]) -> Result<frame::Reply, ClientError> {
        self.link.send(request).map_err(ClientError::Link)?;
        let deadline = Instant::now() + self.reply_timeout;
        let mut head = [0u8; REPLY_HEADER];
        // Skip anything before the sync byte (line noise, a late reply's tail).
        loop {
            self.recv_exact(&mut head[..1], deadline)?;
            if head[0] == REPLY_SYNC {
                break;
            }
        }
        self.recv_exact(&mut head[1..], deadline)?;
        let mut bytes = head.to_vec();
        bytes.resize(reply_len(&head), 0);
        self.recv_exact(&mut bytes[REPLY_HEADER..], deadline)?;
        parse_reply(&bytes).map_err(|e| ClientError::Protocol(e.to_string()))
    }

    /// Sends `request`, retrying garbled exchanges, and checks the status.
    fn transact(&mut self, request: &[u8], what: &str) -> Result<Vec<u32>, ClientError> {
        let mut last = None;
        for _ in 0..ATTEMPTS {
            match self.exchange(request) {
                Ok(rep) => {
                    return match Status::from_byte(rep.status) {
                        Some(Status::Ok) => Ok(rep.words),
                        // The request was damaged on the way: send it again.
                        Some(Status::BadCrc) => {
                            last = Some(ClientError::Protocol(format!(
                                "{what}: the board saw a bad CRC"
                            )));
                            continue;
                        }
                        Some(Status::Busy) => Err(ClientError::Protocol(format!(
                            "{what}: refused, a run is busy"
                        ))),
                        s => Err(ClientError::Protocol(format!(
                            "{what}: refused with status {:?} (0x{:02x})",
                            s, rep.status
                        ))),
                    };
                }
                Err(ClientError::Protocol(e)) => {
                    last = Some(ClientError::Protocol(format!("{what}: {e}")));
                    // Let the bridge drop any partial frame, then forget what came back.
                    std::thread::sleep(Duration::from_millis(20));
                    self.link.clear_input();
                }
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| ClientError::Protocol(format!("{what}: no attempt"))))
    }

    /// Writes `words` to `addr, addr+1, …` (split into frames of at most
    /// [`MAX_WRITE_WORDS`]).
    ///
    /// # Errors
    /// [`ClientError`].
    pub fn write(&mut self, addr: u16, words: &[u32]) -> Result<(), ClientError> {
        for (i, chunk) in words.chunks(MAX_WRITE_WORDS).enumerate() {
            let a = addr.wrapping_add((i * MAX_WRITE_WORDS) as u16);
            self.transact(&write_request(a, chunk), &format!("write 0x{a:04x}"))?;
        }
        Ok(())
    }

    /// Reads `n` words from `addr, addr+1, …`.
    ///
    /// # Errors
    /// [`ClientError`], also when the reply has the wrong number of words.
    pub fn read(&mut self, addr: u16, n: usize) -> Result<Vec<u32>, ClientError> {
        let mut out = Vec::with_capacity(n);
        let mut a = addr;
        while out.len() < n {
            let k = (n - out.len()).min(MAX_READ_WORDS);
            let what = format!("read 0x{a:04x}");
            let words = self.transact(&read_request(a, k), &what)?;
            if words.len() != k {
                return Err(ClientError::Protocol(format!(
                    "{what}: {} words back, asked for {k}",
                    words.len()
                )));
            }
            out.extend(words);
            a = a.wrapping_add(k as u16);
        }
        Ok(out)
    }
}
