//! Netlist → synthesizable Verilog playout engine, testbench, simulation check and
//! synthesis report (the FPGA backend of propnet).
//!
//! The only published FPGA propnet (Siwek, Kowalski, Sironi, Winands: "Implementing
//! Propositional Networks on FPGA", AI 2018) was hand-built; here the engine is generated
//! from any netlist, checked bit for bit against
//! [`propnet_compiler::playout::reference_playout`] in simulation ([`sim`]) and sized by
//! yosys / nextpnr ([`synth`]).
//!
//! # Generated design
//! [`generate`] returns a [`Design`]: one Verilog-2005 file per module (so
//! `verilator --lint-only -Wall` is clean, including its file-name rule) plus a testbench.
//! - `<prefix>_core`: the netlist's combinational logic (legal, goal, terminal, next); with
//!   [`Options::cslow`] = 2 split into a state-only part and a move-dependent part joined
//!   by a registered cut ([`core::write_core_split`]).
//! - `<prefix>_threefry`: the RNG draw, word 0 of Threefry-2x32-20 exactly as
//!   [`propnet_compiler::rng`], with [`Options::rng_stages`] pipeline stages and a clock
//!   enable.
//! - `<prefix>_engine`: latch registers, per role one or more RNG bank pipelines and a
//!   chooser (`k = (x·count)>>32`, the move is the legal entry whose prefix count of legal
//!   bits equals `k`; `k_c` for every possible count `c` is precomputed into registers the
//!   cycle after the draw leaves the RNG, so the step path only compares and muxes), the
//!   playout controller. One joint move per clock cycle per thread. The draws depend on no
//!   game state, so they are requested `S + 1` cycles ahead ([`engine::draw_latency`]);
//!   with [`Options::prefetch`] a second bank per role fetches the next playout's first
//!   draws while the current one runs (ping-pong), so a playout costs
//!   `max(length, S + 1) + 1` slots instead of `length + 2 + S`; with [`Options::cslow`] = 2
//!   two playouts are interleaved in one copy of the logic (C-slow), see [`engine`]. Exact
//!   cycle counts: [`engine::engine_cycles`]. Engine `e` of `N` runs playout indices
//!   `e, e+N, e+2N, …` below `playouts` (thread `j` of a C-slow engine every `2N`-th index
//!   from `e + jN`).
//! - `<prefix>_top`: host interface, start-state bank, `N` engines, summed counters.
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
//! with and without prefetch, C-slow 1 and 2), a host-loaded start state, a no-legal-move
//! ending, both chooser paths (precomputed `k_c` up to [`engine::PRECOMPUTE_MAX_MOVES`]
//! moves, multiplier above), the Threefry module alone against `rng::threefry2x32_20`,
//! `verilator --lint-only -Wall` clean, the cycle count equal to
//! [`engine::engine_cycles`] of the busiest engine (one joint move per cycle and thread), and
//! one tiny netlist through yosys `synth_ice40` + nextpnr. `tests/tests/hdl_vs_cpu.rs`:
//! tic-tac-toe (S = 20, prefetch: short playouts wait for it), connect four (S = 10,
//! C-slow 2), Niu Jiao Qi, simultaneous connect four (C-slow 2) and a positive-loop game,
//! every playout record, counter and the cycle count equal to `reference_playout` /
//! `engine_cycles`.
//!
//! # Measured (iCE40-HX8K ct256, yosys 0.23 `synth_ice40`, nextpnr-ice40 0.4, 1 engine)
//! `propnet hdl bench-games/GAME.kif -o DIR --synth ice40 --rng-stages S`; mean playout
//! length from 200 reference playouts (seed 1), cycles per playout = length + 1 + S.
//!
//! | game | S | LUT4 | FF | Fmax MHz | cycles/playout | cycles/step | playouts/s/engine |
//! |------|---|------|----|----------|----------------|-------------|-------------------|
//! | tic-tac-toe | 2 | 4981 | 826 | 19.60 | 10.56 | 1.40 | 1.86 M |
//! | tic-tac-toe | 5 | 4768 | 1210 | 39.88 | 13.56 | 1.79 | 2.94 M |
//! | tic-tac-toe | 10 | 4779 | 1848 | 39.51 | 18.56 | 2.46 | 2.13 M |
//! | connect four | 2 | 5290 | 968 | 19.33 | 23.39 | 1.15 | 0.83 M |
//! | connect four | 5 | 5069 | 1352 | 37.74 | 26.39 | 1.29 | 1.43 M |
//! | connect four | 10 | 5070 | 1990 | 39.19 | 31.39 | 1.54 | 1.25 M |
//!
//!
//! With the `k_c` precompute stage (draw latency S + 1, cycles per playout = length + 2 + S;
//! S = 5, same tools):
//!
//! | game | device | LUT | FF | DSP | Fmax MHz | cycles/playout | playouts/s/engine | engines/device |
//! |------|--------|-----|----|-----|----------|----------------|-------------------|----------------|
//! | tic-tac-toe | iCE40-HX8K | 4870 | 1244 | 0 | 38.93 | 14.56 | 2.67 M | 1 |
//! | tic-tac-toe | XC7A100T (LUT6) | 3562 | 1256 | 24 | — | 14.56 | — | 17 |
//! | connect four | iCE40-HX8K | 5073 | 1376 | 0 | 39.28 | 27.39 | 1.43 M | 1 |
//! | connect four | LFE5U-85F (LUT4) | 5341 | 1380 | 16 | — | 27.39 | — | 15 |
//!
//! The precompute did not raise throughput: nextpnr's critical path is now the first Threefry
//! stage (seed register → `ctr + key` → 4 rounds of 32-bit add/rotate/xor), so Fmax stays
//! ~39 MHz and the extra fill cycle eats the gain (connect four 1.43 M/s either way,
//! tic-tac-toe 2.94 → 2.67 M/s). It keeps the multiplier off the step path, so the next
//! step is a shorter RNG stage (S = 10, or registering `ctr + key`) — not measured yet.
//! nextpnr-ecp5 is not packaged in this Debian (only -ice40 and -generic), so no ECP5 Fmax;
//! yosys maps the constant `x·c` products to DSP blocks on ECP5/xc7 (LUT counts exclude them).
//!
//! (tic-tac-toe S = 2, 5 and connect four S = 2 were measured before the Kogge-Stone prefix
//! count; it did not move Fmax because the multiplier then became the critical path.)
//! One engine fits an HX8K (2-role games use ~5 k of 7680 LUTs); ~75 % of it is the two
//! unrolled Threefry instances (one per role, ~1.8 k LUT4 each), so the RNG, not the game,
//! dominates small games. Breakthrough (38.8 k live gates after `optimize`) does not fit the
//! HX8K; its xc7 LUT count was not measured in this session (yosys on it takes longer than
//! the time left). xc7 (`synth_xilinx`, XC7A100T, S = 5): tic-tac-toe 3538 LUT6, 1212 FF,
//! 4 DSP48 (the `x·count` multipliers) per engine, so 17 engines fit by LUTs; no xc7 place
//! and route is installed, so no Fmax there. Against the ~50 k playouts/s of a Java propnet on connect four, one iCE40
//! engine (1.43 M/s) is ~29×, short of the 100× target: the critical path after S ≥ 5 is
//! legal → prefix count → `(x·count)>>32` multiplier → one-hot select → next-state logic.
//! Next steps: precompute `k_c = (x·c)>>32` for every count c one cycle ahead (x is known
//! in advance), which removes the multiplier from the step path; prefetch the first S draws
//! of the next playout to remove the S fill cycles; and an xc7/ECP5 place-and-route for
//! Fmax on parts that hold tens of engines.
//!
//! # rust-hdl (evaluated, not used)
//! The user named `rust-hdl` 0.46. Measured here (rustc 1.95, 2 shared cores, `-j1`): a
//! fresh build of `rust-hdl` pulls 50 crates and takes 1 min 35 s (55 s CPU), 323 MB target
//! dir, with a future-incompatibility warning (`svg` 0.10). It does build and its simulator
//! works: a Threefry mix round written as a `#[derive(LogicBlock)]` block simulated from Rust
//! and matched the Rust model, and `generate_verilog` printed sane Verilog. But: (1) the
//! library prints `dbg!` output from `check_connected` on every `generate_verilog`;
//! (2) its blocks are static Rust types, while the core, choosers and counter widths here
//! depend on the netlist (thousands of gates, per-role widths), so the core would be a black
//! box anyway and the "fixed shell" is ~150 lines of generated text; (3) the whole shell is
//! already checked end to end, bit for bit against the CPU, in iverilog, including the
//! Threefry module alone against `rng::threefry2x32_20` (`threefry_matches_rng`). Adding
//! 1.5 min of CI build for a second simulator of the same ~40 adders was not worth it.
//! The last release is from 2023 (its author moved on to `rhdl`). Decision: our own writer.

