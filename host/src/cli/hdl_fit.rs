//! `propnet hdl --fit` and `--board`: the fit report (every candidate the cost model
//! ranked, the syntheses, the whole-device place and route) and the board build (shell,
//! PLL, bitstream, UART throughput limit).

use super::hdl::{target_name, HdlArgs, ToolLog};
use anyhow::Context;
use propnet_hdl::fit::{fit, Candidate, FitOptions, Packed};
use propnet_hdl::shell::build::{build_board, default_clock_mhz, BoardReport};
use propnet_hdl::shell::{frame, Board, BoardDesign, Clock};
use propnet_hdl::synth::{Target, Utilisation};
use propnet_hdl::{Design, Options};
use propnet_netlist::ValidNetlist;

/// Prints nextpnr's utilisation lines.
pub(super) fn print_utilisation(u: &[Utilisation]) {
    for x in u {
        println!(
            "  {:>14}: {:>6} / {:<6} {:>5.1} %",
            x.cell,
            x.used,
            x.available,
            100.0 * x.used as f64 / x.available.max(1) as f64
        );
    }
}

/// Runs the fit for `target`; returns the chosen options and the placed Fmax.
pub(super) fn run_fit(
    net: &ValidNetlist,
    target: Target,
    args: &HdlArgs,
    prefix: String,
    lengths: &[u32],
) -> anyhow::Result<(Options, Option<f64>)> {
    let fo = FitOptions {
        prefix,
        lengths: lengths.to_vec(),
        synth_candidates: args.fit_candidates as usize,
        stages: dedup(&args.fit_stages),
        pnr: args.pnr(),
    };
    let dir = args.out.join(format!("fit-{}", target_name(target)));
    let mut log = ToolLog::new();
    let rep = fit(net, net.info(), target, &dir, &fo, &mut |w| log.before(w))?;
    log.finish();
    print_candidates(target, &rep.candidates, &fo);
    for (e, why) in &rep.tried {
        println!("  whole device with {e} engines: {why}");
    }
    let o = &rep.chosen;
    let r = &rep.report;
    println!(
        "chosen: {} × (S={}, K={}, C={}): {} LUTs, {} FFs, {} DSPs{} on the {}",
        o.engines,
        o.rng_stages,
        o.banks,
        o.cslow,
        r.luts,
        r.ffs,
        r.dsps,
        r.packed
            .map(|p| format!(", {}", cells_text(p)))
            .unwrap_or_default(),
        target.device()
    );
    match (r.fmax_mhz, rep.playouts_per_s()) {
        (Some(f), Some(p)) => println!(
            "  whole-device place and route: Fmax {f:.2} MHz ({}, target {} MHz); {:.2} cycles/playout → {p:.0} playouts/s per device",
            args.pnr().device(target),
            args.pnr_mhz,
            rep.cycles_per_playout
        ),
        _ => println!("  not placed (no place and route for this family here): area only"),
    }
    print_utilisation(&r.utilisation);
    Ok((o.clone(), r.fmax_mhz))
}

