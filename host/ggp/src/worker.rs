//! A match's worker thread: reads the rules (never on a connection thread: a START's rules
//! may take seconds to check, and the reply is due by the start clock whatever they cost),
//! prepares the engine within the start clock (compile the game,
//! or fall back to the reference interpreter when grounding runs over its budget or the
//! clock, or the game cannot be compiled), searches the rest of the start clock, then
//! plays each PLAY it is handed.

use super::gamer::PlayerOptions;
use super::log::Log;
use super::play::{MatchPlay, Shadow, Think};
use super::spelling::Spelling;
use propnet_compiler::gdl::{self, lower::fold_case, Game, Program};
use propnet_compiler::ground::CompileOptions;
use propnet_compiler::kif::{self, SExpr};
use propnet_netlist::passes::OptimizeOptions;
use propnet_netlist::Netlist;
use propnet_runtime::factory::make_search_backends;
use propnet_runtime::machine::InterpMachine;
use propnet_runtime::pipeline::{compile_game, PipelineOptions};
use serde_json::json;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The search stops this long before a reply deadline, to hand its answer over in time.
const HANDOVER: Duration = Duration::from_millis(15);

/// What the connection thread reads at the deadline: the best move so far of a step.
#[derive(Clone, Debug, Default)]
pub struct Slot {
    /// The step (PLAY count) the move is for.
    pub step: u64,
    /// Best move so far of that step, spelled as in the rules.
    pub best: Option<String>,
}

/// A question for the match's shadow thread (the [`Shadow`]'s own: the interpreter is
/// not `Send`): our first legal move after the joint moves `history`, answered on `reply`.
pub struct ShadowAsk {
    /// The joint moves so far (canonical texts per role).
    pub history: Arc<Vec<Vec<String>>>,
    /// Where the move goes (spelled; `None`: the game is over there), or why there is none.
    pub reply: mpsc::Sender<Result<Option<String>, String>>,
}

/// The way to the match's shadow thread once the rules are read (`None` before), shared
/// with the connection threads; the thread ends when the match's last sender goes.
pub type SharedShadow = Arc<Mutex<Option<mpsc::Sender<ShadowAsk>>>>;

/// Starts the shadow thread of a match: the reference interpreter of `program` playing
/// `role`, answering [`ShadowAsk`]s until its senders are gone.
fn spawn_shadow(
    program: Program,
    role: usize,
    spelling: Arc<Spelling>,
    log: Arc<Log>,
    id: String,
) -> mpsc::Sender<ShadowAsk> {
    let (tx, rx) = mpsc::channel::<ShadowAsk>();
    std::thread::spawn(move || {
        let mut shadow = match Shadow::new(&program, role, spelling) {
            Ok(s) => s,
            Err(why) => {
                let human = format!("no interpreter for late replies: {why}");
                log.line(&id, &human, json!({"warning": why}));
                return;
            }
        };
        drop(program);
        while let Ok(ask) = rx.recv() {
            let _ = ask.reply.send(shadow.first_legal_after(&ask.history));
        }
    });
    tx
}

/// The [`Slot`] shared by the worker and the connection threads, with a condition
/// variable signalled whenever the worker reaches a new step.
#[derive(Debug, Default)]
pub struct SharedSlot {
    slot: Mutex<Slot>,
    stepped: Condvar,
}

