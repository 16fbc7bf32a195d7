//! The UART framing of the board shell: one request frame per bus operation, one reply
//! frame per request, each with a CRC-16. The host side (`propnet-host`'s `fpga` backend)
//! and the Verilog bridge (`shell/bridge.rs`) both follow this module.
//!
//! Bytes are 8N1 at the shell's baud rate; multi-byte fields are little-endian.
//!
//! Request (host → board):
//!
//! | bytes | field |
//! |-------|-------|
//! | 1 | [`REQUEST_SYNC`] `0xA5` |
//! | 1 | command: [`Command::Write`] `0x01` (write `n` words to `addr, addr+1, …`) or [`Command::Read`] `0x02` (read `n` words from `addr, addr+1, …`) |
//! | 2 | `addr` (16-bit register address, see [`crate::regs`]) |
//! | 1 | `n`: words, 1..=[`MAX_WRITE_WORDS`] for a write, 1..=[`MAX_READ_WORDS`] for a read |
//! | 4n | write only: the words |
//! | 2 | CRC-16/CCITT-FALSE ([`crc16`]: poly 0x1021, init 0xFFFF) of every byte after the sync |
//!
//! Reply (board → host):
//!
//! | bytes | field |
//! |-------|-------|
//! | 1 | [`REPLY_SYNC`] `0x5A` |
//! | 1 | [`Status`] |
//! | 1 | the request's command byte |
//! | 1 | `m`: data words that follow (`n` for a successful read, else 0) |
//! | 4m | the words read |
//! | 2 | CRC-16 of every byte after the sync |
//!
//! A write frame is executed only after its CRC checked, and only when no run is busy
//! ([`Status::Busy`] otherwise: the register interface ignores writes during a run). A
//! frame interrupted for longer than [`super::TIMEOUT_BYTES`] byte times is dropped (the
//! bridge returns to waiting for a sync byte), so a host that lost a reply can resend.
//!
//! Throughput limit: a request costs `7 + 4n` bytes, a reply `6 + 4m`, 10 bit times each.
//! One run as the host does it ([`bytes_per_run`]: write `W` start-state words, the five
//! run parameters and CTRL; poll STATUS; read the 6 counters and `2·roles` goal words)
//! moves `130 + 4W + 8·roles` bytes with one poll (17 more per poll): tic-tac-toe (1 state
//! word, 2 roles) 150 bytes, so at 1 Mbaud ≈ 670 runs per second. With `P` playouts per run
//! the link carries `670·P` playouts/s, against the engines' millions: a run needs
//! thousands of playouts (`propnet hdl … --board` prints the figure for the design).

/// First byte of every request.
pub const REQUEST_SYNC: u8 = 0xA5;
/// First byte of every reply.
pub const REPLY_SYNC: u8 = 0x5A;
/// Most words in one write request (the bridge's frame buffer).
pub const MAX_WRITE_WORDS: usize = 64;
/// Most words in one read request.
pub const MAX_READ_WORDS: usize = 255;
/// Bytes of a reply before its data words.
pub const REPLY_HEADER: usize = 4;

/// Request commands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Command {
    /// Write `n` words to consecutive addresses.
    Write = 0x01,
    /// Read `n` words from consecutive addresses.
    Read = 0x02,
}

/// Reply status codes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Status {
    /// Done: the words were written, or the read words follow.
    Ok = 0x00,
    /// The request's CRC did not match; nothing was done.
    BadCrc = 0x01,
    /// Unknown command or a word count out of range; nothing was done.
    BadCommand = 0x02,
    /// A write while a run is busy; nothing was written.
    Busy = 0x03,
}

impl Status {
    /// The status of a reply byte, `None` for an unknown code.
    pub fn from_byte(b: u8) -> Option<Self> {
        [Self::Ok, Self::BadCrc, Self::BadCommand, Self::Busy]
            .into_iter()
            .find(|s| *s as u8 == b)
    }
}

/// CRC-16/CCITT-FALSE of `bytes` (CRC-16/IBM-3740 in the CRC catalogue).
pub fn crc16(bytes: &[u8]) -> u16 {
    crc::Crc::<u16>::new(&crc::CRC_16_IBM_3740).checksum(bytes)
}

fn frame(cmd: Command, addr: u16, n: u8, words: &[u32]) -> Vec<u8> {
    let mut f = vec![REQUEST_SYNC, cmd as u8];
    f.extend_from_slice(&addr.to_le_bytes());
    f.push(n);
    for w in words {
        f.extend_from_slice(&w.to_le_bytes());
    }
    let crc = crc16(&f[1..]);
    f.extend_from_slice(&crc.to_le_bytes());
    f
}

/// A write request of `words` (1..=[`MAX_WRITE_WORDS`]) to `addr, addr+1, …`.
///
/// # Panics
/// When `words` is empty or longer than [`MAX_WRITE_WORDS`] (a caller bug: split first).
pub fn write_request(addr: u16, words: &[u32]) -> Vec<u8> {
    assert!((1..=MAX_WRITE_WORDS).contains(&words.len()));
    frame(Command::Write, addr, words.len() as u8, words)
}

/// A read request of `n` words (1..=[`MAX_READ_WORDS`]) from `addr, addr+1, …`.
///
/// # Panics
/// When `n` is 0 or above [`MAX_READ_WORDS`].
pub fn read_request(addr: u16, n: usize) -> Vec<u8> {
    assert!((1..=MAX_READ_WORDS).contains(&n));
    frame(Command::Read, addr, n as u8, &[])
}

