//! The GGP player: answers each message of [`super::message`], one match at a time, and
//! never replies late: a PLAY's reply leaves by `receipt + play clock − margin` whatever
//! the search is doing (the match's worker thread publishes its best move so far; the
//! connection thread waits for the worker only until the deadline).

use super::http::{HttpReply, HttpRequest};
use super::log::{shorten, Log};
use super::message::{canonical_move, parse_message, Heard, Message};
use super::play::Think;
use super::worker::{self, Command, Ready, ShadowAsk, SharedShadow, SharedSlot};
use propnet_compiler::gdl;
use propnet_compiler::ground::Budget as GroundBudget;
use propnet_compiler::kif::{self, SExpr};
use propnet_mcts::MctsParams;
use propnet_netlist::Cancel;
use propnet_runtime::factory::{BackendFactory, BackendRequest};
use serde_json::json;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Default reply margin: the reply leaves this long before the clock runs out. Measured
/// on loopback on the shared 2-core dev machine (BENCHMARKS.md, "GGP player"): the
/// manager read replies at most 67 ms after the player's own deadline, with 15 processes
/// on the 2 cores; 250 ms leaves about four times that.
pub const DEFAULT_MARGIN: Duration = Duration::from_millis(250);

/// How the player plays.
#[derive(Clone, Debug)]
pub struct PlayerOptions {
    /// Name reported by INFO.
    pub name: String,
    /// Backend of the compiled game.
    pub backend: BackendRequest,
    /// Backend options (CPU threads, …).
    pub backends: std::sync::Arc<dyn BackendFactory>,
    /// Threads the search uses in all (0 = one per core).
    pub threads: usize,
    /// Search workers, each with a backend of its own of `threads / workers` threads (0 =
    /// one per thread on the CPU simulator and the reference, one on a GPU or FPGA; see
    /// [`propnet_runtime::factory::make_search_backends`]).
    pub workers: usize,
    /// The reply leaves `margin` before the clock ends.
    pub margin: Duration,
    /// Grounding limits. Grounding that outlasts the start clock goes on in the background
    /// while the interpreter plays; the player switches to the netlist when it is done.
    pub ground: GroundBudget,
    /// Part of the start clock (0..=1) to wait for the compiled game before starting with
    /// the interpreter.
    pub compile_wait: f64,
    /// Search parameters (seed, batch sizes, …).
    pub mcts: MctsParams,
    /// Answer a forced move (one legal move) at once instead of searching the clock.
    pub quick_forced: bool,
    /// Search a compiled game that is a sum of independent games by one tree per factor
    /// ([`propnet_mcts::factored::FactorSearch`]) where our role has a move in one.
    pub factoring: bool,
    /// Search at most this long per PLAY: the reply leaves at receipt + `move_time` when
    /// that comes before the clock's deadline (time odds, benchmarks). `None`: the clock.
    pub move_time: Option<Duration>,
}

/// The match being played.
struct Active {
    id: String,
    tx: mpsc::Sender<Command>,
    slot: Arc<SharedSlot>,
    step: u64,
    play_clock: Duration,
    /// The interpreter's copy of the match, for replies the worker is late with.
    shadow: SharedShadow,
    /// The joint moves received so far (canonical texts), for the shadow.
    history: Arc<Vec<Vec<String>>>,
    /// Without a message by then the match counts as abandoned (the manager is gone) and
    /// a new START replaces it: two play clocks and [`ABANDON_AFTER`] after the last one.
    expires: Instant,
    /// The match's stop flag ([`propnet_mcts::MctsParams::stop`] of its worker), raised
    /// when the match ends (this is dropped): a search still running for a PLAY ends at
    /// once, and so does a compile still going on in the background.
    stop: Cancel,
}

