//! `--fit`: chooses the RNG stages `S`, banks `K`, C-slow threads `C` and the number of
//! engines for a device to maximize playouts per second per device, first by a cost model
//! and then by real synthesis, and places and routes the whole multi-engine design.
//!
//! 1. **Model.** For every candidate `(S, K, C)` (`S` in [`FitOptions::stages`]), cycles
//!    per playout are exact ([`crate::engine::engine_cycles`] over sample playout lengths).
//!    Area is one real synthesis of the smallest engine (`S`, one bank, one thread) per `S`
//!    plus, per extra RNG pipeline (`K·C' − 1` of them per role, `C' = C` with two or more
//!    banks), the measured area of one Threefry pipeline ([`threefry_luts`]), and per C-slow
//!    thread the state and cut registers; LUTs become logic cells at the calibration's
//!    packed cells per LUT ([`crate::pack`]). Fmax is a table of measured single-engine
//!    figures ([`model_fmax_mhz`]; BENCHMARKS.md). Engines = what fits [`cell_fill`] of
//!    the device's packed cells (else [`FILL`] of its LUTs) after the shell. Score =
//!    engines × Fmax / cycles per playout.
//! 2. **Synthesis.** The best [`Options`] by the model are synthesized as one
//!    engine (yosys) and packed (nextpnr `--pack-only`); their packed cells give the engine
//!    count ([`engines_fitting_cells`]); the best of those is generated with that many
//!    engines, synthesized (the engine once, its hierarchy kept) and placed and routed as a
//!    whole (nextpnr); a design that does not pack into the device or does not place is
//!    retried with one engine fewer.
//!
//! The report lists every candidate with its model figures and, for those synthesized or
//! placed, the measured ones.

use crate::engine::engine_cycles;
pub use crate::pack::{cell_fill, engines_fitting_cells, Packed, FILL, SHELL_CELLS};
use crate::synth::{placer, synthesize_with_progress, PnrOptions, SynthReport, Target};
use crate::{generate, Error, Options};
use propnet_netlist::{Netlist, NetlistInfo};
use std::path::{Path, PathBuf};

/// LUT4 of one Threefry-2x32-20 pipeline (word 0) with `stages` stages, measured with
/// yosys 0.23 on the module alone (`synth_ice40` / `synth_ecp5`, CCU2C counted as 2).
pub fn threefry_luts(target: Target, stages: u32) -> u64 {
    match (target, stages) {
        (Target::Ice40, 5) => 1530,
        (Target::Ice40, 10) => 1560,
        (Target::Ice40, _) => 1620,
        (Target::Ecp5, 5) => 1600,
        (Target::Ecp5, 10) => 1650,
        (Target::Ecp5, _) => 1700,
        (Target::Xc7, _) => 900,
    }
}

/// The model's single-engine Fmax (MHz) for `stages`, `cslow` on `target`, from the placed
/// engines of BENCHMARKS.md ("FPGA engine"): C-slow 2 and one Threefry round per stage
/// clock highest; roles of more than [`crate::chooser::GROUPED_ABOVE_MOVES`] legal entries
/// (the group-wise chooser with its multiplier) halve it; every bank past two costs 5 %.
pub fn model_fmax_mhz(target: Target, stages: u32, banks: u32, cslow: u32, grouped: bool) -> f64 {
    let base = match (target, stages >= 20, cslow) {
        (Target::Ice40, false, 1) => 55.0,
        (Target::Ice40, false, _) => 68.0,
        (Target::Ice40, true, 1) => 52.0,
        (Target::Ice40, true, _) => 85.0,
        (_, false, 1) => 85.0,
        (_, false, _) => 90.0,
        (_, true, 1) => 80.0,
        (_, true, _) => 100.0,
    };
    let grouped = if grouped { 0.5 } else { 1.0 };
    base * grouped * 0.95f64.powi(banks.saturating_sub(2) as i32)
}

