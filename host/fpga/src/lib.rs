//! The `fpga` backend: playouts on the generated Verilog engines behind the board shell's
//! UART bridge, either simulated (`fpga:sim`, a Verilator model of the whole design built
//! on demand and cached, driven through the same framing over its standard input and
//! output) or on a board (`fpga:/dev/ttyUSB0`, any serial port).
//!
//! A job is one or more runs of the design: the start state, seed, step limit, playout
//! base (the job's first playout index) and count are written, the run is started, the
//! status is polled until done and the counters are read back; with a record buffer in the
//! design ([`propnet_hdl::Options::records`], on by default in `fpga:sim`) the per-playout
//! records are read too, and a job longer than the buffers is split into runs that fit.
//! At connect the design's magic word, netlist hash, role and latch counts are checked, so
//! a bitstream of another game is refused with a message saying so.
//!
//! Public API: [`FpgaBackend`] (a `propnet-runtime` backend) with [`FpgaOptions`].
//! Depends on `propnet-runtime` and `propnet-hdl` (the design, its registers and board
//! shell); serialport is used here only.

mod client;
pub mod link;

use client::{Client, ClientError};
use propnet_hdl::regs;
use propnet_hdl::shell::{Board, BoardDesign, Clock, DEFAULT_BAUD};
use propnet_netlist::playout::PlayoutRecord;
use propnet_netlist::{Netlist, ValidNetlist};
use propnet_runtime::backend::{Backend, BackendError, BatchRequest, BatchResult, JobResult};
pub use propnet_runtime::factory::FpgaTarget;
use std::time::{Duration, Instant};

/// Options of the `fpga` backend.
#[derive(Clone, Debug)]
pub struct FpgaOptions {
    /// The design simulated by `fpga:sim` (a board runs whatever its bitstream holds).
    /// Default: 2 engines, S = 10, 2 banks, C = 1, 256 records per engine.
    pub design: propnet_hdl::Options,
    /// Serial baud rate (the shell's, [`DEFAULT_BAUD`] unless the bitstream was built with
    /// another `--baud`).
    pub baud: u32,
    /// Longest wait for one reply frame.
    pub reply_timeout: Duration,
    /// Longest time a run may go without finishing a playout (then it is an error).
    pub run_timeout: Duration,
}

impl Default for FpgaOptions {
    fn default() -> Self {
        Self {
            design: propnet_hdl::Options {
                engines: 2,
                records: 256,
                ..propnet_hdl::Options::default()
            },
            baud: DEFAULT_BAUD,
            reply_timeout: Duration::from_secs(2),
            run_timeout: Duration::from_secs(30),
        }
    }
}

/// What the connected design reported at connect (`INFO_*` registers).
#[derive(Clone, Debug)]
struct DesignShape {
    engines: u32,
    records: u32,
    stages: u32,
    banks: u32,
    cslow: u32,
}

/// The `fpga` backend (see the module docs).
pub struct FpgaBackend {
    net: Netlist,
    client: Client,
    shape: DesignShape,
    target: FpgaTarget,
    run_timeout: Duration,
}

fn err(kind: fn(String, String) -> BackendError, message: String) -> BackendError {
    kind("fpga".to_string(), message)
}

fn no_device(backend: String, message: String) -> BackendError {
    BackendError::NoDevice { backend, message }
}

fn failed(backend: String, message: String) -> BackendError {
    BackendError::Failed { backend, message }
}

fn client_err(e: ClientError) -> BackendError {
    err(failed, e.to_string())
}

impl FpgaBackend {
    /// Connects to `target` for `net`: for `fpga:sim` generates the design with
    /// `opts.design`, builds (or reuses) its Verilator model and starts it.
    ///
    /// # Errors
    /// [`BackendError::NoDevice`] without Verilator, when the serial port cannot be opened
    /// or nothing answers; [`BackendError::UnsupportedNetlist`] when the netlist has no
    /// engine shape or the board runs a design of another netlist;
    /// [`BackendError::BadOptions`] for design options out of range.
    pub fn new(
        net: ValidNetlist,
        target: FpgaTarget,
        opts: &FpgaOptions,
    ) -> Result<Self, BackendError> {
        let link: Box<dyn link::Link> = match &target {
            FpgaTarget::Sim => Box::new(start_model(&net, &opts.design)?),
            FpgaTarget::Serial(path) => {
                Box::new(link::SerialLink::open(path, opts.baud).map_err(|m| err(no_device, m))?)
            }
        };
        let mut client = Client::new(link, opts.reply_timeout);
        let shape = connect(&mut client, &net, &target)?;
        Ok(Self {
            net: net.into_netlist(),
            client,
            shape,
            target,
            run_timeout: opts.run_timeout,
        })
    }
}

