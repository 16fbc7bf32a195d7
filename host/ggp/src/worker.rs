//! A match's worker thread: reads the rules (never on a connection thread: a START's rules
//! may take seconds to check, and the reply is due by the start clock whatever they cost),
//! prepares the engine within the start clock (compile the game,
//! or fall back to the reference interpreter when grounding runs over its budget or the
//! clock, or the game cannot be compiled), searches the rest of the start clock, then
//! plays each PLAY it is handed.

use super::gamer::PlayerOptions;
use super::hidden::HiddenPlay;
use super::log::Log;
use super::message;
use super::play::{MatchPlay, Shadow, Think};
use super::spelling::Spelling;
use propnet_compiler::gdl::{self, lower::fold_case, Game, Program};
use propnet_compiler::ground::CompileOptions;
use propnet_compiler::kif::{self, SExpr};
use propnet_mcts::factored::FactorSearch;
use propnet_netlist::passes::OptimizeOptions;
use propnet_netlist::{Netlist, ValidNetlist};
use propnet_runtime::factory::make_search_backends;
use propnet_runtime::machine::InterpMachine;
use propnet_runtime::pipeline::{compile_game, PipelineOptions};
use serde_json::json;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The search stops this long before a reply deadline, to hand its answer over in time.
pub(crate) const HANDOVER: Duration = Duration::from_millis(15);

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
    /// Take in what was heard of the last step and choose our next move by `deadline`.
    Play {
        /// PLAY count.
        step: u64,
        /// The previous joint move, or our own move and percepts (canonical texts).
        heard: message::Heard<String>,
        /// When the reply must leave.
        deadline: Instant,
        /// Where the answer goes.
        reply: mpsc::Sender<Reply>,
    },
    /// The match ended.
    Stop,
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
            Command::Stop | Command::Abort => break,
        }
    }
}

/// How a match is played: with the whole state (GDL-I protocol: the player hears every
/// joint move) or with a belief (GDL-II protocol: only its own move and percepts).
pub enum Engine {
    /// MCTS over the state (netlist or interpreter).
    Full(MatchPlay),
    /// Information-set MCTS over a belief (netlist only).
    Hidden(Box<HiddenPlay>),
}

impl Engine {
    fn describe(&mut self) -> String {
        match self {
            Engine::Full(e) => e.describe(),
            Engine::Hidden(h) => h.describe(),
        }
    }
}

/// What the match has heard so far, to replay on an engine that comes later: the joint
/// moves (GDL-I protocol) and our own moves and percepts (GDL-II protocol).
#[derive(Default)]
struct Heard {
    joint: Vec<Vec<String>>,
    private: Vec<(String, Vec<String>)>,
}

/// Prepares and plays a match whose rules are read.
fn play_match(job: Job, rx: mpsc::Receiver<Command>, ready: mpsc::Sender<Ready>) {
    let mut heard = Heard::default();
    let (mut engine, mut pending) = match prepare(&job) {
        Ok(prepared) => prepared,
        Err(why) => {
            job.log.line(
                &job.id,
                &format!("cannot play {}: {why}", job.id),
                json!({"error": why}),
            );
            (None, None)
        }
    };
    let note = match engine.as_mut() {
        Some(Engine::Full(e)) => start_search(&job, e),
        Some(e) => e.describe(),
        None if pending.is_some() => "compiling (a GDL-II game needs the netlist)".into(),
        None => "no engine".into(),
    };
    let _ = ready.send(Ok(note));
    while let Ok(cmd) = rx.recv() {
        match cmd {
            Command::Play {
                step,
                heard: h,
                deadline,
                reply,
            } => {
                try_upgrade(&job, &mut engine, &mut pending, &heard);
                let h = open_moves(&job, engine.as_ref(), h);
                let mut r = match h {
                    message::Heard::Joint(moves) => {
                        heard.joint.extend(moves.clone());
                        play_joint(&job, engine.as_mut(), step, moves, deadline)
                    }
                    message::Heard::Private {
                        turn,
                        own,
                        percepts,
                    } => {
                        let e = hide(&job, &mut engine, &heard.joint);
                        let heard_now = own.map(|o| (o, percepts));
                        heard.private.extend(heard_now.clone());
                        let step = super::hidden::Step {
                            step,
                            turn,
                            heard: heard_now,
                            deadline,
                        };
                        super::hidden::play(&job, e, step)
                    }
                };
                r.text = job.spelling.respell(&r.text);
                let _ = reply.send(r);
            }
            Command::Stop | Command::Abort => break,
        }
    }
}

