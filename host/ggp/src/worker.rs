//! A match's worker thread: prepares the engine within the start clock (compile the game,
//! or fall back to the reference interpreter when grounding runs over its budget or the
//! clock, or the game cannot be compiled), searches the rest of the start clock, then
//! plays each PLAY it is handed.

use super::gamer::PlayerOptions;
use super::log::Log;
use super::play::{MatchPlay, Think};
use super::spelling::Spelling;
use propnet_compiler::gdl::Game;
use propnet_compiler::ground::CompileOptions;
use propnet_netlist::passes::OptimizeOptions;
use propnet_netlist::Netlist;
use propnet_runtime::factory::Selected;
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
    /// A legal move of the last state the worker reached (any step), spelled.
    pub fallback: Option<String>,
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
    /// `None` when there is none) as its move so far and fallback, and wakes the waiters.
    pub fn reach(&self, step: u64, best: Option<String>) {
        let mut s = self.lock();
        s.step = step;
        s.fallback = best.clone();
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
    /// The move, canonical text.
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

/// Everything a worker starts with.
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

/// Runs the match: prepare, search until the start deadline, signal `ready`, then serve
/// commands until STOP, ABORT or a closed channel.
pub fn run(job: Job, rx: mpsc::Receiver<Command>, ready: mpsc::Sender<String>) {
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
    let _ = ready.send(note);
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
                        play(&job, e, step, moves, deadline)
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

/// Publishes a first legal move, then searches the initial state until the start
/// deadline; returns the engine's description.
fn start_search(job: &Job, e: &mut MatchPlay) -> String {
    // a legal move for a PLAY that comes before the start search ends
    set_fallback(job, e.legal_texts().first());
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

fn set_fallback(job: &Job, text: Option<&String>) {
    let mut s = job.slot.lock();
    s.fallback = text.map(|t| job.spelling.respell(t));
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

/// A compiled game, its backend and the time compiling took, or why it could not be had.
type Compiled = Result<(Netlist, Selected, Duration), String>;

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
                let sel = backends
                    .make(&request, net.clone())
                    .map_err(|e| e.to_string())?;
                Ok((net.into_netlist(), sel, t0.elapsed()))
            });
        let _ = tx.send(res);
    });
    rx
}

/// The netlist engine at the initial state (logged with the time compiling took).
fn net_engine(job: &Job, net: Netlist, sel: Selected, took: Duration) -> Result<MatchPlay, String> {
    let desc = sel.backend.describe();
    let ms = took.as_secs_f64() * 1000.0;
    let gates = net.logic_gate_count();
    let note = sel
        .note
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
    MatchPlay::net(net, sel.backend, job.role, job.opts.mcts.clone()).map_err(|e| e.to_string())
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
