//! NCCL's double binary tree: who talks to whom, and the busiest GPU's and node's load.

/// NCCL's double binary tree (Sanders et al. 2009, as NCCL 2.29.7 builds it: `src/graph/trees.cc`
/// at b91894bd, `ncclGetBtree` and `ncclGetDtree`): a binary tree over *nodes*, and inside each
/// node a chain through its GPUs. Tree A's node tree is in order by the lowest set bit (node 0
/// the root with one child; node m's parent flips its lowest bit up, so half the nodes talk to a
/// neighbour, a quarter two places away, and so on), its heads local rank 0, its chains
/// 0 → 1 → … → g−1. Tree B mirrors the node tree (shifts it by one node when there is an odd
/// number) and runs its chains the other way from head g−1, so a node internal in one tree is a
/// leaf in the other and both halves of the data keep every link busy. Ranks are node-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DoubleTree {
    /// Ranks.
    pub n: u32,
    /// GPUs per node.
    pub g: u32,
}

/// `ncclGetBtree`: node `m`'s parent and children in the in-order binary tree over `k` nodes,
/// line by line (its second child's search included).
fn btree(k: u32, m: u32) -> (Option<u32>, [Option<u32>; 2]) {
    let mut bit = 1u32;
    while bit < k && bit & m == 0 {
        bit <<= 1;
    }
    if m == 0 {
        return (None, [None, (k > 1).then_some(bit >> 1)]);
    }
    let mut up = (m ^ bit) | (bit << 1);
    if up >= k {
        up = m ^ bit;
    }
    let mut low = bit >> 1;
    let down0 = (low != 0).then(|| m - low);
    let mut down1 = (low != 0).then(|| m + low);
    while down1.is_some_and(|d| d >= k) {
        down1 = (low != 0).then(|| m + low);
        low >>= 1;
    }
    (Some(up), [down0, down1])
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

    /// Node `m`'s parent and children in the node tree of tree A or B (`ncclGetDtree`).
    fn node_tree(&self, tree_b: bool, m: u32) -> (Option<u32>, [Option<u32>; 2]) {
        let k = self.nodes();
        if !tree_b {
            return btree(k, m);
        }
        let shift = k % 2 == 1;
        let to = |x: u32| if shift { (x + 1) % k } else { k - 1 - x };
        let (up, down) = btree(k, if shift { (m + k - 1) % k } else { k - 1 - m });
        (up.map(to), down.map(|d| d.map(to)))
    }

    /// Rank `r`'s node and place along its node's chain in a tree (0: the head).
    fn place(&self, tree_b: bool, r: u32) -> (u32, u32) {
        let (m, j) = (r / self.g, r % self.g);
        (m, if tree_b { self.g - 1 - j } else { j })
    }

    /// The rank at a node's chain place in a tree.
    fn rank(&self, tree_b: bool, m: u32, place: u32) -> u32 {
        m * self.g + if tree_b { self.g - 1 - place } else { place }
    }

    /// Parent of rank `r` in a tree.
    pub fn parent(&self, tree_b: bool, r: u32) -> Option<u32> {
        let (m, i) = self.place(tree_b, r);
        if i > 0 {
            return Some(self.rank(tree_b, m, i - 1));
        }
        self.node_tree(tree_b, m).0.map(|p| self.rank(tree_b, p, 0))
    }

    /// Children of rank `r` in a tree: the next GPU of its chain, and for a node head the heads
    /// of its child nodes.
    pub fn children(&self, tree_b: bool, r: u32) -> impl Iterator<Item = u32> + '_ {
        let (m, i) = self.place(tree_b, r);
        let chain = (i + 1 < self.g).then(|| self.rank(tree_b, m, i + 1));
        let heads = if i == 0 {
            self.node_tree(tree_b, m).1
        } else {
            [None, None]
        };
        chain.into_iter().chain(
            heads
                .into_iter()
                .flatten()
                .map(move |c| self.rank(tree_b, c, 0)),
        )
    }

    /// Edges from the root to the deepest GPU: the node tree's depth, ⌈log2 k⌉ (the in-order
    /// tree of 5 nodes is 0 → 4 → 2 → 1), plus one chain.
    pub fn height(&self) -> u32 {
        (self.g - 1) + (32 - (self.nodes() - 1).leading_zeros())
    }

    /// Pipeline ticks with `p` slices per half: a slice climbs the height, then descends it;
    /// slices follow one tick apart.
    pub fn ticks(&self, p: u32) -> u64 {
        u64::from(2 * self.height()) + u64::from(p.max(1)) - 1
    }

    /// How many nodes' worth of a tree tick's network sends (the busiest node's, the middle of
    /// [`DoubleTree::load`]) leave the busiest run of `m` consecutive nodes of `k`: what a leaf
    /// (or pod) group's uplinks carry when the job is packed. Few do — an aligned run of 2^j nodes
    /// loses at most 6 edge-ends (10 with the odd-count shift) however many nodes there are,
    /// where a heap-ordered tree's deep levels would take every node's sends out of it. Counted
    /// edge by edge over both node trees; a sweep asks about few pairs, so they are remembered.
    pub fn nodes_leaving(k: u32, m: u32) -> f64 {
        let t = DoubleTree::new(k, 1);
        let net = t.load().1;
        let m = m.max(1);
        if m >= k || net == 0 {
            return 0.0;
        }
        thread_local! {
            static SEEN: std::cell::RefCell<std::collections::HashMap<(u32, u32), f64>> =
                std::cell::RefCell::default();
        }
        if let Some(v) = SEEN.with(|seen| seen.borrow().get(&(k, m)).copied()) {
            return v;
        }
        let (mut busiest, mut run) = (0u32, 0u32);
        for r in 0..k {
            if r % m == 0 {
                busiest = busiest.max(run);
                run = 0;
            }
            for tree_b in [false, true] {
                let (up, down) = t.node_tree(tree_b, r);
                run += std::iter::once(up)
                    .chain(down)
                    .flatten()
                    .filter(|o| o / m != r / m)
                    .count() as u32;
            }
        }
        let v = f64::from(busiest.max(run)) / f64::from(net);
        SEEN.with(|seen| {
            let mut seen = seen.borrow_mut();
            // Bounded: a long session's many fabrics start it afresh.
            if seen.len() >= 4096 {
                seen.clear();
            }
            seen.insert((k, m), v);
        });
        v
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
        // A chain GPU talks to its two chain neighbours in each tree.
        let intra = match g {
            1 => 0,
            2 => 2,
            _ => 4,
        };
        // A node's two heads (one per tree) each reach a parent node and up to two children. A
        // node with children in one tree is a leaf in the other, so the busiest, from four
        // nodes on, has a parent in both trees and two children in one: 4.
        let net = match k {
            1 => 0,
            2 => 2,
            3 => 3,
            _ => 4,
        };
        // Most child nodes of a head in one tree: the root has one, and no node has two below
        // four nodes (three nodes: 0 → 2 → 1).
        let kids = match k {
            1 => 0,
            2 | 3 => 1,
            _ => 2,
        };
        // A head adds its chain neighbour's and its child nodes' contributions; a chain GPU its
        // neighbour's in each tree; with one GPU per node, a node's children in both trees, at
        // most two.
        let recv = if g == 1 {
            (k - 1).min(2)
        } else {
            (1 + kids).max(if g >= 3 { 2 } else { 0 })
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

    /// NCCL's own trees (`ncclGetBtree`'s illustration in trees.cc, 14 ranks; and 16): node 1's
    /// parent is 2, 2's is 4, 13's is 12 (its would-be parent 14 is out of bounds), and the
    /// root 0 has one child, 8.
    #[test]
    fn the_node_tree_is_nccls() {
        let t = DoubleTree::new(14, 1);
        assert_eq!(t.parent(false, 1), Some(2));
        assert_eq!(t.parent(false, 2), Some(4));
        assert_eq!(t.parent(false, 13), Some(12));
        assert_eq!(t.children(false, 0).collect::<Vec<_>>(), vec![8]);
        assert_eq!(t.children(false, 12).collect::<Vec<_>>(), vec![10, 13]);
        // Tree B mirrors it: 14 − 1 − 1 = 12's parent is 14 − 1 − 2 = 11.
        assert_eq!(t.parent(true, 12), Some(11));
        let t = DoubleTree::new(16, 1);
        assert_eq!(t.parent(false, 1), Some(2));
        assert_eq!(t.parent(false, 2), Some(4));
        assert_eq!(t.height(), 4);
        assert_eq!(DoubleTree::new(5, 1).height(), 3);
    }

    /// A packed leaf group's uplinks carry a few nodes' worth of a tree's sends, not all of its
    /// nodes' (a heap-ordered tree's deep levels span half the job: 32 of 32).
    #[test]
    fn few_tree_sends_leave_a_packed_group() {
        for k in [64, 256, 512, 1024] {
            let v = DoubleTree::nodes_leaving(k, 32);
            assert!(v <= 1.5 + 1e-9, "k={k}: {v}");
        }
        // One node a group: all of its sends leave.
        assert_eq!(DoubleTree::nodes_leaving(64, 1), 1.0);
        // The whole job in one group: none.
        assert_eq!(DoubleTree::nodes_leaving(64, 64), 0.0);
        // Odd counts shift tree B by one node: a little more leaves an aligned run.
        assert!(DoubleTree::nodes_leaving(65, 32) <= 2.5 + 1e-9);
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
