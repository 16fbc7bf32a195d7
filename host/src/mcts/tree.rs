//! The search tree: an arena of nodes addressed by [`NodeId`], each with decoupled per-role
//! move statistics and its children keyed by joint move.

use crate::machine::State;
use propnet_netlist::playout::{eval_gates, goals_of, legal_of};
use propnet_netlist::{InputId, Netlist};
use std::collections::HashMap;

/// Index of a node in [`Tree::nodes`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The arena index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Statistics of one move of one role at one node (decoupled UCT).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct MoveStats {
    /// Back-propagated visits through this move.
    pub visits: u32,
    /// Pending virtual-loss visits (reward 0) of leaves not yet back-propagated.
    pub virtual_visits: u32,
    /// Sum of this role's rewards (goal / 100, so 0..1 each) over `visits`.
    pub reward_sum: f64,
}

impl MoveStats {
    /// Mean reward in 0..1 over real visits (0 when unvisited).
    pub fn mean(&self) -> f64 {
        if self.visits == 0 {
            0.0
        } else {
            self.reward_sum / f64::from(self.visits)
        }
    }
}

/// One game state in the tree.
#[derive(Clone, Debug)]
pub struct Node {
    /// The state (one bool per latch).
    pub state: State,
    /// Exact per-role rewards (goal / 100) when the state ends the game: terminal, or a role
    /// has no legal move (the playout rule ends the game there too). `None` otherwise.
    pub exact: Option<Vec<f64>>,
    /// Legal moves per role (role order, netlist order); empty lists when `exact` is set.
    pub legal: Vec<Vec<InputId>>,
    /// Start of each role's block in `stats`.
    offsets: Vec<usize>,
    /// Move statistics, role by role, one per legal move.
    pub stats: Vec<MoveStats>,
    /// Back-propagated visits of this node.
    pub visits: u32,
    /// Pending virtual-loss visits.
    pub virtual_visits: u32,
    /// Children by joint move (per-role move index into `legal`).
    pub children: HashMap<Box<[u32]>, NodeId>,
}

impl Node {
    /// Evaluates `state` once and builds an unvisited node for it.
    pub fn new(net: &Netlist, state: State) -> Self {
        let values = eval_gates(net, &state, &vec![false; net.inputs.len()]);
        let legal: Vec<Vec<InputId>> = legal_of(net, &values);
        let ended = values[net.terminal.index()] || legal.iter().any(Vec::is_empty);
        let exact = ended.then(|| {
            goals_of(net, &values)
                .into_iter()
                .map(|g| f64::from(g) / 100.0)
                .collect()
        });
        let legal = if ended {
            vec![vec![]; net.roles.len()]
        } else {
            legal
        };
        let mut offsets = Vec::with_capacity(legal.len());
        let mut total = 0;
        for l in &legal {
            offsets.push(total);
            total += l.len();
        }
        Self {
            state,
            exact,
            legal,
            offsets,
            stats: vec![MoveStats::default(); total],
            visits: 0,
            virtual_visits: 0,
            children: HashMap::new(),
        }
    }

    /// Role `role`'s move statistics, one per legal move.
    pub fn role_stats(&self, role: usize) -> &[MoveStats] {
        &self.stats[self.offsets[role]..self.offsets[role] + self.legal[role].len()]
    }

    fn stat_mut(&mut self, role: usize, m: u32) -> &mut MoveStats {
        &mut self.stats[self.offsets[role] + m as usize]
    }

    /// Adds (`sign = true`) or removes `amount` virtual visits on this node and on the chosen
    /// move of every role.
    pub fn virtual_loss(&mut self, moves: &[u32], amount: u32, add: bool) {
        let f = |v: &mut u32| {
            *v = if add {
                *v + amount
            } else {
                v.saturating_sub(amount)
            }
        };
        f(&mut self.virtual_visits);
        for (r, &m) in moves.iter().enumerate() {
            f(&mut self.stat_mut(r, m).virtual_visits);
        }
    }

    /// Records one visit with per-role `rewards` (0..1) through joint move `moves`.
    pub fn update(&mut self, moves: &[u32], rewards: &[f64]) {
        self.visits += 1;
        for (r, &m) in moves.iter().enumerate() {
            let s = self.stat_mut(r, m);
            s.visits += 1;
            s.reward_sum += rewards[r];
        }
    }
}

/// The node arena. Node 0 is the root.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    /// All nodes; children always have larger ids than their first parent.
    pub nodes: Vec<Node>,
}

impl Tree {
    /// A tree holding only the root node for `state`.
    pub fn new(net: &Netlist, state: State) -> Self {
        Self {
            nodes: vec![Node::new(net, state)],
        }
    }
    /// The root's id.
    pub fn root(&self) -> NodeId {
        NodeId(0)
    }
    /// Adds a node and returns its id.
    pub fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        NodeId(self.nodes.len() as u32 - 1)
    }
    /// The node with this id.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }
    /// The node with this id, mutably.
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id.index()]
    }
}
