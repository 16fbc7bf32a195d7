//! `propnet trace`: random playouts in the oracle's JSON Lines trace format, through the
//! reference interpreter or the compiled netlist, byte-identical to the SWI-Prolog oracle's
//! step lines for the same seed.

use super::args::whole;
use super::common::MAX_STEPS;
use anyhow::Context;
use clap::ValueEnum as _;
use propnet_compiler::interp::trace::{trace, InterpEngine, TraceEngine, TraceOptions};
use propnet_compiler::interp::{Interp, InterpError};
use propnet_compiler::kif::SourceFile;
use propnet_runtime::net_trace::{NetTrace, TraceBackend};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Which reasoner computes a trace (or replays one, for `verify`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineKind {
    /// The reference GDL interpreter.
    Interp,
    /// The compiled netlist, evaluated as `--backend` says.
    Netlist,
}

/// `--engine` and `--backend`, shared by `trace` and `verify`.
#[derive(clap::Args, Debug, Clone)]
pub struct EngineArgs {
    /// The reasoner: the reference interpreter or the compiled netlist (the default when
    /// `--backend` is given, else `interp`).
    #[arg(
        long,
        value_enum,
        default_value_t = EngineKind::Interp,
        default_value_if("backend", clap::builder::ArgPredicate::IsPresent, "netlist")
    )]
    pub engine: EngineKind,
    /// With `--engine netlist`, the netlist's evaluation: `reference` (scalar, every gate),
    /// `cpu` (the CPU backend's compiled program and bit-parallel evaluator; the default) or
    /// `gpu` (lines from the CPU program, every state also run on the GPU playout kernel and,
    /// for GDL-II games, every transition and its percepts on the GPU step kernel, all
    /// compared; fails without an adapter). Implies `--engine netlist`; refused with an explicit
    /// `--engine interp`.
    #[arg(long, value_enum)]
    pub backend: Option<TraceEval>,
}

/// The netlist evaluation a trace runs on, as `--backend` names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceEval {
    /// Scalar evaluation of every gate.
    #[value(alias = "ref")]
    Reference,
    /// The CPU backend's compiled program and bit-parallel evaluator.
    Cpu,
    /// `cpu` lines, every state also checked on the GPU kernel.
    Gpu,
}

impl From<TraceEval> for TraceBackend {
    fn from(e: TraceEval) -> Self {
        match e {
            TraceEval::Reference => TraceBackend::Reference,
            TraceEval::Cpu => TraceBackend::Cpu,
            TraceEval::Gpu => TraceBackend::Gpu,
        }
    }
}