/// A `fpga:sim` model of `design_of`'s design connected for `net`: what a board programmed
/// with another game's bitstream looks like to the host (tests and diagnostics). Equal
/// netlists give [`FpgaBackend::new`] with [`FpgaTarget::Sim`].
///
/// # Errors
/// As [`FpgaBackend::new`]; [`BackendError::UnsupportedNetlist`] when the netlists differ.
pub fn connect_model_for(
    design_of: &ValidNetlist,
    net: &ValidNetlist,
    opts: &FpgaOptions,
) -> Result<FpgaBackend, BackendError> {
    let link = Box::new(start_model(design_of, &opts.design)?);
    let mut client = Client::new(link, opts.reply_timeout);
    let shape = connect(&mut client, net, &FpgaTarget::Sim)?;
    Ok(FpgaBackend {
        net: net.clone().into_netlist(),
        client,
        shape,
        target: FpgaTarget::Sim,
        run_timeout: opts.run_timeout,
    })
}

/// Generates the sim design of `net`, builds its model and starts it.
fn start_model(
    net: &ValidNetlist,
    design: &propnet_hdl::Options,
) -> Result<link::ProcessLink, BackendError> {
    let d = propnet_hdl::generate(net, net.info(), design).map_err(|e| match e {
        propnet_hdl::Error::BadOption(m) => BackendError::BadOptions {
            backend: "fpga".into(),
            message: m,
        },
        e => err(
            |backend, message| BackendError::UnsupportedNetlist { backend, message },
            e.to_string(),
        ),
    })?;
    let clock = Clock::Direct {
        mhz: Board::Sim.oscillator_mhz(),
    };
    let bd = BoardDesign::new(d, Board::Sim, clock, DEFAULT_BAUD)
        .map_err(|e| err(failed, e.to_string()))?;
    let exe = propnet_hdl::verilator::build_model(&bd, &mut |what| eprintln!("fpga:sim: {what} …"))
        .map_err(|e| match e {
            propnet_hdl::Error::ToolMissing { .. } => err(
                no_device,
                format!("{e}; fpga:sim needs Verilator (apt-get install verilator, or bash scripts/setup.sh)"),
            ),
            e => err(failed, format!("building the fpga:sim model: {e}")),
        })?;
    link::ProcessLink::spawn(&exe).map_err(|m| err(no_device, m))
}

/// Reads the design's info registers and checks that it runs `net`.
fn connect(
    client: &mut Client,
    net: &ValidNetlist,
    target: &FpgaTarget,
) -> Result<DesignShape, BackendError> {
    let info = client
        .read(regs::INFO_ENGINES, (regs::INFO_CSLOW - regs::INFO_ENGINES + 1) as usize)
        .map_err(|e| match e {
            ClientError::Timeout(m) => err(
                no_device,
                format!(
                    "{m}: is the board connected, programmed with a propnet bitstream (`propnet hdl GAME --board …`) and the baud rate right?"
                ),
            ),
            e => err(no_device, format!("{target}: {e}")),
        })?;
    let at = |r: u16| info[(r - regs::INFO_ENGINES) as usize];
    let unsupported = |message: String| BackendError::UnsupportedNetlist {
        backend: "fpga".into(),
        message,
    };
    if at(regs::INFO_MAGIC) != regs::MAGIC_VALUE {
        return Err(err(
            no_device,
            format!(
                "{target} answers but is no propnet design (magic 0x{:08x}, expected 0x{:08x})",
                at(regs::INFO_MAGIC),
                regs::MAGIC_VALUE
            ),
        ));
    }
    let hash = u64::from(at(regs::INFO_HASH_LO)) | (u64::from(at(regs::INFO_HASH_HI)) << 32);
    let want = propnet_hdl::netlist_hash(net);
    if hash != want {
        return Err(unsupported(format!(
            "{target} runs a bitstream for another netlist (hash {hash:016x}, this game {want:016x}); \
             build one for this game with `propnet hdl GAME -o DIR --board BOARD`"
        )));
    }
    let (roles, latches) = (
        at(regs::INFO_ROLES) as usize,
        at(regs::INFO_LATCHES) as usize,
    );
    if roles != net.roles.len() || latches != net.latches.len() || at(regs::INFO_ENGINES) == 0 {
        return Err(unsupported(format!(
            "{target}: the design reports {roles} roles, {latches} latches, {} engines; the netlist has {} roles, {} latches",
            at(regs::INFO_ENGINES),
            net.roles.len(),
            net.latches.len()
        )));
    }
    Ok(DesignShape {
        engines: at(regs::INFO_ENGINES),
        records: at(regs::INFO_RECORDS),
        stages: at(regs::INFO_RNG_STAGES),
        banks: at(regs::INFO_BANKS),
        cslow: at(regs::INFO_CSLOW),
    })
}