/// `values` without repeats, in their order.
fn dedup(values: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for &v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// Packed cells in words (`5229 cells` or `52 cells + 24 FFs`).
pub(super) fn cells_text(p: Packed) -> String {
    if p.ffs > 0 {
        format!("{} cells + {} FFs packed", p.cells, p.ffs)
    } else {
        format!("{} logic cells packed", p.cells)
    }
}

/// Prints the fit's candidate table: model figures and, where synthesized, the real ones.
fn print_candidates(target: Target, cands: &[Candidate], fo: &FitOptions) {
    println!(
        "fit for the {} ({} logic cells; model: area from one-engine syntheses + {} LUT4 per extra Threefry pipeline, \
         in cells at the calibration's packed cells per LUT; Fmax from measured engines):",
        target.device(),
        target.device_luts(),
        propnet_hdl::fit::threefry_luts(target, 10)
    );
    println!("  S  K  C  cycles/playout  model LUTs  model cells  model MHz  model engines  model playouts/s  synth LUTs/FFs  packed cells  engines");
    let dash = || "-".to_string();
    for c in cands {
        println!(
            "  {:>2} {:>2} {:>2} {:>15.2} {:>11} {:>12} {:>10.1} {:>14} {:>17.0} {:>15} {:>13} {:>8}",
            c.stages,
            c.banks,
            c.cslow,
            c.cycles_per_playout,
            c.model_luts,
            c.model_cells,
            c.model_fmax,
            c.model_engines,
            c.model_rate(),
            c.synth.map(|(l, f)| format!("{l}/{f}")).unwrap_or_else(dash),
            c.packed.map(|p| p.cells.to_string()).unwrap_or_else(dash),
            c.engines.map(|e| e.to_string()).unwrap_or_else(dash)
        );
    }
    let synthesized = cands.iter().filter(|c| c.synth.is_some()).count();
    println!(
        "  synthesized: {synthesized} of {} shapes (--fit-candidates {} beyond the calibrations); \
         not tried: S other than {:?} (--fit-stages)",
        cands.len(),
        fo.synth_candidates,
        fo.stages
    );
}

/// `--board`: the design with the shell, built for `board`; one retry at a lower clock
/// when timing fails and no clock was given.
pub(super) fn build_for_board(
    design: Design,
    board: Board,
    args: &HdlArgs,
    fitted_fmax: Option<f64>,
    lengths: &[u32],
) -> anyhow::Result<()> {
    let want = args
        .clock_mhz
        .unwrap_or_else(|| default_clock_mhz(board, fitted_fmax));
    let dir = args.out.join(format!("board-{}", board.name()));
    let mut rep = build_once(&design, board, want, args, &dir)?;
    if let (None, Some(f), false) = (args.clock_mhz, rep.1.fmax_mhz, rep.1.timing_met()) {
        println!(
            "timing not met at {:.2} MHz (Fmax {f:.2} MHz): rebuilding at the PLL setting below {:.2} MHz",
            rep.1.clock_mhz,
            0.97 * f
        );
        rep = build_once(&design, board, 0.97 * f, args, &dir)?;
    }
    let (bd, r) = rep;
    print_board(&bd, &r, lengths);
    if r.fmax_mhz.is_some() && !r.timing_met() {
        anyhow::bail!(
            "the {} build does not meet its {:.2} MHz clock (Fmax {:.2} MHz); give a lower --clock-mhz",
            board.name(),
            r.clock_mhz,
            r.fmax_mhz.unwrap_or(0.0)
        );
    }
    Ok(())
}

fn build_once(
    design: &Design,
    board: Board,
    want_mhz: f64,
    args: &HdlArgs,
    dir: &std::path::Path,
) -> anyhow::Result<(BoardDesign, BoardReport)> {
    let clock = Clock::for_board(board, want_mhz)?;
    let bd = BoardDesign::new(design.clone(), board, clock, args.baud)?;
    let mut log = ToolLog::new();
    let r = build_board(&bd, dir, args.ecp5_speed(), &mut |w| log.before(w))
        .with_context(|| format!("building for the {} board", board.name()))?;
    log.finish();
    Ok((bd, r))
}

fn print_board(bd: &BoardDesign, r: &BoardReport, lengths: &[u32]) {
    let i = &bd.design.info;
    println!(
        "board {} ({}): {} engine(s) + shell at {:.3} MHz ({}), UART {} baud ({} clocks per bit)",
        bd.board.name(),
        r.target.device(),
        i.engines,
        r.clock_mhz,
        match &bd.clock {
            Clock::Direct { .. } => "oscillator".to_string(),
            Clock::Ice40(p) => format!("SB_PLL40 DIVR={} DIVF={} DIVQ={}", p.divr, p.divf, p.divq),
            Clock::Ecp5(p) => format!(
                "EHXPLLL CLKI_DIV={} CLKFB_DIV={} CLKOP_DIV={}",
                p.clki_div, p.clkfb_div, p.clkop_div
            ),
        },
        bd.baud,
        bd.clocks_per_bit
    );
    println!(
        "  whole design: {} LUTs, {} FFs, {} DSPs; the shell alone: {} LUTs, {} FFs",
        r.luts, r.ffs, r.dsps, r.shell_luts, r.shell_ffs
    );
    match r.fmax_mhz {
        Some(f) => println!(
            "  Fmax {f:.2} MHz placed with the board's constraints ({} at {:.2} MHz)",
            if r.timing_met() {
                "meets its clock"
            } else {
                "FAILS its clock"
            },
            r.clock_mhz
        ),
        None => println!("  not placed"),
    }
    print_utilisation(&r.utilisation);
    match (&r.bitstream, &r.no_bitstream) {
        (Some(b), _) => println!("  bitstream: {}", b.display()),
        (None, Some(why)) => println!("  no bitstream: {why}"),
        (None, None) => {}
    }
    let cycles = propnet_hdl::engine::engine_cycles(lengths, i.rng_stages, i.banks, i.cslow) as f64
        / lengths.len().max(1) as f64;
    let engine_rate = f64::from(i.engines) * r.clock_mhz * 1e6 / cycles;
    let run_bytes = frame::bytes_per_run(i.latches.div_ceil(32), i.roles, 1);
    let runs = f64::from(bd.baud) / 10.0 / run_bytes as f64;
    println!(
        "  link: {run_bytes} bytes per run (one start state, one status poll) → {runs:.0} runs/s at {} baud; \
         the engines make {engine_rate:.0} playouts/s, so runs of ≥ {:.0} playouts keep them busy",
        bd.baud,
        (engine_rate / runs).ceil()
    );
}