/// A decoded reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// Status byte as sent (see [`Status::from_byte`]).
    pub status: u8,
    /// The command byte it answers.
    pub command: u8,
    /// Data words.
    pub words: Vec<u32>,
}

/// Why a reply could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// The first byte was not [`REPLY_SYNC`].
    #[error("reply starts with 0x{0:02x}, not the sync byte 0x5a")]
    BadSync(u8),
    /// The reply's CRC did not match its bytes.
    #[error("reply CRC 0x{got:04x}, expected 0x{want:04x}")]
    BadCrc {
        /// The CRC sent.
        got: u16,
        /// The CRC of the bytes received.
        want: u16,
    },
    /// Fewer bytes than the header announces.
    #[error("reply of {got} bytes, its header announces {want}")]
    Short {
        /// Bytes given.
        got: usize,
        /// Bytes the header announces.
        want: usize,
    },
}

/// Total length of a reply whose 4-byte header is `header`.
pub fn reply_len(header: &[u8; REPLY_HEADER]) -> usize {
    REPLY_HEADER + 4 * usize::from(header[3]) + 2
}

/// Decodes a whole reply (header, data, CRC).
///
/// # Errors
/// [`FrameError`] for a wrong sync byte, a short frame or a CRC mismatch.
pub fn parse_reply(bytes: &[u8]) -> Result<Reply, FrameError> {
    let head: [u8; REPLY_HEADER] = match bytes.get(..REPLY_HEADER) {
        Some(h) => [h[0], h[1], h[2], h[3]],
        None => {
            return Err(FrameError::Short {
                got: bytes.len(),
                want: REPLY_HEADER + 2,
            })
        }
    };
    if head[0] != REPLY_SYNC {
        return Err(FrameError::BadSync(head[0]));
    }
    let want = reply_len(&head);
    if bytes.len() < want {
        return Err(FrameError::Short {
            got: bytes.len(),
            want,
        });
    }
    let crc = u16::from_le_bytes([bytes[want - 2], bytes[want - 1]]);
    let calc = crc16(&bytes[1..want - 2]);
    if crc != calc {
        return Err(FrameError::BadCrc {
            got: crc,
            want: calc,
        });
    }
    let words = bytes[REPLY_HEADER..want - 2]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok(Reply {
        status: head[1],
        command: head[2],
        words,
    })
}

/// Bytes on the wire (both directions) of one run as the host backend does it: write
/// `state_words` start-state words, the five run parameters and CTRL, `polls` status reads,
/// then the six counters and the `2·roles` goal-sum words.
pub fn bytes_per_run(state_words: usize, roles: usize, polls: usize) -> usize {
    let write = |n: usize| 7 + 4 * n + 6;
    let read = |n: usize| 7 + 6 + 4 * n;
    let state: usize = (0..state_words)
        .step_by(MAX_WRITE_WORDS)
        .map(|i| write((state_words - i).min(MAX_WRITE_WORDS)))
        .sum();
    let goals = 2 * roles;
    let goal_reads: usize = (0..goals)
        .step_by(MAX_READ_WORDS)
        .map(|i| read((goals - i).min(MAX_READ_WORDS)))
        .sum();
    state + write(5) + write(1) + polls * read(1) + read(6) + goal_reads
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_is_ccitt_false() {
        // The catalogue's check value of CRC-16/CCITT-FALSE.
        assert_eq!(crc16(b"123456789"), 0x29B1);
    }

    #[test]
    fn requests_and_replies_round_trip() {
        let w = write_request(0x1234, &[0xdead_beef]);
        assert_eq!(&w[..5], &[0xA5, 0x01, 0x34, 0x12, 1]);
        assert_eq!(&w[5..9], &0xdead_beefu32.to_le_bytes());
        assert_eq!(crc16(&w[1..9]).to_le_bytes(), [w[9], w[10]]);
        assert_eq!(read_request(0x10, 3).len(), 7);
        let mut r = vec![REPLY_SYNC, 0, 2, 2];
        r.extend_from_slice(&7u32.to_le_bytes());
        r.extend_from_slice(&9u32.to_le_bytes());
        let crc = crc16(&r[1..]);
        r.extend_from_slice(&crc.to_le_bytes());
        assert_eq!(reply_len(&[r[0], r[1], r[2], r[3]]), r.len());
        let rep = parse_reply(&r).unwrap();
        assert_eq!(rep.words, vec![7, 9]);
        assert_eq!(Status::from_byte(rep.status), Some(Status::Ok));
        let mut bad = r.clone();
        bad[5] ^= 1;
        assert!(matches!(parse_reply(&bad), Err(FrameError::BadCrc { .. })));
        assert!(matches!(
            parse_reply(&r[..8]),
            Err(FrameError::Short { .. })
        ));
        bad = r;
        bad[0] = 0;
        assert_eq!(parse_reply(&bad), Err(FrameError::BadSync(0)));
    }

    #[test]
    fn run_cost_counts_every_frame() {
        // 1 state word (17) + params (33) + CTRL (17) + 1 poll (17) + counters (37) + 2 goal
        // words (21).
        assert_eq!(bytes_per_run(1, 1, 1), 17 + 33 + 17 + 17 + 37 + 21);
    }
}
