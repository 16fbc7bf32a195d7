//! Netlist → synthesizable Verilog playout engine, testbench, simulation check and
//! synthesis report (the FPGA backend of propnet).
//!
//! The only published FPGA propnet (Siwek, Kowalski, Sironi, Winands: "Implementing
//! Propositional Networks on FPGA", AI 2018) was hand-built; here the engine is generated
//! from any netlist, checked bit for bit against
//! [`propnet_netlist::playout::reference_playout`] in simulation ([`sim`]) and sized by
//! yosys / nextpnr ([`synth`]).
//!
//! # Generated design
//! [`generate`] (a [`Writer`] over the netlist, its [`propnet_netlist::NetlistInfo`] and the
//! [`Options`]) returns a [`Design`]: one Verilog-2005 file per module (so
//! `verilator --lint-only -Wall` is clean, including its file-name rule) plus a testbench.
//! - `<prefix>_core`: the netlist's combinational step logic (legal, terminal, next); with
//!   [`Options::cslow`] = 2 split into a state-only part and a move-dependent part joined
//!   by a registered cut: the live gates that read no input but feed a move-dependent gate
//!   or a latch (from the cones and move dependence of the `NetlistInfo`).
//! - `<prefix>_goal`: the goal logic, off the step loop: a two-cycle pipeline on the
//!   registered final state of each playout ([`goal`]), so goals (often the deepest
//!   state-only logic) never set the clock.
//! - `<prefix>_threefry`: the RNG draw, word 0 of Threefry-2x32-20 exactly as
//!   [`propnet_netlist::rng`], with [`Options::rng_stages`] pipeline stages and a clock
//!   enable.
//! - `<prefix>_engine`: latch registers, per role one or more RNG bank pipelines and a
//!   chooser (`k = (x·count)>>32`, the move is the legal entry whose prefix count of legal
//!   bits equals `k`; `k_c` for every possible count `c` is precomputed into registers the
//!   cycle after the draw leaves the RNG, so the step path only compares and muxes; roles
//!   with more than [`chooser::GROUPED_ABOVE_MOVES`] entries count per group of
//!   [`chooser::GROUP_SIZE`] entries and pick the group, then the entry in it, see
//!   [`chooser`]), the playout controller. One joint move per clock cycle per thread. The draws depend on no
//!   game state, so they are requested `S + 1` cycles ahead ([`engine::draw_latency`]);
//!   with [`Options::banks`] = 2 a second bank per role fetches the next playout's first
//!   draws while the current one runs (ping-pong), so a playout costs
//!   `max(length, S + 1) + 1` slots instead of `length + 2 + S`; with 3 or 4 banks (a ring)
//!   the fill also hides behind playouts shorter than `S + 1`; with [`Options::cslow`] = 2
//!   two playouts are interleaved in one copy of the logic (C-slow), see [`engine`]. Exact
//!   cycle counts: [`engine::engine_cycles`]. Engine `e` of `N` runs playout indices
//!   `e, e+N, e+2N, …` below `playouts` (thread `j` of a C-slow engine every `2N`-th index
//!   from `e + jN`).
//! - `<prefix>_top`: host interface, start-state bank, `N` engines, summed counters.
//! - [`percept`]: for GDL-II netlists, `<prefix>_percept`, the percepts as combinational
//!   logic beside the engine (written and checked in simulation by `propnet hdl --check`).
//!
//! # Host interface (`<prefix>_top`)
//! Ports: `clk`, `rst` (synchronous, active high), `we`, `addr[15:0]`, `wdata[31:0]`,
//! `rdata[31:0]` (registered: valid the cycle after `addr`), `done` (high when the last run
//! finished). Writes are ignored while a run is busy. Register map ([`regs`]):
//!
//! | addr | dir | meaning |
//! |------|-----|---------|
//! | 0x0000 | W | CTRL: bit0 = start a run, bit1 = start from STATE words (else init) |
//! | 0x0000 | R | STATUS: bit0 = done, bit1 = busy |
//! | 0x0001/0x0002 | W | seed bits 31..0 / 63..32 |
//! | 0x0003 | W | playouts in the run (indices 0..playouts) |
//! | 0x0004 | W | max steps (joint moves) per playout |
//! | 0x0010 | R | playouts finished |
//! | 0x0011/0x0012 | R | total joint moves, bits 31..0 / 47..32 |
//! | 0x0013/0x0014/0x0015 | R | ends by terminal / step limit / no legal move |
//! | 0x0016/0x0017 | R | cycles of the run, bits 31..0 / 47..32 |
//! | 0x0018..0x001B | R | engines, roles, latches, RNG stages |
//! | 0x0100 + 2r (+1) | R | goal sum of role r, bits 31..0 (47..32) |
//! | 0x1000 + w | W | start state word w: bit b = latch 32w+b |
//!
//! A run: write seed, playouts, max steps (and state words), write CTRL = 1 (or 3), wait for
//! `done`, read the counters. Goals per playout are the spec's (largest true goal value,
//! else 0); per-playout records (index, length, end, goals, final state) are printed only in
//! simulation (`PROPNET_TRACE` define), which is how the tests compare with the CPU.
//!
//! # Verification
//! `hdl/tests/random_sim.rs`: random netlists (1–3 roles, 1–3 engines, every RNG depth,
//! 1 to 4 RNG banks, C-slow 1 and 2), a host-loaded start state, a no-legal-move
//! ending, both chooser paths (precomputed `k_c` up to [`engine::PRECOMPUTE_MAX_MOVES`]
//! moves, multiplier above), the group-wise chooser (a last group of one entry; thinned legal
//! bits with empty groups and counts 0 and 1; sticky "move played" latches so every wrong
//! choice shows in the final state), the Threefry module alone against `rng::threefry2x32_20`,
//! `verilator --lint-only -Wall` clean, the cycle count equal to
//! [`engine::engine_cycles`] of the busiest engine (one joint move per cycle and thread), and
//! one tiny netlist through yosys `synth_ice40` + nextpnr. `tests/tests/hdl_vs_cpu.rs`:
//! tic-tac-toe (S = 20, 2 banks: short playouts wait for the prefetch; 3 banks and C-slow 2:
//! they wait for the bank freed two playouts earlier), connect four (S = 20, 3 banks,
//! C-slow 2), breakthrough (155 legal entries per role: the group-wise chooser; 4 playouts),
//! Niu Jiao Qi, simultaneous connect four (C-slow 2) and a positive-loop game,
//! every playout record, counter and the cycle count equal to `reference_playout` /
//! `engine_cycles`; the goal pipeline is checked by the same per-playout goals and goal sums.
//!
//! # Design choices
//! The engine's shape came from measurements (yosys / nextpnr, see `BENCHMARKS.md`, "FPGA
//! engine", for the figures and `docs/hdl-design.md` for the history behind each choice):
//! - RNG prefetch is whole extra Threefry banks per role (ping-pong or a ring of 3–4), since
//!   one pipeline per role has no spare issue slot when a playout ends.
//! - C-slow 2 cuts the step loop between state-only and move-dependent logic; every
//!   per-playout register is then a two-register ring.
//! - Goals are off the step loop, in a pipelined module on the registered final state.
//! - `k_c = (x·c)>>32` is written as shift-adds (yosys would put constant products into slow
//!   DSP blocks), the prefix counts as gate-level adders (Kogge–Stone), and roles with more
//!   than [`chooser::GROUPED_ABOVE_MOVES`] legal entries use the group-wise chooser.
//! - The Verilog is our own writer: `rust-hdl` was evaluated and not used (its blocks are
//!   static Rust types, while every module here depends on the netlist).
//!
#![deny(missing_docs)]

