//! [`NetMachine`]: the compiled netlist as a [`GameMachine`]. Single states are evaluated
//! by scalar evaluation of the gates: [`propnet_netlist::playout::eval_gates`] in the
//! inherent methods, and through the [`GameMachine`] trait (a search tree's nodes) by a
//! [`ScalarNet`] built on first use, which evaluates only the cone each question needs;
//! rollouts
//! run on the [`Backend`] the machine was given (which must run the same netlist), or on
//! the scalar reference playout without one.

use super::{stream_in_batches, Expand, GameMachine, MachineError, RolloutBatch, StateFeed, View};
use crate::backend::{run_reference, Backend, BatchRequest, Job, JobResult};
use crate::stream::{JobFeed, StreamJob};
use propnet_netlist::factors::outcome_free_moves;
use propnet_netlist::playout::{eval_gates, goals_of, legal_of};
use propnet_netlist::scalar::ScalarNet;
use propnet_netlist::{InputId, Netlist};
use std::sync::Arc;
use std::time::Instant;

/// A game state of a netlist: one bool per latch (base proposition).
pub type State = Vec<bool>;

/// A joint move: one chosen input (move) per role, in role order.
pub type JointMove = Vec<InputId>;

/// The state machine of a netlist (see the module docs).
pub struct NetMachine<'a> {
    net: &'a Netlist,
    backend: Option<&'a mut dyn Backend>,
    /// The flattened netlist of the trait's evaluations, built on first use.
    scalar: Option<Box<ScalarNet>>,
    /// Per input, whether [`GameMachine::view`] merges it with the role's other
    /// outcome-free moves ([`NetMachine::merging_free_moves`]); `None`: every move listed.
    free: Option<Arc<[bool]>>,
}

/// The inherent methods are the infallible forms of [`GameMachine`]'s (a netlist's
/// evaluation cannot fail); generic code calls the trait's.
impl<'a> NetMachine<'a> {
    /// The machine of `net`; rollouts through the scalar reference playout (slow: for
    /// perft, the solver and tests).
    pub fn new(net: &'a Netlist) -> Self {
        Self {
            net,
            backend: None,
            scalar: None,
            free: None,
        }
    }

    /// The machine of `net` with rollouts on `backend`, which must run `net`.
    pub fn with_backend(net: &'a Netlist, backend: &'a mut dyn Backend) -> Self {
        Self {
            net,
            backend: Some(backend),
            scalar: None,
            free: None,
        }
    }

    /// This machine with [`GameMachine::view`] listing, of each role's legal moves that can
    /// never change the outcome ([`outcome_free_moves`]: moves of an irrelevant factor,
    /// inert ones), only the first: the others lead to equivalent states, so a search tree
    /// need not try each. Other moves, the inherent [`NetMachine::view_of`] and rollouts
    /// are unchanged. Costs one pass over the netlist ([`free_moves_to_merge`]; machines of
    /// one search share one result through [`NetMachine::merging`]).
    pub fn merging_free_moves(self) -> Self {
        let free = free_moves_to_merge(self.net);
        self.merging(free)
    }

    /// This machine merging the outcome-free moves `free` (from [`free_moves_to_merge`] for
    /// this machine's netlist) as [`NetMachine::merging_free_moves`] does; `None` merges none.
    pub fn merging(mut self, free: Option<Arc<[bool]>>) -> Self {
        self.free = free;
        self
    }

