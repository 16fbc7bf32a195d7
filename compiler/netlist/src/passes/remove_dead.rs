//! Drops gates that no output (latch `next`, legal, goal, terminal) depends on and renumbers
//! the rest compactly in the same order, so the arena stays topological. Latches and inputs
//! themselves are kept (they are game state and moves); only their unread gates go.

use super::rebuild::{for_each_output, map_outputs, rename_in_place};
use crate::{GateId, Netlist};

/// Runs the pass; returns true when a gate was removed.
pub fn run(net: &mut Netlist) -> bool {
    let mut live = vec![false; net.gates.len()];
    for_each_output(net, |g| live[g.index()] = true);
    for i in (0..net.gates.len()).rev() {
        if live[i] {
            for o in net.gates[i].operands() {
                live[o.index()] = true;
            }
        }
    }
    if live.iter().all(|&l| l) {
        return false;
    }
    let mut map = vec![GateId(u32::MAX); net.gates.len()];
    let mut gates = Vec::with_capacity(live.iter().filter(|&&l| l).count());
    for (i, mut g) in std::mem::take(&mut net.gates).into_iter().enumerate() {
        if live[i] {
            map[i] = GateId(gates.len() as u32);
            rename_in_place(&mut g, &map);
            gates.push(g);
        }
    }
    net.gates = gates;
    map_outputs(net, |g| map[g.index()]);
    true
}
