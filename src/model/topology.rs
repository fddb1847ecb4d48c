//! The network beyond one switch: leaf groups, oversubscribed uplinks, pods, where the job's
//! nodes sit, how flows are routed, and other jobs' traffic.
//!
//! A node's NICs hang off a leaf group — a scalable unit of `leaf_nodes` nodes whose leaf
//! switches connect every NIC of the group (rail-optimised: NIC *i* of every node on rail switch
//! *i*, the DGX SuperPOD design; top-of-rack: all of a node's NICs on one switch). Leaf groups
//! reach each other through spine uplinks with `oversub` : 1 less capacity than their
//! downlinks, and optionally pods of `pod_nodes` nodes through a further `pod_oversub` taper.
//! NCCL keeps traffic rail-aligned (PXN moves data over NVLink to the NIC of the right rail),
//! so rail and top-of-rack differ here only in the size of a leaf group.
//!
//! In a round of a collective each node sends its bytes to a partner `d` places away in rank
//! order (1 for a ring), or to its parent and children in NCCL's double binary tree. With `m` of
//! the job's nodes in a leaf group, contiguous in rank order, min(m, d) of them reach across the
//! group's uplinks in each direction (a tree's edges mostly stay inside a run of consecutive
//! nodes: [`DoubleTree::nodes_leaving`] counts what leaves), over the job's fair
//! share of those uplinks: its m nodes' ports divided by the oversubscription (the other nodes
//! of the group belong to other jobs, whose extra load is `bg_load`). Adaptive routing
//! spreads that load over all uplinks; static ECMP hashing puts each flow (one per NCCL
//! channel, one channel per NIC) on one uplink, and collisions make the busiest uplink carry
//! the expected maximum of F flows in K bins (Raab & Steger 1998, "Balls into Bins — A Simple
//! and Tight Analysis"), computed here from the Poisson occupancy of each bin, over every group
//! the job spans (the round waits for the busiest uplink anywhere).

use super::collective::DoubleTree;

/// Where a node's NICs attach.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Attach {
    /// Rail-optimised: NIC *i* of every node in the group on rail switch *i*.
    Rail,
    /// Top-of-rack: all of a node's NICs on one leaf switch.
    Tor,
}

/// Where the scheduler put the job's nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Placement {
    /// Contiguous: whole leaf groups, then whole pods.
    Packed,
    /// One node per leaf group.
    Spread,
    /// Scattered as a busy scheduler leaves them.
    Random,
}

/// How flows are routed over the uplinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Routing {
    /// Static hashing of each flow onto one uplink.
    Ecmp,
    /// Adaptive routing or enough queue pairs: the load spreads evenly.
    Adaptive,
}

macro_rules! ids {
    ($t:ty, $( $v:path => $id:literal ),*) => {
        impl $t {
            /// Every value.
            pub const ALL: &'static [$t] = &[$($v),*];
            /// Scenario id.
            pub fn id(self) -> &'static str {
                match self { $($v => $id),* }
            }
        }
    };
}
ids!(Attach, Attach::Rail => "rail", Attach::Tor => "tor");
ids!(Placement, Placement::Packed => "packed", Placement::Spread => "spread", Placement::Random => "random");
ids!(Routing, Routing::Ecmp => "ecmp", Routing::Adaptive => "adaptive");

/// Nodes in a scalable unit of the DGX H100 SuperPOD: 32 (NVIDIA DGX SuperPOD reference
/// architecture, DGX H100: "a scalable unit of 32 DGX H100 systems", rail-optimised).
pub const SUPERPOD_SU_NODES: u32 = 32;

/// Nodes under one top-of-rack leaf: a 64-port switch with eight NICs per node, half the ports
/// down and half up at 1:1 — 4 nodes. **Assumption** (a typical 64 × 400G leaf).
pub const TOR_NODES: u32 = 4;

/// With random placement a busy scheduler leaves the job half of each leaf group it touches.
/// **Assumption**.
const RANDOM_SHARE: f64 = 0.5;

/// The fabric beyond the node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Topology {
    /// NIC attachment.
    pub attach: Attach,
    /// Nodes per leaf group.
    pub leaf_nodes: u32,
    /// Leaf → spine oversubscription (1 = non-blocking).
    pub oversub: f64,
    /// Nodes per pod (0: no pod tier).
    pub pod_nodes: u32,
    /// Oversubscription above the pods.
    pub pod_oversub: f64,
    /// Where the job's nodes are.
    pub placement: Placement,
    /// Routing.
    pub routing: Routing,
    /// Share of uplink capacity other jobs use.
    pub bg_load: f64,
}

