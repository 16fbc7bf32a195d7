//! [`NetlistInfo`]: what validation learns about a netlist, computed once and read by every
//! backend beside the netlist (naga's `Validator` → `ModuleInfo`), and [`ValidNetlist`], a
//! netlist that owns its analysis.
//!
//! The facts: each gate's level (longest path from a source) and the netlist's depth;
//! which gates depend on a move (read an `Input`, so they are evaluated after the joint
//! move is chosen); the cone of gates each kind of [`Output`] needs; where each role's
//! legal and goal entries sit in the flat lists that backends lay out role by role. Only
//! [`crate::validate`] builds a `NetlistInfo`, so holding one means the netlist it was
//! computed for is valid (including its role count, see [`crate::rng::MAX_ROLES`]).

use crate::ir::{GateId, Netlist, RoleId};
use std::ops::Range;

/// The outputs whose cones [`NetlistInfo`] records.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Output {
    /// Every role's legal gates and the terminal gate: evaluated every step, before the
    /// joint move is chosen.
    LegalTerminal,
    /// Every role's goal gates: read when a playout ends.
    Goal,
    /// Every latch's next-state gate: evaluated after the joint move is set.
    Next,
    /// Every role's percept gates (GDL-II): like `Next`, evaluated after the joint move is
    /// set, and only where a caller asks for percepts.
    Percept,
}

impl Output {
    /// All outputs.
    pub const ALL: [Output; 4] = [
        Output::LegalTerminal,
        Output::Goal,
        Output::Next,
        Output::Percept,
    ];

    fn bit(self) -> u8 {
        match self {
            Output::LegalTerminal => 1,
            Output::Goal => 2,
            Output::Next => 4,
            Output::Percept => 16,
        }
    }
}

/// Flag of a gate that depends on an input (in [`NetlistInfo`]'s per-gate byte).
const READS_MOVE: u8 = 8;
/// The cone bits of the outputs a playout needs (every [`Output`] but `Percept`).
const PLAYOUT_CONES: u8 = 1 | 2 | 4;
/// The cone bits of every [`Output`].
const CONES: u8 = PLAYOUT_CONES | 16;

/// Per-gate and per-role facts about one valid netlist. Built only by [`crate::validate`];
/// backends take it beside the [`Netlist`] it was computed for.
///
/// Memory: 5 bytes per gate plus 16 bytes per role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetlistInfo {
    /// Arena length, latches, inputs and roles of the netlist analysed (see [`Self::describes`]).
    sizes: [usize; 4],
    /// Per gate: 0 for a gate without operands, else 1 + the largest operand level.
    level: Vec<u32>,
    /// Per gate: the [`Output`] cone bits and [`READS_MOVE`].
    flags: Vec<u8>,
    depth: u32,
    /// Role `r`'s legal entries are `legal_start[r]..legal_start[r + 1]` of the flat list.
    legal_start: Vec<usize>,
    /// Role `r`'s goal entries are `goal_start[r]..goal_start[r + 1]` of the flat list.
    goal_start: Vec<usize>,
}

impl NetlistInfo {
    /// Analyses `net`, whose ids are in range and whose arena is topological (checked by
    /// [`crate::validate`] before it calls this). Time and memory linear in the netlist.
    pub(crate) fn analyse(net: &Netlist) -> Self {
        let n = net.gates.len();
        let mut level = vec![0u32; n];
        let mut flags = vec![0u8; n];
        for (i, g) in net.gates.iter().enumerate() {
            let ops = g.operands();
            if let Some(m) = ops.iter().map(|o| level[o.index()]).max() {
                level[i] = m + 1;
            }
            let reads = matches!(g, crate::Gate::Input(_))
                || ops.iter().any(|o| flags[o.index()] & READS_MOVE != 0);
            if reads {
                flags[i] = READS_MOVE;
            }
        }
        let mut mark = |g: GateId, out: Output| flags[g.index()] |= out.bit();
        for role in &net.roles {
            role.legal
                .iter()
                .for_each(|l| mark(l.gate, Output::LegalTerminal));
            role.goals.iter().for_each(|g| mark(g.gate, Output::Goal));
            role.percepts
                .iter()
                .for_each(|p| mark(p.gate, Output::Percept));
        }
        mark(net.terminal, Output::LegalTerminal);
        net.latches.iter().for_each(|l| mark(l.next, Output::Next));
        // Operands precede their users, so one backward sweep closes every cone.
        for i in (0..n).rev() {
            let cones = flags[i] & CONES;
            if cones != 0 {
                for o in net.gates[i].operands() {
                    flags[o.index()] |= cones;
                }
            }
        }
        let starts = |count: &dyn Fn(usize) -> usize| -> Vec<usize> {
            let mut v = vec![0];
            let mut acc = 0;
            for r in 0..net.roles.len() {
                acc += count(r);
                v.push(acc);
            }
            v
        };
        Self {
            sizes: sizes(net),
            depth: level.iter().copied().max().unwrap_or(0),
            level,
            flags,
            legal_start: starts(&|r| net.roles[r].legal.len()),
            goal_start: starts(&|r| net.roles[r].goals.len()),
        }
    }