pub mod chooser;
mod core;
mod design;
pub mod engine;
pub mod fit;
pub mod goal;
mod names;
pub mod pack;
pub mod percept;
pub mod records;
pub mod regs;
pub mod shell;
pub mod sim;
pub mod synth;
mod testbench;
pub mod threefry;
pub mod tools;
mod top;
pub mod verilator;

pub use design::{generate, Design, DesignInfo, Names, Options, VerilogFile, Writer};
use propnet_netlist::Netlist;
use std::path::PathBuf;

/// The netlist hash a design reports in its `INFO_HASH` registers ([`regs::INFO_HASH_LO`]):
/// CRC-64/XZ of the netlist's text form ([`propnet_netlist::to_text`]), so a host can
/// tell a bitstream of another game (or of the same game compiled differently) at connect.
pub fn netlist_hash(net: &Netlist) -> u64 {
    crc::Crc::<u64>::new(&crc::CRC_64_XZ).checksum(propnet_netlist::to_text(net).as_bytes())
}

/// Errors of the FPGA backend.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The netlist has a shape the engine does not support.
    #[error("unsupported netlist: {0}")]
    Unsupported(String),
    /// An option is out of range.
    #[error("bad option: {0}")]
    BadOption(String),
    /// Writing an output file or folder failed (through `propnet_output`: the message
    /// names the path and says what to give instead).
    #[error(transparent)]
    Output(#[from] propnet_output::OutputError),
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// An external tool (iverilog, vvp, verilator, yosys, nextpnr) could not be started.
    #[error("cannot run {tool}: {source} (is it installed and on PATH?)")]
    ToolMissing {
        /// The program name.
        tool: String,
        /// The cause.
        source: std::io::Error,
    },
    /// An external tool failed; `log` is the end of its output.
    #[error("{tool} failed ({status}):\n{log}")]
    ToolFailed {
        /// The program name.
        tool: String,
        /// Exit status text.
        status: String,
        /// Last lines of stdout and stderr.
        log: String,
    },
    /// A tool's output could not be understood.
    #[error("cannot parse {what}: {line}")]
    Parse {
        /// What was being parsed.
        what: String,
        /// The offending line.
        line: String,
    },
}
