//! Directed graphs in compressed adjacency form and their strongly connected components
//! (Tarjan's algorithm, iterative so that long dependency chains cannot overflow the
//! stack). The one SCC routine of the crate: the GDL checks ([`crate::gdl::deps`]), the
//! grounder's relation and atom graphs and the interpreter's strata all use it.
//!
//! Source: R. Tarjan, "Depth-first search and linear graph algorithms", SIAM J. Computing
//! 1(2), 1972.

/// A directed graph with nodes `0..len()`: the successors of node `v` are
/// `targets[offsets[v]..offsets[v + 1]]`.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// `offsets.len() == nodes + 1`.
    pub offsets: Vec<u32>,
    /// Concatenated successor lists.
    pub targets: Vec<u32>,
}

impl Graph {
    /// Builds a graph with `n` nodes from `(from, to)` edges (successors keep edge order).
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

    /// Builds a graph from one successor list per node.
    pub fn from_lists<I>(succ: &[I]) -> Self
    where
        I: AsRef<[usize]>,
    {
        let mut offsets = Vec::with_capacity(succ.len() + 1);
        let mut targets = Vec::new();
        offsets.push(0);
        for s in succ {
            targets.extend(s.as_ref().iter().map(|&w| w as u32));
            offsets.push(targets.len() as u32);
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

    /// True when the component is cyclic: more than one node, or one node with a
    /// self-edge.
    pub fn is_cyclic(&self, comp: &[u32]) -> bool {
        comp.len() > 1 || self.succ(comp[0] as usize).contains(&comp[0])
    }
}

const UNSEEN: u32 = u32::MAX;

/// The strongly connected components of all nodes (roots `0..n` in order); see
/// [`sccs_from`].
pub fn sccs(g: &Graph) -> Vec<Vec<u32>> {
    sccs_from(g, 0..g.len() as u32)
}

/// [`sccs`] of the graph given by one successor list per node, with `usize` nodes.
pub fn sccs_of_lists(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    sccs(&Graph::from_lists(succ))
        .into_iter()
        .map(|c| c.into_iter().map(|v| v as usize).collect())
        .collect()
}

/// The strongly connected components reachable from `roots`, each listed after every
/// component it has an edge into (so, with edges pointing from a node to what it depends
/// on, dependencies come first). Nodes inside a component are in ascending order.
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
    let mut visit = |v: u32, index: &mut [u32], low: &mut [u32], stack: &mut Vec<u32>| {
        index[v as usize] = next_index;
        low[v as usize] = next_index;
        next_index += 1;
        stack.push(v);
    };
    for root in roots {
        if index[root as usize] != UNSEEN {
            continue;
        }
        visit(root, &mut index, &mut low, &mut stack);
        on_stack[root as usize] = true;
        calls.push((root, 0));
        while let Some(&mut (v, ref mut pos)) = calls.last_mut() {
            let succ = g.succ(v as usize);
            if (*pos as usize) < succ.len() {
                let w = succ[*pos as usize];
                *pos += 1;
                if index[w as usize] == UNSEEN {
                    visit(w, &mut index, &mut low, &mut stack);
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
                comp.sort_unstable();
                out.push(comp);
            }
        }
    }
    out
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
        assert_eq!(comps[pos(1)], vec![1, 2]);
        assert!(pos(1) < pos(0) && pos(3) < pos(0));
        assert!(g.is_cyclic(&comps[pos(3)]));
        assert!(g.is_cyclic(&comps[pos(1)]));
        assert!(!g.is_cyclic(&comps[pos(0)]));
    }

    #[test]
    fn all_nodes_from_lists() {
        // 0 -> 1 -> 2 -> 1, 2 -> 3, 4 alone with a self loop
        let g = Graph::from_lists(&[vec![1], vec![2], vec![1, 3], vec![], vec![4]]);
        assert_eq!(
            sccs(&g),
            vec![vec![3], vec![1, 2], vec![0], vec![4]],
            "dependencies first, members ascending"
        );
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