impl Drop for Active {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Slack after which a silent match is abandoned (see `Active::expires`).
pub const ABANDON_AFTER: Duration = Duration::from_secs(30);

/// When the deadline comes before the worker has applied a PLAY's joint move (a play
/// clock at or near 0, a worker still busy with the previous message) and the match has
/// no interpreter copy ([`super::play::Shadow`]) to compute a legal move of the current
/// state, the reply waits for the worker until the play clock's end plus this much (half
/// of ggp-base's 1 s grace): a late legal move rather than one of an earlier state.
pub const LEGAL_WAIT: Duration = Duration::from_millis(500);

/// The player: shared by the server's connection threads.
pub struct Gamer {
    opts: PlayerOptions,
    log: Arc<Log>,
    current: Mutex<Option<Active>>,
}

impl Gamer {
    /// A player with these options, logging to `log`.
    pub fn new(opts: PlayerOptions, log: Arc<Log>) -> Self {
        Self {
            opts,
            log,
            current: Mutex::new(None),
        }
    }

    /// The log.
    pub fn log(&self) -> &Log {
        &self.log
    }

    fn current(&self) -> std::sync::MutexGuard<'_, Option<Active>> {
        self.current.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Answers one HTTP request (POST body or GET path is the message; OPTIONS is a CORS
    /// preflight).
    pub fn handle(&self, req: HttpRequest) -> HttpReply {
        let body = match req.method.as_str() {
            "OPTIONS" => return HttpReply::ok(""),
            "POST" => req.body.clone(),
            "GET" => {
                let path = req.path.trim_start_matches('/');
                let text = percent_encoding::percent_decode_str(path).collect::<Vec<u8>>();
                if text.iter().all(u8::is_ascii_whitespace) {
                    b"(INFO)".to_vec()
                } else {
                    text
                }
            }
            other => {
                self.log.line(
                    "player",
                    &format!("method {other} not allowed"),
                    json!({"error": format!("method {other} not allowed")}),
                );
                return HttpReply::error(405, "use POST with the message as body");
            }
        };
        let text = String::from_utf8_lossy(&body).into_owned();
        match parse_message(&body) {
            Ok(msg) => self.dispatch(msg, &text, req.received),
            Err(e) => {
                self.log.line(
                    "player",
                    &format!("malformed message ({e}): {}", shorten(&text)),
                    json!({"message": shorten(&text), "error": e.0, "reply": "400"}),
                );
                HttpReply::error(400, format!("malformed message: {e}"))
            }
        }
    }

    fn dispatch(&self, msg: Message, text: &str, received: Instant) -> HttpReply {
        let reply = match msg {
            Message::Info => {
                let status = if self.current().is_some() {
                    "busy"
                } else {
                    "available"
                };
                format!("((name {}) (status {status}))", self.opts.name)
            }
            Message::Preview { rules, .. } => self.preview(&rules),
            Message::Start {
                id,
                role,
                rules,
                start_clock,
                play_clock,
            } => self.start(id, role, rules, received + start_clock, play_clock),
            Message::Play { id, heard } => return self.play(&id, heard, text, received),
            Message::Stop { id, .. } => self.finish(&id, true, "done"),
            Message::Abort { id } => self.finish(&id, false, "aborted"),
        };
        HttpReply::ok(reply)
    }

    fn preview(&self, rules: &[SExpr]) -> String {
        match gdl::parse_source("preview.kif", kif::print_all(rules).as_bytes()) {
            Ok(_) => self.log.line(
                "player",
                "PREVIEW: rules accepted",
                json!({"message": "PREVIEW", "reply": "ready"}),
            ),
            Err(e) => self.log.line(
                "player",
                &format!("PREVIEW: rules rejected: {e}"),
                json!({"message": "PREVIEW", "reply": "ready", "error": e.to_string()}),
            ),
        }
        "ready".into()
    }

    /// START: starts the match's worker (read the rules, compile, then search) and
    /// replies `ready` when it is prepared or at the deadline, whichever comes first;
    /// `busy` when another match is on, or when the worker finds by then that the rules or
    /// the role cannot be played. The lock is held only to register the match: reading
    /// the rules (seconds for a rule of many variables) never holds up other messages.
    fn start(
        &self,
        id: String,
        role: String,
        rules: Vec<SExpr>,
        start_end: Instant,
        play_clock: Duration,
    ) -> String {
        let deadline = self.deadline(
            start_end,
            start_end.saturating_duration_since(Instant::now()),
        );
        let mut cur = self.current();
        self.abandon_expired(&mut cur);
        if let Some(a) = cur.as_ref() {
            return self.refuse_start(&id, format!("START {id} while playing {}", a.id));
        }
        let (active, ready_rx) =
            self.spawn_match(&id, role.clone(), rules, deadline, start_end, play_clock);
        let slot = active.slot.clone();
        *cur = Some(active);
        drop(cur);
        if play_clock <= self.opts.margin {
            self.warn_short_play_clock(&id, play_clock);
        }
        let note = match ready_rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Ok(note)) => note,
            Ok(Err(why)) => {
                self.forget(&id, &slot);
                return self.refuse_start(&id, why);
            }
            Err(_) => "still preparing at the start deadline".to_string(),
        };
        self.log.line(
            &id,
            &format!("START {id} as {role}: ready ({note})"),
            json!({"message": format!("START {id} {role}"), "reply": "ready", "engine": note}),
        );
        "ready".into()
    }

