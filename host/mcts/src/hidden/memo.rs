//! [`Memo`]: the scalar evaluations of a [`super::BeliefPlayer`]'s tree walks, remembered.
//! The walks of one search start from the few distinct states of the belief and follow
//! the same joint moves again and again, so most views and transitions repeat; each is
//! evaluated once (a gate-by-gate pass over the view or the transition's cones) and then
//! read from a hash map. The maps are emptied when they hold [`MEMO_ENTRIES`] entries.

use propnet_netlist::playout::{goals_of, legal_of};
use propnet_netlist::scalar::ScalarNet;
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::machine::State;
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// Entries per map before it is emptied.
pub(super) const MEMO_ENTRIES: usize = 1 << 16;

/// What a walk needs of a state: the goals (scaled to 0..1) when it ends there (terminal,
/// or a role without a legal move), else every role's legal moves.
#[derive(Clone, Debug)]
pub(super) enum View {
    /// The walk ends: each role's goal over 100.
    End(Vec<f64>),
    /// Legal moves per role (non-empty each).
    Moves(Vec<Vec<InputId>>),
}

/// A transition: the next state and the searching role's percepts.
pub(super) type Step = (State, Vec<usize>);

/// Remembered views and transitions (see the module docs).
#[derive(Default)]
pub(super) struct Memo {
    views: FxHashMap<State, Rc<View>>,
    steps: FxHashMap<(State, Vec<InputId>), Rc<Step>>,
}

impl Memo {
    /// The [`View`] of `state`.
    pub fn view(&mut self, net: &Netlist, scalar: &mut ScalarNet, state: &State) -> Rc<View> {
        if let Some(v) = self.views.get(state) {
            return v.clone();
        }
        let values = scalar.view(state);
        let legal = legal_of(net, values);
        let view = match values[net.terminal.index()] || legal.iter().any(Vec::is_empty) {
            true => View::End(
                (goals_of(net, values).iter())
                    .map(|&g| f64::from(g) / 100.0)
                    .collect(),
            ),
            false => View::Moves(legal),
        };
        if self.views.len() >= MEMO_ENTRIES {
            self.views.clear();
        }
        let view = Rc::new(view);
        self.views.insert(state.clone(), view.clone());
        view
    }

    /// The transition of `state` by `joint`, with `role`'s percepts.
    pub fn step(
        &mut self,
        net: &Netlist,
        scalar: &mut ScalarNet,
        (state, joint): (&State, &[InputId]),
        role: usize,
    ) -> Rc<Step> {
        let key = (state.clone(), joint.to_vec());
        if let Some(s) = self.steps.get(&key) {
            return s.clone();
        }
        let (next, mut seen) = scalar.next_with_percepts(net, state, joint);
        let step = Rc::new((next, std::mem::take(&mut seen[role])));
        if self.steps.len() >= MEMO_ENTRIES {
            self.steps.clear();
        }
        self.steps.insert(key, step.clone());
        step
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.views.clear();
        self.steps.clear();
    }
}