#![deny(missing_docs)]

pub mod core;
pub mod engine;
pub mod names;
pub mod regs;
pub mod sim;
pub mod synth;
pub mod testbench;
pub mod threefry;
pub mod tools;
pub mod top;

use propnet_compiler::netlist::{validate, Netlist};
use std::path::{Path, PathBuf};

/// Options of the Verilog writer.
#[derive(Clone, Debug)]
pub struct Options {
    /// Module name prefix (made a legal, non-keyword identifier by [`names::Namer`]).
    pub prefix: String,
    /// Number of playout engines (1..=4096).
    pub engines: u32,
    /// Threefry pipeline stages, one of [`threefry::VALID_STAGES`] (0 = combinational).
    /// Default 10 (2 rounds per stage): with 4 rounds per stage (S = 5) the RNG limits the
    /// clock to ~39 MHz on iCE40; S = 20 (1 round) clocks higher but its `S + 1` draw latency
    /// makes playouts shorter than 21 steps wait for the prefetch (see the crate docs'
    /// measurements).
    pub rng_stages: u32,
    /// A second RNG bank per role that prefetches the next playout's first draws, so no
    /// fill cycles are lost between playouts (see [`engine`]); costs a second Threefry
    /// pipeline per role.
    pub prefetch: bool,
    /// Interleaved playout threads per engine (C-slow retiming, Leiserson & Saxe,
    /// "Retiming synchronous circuitry", Algorithmica 1991): 1, or 2 = a register level
    /// between the state-only logic (legal, terminal, goal) and the move-dependent next-state
    /// logic, with two playouts in flight in one copy of the logic. With `prefetch` each
    /// thread gets its own two bank pipelines per role.
    pub cslow: u32,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            prefix: "propnet".into(),
            engines: 1,
            rng_stages: 10,
            prefetch: true,
            cslow: 1,
        }
    }
}