    /// Ends match `id` if it is still the current one (the one whose slot is `slot`).
    fn forget(&self, id: &str, slot: &Arc<SharedSlot>) {
        let mut cur = self.current();
        if cur
            .as_ref()
            .is_some_and(|a| a.id == id && Arc::ptr_eq(&a.slot, slot))
        {
            *cur = None;
        }
    }

    /// Aborts the match in `cur` when it has expired (no message since its clock ran out:
    /// the manager is gone), logging it as abandoned.
    fn abandon_expired(&self, cur: &mut Option<Active>) {
        if let Some(a) = cur.take_if(|a| Instant::now() > a.expires) {
            let why = format!(
                "match {} abandoned: no message since its clock ran out",
                a.id
            );
            let _ = a.tx.send(Command::Abort);
            self.log
                .line("player", &why, json!({"event": "abandoned", "match": a.id}));
        }
    }

    /// Refuses START of match `id` for reason `why`: logs it and returns the reply `busy`.
    fn refuse_start(&self, id: &str, why: String) -> String {
        self.log.line(
            "player",
            &why,
            json!({"message": format!("START {id}"), "reply": "busy", "error": why}),
        );
        "busy".into()
    }

    /// Starts the worker thread of match `id` (playing `role` of the game of `rules`;
    /// `ready` due by `deadline`). Returns the match's state and the channel on which the
    /// worker says it is prepared, or why it cannot play.
    fn spawn_match(
        &self,
        id: &str,
        role: String,
        rules: Vec<SExpr>,
        deadline: Instant,
        start_end: Instant,
        play_clock: Duration,
    ) -> (Active, mpsc::Receiver<Ready>) {
        let (tx, rx) = mpsc::channel();
        let (ready_tx, ready_rx) = mpsc::channel();
        let slot = Arc::new(SharedSlot::default());
        let shadow: SharedShadow = Arc::default();
        let stop = Cancel::new();
        let mut opts = self.opts.clone();
        opts.mcts.stop = stop.clone();
        let start = worker::Start {
            id: id.to_string(),
            role,
            rules,
            deadline,
            opts,
            log: self.log.clone(),
            slot: slot.clone(),
            shadow: shadow.clone(),
        };
        std::thread::spawn(move || worker::run(start, rx, ready_tx));
        let active = Active {
            id: id.to_string(),
            tx,
            slot,
            step: 0,
            play_clock,
            shadow,
            history: Arc::new(Vec::new()),
            expires: start_end + 2 * play_clock + ABANDON_AFTER,
            stop,
        };
        (active, ready_rx)
    }

    /// Logs a warning for match `id` when its play clock is not above the reply margin.
    fn warn_short_play_clock(&self, id: &str, play_clock: Duration) {
        let why = format!(
            "START {id}: the play clock ({} ms) is not above the reply margin ({} ms, \
             --margin-ms): each PLAY is answered after half the play clock (at once for \
             a clock of 0) with a legal move of the current state, with little or no \
             search; give a longer play clock or a smaller --margin-ms",
            play_clock.as_millis(),
            self.opts.margin.as_millis()
        );
        self.log.line(
            id,
            &why,
            json!({"warning": why, "play_clock_ms": play_clock.as_millis() as u64}),
        );
    }