/// A GDL-I PLAY: apply the joint move, then search (see [`play`]); `nil` without an
/// engine for it.
fn play_joint(
    job: &Job,
    engine: Option<&mut Engine>,
    step: u64,
    moves: Option<Vec<String>>,
    deadline: Instant,
) -> Reply {
    match engine {
        Some(Engine::Full(e)) => play(job, e, step, moves, deadline),
        Some(Engine::Hidden(_)) => {
            job.slot.reach(step, None);
            let mut r = Reply::plain("nil".into(), "belief player".into());
            r.problems.push(
                "a GDL-I PLAY (every role's move) in a match played under the GDL-II \
                 protocol: a manager speaks one protocol for a whole match; answered nil"
                    .into(),
            );
            r
        }
        None => {
            job.slot.reach(step, None);
            Reply::plain("nil".into(), "no engine".into())
        }
    }
}

/// A GDL-II PLAY of a GDL-I game played over the whole state, read as the GDL-I PLAY it
/// stands for when its percepts tell every role's move, `(did ROLE MOVE)` or `(does ROLE
/// MOVE)`: GDL-I informs every player of every move, which GDL-II writes as
/// `(<= (sees ?r (did ?p ?m)) (role ?r) (does ?p ?m))`, and our manager sends a GDL-I game
/// so ([`crate::manager_gdl2`]). The first PLAY (turn 0, nothing heard) counts as such.
/// Anything else is returned as it came.
fn open_moves(
    job: &Job,
    engine: Option<&Engine>,
    h: message::Heard<String>,
) -> message::Heard<String> {
    let message::Heard::Private { own, percepts, .. } = &h else {
        return h;
    };
    if job.game.program.gdl2 || !matches!(engine, Some(Engine::Full(_))) {
        return h;
    }
    if own.is_none() && percepts.is_empty() {
        return message::Heard::Joint(None);
    }
    let roles = role_names(&job.game);
    let mut joint: Vec<Option<String>> = vec![None; roles.len()];
    for p in percepts {
        let Some((role, m)) = did_move(p) else {
            return h;
        };
        match roles.iter().position(|r| *r == role) {
            Some(r) if joint[r].is_none() => joint[r] = Some(m),
            _ => return h,
        }
    }
    match joint.into_iter().collect::<Option<Vec<String>>>() {
        Some(joint) if joint.get(job.role) == own.as_ref() => message::Heard::Joint(Some(joint)),
        _ => h,
    }
}

/// `(role, move)` of a canonical percept `(did ROLE MOVE)` or `(does ROLE MOVE)`.
fn did_move(percept: &str) -> Option<(String, String)> {
    let src = kif::SourceFile::new("percept", percept.as_bytes()).ok()?;
    let top = kif::parse(&src).ok()?;
    let [SExpr::List { items, .. }] = top.as_slice() else {
        return None;
    };
    match items.as_slice() {
        [SExpr::Atom { text: k, .. }, SExpr::Atom { text: role, .. }, m]
            if k == "did" || k == "does" =>
        {
            Some((role.clone(), super::message::canonical_move(m)))
        }
        _ => None,
    }
}