/// Errors of the FPGA backend.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The netlist fails validation.
    #[error("invalid netlist: {0}")]
    Invalid(#[from] propnet_compiler::netlist::ValidateError),
    /// The netlist has a shape the engine does not support.
    #[error("unsupported netlist: {0}")]
    Unsupported(String),
    /// An option is out of range.
    #[error("bad option: {0}")]
    BadOption(String),
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

/// Module names of a design.
#[derive(Clone, Debug)]
pub struct Names {
    /// Game logic module.
    pub core: String,
    /// RNG module.
    pub threefry: String,
    /// Engine module.
    pub engine: String,
    /// Top module (host interface).
    pub top: String,
    /// Testbench module.
    pub testbench: String,
}

impl Names {
    /// Module names for a prefix.
    pub fn new(prefix: &str) -> Self {
        let mut n = names::Namer::new();
        let p = n.fresh(prefix);
        let mut m = |s: &str| n.fresh(&format!("{p}_{s}"));
        Self {
            core: m("core"),
            threefry: m("threefry"),
            engine: m("engine"),
            top: m("top"),
            testbench: m("tb"),
        }
    }
}

/// One Verilog source file.
#[derive(Clone, Debug)]
pub struct VerilogFile {
    /// File name (`<module>.v`).
    pub name: String,
    /// Verilog text.
    pub text: String,
}

/// Shape facts of a design that reports and the simulator need.
#[derive(Clone, Debug)]
pub struct DesignInfo {
    /// Engines.
    pub engines: u32,
    /// RNG pipeline stages (`S`).
    pub rng_stages: u32,
    /// Whether the engines have the prefetch RNG bank.
    pub prefetch: bool,
    /// Interleaved playout threads per engine.
    pub cslow: u32,
    /// Roles.
    pub roles: usize,
    /// Latches.
    pub latches: usize,
    /// Live logic gates in the core.
    pub gates: usize,
}

/// A generated design: synthesizable sources (core, RNG, engine, top) and a testbench.
#[derive(Clone, Debug)]
pub struct Design {
    /// Module names.
    pub names: Names,
    /// Synthesizable files, dependencies first; the last one holds the top module.
    pub sources: Vec<VerilogFile>,
    /// Simulation testbench (not synthesizable).
    pub testbench: VerilogFile,
    /// Shape facts.
    pub info: DesignInfo,
}

impl Design {
    /// Writes all files into `dir` (created if needed); returns the source paths (without the
    /// testbench) and the testbench path.
    pub fn write_to(&self, dir: &Path) -> Result<(Vec<PathBuf>, PathBuf), Error> {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            path: dir.into(),
            source,
        })?;
        let write = |f: &VerilogFile| -> Result<PathBuf, Error> {
            let p = dir.join(&f.name);
            std::fs::write(&p, &f.text).map_err(|source| Error::Io {
                path: p.clone(),
                source,
            })?;
            Ok(p)
        };
        let src = self
            .sources
            .iter()
            .map(write)
            .collect::<Result<Vec<_>, _>>()?;
        Ok((src, write(&self.testbench)?))
    }
}