    /// The instant a reply must leave for a clock ending at `end` of length `clock`:
    /// `end − margin`, or `end − clock/2` when the clock is shorter than twice the margin.
    fn deadline(&self, end: Instant, clock: Duration) -> Instant {
        let margin = self.opts.margin.min(clock / 2);
        end.checked_sub(margin).unwrap_or(end)
    }

    /// PLAY: hands the moves to the worker and replies with its move, or, when the
    /// deadline comes first, with the best move so far of this step; when the worker has
    /// not even applied this PLAY's moves by then, with the first legal move of the
    /// current state that the match's interpreter copy computes here. Never a move of an
    /// earlier state, and never waiting for the worker past the deadline (unless the
    /// match has no interpreter copy: see [`LEGAL_WAIT`]).
    fn play(&self, id: &str, heard: Heard<SExpr>, text: &str, received: Instant) -> HttpReply {
        let heard = heard.map(canonical_move);
        let joint = match &heard {
            Heard::Joint(ms) => ms.as_ref(),
            Heard::Private { .. } => None,
        };
        let Some(m) = self.next_step(id, joint, received) else {
            let why = format!("PLAY for unknown match {id}");
            self.log.line(
                "player",
                &why,
                json!({"message": shorten(text), "reply": "busy", "error": why}),
            );
            return HttpReply::ok("busy");
        };
        let mut deadline = self.deadline(received + m.clock, m.clock);
        if let Some(t) = self.opts.move_time {
            deadline = deadline.min(received + t);
        }
        // the interpreter copy starts on this step at once, in case the worker is late (it
        // knows the state only from joint moves: not under the GDL-II protocol)
        let shadow = match heard.is_private() {
            false => ask_shadow(&m),
            true => None,
        };
        let (reply_tx, reply_rx) = mpsc::channel();
        let sent = m.tx.send(Command::Play {
            step: m.step,
            heard,
            deadline,
            reply: reply_tx,
        });
        let answer = match sent {
            Ok(()) => reply_rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .ok(),
            Err(_) => None,
        };
        let (reply, mut fields) = match answer {
            Some(r) => {
                let f = think_fields(&r.think, &r.engine, &r.problems);
                (r.text, f)
            }
            None => self.at_deadline(&m, shadow, received, deadline),
        };
        fields["message"] = json!(shorten(text));
        fields["reply"] = json!(reply);
        fields["latency_ms"] = json!(received.elapsed().as_secs_f64() * 1000.0);
        let step = m.step;
        self.log
            .line(id, &format!("PLAY {id} step {step}: {reply}"), fields);
        HttpReply::ok(reply)
    }

    /// Counts a PLAY of match `id` (with the joint move `moves`) and returns what its
    /// reply needs; `None` when `id` is not the current match.
    fn next_step(&self, id: &str, moves: Option<&Vec<String>>, received: Instant) -> Option<Step> {
        let mut cur = self.current();
        let a = cur.as_mut().filter(|a| a.id == id)?;
        a.step += 1;
        a.expires = received + 2 * a.play_clock + ABANDON_AFTER;
        if let Some(ms) = moves {
            Arc::make_mut(&mut a.history).push(ms.clone());
        }
        Some(Step {
            tx: a.tx.clone(),
            slot: a.slot.clone(),
            step: a.step,
            clock: a.play_clock,
            shadow: a.shadow.clone(),
            history: a.history.clone(),
        })
    }

