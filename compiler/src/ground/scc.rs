//! Finds strongly connected components (Tarjan's algorithm, iterative so deep graphs
//! cannot overflow the stack).
//!
//! Source: R. Tarjan, "Depth-first search and linear graph algorithms", SIAM J. Computing
//! 1(2), 1972.

/// A directed graph in compressed adjacency form: the successors of node `v` are
/// `targets[offsets[v]..offsets[v + 1]]`.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// `offsets.len() == nodes + 1`.
    pub offsets: Vec<u32>,
    /// Concatenated successor lists.
    pub targets: Vec<u32>,
}

impl Graph {
    /// Builds a graph with `n` nodes from `(from, to)` edges.
    pub fn from_edges(n: usize, edges: &[(u32, u32)]) -> Self {
        let mut offsets = vec![0u32; n + 1];
        for &(a, _) in edges {
            offsets[a as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut targets = vec![0u32; edges.len()];
        for &(a, b) in edges {
            targets[fill[a as usize] as usize] = b;
            fill[a as usize] += 1;
        }
        Graph { offsets, targets }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when the graph has no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Successors of `v`.
    pub fn succ(&self, v: usize) -> &[u32] {
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }
}

const UNSEEN: u32 = u32::MAX;

/// The strongly connected components reachable from `roots`, each listed after every
/// component it has an edge into (so, with edges pointing from a node to what it depends
/// on, dependencies come first).
pub fn sccs_from(g: &Graph, roots: impl IntoIterator<Item = u32>) -> Vec<Vec<u32>> {
    let n = g.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut out = Vec::new();
    let mut next_index = 0u32;
    // Call stack of (node, position in its successor list).
    let mut calls: Vec<(u32, u32)> = Vec::new();
    for root in roots {
        if index[root as usize] != UNSEEN {
            continue;
        }
        index[root as usize] = next_index;
        low[root as usize] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        calls.push((root, 0));
        while let Some(&mut (v, ref mut pos)) = calls.last_mut() {
            let succ = g.succ(v as usize);
            if (*pos as usize) < succ.len() {
                let w = succ[*pos as usize];
                *pos += 1;
                if index[w as usize] == UNSEEN {
                    index[w as usize] = next_index;
                    low[w as usize] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    calls.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent as usize] = low[parent as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let mut comp = Vec::new();
                loop {
                    let w = stack.pop().expect("Tarjan stack holds the component");
                    on_stack[w as usize] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(comp);
            }
        }
    }
    out
}

/// True when the component is cyclic: more than one node, or one node with a self-edge.
pub fn is_cyclic(g: &Graph, comp: &[u32]) -> bool {
    comp.len() > 1 || g.succ(comp[0] as usize).contains(&comp[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependencies_come_first_and_cycles_are_grouped() {
        // 0 -> 1 -> 2 -> 1, 0 -> 3, 3 -> 3
        let g = Graph::from_edges(5, &[(0, 1), (1, 2), (2, 1), (0, 3), (3, 3)]);
        let comps = sccs_from(&g, [0]);
        let pos = |v: u32| comps.iter().position(|c| c.contains(&v)).unwrap();
        assert_eq!(
            comps.len(),
            3,
            "node 4 is unreachable, {{1,2}} is one component"
        );
        assert_eq!(pos(1), pos(2));
        assert!(pos(1) < pos(0) && pos(3) < pos(0));
        assert!(is_cyclic(&g, &comps[pos(3)]));
        assert!(is_cyclic(&g, &comps[pos(1)]));
        assert!(!is_cyclic(&g, &comps[pos(0)]));
    }

    #[test]
    fn long_chain_does_not_overflow() {
        let n = 200_000u32;
        let edges: Vec<_> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let g = Graph::from_edges(n as usize, &edges);
        let comps = sccs_from(&g, [0]);
        assert_eq!(comps.len(), n as usize);
        assert_eq!(comps[0], vec![n - 1]);
    }
}
