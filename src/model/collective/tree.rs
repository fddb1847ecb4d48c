//! NCCL's double binary tree: who talks to whom, and the busiest GPU's and node's load.

use super::tree_depth;

/// NCCL's double binary tree (Sanders et al. 2009, as NCCL ≥ 2.4 builds it): a binary tree over
/// *nodes*, and inside each node a chain through its GPUs. Tree A: node heads are local rank 0,
/// nodes in heap order (children 2m+1, 2m+2), the chain runs 0 → 1 → … → g−1. Tree B is tree A
/// over reversed ranks (head local rank g−1, mirrored node order), so a node internal in one tree
/// is a leaf in the other and both halves of the data keep every link busy. Ranks are node-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DoubleTree {
    /// Ranks.
    pub n: u32,
    /// GPUs per node.
    pub g: u32,
}

impl DoubleTree {
    /// The trees of `n` ranks in nodes of `g` (a count smaller than a node is one node).
    pub fn new(n: u32, g: u32) -> DoubleTree {
        let n = n.max(1);
        DoubleTree {
            n,
            g: g.clamp(1, n),
        }
    }

    fn nodes(&self) -> u32 {
        self.n / self.g
    }

    /// Rank `r` as seen in tree A (tree B uses the reversed rank).
    fn in_tree(&self, tree_b: bool, r: u32) -> u32 {
        if tree_b {
            self.n - 1 - r
        } else {
            r
        }
    }

    /// Parent of rank `r` in a tree.
    pub fn parent(&self, tree_b: bool, r: u32) -> Option<u32> {
        let q = self.in_tree(tree_b, r);
        let (m, j) = (q / self.g, q % self.g);
        let p = if j > 0 {
            Some(q - 1)
        } else if m > 0 {
            Some((m - 1) / 2 * self.g)
        } else {
            None
        };
        p.map(|p| self.in_tree(tree_b, p))
    }

    /// Children of rank `r` in a tree: the next GPU of its chain, and for a node head the heads
    /// of its child nodes.
    pub fn children(&self, tree_b: bool, r: u32) -> impl Iterator<Item = u32> + '_ {
        let q = self.in_tree(tree_b, r);
        let (m, j) = (q / self.g, q % self.g);
        let k = self.nodes();
        let chain = (j + 1 < self.g).then_some(q + 1);
        let heads = [2 * m + 1, 2 * m + 2]
            .into_iter()
            .filter(move |c| j == 0 && *c < k)
            .map(move |c| c * self.g);
        chain
            .into_iter()
            .chain(heads)
            .map(move |c| self.in_tree(tree_b, c))
    }

    /// Edges from the root to the deepest GPU: the node tree's depth plus one chain.
    pub fn height(&self) -> u32 {
        (self.g - 1) + tree_depth(self.nodes())
    }

    /// Pipeline ticks with `p` slices per half: a slice climbs the height, then descends it;
    /// slices follow one tick apart.
    pub fn ticks(&self, p: u32) -> u64 {
        u64::from(2 * self.height()) + u64::from(p.max(1)) - 1
    }

    /// Busiest loads of a steady pipeline tick, in slices, over both trees: (sends of one GPU
    /// inside its node, sends of one node over the network, receipts one GPU adds up). Closed
    /// form (a sweep evaluates it thousands of times); `tests::tree_load_matches_the_trees`
    /// checks it against the trees themselves.
    pub fn load(&self) -> (u32, u32, u32) {
        if self.n <= 1 {
            return (0, 0, 0);
        }
        let (g, k) = (self.g, self.nodes());
        // Child nodes of the root node (node m has 2m+1 and 2m+2 below k); no node has more.
        let root_children = (k - 1).min(2);
        // A chain GPU talks to its two chain neighbours in each tree.
        let intra = match g {
            1 => 0,
            2 => 2,
            _ => 4,
        };
        // A node's two heads (one per tree) each reach a parent node and up to two children. A
        // node with two child nodes in one tree is a leaf in the other (the first ⌊(k−1)/2⌋
        // nodes, mirrored in tree B), so the busiest, node 1 from five nodes on, has a parent in
        // both trees and two children in one: 4.
        let net = match k {
            1 => 0,
            2 => 2,
            3 | 4 => 3,
            _ => 4,
        };
        // A head adds its chain neighbour's and its child nodes' contributions (the root's are
        // the most); a chain GPU its neighbour's in each tree; with one GPU per node, children
        // in both trees, which is at most two as above.
        let recv = if g == 1 {
            root_children
        } else {
            (1 + root_children).max(if g >= 3 { 2 } else { 0 })
        };
        (intra, net, recv)
    }
}

#[cfg(test)]
mod tests {
    use super::DoubleTree;

    /// The loads counted edge by edge over every rank.
    fn brute(t: &DoubleTree) -> (u32, u32, u32) {
        let g = t.g;
        let (mut intra, mut net, mut recv) = (0, 0, 0);
        for m in 0..t.n / g {
            let mut node_net = 0;
            for r in m * g..(m + 1) * g {
                let (mut a, mut c) = (0, 0);
                for tb in [false, true] {
                    for o in t.parent(tb, r).into_iter().chain(t.children(tb, r)) {
                        if o / g == m {
                            a += 1;
                        } else {
                            node_net += 1;
                        }
                    }
                    c += t.children(tb, r).count() as u32;
                }
                intra = intra.max(a);
                recv = recv.max(c);
            }
            net = net.max(node_net);
        }
        (intra, net, recv)
    }

    #[test]
    fn tree_load_matches_the_trees() {
        for g in [1, 2, 3, 4, 8] {
            for k in 1..=40 {
                let t = DoubleTree::new(g * k, g);
                if t.n > 1 {
                    assert_eq!(t.load(), brute(&t), "g={g} k={k}");
                }
            }
        }
    }

    #[test]
    fn every_rank_but_the_roots_has_a_parent() {
        for (n, g) in [(1, 1), (8, 8), (16, 8), (24, 8), (7, 1), (12, 4)] {
            let t = DoubleTree::new(n, g);
            for tb in [false, true] {
                let roots = (0..n).filter(|r| t.parent(tb, *r).is_none()).count();
                assert_eq!(roots, 1, "n={n} g={g}");
                for r in 0..n {
                    for c in t.children(tb, r) {
                        assert_eq!(t.parent(tb, c), Some(r));
                    }
                }
            }
        }
    }
}