impl SharedSlot {
    /// The slot (a poisoned lock is taken over: the slot holds plain data).
    pub fn lock(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Marks `step` as reached, with `best` (a legal move of the step's state, spelled;
    /// `None` when there is none) as its move so far, and wakes the waiters.
    pub fn reach(&self, step: u64, best: Option<String>) {
        let mut s = self.lock();
        s.step = step;
        s.best = best;
        drop(s);
        self.stepped.notify_all();
    }

    /// Waits until the worker has reached `step` (applied its joint move and published a
    /// legal move of the new state) or `until` passes; returns the slot and whether the
    /// step was reached.
    pub fn wait_step(&self, step: u64, until: Instant) -> (MutexGuard<'_, Slot>, bool) {
        let mut s = self.lock();
        while s.step < step {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            s = match self.stepped.wait_timeout(s, left) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
        let reached = s.step == step;
        (s, reached)
    }
}

/// A message for the worker.
pub enum Command {
    /// Play the joint move (if any) and choose our next move by `deadline`.
    Play {
        /// PLAY count.
        step: u64,
        /// The previous joint move, canonical texts; `None` for `NIL`.
        moves: Option<Vec<String>>,
        /// When the reply must leave.
        deadline: Instant,
        /// Where the answer goes.
        reply: mpsc::Sender<Reply>,
    },
    /// The match ended with this last joint move.
    Stop {
        /// Canonical texts.
        moves: Option<Vec<String>>,
    },
    /// The match was aborted.
    Abort,
}

/// The worker's answer to a PLAY.
pub struct Reply {
    /// The move, spelled as in the rules.
    pub text: String,
    /// Search statistics.
    pub think: Think,
    /// The engine's description.
    pub engine: String,
    /// Moves of the PLAY that were not legal (replaced; see [`MatchPlay::apply`]).
    pub problems: Vec<String>,
}

impl Reply {
    /// A reply without a search.
    pub fn plain(text: String, engine: String) -> Self {
        Self {
            text,
            think: Think::default(),
            engine,
            problems: Vec::new(),
        }
    }
}

/// What a START gives the worker.
pub struct Start {
    /// Match id.
    pub id: String,
    /// Our role, as sent.
    pub role: String,
    /// The rules, as sent.
    pub rules: Vec<SExpr>,
    /// When `ready` must leave.
    pub deadline: Instant,
    /// Player options.
    pub opts: PlayerOptions,
    /// The log.
    pub log: Arc<Log>,
    /// Best-move slot shared with the connection threads.
    pub slot: Arc<SharedSlot>,
    /// Where the match's [`Shadow`] goes once the rules are read.
    pub shadow: SharedShadow,
}

/// What the worker says by the start deadline: prepared (with the engine's description),
/// or why the match cannot be played (rules rejected, no such role).
pub type Ready = Result<String, String>;

/// Everything a worker plays with, once the rules are read.
pub struct Job {
    /// Match id.
    pub id: String,
    /// The checked game.
    pub game: Game,
    /// Our role's index.
    pub role: usize,
    /// When `ready` must leave.
    pub deadline: Instant,
    /// Player options.
    pub opts: PlayerOptions,
    /// The log.
    pub log: Arc<Log>,
    /// Best-move slot shared with the connection threads.
    pub slot: Arc<SharedSlot>,
    /// Symbol spellings of the rules.
    pub spelling: Arc<Spelling>,
}

/// Runs the match: read the rules, prepare, search until the start deadline, signal
/// `ready`, then serve commands until STOP, ABORT or a closed channel. Rules that cannot
/// be played are reported on `ready`; the commands that come all the same (the START
/// was answered `ready` before the rules were read) are answered `nil`.
pub fn run(start: Start, rx: mpsc::Receiver<Command>, ready: mpsc::Sender<Ready>) {
    let (slot, log, id) = (start.slot.clone(), start.log.clone(), start.id.clone());
    match read_rules(start) {
        Ok(job) => play_match(job, rx, ready),
        Err(why) => {
            log.line(
                &id,
                &format!("cannot play {id}: {why}"),
                json!({"error": why}),
            );
            let _ = ready.send(Err(why));
            serve_without_engine(&slot, &rx);
        }
    }
}

/// Checks the rules and our role; publishes the match's [`Shadow`].
fn read_rules(start: Start) -> Result<Job, String> {
    let id = &start.id;
    let name = format!("{id}.kif");
    let game = gdl::parse_source(&name, kif::print_all(&start.rules).as_bytes())
        .map_err(|e| format!("START {id}: rules rejected: {e}"))?;
    let roles = role_names(&game);
    let role = roles
        .iter()
        .position(|r| *r == fold_case(&start.role))
        .ok_or_else(|| {
            format!(
                "START {id}: role `{}` is not a role of the game ({})",
                start.role,
                roles.join(", ")
            )
        })?;
    let spelling = Arc::new(Spelling::from_rules(&start.rules));
    let tx = spawn_shadow(
        game.program.clone(),
        role,
        spelling.clone(),
        start.log.clone(),
        id.clone(),
    );
    *start.shadow.lock().unwrap_or_else(|p| p.into_inner()) = Some(tx);
    Ok(Job {
        spelling,
        id: start.id,
        game,
        role,
        deadline: start.deadline,
        opts: start.opts,
        log: start.log,
        slot: start.slot,
    })
}

/// The game's role names in the order of its `role` facts, each once.
fn role_names(game: &Game) -> Vec<String> {
    let mut roles: Vec<String> = Vec::new();
    for &r in &game.program.roles {
        let n = game.program.symbols.name(r).to_string();
        if !roles.contains(&n) {
            roles.push(n);
        }
    }
    roles
}

/// Answers every PLAY `nil` (there is no engine) until STOP, ABORT or a closed channel.
fn serve_without_engine(slot: &SharedSlot, rx: &mpsc::Receiver<Command>) {
    while let Ok(cmd) = rx.recv() {
        match cmd {
            Command::Play { step, reply, .. } => {
                slot.reach(step, None);
                let _ = reply.send(Reply::plain("nil".into(), "no engine".into()));
            }
            Command::Stop { .. } | Command::Abort => break,
        }
    }
}

/// Prepares and plays a match whose rules are read.
fn play_match(job: Job, rx: mpsc::Receiver<Command>, ready: mpsc::Sender<Ready>) {
    let mut pending = None;
    let mut history: Vec<Vec<String>> = Vec::new();
    let mut engine = match prepare(&job) {
        Ok((e, compiling)) => {
            pending = compiling;
            Some(e)
        }
        Err(why) => {
            job.log.line(
                &job.id,
                &format!("cannot play {}: {why}", job.id),
                json!({"error": why}),
            );
            None
        }
    };
    let note = engine
        .as_mut()
        .map_or_else(|| "no engine".to_string(), |e| start_search(&job, e));
    let _ = ready.send(Ok(note));
    while let Ok(cmd) = rx.recv() {
        match cmd {
            Command::Play {
                step,
                moves,
                deadline,
                reply,
            } => {
                let r = match engine.as_mut() {
                    Some(e) => {
                        try_upgrade(&job, e, &mut pending, &history);
                        history.extend(moves.clone());
                        let mut r = play(&job, e, step, moves, deadline);
                        r.text = job.spelling.respell(&r.text);
                        r
                    }
                    None => {
                        job.slot.reach(step, None);
                        Reply::plain("nil".into(), "no engine".into())
                    }
                };
                let _ = reply.send(r);
            }
            Command::Stop { .. } | Command::Abort => break,
        }
    }
}

/// Searches the initial state until the start deadline; returns the engine's
/// description.
fn start_search(job: &Job, e: &mut MatchPlay) -> String {
    let end = job.deadline.checked_sub(HANDOVER).unwrap_or(job.deadline);
    let t = e.think(end, false, &mut |_| {});
    let d = e.describe();
    if let Ok(t) = &t {
        let fields = json!({
            "think_ms": t.elapsed.as_secs_f64() * 1000.0,
            "iterations": t.iterations,
            "playouts": t.playouts,
            "backend": d,
        });
        let human = format!("start search: {} iterations", t.iterations);
        job.log.line(&job.id, &human, fields);
    }
    d
}

/// One PLAY: apply the moves, publish a first legal move of the new state (the reply when
/// the deadline has passed or comes before the search has a move), search until the
/// deadline.
fn play(
    job: &Job,
    e: &mut MatchPlay,
    step: u64,
    moves: Option<Vec<String>>,
    deadline: Instant,
) -> Reply {
    let mut problems = Vec::new();
    if let Some(ms) = moves {
        match e.apply(&ms) {
            Ok(p) => problems = p,
            Err(err) => problems.push(format!("applying the moves failed: {err}")),
        }
    }
    let texts = e.legal_texts();
    job.slot
        .reach(step, texts.first().map(|t| job.spelling.respell(t)));
    let slot = job.slot.clone();
    let spelling = job.spelling.clone();
    let mut publish = |i: usize| {
        if let Some(t) = texts.get(i) {
            let text = spelling.respell(t);
            let mut s = slot.lock();
            if s.step == step {
                s.best = Some(text);
            }
        }
    };
    if !problems.is_empty() {
        let text = problems.join("; ");
        job.log.line(
            &job.id,
            &format!("PLAY step {step}: {text}"),
            json!({"step": step, "problems": problems}),
        );
    }
    let engine = e.describe();
    // stop a little before the reply deadline so the answer reaches the connection thread
    let end = deadline.checked_sub(HANDOVER).unwrap_or(deadline);
    match e.think(end, job.opts.quick_forced, &mut publish) {
        Ok(think) if !think.text.is_empty() => Reply {
            text: think.text.clone(),
            think,
            engine,
            problems,
        },
        Ok(_) => {
            problems.push("no legal move in the current state (the game is over)".into());
            Reply {
                text: "nil".into(),
                think: Think::default(),
                engine,
                problems,
            }
        }
        Err(err) => {
            problems.push(format!("search failed: {err}"));
            let text = texts.first().cloned().unwrap_or_else(|| "nil".into());
            Reply {
                text,
                think: Think::default(),
                engine,
                problems,
            }
        }
    }
}

/// A compiled game, its search workers' backends and the note of the first one's choice,
/// and the time compiling took, or why it could not be had.
type Compiled = Result<(Netlist, Backends, Duration), String>;

/// The backends of a match's search workers, and the note of the backend choice.
type Backends = propnet_runtime::factory::SearchBackends;

/// A compilation under way on a thread of its own.
type Compiling = mpsc::Receiver<Compiled>;

/// Compiles the game (and builds its backend) on a thread of its own, with the full
/// grounding budget: past the start clock it goes on in the background until the match
/// ends (the match's stop flag, [`propnet_mcts::MctsParams::stop`], also cancels grounding
/// and optimizing, which then free their memory and CPU).
fn spawn_compile(job: &Job) -> Compiling {
    let (tx, rx) = mpsc::channel();
    let game = job.game.clone();
    let budget = job.opts.ground.clone();
    let (request, backends) = (job.opts.backend.clone(), job.opts.backends.clone());
    let (threads, workers) = (job.opts.threads, job.opts.workers);
    let cancel = job.opts.mcts.stop.clone();
    let opts = PipelineOptions {
        ground: CompileOptions {
            budget,
            progress: None,
            cancel: cancel.clone(),
        },
        optimize: OptimizeOptions {
            cancel: cancel.clone(),
            ..OptimizeOptions::default()
        },
        ..PipelineOptions::default()
    };
    let stop = cancel.clone();
    std::thread::spawn(move || {
        let t0 = Instant::now();
        let res = compile_game(&game, Duration::ZERO, &opts)
            .map_err(|e| e.to_string())
            .and_then(|(net, _)| {
                if stop.is_cancelled() {
                    return Err("cancelled".to_string());
                }
                let sel = make_search_backends(&*backends, &request, &net, threads, workers)
                    .map_err(|e| e.to_string())?;
                Ok((net.into_netlist(), sel, t0.elapsed()))
            });
        let _ = tx.send(res);
    });
    rx
}

/// The netlist engine at the initial state (logged with the time compiling took).
fn net_engine(job: &Job, net: Netlist, sel: Backends, took: Duration) -> Result<MatchPlay, String> {
    let (backends, note) = sel;
    let desc = match backends.as_slice() {
        [one] => one.describe(),
        all => format!(
            "{} search workers, each on {}",
            all.len(),
            all[0].describe()
        ),
    };
    let ms = took.as_secs_f64() * 1000.0;
    let gates = net.logic_gate_count();
    let note = note
        .as_deref()
        .map(|n| format!(" ({n})"))
        .unwrap_or_default();
    let human = format!("compiled in {ms:.0} ms: {gates} gates; rollouts on {desc}{note}");
    let fields = json!({
        "event": "compiled",
        "compile_ms": ms,
        "gates": gates,
        "backend": desc,
    });
    job.log.line(&job.id, &human, fields);
    MatchPlay::net(net, backends, job.role, job.opts.mcts.clone()).map_err(|e| e.to_string())
}

/// The interpreter engine at the initial state, logged with the reason for the fallback.
fn interp_engine(job: &Job, why: &str) -> Result<MatchPlay, String> {
    job.log.line(
        &job.id,
        &format!("falling back to the reference interpreter: {why}"),
        json!({"event": "fallback", "reason": why}),
    );
    let model = InterpMachine::lenient(&job.game.program)
        .map_err(|e| format!("the interpreter cannot run this game: {e}"))?;
    let params = propnet_mcts::MctsParams {
        leaves_per_batch: 1,
        playouts_per_leaf: 1,
        ..job.opts.mcts.clone()
    };
    MatchPlay::interp(Box::new(model), job.role, params).map_err(|e| e.to_string())
}

/// Compiles the game within `compile_wait` of the start clock, or starts with the
/// interpreter; then also returns the compilation still under way, if any.
fn prepare(job: &Job) -> Result<(MatchPlay, Option<Compiling>), String> {
    let compiling = spawn_compile(job);
    let wait = job
        .deadline
        .saturating_duration_since(Instant::now())
        .mul_f64(job.opts.compile_wait);
    match compiling.recv_timeout(wait) {
        Ok(Ok((net, sel, took))) => Ok((net_engine(job, net, sel, took)?, None)),
        Ok(Err(e)) => Ok((interp_engine(job, &e)?, None)),
        Err(mpsc::RecvTimeoutError::Timeout) => {
            let why = format!(
                "not compiled within {:.1} s of the start clock (compiling on in the background)",
                wait.as_secs_f64()
            );
            Ok((interp_engine(job, &why)?, Some(compiling)))
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Ok((interp_engine(job, "the compiler thread stopped")?, None))
        }
    }
}

/// Switches to the netlist when the background compilation has finished: a netlist
/// engine replays the joint moves played so far (`history`) and replaces the interpreter.
fn try_upgrade(
    job: &Job,
    engine: &mut MatchPlay,
    pending: &mut Option<Compiling>,
    history: &[Vec<String>],
) {
    let Some(compiling) = pending.as_ref() else {
        return;
    };
    let res = match compiling.try_recv() {
        Ok(r) => r,
        Err(mpsc::TryRecvError::Empty) => return,
        Err(mpsc::TryRecvError::Disconnected) => Err("the compiler thread stopped".into()),
    };
    *pending = None;
    let upgraded = res.and_then(|(net, sel, took)| {
        let mut e = net_engine(job, net, sel, took)?;
        for joint in history {
            let problems = e.apply(joint).map_err(|e| e.to_string())?;
            if !problems.is_empty() {
                return Err(format!(
                    "replaying the match on the netlist: {}",
                    problems.join("; ")
                ));
            }
        }
        Ok(e)
    });
    match upgraded {
        Ok(e) => {
            *engine = e;
            let human = format!("switched to the netlist after {} moves", history.len());
            job.log.line(
                &job.id,
                &human,
                json!({"event": "upgraded", "after_moves": history.len()}),
            );
        }
        Err(why) => {
            let human = format!("staying with the interpreter: {why}");
            job.log.line(
                &job.id,
                &human,
                json!({"event": "no upgrade", "reason": why}),
            );
        }
    }
}