/// Generates the Verilog playout engine for `net`.
///
/// Errors: [`Error::Invalid`] if `net` fails validation; [`Error::Unsupported`] if it has no
/// latch, no input, no role or more than 256 roles (the RNG counter holds the role in 8
/// bits), or more than 2^20 latches; [`Error::BadOption`] for out-of-range options.
pub fn generate(net: &Netlist, opts: &Options) -> Result<Design, Error> {
    validate(net)?;
    if net.latches.is_empty() || net.inputs.is_empty() || net.roles.is_empty() {
        return Err(Error::Unsupported(format!(
            "the engine needs at least one latch, input and role (has {}, {}, {})",
            net.latches.len(),
            net.inputs.len(),
            net.roles.len()
        )));
    }
    if net.roles.len() > 256 {
        return Err(Error::Unsupported(format!(
            "{} roles; the RNG counter allows 256",
            net.roles.len()
        )));
    }
    if net.latches.len() > (1 << 20) {
        return Err(Error::Unsupported(format!(
            "{} latches; the state bank allows 2^20",
            net.latches.len()
        )));
    }
    if !threefry::VALID_STAGES.contains(&opts.rng_stages) {
        return Err(Error::BadOption(format!(
            "rng_stages = {}; must be one of {:?}",
            opts.rng_stages,
            threefry::VALID_STAGES
        )));
    }
    if !(1..=2).contains(&opts.cslow) {
        return Err(Error::BadOption(format!(
            "cslow = {}; must be 1 or 2",
            opts.cslow
        )));
    }
    if !(1..=4096).contains(&opts.engines) {
        return Err(Error::BadOption(format!(
            "engines = {}; must be 1..=4096",
            opts.engines
        )));
    }
    let names = Names::new(&opts.prefix);
    let file = |module: &str, text: String| VerilogFile {
        name: format!("{module}.v"),
        text,
    };
    let sources = vec![
        file(
            &names.core,
            if opts.cslow == 2 {
                core::write_core_split(net, &names.core)
            } else {
                core::write_core(net, &names.core)
            },
        ),
        file(
            &names.threefry,
            threefry::write_threefry(&names.threefry, opts.rng_stages),
        ),
        file(
            &names.engine,
            engine::write_engine(
                net,
                &names,
                opts.rng_stages,
                opts.engines,
                opts.prefetch,
                opts.cslow,
            ),
        ),
        file(
            &names.top,
            top::write_top(net, &names, opts.rng_stages, opts.engines),
        ),
    ];
    let testbench = file(&names.testbench, testbench::write_testbench(net, &names));
    let info = DesignInfo {
        engines: opts.engines,
        rng_stages: opts.rng_stages,
        prefetch: opts.prefetch,
        cslow: opts.cslow,
        roles: net.roles.len(),
        latches: net.latches.len(),
        gates: core::live_logic_gates(net),
    };
    Ok(Design {
        names,
        sources,
        testbench,
        info,
    })
}
