//! Runs a comparison: per game, every reasoner is prepared (compiled, built) once, checked
//! by the correctness gate when asked, then measured in `rounds` interleaved rounds
//! (A B C A B C …) so that drift of a shared machine hits all alike.
//!
//! The judge of the gate is the reference interpreter (GDL semantics directly, itself
//! byte-identical to the SWI-Prolog oracle on the corpus); the interpreter's own trace is
//! judged by the scalar netlist. Built-in reasoners trace through the same evaluation they
//! are measured on ([`propnet_runtime::net_trace`]); an external one through its trace
//! command.

use super::external::ExternalCommand;
use super::reasoner::Reasoner;
use super::report::{Row, Status, Verification};
use super::verify::{verify, Verdict, VerifyError};
use indicatif::ProgressBar;
use propnet_compiler::gdl::Program;
use propnet_compiler::interp::trace::{trace, InterpEngine, TraceEngine, TraceOptions};
use propnet_compiler::interp::{Interp, InterpError};
use propnet_compiler::kif::SourceFile;
use propnet_netlist::ValidNetlist;
use propnet_runtime::backend::Backend;
use propnet_runtime::factory::{BackendFactory, BackendKind, BackendRequest};
use propnet_runtime::measure::{interp_sample, measure, MeasureError, Sample, Spread};
use propnet_runtime::net_trace::{NetTrace, TraceBackend};
use propnet_runtime::pipeline::{load_netlist, PipelineOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Settings of a comparison.
#[derive(Clone, Debug)]
pub struct Options {
    /// Reasoners, in table order.
    pub reasoners: Vec<Reasoner>,
    /// Seconds per sample.
    pub seconds: f64,
    /// Samples per reasoner and game.
    pub rounds: u32,
    /// Threads of `cpu:all`.
    pub threads: usize,
    /// Step limit per playout (built-in reasoners).
    pub max_steps: u32,
    /// RNG seed of the built-in reasoners' playouts and traces.
    pub seed: u64,
    /// The correctness gate, when asked.
    pub verify: Option<VerifyOptions>,
    /// An external run still going after this long is killed.
    pub kill_after: Duration,
    /// Folder for the externals' result files, logs and the gate's traces.
    pub work_dir: PathBuf,
    /// Builds the built-in reasoners' backends (and the CPU program's evaluator of the
    /// gate's traces).
    pub backends: std::sync::Arc<dyn BackendFactory>,
}

/// Settings of the correctness gate.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Joint moves each trace covers (whole playouts, at least this many).
    pub steps: u64,
    /// Trace commands of external reasoners, by reasoner name.
    pub trace_commands: Vec<ExternalCommand>,
}

/// What a game offers the reasoners: the front end's program, the netlist, timings.
struct Game {
    name: String,
    path: PathBuf,
    program: Result<(Program, f64), String>,
    /// The source text, to locate an interpreter error at its rule.
    source: Option<SourceFile>,
    net: Option<Result<(ValidNetlist, f64), String>>,
}

