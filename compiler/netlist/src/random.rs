//! Seeded random netlists for tests: every backend and every pass is checked against
//! [`crate::playout::reference_playout`] on these as well as on real games.

use super::ir::{
    Gate, GateId, Goal, Input, InputId, Latch, LatchId, Legal, Netlist, Percept, Role, RoleId,
};
use crate::rng::threefry2x32_20;

/// Shape of a random netlist.
#[derive(Clone, Debug)]
pub struct RandomSpec {
    /// Number of roles (1..=8).
    pub roles: usize,
    /// Moves per role.
    pub moves_per_role: usize,
    /// Number of latches.
    pub latches: usize,
    /// Logic gates computing views (legal/goal/terminal logic), before inputs are read.
    pub view_gates: usize,
    /// Logic gates of the transition (may read inputs).
    pub next_gates: usize,
    /// Largest operand count of an `And`/`Or`.
    pub max_fanin: usize,
    /// GDL-II percepts per role (0: a GDL-I netlist), each a gate of the transition logic
    /// (may read inputs). Drawn after everything else: the rest of the netlist does not
    /// depend on it.
    pub percepts_per_role: usize,
}

impl Default for RandomSpec {
    fn default() -> Self {
        Self {
            roles: 2,
            moves_per_role: 5,
            latches: 24,
            view_gates: 60,
            next_gates: 60,
            max_fanin: 4,
            percepts_per_role: 0,
        }
    }
}

struct Stream {
    key: [u32; 2],
    ctr: u32,
}

impl Stream {
    fn next(&mut self) -> u32 {
        self.ctr += 1;
        threefry2x32_20(self.key, [self.ctr, 0x5eed])[0]
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() as usize) % n.max(1)
    }
}

/// Digits needed so that names `0..n` padded to this width sort in numeric order.
fn width(n: usize, min: usize) -> usize {
    n.saturating_sub(1).to_string().len().max(min)
}

/// A random valid netlist (passes [`super::validate`]) of the given shape.
///
/// Every role always has at least one legal move (its last move is legal whenever no other
/// is), so playouts end by `terminal` or by the step limit; some goal and terminal gates are
/// constants or shared, to exercise the passes.
pub fn random_netlist(seed: u64, spec: &RandomSpec) -> Netlist {
    let mut s = Stream {
        key: [seed as u32, (seed >> 32) as u32],
        ctr: 0,
    };
    let mut n = Netlist::default();
    let mut pool: Vec<GateId> = vec![n.push(Gate::Const(false)), n.push(Gate::Const(true))];
    for i in 0..spec.latches {
        let g = n.push(Gate::Latch(LatchId(i as u32)));
        pool.push(g);
        n.latches.push(Latch {
            name: format!("(f {i:0w$})", w = width(spec.latches, 3)),
            init: s.next() & 1 == 1,
            next: GateId(0),
        });
    }
    let random_gate = |s: &mut Stream, n: &mut Netlist, pool: &mut Vec<GateId>| {
        let k = s.below(7);
        let pick =
            |s: &mut Stream, pool: &Vec<GateId>| pool[pool.len() - 1 - s.below(pool.len().min(24))];
        let gate = if k == 0 {
            Gate::Not(pick(s, pool))
        } else {
            let fanin = 1 + s.below(spec.max_fanin);
            let ops: Vec<GateId> = (0..fanin)
                .map(|_| {
                    if s.below(3) == 0 {
                        pool[s.below(pool.len())]
                    } else {
                        pick(s, pool)
                    }
                })
                .collect();
            if k <= 3 {
                Gate::And(ops)
            } else {
                Gate::Or(ops)
            }
        };
        let g = n.push(gate);
        pool.push(g);
        g
    };
    for _ in 0..spec.view_gates {
        random_gate(&mut s, &mut n, &mut pool);
    }
    let views: Vec<GateId> = pool.clone();
    for r in 0..spec.roles {
        let mut legal = Vec::new();
        let mut others = Vec::new();
        for m in 0..spec.moves_per_role {
            let input = InputId(n.inputs.len() as u32);
            n.inputs.push(Input {
                role: RoleId(r as u32),
                name: format!("(m {m:0w$})", w = width(spec.moves_per_role, 2)),
            });
            let gate = if m + 1 == spec.moves_per_role {
                let any = n.push(Gate::Or(others.clone()));
                n.push(Gate::Not(any))
            } else {
                views[s.below(views.len())]
            };
            others.push(gate);
            legal.push(Legal { input, gate });
        }
        let mut goals = Vec::new();
        for value in [0u8, 50, 100] {
            if s.below(4) != 0 {
                goals.push(Goal {
                    value,
                    gate: views[s.below(views.len())],
                });
            }
        }
        n.roles.push(Role {
            name: format!("r{r}"),
            legal,
            goals,
            percepts: Vec::new(),
        });
    }
    n.terminal = views[2 + s.below(views.len() - 2)];
    for i in 0..n.inputs.len() {
        let g = n.push(Gate::Input(InputId(i as u32)));
        pool.push(g);
    }
    for _ in 0..spec.next_gates {
        random_gate(&mut s, &mut n, &mut pool);
    }
    for i in 0..n.latches.len() {
        n.latches[i].next = pool[s.below(pool.len())];
    }
    for r in 0..n.roles.len() {
        n.roles[r].percepts = (0..spec.percepts_per_role)
            .map(|p| Percept {
                name: format!("(p {p:0w$})", w = width(spec.percepts_per_role, 2)),
                gate: pool[s.below(pool.len())],
            })
            .collect();
    }
    n
}

/// Makes the first `members` latches of `net` (at most all of them) a group of which
/// exactly one holds in every reachable state, as a king's square does: they are named
/// `(pos i)`, member `first % members` holds initially, and each takes the previous
/// member's value (a rotation). The other gates keep reading them, so a simulator can
/// specialize on the group (key guards).
///
/// # Panics
/// If `members` is 0.
pub fn with_rotating_group(net: &mut Netlist, members: usize, first: usize) {
    let members = members.min(net.latches.len());
    assert!(members > 0, "a group needs a member");
    let gate_of: Vec<GateId> = (0..members)
        .map(|l| {
            let at = net
                .gates
                .iter()
                .position(|g| *g == Gate::Latch(LatchId(l as u32)))
                .expect("every latch has its gate");
            GateId(at as u32)
        })
        .collect();
    for l in 0..members {
        let latch = &mut net.latches[l];
        latch.name = format!("(pos {l})");
        latch.init = l == first % members;
        latch.next = gate_of[(l + members - 1) % members];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playout::reference_playout;
    use crate::validate;

    #[test]
    fn random_netlists_are_valid_and_play() {
        let mut ends = std::collections::HashSet::new();
        for seed in 0..50 {
            let spec = RandomSpec {
                roles: 1 + (seed as usize % 3),
                ..Default::default()
            };
            let n = random_netlist(seed, &spec);
            validate(&n).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            for p in 0..4 {
                let r = reference_playout(&n, &n.initial_state(), seed, p, 50);
                assert!(r.length <= 50);
                ends.insert(std::mem::discriminant(&r.end));
            }
        }
        assert!(
            ends.len() >= 2,
            "random netlists should end both by terminal and by step limit"
        );
    }

    #[test]
    fn many_moves_and_latches_stay_sorted_and_valid() {
        let spec = RandomSpec {
            moves_per_role: 150,
            latches: 1200,
            ..Default::default()
        };
        validate(&random_netlist(3, &spec)).expect("names padded so legal moves sort numerically");
    }
}