impl Default for Topology {
    /// A private non-blocking rail-optimised fabric with adaptive routing: the two-tier model.
    fn default() -> Self {
        Topology {
            attach: Attach::Rail,
            leaf_nodes: SUPERPOD_SU_NODES,
            oversub: 1.0,
            pod_nodes: 0,
            pod_oversub: 1.0,
            placement: Placement::Packed,
            routing: Routing::Adaptive,
            bg_load: 0.0,
        }
    }
}

/// Expected maximum number of flows on one of `bins` links when `flows` are hashed uniformly:
/// Σ_j P(max ≥ j), with each bin's load Poisson(flows/bins) and the bins independent (and
/// P = 1 up to ⌈flows/bins⌉, which some bin always reaches).
pub fn expected_max_load(flows: f64, bins: f64) -> f64 {
    if flows <= 0.0 || bins <= 0.0 {
        return 0.0;
    }
    if bins <= 1.0 {
        return flows;
    }
    // The rounds of one collective, and the same counts on other fabrics and networks, ask
    // the same questions again and again: remember recent answers, one slot per question's
    // hash (a sweep evaluates thousands of collectives).
    const SLOTS: usize = 256;
    const _: () = assert!(SLOTS.is_power_of_two());
    type Slot = std::cell::Cell<(f64, f64, f64)>;
    thread_local! {
        static SEEN: [Slot; SLOTS] = const { [const { Slot::new((0.0, 0.0, 0.0)) }; SLOTS] };
    }
    let key = flows.to_bits().wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ bins.to_bits();
    // The hash's top bits pick the slot.
    let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOTS.trailing_zeros())) as usize;
    SEEN.with(|seen| {
        let (f, b, e) = seen[slot].get();
        if f == flows && b == bins {
            return e;
        }
        let e = max_load_sum(flows, bins);
        seen[slot].set((flows, bins, e));
        e
    })
}

/// The sum behind [`expected_max_load`].
fn max_load_sum(flows: f64, bins: f64) -> f64 {
    let lambda = flows / bins;
    let mut cdf = 0.0; // P(load ≤ j − 1)
    let mut pmf = (-lambda).exp(); // P(load = 0)
    let mut expected = 0.0;
    let top = flows.ceil() as u32;
    for j in 1..=top {
        cdf += pmf;
        pmf *= lambda / f64::from(j);
        // Pigeonhole: some link carries at least ⌈F/K⌉ flows.
        let tail = if f64::from(j) <= (flows / bins).ceil() {
            1.0
        } else {
            let p = cdf.min(1.0);
            // A whole number of bins (the usual case): squaring is several times cheaper than
            // the general power.
            1.0 - if bins.fract() == 0.0 && bins < 1e9 {
                p.powi(bins as i32)
            } else {
                p.powf(bins)
            }
        };
        if tail < 1e-12 {
            break;
        }
        expected += tail;
    }
    expected.clamp(flows / bins, flows)
}

/// What one tier above the node costs a round.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TierLoad {
    /// Bytes that cross the tier's uplinks of the busiest group, one direction.
    pub bytes: f64,
    /// Time those bytes take, seconds.
    pub time: f64,
}

impl Topology {
    /// The job's nodes in a group of `group` nodes (`k` nodes in all).
    fn job_nodes_in(&self, group: u32, k: u32) -> f64 {
        let (g, k) = (f64::from(group.max(1)), f64::from(k));
        match self.placement {
            Placement::Packed => g.min(k),
            Placement::Spread => 1.0,
            Placement::Random => (g * RANDOM_SHARE).min(k).max(1.0),
        }
    }

    /// One tier: `group` nodes whose uplinks have 1/`taper` of their NICs' capacity.
    fn tier(&self, k: u32, group: u32, taper: f64, send: Send) -> TierLoad {
        let m = match self.placement {
            // Spread puts one node per leaf group, and the leaf groups of a pod together.
            Placement::Spread if group > self.leaf_nodes => {
                f64::from(group / self.leaf_nodes.max(1)).max(1.0)
            }
            _ => self.job_nodes_in(group, k),
        };
        if f64::from(k) <= m || send.bytes <= 0.0 {
            return TierLoad::default();
        }
        let crossing = match send.partners {
            Partners::Shift(d) => m.min(f64::from(d.max(1))),
            // A packed group is a run of consecutive nodes, which the tree's edges mostly stay
            // inside; other placements scatter the job's rank order over the groups.
            Partners::Tree if self.placement == Placement::Packed => {
                DoubleTree::nodes_leaving(k, m as u32).min(m)
            }
            Partners::Tree => m,
        };
        let bytes = crossing * send.bytes;
        let free = (1.0 - self.bg_load).max(0.05);
        // The job's fair share of the group's uplinks: its nodes' share of the group (other
        // jobs' nodes in the group use theirs), 1/taper of their NICs' ports.
        let uplinks = m * send.nics / taper;
        let adaptive = bytes / (uplinks * send.nic_bw * free);
        let time = match self.routing {
            Routing::Adaptive => adaptive,
            Routing::Ecmp => {
                let flows = crossing * send.nics;
                let per_flow = send.bytes / send.nics;
                // A synchronous round waits for the busiest uplink of every group the job
                // spans, not of one: with each bin's load Poisson at the same mean, the worst
                // of G groups of F flows in K bins is the worst bin of G·K, and no bin holds
                // more than its own group's F flows. (Counted in one group, a job spread one
                // node per leaf group never collided and beat the same job packed.)
                let groups = (f64::from(k) / m).ceil();
                let max_flows =
                    expected_max_load(groups * flows, groups * uplinks.max(1.0)).min(flows);
                adaptive.max(max_flows * per_flow / (send.nic_bw * free))
            }
        };
        TierLoad { bytes, time }
    }

