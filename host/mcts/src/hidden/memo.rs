//! [`Memo`]: the scalar evaluations of a [`super::BeliefPlayer`]'s tree walks, remembered.
//! The walks of one search start from the few distinct states of the belief and follow
//! the same joint moves again and again, so most views and transitions repeat; each is
//! evaluated once (a gate-by-gate pass over the view or the transition's cones) and then
//! read back. States are interned: a walk holds a [`StateId`], a view is read by index
//! and a transition by a short key (the state's id and the joint move), so a step of a
//! walk hashes a few words instead of the whole state. Everything is forgotten at the
//! start of a walk once [`MEMO_ENTRIES`] states are held (ids stay valid within a walk).

use propnet_netlist::playout::{goals_of, legal_of};
use propnet_netlist::scalar::ScalarNet;
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::machine::State;
use rustc_hash::FxHashMap;

/// States held before the memo is emptied.
pub(super) const MEMO_ENTRIES: usize = 1 << 16;

/// An interned state (an index into the memo's states).
pub(super) type StateId = u32;

/// What a walk needs of a state: the goals (scaled to 0..1) when it ends there (terminal,
/// or a role without a legal move), else every role's legal moves.
#[derive(Clone, Debug)]
pub(super) enum View {
    /// The walk ends: each role's goal over 100.
    End(Vec<f64>),
    /// Legal moves per role (non-empty each).
    Moves(Vec<Vec<InputId>>),
}

/// A transition: the next state and every role's percepts.
pub(super) struct Step {
    /// The next state.
    pub next: StateId,
    /// Per role, its percepts' indices (ascending).
    pub percepts: Vec<Vec<usize>>,
}

/// Remembered views and transitions (see the module docs).
#[derive(Default)]
pub(super) struct Memo {
    ids: FxHashMap<State, StateId>,
    states: Vec<State>,
    views: Vec<Option<View>>,
    /// Keyed by the state's id followed by the joint move's input indices.
    steps: FxHashMap<Vec<u32>, Step>,
    key: Vec<u32>,
}

impl Memo {
    /// Empties the memo when it holds [`MEMO_ENTRIES`] states; call between walks only.
    pub fn trim(&mut self) {
        if self.states.len() >= MEMO_ENTRIES {
            self.clear();
        }
    }

    /// The id of `state`, interned when new.
    pub fn intern(&mut self, state: &State) -> StateId {
        if let Some(&id) = self.ids.get(state.as_slice()) {
            return id;
        }
        let id = self.states.len() as StateId;
        self.ids.insert(state.clone(), id);
        self.states.push(state.clone());
        self.views.push(None);
        id
    }

    /// The state of `id`.
    pub fn state(&self, id: StateId) -> &State {
        &self.states[id as usize]
    }

    /// The [`View`] of state `id`.
    pub fn view(&mut self, net: &Netlist, scalar: &mut ScalarNet, id: StateId) -> &View {
        let i = id as usize;
        if self.views[i].is_none() {
            let values = scalar.view(&self.states[i]);
            let legal = legal_of(net, values);
            let end = values[net.terminal.index()] || legal.iter().any(Vec::is_empty);
            self.views[i] = Some(match end {
                true => View::End(
                    (goals_of(net, values).iter())
                        .map(|&g| f64::from(g) / 100.0)
                        .collect(),
                ),
                false => View::Moves(legal),
            });
        }
        self.views[i].as_ref().expect("just filled")
    }

    /// The transition of state `id` by `joint`, with every role's percepts.
    pub fn step(
        &mut self,
        net: &Netlist,
        scalar: &mut ScalarNet,
        (id, joint): (StateId, &[InputId]),
    ) -> &Step {
        self.key.clear();
        self.key.push(id);
        self.key.extend(joint.iter().map(|m| m.0));
        if !self.steps.contains_key(self.key.as_slice()) {
            let state = &self.states[id as usize];
            let (next, percepts) = scalar.next_with_percepts(net, state, joint);
            let next = self.intern(&next);
            self.steps.insert(self.key.clone(), Step { next, percepts });
        }
        &self.steps[self.key.as_slice()]
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.ids.clear();
        self.states.clear();
        self.views.clear();
        self.steps.clear();
    }
}