/// Start-state words: bit b of word w = latch 32w + b.
fn state_words(start: &[bool]) -> Vec<u32> {
    start
        .chunks(32)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0u32, |acc, (b, &v)| acc | (u32::from(v) << b))
        })
        .collect()
}

/// Playouts engine `e` of `n` runs in a run of `count` playouts (indices `≡ e mod n`).
fn per_engine(count: u32, e: u32, n: u32) -> u32 {
    if e >= count {
        0
    } else {
        (count - e).div_ceil(n)
    }
}

impl FpgaBackend {
    /// One run: `count` playouts from `start`, indices `base..base + count`.
    fn run(
        &mut self,
        start: &[u32],
        req: &BatchRequest,
        base: u32,
        count: u32,
        records: Option<&mut Vec<PlayoutRecord>>,
    ) -> Result<JobResult, BackendError> {
        let c = &mut self.client;
        c.write(regs::STATE_BASE, start).map_err(client_err)?;
        let params = [
            req.seed as u32,
            (req.seed >> 32) as u32,
            count,
            req.max_steps,
            base,
        ];
        c.write(regs::SEED_LO, &params).map_err(client_err)?;
        c.write(regs::CTRL, &[3]).map_err(client_err)?;
        // The run may take long (a simulated model, many playouts); it fails only when the
        // finished-playout counter stops moving for `run_timeout`.
        let (mut seen, mut since) = (0u32, Instant::now());
        let mut pause = Duration::from_micros(200);
        loop {
            let st = c.read(regs::STATUS, 1).map_err(client_err)?[0];
            if st & 1 == 1 && st & 2 == 0 {
                break;
            }
            if since.elapsed() > self.run_timeout {
                let now = c.read(regs::PLAYOUTS_DONE, 1).map_err(client_err)?[0];
                if now == seen {
                    return Err(err(
                        failed,
                        format!(
                            "{}: a run of {count} playouts made no progress for {:.0} s ({now} done)",
                            self.target,
                            self.run_timeout.as_secs_f64()
                        ),
                    ));
                }
                (seen, since) = (now, Instant::now());
            }
            if !matches!(self.target, FpgaTarget::Sim) {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
        }
        let cnt = c.read(regs::PLAYOUTS_DONE, 6).map_err(client_err)?;
        let r = self.net.roles.len();
        let g = c.read(regs::GOAL_SUM_BASE, 2 * r).map_err(client_err)?;
        let wide = |lo: u32, hi: u32| u64::from(lo) | (u64::from(hi) << 32);
        let res = JobResult {
            playouts: u64::from(cnt[0]),
            goal_sums: (0..r).map(|i| wide(g[2 * i], g[2 * i + 1])).collect(),
            total_length: wide(cnt[1], cnt[2]),
            step_limit: u64::from(cnt[4]),
            no_legal_move: u64::from(cnt[5]),
            amaf: Vec::new(),
        };
        let ends = u64::from(cnt[3]) + res.step_limit + res.no_legal_move;
        if res.playouts != u64::from(count) || ends != res.playouts {
            return Err(err(
                failed,
                format!(
                    "{}: the run reports {} playouts and {ends} ends for {count} requested",
                    self.target, res.playouts
                ),
            ));
        }
        if let Some(out) = records {
            self.read_records(base, count, out)?;
        }
        Ok(res)
    }

    /// Reads every record of the last run (`count` playouts from `base`), index order.
    fn read_records(
        &mut self,
        base: u32,
        count: u32,
        out: &mut Vec<PlayoutRecord>,
    ) -> Result<(), BackendError> {
        let (r, l) = (self.net.roles.len(), self.net.latches.len());
        let words = propnet_hdl::records::record_words(r, l);
        let n = self.shape.engines;
        let c = &mut self.client;
        if c.read(regs::RECORD_OVERFLOW, 1).map_err(client_err)?[0] != 0 {
            return Err(err(
                failed,
                format!("{}: record buffer overflow", self.target),
            ));
        }
        let mut recs = Vec::with_capacity(count as usize);
        for e in 0..n {
            for slot in 0..per_engine(count, e, n) {
                c.write(regs::RECORD_SELECT, &[(e << 16) | slot])
                    .map_err(client_err)?;
                let w = c.read(regs::RECORD_WINDOW, words).map_err(client_err)?;
                let rec = propnet_hdl::records::decode(&w, r, l, base)
                    .map_err(|e| err(failed, e.to_string()))?;
                recs.push(rec);
            }
        }
        recs.sort_by_key(|p| p.index.wrapping_sub(base));
        out.extend(recs);
        Ok(())
    }
}

impl Backend for FpgaBackend {
    /// Thousands of playouts: a run costs a UART round trip of ~150 bytes.
    fn natural_batch(&self) -> u64 {
        4096
    }

