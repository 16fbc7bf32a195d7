//! A match as the player plays it under the GDL-II protocol: it hears only its own last
//! move and its own percepts ([`super::message::Heard::Private`]), so it keeps a belief
//! (the states consistent with them) and searches by information-set MCTS
//! ([`propnet_mcts::hidden::BeliefPlayer`]) over the compiled netlist. Used for GDL-II
//! games, and for GDL-I games whose manager speaks the GDL-II protocol (then the player
//! does not see the other roles' moves either, and believes accordingly).

use super::play::Think;
use super::worker::{reply_of, Job, Reply, HANDOVER};
use propnet_mcts::hidden::{BeliefParams, BeliefPlayer, HiddenPlayer};
use propnet_mcts::{Budget, MctsParams};
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::backend::{Backend, BackendError};
use serde_json::json;
use std::time::Instant;

/// The netlist, our role and the belief player of one GDL-II match.
pub struct HiddenPlay {
    net: Netlist,
    role: usize,
    player: BeliefPlayer,
    /// Observations taken (the turn the next PLAY should carry, less one).
    turn: u64,
}

impl HiddenPlay {
    /// The match of `net` for our `role` at the initial state: a belief player with the
    /// default [`BeliefParams`] (seed from `params`), rollouts on `backend`.
    pub fn new(net: Netlist, backend: Box<dyn Backend>, role: usize, params: &MctsParams) -> Self {
        let bp = BeliefParams {
            seed: params.seed,
            ..BeliefParams::default()
        };
        let label = format!("belief:{}", backend.describe());
        let mut player = BeliefPlayer::new(label, backend, bp, Budget::Iterations(0));
        player.new_game(&net, role, 0);
        Self {
            net,
            role,
            player,
            turn: 0,
        }
    }

    /// Describes the engine and its belief now.
    pub fn describe(&self) -> String {
        let (n, distinct, _) = self.player.belief_size();
        format!(
            "belief player over the netlist ({}); belief: {n} states, {distinct} distinct",
            self.player.label()
        )
    }

    /// Takes in what a PLAY or STOP says of the last step: our move as played (canonical
    /// text) and our percepts (canonical texts), taking at most until `until`. Returns the
    /// problems found (a move that is not one of our role's, a percept the game never
    /// gives us: ignored, and the belief goes on without them).
    pub fn observe(&mut self, own: &str, percepts: &[String], until: Instant) -> Vec<String> {
        let mut problems = Vec::new();
        let role = &self.net.roles[self.role];
        let Some(own_id) = role
            .legal
            .iter()
            .map(|l| l.input)
            .find(|i| self.net.inputs[i.index()].name == own)
        else {
            problems.push(format!(
                "our last move `{own}` is not a move of role {} in the rules; the belief \
                 is not advanced",
                role.name
            ));
            return problems;
        };
        let mut seen: Vec<usize> = Vec::with_capacity(percepts.len());
        for p in percepts {
            match role.percepts.binary_search_by(|x| x.name.as_str().cmp(p)) {
                Ok(i) => seen.push(i),
                Err(_) => problems.push(format!(
                    "percept `{p}` is not one the rules give role {}; ignored",
                    role.name
                )),
            }
        }
        seen.sort_unstable();
        seen.dedup();
        self.player.set_budget(Budget::Deadline(until));
        self.player.observe(&self.net, own_id, &seen);
        self.turn += 1;
        let (_, distinct, rebuilds) = self.player.belief_size();
        if rebuilds > 0 && distinct == 0 {
            problems.push("no state is consistent with what was heard".into());
        }
        problems
    }

    /// Observations taken so far.
    pub fn turn(&self) -> u64 {
        self.turn
    }

    /// Our legal moves as the belief knows them (canonical texts, netlist order).
    pub fn legal_texts(&mut self) -> Vec<String> {
        self.legal()
            .iter()
            .map(|m| self.net.inputs[m.index()].name.clone())
            .collect()
    }

    fn legal(&mut self) -> Vec<InputId> {
        self.player.legal_moves(&self.net)
    }

    /// Searches until `deadline` (at once for a single legal move when `quick_forced`) and
    /// returns the move chosen; an empty text when there is no legal move.
    ///
    /// # Errors
    /// The rollout backend's error.
    pub fn think(&mut self, deadline: Instant, quick_forced: bool) -> Result<Think, BackendError> {
        let t0 = Instant::now();
        let legal = self.legal();
        let Some(&first) = legal.first() else {
            return Ok(Think::default());
        };
        let before = self.player.totals().unwrap_or_default();
        let chosen = if legal.len() == 1 && quick_forced {
            first
        } else {
            self.player.set_budget(Budget::Deadline(deadline));
            self.player.choose(&self.net, &legal)?
        };
        let after = self.player.totals().unwrap_or_default();
        Ok(Think {
            text: self.net.inputs[chosen.index()].name.clone(),
            iterations: after.iterations - before.iterations,
            playouts: after.playouts - before.playouts,
            elapsed: t0.elapsed(),
            nodes: 0,
            legal: legal.len(),
            factors: 0,
        })
    }
}

/// One GDL-II PLAY as the worker hands it over.
pub struct Step {
    /// PLAY count of the match.
    pub step: u64,
    /// The turn the PLAY carries.
    pub turn: u64,
    /// Our own last move and our percepts (canonical texts); `None` at the first PLAY.
    pub heard: Option<(String, Vec<String>)>,
    /// When the reply must leave.
    pub deadline: Instant,
}

/// One GDL-II PLAY: take in what was heard (using at most half the time to the deadline),
/// publish a first legal move, search until the deadline. `nil` without an engine.
pub(crate) fn play(job: &Job, engine: Option<&mut HiddenPlay>, step: Step) -> Reply {
    let Some(h) = engine else {
        job.slot.reach(step.step, None);
        let mut r = Reply::plain("nil".into(), "no engine".into());
        r.problems
            .push("a GDL-II PLAY, but the game is not compiled (yet): answered nil".into());
        return r;
    };
    let mut problems = Vec::new();
    if let Some((own, percepts)) = &step.heard {
        let now = Instant::now();
        let half = now + step.deadline.saturating_duration_since(now) / 2;
        problems.extend(h.observe(own, percepts, half));
    }
    if step.turn != h.turn() {
        problems.push(format!(
            "turn {} heard where {} was due (a PLAY lost or repeated?)",
            step.turn,
            h.turn()
        ));
    }
    let texts = h.legal_texts();
    job.slot
        .reach(step.step, texts.first().map(|t| job.spelling.respell(t)));
    if !problems.is_empty() {
        job.log.line(
            &job.id,
            &format!("PLAY step {}: {}", step.step, problems.join("; ")),
            json!({"step": step.step, "problems": problems}),
        );
    }
    let end = step.deadline.checked_sub(HANDOVER).unwrap_or(step.deadline);
    let engine = h.describe();
    let think = h.think(end, job.opts.quick_forced);
    let none = "no legal move in any state of the belief";
    reply_of(think, &texts, (engine, problems), none)
}
