//! GRAVE, generalized rapid action value estimation (Cazenave, "Generalized Rapid Action
//! Value Estimation", IJCAI 2015), over all-moves-as-first statistics (AMAF: Gelly &
//! Silver, "Combining online and offline knowledge in UCT", ICML 2007).
//!
//! A node with at least [`MctsParams::grave_ref`] visits keeps a table, by move key (a
//! netlist's input index), of the iterations through it that played each move at some
//! later point — in the tree below it or in a rollout — and their mean reward for the
//! move's role. Selection at a node takes the table of the nearest node on the path that
//! has one (the node itself or an ancestor: its estimates rest on more iterations) and
//! scores a move by `(1 − β)·mean + β·amaf + C·sqrt(ln N / n)`, with
//! `β = a / (a + n + b·a·n)` ([`MctsParams::grave_bias`] `b`, `n` the move's visits, `a`
//! its AMAF visits); an untried move with AMAF visits is scored by them instead of
//! first. A rollout's moves come from the backend ([`JobResult::amaf`]: per input, the
//! job's playouts that played it and their goal sum), each playout counting `1/P` of an
//! iteration of `P` playouts; a move on the tree path counts once per iteration and, for
//! that iteration, hides the same move's rollout sums (a move counts once per playout).
//!
//! Memory: a table is `16 × keys` bytes; the tree keeps at most [`TABLE_BYTES`] of them.
//!
//! [`JobResult::amaf`]: propnet_runtime::backend::JobResult::amaf

use crate::params::MctsParams;
use crate::tree::{NodeId, Tree};
use crate::walk::{Core, Leaf};
use propnet_runtime::backend::AmafSum;
use propnet_runtime::machine::{MoveKey, MoveKeys};

/// All-moves-as-first statistics of one move at one node.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct AmafStat {
    /// Iterations (fractions of one for rollouts) that played the move below the node.
    pub visits: f64,
    /// Sum of the move's role's rewards (0..1) over them.
    pub reward_sum: f64,
}

/// Bytes of AMAF tables a tree keeps at most.
pub const TABLE_BYTES: usize = 256 << 20;

/// How a search numbers moves for its AMAF tables ([`propnet_runtime::machine::GameMachine::amaf_keys`]).
pub(crate) struct Keys<M> {
    /// Keys are `0..count`.
    pub count: usize,
    /// A move's key.
    pub key: MoveKey<M>,
    /// Scratch: keys played on the current path.
    seen: Vec<bool>,
}

impl<M> Keys<M> {
    /// Keys `0..count`, `key` per move.
    pub fn new((count, key): MoveKeys<M>) -> Self {
        Keys {
            count,
            key,
            seen: vec![false; count],
        }
    }
}

impl<S: Clone, M: Copy + Eq + std::hash::Hash + std::fmt::Debug> Core<S, M> {
    /// Adds one iteration's moves to the AMAF tables on `leaf`'s path (after its visit was
    /// back-propagated): the joint moves of the path below each node and the rollouts'
    /// move sums `rollout` over `playouts` playouts; gives a table to each node that
    /// reached [`MctsParams::grave_ref`] visits.
    pub(crate) fn grave_update(
        &mut self,
        params: &MctsParams,
        leaf: &Leaf,
        rewards: &[f64],
        (rollout, playouts): (&[AmafSum], u64),
    ) {
        let Some(keys) = self.keys.as_mut() else {
            return;
        };
        if params.grave_ref == 0 || keys.count == 0 {
            return;
        }
        let most = TABLE_BYTES / (16 * keys.count);
        let per = 1.0 / playouts.max(1) as f64;
        let mut path: Vec<(u32, f64)> = Vec::new();
        let add = |tree: &mut Tree<S, M>, id: NodeId, path: &[(u32, f64)], seen: &[bool]| {
            if tree.node(id).visits < params.grave_ref || !tree.give_amaf(id, seen.len(), most) {
                return;
            }
            if let Some(table) = tree.node_mut(id).amaf.as_deref_mut() {
                add_moves(table, path, (rollout, per), seen);
            }
        };
        add(&mut self.tree, leaf.node, &path, &keys.seen);
        for (id, moves) in leaf.steps().rev() {
            let n = self.tree.node(id);
            for (r, &m) in moves.iter().enumerate() {
                let k = (keys.key)(n.legal[r][m as usize]);
                if !std::mem::replace(&mut keys.seen[k as usize], true) {
                    path.push((k, rewards[r]));
                }
            }
            add(&mut self.tree, id, &path, &keys.seen);
        }
        for &(k, _) in &path {
            keys.seen[k as usize] = false;
        }
    }