    /// True when this analysis was computed for a netlist of `net`'s shape (same arena
    /// length and numbers of latches, inputs and roles): a cheap guard for writers that take
    /// the two side by side.
    pub fn describes(&self, net: &Netlist) -> bool {
        self.sizes == sizes(net)
    }

    /// Number of gates analysed (the arena length).
    pub fn gate_count(&self) -> usize {
        self.level.len()
    }

    /// Level of gate `g`: 0 for constants, latches, inputs and empty `And`/`Or`, else one
    /// more than its deepest operand. Panics if `g` is out of range.
    pub fn level(&self, g: GateId) -> u32 {
        self.level[g.index()]
    }

    /// The largest level of any gate (0 for a netlist without logic).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// True when gate `g` depends on an input (a `does` proposition), so it can only be
    /// evaluated once the joint move is set. Legal, goal and terminal gates never do.
    pub fn reads_move(&self, g: GateId) -> bool {
        self.flags[g.index()] & READS_MOVE != 0
    }

    /// True when some gate of `out` (see [`Output`]) depends on gate `g`, the gate itself
    /// included.
    pub fn needed_by(&self, g: GateId, out: Output) -> bool {
        self.flags[g.index()] & out.bit() != 0
    }

    /// True when an output a playout needs (legal, terminal, goal, next) depends on gate
    /// `g`: the gates a backend must compute. Gates only percepts need are not live.
    pub fn live(&self, g: GateId) -> bool {
        self.flags[g.index()] & PLAYOUT_CONES != 0
    }

    /// The gates `out` needs, in arena (topological) order.
    pub fn cone(&self, out: Output) -> impl Iterator<Item = GateId> + '_ {
        self.ids().filter(move |&g| self.needed_by(g, out))
    }

    /// Every gate id, in arena order.
    pub fn ids(&self) -> impl Iterator<Item = GateId> {
        (0..self.level.len() as u32).map(GateId)
    }

    /// The positions of role `r`'s legal entries in the list of every role's legal entries,
    /// role by role (the order of the HDL `lg` port and the WGSL legal table). Panics if `r`
    /// is out of range.
    pub fn legal_range(&self, r: RoleId) -> Range<usize> {
        self.legal_start[r.index()]..self.legal_start[r.index() + 1]
    }

    /// Number of legal entries over all roles.
    pub fn legal_total(&self) -> usize {
        self.legal_start.last().copied().unwrap_or(0)
    }

    /// The positions of role `r`'s goal entries in the list of every role's goal entries,
    /// role by role. Panics if `r` is out of range.
    pub fn goal_range(&self, r: RoleId) -> Range<usize> {
        self.goal_start[r.index()]..self.goal_start[r.index() + 1]
    }

    /// Number of goal entries over all roles.
    pub fn goal_total(&self) -> usize {
        self.goal_start.last().copied().unwrap_or(0)
    }
}

fn sizes(net: &Netlist) -> [usize; 4] {
    [
        net.gates.len(),
        net.latches.len(),
        net.inputs.len(),
        net.roles.len(),
    ]
}

/// A netlist that passed [`crate::validate`], owning its [`NetlistInfo`]. The only way to
/// build one is [`ValidNetlist::new`]; it dereferences to the [`Netlist`] for reading, and
/// gives the netlist back by [`ValidNetlist::into_netlist`] for changes (which must then be
/// validated again).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidNetlist {
    net: Netlist,
    info: NetlistInfo,
}

impl ValidNetlist {
    /// Validates `net` and keeps its analysis.
    ///
    /// # Errors
    /// The first invariant `net` violates (see [`crate::validate`]).
    pub fn new(net: Netlist) -> Result<Self, crate::ValidateError> {
        let info = crate::validate(&net)?;
        Ok(Self { net, info })
    }

    /// The netlist.
    pub fn netlist(&self) -> &Netlist {
        &self.net
    }

    /// Its analysis.
    pub fn info(&self) -> &NetlistInfo {
        &self.info
    }

    /// The netlist and its analysis, as the backends' writers take them.
    pub fn parts(&self) -> (&Netlist, &NetlistInfo) {
        (&self.net, &self.info)
    }

    /// The netlist, without its analysis.
    pub fn into_netlist(self) -> Netlist {
        self.net
    }

    /// Logic gates (`And`, `Or`, `Not`) a playout evaluates: those some legal, terminal,
    /// goal or next output needs ([`NetlistInfo::live`]). Gates only GDL-II percepts need,
    /// and dead gates of an unoptimized netlist, are not counted: the simulators skip
    /// them. The basis of gate-evaluations per second.
    pub fn playout_gate_count(&self) -> usize {
        self.info
            .ids()
            .zip(&self.net.gates)
            .filter(|(g, gate)| {
                self.info.live(*g)
                    && matches!(
                        gate,
                        crate::Gate::And(_) | crate::Gate::Or(_) | crate::Gate::Not(_)
                    )
            })
            .count()
    }
}

