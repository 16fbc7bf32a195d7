//! Byte links to a board shell: the Verilator model process of `fpga:sim` (its standard
//! input and output) and a serial port (`fpga:/dev/ttyUSB0`, through the `serialport`
//! crate). Both read with a deadline, so a board that does not answer is an error, not a
//! hang.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A byte stream to a board shell.
pub trait Link: Send {
    /// Sends every byte.
    ///
    /// # Errors
    /// The I/O error, with the link's name.
    fn send(&mut self, bytes: &[u8]) -> Result<(), String>;
    /// Receives up to `buf.len()` bytes, waiting until `deadline`; `Ok(0)` when it passed.
    ///
    /// # Errors
    /// The link is closed or failed.
    fn recv(&mut self, buf: &mut [u8], deadline: Instant) -> Result<usize, String>;
    /// Drops bytes already received and not read (after a garbled reply).
    fn clear_input(&mut self);
    /// What the link is (`Verilator model …`, `serial port /dev/ttyUSB0 at 1000000 baud`).
    fn describe(&self) -> String;
}

/// The `fpga:sim` model process: requests go to its standard input, replies come from its
/// standard output (read by a thread into a channel, so reads can time out).
pub struct ProcessLink {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Vec<u8>>,
    pending: Vec<u8>,
    stderr: Arc<Mutex<String>>,
    name: String,
}

impl ProcessLink {
    /// Starts `program`.
    ///
    /// # Errors
    /// When the program cannot be started.
    pub fn spawn(program: &std::path::Path) -> Result<Self, String> {
        let mut child = Command::new(program)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start the model {}: {e}", program.display()))?;
        let mut out = child.stdout.take().ok_or("model without stdout")?;
        let mut err = child.stderr.take().ok_or("model without stderr")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let keep = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 1024];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut s) = keep.lock() {
                    s.push_str(&String::from_utf8_lossy(&buf[..n]));
                    let mut cut = s.len().saturating_sub(4000);
                    while !s.is_char_boundary(cut) {
                        cut += 1;
                    }
                    s.drain(..cut);
                }
            }
        });
        Ok(Self {
            stdin: child.stdin.take(),
            child,
            rx,
            pending: Vec::new(),
            stderr,
            name: format!("Verilator model {}", program.display()),
        })
    }

    fn exited(&mut self) -> String {
        let status = match self.child.try_wait() {
            Ok(Some(s)) => s.to_string(),
            _ => "closed its output".to_string(),
        };
        let err = self.stderr.lock().map(|s| s.clone()).unwrap_or_default();
        format!(
            "the model process {status}; its last output: {}",
            err.trim()
        )
    }
}

impl Link for ProcessLink {
    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        let w = self.stdin.as_mut().ok_or("model input closed")?;
        if w.write_all(bytes).and_then(|()| w.flush()).is_err() {
            return Err(self.exited());
        }
        Ok(())
    }

    fn recv(&mut self, buf: &mut [u8], deadline: Instant) -> Result<usize, String> {
        if self.pending.is_empty() {
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(wait) {
                Ok(v) => self.pending = v,
                Err(RecvTimeoutError::Timeout) => return Ok(0),
                Err(RecvTimeoutError::Disconnected) => return Err(self.exited()),
            }
        }
        let n = buf.len().min(self.pending.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Ok(n)
    }

    fn clear_input(&mut self) {
        self.pending.clear();
        while self.rx.try_recv().is_ok() {}
    }

    fn describe(&self) -> String {
        self.name.clone()
    }
}

impl Drop for ProcessLink {
    fn drop(&mut self) {
        // Closing its input ends the model; kill it in case it is still clocking.
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A serial port at a baud rate (8N1, no flow control).
pub struct SerialLink {
    port: Box<dyn serialport::SerialPort>,
    name: String,
}

impl SerialLink {
    /// Opens `path` at `baud`.
    ///
    /// # Errors
    /// When the port cannot be opened (missing device, permissions, a baud rate it refuses).
    pub fn open(path: &str, baud: u32) -> Result<Self, String> {
        let port = serialport::new(path, baud)
            .data_bits(serialport::DataBits::Eight)
            .parity(serialport::Parity::None)
            .stop_bits(serialport::StopBits::One)
            .flow_control(serialport::FlowControl::None)
            .timeout(Duration::from_millis(100))
            .open()
            .map_err(|e| format!("cannot open serial port {path} at {baud} baud: {e}"))?;
        Ok(Self {
            port,
            name: format!("serial port {path} at {baud} baud"),
        })
    }
}

impl Link for SerialLink {
    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.port
            .write_all(bytes)
            .and_then(|()| self.port.flush())
            .map_err(|e| format!("{}: {e}", self.name))
    }

    fn recv(&mut self, buf: &mut [u8], deadline: Instant) -> Result<usize, String> {
        let wait = deadline.saturating_duration_since(Instant::now());
        if wait.is_zero() {
            return Ok(0);
        }
        self.port
            .set_timeout(wait)
            .map_err(|e| format!("{}: {e}", self.name))?;
        match self.port.read(buf) {
            Ok(n) => Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => Ok(0),
            Err(e) => Err(format!("{}: {e}", self.name)),
        }
    }

    fn clear_input(&mut self) {
        let _ = self.port.clear(serialport::ClearBuffer::Input);
    }

    fn describe(&self) -> String {
        self.name.clone()
    }
}