/// Arguments of `propnet trace`.
#[derive(clap::Args, Debug)]
pub struct TraceArgs {
    /// The game: GDL rules (.kif), or with `--engine netlist` also a netlist (.json) from
    /// `propnet compile`.
    pub game: PathBuf,
    /// Number of playouts.
    #[arg(long, default_value_t = 1, value_parser = whole::<u64>(1, 1 << 32))]
    pub playouts: u64,
    /// SplitMix64 seed of the move choices (one stream for the whole run).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Joint moves after which a playout is cut (last line gets `"truncated": true`).
    #[arg(long, default_value_t = 500, value_parser = whole::<u64>(1, MAX_STEPS))]
    pub max_steps: u64,
    /// Reasoner options.
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// The game's file name, as the oracle's header gives it.
pub fn game_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Runs `f` with the engine `args` names for `game`, built from the loaded game.
pub fn with_engine<T>(
    game: &Path,
    args: &EngineArgs,
    f: &mut dyn FnMut(&mut dyn DynEngine) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    match args.engine {
        EngineKind::Interp => {
            if let Some(b) = args.backend {
                anyhow::bail!(
                    "--backend {} evaluates a compiled netlist: drop --engine interp (the \
                     interpreter has no backends; --backend alone means --engine netlist)",
                    b.to_possible_value()
                        .map(|v| v.get_name().to_string())
                        .unwrap_or_default()
                );
            }
            let g = propnet_runtime::pipeline::load_rules(game, "--engine interp")?;
            for w in &g.warnings {
                eprintln!("{w}");
            }
            let mut run = || {
                let mut interp = Interp::new(&g.program)
                    .with_context(|| format!("cannot prepare {}", game.display()))?;
                let mut e = InterpEngine::new(&mut interp)
                    .with_context(|| format!("initial state of {}", game.display()))?;
                f(&mut e)
            };
            run().map_err(|e| locate_interp(e, &g.source))
        }
        EngineKind::Netlist => {
            let (net, _) = super::load(game, false)?;
            let backends = propnet_host::select::Backends::default();
            let eval = args.backend.unwrap_or(TraceEval::Cpu);
            let mut e = NetTrace::new(&net, eval.into(), &backends)?;
            eprintln!("engine: {}", e.describe());
            let out = f(&mut e)?;
            match e.gpu_checked() {
                None => {}
                Some((0, _)) => eprintln!(
                    "nothing checked on the GPU: the replay stopped before its first state"
                ),
                Some((states, steps)) => {
                    let steps = steps.map_or(String::new(), |n| {
                        format!(
                            ", {} and their percepts on the step kernel",
                            super::plural(n, "transition")
                        )
                    });
                    eprintln!(
                        "checked on the GPU, equal to the CPU program: {} on the playout kernel{steps}",
                        super::plural(states, "state")
                    );
                }
            }
            Ok(out)
        }
    }
}

/// `e` itself, or, when its chain holds an interpreter error about a rule (a goal value
/// out of range, terms built deeper than the limit), that error located at the rule's
/// `file:line:column` with the rule's text.
pub fn locate_interp(e: anyhow::Error, source: &SourceFile) -> anyhow::Error {
    let located = e
        .chain()
        .find_map(|c| c.downcast_ref::<InterpError>())
        .filter(|ie| ie.span().is_some_and(|s| s.end > s.start))
        .map(|ie| source.locate(ie.span(), ie));
    match located {
        Some(message) => anyhow::anyhow!(message),
        None => e,
    }
}

/// A [`TraceEngine`] with its error turned into `anyhow`, so one code path serves every
/// engine kind.
pub trait DynEngine {
    /// See [`TraceEngine::name`].
    fn name(&self) -> String;
    /// See [`TraceEngine::role_names`].
    fn role_names(&self) -> Vec<String>;
    /// See [`TraceEngine::restart`].
    fn restart(&mut self) -> anyhow::Result<()>;
    /// See [`TraceEngine::view`].
    fn view(&mut self) -> anyhow::Result<propnet_compiler::interp::trace::StepView>;
    /// See [`TraceEngine::play`].
    fn play(&mut self, joint: &[usize]) -> anyhow::Result<()>;
    /// See [`TraceEngine::finish`].
    fn finish(&mut self) -> anyhow::Result<()>;
    /// See [`TraceEngine::gdl2`].
    fn gdl2(&self) -> bool;
    /// See [`TraceEngine::percepts`].
    fn percepts(&mut self, joint: &[usize]) -> anyhow::Result<Vec<Vec<String>>>;
}

impl<E: TraceEngine> DynEngine for E
where
    E::Error: std::error::Error + Send + Sync + 'static,
{
    fn name(&self) -> String {
        TraceEngine::name(self)
    }
    fn role_names(&self) -> Vec<String> {
        TraceEngine::role_names(self)
    }
    fn restart(&mut self) -> anyhow::Result<()> {
        Ok(TraceEngine::restart(self)?)
    }
    fn view(&mut self) -> anyhow::Result<propnet_compiler::interp::trace::StepView> {
        Ok(TraceEngine::view(self)?)
    }
    fn play(&mut self, joint: &[usize]) -> anyhow::Result<()> {
        Ok(TraceEngine::play(self, joint)?)
    }
    fn finish(&mut self) -> anyhow::Result<()> {
        Ok(TraceEngine::finish(self)?)
    }
    fn gdl2(&self) -> bool {
        TraceEngine::gdl2(self)
    }
    fn percepts(&mut self, joint: &[usize]) -> anyhow::Result<Vec<Vec<String>>> {
        Ok(TraceEngine::percepts(self, joint)?)
    }
}

impl TraceEngine for &mut dyn DynEngine {
    type Error = anyhow::Error;
    fn name(&self) -> String {
        (**self).name()
    }
    fn role_names(&self) -> Vec<String> {
        (**self).role_names()
    }
    fn restart(&mut self) -> anyhow::Result<()> {
        (**self).restart()
    }
    fn view(&mut self) -> anyhow::Result<propnet_compiler::interp::trace::StepView> {
        (**self).view()
    }
    fn play(&mut self, joint: &[usize]) -> anyhow::Result<()> {
        (**self).play(joint)
    }
    fn finish(&mut self) -> anyhow::Result<()> {
        (**self).finish()
    }
    fn gdl2(&self) -> bool {
        (**self).gdl2()
    }
    fn percepts(&mut self, joint: &[usize]) -> anyhow::Result<Vec<Vec<String>>> {
        (**self).percepts(joint)
    }
}

/// Loads the game and writes the trace to stdout.
pub fn run(args: TraceArgs) -> anyhow::Result<()> {
    let opts = TraceOptions {
        game: game_name(&args.game),
        playouts: args.playouts,
        seed: args.seed,
        max_steps: args.max_steps,
        stop_after: None,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut io_err = None;
    with_engine(&args.game, &args.engine, &mut |mut e| {
        trace(&mut e, &opts, |line| {
            if io_err.is_none() {
                if let Err(err) = writeln!(out, "{line}") {
                    io_err = Some(err);
                }
            }
        })
        .with_context(|| format!("while tracing {}", args.game.display()))
    })?;
    if let Some(e) = io_err {
        return Err(super::out::wrap(e));
    }
    out.flush().map_err(super::out::wrap)?;
    Ok(())
}
