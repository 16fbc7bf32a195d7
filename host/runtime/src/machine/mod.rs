//! The one game state machine of propnet (the field's `getInitialState` / `getLegalMoves` /
//! `getNextState` / `isTerminal` / `getGoals` API, plus batched random rollouts):
//! [`GameMachine`]. It has exactly two implementations, the compiled netlist
//! ([`NetMachine`]: scalar evaluation of the gates for single states, rollouts on any
//! [`crate::backend::Backend`]) and the reference interpreter ([`InterpMachine`], for
//! games that cannot be compiled). MCTS, the GGP player, `compare`, `trace`/`verify`
//! ([`crate::net_trace`]), `perft` and the solver are written over it (or over
//! [`NetMachine`]'s infallible inherent methods, where only a netlist makes sense).

mod interp;
mod net;

pub use interp::InterpMachine;
pub use net::{free_moves_to_merge, JointMove, NetMachine, State};

use crate::backend::{BackendError, JobResult};
use propnet_compiler::interp::InterpError;
use std::fmt::Debug;
use std::hash::Hash;
use std::time::Instant;

/// What a state offers: whether it is terminal, every role's legal moves and the goals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View<M> {
    /// `terminal` holds.
    pub terminal: bool,
    /// Legal moves per role (role order; each list in the machine's fixed order).
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

/// Random playouts requested in one [`GameMachine::rollouts`] call: one `(start state, first playout index, count)` per job.
#[derive(Clone, Debug)]
pub struct RolloutBatch<S> {
    /// The jobs: start state, index of the first playout (the RNG counter), playouts.
    pub jobs: Vec<(S, u32, u32)>,
    /// RNG seed (key of [`propnet_netlist::rng`]).
    pub seed: u64,
    /// Joint moves after which a playout stops and scores the state reached.
    pub max_steps: u32,
    /// A machine whose single playout can be slow (the interpreter) stops at this instant and
    /// returns the jobs finished so far; a fast one may ignore it.
    pub deadline: Option<Instant>,
}

/// Why a state-machine call failed.
#[derive(Debug, thiserror::Error)]
pub enum MachineError {
    /// The playout backend failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The reference interpreter failed (evaluation budget, non-stratified state, …).
    #[error("reference interpreter: {0}")]
    Interp(#[from] InterpError),
}

/// A game's state machine, as MCTS, the GGP player, traces and the solver use it.
pub trait GameMachine {
    /// A game state.
    type State: Clone;
    /// A move of one role.
    type Move: Copy + Eq + Hash + Debug;
    /// Number of roles.
    fn role_count(&self) -> usize;
    /// The initial state.
    ///
    /// # Errors
    /// The machine's evaluation error.
    fn initial_state(&mut self) -> Result<Self::State, MachineError>;
    /// Terminal flag, legal moves and goals of `state`.
    ///
    /// # Errors
    /// The machine's evaluation error.
    fn view(&mut self, state: &Self::State) -> Result<View<Self::Move>, MachineError>;
    /// The state after `joint` (one move per role, role order).
    ///
    /// # Errors
    /// The machine's evaluation error.
    fn next_state(
        &mut self,
        state: &Self::State,
        joint: &[Self::Move],
    ) -> Result<Self::State, MachineError>;
    /// The children of several `(state, joint move)` pairs: each one's next state and that
    /// state's view, in order (what a search tree needs of the nodes it creates). The
    /// default evaluates one pair after another; a netlist evaluates them in lanes,
    /// [`propnet_netlist::scalar::LANES`] per pass of each cone.
    ///
    /// # Errors
    /// The machine's evaluation error.
    fn expand(
        &mut self,
        pairs: &[(&Self::State, &[Self::Move])],
    ) -> Result<Children<Self::State, Self::Move>, MachineError> {
        pairs
            .iter()
            .map(|(s, joint)| {
                let next = self.next_state(s, joint)?;
                let view = self.view(&next)?;
                Ok((next, view))
            })
            .collect()
    }
    /// Whether [`GameMachine::rollout_stream`] refills the backend's lanes as playouts
    /// finish, at least as fast as batches of `batch` playouts ([`Backend::streams`]: a
    /// netlist on the CPU simulator); `false`: it runs one batch at a time.
    ///
    /// [`Backend::streams`]: crate::backend::Backend::streams
    fn streams(&self, batch: u64) -> bool {
        let _ = batch;
        false
    }
    /// Runs the rollout jobs `feed` gives until it gives no more, handing it each job's
    /// result as it is done ([`crate::stream`]); `feed` creates the nodes it needs through
    /// the machine's [`Expand`]. The default runs what the feed gives one batch at a time
    /// ([`stream_in_batches`]); `deadline` as in [`RolloutBatch`].
    ///
    /// # Errors
    /// The backend's or interpreter's error.
    fn rollout_stream(
        &mut self,
        seed: u64,
        max_steps: u32,
        deadline: Option<Instant>,
        feed: &mut dyn StateFeed<Self::State, Self::Move>,
    ) -> Result<(), MachineError> {
        stream_in_batches(self, (seed, max_steps, deadline), feed)
    }
    /// Runs the batch's random playouts; one result per job in order, or fewer (a prefix)
    /// when the deadline stopped the batch.
    ///
    /// # Errors
    /// The backend's or interpreter's error.
    fn rollouts(
        &mut self,
        batch: &RolloutBatch<Self::State>,
    ) -> Result<Vec<JobResult>, MachineError>;
    /// How the moves are numbered in [`JobResult::amaf`]: the number of move keys and
    /// each move's key (`0..count`), or `None` when the machine's rollouts never report
    /// move sums (the default; a netlist's key is its input index).
    fn amaf_keys(&self) -> Option<MoveKeys<Self::Move>> {
        None
    }
    /// Canonical text of a move, e.g. `(mark 1 2)` or `noop` (lower case).
    fn move_text(&self, m: Self::Move) -> String;
    /// Canonical texts of the fluents true in `state`, sorted.
    fn state_fluents(&self, state: &Self::State) -> Vec<String>;
    /// One line naming the machine and its rollout backend.
    fn describe(&self) -> String;
}

/// Evaluates the children of `(state, joint move)` pairs: what a search's [`StateFeed`]
/// may ask of the machine while its rollouts stream ([`GameMachine::expand`]).
pub trait Expand<S, M> {
    /// Each pair's next state and that state's view, in order.
    ///
    /// # Errors
    /// The machine's evaluation error.
    fn expand(&mut self, pairs: &[(&S, &[M])]) -> Result<Vec<(S, View<M>)>, MachineError>;
}

/// A [`GameMachine`] as an [`Expand`].
pub struct ExpandVia<'a, G: ?Sized>(pub &'a mut G);