/// One candidate engine shape and what is known about it.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// RNG stages.
    pub stages: u32,
    /// RNG banks per role.
    pub banks: u32,
    /// C-slow threads.
    pub cslow: u32,
    /// Exact cycles per playout over the sample lengths.
    pub cycles_per_playout: f64,
    /// Model: LUTs of one engine.
    pub model_luts: u64,
    /// Model: packed logic cells of one engine (the LUTs at the calibration's cells per
    /// LUT; the LUTs where nothing was packed).
    pub model_cells: u64,
    /// Model: Fmax, MHz.
    pub model_fmax: f64,
    /// Model: engines that fit.
    pub model_engines: u64,
    /// Synthesized one-engine LUTs and FFs, when synthesized.
    pub synth: Option<(u64, u64)>,
    /// Packed cells of the synthesized one-engine design, when packed.
    pub packed: Option<Packed>,
    /// Engines that fit by the synthesized area.
    pub engines: Option<u64>,
}

impl Candidate {
    /// The model's playouts per second per device.
    pub fn model_rate(&self) -> f64 {
        self.model_engines as f64 * self.model_fmax * 1e6 / self.cycles_per_playout
    }
    /// Playouts per second per device by the synthesized area and the model's Fmax.
    pub fn synth_rate(&self) -> Option<f64> {
        self.engines
            .map(|e| e as f64 * self.model_fmax * 1e6 / self.cycles_per_playout)
    }
}

/// The result of a fit.
#[derive(Clone, Debug)]
pub struct FitReport {
    /// Every candidate, best model rate first.
    pub candidates: Vec<Candidate>,
    /// The options chosen (engines included).
    pub chosen: Options,
    /// Cycles per playout of the chosen shape.
    pub cycles_per_playout: f64,
    /// Whole-device synthesis (and place and route) of the chosen design.
    pub report: SynthReport,
    /// Engine counts tried for the whole device, with why each was given up.
    pub tried: Vec<(u32, String)>,
}

impl FitReport {
    /// Measured playouts per second of the whole device (placed Fmax), if placed.
    pub fn playouts_per_s(&self) -> Option<f64> {
        self.report
            .fmax_mhz
            .map(|f| f * 1e6 / self.cycles_per_playout * f64::from(self.chosen.engines))
    }
}

/// Engines of `luts` LUTs and `ffs` FFs each that fit [`FILL`] of `target`'s device after the
/// shell (at least 0), where nothing packs the design (xc7; ECP5 without nextpnr-ecp5).
/// iCE40 logic cells hold one LUT and one FF, so there the larger counts.
pub fn engines_fitting(target: Target, luts: u64, ffs: u64) -> u64 {
    let room = (target.device_luts() as f64 * FILL) - SHELL_CELLS as f64;
    let per = match target {
        Target::Ice40 => luts.max(ffs),
        _ => luts,
    }
    .max(1) as f64;
    let ff_room = target.device_ffs() as f64 * FILL;
    (room / per)
        .min(ff_room / ffs.max(1) as f64)
        .max(0.0)
        .floor() as u64
}

/// Settings of a fit.
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// Module prefix of the designs.
    pub prefix: String,
    /// Sample playout lengths (joint moves; e.g. reference playouts).
    pub lengths: Vec<u32>,
    /// Candidates synthesized as one engine (the best by the model), at least 1.
    pub synth_candidates: usize,
    /// RNG stage counts tried (each costs one calibration synthesis); default 10 and 20.
    pub stages: Vec<u32>,
    /// Place and route settings.
    pub pnr: PnrOptions,
}

