//! Runs a comparison: per game, every reasoner is prepared (compiled, built) once, checked
//! by the correctness gate when asked, then measured in `rounds` interleaved rounds
//! (A B C A B C …) so that drift of a shared machine hits all alike.
//!
//! The judge of the gate is the reference interpreter (GDL semantics directly, itself
//! byte-identical to the SWI-Prolog oracle on the corpus); the interpreter's own trace is
//! judged by the scalar netlist. Built-in reasoners trace through the same evaluation they
//! are measured on ([`propnet_runtime::net_trace`]); an external one through its trace
//! command.

use super::external::{check_rollouts, ExternalCommand, ExternalError, PerfReport, ProcessCost};
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
    /// Seconds per sample (of every reasoner when `playouts` is `None`, else of the
    /// external ones).
    pub seconds: f64,
    /// Playouts per sample of the built-in reasoners, instead of `seconds`: a fixed
    /// amount of work whose counts every run repeats.
    pub playouts: Option<u64>,
    /// The cells this run measures, game-major (`game * reasoners.len() + reasoner`):
    /// one shard's share ([`crate::shard::plan`]); `None`: every cell.
    pub cells: Option<Vec<bool>>,
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
    /// Its label, unique among the run's games ([`game_labels`]): rows, baselines and
    /// work files are keyed by it.
    name: String,
    path: PathBuf,
    program: Result<(Program, f64), String>,
    /// The source text, to locate an interpreter error at its rule.
    source: Option<SourceFile>,
    net: Option<Result<(ValidNetlist, f64), String>>,
}

