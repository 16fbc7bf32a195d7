//! A GGP state machine over a netlist (the field's `getLegalMoves`/`getNextState` API),
//! one state at a time. Used by MCTS tree moves, the solver and `perft`; rollouts go through
//! a [`crate::backend::Backend`] instead.

use propnet_netlist::playout::{eval_gates, goals_of, legal_of};
use propnet_netlist::{InputId, Netlist};

/// A game state: one bool per latch (base proposition).
pub type State = Vec<bool>;

/// A joint move: one chosen input (move) per role, in role order.
pub type JointMove = Vec<InputId>;

/// State-machine view of a netlist.
pub struct NetMachine<'a> {
    net: &'a Netlist,
}

impl<'a> NetMachine<'a> {
    /// Wraps a netlist.
    pub fn new(net: &'a Netlist) -> Self {
        Self { net }
    }

    /// The netlist.
    pub fn netlist(&self) -> &'a Netlist {
        self.net
    }

    /// The initial state.
    pub fn initial_state(&self) -> State {
        self.net.initial_state()
    }

    fn view(&self, state: &[bool]) -> Vec<bool> {
        eval_gates(self.net, state, &vec![false; self.net.inputs.len()])
    }

    /// Legal moves of every role (role order; each list in netlist order).
    pub fn legal_moves(&self, state: &[bool]) -> Vec<Vec<InputId>> {
        legal_of(self.net, &self.view(state))
    }

    /// True when `state` is terminal.
    pub fn is_terminal(&self, state: &[bool]) -> bool {
        self.view(state)[self.net.terminal.index()]
    }

    /// Goal value per role (largest true goal, 0 if none).
    pub fn goals(&self, state: &[bool]) -> Vec<u8> {
        goals_of(self.net, &self.view(state))
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

    /// Text of a move, e.g. `(mark 1 1)`.
    pub fn move_name(&self, m: InputId) -> &'a str {
        &self.net.inputs[m.index()].name
    }

    /// Names of the latches that are true in `state`, sorted (the fluents of the state).
    pub fn state_fluents(&self, state: &[bool]) -> Vec<&'a str> {
        self.net
            .latches
            .iter()
            .zip(state)
            .filter(|(_, &b)| b)
            .map(|(l, _)| l.name.as_str())
            .collect()
    }
}