    /// The netlist.
    pub fn netlist(&self) -> &'a Netlist {
        self.net
    }

    /// The initial state.
    pub fn initial_state(&self) -> State {
        self.net.initial_state()
    }

    /// Terminal flag, legal moves and goals of `state`, from one scalar evaluation.
    pub fn view_of(&self, state: &[bool]) -> View<InputId> {
        let values = eval_gates(self.net, state, &vec![false; self.net.inputs.len()]);
        View {
            terminal: values[self.net.terminal.index()],
            legal: legal_of(self.net, &values),
            goals: goals_of(self.net, &values),
        }
    }

    /// Legal moves of every role (role order; each list in netlist order).
    pub fn legal_moves(&self, state: &[bool]) -> Vec<Vec<InputId>> {
        self.view_of(state).legal
    }

    /// True when `state` is terminal.
    pub fn is_terminal(&self, state: &[bool]) -> bool {
        self.view_of(state).terminal
    }

    /// Goal value per role (largest true goal, 0 if none).
    pub fn goals(&self, state: &[bool]) -> Vec<u8> {
        self.view_of(state).goals
    }

    /// The state after `joint` (one input per role) is played in `state`.
    pub fn next_state(&self, state: &[bool], joint: &[InputId]) -> State {
        let mut inputs = vec![false; self.net.inputs.len()];
        for m in joint {
            inputs[m.index()] = true;
        }
        let v = eval_gates(self.net, state, &inputs);
        self.net.latches.iter().map(|l| v[l.next.index()]).collect()
    }

    /// The flattened netlist, built on first use.
    fn scalar(&mut self) -> &mut ScalarNet {
        let net = self.net;
        self.scalar
            .get_or_insert_with(|| Box::new(ScalarNet::new(net)))
    }

    /// Text of a move, e.g. `(mark 1 1)`.
    pub fn move_name(&self, m: InputId) -> &'a str {
        &self.net.inputs[m.index()].name
    }

    /// Names of the latches that are true in `state`, sorted (the fluents of the state).
    pub fn state_fluents(&self, state: &[bool]) -> Vec<&'a str> {
        let mut v = self.net.true_fluents(state);
        v.sort_unstable();
        v
    }
}

impl GameMachine for NetMachine<'_> {
    type State = State;
    type Move = InputId;
    fn role_count(&self) -> usize {
        self.net.roles.len()
    }
    fn initial_state(&mut self) -> Result<State, MachineError> {
        Ok(NetMachine::initial_state(self))
    }
    fn view(&mut self, state: &State) -> Result<View<InputId>, MachineError> {
        let net = self.net;
        let values = self.scalar().view(state);
        let mut view = View {
            terminal: values[net.terminal.index()],
            legal: legal_of(net, values),
            goals: goals_of(net, values),
        };
        merge_free(self.free.as_deref(), &mut view);
        Ok(view)
    }
    fn expand(
        &mut self,
        pairs: &[(&State, &[InputId])],
    ) -> Result<Vec<(State, View<InputId>)>, MachineError> {
        let NetMachine {
            net, scalar, free, ..
        } = self;
        Evaluator { net, scalar, free }.expand(pairs)
    }
    fn streams(&self, batch: u64) -> bool {
        self.backend.as_ref().is_some_and(|b| b.streams(batch))
    }
    fn rollout_stream(
        &mut self,
        seed: u64,
        max_steps: u32,
        deadline: Option<Instant>,
        feed: &mut dyn StateFeed<State, InputId>,
    ) -> Result<(), MachineError> {
        let NetMachine {
            net,
            backend,
            scalar,
            free,
        } = self;
        let Some(backend) = backend.as_deref_mut() else {
            return stream_in_batches(self, (seed, max_steps, deadline), feed);
        };
        let mut eval = Evaluator { net, scalar, free };
        let mut jobs = Jobs {
            feed,
            eval: &mut eval,
        };
        Ok(backend.run_stream(seed, max_steps, &mut jobs)?)
    }
    fn next_state(&mut self, state: &State, joint: &[InputId]) -> Result<State, MachineError> {
        let net = self.net;
        Ok(self.scalar().next_state(net, state, joint))
    }
    fn rollouts(&mut self, batch: &RolloutBatch<State>) -> Result<Vec<JobResult>, MachineError> {
        let req = BatchRequest {
            jobs: batch
                .jobs
                .iter()
                .map(|(s, first, count)| Job {
                    start: s.clone(),
                    first_playout: *first,
                    count: *count,
                })
                .collect(),
            seed: batch.seed,
            max_steps: batch.max_steps,
            want_records: false,
        };
        match &mut self.backend {
            Some(b) => Ok(b.run_batch(&req)?.jobs),
            None => Ok(run_reference(self.net, &req).jobs),
        }
    }
    fn amaf_keys(&self) -> Option<super::MoveKeys<InputId>> {
        Some((self.net.inputs.len(), |m| m.index() as u32))
    }
    fn move_text(&self, m: InputId) -> String {
        self.move_name(m).to_string()
    }
    fn state_fluents(&self, state: &State) -> Vec<String> {
        NetMachine::state_fluents(self, state)
            .into_iter()
            .map(str::to_string)
            .collect()
    }
    fn describe(&self) -> String {
        match &self.backend {
            Some(b) => format!("netlist, rollouts on {}", b.describe()),
            None => "netlist, rollouts on the scalar reference playout".to_string(),
        }
    }
}