impl Game {
    /// Loads the game at `path`, labelled `name` (unique among the run's games).
    fn load(path: &Path, name: String, need_net: bool) -> Game {
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

    /// Whether the initial state is terminal, by the interpreter; `None` when the game
    /// does not load or the interpreter fails.
    fn initial_terminal(&self) -> Option<bool> {
        let (mut it, _) = self.interp().ok()?;
        let mut en = InterpEngine::new(&mut it).ok()?;
        en.view().ok().map(|v| v.terminal)
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

/// `s` as a portable file name that no other text maps to: letters, digits, `-` and `_`
/// stay, as does `.` after the first character; every other byte is `%XX`
/// (`cpu:1` → `cpu%3a1`, `a/breakthrough` → `a%2fbreakthrough`).
pub fn slug(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, b) in s.bytes().enumerate() {
        let keep = b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || (b == b'.' && i > 0);
        if keep {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02x}"));
        }
    }
    out
}

/// The work file `WORK/GAME/WHAT.EXT` of game label `game` (each part a [`slug`], so
/// that distinct games and reasoners never share a file).
fn work_file(opts: &Options, game: &str, what: &str, ext: &str) -> PathBuf {
    opts.work_dir
        .join(slug(game))
        .join(format!("{}.{ext}", slug(what)))
}

/// One label per game, unique among `paths`: the file stem where no other game has it,
/// else the shortest trailing part of the path that tells it apart (`a/breakthrough`,
/// `b/breakthrough`), with the file's extension when only that differs; the same file
/// given again gets `#2`, `#3`, ….
pub fn game_labels(paths: &[PathBuf]) -> Vec<String> {
    let parts: Vec<(Vec<String>, String, String)> = paths.iter().map(|p| label_parts(p)).collect();
    // Per game: how many parent folders its label shows, and whether it shows the extension.
    let mut depth = vec![0usize; paths.len()];
    let mut with_ext = vec![false; paths.len()];
    let label = |i: usize, depth: &[usize], with_ext: &[bool]| {
        let (dirs, stem, name) = &parts[i];
        let mut l: Vec<&str> = dirs[dirs.len() - depth[i]..]
            .iter()
            .map(String::as_str)
            .collect();
        l.push(if with_ext[i] { name } else { stem });
        l.join("/")
    };
    loop {
        let labels: Vec<String> = (0..paths.len())
            .map(|i| label(i, &depth, &with_ext))
            .collect();
        let mut changed = false;
        for i in 0..paths.len() {
            if !labels
                .iter()
                .enumerate()
                .any(|(j, l)| j != i && *l == labels[i])
            {
                continue;
            }
            if depth[i] < parts[i].0.len() {
                depth[i] += 1;
                changed = true;
            } else if !with_ext[i] {
                with_ext[i] = true;
                changed = true;
            }
        }
        if !changed {
            return number_repeats(labels);
        }
    }
}

/// The folders (outermost first), stem and file name of the game file `p`, by its
/// canonical path when it has one.
fn label_parts(p: &Path) -> (Vec<String>, String, String) {
    let full = std::fs::canonicalize(p)
        .or_else(|_| std::path::absolute(p))
        .unwrap_or_else(|_| p.to_path_buf());
    let text = |s: &std::ffi::OsStr| s.to_string_lossy().into_owned();
    let name = full
        .file_name()
        .map_or_else(|| p.display().to_string(), text);
    let stem = full.file_stem().map_or_else(|| name.clone(), text);
    let dirs = full
        .parent()
        .map(|d| {
            d.components().fold(Vec::new(), |mut dirs, c| {
                match c {
                    std::path::Component::Normal(s) => dirs.push(text(s)),
                    std::path::Component::ParentDir => {
                        dirs.pop();
                    }
                    _ => {}
                }
                dirs
            })
        })
        .unwrap_or_default();
    (dirs, stem, name)
}

/// `labels` with every repeat of an earlier label suffixed `#2`, `#3`, … (a suffix that
/// itself repeats a label is counted on).
fn number_repeats(labels: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(labels.len());
    for l in labels {
        let mut candidate = l.clone();
        let mut n = 1;
        while out.contains(&candidate) {
            n += 1;
            candidate = format!("{l}#{n}");
        }
        out.push(candidate);
    }
    out
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
    let file = work_file(opts, &game.name, &label, "trace");
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
    let failed = |msg: String| (Status::Failed as fn(String) -> Status, msg);
    let result: Result<(Sample, Option<f64>), Failure> = match &mut e.ready {
        None => return,
        Some(Ready::Interp(it)) => {
            interp_sample(it, opts.seconds, opts.playouts, opts.max_steps, opts.seed)
                .map(|s| (s, None))
                .map_err(|x| failed(game.locate(&x)))
        }
        Some(Ready::Backend(b, _, first)) => {
            let hidden = ProgressBar::hidden();
            measure(
                b.as_mut(),
                opts.playouts,
                opts.playouts.is_none().then_some(opts.seconds),
                opts.seed,
                opts.max_steps,
                *first,
                &hidden,
            )
            .map(|t| (t.sample(), None))
            .map_err(|x| failed(x.to_string()))
        }
        Some(Ready::External(cmd)) => {
            let cmd = cmd.clone();
            external_sample(game, &cmd, round, opts)
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
                .map_err(|x| match x {
                    ExternalError::Implausible { .. } => (Status::Rejected as _, x.to_string()),
                    _ => failed(x.to_string()),
                })
        }
    };
    match result {
        Ok((s, init)) => {
            e.row.samples.push(s);
            e.init.extend(init);
        }
        Err((status, msg)) => {
            e.row.status = status(format!("round {}: {msg}", round + 1));
            e.ready = None;
        }
    }
}

/// Why a sample gave no figure: the row's status (failed, or rejected figures) and the
/// message.
type Failure = (fn(String) -> Status, String);

/// One performance run of the external `cmd` on `game` in round `round`, its figures
/// checked ([`check_perf`](super::external::check_perf) in the run,
/// [`check_rollouts`] against the game's initial state here).
///
/// # Errors
/// The run's [`ExternalError`]; [`ExternalError::Implausible`] for figures that cannot be
/// right.
fn external_sample(
    game: &Game,
    cmd: &ExternalCommand,
    round: u32,
    opts: &Options,
) -> Result<(PerfReport, ProcessCost), ExternalError> {
    let stem = format!("{}-round{}", cmd.name, round + 1);
    let out = work_file(opts, &game.name, &stem, "result");
    let log = work_file(opts, &game.name, &stem, "log");
    let (rep, cost) = cmd.run_perf(&game.path, &out, opts.seconds, opts.kill_after, &log)?;
    // Fewer state changes than rollouts is only possible from a terminal initial state;
    // the game is asked only then.
    let suspect = rep.state_changes < rep.rollouts;
    if let Some(terminal) = suspect.then(|| game.initial_terminal()).flatten() {
        check_rollouts(&rep, terminal).map_err(|message| ExternalError::Implausible {
            file: out.display().to_string(),
            message,
        })?;
    }
    Ok((rep, cost))
}

impl Options {
    /// Whether this run measures reasoner `r` on game `g` ([`Options::cells`]).
    fn measures(&self, g: usize, r: usize) -> bool {
        self.cells
            .as_ref()
            .is_none_or(|m| m.get(g * self.reasoners.len() + r) == Some(&true))
    }
}

/// Runs the comparison over `games` (see the module docs), advancing `bar` once per
/// sample and gate and calling `on_row` with each row as its game is done; returns one
/// row per cell measured ([`Options::cells`]), in game then reasoner order, speedups not
/// yet set. A game none of whose cells this run measures is not even compiled.
pub fn run(
    games: &[PathBuf],
    opts: &Options,
    bar: &ProgressBar,
    on_row: &mut dyn FnMut(&Row),
) -> Vec<Row> {
    let mut rows = Vec::new();
    for (g, (path, label)) in games.iter().zip(game_labels(games)).enumerate() {
        let mine: Vec<&Reasoner> = (opts.reasoners.iter().enumerate())
            .filter(|&(r, _)| opts.measures(g, r))
            .map(|(_, reasoner)| reasoner)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let need_net = mine.iter().any(|r| r.uses_netlist())
            || (opts.verify.is_some() && mine.contains(&&Reasoner::Interp));
        bar.set_message(format!("{}: compiling", path.display()));
        // A failure to create it shows when a work file is written.
        let _ = std::fs::create_dir_all(opts.work_dir.join(slug(&label)));
        let game = Game::load(path, label, need_net);
        let mut entries: Vec<Entry> = mine.iter().map(|r| prepare(&game, r, opts)).collect();
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
        let gates = game.net().ok().map(|(n, _)| n.playout_gate_count());
        for mut e in entries {
            if !e.init.is_empty() {
                e.row.compile_seconds = Spread::of(&e.init);
            }
            let logic = (e.row.kind == "netlist").then_some(gates).flatten();
            e.row.summarise(logic);
            on_row(&e.row);
            rows.push(e.row);
        }
    }
    rows
}

/// Progress steps of [`run`]: samples plus gates of the cells it measures.
pub fn steps(games: usize, opts: &Options) -> u64 {
    let per = opts.rounds as usize + usize::from(opts.verify.is_some());
    let cells = (0..games)
        .flat_map(|g| (0..opts.reasoners.len()).map(move |r| (g, r)))
        .filter(|&(g, r)| opts.measures(g, r))
        .count();
    (cells * per) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(paths: &[&str]) -> Vec<String> {
        let ps: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
        game_labels(&ps)
    }

    /// Issue #42 item 5: two games of the same file name in different folders get
    /// different labels, the shortest trailing path that tells them apart.
    #[test]
    fn games_of_the_same_name_get_distinct_labels() {
        assert_eq!(
            labels(&[
                "/g/a/breakthrough.kif",
                "/g/b/breakthrough.kif",
                "/g/tictactoe.kif"
            ]),
            ["a/breakthrough", "b/breakthrough", "tictactoe"]
        );
        assert_eq!(
            labels(&["/r/a/x.kif", "/r/b/x.kif", "/s/a/x.kif"]),
            ["r/a/x", "b/x", "s/a/x"]
        );
        assert_eq!(labels(&["/g/x.kif", "/g/x.gdl"]), ["g/x.kif", "g/x.gdl"]);
        assert_eq!(
            labels(&["/g/x.kif", "/g/x.kif", "/g/x.kif"]),
            ["g/x.kif", "g/x.kif#2", "g/x.kif#3"]
        );
        assert_eq!(labels(&["/g/./a/../a/x.kif", "/h/x.kif"]), ["a/x", "h/x"]);
    }

    #[test]
    fn work_file_names_are_portable_and_never_shared() {
        assert_eq!(slug("cpu:1"), "cpu%3a1");
        assert_eq!(slug("a/breakthrough"), "a%2fbreakthrough");
        assert_eq!(slug(".."), "%2e.");
        assert_eq!(slug("x_y-z.1"), "x_y-z.1");
        let names = [
            "cpu:1", "cpu-1", "cpu%3a1", "a/b", "a-b", "a%2fb", ".", "%2e", "é",
        ];
        let slugs: std::collections::HashSet<String> = names.iter().map(|n| slug(n)).collect();
        assert_eq!(slugs.len(), names.len(), "{slugs:?}");
    }
}
