//! Runs the generated design's testbench in a Verilog simulator (Icarus Verilog or
//! Verilator 5, [`Simulator`]) and parses the per-playout records and the host counters,
//! for comparison with `propnet_netlist::playout::reference_playout`.
//!
//! Record line format (printed by each engine under `PROPNET_TRACE`):
//! `REC <engine> <index> <length> <terminal 0/1> <step_limit 0/1> <no-legal bits, role R-1
//! first> <goals hex, role r = byte r> <final state hex, bit l = latch l>`.

use crate::tools::run;
use crate::{Design, Error};
use propnet_netlist::playout::{PlayoutEnd, PlayoutRecord};
use std::collections::BTreeMap;
use std::path::Path;

/// The simulator that runs a design's testbench.
///
/// Icarus Verilog compiles any design in about a second and interprets it: some thousands
/// of cycles a second on a small engine, but a large one (a game with thousands of input
/// propositions, whose move chooser is megabytes of Verilog) runs minutes per playout.
/// Verilator translates the design to C++ and compiles it (`verilator --binary --timing`):
/// tens of seconds to build, then the run costs next to nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Simulator {
    /// `iverilog` + `vvp`.
    #[default]
    Icarus,
    /// `verilator --binary --timing` (Verilator 5 or later), then the compiled model.
    Verilator,
}

impl Simulator {
    /// Under [`Simulator::auto_for`], designs whose engine modules (the move chooser, whose
    /// size grows with the input propositions, times the engines instantiated) come to more
    /// than this many bytes of Verilog go to Verilator (4,096 engines of MontyHall, 25 KiB
    /// each, took Icarus's compiler past 9.8 GB). Icarus's time grows with the engine's size times the cycles:
    /// BattleshipsFog's 7.3 MB engine ran 8 playouts (205 cycles) in more than 11
    /// minutes, against a 48 s Verilator build and 0.01 s of run; backgammon's 1.5 MB
    /// engine took 120-175 s; blackjack's 0.2 MB engine beside a 4.9 MB core ran in
    /// seconds, where a Verilator build of that core took minutes.
    pub const AUTO_VERILATOR_BYTES: usize = 1 << 20;

    /// Verilator for `bytes` of Verilog over [`Self::AUTO_VERILATOR_BYTES`] when
    /// `verilator` can be started, else Icarus.
    pub fn auto_for(bytes: usize) -> Self {
        if bytes > Self::AUTO_VERILATOR_BYTES && crate::tools::available("verilator") {
            Simulator::Verilator
        } else {
            Simulator::Icarus
        }
    }

    /// The tool's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Simulator::Icarus => "iverilog",
            Simulator::Verilator => "verilator",
        }
    }
}

/// One simulated run of the host interface.
#[derive(Clone, Debug)]
pub struct SimRun {
    /// RNG seed.
    pub seed: u64,
    /// Playouts (indices `0..playouts`, spread over the engines).
    pub playouts: u32,
    /// Step limit per playout.
    pub max_steps: u32,
    /// Start state (one bool per latch); `None` = the game's init.
    pub start: Option<Vec<bool>>,
    /// Simulation cycle limit (guards against a hung design).
    pub max_cycles: u64,
    /// The simulator.
    pub simulator: Simulator,
}

/// What the simulation printed.
#[derive(Clone, Debug)]
pub struct SimOutput {
    /// Per-playout records, sorted by index.
    pub records: Vec<PlayoutRecord>,
    /// Engine that ran each record (same order as `records`).
    pub engine_of: Vec<u32>,
    /// Host counters read over the bus: `playouts`, `terminal`, `step_limit`, `no_legal`,
    /// `roles`, `steps`, `cycles`, `goal_sum_<r>`.
    pub counters: BTreeMap<String, u64>,
}

fn parse_err(what: &str, line: &str) -> Error {
    Error::Parse {
        what: what.into(),
        line: line.into(),
    }
}

/// Bits of a hex string, least significant first (`n` bits).
fn hex_bits(hex: &str, n: usize, line: &str) -> Result<Vec<bool>, Error> {
    let digits: Vec<u32> = hex
        .chars()
        .rev()
        .map(|c| c.to_digit(16))
        .collect::<Option<_>>()
        .ok_or_else(|| parse_err("hex field", line))?;
    Ok((0..n)
        .map(|b| digits.get(b / 4).is_some_and(|d| d >> (b % 4) & 1 == 1))
        .collect())
}

fn num<T: std::str::FromStr>(s: Option<&str>, line: &str) -> Result<T, Error> {
    s.and_then(|s| s.parse().ok())
        .ok_or_else(|| parse_err("number", line))
}