impl Game {
    fn load(path: &Path, need_net: bool) -> Game {
        let name = path.file_stem().map_or_else(
            || path.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        let t0 = Instant::now();
        let (program, source) =
            match propnet_runtime::pipeline::load_rules(path, "compare --reasoners interp") {
                Ok(g) => (Ok((g.program, t0.elapsed().as_secs_f64())), Some(g.source)),
                Err(e) => (Err(e.to_string()), None),
            };
        let net = need_net.then(|| {
            load_netlist(path, &PipelineOptions::default())
                .map(|(n, r)| (n, r.total_time().as_secs_f64()))
                .map_err(|e| e.to_string())
        });
        Game {
            name,
            path: path.to_path_buf(),
            program,
            source,
            net,
        }
    }

    fn interp(&self) -> Result<(Interp, f64), String> {
        let (program, load) = self.program.as_ref().map_err(Clone::clone)?;
        let t0 = Instant::now();
        let it =
            Interp::new(program).map_err(|e| format!("interpreter: {}", self.locate_interp(&e)))?;
        Ok((it, load + t0.elapsed().as_secs_f64()))
    }

    /// `e` as text; an interpreter error about a rule is located at the rule's
    /// `file:line:column` with its text.
    fn locate(&self, e: &MeasureError) -> String {
        match e {
            MeasureError::Interp(ie) => self.locate_interp(ie),
            _ => e.to_string(),
        }
    }

    fn locate_interp(&self, e: &InterpError) -> String {
        match &self.source {
            Some(src) if e.span().is_some() => src.locate(e.span(), e),
            _ => e.to_string(),
        }
    }

    fn net(&self) -> Result<&(ValidNetlist, f64), String> {
        match &self.net {
            Some(Ok(n)) => Ok(n),
            Some(Err(e)) => Err(e.clone()),
            None => Err("the netlist was not compiled".into()),
        }
    }
}

/// A reasoner ready to be measured.
enum Ready {
    Interp(Box<Interp>),
    /// The backend, its evaluation for traces, its natural batch.
    Backend(Box<dyn Backend>, TraceBackend, u64),
    External(ExternalCommand),
}

/// One reasoner on the current game: its row and, while it is still in the race, its
/// prepared state.
struct Entry {
    row: Row,
    ready: Option<Ready>,
    /// An external's per-round initialisation seconds (process time outside its own
    /// measurement).
    init: Vec<f64>,
}

fn once(seconds: f64) -> Option<Spread> {
    Spread::of(&[seconds])
}

/// Builds reasoner `r` for `game`; a failure is recorded in the row.
fn prepare(game: &Game, r: &Reasoner, opts: &Options) -> Entry {
    let mut row = Row::new(
        &game.name,
        &game.path.display().to_string(),
        &r.label(),
        r.kind(),
    );
    let ready = match r {
        Reasoner::Interp => game.interp().map(|(it, secs)| {
            row.description = "reference GDL interpreter".into();
            row.compile_seconds = once(secs);
            Ready::Interp(Box::new(it))
        }),
        Reasoner::External(cmd) => {
            row.description = cmd.argv.join(" ");
            Ok(Ready::External(cmd.clone()))
        }
        _ => build_backend(game, r, opts, &mut row),
    };
    match ready {
        Ok(ready) => Entry {
            row,
            ready: Some(ready),
            init: Vec::new(),
        },
        Err(e) => {
            row.status = match r {
                Reasoner::Gpu if game.net().is_ok() => Status::Absent(e),
                _ => Status::Failed(e),
            };
            Entry {
                row,
                ready: None,
                init: Vec::new(),
            }
        }
    }
}

fn build_backend(
    game: &Game,
    r: &Reasoner,
    opts: &Options,
    row: &mut Row,
) -> Result<Ready, String> {
    let (net, compile) = game.net()?;
    let (kind, trace_kind, threads) = match r {
        Reasoner::Reference => (BackendKind::Reference, TraceBackend::Reference, None),
        Reasoner::Gpu => (BackendKind::Gpu, TraceBackend::Gpu, None),
        Reasoner::Cpu(k) => (
            BackendKind::Cpu,
            TraceBackend::Cpu,
            Some(k.unwrap_or(opts.threads)),
        ),
        _ => unreachable!("only netlist reasoners have a backend"),
    };
    let req = BackendRequest {
        kind,
        threads: Some(threads.unwrap_or(1)),
        throughput: true,
    };
    let t0 = Instant::now();
    let sel = opts
        .backends
        .make(&req, net.clone())
        .map_err(|e| e.to_string())?;
    row.compile_seconds = once(compile + t0.elapsed().as_secs_f64());
    row.description = sel.backend.describe();
    row.threads = threads;
    let batch = sel.backend.natural_batch();
    Ok(Ready::Backend(sel.backend, trace_kind, batch))
}

/// `GAME-WHAT.EXT` with every character that is not a letter, digit, `-`, `_` or `.`
/// replaced by `-` (`cpu:1` → `cpu-1`), so work files have portable names.
fn file_name(game: &str, what: &str, ext: &str) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '-'
                }
            })
            .collect()
    };
    format!("{}-{}.{ext}", clean(game), clean(what))
}

