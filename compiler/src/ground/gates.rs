//! Makes netlist gates while building: identical gates are shared (hash-consed through a
//! table of gate ids, no second copy of each gate), constants are folded as gates are
//! made, and every new gate is attributed to the relation being built (for
//! `propnet compile --stats`).

use hashbrown::HashTable;
use propnet_netlist::{Gate, GateId, Netlist};
use std::hash::{Hash, Hasher};

/// The netlist being built and its gate table.
#[derive(Default)]
pub struct Gates {
    /// The netlist (gates, and later its outputs).
    pub net: Netlist,
    /// Entries `check << 32 | gate`: the upper half of the gate's hash is kept, so that
    /// growing the table and most failed comparisons never read the gates.
    memo: HashTable<u64>,
    /// Per gate: the tag (relation) current when it was made.
    pub owner: Vec<u32>,
    /// The tag new gates get.
    pub tag: u32,
    /// Operands over all gates made.
    pub edges: usize,
}

fn check_of(g: &Gate) -> u32 {
    let mut h = rustc_hash::FxHasher::default();
    g.hash(&mut h);
    (h.finish() >> 32) as u32
}

fn spread(c: u32) -> u64 {
    u64::from(c).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl Gates {
    /// The gate `g`, made if new.
    pub fn push(&mut self, g: Gate) -> GateId {
        let check = check_of(&g);
        let Gates {
            net,
            memo,
            owner,
            tag,
            edges,
        } = self;
        let eq = |&e: &u64| (e >> 32) as u32 == check && net.gates[e as u32 as usize] == g;
        if let Some(&e) = memo.find(spread(check), eq) {
            return GateId(e as u32);
        }
        *edges += g.operands().len();
        let id = net.push(g);
        owner.push(*tag);
        let entry = u64::from(check) << 32 | u64::from(id.0);
        memo.insert_unique(spread(check), entry, |&e| spread((e >> 32) as u32));
        id
    }

    /// Whether the gate `g` has been made already (nothing is made).
    pub fn exists(&self, g: &Gate) -> bool {
        let check = check_of(g);
        let eq = |&e: &u64| (e >> 32) as u32 == check && self.net.gates[e as u32 as usize] == *g;
        self.memo.find(spread(check), eq).is_some()
    }

    /// The constant gate `b`.
    pub fn constant(&mut self, b: bool) -> GateId {
        self.push(Gate::Const(b))
    }

    fn as_const(&self, id: GateId) -> Option<bool> {
        match self.net.gate(id) {
            Gate::Const(b) => Some(*b),
            _ => None,
        }
    }

    /// `not a`, folding constants and double negation.
    pub fn not(&mut self, a: GateId) -> GateId {
        match self.net.gate(a) {
            Gate::Const(b) => {
                let b = !*b;
                self.constant(b)
            }
            Gate::Not(x) => *x,
            _ => self.push(Gate::Not(a)),
        }
    }

    /// `And` (`is_and`) or `Or` of `ops`, folding constants and repeated operands.
    pub fn nary(&mut self, is_and: bool, ops: Vec<GateId>) -> GateId {
        self.nary_of(is_and, &ops)
    }

    /// [`Self::nary`] of a slice.
    pub fn nary_of(&mut self, is_and: bool, ops: &[GateId]) -> GateId {
        // The absorbing constant is false for And, true for Or.
        let absorbing = !is_and;
        let mut kept = Vec::with_capacity(ops.len());
        for &o in ops {
            match self.as_const(o) {
                Some(b) if b == absorbing => return self.constant(absorbing),
                Some(_) => {}
                None => kept.push(o),
            }
        }
        kept.sort_unstable();
        kept.dedup();
        match kept.len() {
            0 => self.constant(is_and),
            1 => kept[0],
            _ => self.push(if is_and {
                Gate::And(kept)
            } else {
                Gate::Or(kept)
            }),
        }
    }

    /// Bytes the netlist's gates hold (an estimate: the gate arena, operand lists, the
    /// table).
    pub fn heap_bytes(&self) -> usize {
        self.net.gates.capacity() * (std::mem::size_of::<Gate>() + 4)
            + self.edges * 4
            + self.memo.capacity() * 9
    }
}