impl<G: GameMachine + ?Sized> Expand<G::State, G::Move> for ExpandVia<'_, G> {
    fn expand(
        &mut self,
        pairs: &[(&G::State, &[G::Move])],
    ) -> Result<Vec<(G::State, View<G::Move>)>, MachineError> {
        self.0.expand(pairs)
    }
}

/// A move's key in [`JobResult::amaf`] (a netlist's input index).
pub type MoveKey<M> = fn(M) -> u32;

/// The number of move keys (`0..count`) and each move's key ([`GameMachine::amaf_keys`]).
pub type MoveKeys<M> = (usize, MoveKey<M>);

/// Children as [`GameMachine::expand`] gives them: each one's state and view.
pub type Children<S, M> = Vec<(S, View<M>)>;

/// A job of a state stream: tag, start state, index of the first playout, playouts.
pub type StateJob<S> = (u64, S, u32, u32);

/// The search's side of [`GameMachine::rollout_stream`] (as [`crate::stream::JobFeed`],
/// with start states of the machine and its evaluation at hand).
pub trait StateFeed<S, M> {
    /// `done`: the jobs finished since the last call, by tag (drain it; a job with no
    /// playouts was cut off by the deadline); `room`: playouts that could start at once;
    /// `eval`: the machine's evaluation of new nodes. Returns the next jobs; none while
    /// nothing runs ends the stream.
    fn feed(
        &mut self,
        eval: &mut dyn Expand<S, M>,
        done: &mut Vec<(u64, JobResult)>,
        room: u64,
    ) -> Vec<StateJob<S>>;
    /// Whether the results should carry [`JobResult::amaf`] (asked once, when the stream
    /// starts). Default `false`.
    fn wants_amaf(&self) -> bool {
        false
    }
}

/// Playouts a stream run in batches asks its feed for at a time.
const STREAM_BATCH: u64 = 256;

/// [`GameMachine::rollout_stream`] one batch at a time: what `feed` gives runs as one
/// [`GameMachine::rollouts`] call (`seed`, `max_steps`, `deadline`); jobs the deadline cut
/// off are reported with no playouts.
///
/// # Errors
/// The machine's error.
pub fn stream_in_batches<G: GameMachine + ?Sized>(
    m: &mut G,
    (seed, max_steps, deadline): (u64, u32, Option<Instant>),
    feed: &mut dyn StateFeed<G::State, G::Move>,
) -> Result<(), MachineError> {
    let mut done = Vec::new();
    loop {
        let jobs = feed.feed(&mut ExpandVia(m), &mut done, STREAM_BATCH);
        done.clear();
        if jobs.is_empty() {
            return Ok(());
        }
        let tags: Vec<u64> = jobs.iter().map(|j| j.0).collect();
        let batch = RolloutBatch {
            jobs: jobs.into_iter().map(|(_, s, f, c)| (s, f, c)).collect(),
            seed,
            max_steps,
            deadline,
        };
        let mut results = m.rollouts(&batch)?.into_iter();
        done.extend(
            tags.into_iter()
                .map(|t| (t, results.next().unwrap_or_default())),
        );
    }
}
