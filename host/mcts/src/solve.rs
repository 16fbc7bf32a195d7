//! MCTS-Solver: proves node values inside the tree and plays proven moves.
//!
//! Algorithm: Winands, Björnsson & Saito, "Monte-Carlo tree search solver" (Computers and
//! Games 2008), generalised to goal vectors the way GGP players do (Sancho, CadiaPlayer): at
//! a node where one role moves, a child proven to give that role the highest goal (100)
//! proves the node with the child's value; once every move's child is proven, the node takes
//! the value of the child best for the mover (the first in model order on ties, as
//! `propnet solve` does). Nodes where several roles move at once are never proven (their
//! value is a mixed equilibrium, not a maximum). A proven node is *exact*: selection stops
//! there and back-propagates its value, like a terminal state, so a proven subtree costs one
//! step per visit instead of rollouts; a proven root ends the search.
//!
//! Selection scores a proven move by its proven reward alone (no exploration bonus: nothing
//! is left to learn there), so proven losses are not visited again while anything else is
//! open; the move to play ([`final_choice`]) is the most-visited open move unless a proven
//! move is worth more than that move's mean.

use super::tree::NodeId;
use super::walk::{Core, Leaf};

/// Index of the move to play among `(visits, mean, proven reward)` per move: the first
/// move proven to win (reward 1); else the most-visited move not proven (ties: higher
/// mean, then the first), replaced by the best proven move (the first on ties) when that
/// is worth more than its mean; the best proven move when all are proven. `None` for no
/// moves.
pub fn final_choice(moves: impl Iterator<Item = (u32, f64, Option<f64>)>) -> Option<usize> {
    let mut open: Option<(usize, u32, f64)> = None;
    let mut proven: Option<(usize, f64)> = None;
    for (i, (visits, mean, exact)) in moves.enumerate() {
        match exact {
            Some(x) if x >= WIN => return Some(i),
            Some(x) if proven.is_none_or(|(_, b)| x > b) => proven = Some((i, x)),
            Some(_) => {}
            None if open.is_none_or(|(_, v, m)| (visits, mean) > (v, m)) => {
                open = Some((i, visits, mean));
            }
            None => {}
        }
    }
    match (open, proven) {
        (Some((_, _, mean)), Some((p, x))) if x > mean => Some(p),
        (Some((o, _, _)), _) => Some(o),
        (None, p) => p.map(|(p, _)| p),
    }
}

/// The reward that proves a node at once: the highest goal (100), scaled.
const WIN: f64 = 1.0;

impl<S: Clone, M: Copy + Eq + std::hash::Hash + std::fmt::Debug> Core<S, M> {
    /// After `leaf`'s rewards are back-propagated: walks up its path while the child is
    /// exact, recording the child's value on the mover's move and proving the parent where
    /// the rule of the module docs allows; stops at the first node it cannot prove.
    pub(crate) fn prove_upward(&mut self, leaf: &Leaf) {
        let mut child = leaf.node;
        for (id, moves) in leaf.steps().rev() {
            let Some(value) = self.tree.node(child).exact.clone() else {
                return;
            };
            let node = self.tree.node_mut(id);
            let Some(mover) = node.exact.is_none().then(|| node.single_mover()).flatten() else {
                return;
            };
            node.stat_mut(mover, moves[mover]).exact = Some(value[mover]);
            let Some(best) = proof(node.role_stats(mover)) else {
                return;
            };
            let proven = if best == moves[mover] as usize {
                value
            } else {
                let mut key = moves.to_vec();
                key[mover] = best as u32;
                let other = (node.child(&key)).expect("a proven move's child is in the tree");
                self.proven_value(other)
            };
            self.tree.node_mut(id).exact = Some(proven);
            child = id;
        }
    }

    /// The exact value of a node the solver relies on.
    fn proven_value(&self, id: NodeId) -> Vec<f64> {
        self.tree
            .node(id)
            .exact
            .clone()
            .expect("a move recorded as proven leads to an exact node")
    }
}

