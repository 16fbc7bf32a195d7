//! Structural hashing: puts `And`/`Or` operands in canonical order (sorted, duplicates
//! removed), folds `And(x, Not x)` to false and `Or(x, Not x)` to true, and merges gates that
//! are identical after that (hash-consing). It does not prove functional equivalence of
//! differently built gates.

use super::rebuild::{rebuild, Rebuilder, Rewrite};
use crate::{Gate, GateId, Netlist};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast non-cryptographic hasher for gate keys (multiply-rotate over machine words);
/// gate ids are not attacker-controlled, so SipHash's protection is not needed.
/// Shared with `merge_latches`.
#[derive(Default)]
pub(crate) struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x.into());
    }
    fn write_u8(&mut self, x: u8) {
        self.write_u64(x.into());
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

/// Runs the pass; returns true when the netlist changed.
pub fn run(net: &mut Netlist) -> bool {
    let mut table: HashMap<Gate, GateId, BuildHasherDefault<WordHasher>> =
        HashMap::with_capacity_and_hasher(net.gates.len(), Default::default());
    rebuild(net, |rb, _, gate| {
        let canon = match gate {
            Gate::And(ops) | Gate::Or(ops) => match canonical(rb, ops) {
                Canonical::Same => None,
                Canonical::Sorted(ops) if matches!(gate, Gate::And(_)) => Some(Gate::And(ops)),
                Canonical::Sorted(ops) => Some(Gate::Or(ops)),
                Canonical::Complementary => {
                    return Rewrite::To(rb.constant(matches!(gate, Gate::Or(_))));
                }
            },
            _ => None,
        };
        let g = canon.as_ref().unwrap_or(gate);
        if let Some(&id) = table.get(g) {
            return Rewrite::To(id);
        }
        table.insert(g.clone(), rb.next_id());
        match canon {
            Some(g) => Rewrite::Gate(g),
            None => Rewrite::Keep,
        }
    })
}

/// Canonical operand list of an `And`/`Or`.
enum Canonical {
    /// Already sorted without duplicates.
    Same,
    /// Sorted and deduplicated.
    Sorted(Vec<GateId>),
    /// Contains some `x` and `Not x`.
    Complementary,
}

fn canonical(rb: &Rebuilder, ops: &[GateId]) -> Canonical {
    let sorted = ops.windows(2).all(|w| w[0] < w[1]);
    let owned;
    let ops = if sorted {
        ops
    } else {
        let mut v = ops.to_vec();
        v.sort_unstable();
        v.dedup();
        owned = v;
        &owned[..]
    };
    if ops
        .iter()
        .any(|&o| matches!(rb.gate(o), Gate::Not(x) if ops.binary_search(x).is_ok()))
    {
        Canonical::Complementary
    } else if sorted {
        Canonical::Same
    } else {
        Canonical::Sorted(ops.to_vec())
    }
}