    /// The leaf-uplink and pod-uplink loads of a round in which every node sends `bytes` to a
    /// partner `distance` places away, over `nics` NICs of `nic_bw` bytes/s each, in a job of
    /// `k` nodes.
    pub fn uplinks(&self, k: u32, send: Send) -> (TierLoad, TierLoad) {
        let leaf = self.tier(k, self.leaf_nodes, self.oversub, send);
        let pod = if self.pod_nodes > self.leaf_nodes {
            self.tier(k, self.pod_nodes, self.oversub * self.pod_oversub, send)
        } else {
            TierLoad::default()
        };
        (leaf, pod)
    }
}

/// Whom each node's network sends in a round go to, which decides how many of them cross a
/// group's uplinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partners {
    /// The node this many places on in node rank order (1 for a ring).
    Shift(u32),
    /// Its parent and children in NCCL's double binary tree over the job's nodes
    /// ([`DoubleTree`]).
    Tree,
}

/// What a node sends in a round.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Send {
    /// Bytes per node.
    pub bytes: f64,
    /// Whom each node sends to.
    pub partners: Partners,
    /// NICs per node.
    pub nics: f64,
    /// Bytes/s per NIC (and per uplink port of the same speed).
    pub nic_bw: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balls_into_bins() {
        // One flow: it sits alone.
        assert!((expected_max_load(1.0, 64.0) - 1.0).abs() < 1e-9);
        // Eight flows on eight links collide: the busiest carries about 2.5 (exact: 2.6).
        let m = expected_max_load(8.0, 8.0);
        assert!((2.2..3.0).contains(&m), "{m}");
        // Many more links than flows: rarely two on one.
        assert!(expected_max_load(8.0, 4096.0) < 1.05);
    }

    /// A synchronous round waits for the busiest uplink anywhere: a job spread one node per
    /// leaf group collides as often as the same job packed (it never collided, and beat it).
    #[test]
    fn ecmp_waits_for_the_busiest_uplink_of_every_group() {
        let ecmp = |placement| Topology {
            placement,
            routing: Routing::Ecmp,
            ..Topology::default()
        };
        // A tree's deep levels: partners half the job away, 8 flows a node, 128 nodes.
        let send = Send {
            bytes: 1e9,
            partners: Partners::Shift(64),
            nics: 8.0,
            nic_bw: 50e9,
        };
        let packed = ecmp(Placement::Packed).uplinks(128, send).0.time;
        let spread = ecmp(Placement::Spread).uplinks(128, send).0.time;
        assert!(spread >= packed * (1.0 - 1e-9), "{spread} vs {packed}");
        // Two flows a node over 64 leaf groups: somewhere both share one uplink.
        let two = Send {
            nics: 2.0,
            partners: Partners::Shift(1),
            ..send
        };
        let spread = ecmp(Placement::Spread).uplinks(64, two).0.time;
        let even = 1e9 / (2.0 * 50e9);
        assert!(spread > 1.8 * even, "{spread} vs {even}");
    }

    #[test]
    fn a_non_blocking_packed_fabric_adds_nothing_beyond_the_nics() {
        let t = Topology::default();
        let send = Send {
            bytes: 1e9,
            partners: Partners::Shift(1),
            nics: 8.0,
            nic_bw: 50e9,
        };
        let (leaf, pod) = t.uplinks(1024, send);
        // One node's worth crosses per group, on 32 nodes' worth of uplinks.
        assert!(leaf.time <= 1e9 / (8.0 * 50e9) + 1e-12);
        assert_eq!(pod, TierLoad::default());
        // Inside one group nothing crosses.
        assert_eq!(t.uplinks(16, send).0, TierLoad::default());
    }
}