/// Runs the fit for `target` (see the module docs), writing every synthesis into its own
/// folder under `dir`; `before_tool` is called before each external tool run.
///
/// # Errors
/// Tool errors; [`Error::Unsupported`] when no engine fits the device.
pub fn fit(
    net: &Netlist,
    info: &NetlistInfo,
    target: Target,
    dir: &Path,
    fo: &FitOptions,
    before_tool: &mut dyn FnMut(&str),
) -> Result<FitReport, Error> {
    let grouped = net
        .roles
        .iter()
        .any(|r| r.legal.len() > crate::chooser::GROUPED_ABOVE_MOVES);
    let mut f = Fit {
        net,
        info,
        target,
        dir,
        fo,
        before_tool,
        singles: Vec::new(),
    };
    let base = f.calibrate()?;
    let mut cands = model_candidates(net, target, &fo.lengths, &base, grouped);
    // The calibrations are the smallest engines: when none fits, none of the others does.
    let calibrated: Vec<u64> = cands.iter().filter_map(|c| c.engines).collect();
    if !calibrated.is_empty() && calibrated.iter().all(|&e| e == 0) {
        return Err(Error::Unsupported(nothing_fits(target, &cands)));
    }
    cands.sort_by(|a, b| b.model_rate().total_cmp(&a.model_rate()));
    f.synthesize_best(&mut cands)?;
    let ranked = ranked_by_synth_rate(&cands);
    if ranked.is_empty() {
        return Err(Error::Unsupported(nothing_fits(target, &cands)));
    }
    f.place_ranked(cands, &ranked)
}

/// Whole-device place-and-route attempts of a fit, over all shapes.
const MAX_DEVICE_TRIES: usize = 4;

/// A one-engine synthesis of shape `(S, K, C)`: its report and its folder.
type Single = ((u32, u32, u32), SynthReport, PathBuf);

/// The context of one fit: what [`fit`] was given and the one-engine syntheses made so far.
struct Fit<'a> {
    net: &'a Netlist,
    info: &'a NetlistInfo,
    target: Target,
    dir: &'a Path,
    fo: &'a FitOptions,
    before_tool: &'a mut dyn FnMut(&str),
    /// One-engine syntheses by shape (S, K, C), kept for the whole-device step.
    singles: Vec<Single>,
}

