//! Builds the gate of a view atom an output needs, and first those of the atoms it
//! needs, depth first: an atom's instances are enumerated when it is first needed, kept
//! while the atoms their bodies read are built, then turned into its gate and dropped.
//! The stack is explicit (one frame per atom being built), so a long chain of views
//! cannot overflow the thread's stack; it is as deep as the longest chain of view
//! relations, since the atoms of an acyclic relation component never depend on
//! themselves. Atoms of a cyclic relation component are built together, all of them
//! ([`Builder::view_cycle`]).

use super::{lit_gate, Builder, NONE};
use crate::gdl::RelId;
use crate::ground::factor::Instances;
use crate::ground::store::AtomId;
use crate::ground::GroundError;

/// An atom being built: its instances, and how far their literals have been checked
/// for atoms still to build.
struct Frame {
    atom: AtomId,
    insts: Instances,
    scan: usize,
}

impl Builder<'_, '_> {
    /// Makes the gate of atom `a` if it is a view atom not built yet, with the gates of
    /// every atom it needs (module docs). Latches, inputs and constants are made
    /// beforehand; anything else is left alone.
    ///
    /// # Errors
    /// Budget errors, and those of [`Builder::view_cycle`].
    pub(super) fn ensure(&mut self, a: AtomId) -> Result<(), GroundError> {
        let mut stack: Vec<Frame> = Vec::new();
        self.descend(a, &mut stack)?;
        while let Some(top) = stack.last_mut() {
            let lits = top.insts.literals();
            let next = lits[top.scan..]
                .iter()
                .position(|&l| self.gate_of[(l >> 1) as usize] == NONE);
            match next {
                Some(i) => {
                    let b = AtomId(lits[top.scan + i] >> 1);
                    top.scan += i + 1;
                    self.descend(b, &mut stack)?;
                }
                None => {
                    let frame = stack.pop().expect("the loop holds a frame");
                    self.close(frame, &stack)?;
                }
            }
        }
        Ok(())
    }

    /// Starts building atom `a`: nothing for atoms built already or that are no views,
    /// a whole cyclic component, or a new frame with `a`'s instances on `stack`.
    fn descend(&mut self, a: AtomId, stack: &mut Vec<Frame>) -> Result<(), GroundError> {
        if self.gate_of[a.index()] != NONE {
            return Ok(());
        }
        let rel = self.g.store.atoms.rel(a);
        let comp = self.comp_of[rel.0 as usize];
        if comp == NONE {
            return Ok(());
        }
        if self.comps[comp as usize].1 {
            let rels = self.comps[comp as usize].0.clone();
            return self.view_cycle(&rels);
        }
        debug_assert!(
            stack.iter().all(|f| f.atom != a),
            "an atom of an acyclic component needs itself"
        );
        if !std::mem::replace(&mut self.reported[rel.0 as usize], true) {
            self.g.report(rel);
        }
        let mut insts = Instances::default();
        let made = self.g.instances_of(
            a,
            &mut self.plans,
            self.gates.heap_bytes(),
            &mut |k, body| insts.push(k, body),
        )?;
        self.counts.instances += made;
        self.counts.rel_instances[rel.0 as usize] += made;
        stack.push(Frame {
            atom: a,
            insts,
            scan: 0,
        });
        Ok(())
    }

    /// Makes the gate of a frame whose body atoms are all built; checks the budget every
    /// 1024 atoms (counting the frames still open, `stack`).
    fn close(&mut self, frame: Frame, stack: &[Frame]) -> Result<(), GroundError> {
        let rel: RelId = self.g.store.atoms.rel(frame.atom);
        let Builder {
            gates,
            gate_of,
            seen,
            ..
        } = self;
        gates.tag = rel.0;
        let seen = &mut seen[rel.0 as usize];
        let gate = frame
            .insts
            .gate(gates, seen, &mut |gates, l| lit_gate(gates, gate_of, l));
        gate_of[frame.atom.index()] = gate.0;
        gates.tag = NONE;
        self.built += 1;
        if self.built.is_multiple_of(1024) {
            let k = self.g.low.rules_of[rel.0 as usize]
                .first()
                .copied()
                .unwrap_or(0);
            let open: usize = stack.iter().map(|f| f.insts.heap_bytes()).sum();
            self.g.check_memory(k, self.gates.heap_bytes() + open)?;
            if self.g.meter.late() {
                return Err(self.g.time_error(k));
            }
        }
        Ok(())
    }
}