/// A trace of whole playouts covering at least `steps` joint moves through `engine`
/// (SplitMix64 from the run's seed; playouts cut at the run's step limit).
fn trace_text<E: TraceEngine>(
    engine: &mut E,
    game: &str,
    opts: &Options,
    steps: u64,
) -> Result<String, String>
where
    E::Error: std::fmt::Display,
{
    let opts = TraceOptions {
        game: game.into(),
        playouts: steps.max(1),
        seed: opts.seed,
        max_steps: opts.max_steps.into(),
        stop_after: Some(steps.max(1)),
    };
    let mut text = String::new();
    trace(engine, &opts, |l| {
        text.push_str(l);
        text.push('\n');
    })
    .map_err(|e| e.to_string())?;
    Ok(text)
}

/// The gate for one entry: its trace (written to the work folder) judged by the
/// interpreter, or for the interpreter by the scalar netlist.
fn gate(game: &Game, e: &mut Entry, v: &VerifyOptions, opts: &Options) {
    let label = e.row.reasoner.clone();
    let file = opts.work_dir.join(file_name(&game.name, &label, "trace"));
    let traced: Result<String, String> = match &mut e.ready {
        None => return,
        Some(Ready::Interp(it)) => {
            let mut it = (**it).clone();
            InterpEngine::new(&mut it)
                .map_err(|x| x.to_string())
                .and_then(|mut en| trace_text(&mut en, &game.name, opts, v.steps))
        }
        Some(Ready::Backend(_, kind, _)) => game.net().and_then(|(net, _)| {
            let mut en =
                NetTrace::new(net, *kind, opts.backends.as_ref()).map_err(|x| x.to_string())?;
            trace_text(&mut en, &game.name, opts, v.steps)
        }),
        Some(Ready::External(_)) => {
            let Some(cmd) = v.trace_commands.iter().find(|c| c.name == label) else {
                e.row.verify = Verification::Unverified {
                    reason: format!("no trace command (--trace-cmd {label}=COMMAND)"),
                };
                return;
            };
            let log = file.with_extension("trace.log");
            cmd.run_trace(&game.path, &file, v.steps, opts.kill_after, &log)
                .map(|(t, _)| t)
                .map_err(|x| format!("trace command: {x}"))
        }
    };
    let text = match traced {
        Ok(t) => t,
        Err(msg) => {
            e.row.status = Status::Failed(msg);
            e.ready = None;
            return;
        }
    };
    let _ = propnet_output::write(&file, &text);
    judge(game, e, &text);
}

/// Replays `text` through the judge `engine` once it is built: `Err` when there is no
/// judge (it could not be built), else the replay's own result.
fn replay_with<E: TraceEngine>(
    engine: Result<E, String>,
    text: &str,
) -> Result<Result<Verdict, VerifyError>, String>
where
    E::Error: std::fmt::Display,
{
    let mut en = engine?;
    Ok(verify(&mut en, text))
}

/// Replays `text` through the judge and records the verdict in the entry.
fn judge(game: &Game, e: &mut Entry, text: &str) {
    let by_net = matches!(e.ready, Some(Ready::Interp(_)));
    let judged = if by_net {
        let en = game
            .net()
            .and_then(|(net, _)| NetTrace::reference(net).map_err(|x| x.to_string()));
        replay_with(en, text)
    } else {
        match game.interp() {
            Ok((mut it, _)) => {
                replay_with(InterpEngine::new(&mut it).map_err(|x| x.to_string()), text)
            }
            Err(x) => Err(x),
        }
    };
    let judge = if by_net { "netlist" } else { "interp" }.to_string();
    let out = |e: &mut Entry, status: Status, summary: String| {
        e.row.status = status;
        e.ready = None;
        Verification::Diverged {
            judge: judge.clone(),
            summary,
        }
    };
    e.row.verify = match judged {
        Err(reason) => Verification::Unverified {
            reason: format!("no judge: {reason}"),
        },
        Ok(Err(VerifyError::Malformed(m))) => {
            let msg = format!("unreadable trace: {m}");
            out(e, Status::Failed(msg.clone()), msg)
        }
        Ok(Err(x @ VerifyError::Engine { .. })) => Verification::Unverified {
            reason: format!("the judge ({judge}) failed: {x}"),
        },
        Ok(Ok(v)) if v.agrees() => Verification::Agreed {
            judge,
            positions: v.positions,
            joint_moves: v.joint_moves,
        },
        Ok(Ok(v)) => out(e, Status::Diverged(v.summary()), v.summary()),
    };
}