/// The engine for a GDL-II PLAY: the belief player, made from the match's netlist at the
/// first such PLAY of a GDL-I game whose percepts do not tell every move (it then takes
/// in our own moves of the `joint` moves heard so far); `None` when the match has no
/// netlist (yet).
fn hide<'a>(
    job: &Job,
    engine: &'a mut Option<Engine>,
    joint: &[Vec<String>],
) -> Option<&'a mut HiddenPlay> {
    if let Some(Engine::Full(_)) = engine {
        let Some(Engine::Full(full)) = engine.take() else {
            unreachable!("matched above")
        };
        *engine = full.take_net().and_then(|(net, backends)| {
            let b = backends.into_iter().next()?;
            let human = "the manager speaks the GDL-II protocol and does not tell every \
                         move: playing with a belief";
            job.log
                .line(&job.id, human, json!({"event": "gdl2 protocol"}));
            let mut h = HiddenPlay::new(net, b, job.role, &job.opts.mcts);
            for j in joint {
                h.observe(&j[job.role], &[], Instant::now() + REPLAY_OBSERVE);
            }
            Some(Engine::Hidden(Box::new(h)))
        });
    }
    match engine {
        Some(Engine::Hidden(h)) => Some(h),
        _ => None,
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
    let think = e.think(end, job.opts.quick_forced, &mut publish);
    let none = "no legal move in the current state (the game is over)";
    reply_of(think, &texts, (engine, problems), none)
}

/// The reply of a search's result: its move; `nil` (with `none` among the problems) when
/// it found no legal move; the first of `texts` (legal moves, canonical) when it failed.
pub(crate) fn reply_of<E: std::fmt::Display>(
    think: Result<Think, E>,
    texts: &[String],
    (engine, mut problems): (String, Vec<String>),
    none: &str,
) -> Reply {
    let (text, think) = match think {
        Ok(think) if !think.text.is_empty() => (think.text.clone(), think),
        Ok(_) => {
            problems.push(none.to_string());
            ("nil".to_string(), Think::default())
        }
        Err(err) => {
            problems.push(format!("search failed: {err}"));
            let text = texts.first().cloned().unwrap_or_else(|| "nil".into());
            (text, Think::default())
        }
    };
    Reply {
        text,
        think,
        engine,
        problems,
    }
}

/// A compiled game and what its search needs, or why it could not be had.
type Compiled = Result<Built, String>;

/// A compiled game, its search workers' backends and the note of the first one's choice,
/// the trees of its factors when it is a sum of games searched so, and the time compiling
/// took.
struct Built {
    net: Netlist,
    sel: Backends,
    factors: Option<FactorSearch>,
    took: Duration,
}

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
    let factoring = job.opts.factoring && !job.game.program.gdl2;
    let mcts = job.opts.mcts.clone();
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
                let net = net.into_netlist();
                let factors = if factoring {
                    factor_search(&net, &*backends, &request, (threads, workers), &mcts)?
                } else {
                    None
                };
                Ok(Built {
                    net,
                    sel,
                    factors,
                    took: t0.elapsed(),
                })
            });
        let _ = tx.send(res);
    });
    rx
}

/// The trees of the factors of `net` when it is a sum of games (`None` when it is not),
/// each factor game with search backends as the whole game's.
fn factor_search(
    net: &Netlist,
    factory: &dyn propnet_runtime::factory::BackendFactory,
    request: &propnet_runtime::factory::BackendRequest,
    (threads, workers): (usize, usize),
    params: &propnet_mcts::MctsParams,
) -> Result<Option<FactorSearch>, String> {
    let mut make = |n: &Netlist| {
        let valid = ValidNetlist::new(n.clone()).map_err(|e| e.to_string())?;
        make_search_backends(factory, request, &valid, threads, workers)
            .map(|(b, _)| b)
            .map_err(|e| e.to_string())
    };
    let factors = FactorSearch::new(net, &mut make, params.clone())?;
    Ok((!factors.is_empty()).then_some(factors))
}

