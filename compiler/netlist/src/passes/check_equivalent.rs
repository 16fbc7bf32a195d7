//! Equivalence check of two netlists of the same game (in the spirit of yosys `equiv_opt`):
//! random playouts run on both in lockstep, with the same joint moves identified by move
//! text, comparing legal moves, goals, terminal and the full fluent state at every step,
//! and each role's percepts (GDL-II) after every joint move.
//! This is testing, not proof: it only visits states the playouts reach.

use crate::playout::eval_gates;
use crate::rng::{choose, draw};
use crate::Netlist;

/// How many playouts [`check_equivalent`] runs and how long.
#[derive(Clone, Debug)]
pub struct EquivOptions {
    /// Seed of the random joint moves (the shared [`crate::rng`] draw).
    pub seed: u64,
    /// Number of playouts, all from the initial state.
    pub playouts: u32,
    /// Joint moves per playout at most.
    pub max_steps: u32,
}

impl Default for EquivOptions {
    fn default() -> Self {
        Self {
            seed: 1,
            playouts: 16,
            max_steps: 64,
        }
    }
}

/// The first observed difference between two netlists.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("netlists differ in playout {playout} after {step} joint moves: {what}")]
pub struct Mismatch {
    /// Playout index.
    pub playout: u32,
    /// Number of joint moves made before the difference showed.
    pub step: u32,
    /// What differs, with both sides' values.
    pub what: String,
}

/// What one netlist shows in one state: everything a player or backend can observe.
struct View<'a> {
    fluents: Vec<&'a str>,
    terminal: bool,
    /// Per role: the goal values whose gate holds.
    goals: Vec<Vec<u8>>,
    /// Per role: (move text, input index) of the legal moves that hold, in legal-list order.
    legal: Vec<Vec<(&'a str, usize)>>,
}

impl View<'_> {
    /// Same observation (input indices may differ: passes renumber inputs).
    fn same(&self, o: &View<'_>) -> bool {
        let same_moves = |x: &[(&str, usize)], y: &[(&str, usize)]| {
            x.len() == y.len() && x.iter().zip(y).all(|(m, n)| m.0 == n.0)
        };
        self.fluents == o.fluents
            && self.terminal == o.terminal
            && self.goals == o.goals
            && self.legal.len() == o.legal.len()
            && self
                .legal
                .iter()
                .zip(&o.legal)
                .all(|(x, y)| same_moves(x, y))
    }
}

fn view<'a>(net: &'a Netlist, state: &[bool]) -> View<'a> {
    let values = eval_gates(net, state, &vec![false; net.inputs.len()]);
    View {
        fluents: net.true_fluents(state),
        terminal: values[net.terminal.index()],
        goals: net
            .roles
            .iter()
            .map(|r| {
                r.goals
                    .iter()
                    .filter(|g| values[g.gate.index()])
                    .map(|g| g.value)
                    .collect()
            })
            .collect(),
        legal: net
            .roles
            .iter()
            .map(|r| {
                r.legal
                    .iter()
                    .filter(|l| values[l.gate.index()])
                    .map(|l| (net.inputs[l.input.index()].name.as_str(), l.input.index()))
                    .collect()
            })
            .collect(),
    }
}

/// The state after the joint move `chosen` (input indices) and each role's percepts (the
/// texts whose gate holds, in percept-list order).
fn step<'a>(
    net: &'a Netlist,
    state: &[bool],
    chosen: impl Iterator<Item = usize>,
) -> (Vec<bool>, Vec<Vec<&'a str>>) {
    let mut inputs = vec![false; net.inputs.len()];
    chosen.for_each(|i| inputs[i] = true);
    let values = eval_gates(net, state, &inputs);
    let percepts = net
        .roles
        .iter()
        .map(|r| {
            r.percepts
                .iter()
                .filter(|p| values[p.gate.index()])
                .map(|p| p.name.as_str())
                .collect()
        })
        .collect();
    let next = net.latches.iter().map(|l| values[l.next.index()]).collect();
    (next, percepts)
}

/// Plays `opts.playouts` random playouts on `a` and `b` in lockstep and compares, at every
/// step, the true fluents (latches plus fixed fluents), terminal, the goal values that hold
/// and the legal moves (by text, in order) of each role, and after each joint move the
/// percepts of each role. Each role's move is chosen from its
/// legal moves like [`crate::playout`] does (`choose(draw(seed, playout, step, role))`).
///
/// # Errors
/// The first [`Mismatch`]: different role names, or a different observation in some state.
pub fn check_equivalent(a: &Netlist, b: &Netlist, opts: &EquivOptions) -> Result<(), Mismatch> {
    let role_names = |n: &Netlist| n.roles.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
    if role_names(a) != role_names(b) {
        return Err(Mismatch {
            playout: 0,
            step: 0,
            what: format!("roles {:?} vs {:?}", role_names(a), role_names(b)),
        });
    }
    for p in 0..opts.playouts {
        let (mut sa, mut sb) = (a.initial_state(), b.initial_state());
        for t in 0..=opts.max_steps {
            let (va, vb) = (view(a, &sa), view(b, &sb));
            if !va.same(&vb) {
                return Err(Mismatch {
                    playout: p,
                    step: t,
                    what: describe(a, &va, &vb),
                });
            }
            if va.terminal || t == opts.max_steps || va.legal.iter().any(|l| l.is_empty()) {
                break;
            }
            let picks: Vec<usize> = va
                .legal
                .iter()
                .enumerate()
                .map(|(r, l)| choose(draw(opts.seed, p, t, r as u32), l.len() as u32) as usize)
                .collect();
            let (na, pa) = step(a, &sa, va.legal.iter().zip(&picks).map(|(l, &k)| l[k].1));
            let (nb, pb) = step(b, &sb, vb.legal.iter().zip(&picks).map(|(l, &k)| l[k].1));
            if let Some(r) = (0..pa.len()).find(|&r| pa[r] != pb[r]) {
                return Err(Mismatch {
                    playout: p,
                    step: t + 1,
                    what: format!(
                        "percepts of {} after the joint move: a {:?} b {:?}",
                        a.roles[r].name, pa[r], pb[r]
                    ),
                });
            }
            (sa, sb) = (na, nb);
        }
    }
    Ok(())
}

fn describe(a: &Netlist, va: &View<'_>, vb: &View<'_>) -> String {
    if va.fluents != vb.fluents {
        let only = |x: &[&str], y: &[&str]| {
            x.iter()
                .filter(|f| !y.contains(f))
                .map(|f| f.to_string())
                .collect::<Vec<_>>()
        };
        return format!(
            "state: true only in a {:?}, only in b {:?}",
            only(&va.fluents, &vb.fluents),
            only(&vb.fluents, &va.fluents)
        );
    }
    if va.terminal != vb.terminal {
        return format!("terminal: a {} b {}", va.terminal, vb.terminal);
    }
    for (r, role) in a.roles.iter().enumerate() {
        if va.goals[r] != vb.goals[r] {
            return format!(
                "goals of {}: a {:?} b {:?}",
                role.name, va.goals[r], vb.goals[r]
            );
        }
        let names = |v: &View<'_>| {
            v.legal[r]
                .iter()
                .map(|l| l.0.to_string())
                .collect::<Vec<_>>()
        };
        if names(va) != names(vb) {
            return format!(
                "legal moves of {}: a {:?} b {:?}",
                role.name,
                names(va),
                names(vb)
            );
        }
    }
    "no visible difference".into()
}