    /// The AMAF table selection at `id` uses: `id`'s own or else `reference`'s (the
    /// nearest ancestor on the descent that has one), with the key function.
    pub(crate) fn grave_table(
        &self,
        id: NodeId,
        reference: Option<NodeId>,
    ) -> Option<(&[AmafStat], MoveKey<M>)> {
        let key = self.keys.as_ref()?.key;
        let own = self.tree.node(id).amaf.as_deref();
        own.or_else(|| self.tree.node(reference?).amaf.as_deref())
            .map(|t| (t, key))
    }
}

/// Adds to `table` the path's moves `(key, reward)` (one visit each) and the rollouts'
/// sums, each playout `per` of a visit, but those of keys `seen` on the path.
fn add_moves(
    table: &mut [AmafStat],
    path: &[(u32, f64)],
    (rollout, per): (&[AmafSum], f64),
    seen: &[bool],
) {
    for &(k, r) in path {
        let t = &mut table[k as usize];
        t.visits += 1.0;
        t.reward_sum += r;
    }
    for e in rollout {
        if !seen[e.input as usize] {
            let t = &mut table[e.input as usize];
            t.visits += f64::from(e.playouts) * per;
            t.reward_sum += e.goal_sum as f64 * per / 100.0;
        }
    }
}

/// GRAVE's score of a move with `visits` real and `pending` virtual visits, `reward_sum`
/// over the real ones, and AMAF statistics `a`, at a node of `ln_n = ln N` whose
/// exploration constant is `c` ([`MctsParams::exploration_at`]); `None` for an
/// untried move with no AMAF visits (tried first, as in UCT). Virtual losses count as
/// rewards of 0 against the blended estimate, as real visits: `(n + 1) / (n + 1 + v)` of it,
/// so that the leaves selected at once spread even while AMAF dominates.
#[inline]
pub(crate) fn score(
    params: &MctsParams,
    c: f64,
    ln_n: f64,
    (visits, pending): (u32, u32),
    reward_sum: f64,
    a: AmafStat,
) -> Option<f64> {
    let n = f64::from(visits);
    let all = f64::from(visits + pending);
    if a.visits <= 0.0 {
        return (all > 0.0).then(|| reward_sum / all + c * (ln_n / all).sqrt());
    }
    let amaf = a.reward_sum / a.visits;
    let beta = a.visits / (a.visits + n + params.grave_bias * a.visits * n);
    let mean = if visits > 0 { reward_sum / n } else { 0.0 };
    let blended = (1.0 - beta) * mean + beta * amaf;
    let pending_loss = (n + 1.0) / (all + 1.0);
    Some(blended * pending_loss + c * (ln_n / all.max(1.0)).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Budget, Search};
    use propnet_runtime::machine::{GameMachine, InterpMachine, NetMachine};

    /// A move on the path counts one visit with the iteration's reward and hides its own
    /// rollout sums; another move's rollout sums count per playout.
    #[test]
    fn a_move_counts_once_per_iteration() {
        let mut table = vec![AmafStat::default(); 4];
        let rollout = [
            AmafSum {
                input: 1,
                playouts: 4,
                goal_sum: 400,
            },
            AmafSum {
                input: 2,
                playouts: 2,
                goal_sum: 100,
            },
        ];
        let seen = [false, true, false, false];
        add_moves(&mut table, &[(1, 0.75)], (&rollout, 0.25), &seen);
        let stat = |visits, reward_sum| AmafStat { visits, reward_sum };
        assert_eq!(table[1], stat(1.0, 0.75));
        assert_eq!(table[2], stat(0.5, 0.25));
        assert_eq!((table[0], table[3]), (stat(0.0, 0.0), stat(0.0, 0.0)));
    }

    /// With no AMAF visits a move scores as in UCB1 (untried: `None`); with AMAF visits and
    /// none of its own it scores its AMAF mean; with many visits of its own, its mean.
    #[test]
    fn the_score_moves_from_amaf_to_the_mean() {
        let p = MctsParams {
            exploration: 0.0,
            grave_bias: 1e-4,
            ..MctsParams::default()
        };
        let none = AmafStat::default();
        assert_eq!(score(&p, 0.0, 1.0, (0, 0), 0.0, none), None);
        assert_eq!(score(&p, 0.0, 1.0, (4, 0), 3.0, none), Some(0.75));
        assert_eq!(score(&p, 0.0, 1.0, (3, 1), 3.0, none), Some(0.75));
        let amaf = AmafStat {
            visits: 100.0,
            reward_sum: 20.0,
        };
        assert_eq!(score(&p, 0.0, 1.0, (0, 0), 0.0, amaf), Some(0.2));
        assert_eq!(
            score(&p, 0.0, 1.0, (0, 1), 0.0, amaf),
            Some(0.1),
            "a pending leaf halves it"
        );
        let early = score(&p, 0.0, 1.0, (10, 0), 9.0, amaf).unwrap();
        let late = score(&p, 0.0, 1.0, (1_000_000, 0), 900_000.0, amaf).unwrap();
        assert!(early < 0.4 && late > 0.89, "{early} {late}");
    }

    fn search(net: &propnet_netlist::Netlist, grave_ref: u32) -> Search {
        let opts = propnet_sim::CpuOptions {
            threads: 1,
            ..Default::default()
        };
        let valid = propnet_netlist::ValidNetlist::new(net.clone()).unwrap();
        let mut b = propnet_sim::CpuBackend::new(valid, opts).unwrap();
        let mut model = NetMachine::with_backend(net, &mut b);
        let mut s = Search::for_machine(MctsParams {
            grave_ref,
            ..MctsParams::default()
        });
        s.run_machine(&mut model, &net.initial_state(), Budget::Iterations(2_000))
            .unwrap();
        s
    }

    /// On the CPU simulator every node with `grave_ref` visits gets a table; at the root,
    /// each move's AMAF visits are at least its own (every iteration through it played it)
    /// and every AMAF mean is a reward; the search is deterministic; off, no tables.
    #[test]
    fn tables_hold_every_iteration_through_a_move() {
        let net = propnet_runtime::fixtures::connect_four();
        let s = search(&net, 1);
        let t = s.tree();
        let with = t.iter().filter(|n| n.amaf.is_some()).count();
        assert!(with > 100 && with == t.amaf_tables(), "{with} tables");
        assert!(t.iter().all(|n| (n.amaf.is_some()) == (n.visits >= 1)));
        let root = t.root_node().unwrap();
        let table = root.amaf.as_deref().unwrap();
        assert_eq!(table.len(), net.inputs.len());
        let mover = root.single_mover().unwrap();
        for (m, st) in root.legal[mover].iter().zip(root.role_stats(mover)) {
            let a = table[m.index()];
            assert!(a.visits >= f64::from(st.visits), "{m:?}: {a:?} {st:?}");
        }
        for a in table.iter().filter(|a| a.visits > 0.0) {
            let mean = a.reward_sum / a.visits;
            assert!((0.0..=1.0 + 1e-9).contains(&mean), "{a:?}");
        }
        let again = search(&net, 1);
        let root2 = again.tree().root_node().unwrap();
        assert_eq!(root2.stats, root.stats);
        assert_eq!(root2.amaf, root.amaf);
        let plain = search(&net, 0);
        assert!(plain.tree().iter().all(|n| n.amaf.is_none()));
        assert_ne!(plain.tree().root_node().unwrap().stats, root.stats);
    }

    /// A model that does not number its moves (the interpreter) keeps no tables: GRAVE on
    /// searches exactly as plain UCT.
    #[test]
    fn without_move_keys_grave_is_plain_uct() {
        let text = include_str!("../../../bench-games/tictactoe.kif");
        let game = propnet_compiler::gdl::parse_source("tictactoe.kif", text.as_bytes()).unwrap();
        let run = |grave_ref| {
            let mut model = InterpMachine::new(&game.program).unwrap();
            assert!(model.amaf_keys().is_none());
            let root = GameMachine::initial_state(&mut model).unwrap();
            let mut s = Search::for_machine(MctsParams {
                grave_ref,
                leaves_per_batch: 4,
                playouts_per_leaf: 2,
                ..MctsParams::default()
            });
            s.run_machine(&mut model, &root, Budget::Iterations(200))
                .unwrap();
            s
        };
        let (on, off) = (run(5), run(0));
        assert!(on.tree().iter().all(|n| n.amaf.is_none()));
        let stats = |s: &Search<_, _>| s.tree().root_node().unwrap().stats.clone();
        assert_eq!(stats(&on), stats(&off));
    }
}