impl std::ops::Deref for ValidNetlist {
    type Target = Netlist;
    fn deref(&self) -> &Netlist {
        &self.net
    }
}

impl AsRef<Netlist> for ValidNetlist {
    fn as_ref(&self) -> &Netlist {
        &self.net
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{random_netlist, RandomSpec};
    use crate::{validate, Gate};

    /// The gates some root reaches, by a plain depth-first search (the definition).
    fn reached(net: &Netlist, roots: &[GateId]) -> Vec<bool> {
        let mut seen = vec![false; net.gates.len()];
        let mut stack = roots.to_vec();
        while let Some(g) = stack.pop() {
            if !std::mem::replace(&mut seen[g.index()], true) {
                stack.extend(net.gate(g).operands());
            }
        }
        seen
    }

    /// Cones, move dependence, levels and the legal/goal layout agree with their
    /// definitions on random netlists.
    #[test]
    fn facts_match_their_definitions() {
        for seed in 0..30 {
            let net = random_netlist(
                seed,
                &RandomSpec {
                    roles: 1 + seed as usize % 3,
                    ..Default::default()
                },
            );
            let info = validate(&net).unwrap();
            assert!(info.describes(&net));
            let legal: Vec<GateId> = net
                .roles
                .iter()
                .flat_map(|r| r.legal.iter().map(|l| l.gate))
                .chain([net.terminal])
                .collect();
            let goal: Vec<GateId> = net
                .roles
                .iter()
                .flat_map(|r| r.goals.iter().map(|g| g.gate))
                .collect();
            let next: Vec<GateId> = net.latches.iter().map(|l| l.next).collect();
            let percept: Vec<GateId> = net
                .roles
                .iter()
                .flat_map(|r| r.percepts.iter().map(|p| p.gate))
                .collect();
            for (out, roots) in Output::ALL.iter().zip([&legal, &goal, &next, &percept]) {
                let want = reached(&net, roots);
                let got: Vec<bool> = info.ids().map(|g| info.needed_by(g, *out)).collect();
                assert_eq!(got, want, "seed {seed}: cone of {out:?}");
            }
            let inputs: Vec<GateId> = info
                .ids()
                .filter(|&g| matches!(net.gate(g), Gate::Input(_)))
                .collect();
            for g in info.ids() {
                let reads = reached(&net, &[g])
                    .iter()
                    .zip(&net.gates)
                    .any(|(&r, x)| r && matches!(x, Gate::Input(_)));
                assert_eq!(info.reads_move(g), reads, "seed {seed}: {g}");
            }
            assert!(
                !inputs.is_empty(),
                "seed {seed}: random netlists read moves"
            );
            assert_eq!(info.depth() as usize, net.stats().depth, "seed {seed}");
            let mut flat = 0;
            for (r, role) in net.roles.iter().enumerate() {
                let range = info.legal_range(RoleId(r as u32));
                assert_eq!(range, flat..flat + role.legal.len());
                flat = range.end;
            }
            assert_eq!(info.legal_total(), flat);
            let goals: usize = net.roles.iter().map(|r| r.goals.len()).sum();
            assert_eq!(info.goal_total(), goals);
        }
    }

    #[test]
    fn valid_netlist_keeps_the_analysis_of_its_netlist() {
        let net = random_netlist(7, &RandomSpec::default());
        let v = ValidNetlist::new(net.clone()).unwrap();
        assert_eq!(v.info(), &validate(&net).unwrap());
        assert_eq!(v.roles.len(), net.roles.len());
        assert_eq!(v.into_netlist(), net);
        let mut bad = random_netlist(8, &RandomSpec::default());
        bad.terminal = GateId(bad.gates.len() as u32);
        assert!(ValidNetlist::new(bad).is_err());
        let other = random_netlist(
            9,
            &RandomSpec {
                latches: 3,
                ..Default::default()
            },
        );
        assert!(!validate(&other).unwrap().describes(&net));
    }

    /// A gate only a percept reads is not a playout gate; the same gate read by a latch is.
    #[test]
    fn percept_only_gates_are_not_playout_gates() {
        let mut net = random_netlist(5, &RandomSpec::default());
        let before = ValidNetlist::new(net.clone()).unwrap().playout_gate_count();
        let at = net
            .gates
            .iter()
            .position(|g| *g == Gate::Input(crate::InputId(0)));
        let b = net.push(Gate::Not(GateId(at.expect("input 0 has a gate") as u32)));
        net.gdl2 = true;
        net.roles[0].percepts.push(crate::Percept {
            name: "seen".into(),
            gate: b,
        });
        let with = ValidNetlist::new(net.clone()).unwrap();
        assert_eq!(with.playout_gate_count(), before);
        assert_eq!(with.logic_gate_count(), net.logic_gate_count());
        net.latches[0].next = b;
        let read = ValidNetlist::new(net).unwrap();
        assert!(read.info().live(b), "the Not counts once a latch reads it");
    }
}