/// The netlist engine at the initial state (logged with the time compiling took): the
/// belief player when `hidden` (the first search backend; the others go unused), else
/// MCTS over the state with every backend.
fn net_engine(job: &Job, built: Built, hidden: bool) -> Result<Engine, String> {
    let Built {
        net,
        sel: (backends, note),
        factors,
        took,
    } = built;
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
    if hidden {
        let b = backends.into_iter().next().ok_or("no search backend")?;
        let h = HiddenPlay::new(net, b, job.role, &job.opts.mcts);
        return Ok(Engine::Hidden(Box::new(h)));
    }
    let params = job.opts.mcts.clone();
    let play = match factors {
        Some(factors) => {
            let human = format!(
                "the game is a sum: {} factors searched apart, one tree each",
                factors.len()
            );
            let fields = json!({"event": "factored", "factors": factors.len()});
            job.log.line(&job.id, &human, fields);
            MatchPlay::net_factored(net, backends, factors, job.role, params)
        }
        None => MatchPlay::net(net, backends, job.role, params),
    };
    play.map(Engine::Full).map_err(|e| e.to_string())
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
/// interpreter (a GDL-II game: with no engine until it is compiled); then also returns
/// the compilation still under way, if any.
fn prepare(job: &Job) -> Result<(Option<Engine>, Option<Compiling>), String> {
    let compiling = spawn_compile(job);
    let wait = job
        .deadline
        .saturating_duration_since(Instant::now())
        .mul_f64(job.opts.compile_wait);
    let hidden = job.game.program.gdl2;
    match compiling.recv_timeout(wait) {
        Ok(Ok(built)) => Ok((Some(net_engine(job, built, hidden)?), None)),
        Ok(Err(e)) => Ok((fallback(job, &e)?, None)),
        Err(mpsc::RecvTimeoutError::Timeout) => {
            let why = format!(
                "not compiled within {:.1} s of the start clock (compiling on in the background)",
                wait.as_secs_f64()
            );
            Ok((fallback(job, &why)?, Some(compiling)))
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Ok((fallback(job, "the compiler thread stopped")?, None))
        }
    }
}

/// The engine while the game is not compiled: the interpreter for a GDL-I game, none for
/// a GDL-II game (the belief player needs the netlist; PLAYs are answered `nil`, and the
/// manager plays a legal move for us and tells us which).
fn fallback(job: &Job, why: &str) -> Result<Option<Engine>, String> {
    if !job.game.program.gdl2 {
        return interp_engine(job, why).map(|e| Some(Engine::Full(e)));
    }
    let human = format!(
        "a GDL-II game is played over its netlist, which is not there: {why}; each PLAY \
         is answered nil until it is"
    );
    job.log.line(
        &job.id,
        &human,
        json!({"event": "no engine", "reason": why}),
    );
    Ok(None)
}

/// Switches to the netlist when the background compilation has finished: the new engine
/// replays what the match has heard so far (the joint moves, or for a belief our own
/// moves and percepts) and replaces the interpreter (or no engine, for a GDL-II game).
fn try_upgrade(
    job: &Job,
    engine: &mut Option<Engine>,
    pending: &mut Option<Compiling>,
    heard: &Heard,
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
    let hidden = job.game.program.gdl2 || !heard.private.is_empty();
    let upgraded = res.and_then(|built| {
        let mut e = net_engine(job, built, hidden)?;
        replay(&mut e, heard)?;
        Ok(e)
    });
    let steps = heard.joint.len().max(heard.private.len());
    match upgraded {
        Ok(e) => {
            *engine = Some(e);
            let human = format!("switched to the netlist after {steps} moves");
            job.log.line(
                &job.id,
                &human,
                json!({"event": "upgraded", "after_moves": steps}),
            );
        }
        Err(why) => {
            let human = format!("staying with the engine played so far: {why}");
            job.log.line(
                &job.id,
                &human,
                json!({"event": "no upgrade", "reason": why}),
            );
        }
    }
}

/// Longest a replayed observation may take ([`HiddenPlay::observe`]).
const REPLAY_OBSERVE: Duration = Duration::from_millis(200);

/// Plays what was `heard` on a new engine.
fn replay(e: &mut Engine, heard: &Heard) -> Result<(), String> {
    let problems = match e {
        Engine::Full(e) => {
            let mut all = Vec::new();
            for joint in &heard.joint {
                all.extend(e.apply(joint).map_err(|e| e.to_string())?);
            }
            all
        }
        Engine::Hidden(h) => (heard.private.iter())
            .flat_map(|(own, seen)| h.observe(own, seen, Instant::now() + REPLAY_OBSERVE))
            .collect(),
    };
    match problems.is_empty() {
        true => Ok(()),
        false => Err(format!(
            "replaying the match on the netlist: {}",
            problems.join("; ")
        )),
    }
}
