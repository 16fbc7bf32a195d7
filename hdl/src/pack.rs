//! Packed logic cells: the area that decides whether a design fits, counted by nextpnr's
//! packer (`--pack-only`, seconds) on the synthesized netlist.
//!
//! A yosys LUT count is not the area a device runs out of. On iCE40 a logic cell
//! (`ICESTORM_LC`) holds one LUT4, one flip-flop and one carry, and a flip-flop or carry
//! that cannot share a cell with the LUT it follows takes a cell of its own: the connect-four
//! engine S=20, K=1, C=2 is 5727 LUT4 but 7778 packed cells (2729 carries, 4303 FFs), more
//! than the HX8K's 7680. On ECP5 the packer's `TRELLIS_COMB` (LUT4 halves of a slice,
//! carry halves and the route-through LUTs it inserts) and `TRELLIS_FF` are each limited to
//! 83640 on the LFE5U-85F. [`engines_fitting_cells`] does the arithmetic of a fit from these
//! counts; [`pack`] runs the packer.

use crate::synth::{parse_utilisation, placer, PnrOptions, Target, Utilisation};
use crate::tools::run;
use crate::Error;
use std::path::Path;

/// Share of the device's LUTs (and FFs) a fitted design may use when nothing packs it:
/// routing needs the rest, and the LUT count misses unpaired FFs and carries.
pub const FILL: f64 = 0.85;
/// Logic cells assumed for the board shell (UART, bridge, reset, LEDs): measured on the
/// HX8K as 7002 cells for the tic-tac-toe board build against 6266 for its engines alone.
pub const SHELL_CELLS: u64 = 740;

/// Share of the device's packed logic cells (and ECP5 flip-flops) a fitted design with its
/// shell may use. iCE40: 0.93, above the highest utilisations placed and routed here
/// (92.1 % for a connect-four engine, 91.2 % for the tic-tac-toe board build) and below
/// the point where the cells alone leave no slack; ECP5: 0.85 (no full-device placement
/// measured when this was set).
pub fn cell_fill(target: Target) -> f64 {
    match target {
        Target::Ice40 => 0.93,
        _ => 0.85,
    }
}

/// Packed area of a design: logic cells and, where they are counted apart, flip-flops.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Packed {
    /// iCE40: `ICESTORM_LC` (LUT, FF and carry in one); ECP5: `TRELLIS_COMB`.
    pub cells: u64,
    /// ECP5: `TRELLIS_FF`; iCE40: 0 (the flip-flops are inside the logic cells).
    pub ffs: u64,
}

impl Packed {
    /// The packer's cell type names for the logic cells and flip-flops of `target`
    /// (`None` for families without a packer here).
    pub fn cell_types(target: Target) -> Option<(&'static str, Option<&'static str>)> {
        match target {
            Target::Ice40 => Some(("ICESTORM_LC", None)),
            Target::Ecp5 => Some(("TRELLIS_COMB", Some("TRELLIS_FF"))),
            Target::Xc7 => None,
        }
    }

    /// The packed counts in a nextpnr utilisation table (`None` without the cell type).
    pub fn from_utilisation(target: Target, u: &[Utilisation]) -> Option<Packed> {
        let (cells, ffs) = Self::cell_types(target)?;
        let used = |name: &str| u.iter().find(|x| x.cell == name).map(|x| x.used);
        Some(Packed {
            cells: used(cells)?,
            ffs: ffs.and_then(used).unwrap_or(0),
        })
    }

    /// Whether the design fits the whole device (no fill margin).
    pub fn fits(&self, target: Target) -> bool {
        self.cells <= target.device_luts() && self.ffs <= target.device_ffs()
    }
}

/// Engines of a design whose one-engine build packs into `one` that fit [`cell_fill`] of
/// `target`'s device after [`SHELL_CELLS`] (at least 0). The whole one-engine design
/// (engine and the top's start state and result sums) is counted per engine, so the top's
/// registers count once per engine and the figure errs low by them.
pub fn engines_fitting_cells(target: Target, one: Packed) -> u64 {
    let fill = cell_fill(target);
    let room = target.device_luts() as f64 * fill - SHELL_CELLS as f64;
    let by_cells = room / one.cells.max(1) as f64;
    let by_ffs = if one.ffs == 0 {
        f64::INFINITY
    } else {
        target.device_ffs() as f64 * fill / one.ffs as f64
    };
    by_cells.min(by_ffs).max(0.0).floor() as u64
}

