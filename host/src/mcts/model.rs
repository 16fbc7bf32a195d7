//! The game model MCTS searches: a small state-machine trait ([`GameModel`]) with batched
//! rollouts, and its netlist implementation ([`NetModel`], rollouts on any
//! [`crate::backend::Backend`]). The reference-interpreter implementation is
//! [`super::InterpModel`]; the tree search is written once over the trait.

use crate::backend::{Backend, BackendError, BatchRequest, Job, JobResult};
use crate::machine::State;
use propnet_compiler::interp::InterpError;
use propnet_netlist::playout::{eval_gates, goals_of, legal_of};
use propnet_netlist::{InputId, Netlist};
use std::fmt::Debug;
use std::hash::Hash;
use std::time::Instant;

/// What a state offers: whether it is terminal, every role's legal moves and the goals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View<M> {
    /// `terminal` holds.
    pub terminal: bool,
    /// Legal moves per role (role order; each list in the model's fixed order).
    pub legal: Vec<Vec<M>>,
    /// Goal value per role, 0..=100 (largest derivable value, 0 when none).
    pub goals: Vec<u8>,
}

impl<M> View<M> {
    /// The game ends here: terminal, or a role has no legal move (the playout rule of
    /// [`propnet_netlist::playout`] ends a playout there too).
    pub fn ends(&self) -> bool {
        self.terminal || self.legal.iter().any(Vec::is_empty)
    }
}

/// Rollouts requested in one call: one `(start state, first playout index, count)` per job.
#[derive(Clone, Debug)]
pub struct RolloutBatch<S> {
    /// The jobs: start state, index of the first playout (the RNG counter), playouts.
    pub jobs: Vec<(S, u32, u32)>,
    /// RNG seed (key of [`propnet_netlist::rng`]).
    pub seed: u64,
    /// Joint moves after which a playout stops and scores the state reached.
    pub max_steps: u32,
    /// A model whose single playout can be slow (the interpreter) stops at this instant and
    /// returns the jobs finished so far; a fast one may ignore it.
    pub deadline: Option<Instant>,
}

/// Why a model call failed.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The playout backend failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The reference interpreter failed (evaluation budget, non-stratified state, …).
    #[error("reference interpreter: {0}")]
    Interp(#[from] InterpError),
}

/// A game's state machine as MCTS and the GGP player use it.
pub trait GameModel {
    /// A game state.
    type State: Clone;
    /// A move of one role.
    type Move: Copy + Eq + Hash + Debug;
    /// Number of roles.
    fn role_count(&self) -> usize;
    /// The initial state.
    ///
    /// # Errors
    /// The model's evaluation error.
    fn initial_state(&mut self) -> Result<Self::State, ModelError>;
    /// Terminal flag, legal moves and goals of `state`.
    ///
    /// # Errors
    /// The model's evaluation error.
    fn view(&mut self, state: &Self::State) -> Result<View<Self::Move>, ModelError>;
    /// The state after `joint` (one move per role, role order).
    ///
    /// # Errors
    /// The model's evaluation error.
    fn next_state(
        &mut self,
        state: &Self::State,
        joint: &[Self::Move],
    ) -> Result<Self::State, ModelError>;
    /// Runs the batch's random playouts; one result per job in order, or fewer (a prefix)
    /// when the deadline stopped the batch.
    ///
    /// # Errors
    /// The backend's or interpreter's error.
    fn rollouts(&mut self, batch: &RolloutBatch<Self::State>)
        -> Result<Vec<JobResult>, ModelError>;
    /// Canonical text of a move, e.g. `(mark 1 2)` or `noop` (lower case).
    fn move_text(&self, m: Self::Move) -> String;
    /// Canonical texts of the fluents true in `state`, sorted.
    fn state_fluents(&self, state: &Self::State) -> Vec<String>;
    /// One line naming the model and its backend.
    fn describe(&self) -> String;
}

/// The compiled game: tree moves by scalar netlist evaluation, rollouts on a backend
/// (which must run the same netlist).
pub struct NetModel<'a> {
    net: &'a Netlist,
    backend: &'a mut dyn Backend,
}

impl<'a> NetModel<'a> {
    /// The model of `net` with rollouts on `backend`.
    pub fn new(net: &'a Netlist, backend: &'a mut dyn Backend) -> Self {
        Self { net, backend }
    }
}

/// [`View`] of a netlist state, from one scalar evaluation.
pub fn net_view(net: &Netlist, state: &[bool]) -> View<InputId> {
    let values = eval_gates(net, state, &vec![false; net.inputs.len()]);
    View {
        terminal: values[net.terminal.index()],
        legal: legal_of(net, &values),
        goals: goals_of(net, &values),
    }
}

/// The netlist state after `joint` in `state` (scalar evaluation of the whole netlist).
pub fn net_next_state(net: &Netlist, state: &[bool], joint: &[InputId]) -> State {
    let mut inputs = vec![false; net.inputs.len()];
    for m in joint {
        inputs[m.index()] = true;
    }
    let v = eval_gates(net, state, &inputs);
    net.latches.iter().map(|l| v[l.next.index()]).collect()
}

impl GameModel for NetModel<'_> {
    type State = State;
    type Move = InputId;
    fn role_count(&self) -> usize {
        self.net.roles.len()
    }
    fn initial_state(&mut self) -> Result<State, ModelError> {
        Ok(self.net.initial_state())
    }
    fn view(&mut self, state: &State) -> Result<View<InputId>, ModelError> {
        Ok(net_view(self.net, state))
    }
    fn next_state(&mut self, state: &State, joint: &[InputId]) -> Result<State, ModelError> {
        Ok(net_next_state(self.net, state, joint))
    }
    fn rollouts(&mut self, batch: &RolloutBatch<State>) -> Result<Vec<JobResult>, ModelError> {
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
        Ok(self.backend.run_batch(&req)?.jobs)
    }
    fn move_text(&self, m: InputId) -> String {
        self.net.inputs[m.index()].name.clone()
    }
    fn state_fluents(&self, state: &State) -> Vec<String> {
        let mut v: Vec<String> = self
            .net
            .true_fluents(state)
            .into_iter()
            .map(str::to_string)
            .collect();
        v.sort_unstable();
        v
    }
    fn describe(&self) -> String {
        format!("netlist, rollouts on {}", self.backend.describe())
    }
}
