//! Structural hashing: puts `And`/`Or` operands in canonical order (sorted, duplicates
//! removed), folds `And(x, Not x)` to false and `Or(x, Not x)` to true, and merges gates that
//! are identical after that (hash-consing). It does not prove functional equivalence of
//! differently built gates.

use super::rebuild::{rebuild, Rebuilder, Rewrite};
use crate::netlist::{Gate, GateId, Netlist};
use std::collections::HashMap;

/// Runs the pass; returns true when the netlist changed.
pub fn run(net: &mut Netlist) -> bool {
    let mut table: HashMap<Gate, GateId> = HashMap::with_capacity(net.gates.len());
    rebuild(net, |rb, _, gate| {
        let gate = match gate {
            Gate::And(ops) => match canonical(rb, ops) {
                Some(ops) => Gate::And(ops),
                None => return Rewrite::To(rb.constant(false)),
            },
            Gate::Or(ops) => match canonical(rb, ops) {
                Some(ops) => Gate::Or(ops),
                None => return Rewrite::To(rb.constant(true)),
            },
            g => g,
        };
        if let Some(&id) = table.get(&gate) {
            return Rewrite::To(id);
        }
        table.insert(gate.clone(), rb.next_id());
        Rewrite::Gate(gate)
    })
}

/// Sorted, deduplicated operands; `None` when they contain some `x` and `Not x`.
fn canonical(rb: &Rebuilder, mut ops: Vec<GateId>) -> Option<Vec<GateId>> {
    ops.sort_unstable();
    ops.dedup();
    let complementary = ops
        .iter()
        .any(|&o| matches!(rb.gate(o), Gate::Not(x) if ops.binary_search(x).is_ok()));
    (!complementary).then_some(ops)
}