impl Fit<'_> {
    /// The design options of `engines` engines of shape (`stages`, `banks`, `cslow`).
    fn design(&self, stages: u32, banks: u32, cslow: u32, engines: u32) -> Options {
        Options {
            prefix: self.fo.prefix.clone(),
            engines,
            rng_stages: stages,
            banks,
            cslow,
            records: 0,
        }
    }

    /// Synthesizes the one-engine design `o` in folder `tag` under the fit's folder, or
    /// returns the synthesis of its shape made before.
    fn synth_one(&mut self, o: &Options, tag: &str) -> Result<SynthReport, Error> {
        let shape = (o.rng_stages, o.banks, o.cslow);
        if let Some((_, r, _)) = self.singles.iter().find(|s| s.0 == shape) {
            return Ok(r.clone());
        }
        let d = generate(self.net, self.info, o)?;
        let at = self.dir.join(tag);
        let r =
            crate::synth::synthesize_only(&d, &at, self.target, &self.fo.pnr, self.before_tool)?;
        self.singles.push((shape, r.clone(), at));
        Ok(r)
    }

    /// Calibration: synthesizes the smallest engine (one bank, one thread) per RNG stage
    /// count of the options.
    fn calibrate(&mut self) -> Result<Vec<Calibration>, Error> {
        let mut base = Vec::new();
        for &s in &self.fo.stages {
            let r = self.synth_one(&self.design(s, 1, 1, 1), &format!("calib-s{s}"))?;
            base.push(Calibration {
                stages: s,
                luts: r.luts,
                ffs: r.ffs,
                packed: r.packed,
            });
        }
        Ok(base)
    }

    /// Synthesizes the best candidates by the model (at least one; `cands` sorted by model
    /// rate) as one engine and records their area and the engines that fit.
    fn synthesize_best(&mut self, cands: &mut [Candidate]) -> Result<(), Error> {
        let target = self.target;
        for c in cands.iter_mut().take(self.fo.synth_candidates.max(1)) {
            // A shape synthesized already (its calibration) is not synthesized again.
            let tag = format!("one-s{}-k{}-c{}", c.stages, c.banks, c.cslow);
            let r = self.synth_one(&self.design(c.stages, c.banks, c.cslow, 1), &tag)?;
            c.synth = Some((r.luts, r.ffs));
            c.packed = r.packed;
            c.engines = Some(match r.packed {
                Some(p) => engines_fitting_cells(target, p),
                None => engines_fitting(target, r.luts, r.ffs),
            });
        }
        Ok(())
    }

    /// Places the `ranked` shapes on the whole device, each with its engine count, then
    /// fewer, then the next shape, up to [`MAX_DEVICE_TRIES`] attempts; the first that fits
    /// (and has a timing report where a placer exists) is the fit's result.
    fn place_ranked(
        &mut self,
        cands: Vec<Candidate>,
        ranked: &[Candidate],
    ) -> Result<FitReport, Error> {
        let mut tried = Vec::new();
        for best in ranked {
            let mut engines = best.engines.unwrap_or(1) as u32;
            while engines >= 1 && tried.len() < MAX_DEVICE_TRIES {
                let o = self.design(best.stages, best.banks, best.cslow, engines);
                let why = match self.place_device(&o) {
                    Ok(r)
                        if r.fits
                            && (r.fmax_mhz.is_some()
                                || placer(self.target, &self.fo.pnr).is_none()) =>
                    {
                        return Ok(FitReport {
                            candidates: cands,
                            cycles_per_playout: best.cycles_per_playout,
                            chosen: o,
                            report: r,
                            tried,
                        });
                    }
                    Ok(r) if !r.fits => format!("{}: does not fit", area_text(&r)),
                    Ok(_) => "placed without a timing report".to_string(),
                    Err(e) => format!(
                        "place and route failed: {}",
                        crate::tools::tail(&e.to_string(), 3)
                    ),
                };
                let shape = format!("(S={}, K={}, C={}) {why}", o.rng_stages, o.banks, o.cslow);
                tried.push((engines, shape));
                engines -= 1;
            }
        }
        Err(Error::Unsupported(format!(
            "no whole-device design placed on the {}: {}",
            self.target.device(),
            tried
                .iter()
                .map(|(e, w)| format!("{e} engines {w}"))
                .collect::<Vec<_>>()
                .join("; ")
        )))
    }

    /// One whole-device attempt: `o` generated, synthesized and placed in its own folder; a
    /// one-engine design is placed from its one-engine synthesis when there is one.
    fn place_device(&mut self, o: &Options) -> Result<SynthReport, Error> {
        let d = generate(self.net, self.info, o)?;
        let shape = (o.rng_stages, o.banks, o.cslow);
        match self.singles.iter().find(|s| s.0 == shape && o.engines == 1) {
            Some((_, r, at)) => {
                let mut r = r.clone();
                crate::synth::place_synthesized(&mut r, &d, at, &self.fo.pnr, self.before_tool)?;
                Ok(r)
            }
            None => {
                let tag = format!(
                    "device-{}x-s{}-k{}-c{}",
                    o.engines, shape.0, shape.1, shape.2
                );
                synthesize_with_progress(
                    &d,
                    &self.dir.join(tag),
                    self.target,
                    &self.fo.pnr,
                    self.before_tool,
                )
            }
        }
    }
}

/// The synthesized candidates that fit at least one engine, best rate by the synthesized
/// area first.
fn ranked_by_synth_rate(cands: &[Candidate]) -> Vec<Candidate> {
    let mut ranked: Vec<Candidate> = cands
        .iter()
        .filter(|c| c.engines.is_some_and(|e| e > 0))
        .cloned()
        .collect();
    ranked.sort_by(|a, b| {
        b.synth_rate()
            .unwrap_or(0.0)
            .total_cmp(&a.synth_rate().unwrap_or(0.0))
    });
    ranked
}

/// A calibration synthesis: the one-bank, one-thread engine of `stages` RNG stages.
#[derive(Copy, Clone, Debug)]
struct Calibration {
    stages: u32,
    luts: u64,
    ffs: u64,
    packed: Option<Packed>,
}

