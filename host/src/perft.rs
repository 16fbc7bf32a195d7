//! Counts joint-move paths from the initial state by depth ("perft"), breadth-first with
//! path multiplicities over distinct states, through the netlist state machine.

use crate::machine::{NetMachine, State};
use propnet_netlist::Netlist;
use std::collections::HashMap;

/// Counts at one depth `d` (1-based).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PerftLayer {
    /// Joint-move paths of length `d` that do not pass through a terminal state before
    /// depth `d` (terminal states are not expanded).
    pub nodes: u64,
    /// Of those, paths that end in a terminal state.
    pub terminal_nodes: u64,
    /// Distinct states at depth `d`.
    pub distinct_states: usize,
    /// Paths reaching a non-terminal state at depth `d - 1` where some role had no legal
    /// move (counted at the depth where the move was missing, not expanded).
    pub no_legal_move_nodes: u64,
}

/// Perft to `depth` from the initial state; entry `d - 1` holds depth `d`.
pub fn perft(net: &Netlist, depth: u32) -> Vec<PerftLayer> {
    let m = NetMachine::new(net);
    let mut layer: HashMap<State, u64> = HashMap::new();
    layer.insert(m.initial_state(), 1);
    let mut out = Vec::with_capacity(depth as usize);
    for _ in 0..depth {
        let mut next: HashMap<State, u64> = HashMap::new();
        let mut res = PerftLayer::default();
        for (state, mult) in &layer {
            if m.is_terminal(state) {
                continue;
            }
            let legal = m.legal_moves(state);
            if legal.iter().any(Vec::is_empty) {
                res.no_legal_move_nodes += mult;
                continue;
            }
            // Odometer over the Cartesian product of the roles' legal moves.
            let mut pick = vec![0usize; legal.len()];
            loop {
                let joint: Vec<_> = pick.iter().zip(&legal).map(|(&i, l)| l[i]).collect();
                *next.entry(m.next_state(state, &joint)).or_insert(0) += mult;
                res.nodes += mult;
                let mut r = 0;
                while r < pick.len() {
                    pick[r] += 1;
                    if pick[r] < legal[r].len() {
                        break;
                    }
                    pick[r] = 0;
                    r += 1;
                }
                if r == pick.len() {
                    break;
                }
            }
        }
        res.distinct_states = next.len();
        res.terminal_nodes = next
            .iter()
            .filter(|(s, _)| m.is_terminal(s))
            .map(|(_, &c)| c)
            .sum();
        out.push(res);
        layer = next;
    }
    out
}
