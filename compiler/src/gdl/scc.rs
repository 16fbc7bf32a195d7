//! Strongly connected components (Tarjan's algorithm, iterative so that long dependency
//! chains cannot overflow the stack). R. Tarjan, "Depth-first search and linear graph
//! algorithms", SIAM J. Computing 1(2), 1972.

/// The SCCs of the graph with nodes `0..n` and successors `succ[v]`.
///
/// Returned in reverse topological order of the condensation: every SCC comes after all
/// SCCs it has edges to (for a "depends on" graph: dependencies first). Nodes inside an
/// SCC are in ascending order.
pub fn sccs(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = succ.len();
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut next_index = 0;
    // Explicit DFS stack: (node, position in its successor list).
    let mut work: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        work.push((root, 0));
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if *pos == 0 && index[v] == UNSEEN {
                index[v] = next_index;
                low[v] = next_index;
                next_index += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = succ[v].get(*pos) {
                *pos += 1;
                if index[w] == UNSEEN {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                loop {
                    let w = stack.pop().expect("tarjan stack");
                    on_stack[w] = false;
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
    fn finds_cycles_and_orders_dependencies_first() {
        // 0 -> 1 -> 2 -> 1, 2 -> 3, 4 alone with a self loop
        let g = vec![vec![1], vec![2], vec![1, 3], vec![], vec![4]];
        let got = sccs(&g);
        assert_eq!(got, vec![vec![3], vec![1, 2], vec![0], vec![4]]);
    }

    #[test]
    fn long_chain_does_not_overflow() {
        let n = 200_000;
        let g: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let got = sccs(&g);
        assert_eq!(got.len(), n);
        assert_eq!(got[0], vec![n - 1]);
    }
}