/// Parses one `REC` line of a design with `roles` roles and `latches` latches.
pub fn parse_record(
    line: &str,
    roles: usize,
    latches: usize,
) -> Result<(u32, PlayoutRecord), Error> {
    let mut f = line.split_whitespace();
    if f.next() != Some("REC") {
        return Err(parse_err("record", line));
    }
    let engine: u32 = num(f.next(), line)?;
    let index: u32 = num(f.next(), line)?;
    let length: u32 = num(f.next(), line)?;
    let term: u8 = num(f.next(), line)?;
    let limit: u8 = num(f.next(), line)?;
    let none = f.next().ok_or_else(|| parse_err("record", line))?;
    let goals_hex = f.next().ok_or_else(|| parse_err("record", line))?;
    let state_hex = f.next().ok_or_else(|| parse_err("record", line))?;
    let end = if term == 1 {
        PlayoutEnd::Terminal
    } else if limit == 1 {
        PlayoutEnd::StepLimit
    } else {
        let bits: Vec<char> = none.chars().collect();
        let r = (0..roles)
            .find(|&r| bits.get(roles - 1 - r) == Some(&'1'))
            .ok_or_else(|| parse_err("end kind", line))?;
        PlayoutEnd::NoLegalMove(r as u32)
    };
    let gbits = hex_bits(goals_hex, 8 * roles, line)?;
    let goals = (0..roles)
        .map(|r| (0..8).fold(0u8, |acc, b| acc | (u8::from(gbits[8 * r + b]) << b)))
        .collect();
    let state = hex_bits(state_hex, latches, line)?;
    let final_state = propnet_netlist::playout::pack_state(&state);
    Ok((
        engine,
        PlayoutRecord {
            index,
            length,
            end,
            goals,
            final_state,
        },
    ))
}

/// Writes `design` into `dir`, compiles it with `PROPNET_TRACE` defined in `run`'s
/// simulator, runs it with `run`'s plusargs and parses the output.
///
/// Errors: [`Error::ToolMissing`] / [`Error::ToolFailed`] for the simulator's tools,
/// [`Error::Parse`] for unexpected output, including `TIMEOUT` (more than `max_cycles`).
pub fn simulate(design: &Design, dir: &Path, run_cfg: &SimRun) -> Result<SimOutput, Error> {
    design.write_to(dir)?;
    let mut files = design.source_names();
    files.push(design.testbench.name.clone());
    let plus = plusargs(run_cfg);
    let text = match run_cfg.simulator {
        Simulator::Icarus => {
            let mut args: Vec<String> = vec![
                "-g2005".into(),
                "-DPROPNET_TRACE".into(),
                "-o".into(),
                "sim.vvp".into(),
            ];
            args.extend(files);
            run("iverilog", &args, dir)?;
            let mut args = vec!["-n".to_string(), "sim.vvp".into()];
            args.extend(plus);
            run("vvp", &args, dir)?
        }
        Simulator::Verilator => {
            let model = build_verilator(&design.names.testbench, files, dir)?;
            run(&model, &plus, dir)?
        }
    };
    parse_output(design, &text)
}

/// The testbench's plusargs for `run_cfg` (seed in hex, start state as hex digits, latch 0
/// in the lowest bit).
fn plusargs(run_cfg: &SimRun) -> Vec<String> {
    let mut plus = vec![
        format!("+seed={:x}", run_cfg.seed),
        format!("+playouts={}", run_cfg.playouts),
        format!("+max_steps={}", run_cfg.max_steps),
        format!("+max_cycles={}", run_cfg.max_cycles),
    ];
    if let Some(st) = &run_cfg.start {
        let mut hex = String::new();
        for d in (0..st.len().div_ceil(4)).rev() {
            let v = (0..4).fold(0u32, |acc, b| {
                acc | (u32::from(st.get(4 * d + b).copied().unwrap_or(false)) << b)
            });
            hex.push(char::from_digit(v, 16).unwrap_or('0'));
        }
        plus.push(format!("+state={hex}"));
    }
    plus
}

/// Builds the testbench module `top` of `files` (in `dir`) with `verilator --binary
/// --timing` into `dir/obj_dir`, with `PROPNET_TRACE` defined; returns the model's
/// absolute path.
pub(crate) fn build_verilator(top: &str, files: Vec<String>, dir: &Path) -> Result<String, Error> {
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut args: Vec<String> = [
        "--binary",
        "--timing",
        "-Wno-fatal",
        "-Wno-lint",
        "-Wno-style",
        "+define+PROPNET_TRACE",
        "--Mdir",
        "obj_dir",
        "-o",
        "sim",
    ]
    .map(String::from)
    .into();
    args.extend(["--top-module".into(), top.to_string()]);
    args.extend(["-j".into(), jobs.to_string()]);
    args.extend(files);
    run("verilator", &args, dir)?;
    let path = dir.join("obj_dir").join("sim");
    let model = std::path::absolute(&path).map_err(|source| Error::Io { path, source })?;
    Ok(model.to_string_lossy().into_owned())
}

/// Parses the records, counters and `END` line a testbench printed.
fn parse_output(design: &Design, text: &str) -> Result<SimOutput, Error> {
    let mut recs = Vec::new();
    let mut counters = BTreeMap::new();
    let mut ended = false;
    for line in text.lines() {
        if line.starts_with("REC ") {
            recs.push(parse_record(line, design.info.roles, design.info.latches)?);
        } else if let Some(rest) = line.strip_prefix("CNT ") {
            let mut f = rest.split_whitespace();
            let name = f.next().ok_or_else(|| parse_err("counter", line))?;
            counters.insert(name.to_string(), num(f.next(), line)?);
        } else if line.starts_with("TIMEOUT") {
            return Err(parse_err("simulation (cycle limit exceeded)", line));
        } else if line == "END" {
            ended = true;
        }
    }
    if !ended {
        return Err(parse_err(
            "simulation output (no END line)",
            &crate::tools::tail(text, 5),
        ));
    }
    recs.sort_by_key(|(_, r)| r.index);
    Ok(SimOutput {
        engine_of: recs.iter().map(|(e, _)| *e).collect(),
        records: recs.into_iter().map(|(_, r)| r).collect(),
        counters,
    })
}