/// Per input of `net`, whether it is outcome-free ([`outcome_free_moves`]), or `None` when
/// no role has two such moves (a search then has nothing to merge).
pub fn free_moves_to_merge(net: &Netlist) -> Option<Arc<[bool]>> {
    let free = outcome_free_moves(net);
    let per_role =
        |r: &propnet_netlist::Role| r.legal.iter().filter(|l| free[l.input.index()]).count();
    net.roles
        .iter()
        .any(|r| per_role(r) >= 2)
        .then(|| free.into())
}

/// Keeps, of each role's outcome-free legal moves (`free`, when merging:
/// [`NetMachine::merging_free_moves`]), only the first.
fn merge_free(free: Option<&[bool]>, view: &mut View<InputId>) {
    if let Some(free) = free {
        for moves in &mut view.legal {
            let mut kept_one = false;
            moves.retain(|m| !free[m.index()] || !std::mem::replace(&mut kept_one, true));
        }
    }
}

/// The evaluating part of a [`NetMachine`] (borrowed apart from its backend, so that a
/// search can create nodes while the backend streams its rollouts).
struct Evaluator<'m, 'a> {
    net: &'m &'a Netlist,
    scalar: &'m mut Option<Box<ScalarNet>>,
    free: &'m Option<Arc<[bool]>>,
}

impl Expand<State, InputId> for Evaluator<'_, '_> {
    /// Next states and views in lanes, [`propnet_netlist::scalar::LANES`] per pass.
    fn expand(
        &mut self,
        pairs: &[(&State, &[InputId])],
    ) -> Result<Vec<(State, View<InputId>)>, MachineError> {
        let net: &Netlist = self.net;
        let scalar = self
            .scalar
            .get_or_insert_with(|| Box::new(ScalarNet::new(net)));
        let flat: Vec<(&[bool], &[InputId])> =
            pairs.iter().map(|(s, j)| (s.as_slice(), *j)).collect();
        let next = scalar.next_states(net, &flat);
        let refs: Vec<&[bool]> = next.iter().map(Vec::as_slice).collect();
        let outputs = scalar.views(net, &refs);
        Ok(next
            .into_iter()
            .zip(outputs)
            .map(|(state, o)| {
                let mut view = View {
                    terminal: o.terminal,
                    legal: o.legal,
                    goals: o.goals,
                };
                merge_free(self.free.as_deref(), &mut view);
                (state, view)
            })
            .collect())
    }
}

/// A [`StateFeed`] as the backend's [`JobFeed`].
struct Jobs<'f, 'e> {
    feed: &'f mut dyn StateFeed<State, InputId>,
    eval: &'e mut dyn Expand<State, InputId>,
}

impl JobFeed for Jobs<'_, '_> {
    fn feed(&mut self, done: &mut Vec<(u64, JobResult)>, room: u64) -> Vec<StreamJob> {
        let jobs = self.feed.feed(self.eval, done, room);
        jobs.into_iter()
            .map(|(tag, start, first_playout, count)| StreamJob {
                tag,
                job: Job {
                    start,
                    first_playout,
                    count,
                },
            })
            .collect()
    }
    fn wants_amaf(&self) -> bool {
        self.feed.wants_amaf()
    }
}