/// Packs the synthesized netlist `json` (in `dir`) with nextpnr's `--pack-only` and returns
/// its packed area; `None` where `target` has no packer installed (xc7; ECP5 without
/// nextpnr-ecp5). The log is kept as `nextpnr-pack.log` in `dir`.
///
/// # Errors
/// Tool errors; [`Error::Parse`] when the log has no utilisation table with the cell type.
pub fn pack(
    dir: &Path,
    target: Target,
    pnr: &PnrOptions,
    json: &str,
    before_tool: &mut dyn FnMut(&str),
) -> Result<Option<Packed>, Error> {
    let Some((tool, mut args, what)) = placer(target, pnr) else {
        return Ok(None);
    };
    before_tool(&what.replace("place and route", "pack only"));
    args.extend(["--json", json, "--pack-only"].map(String::from));
    let log = run(&tool, &args, dir)?;
    let path = dir.join("nextpnr-pack.log");
    propnet_output::write(&path, &log)?;
    Packed::from_utilisation(target, &parse_utilisation(&log))
        .map(Some)
        .ok_or_else(|| Error::Parse {
            what: "nextpnr --pack-only utilisation".into(),
            line: crate::tools::tail(&log, 5),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_count_follows_packed_cells_not_luts() {
        // The connect-four S=20, K=1, C=2 engine: 5727 LUT4 but 7778 cells. By cells it
        // does not fit the HX8K at all; one S=10 engine of 6266 cells fits once.
        let c4 = Packed {
            cells: 7778,
            ffs: 0,
        };
        assert!(!c4.fits(Target::Ice40));
        assert_eq!(engines_fitting_cells(Target::Ice40, c4), 0);
        // The tic-tac-toe engine S=10, K=1, C=2 that placed at 6266 cells (7002 with the
        // shell): 0.93 · 7680 − 740 = 6402.4 cells of room, one engine; two need 3202 each.
        let ttt = Packed {
            cells: 6266,
            ffs: 0,
        };
        assert_eq!(engines_fitting_cells(Target::Ice40, ttt), 1);
        let cells = |cells| Packed { cells, ffs: 0 };
        assert_eq!(engines_fitting_cells(Target::Ice40, cells(6403)), 0);
        assert_eq!(engines_fitting_cells(Target::Ice40, cells(3201)), 2);
        assert_eq!(engines_fitting_cells(Target::Ice40, cells(3202)), 1);
        // ECP5: cells and flip-flops each limited; the flip-flops bind here.
        let e = Packed {
            cells: 6000,
            ffs: 10_000,
        };
        // cells: (71094 − 740) / 6000 = 11.7; FFs: 71094 / 10000 = 7.1.
        assert_eq!(engines_fitting_cells(Target::Ecp5, e), 7);
        assert!(e.fits(Target::Ecp5));
        assert!(!Packed {
            cells: 83_641,
            ffs: 0
        }
        .fits(Target::Ecp5));
    }

    #[test]
    fn reads_the_packers_utilisation() {
        let log = "Info: Device utilisation:\nInfo: \t          TRELLIS_IO:      17/    365     4%\n\
                   Info: \t          TRELLIS_FF:      24/  83640     0%\n\
                   Info: \t        TRELLIS_COMB:      52/  83640     0%\n\nInfo: Program finished normally.\n";
        let u = parse_utilisation(log);
        assert_eq!(
            Packed::from_utilisation(Target::Ecp5, &u),
            Some(Packed { cells: 52, ffs: 24 })
        );
        assert_eq!(Packed::from_utilisation(Target::Ice40, &u), None);
        assert_eq!(Packed::from_utilisation(Target::Xc7, &u), None);
    }
}