/// The move that proves a node from its mover's statistics: the first move proven to win,
/// or, when every move is proven, the first best one; `None` while the node stays open.
fn proof(stats: &[super::tree::MoveStats]) -> Option<usize> {
    if let Some(win) = stats.iter().position(|s| s.exact == Some(WIN)) {
        return Some(win);
    }
    let mut best: Option<(usize, f64)> = None;
    for (i, s) in stats.iter().enumerate() {
        let x = s.exact?;
        if best.is_none_or(|(_, b)| x > b) {
            best = Some((i, x));
        }
    }
    best.map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Budget, MctsParams, Search};
    use propnet_runtime::backend::ReferenceBackend;
    use propnet_runtime::machine::NetMachine;
    use propnet_runtime::solver::{solve, SolveOptions};

    #[test]
    fn the_move_to_play_is_the_most_visited_open_one_unless_a_proven_one_is_worth_more() {
        let choose = |m: &[(u32, f64, Option<f64>)]| final_choice(m.iter().copied());
        assert_eq!(choose(&[]), None);
        assert_eq!(choose(&[(5, 0.4, None), (9, 0.3, None)]), Some(1));
        assert_eq!(
            choose(&[(9, 0.3, None), (9, 0.4, None)]),
            Some(1),
            "ties: mean"
        );
        // a proven draw beats an open move whose mean is lower, not one whose mean is higher
        assert_eq!(choose(&[(1, 0.0, Some(0.5)), (90, 0.4, None)]), Some(0));
        assert_eq!(choose(&[(1, 0.0, Some(0.5)), (90, 0.6, None)]), Some(1));
        // a proven loss is never preferred to an open move, a proven win always is
        assert_eq!(choose(&[(50, 0.0, Some(0.0)), (2, 0.0, None)]), Some(1));
        assert_eq!(choose(&[(2, 0.9, None), (1, 0.0, Some(1.0))]), Some(1));
        assert_eq!(choose(&[(2, 0.0, Some(0.0)), (1, 0.0, Some(0.5))]), Some(1));
    }

    /// Plays `names` (one move per role per step) from the initial state.
    fn play(net: &propnet_netlist::Netlist, names: &[[&str; 2]]) -> Vec<bool> {
        let m = NetMachine::new(net);
        let mut s = m.initial_state();
        for step in names {
            let legal = m.legal_moves(&s);
            let joint: Vec<_> = (0..2)
                .map(|r| {
                    *legal[r]
                        .iter()
                        .find(|&&i| m.move_name(i) == step[r])
                        .unwrap_or_else(|| panic!("{} not legal", step[r]))
                })
                .collect();
            s = m.next_state(&s, &joint);
        }
        s
    }

    /// x to move with a win on (mark 1 3) (and forced wins after others); the search proves
    /// the root, stops early and plays a proven win, where plain UCT spends its budget.
    #[test]
    fn a_win_in_one_is_proven_and_played_and_ends_the_search() {
        let net = propnet_runtime::fixtures::tictactoe();
        let root = play(
            &net,
            &[
                ["(mark 1 1)", "noop"],
                ["noop", "(mark 2 1)"],
                ["(mark 1 2)", "noop"],
                ["noop", "(mark 2 2)"],
            ],
        );
        let mut b = ReferenceBackend::new(net.clone());
        let mut model = NetMachine::with_backend(&net, &mut b);
        let params = MctsParams {
            leaves_per_batch: 4,
            playouts_per_leaf: 2,
            solver: true,
            ..MctsParams::default()
        };
        let mut s = Search::for_machine(params.clone());
        let r = s
            .run_machine(&mut model, &root, Budget::Iterations(2_000))
            .unwrap();
        assert!(r.iterations < 2_000, "a proven root ends the search");
        assert_eq!(s.tree().root_node().unwrap().exact, Some(vec![1.0, 0.0]));
        let best = r.best_move(0).unwrap();
        let report = r.roles[0].iter().find(|m| m.input == best).unwrap();
        assert_eq!(report.exact, Some(1.0), "{report:?}");
        let m = NetMachine::new(&net);
        let after = m.next_state(&root, &[best, m.legal_moves(&root)[1][0]]);
        let sol = solve(&net, &after, &SolveOptions::default(), &mut |_| {}).unwrap();
        assert_eq!(sol.values, vec![100, 0], "{} wins", report.name);
        let mut plain = Search::for_machine(MctsParams {
            solver: false,
            ..params
        });
        let r = plain
            .run_machine(&mut model, &root, Budget::Iterations(2_000))
            .unwrap();
        assert_eq!(r.iterations, 2_000);
        assert!(plain.tree().root_node().unwrap().exact.is_none());
    }

    /// Every node the solver proves has the value `propnet solve` finds for its state.
    #[test]
    fn proven_values_are_the_exact_game_values() {
        let net = propnet_runtime::fixtures::tictactoe();
        let root = play(&net, &[["(mark 2 2)", "noop"]]);
        let mut b = ReferenceBackend::new(net.clone());
        let mut model = NetMachine::with_backend(&net, &mut b);
        let mut s = Search::for_machine(MctsParams {
            leaves_per_batch: 4,
            playouts_per_leaf: 1,
            solver: true,
            ..MctsParams::default()
        });
        s.run_machine(&mut model, &root, Budget::Iterations(3_000))
            .unwrap();
        let mut proven = 0;
        for n in s.tree().iter() {
            let Some(exact) = &n.exact else { continue };
            if n.legal.iter().all(Vec::is_empty) {
                continue; // terminal
            }
            proven += 1;
            let sol = solve(&net, &n.state, &SolveOptions::default(), &mut |_| {}).unwrap();
            let want: Vec<f64> = sol.values.iter().map(|&g| f64::from(g) / 100.0).collect();
            assert_eq!(exact, &want, "{:?}", n.state);
        }
        assert!(proven > 20, "only {proven} nodes proven");
    }
}