/// The area of a synthesis in words: LUTs, FFs and, when packed, the packed cells.
fn area_text(r: &SynthReport) -> String {
    match r.packed {
        Some(p) if p.ffs > 0 => format!(
            "{} LUTs, {} FFs, packed {} cells + {} FFs of {}",
            r.luts,
            r.ffs,
            p.cells,
            p.ffs,
            r.target.device_luts()
        ),
        Some(p) => format!(
            "{} LUTs, {} FFs, packed {} logic cells of {}",
            r.luts,
            r.ffs,
            p.cells,
            r.target.device_luts()
        ),
        None => format!("{} LUTs, {} FFs", r.luts, r.ffs),
    }
}

/// Why no candidate fits: the smallest synthesized engine's real area.
fn nothing_fits(target: Target, cands: &[Candidate]) -> String {
    let smallest = cands
        .iter()
        .filter_map(|c| Some((c, c.synth?)))
        .min_by_key(|(c, (l, _))| c.packed.map(|p| p.cells).unwrap_or(*l));
    match smallest {
        Some((c, (luts, ffs))) => format!(
            "no engine shape fits the {} ({:.0} % of its {} logic cells after a {}-cell shell): \
             the smallest synthesized, S={}, K={}, C={}, is {luts} LUTs, {ffs} FFs{}",
            target.device(),
            cell_fill(target) * 100.0,
            target.device_luts(),
            SHELL_CELLS,
            c.stages,
            c.banks,
            c.cslow,
            c.packed
                .map(|p| format!(", {} packed logic cells", p.cells))
                .unwrap_or_default()
        ),
        None => format!("no engine shape fits the {}", target.device()),
    }
}

/// The model figures of every `(S, K, C)` candidate (S of the calibrations, K ∈ 1..=4,
/// C ∈ {1, 2}), from the calibration syntheses `base` (one-bank, one-thread engines).
fn model_candidates(
    net: &Netlist,
    target: Target,
    lengths: &[u32],
    base: &[Calibration],
    grouped: bool,
) -> Vec<Candidate> {
    let roles = net.roles.len() as u64;
    let n = lengths.len().max(1) as f64;
    let mut out = Vec::new();
    for cal in base {
        let stages = cal.stages;
        for banks in 1..=4u32 {
            for cslow in 1..=2u32 {
                let pipes = u64::from(if banks >= 2 { banks * cslow } else { banks });
                let rng = threefry_luts(target, stages);
                let model_luts = cal.luts + (pipes - 1) * roles * rng;
                // C-slow: a second copy of the state, the cut and the contexts.
                let extra_ff = if cslow == 2 {
                    net.latches.len() as u64 * 2 + 200
                } else {
                    0
                };
                // A pipeline's registers: 64 bits per stage and the key-injection words.
                let model_ffs =
                    cal.ffs + (pipes - 1) * roles * (64 * u64::from(stages) + 300) + extra_ff;
                let cycles = engine_cycles(lengths, stages, banks, cslow) as f64 / n;
                let (model_cells, model_engines) = match cal.packed {
                    Some(p) => {
                        let per_lut = p.cells as f64 / cal.luts.max(1) as f64;
                        let cells = (model_luts as f64 * per_lut).round() as u64;
                        let ffs = if p.ffs > 0 { model_ffs } else { 0 };
                        (cells, engines_fitting_cells(target, Packed { cells, ffs }))
                    }
                    None => (model_luts, engines_fitting(target, model_luts, model_ffs)),
                };
                // The calibration shape itself is synthesized already.
                let calibration = banks == 1 && cslow == 1;
                out.push(Candidate {
                    stages,
                    banks,
                    cslow,
                    cycles_per_playout: cycles,
                    model_luts,
                    model_cells,
                    model_fmax: model_fmax_mhz(target, stages, banks, cslow, grouped),
                    model_engines,
                    synth: calibration.then_some((cal.luts, cal.ffs)),
                    packed: cal.packed.filter(|_| calibration),
                    engines: calibration.then(|| match cal.packed {
                        Some(p) => engines_fitting_cells(target, p),
                        None => engines_fitting(target, cal.luts, cal.ffs),
                    }),
                });
            }
        }
    }
    out
}