    fn describe(&self) -> String {
        let s = &self.shape;
        format!(
            "{} ({}; {} engine(s), S={}, K={}, C={}, {} records per engine)",
            self.target,
            self.client.describe(),
            s.engines,
            s.stages,
            s.banks,
            s.cslow,
            s.records
        )
    }

    fn netlist(&self) -> &Netlist {
        &self.net
    }

    fn run_batch(&mut self, req: &BatchRequest) -> Result<BatchResult, BackendError> {
        let l = self.net.latches.len();
        if req.want_records && self.shape.records == 0 {
            return Err(err(
                |backend, message| BackendError::BadRequest { backend, message },
                format!(
                    "{}: per-playout records asked for, but the design has no record buffer",
                    self.target
                ),
            ));
        }
        // With records a run holds at most `records` playouts per engine.
        let chunk = if req.want_records {
            self.shape.records.saturating_mul(self.shape.engines)
        } else {
            u32::MAX
        };
        let mut out = BatchResult::default();
        for job in &req.jobs {
            if job.start.len() != l {
                return Err(BackendError::BadRequest {
                    backend: "fpga".into(),
                    message: format!("start state of {} bits for {l} latches", job.start.len()),
                });
            }
            let start = state_words(&job.start);
            let mut total = JobResult {
                goal_sums: vec![0; self.net.roles.len()],
                ..Default::default()
            };
            let mut done = 0u32;
            while done < job.count {
                let n = (job.count - done).min(chunk);
                let base = job.first_playout.wrapping_add(done);
                let recs = req.want_records.then_some(&mut out.records);
                let part = self.run(&start, req, base, n, recs)?;
                total.playouts += part.playouts;
                total.total_length += part.total_length;
                total.step_limit += part.step_limit;
                total.no_legal_move += part.no_legal_move;
                for (t, g) in total.goal_sums.iter_mut().zip(&part.goal_sums) {
                    *t += g;
                }
                done += n;
            }
            out.jobs.push(total);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_words_and_engine_shares() {
        let mut st = vec![false; 40];
        st[0] = true;
        st[33] = true;
        assert_eq!(state_words(&st), vec![1, 2]);
        assert_eq!(
            (0..3).map(|e| per_engine(7, e, 3)).collect::<Vec<_>>(),
            vec![3, 2, 2]
        );
        assert_eq!(per_engine(1, 2, 3), 0);
        assert_eq!(
            (0..4).map(|e| per_engine(9, e, 4)).sum::<u32>(),
            9,
            "every playout on one engine"
        );
    }

    fn tictactoe() -> ValidNetlist {
        ValidNetlist::new(propnet_runtime::fixtures::tictactoe()).unwrap()
    }

    #[test]
    fn a_missing_serial_port_is_a_clear_error() {
        let e = FpgaBackend::new(
            tictactoe(),
            FpgaTarget::Serial("/dev/propnet-no-such-port".into()),
            &FpgaOptions::default(),
        )
        .err()
        .expect("no such port");
        assert!(matches!(e, BackendError::NoDevice { .. }), "{e}");
        assert!(
            e.to_string()
                .contains("cannot open serial port /dev/propnet-no-such-port"),
            "{e}"
        );
    }

    /// A serial port where nothing answers (a pseudo-terminal with a silent other end):
    /// connect fails after the reply timeout, retries included, instead of hanging.
    #[test]
    fn a_board_that_does_not_answer_times_out() {
        let (master, slave) = serialport::TTYPort::pair().expect("a pseudo-terminal");
        let path = serialport::SerialPort::name(&slave).expect("the pty's name");
        drop(slave);
        let opts = FpgaOptions {
            reply_timeout: Duration::from_millis(150),
            ..FpgaOptions::default()
        };
        let t0 = Instant::now();
        let e = FpgaBackend::new(tictactoe(), FpgaTarget::Serial(path.clone()), &opts)
            .err()
            .expect("nothing answers");
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
        assert!(matches!(e, BackendError::NoDevice { .. }), "{e}");
        let msg = e.to_string();
        assert!(msg.contains("no reply") && msg.contains(&path), "{msg}");
        assert!(msg.contains("propnet bitstream"), "{msg}");
        drop(master);
    }

    #[test]
    fn targets_print_as_parsed() {
        assert_eq!(FpgaTarget::Sim.to_string(), "fpga:sim");
        assert_eq!(
            FpgaTarget::Serial("/dev/ttyUSB0".into()).to_string(),
            "fpga:/dev/ttyUSB0"
        );
    }
}
