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

/// Why [`perft_each`] stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PerftEnd {
    /// Every depth up to the one asked for was counted.
    Depth,
    /// A depth had no nodes (every path ended in a terminal state or without a legal move):
    /// deeper depths would be all zeros. Holds that depth.
    NoNodes(u32),
    /// The next depth would hold more than the given number of distinct states (the memory
    /// bound); it was not counted.
    TooManyStates(usize),
    /// A path count of the given depth passed 2^64 - 1; that depth was not printed.
    Overflow(u32),
    /// A [`crate::stop`] request ended the count.
    Interrupted,
}

/// Perft to `depth` from the initial state; entry `d - 1` holds depth `d`. Stops early at
/// the first depth with no nodes.
pub fn perft(net: &Netlist, depth: u32) -> Vec<PerftLayer> {
    let mut out = Vec::new();
    let _ = perft_each(net, depth, usize::MAX, |_, l| {
        out.push(l.clone());
        Ok::<(), std::convert::Infallible>(())
    });
    out
}

/// Perft to `depth`, calling `on_layer(d, layer)` as soon as depth `d` is counted. Holds
/// two layers of distinct states at a time and at most `max_states` states in one layer.
/// Stops after a depth with no nodes, at a [`crate::stop`] request, or when the next layer
/// would exceed `max_states` (see [`PerftEnd`]).
///
/// # Errors
/// The first error of `on_layer`.
pub fn perft_each<E>(
    net: &Netlist,
    depth: u32,
    max_states: usize,
    mut on_layer: impl FnMut(u32, &PerftLayer) -> Result<(), E>,
) -> Result<PerftEnd, E> {
    let m = NetMachine::new(net);
    let mut layer: HashMap<State, u64> = HashMap::new();
    layer.insert(m.initial_state(), 1);
    for d in 1..=depth {
        let (res, next) = match expand(&m, &layer, max_states) {
            Ok(x) => x,
            Err(Stop::Overflow) => return Ok(PerftEnd::Overflow(d)),
            Err(Stop::TooMany) => return Ok(PerftEnd::TooManyStates(max_states)),
            Err(Stop::Interrupted) => return Ok(PerftEnd::Interrupted),
        };
        on_layer(d, &res)?;
        if res.nodes == 0 {
            return Ok(PerftEnd::NoNodes(d));
        }
        layer = next;
    }
    Ok(PerftEnd::Depth)
}

/// Why [`expand`] gave up on a depth.
enum Stop {
    Overflow,
    TooMany,
    Interrupted,
}

/// `a + b`, or [`Stop::Overflow`].
fn add(a: u64, b: u64) -> Result<u64, Stop> {
    a.checked_add(b).ok_or(Stop::Overflow)
}

/// One depth: the counts and the next layer's states with their path multiplicities.
fn expand(
    m: &NetMachine<'_>,
    layer: &HashMap<State, u64>,
    max_states: usize,
) -> Result<(PerftLayer, HashMap<State, u64>), Stop> {
    let mut next: HashMap<State, u64> = HashMap::new();
    let mut res = PerftLayer::default();
    for (state, &mult) in layer {
        if crate::stop::requested() {
            return Err(Stop::Interrupted);
        }
        if m.is_terminal(state) {
            continue;
        }
        let legal = m.legal_moves(state);
        if legal.iter().any(Vec::is_empty) {
            res.no_legal_move_nodes = add(res.no_legal_move_nodes, mult)?;
            continue;
        }
        // Odometer over the Cartesian product of the roles' legal moves.
        let mut pick = vec![0usize; legal.len()];
        loop {
            let joint: Vec<_> = pick.iter().zip(&legal).map(|(&i, l)| l[i]).collect();
            let slot = next.entry(m.next_state(state, &joint)).or_insert(0);
            *slot = add(*slot, mult)?;
            if next.len() > max_states {
                return Err(Stop::TooMany);
            }
            res.nodes = add(res.nodes, mult)?;
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
        .try_fold(0u64, |a, (_, &c)| add(a, c))?;
    Ok((res, next))
}