/// One sample of an entry; a failure takes it out of the race.
fn sample(game: &Game, e: &mut Entry, round: u32, opts: &Options) {
    let result: Result<(Sample, Option<f64>), String> = match &mut e.ready {
        None => return,
        Some(Ready::Interp(it)) => interp_sample(it, opts.seconds, opts.max_steps, opts.seed)
            .map(|s| (s, None))
            .map_err(|x| game.locate(&x)),
        Some(Ready::Backend(b, _, first)) => {
            let hidden = ProgressBar::hidden();
            measure(
                b.as_mut(),
                None,
                Some(opts.seconds),
                opts.seed,
                opts.max_steps,
                *first,
                &hidden,
            )
            .map(|t| (t.sample(), None))
            .map_err(|x| x.to_string())
        }
        Some(Ready::External(cmd)) => {
            let stem = format!("{}-round{}", cmd.name, round + 1);
            let out = opts.work_dir.join(file_name(&game.name, &stem, "result"));
            let log = opts.work_dir.join(file_name(&game.name, &stem, "log"));
            cmd.run_perf(&game.path, &out, opts.seconds, opts.kill_after, &log)
                .map(|(rep, cost)| {
                    e.row.version = rep.version.clone();
                    let measured = rep.milliseconds / 1000.0;
                    let s = Sample {
                        playouts: rep.rollouts,
                        states: rep.state_changes,
                        seconds: measured,
                        cpu_seconds: None,
                    };
                    (s, Some((cost.wall_seconds - measured).max(0.0)))
                })
                .map_err(|x| x.to_string())
        }
    };
    match result {
        Ok((s, init)) => {
            e.row.samples.push(s);
            e.init.extend(init);
        }
        Err(msg) => {
            e.row.status = Status::Failed(format!("round {}: {msg}", round + 1));
            e.ready = None;
        }
    }
}

/// Runs the comparison over `games` (see the module docs), advancing `bar` once per
/// sample and gate; returns one row per game and reasoner, speedups not yet set.
pub fn run(games: &[PathBuf], opts: &Options, bar: &ProgressBar) -> Vec<Row> {
    let need_net = opts.reasoners.iter().any(Reasoner::uses_netlist)
        || (opts.verify.is_some() && opts.reasoners.contains(&Reasoner::Interp));
    let mut rows = Vec::new();
    for path in games {
        bar.set_message(format!("{}: compiling", path.display()));
        let game = Game::load(path, need_net);
        let mut entries: Vec<Entry> = opts
            .reasoners
            .iter()
            .map(|r| prepare(&game, r, opts))
            .collect();
        if let Some(v) = &opts.verify {
            for e in &mut entries {
                bar.set_message(format!("{}: verifying {}", game.name, e.row.reasoner));
                gate(&game, e, v, opts);
                bar.inc(1);
            }
        }
        for round in 0..opts.rounds {
            for e in &mut entries {
                bar.set_message(format!(
                    "{}: {} (round {}/{})",
                    game.name,
                    e.row.reasoner,
                    round + 1,
                    opts.rounds
                ));
                sample(&game, e, round, opts);
                bar.inc(1);
            }
        }
        let gates = game.net().ok().map(|(n, _)| n.logic_gate_count());
        for mut e in entries {
            if !e.init.is_empty() {
                e.row.compile_seconds = Spread::of(&e.init);
            }
            let logic = (e.row.kind == "netlist").then_some(gates).flatten();
            e.row.summarise(logic);
            rows.push(e.row);
        }
    }
    rows
}

/// Progress steps of [`run`]: samples plus gates.
pub fn steps(games: usize, opts: &Options) -> u64 {
    let per = opts.rounds as usize + usize::from(opts.verify.is_some());
    (games * opts.reasoners.len() * per) as u64
}