    /// The reply when the worker has not answered by the deadline, and its log fields.
    /// When the worker has not applied this step's moves, the interpreter copy's move
    /// (`shadow`), waited for until half the margin is left.
    fn at_deadline(
        &self,
        m: &Step,
        shadow: Option<ShadowReply>,
        received: Instant,
        deadline: Instant,
    ) -> (String, serde_json::Value) {
        let s = m.slot.lock();
        if s.step == m.step {
            return match s.best.clone() {
                Some(b) => (
                    b,
                    json!({"note": "deadline: best move so far", "late": false}),
                ),
                None => (
                    "nil".to_string(),
                    json!({"note": "no legal move in the current state", "late": false}),
                ),
            };
        }
        drop(s);
        // the worker has not applied this PLAY's moves: the interpreter copy's move
        let end = received + m.clock;
        let until = deadline + end.saturating_duration_since(deadline) / 2;
        let computed = match shadow {
            Some(rx) => rx
                .recv_timeout(until.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| Err("the interpreter did not answer in time".into())),
            None => Err("the rules are not read yet".into()),
        };
        match computed {
            Ok(Some(text)) => {
                let note = "the worker did not reach this step in time: first legal move \
                            of the current state, computed by the interpreter";
                return (text, json!({"note": note, "late": true}));
            }
            Ok(None) => {
                let note = "no legal move in the current state (interpreter)";
                return ("nil".to_string(), json!({"note": note, "late": true}));
            }
            Err(why) => self.log.line(
                "player",
                &format!("no interpreter move for a late reply: {why}"),
                json!({"error": why}),
            ),
        }
        // no interpreter move: wait a little past the deadline for the worker's move
        let (s, reached) = m.slot.wait_step(m.step, end + LEGAL_WAIT);
        let (text, note) = match (reached, s.best.clone()) {
            (true, Some(b)) => (
                b,
                "deadline passed before the moves were applied: first legal move of the \
                 current state, sent late",
            ),
            (true, None) => ("nil".to_string(), "no legal move in the current state"),
            (false, _) => (
                "nil".to_string(),
                "the worker did not reach this step in time and the interpreter had no \
                 move: no move of the current state to send",
            ),
        };
        (text, json!({"note": note, "late": true}))
    }

    /// STOP (`stop`) or ABORT: ends the match if it is the current one.
    fn finish(&self, id: &str, stop: bool, reply: &str) -> String {
        let mut cur = self.current();
        let keyword = if stop { "STOP" } else { "ABORT" };
        match cur.take() {
            Some(a) if a.id == id => {
                let _ = a.tx.send(match stop {
                    true => Command::Stop,
                    false => Command::Abort,
                });
                self.log.line(
                    id,
                    &format!("{keyword} {id}: {reply}"),
                    json!({"message": keyword, "reply": reply}),
                );
                self.log.close(id);
                reply.into()
            }
            other => {
                *cur = other;
                let why = format!("{keyword} for unknown match {id}");
                self.log.line(
                    "player",
                    &why,
                    json!({"message": keyword, "reply": "busy", "error": why}),
                );
                "busy".into()
            }
        }
    }
}

/// Log fields of one think.
fn think_fields(t: &Think, engine: &str, problems: &[String]) -> serde_json::Value {
    let secs = t.elapsed.as_secs_f64();
    json!({
        "think_ms": secs * 1000.0,
        "iterations": t.iterations,
        "playouts": t.playouts,
        "playouts_per_s": if secs > 0.0 { t.playouts as f64 / secs } else { 0.0 },
        "iterations_per_s": if secs > 0.0 { t.iterations as f64 / secs } else { 0.0 },
        "nodes": t.nodes,
        "legal": t.legal,
        "factors": t.factors,
        "backend": engine,
        "problems": problems,
    })
}

/// What a PLAY's reply needs of its match.
struct Step {
    tx: mpsc::Sender<Command>,
    slot: Arc<SharedSlot>,
    step: u64,
    clock: Duration,
    shadow: SharedShadow,
    history: Arc<Vec<Vec<String>>>,
}

/// Where the interpreter copy's move for a step comes.
type ShadowReply = mpsc::Receiver<Result<Option<String>, String>>;

/// Asks the match's shadow thread for the first legal move of the current state; `None`
/// when the rules are not read yet or the thread is gone.
fn ask_shadow(m: &Step) -> Option<ShadowReply> {
    let tx = m.shadow.lock().unwrap_or_else(|p| p.into_inner()).clone()?;
    let (reply, rx) = mpsc::channel();
    let ask = ShadowAsk {
        history: m.history.clone(),
        reply,
    };
    tx.send(ask).ok().map(|()| rx)
}
