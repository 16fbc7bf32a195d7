//! `propnet player`: a GGP protocol player over HTTP (see `propnet_ggp`).

use super::args::{real, seconds, whole};
use anyhow::{bail, Context};
use propnet_compiler::ground::Budget as GroundBudget;
use propnet_ggp::{Gamer, PlayerOptions, DEFAULT_MARGIN};
use propnet_host::select::{BackendKind, BackendOptions, BackendRequest, Backends};
use propnet_mcts::MctsParams;
use std::io::Write;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// Arguments of `propnet player`.
#[derive(clap::Args, Debug)]
pub struct PlayerArgs {
    /// TCP port (0: any free port; the chosen one is printed).
    #[arg(long, default_value_t = 9147)]
    pub port: u16,
    /// Address to listen on (loopback by default; `0.0.0.0` for every interface).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Name reported to INFO (a KIF symbol: letters, digits, `-`, `_`, `.`).
    #[arg(long, default_value = "propnet")]
    pub name: String,
    /// Playout backend of compiled games.
    #[arg(long, default_value = "cpu", value_parser = BackendKind::parse)]
    pub backend: BackendKind,
    /// The reply leaves this many milliseconds before the clock ends (0..=60000).
    #[arg(long, default_value_t = DEFAULT_MARGIN.as_millis() as u64, value_parser = whole::<u64>(0, 60_000))]
    pub margin_ms: u64,
    /// Write a JSON-lines log per match (and `player.jsonl`) into this folder.
    #[arg(long)]
    pub log_dir: Option<PathBuf>,
    /// Most ground atoms before the game goes to the interpreter fallback.
    #[arg(long, default_value_t = GroundBudget::default().max_atoms, value_parser = whole::<usize>(1, 1 << 40))]
    pub ground_atoms: usize,
    /// Most CPU seconds of grounding (past the start clock it goes on in the background while
    /// the interpreter plays; the player switches to the netlist when it is done).
    #[arg(long, default_value = "120", value_parser = seconds)]
    pub ground_seconds: f64,
    /// Part of the start clock (0..=1) to wait for the compiled game before starting
    /// with the interpreter.
    #[arg(long, default_value_t = 0.75, value_parser = real(0.0, 1.0))]
    pub compile_wait: f64,
    /// Answer forced moves (one legal move) at once instead of searching the clock.
    #[arg(long)]
    pub quick_forced: bool,
    /// Search at most this many milliseconds per PLAY (1..=3600000): the reply leaves then
    /// or at the clock's margin, whichever comes first. For time odds and benchmarks, e.g.
    /// `--move-ms 500` against a 5 s play clock; the start clock is used as usual.
    #[arg(long, value_parser = whole::<u64>(1, 3_600_000))]
    pub move_ms: Option<u64>,
    /// Search games that are sums of independent games (`propnet check --factors`) as one
    /// game. By default such a game is searched by one tree per factor.
    #[arg(long)]
    pub no_factoring: bool,
    /// Search seed.
    #[arg(long, default_value_t = MctsParams::default().seed)]
    pub seed: u64,
    #[command(flatten)]
    pub mcts: super::common::MctsFlags,
}

/// Checks the flags into player options.
fn options(args: &PlayerArgs) -> anyhow::Result<PlayerOptions> {
    if args.name.is_empty()
        || !args
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        bail!(
            "--name `{}`: use letters, digits, `-`, `_` and `.` only",
            args.name
        );
    }
    if args.margin_ms > 60_000 {
        bail!("--margin-ms {}: at most 60000", args.margin_ms);
    }
    if args.ground_atoms == 0 {
        bail!("--ground-atoms must be at least 1");
    }
    if !(0.0..=1.0).contains(&args.compile_wait) {
        bail!(
            "--compile-wait {}: must be between 0 and 1",
            args.compile_wait
        );
    }
    Ok(PlayerOptions {
        name: args.name.clone(),
        backend: BackendRequest::of(args.backend.clone()),
        backends: Arc::new(Backends {
            options: BackendOptions::default(),
        }),
        threads: args.mcts.threads,
        workers: args.mcts.workers,
        margin: Duration::from_millis(args.margin_ms),
        ground: GroundBudget {
            max_atoms: args.ground_atoms,
            max_time: Duration::from_secs_f64(args.ground_seconds),
            ..super::ground::budget()
        },
        mcts: args.mcts.params(args.seed),
        quick_forced: args.quick_forced,
        factoring: !args.no_factoring,
        move_time: args.move_ms.map(Duration::from_millis),
        compile_wait: args.compile_wait,
    })
}

/// Listens and plays until killed. Prints `listening on ADDR` (stdout) once bound.
pub fn run(args: PlayerArgs) -> anyhow::Result<()> {
    let opts = options(&args)?;
    let addr = SocketAddr::new(args.bind, args.port);
    let listener = TcpListener::bind(addr).with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr()?;
    let log = propnet_ggp::log::Log::new(args.log_dir.as_deref())
        .with_context(|| "cannot create the --log-dir folder".to_string())?;
    outln!("listening on {local}")?;
    std::io::stdout().flush()?;
    eprintln!(
        "[propnet player] {} on http://{local}, backend {}, margin {} ms{}",
        opts.name,
        opts.backend.kind,
        args.margin_ms,
        args.move_ms
            .map_or(String::new(), |t| format!(", at most {t} ms per move"))
    );
    let gamer = Arc::new(Gamer::new(opts, Arc::new(log)));
    propnet_ggp::serve_player(listener, gamer, Arc::new(AtomicBool::new(false)))?;
    Ok(())
}
