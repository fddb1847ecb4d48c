//! Collective operations (all-reduce, reduce-scatter, all-gather, point-to-point) and their cost.
//!
//! Every algorithm is a sequence of *rounds*. In one round each GPU sends some bytes over NVLink /
//! PCIe inside its node and some bytes leave the node over its NICs. A round costs
//!
//! ```text
//!   hop latency (of the slowest link class used) + max(GPU bytes / GPU bandwidth,
//!                                                       node bytes / node NIC bandwidth,
//!                                                       reduction work / memory bandwidth)
//! ```
//!
//! which is the α–β model of Thakur, Rabenseifner & Gropp (IJHPCA 2005) with a bottleneck link per
//! round; the reduction is pipelined with the transfer (NCCL reduces in the copy loop), so it only
//! counts when it is slower. On top, a base launch latency per collective and NCCL's three
//! protocols (LL, LL128, Simple), which trade latency for bandwidth; the fastest is used, as NCCL's
//! tuner does (`NVIDIA/nccl` `src/graph/tuning.cc`, `ncclTopoTuneModel`).
//!
//! The cost here is computed in closed form from *round groups* (identical rounds counted once) so
//! a sweep over 65,536 GPUs is cheap; [`crate::model::schedule`] expands the same algorithms into
//! explicit per-GPU transfers and tests check the two agree.

use super::hardware::{
    Fabric, FabricKind, Gpu, NetKind, Network, GPUS_PER_SOCKET, SHM_EFF, SOCKET_LINK_GBS,
};
use super::topology::{Send, TierLoad, Topology};
use super::ModelError;

/// Which collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Every GPU ends with the sum of all buffers.
    AllReduce,
    /// Every GPU ends with its share of the sum.
    ReduceScatter,
    /// Every GPU ends with every GPU's buffer.
    AllGather,
}

impl Op {
    /// Scenario ids.
    pub const ALL: [Op; 3] = [Op::AllReduce, Op::ReduceScatter, Op::AllGather];

    /// The scenario id (`op=allreduce`).
    pub fn id(self) -> &'static str {
        match self {
            Op::AllReduce => "allreduce",
            Op::ReduceScatter => "reducescatter",
            Op::AllGather => "allgather",
        }
    }

    /// Parses a scenario id.
    pub fn from_id(s: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|o| o.id() == s)
    }

    /// nccl-tests' busbw factor (`doc/PERFORMANCE.md`): all-reduce 2(n−1)/n, reduce-scatter and
    /// all-gather (n−1)/n.
    pub fn busbw_factor(self, n: u32) -> f64 {
        let n = f64::from(n.max(1));
        match self {
            Op::AllReduce => 2.0 * (n - 1.0) / n,
            Op::ReduceScatter | Op::AllGather => (n - 1.0) / n,
        }
    }
}

/// Which algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algo {
    /// The fastest NCCL would pick (ring, tree or in-switch).
    Auto,
    /// Ring: reduce-scatter then all-gather around a ring, 2(n−1) rounds.
    Ring,
    /// Double binary tree, pipelined in slices.
    Tree,
    /// Recursive halving-doubling (Rabenseifner).
    Rhd,
    /// Hierarchical: intra-node reduce-scatter, inter-node all-reduce, intra-node all-gather.
    Hier,
    /// In-switch reduction (NVLink SHARP), one NVSwitch domain.
    Nvls,
}

impl Algo {
    /// All algorithms, `auto` first.
    pub const ALL: [Algo; 6] = [
        Algo::Auto,
        Algo::Ring,
        Algo::Tree,
        Algo::Rhd,
        Algo::Hier,
        Algo::Nvls,
    ];

    /// The scenario id (`algo=ring`).
    pub fn id(self) -> &'static str {
        match self {
            Algo::Auto => "auto",
            Algo::Ring => "ring",
            Algo::Tree => "tree",
            Algo::Rhd => "rhd",
            Algo::Hier => "hier",
            Algo::Nvls => "nvls",
        }
    }

    /// Parses a scenario id.
    pub fn from_id(s: &str) -> Option<Algo> {
        Algo::ALL.into_iter().find(|a| a.id() == s)
    }

    /// A plain-language name.
    pub fn name(self) -> &'static str {
        match self {
            Algo::Auto => "automatic",
            Algo::Ring => "ring",
            Algo::Tree => "double binary tree",
            Algo::Rhd => "recursive halving-doubling",
            Algo::Hier => "hierarchical (node, then network)",
            Algo::Nvls => "in-switch reduction (NVLink SHARP)",
        }
    }
}

/// NCCL's wire protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// Low-latency: 8-byte stores with a flag; lowest latency, a quarter of the bandwidth.
    Ll,
    /// 128-byte lines with a flag; NVLink only.
    Ll128,
    /// Plain copies with fences: full bandwidth, highest latency.
    Simple,
}

impl Protocol {
    /// Scenario / JSON id.
    pub fn id(self) -> &'static str {
        match self {
            Protocol::Ll => "LL",
            Protocol::Ll128 => "LL128",
            Protocol::Simple => "Simple",
        }
    }

    fn index(self) -> usize {
        match self {
            Protocol::Ll => 0,
            Protocol::Ll128 => 1,
            Protocol::Simple => 2,
        }
    }

    /// Fraction of the link bandwidth the protocol delivers (NCCL `tuning.cc`: ring LL busBw × 1/4,
    /// LL128 × 0.92 "120.0/128.0", Simple × 1).
    pub fn bw_factor(self) -> f64 {
        [0.25, 0.92, 1.0][self.index()]
    }

    /// Base latency of launching one collective, µs. Every NCCL latency here is from one
    /// release, NCCL 2.29.7 (`src/graph/tuning.cc`, `baseLatencies`): Tree LL 6.8, LL128 14.0,
    /// Simple 8.4; Ring 6.6, 14.0, 8.4; NVLS 0 (its cost is all in its hop latency).
    pub fn base_latency_us(self, algo: Algo) -> f64 {
        match algo {
            Algo::Nvls => 0.0,
            Algo::Tree => [6.8, 14.0, 8.4][self.index()],
            _ => [6.6, 14.0, 8.4][self.index()],
        }
    }

    /// Latency charged once per collective, µs: the base latency, and for NVLS its whole cost
    /// (one NVLink step through the switch, 25 µs).
    pub fn launch_latency_us(self, algo: Algo) -> f64 {
        let own = if algo == Algo::Nvls {
            self.hop_latency_us(Algo::Nvls, Link::Switch)
        } else {
            0.0
        };
        self.base_latency_us(algo) + own
    }

    /// Per-step latency of a link class, µs (NCCL 2.29.7 `tuning.cc` `hwLatencies`). Ring:
    /// NVLink .6/1.9/3.4, PCI 1.0/2.5/5.7, NET 2.7/4.0/14.0; Tree: NVLink .6/1.25/4.0,
    /// PCI 1.0/1.9/4.0, NET 5.0/8.5/14; NVLS (Simple): NVLink 25, NET 18. Recursive
    /// halving-doubling and the hierarchical algorithm, which NCCL does not have, take the ring's.
    pub fn hop_latency_us(self, algo: Algo, link: Link) -> f64 {
        let i = self.index();
        match (algo, link) {
            (_, Link::Local) => 0.0,
            (a, Link::LeafUplink | Link::SpineUplink) => self.hop_latency_us(a, Link::Network),
            (Algo::Nvls, Link::Network) => 18.0,
            (Algo::Nvls, _) => 25.0,
            (Algo::Tree, Link::NvLink | Link::Switch) => [0.6, 1.25, 4.0][i],
            (Algo::Tree, Link::Pcie) => [1.0, 1.9, 4.0][i],
            (Algo::Tree, Link::Network) => [5.0, 8.5, 14.0][i],
            (_, Link::NvLink | Link::Switch) => [0.6, 1.9, 3.4][i],
            (_, Link::Pcie) => [1.0, 2.5, 5.7][i],
            (_, Link::Network) => [2.7, 4.0, 14.0][i],
        }
    }

    /// NCCL's per-step network post overhead on a multi-node ring, µs: 1 µs on x86 hosts, three
    /// times that for Simple (NCCL 2.29.7 `tuning.cc` `getNetOverhead`, lines 212–219, 391–393).
    /// A ring step inside a node of a multi-node ring costs at least this.
    pub fn net_overhead_us(self) -> f64 {
        if self == Protocol::Simple {
            3.0
        } else {
            1.0
        }
    }
}

/// A class of link a round's traffic crosses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Link {
    /// Nothing crosses a link (one GPU).
    Local,
    /// PCIe inside a node.
    Pcie,
    /// NVLink / xGMI inside a node.
    NvLink,
    /// Through an NVSwitch that reduces in the network.
    Switch,
    /// Between nodes, over the NICs.
    Network,
    /// Leaf groups' uplinks to the spine.
    LeafUplink,
    /// Pods' uplinks above the spine.
    SpineUplink,
}

impl Link {
    /// Short id for JSON.
    pub fn id(self) -> &'static str {
        match self {
            Link::Local => "local",
            Link::Pcie => "pcie",
            Link::NvLink => "nvlink",
            Link::Switch => "nvswitch",
            Link::Network => "nic",
            Link::LeafUplink => "leaf-uplink",
            Link::SpineUplink => "spine-uplink",
        }
    }
}

/// The machine a collective runs on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cluster {
    /// Total GPUs.
    pub gpus: u32,
    /// GPUs per node.
    pub per_node: u32,
    /// Accelerator.
    pub gpu: &'static Gpu,
    /// Intra-node fabric.
    pub intra: &'static Fabric,
    /// Inter-node network.
    pub inter: &'static Network,
    /// PCIe peer-to-peer between the node's GPUs (else relayed through host memory).
    pub p2p: bool,
    /// NICs per node.
    pub nics: u32,
    /// Multiplier on the node's NIC bandwidth: 1 normally; the step model shares NICs between
    /// concurrent groups (< 1) and asks "what if" questions (2).
    pub net_scale: f64,
    /// Multiplier on the intra-node bandwidth, as `net_scale`.
    pub intra_scale: f64,
    /// Multiplier on every latency (a calibration from a measured run).
    pub lat_scale: f64,
    /// The fabric beyond the node's NICs.
    pub topo: Topology,
}

impl Cluster {
    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        self.gpus / self.per_node.max(1)
    }

    /// Achievable bandwidth of one GPU into the node fabric, bytes/s. Without PCIe
    /// peer-to-peer every hop is relayed through host memory (NCCL's SHM transport) at
    /// [`SHM_EFF`] of the PCIe rate, and a ring over more than one CPU socket's GPUs crosses the
    /// sockets' link once each way ([`SOCKET_LINK_GBS`]): 8 such GPUs are slower than 4.
    pub fn intra_bw(&self) -> f64 {
        let bw = self.intra.gpu_bw();
        let bw = if self.intra.kind == FabricKind::Pcie && !self.p2p {
            let in_node = self.gpus.min(self.per_node);
            let relayed = bw * SHM_EFF;
            if in_node > GPUS_PER_SOCKET {
                relayed.min(SOCKET_LINK_GBS * 1e9)
            } else {
                relayed
            }
        } else {
            bw
        };
        bw * self.intra_scale
    }

    /// Achievable bandwidth of a node's NICs together, bytes/s (NCCL spreads channels over all
    /// NICs of a node).
    pub fn node_net_bw(&self) -> f64 {
        self.inter.nic_bw() * f64::from(self.nics) * self.net_scale
    }

    /// Link class inside a node.
    pub fn intra_link(&self) -> Link {
        if self.intra.kind == FabricKind::Pcie {
            Link::Pcie
        } else {
            Link::NvLink
        }
    }

    /// Protocols NCCL enables here: LL128 needs NVLink inside the node and, across nodes, RDMA
    /// (`tuning.cc`: LL128 enabled only where `typeIntra <= PATH_NVL`).
    pub fn protocols(&self) -> &'static [Protocol] {
        let net_ok = self.nodes() <= 1 || self.inter.kind == NetKind::Rdma;
        if self.intra.is_nvlink() && net_ok {
            &[Protocol::Ll, Protocol::Ll128, Protocol::Simple]
        } else {
            &[Protocol::Ll, Protocol::Simple]
        }
    }
}

/// Rounds that cost the same, counted once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundGroup {
    /// How many identical rounds.
    pub count: u64,
    /// Bytes the busiest GPU sends inside its node.
    pub gpu_bytes: f64,
    /// Bytes the busiest node sends over its NICs.
    pub node_bytes: f64,
    /// Bytes the busiest GPU reduces (adds into its buffer).
    pub reduce_bytes: f64,
    /// Intra-node traffic goes to a single peer (matters on a mesh without switch).
    pub single_peer: bool,
    /// Traffic goes through an in-network-reducing switch.
    pub switch: bool,
    /// The round's latency is that of an intra-node hop even though its traffic crosses nodes:
    /// in a pipelined ring the chain of dependent steps crosses the network only where it
    /// passes from one node to the next (NCCL `tuning.cc` charges `nInterSteps` network hops,
    /// the rest intra-node ones).
    pub intra_latency: bool,
    /// How far, in node rank order, a node's partner is (1 for a ring): decides how much of the
    /// node traffic crosses leaf and pod uplinks.
    pub node_distance: u32,
}

impl RoundGroup {
    /// A round with intra-node traffic only.
    pub fn intra(count: u64, gpu_bytes: f64, reduce: bool) -> RoundGroup {
        RoundGroup {
            count,
            gpu_bytes,
            node_bytes: 0.0,
            reduce_bytes: if reduce { gpu_bytes } else { 0.0 },
            single_peer: false,
            switch: false,
            intra_latency: false,
            node_distance: 1,
        }
    }
}

/// What one round costs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundTime {
    /// Hop latency, seconds.
    pub latency: f64,
    /// Transfer (or reduction, if slower) time, seconds.
    pub transfer: f64,
    /// The link that bounds the transfer.
    pub link: Link,
    /// Per tier (node fabric, NICs, leaf uplinks, pod uplinks): bytes the busiest element
    /// carries and the time they take on it, seconds.
    pub tiers: [(f64, f64); 4],
}

impl RoundTime {
    /// Latency plus transfer, seconds.
    pub fn total(&self) -> f64 {
        self.latency + self.transfer
    }
}

/// What a round group sends across the leaf and pod uplinks (independent of the protocol, so
/// computed once per group).
pub fn uplinks(c: &Cluster, g: &RoundGroup) -> (TierLoad, TierLoad) {
    if g.node_bytes > 0.0 {
        c.topo.uplinks(
            c.nodes(),
            Send {
                bytes: g.node_bytes,
                distance: g.node_distance,
                nics: f64::from(c.nics.max(1)),
                nic_bw: c.inter.nic_bw() * c.net_scale,
            },
        )
    } else {
        Default::default()
    }
}

/// Time of one round under a protocol, and which link bound it.
pub fn round_time(c: &Cluster, p: Protocol, g: &RoundGroup) -> RoundTime {
    RoundBase::new(c, g, uplinks(c, g)).at(c, p, g)
}

/// What a round costs before the protocol is chosen: each tier's transfer time at the full
/// rate, and the reduction time (the protocols divide the first by their rate and add their
/// hop latency). Computed once per round group for all protocols.
#[derive(Clone, Copy, Debug)]
struct RoundBase {
    intra_link: Link,
    crosses: bool,
    net_hop: bool,
    /// Node fabric, NICs, leaf uplinks, pod uplinks: (bytes, seconds at the full rate).
    tiers: [(f64, f64); 4],
    t_reduce: f64,
}

impl RoundBase {
    fn new(c: &Cluster, g: &RoundGroup, (leaf, pod): (TierLoad, TierLoad)) -> RoundBase {
        let crosses = g.node_bytes > 0.0;
        let intra_link = if g.switch {
            Link::Switch
        } else {
            c.intra_link()
        };
        let intra_bw = if g.switch {
            // Each GPU pushes S into the switch and pulls S back; calibrated so that the
            // all-reduce's busbw equals the measured NVLS busbw: rate = busbw · n/(n−1).
            let n = f64::from(c.gpus.max(2));
            c.intra.nvls_busbw_gbs * 1e9 * n / (n - 1.0) * c.intra_scale
        } else if g.single_peer && c.intra.kind == FabricKind::Mesh {
            c.intra.peer_bw() * c.intra_scale
        } else {
            c.intra_bw()
        };
        let t_intra = if g.gpu_bytes > 0.0 {
            g.gpu_bytes / intra_bw
        } else {
            0.0
        };
        let t_net = if crosses {
            g.node_bytes / c.node_net_bw()
        } else {
            0.0
        };
        RoundBase {
            intra_link,
            crosses,
            net_hop: crosses && !g.intra_latency,
            tiers: [
                (g.gpu_bytes, t_intra),
                (g.node_bytes, t_net),
                (leaf.bytes, leaf.time),
                (pod.bytes, pod.time),
            ],
            // Reading two operands and writing one at HBM speed (reduction pipelined with the
            // copy).
            t_reduce: 3.0 * g.reduce_bytes / (c.gpu.mem_bw_gbs * 1e9),
        }
    }

    /// The round under protocol `p`.
    fn at(&self, c: &Cluster, p: Protocol, g: &RoundGroup) -> RoundTime {
        let f = p.bw_factor();
        let hop_link = if self.net_hop {
            Link::Network
        } else {
            self.intra_link
        };
        let mut hop = if g.switch {
            // The switch rounds' latency is NVLS's, charged once per collective
            // (`launch_latency_us`).
            0.0
        } else if self.net_hop && c.per_node <= 1 {
            // One GPU per node: every step's latency is exposed; NCCL charges the tree's network
            // latency (`tuning.cc`: "With ppn=1 latencies are fully exposed").
            p.hop_latency_us(Algo::Tree, Link::Network)
        } else {
            p.hop_latency_us(Algo::Ring, hop_link)
        };
        if self.net_hop {
            hop += c.inter.extra_latency_us;
        } else if c.nodes() > 1 && !g.switch {
            // A step inside a node of a multi-node collective still pays the network post
            // overhead.
            hop = hop.max(p.net_overhead_us());
        }
        hop *= c.lat_scale;
        let tiers = self.tiers.map(|(b, t)| (b, t / f));
        let links = [
            self.intra_link,
            Link::Network,
            Link::LeafUplink,
            Link::SpineUplink,
        ];
        let mut bound = (0.0, self.intra_link);
        for (&(_, t), l) in tiers.iter().zip(links) {
            if t > bound.0 {
                bound = (t, l);
            }
        }
        let (t, link) = bound;
        let link = if g.gpu_bytes == 0.0 && !self.crosses {
            Link::Local
        } else {
            link
        };
        RoundTime {
            latency: hop * 1e-6,
            transfer: t.max(self.t_reduce),
            link,
            tiers,
        }
    }
}

/// Latency of one tick of the pipelined double tree, µs: NCCL charges a tree all-reduce
/// 2·((ppn − 1)·intra + log2(nodes)·inter) along its depth (NCCL 2.29.7 `tuning.cc` line 380),
/// NVLink (or PCIe) latencies on the chain inside a node and network latencies between nodes;
/// spread evenly over the ticks of one pass down the tree's height.
fn tree_tick_latency_us(c: &Cluster, p: Protocol) -> f64 {
    let g = c.per_node.min(c.gpus).max(1);
    let k = c.nodes().max(1);
    let intra = p.hop_latency_us(Algo::Tree, c.intra_link());
    let inter = p.hop_latency_us(Algo::Tree, Link::Network) + c.inter.extra_latency_us;
    let log2_nodes = 31 - k.leading_zeros();
    let path = f64::from(g - 1) * intra + f64::from(log2_nodes) * inter;
    path / f64::from(DoubleTree::new(c.gpus, g).height().max(1)) * c.lat_scale
}

/// One tick of the pipelined double tree: its busiest stage's transfer, and the tree's latency
/// per tick (`tree_tick_latency_us`). The cost and the explicit schedule both use it.
pub fn tree_tick(c: &Cluster, p: Protocol, g: &RoundGroup) -> RoundTime {
    RoundTime {
        latency: tree_tick_latency_us(c, p) * 1e-6,
        ..round_time(c, p, g)
    }
}

/// The result of costing a collective.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CollectiveCost {
    /// Operation.
    pub op: Op,
    /// The algorithm used (resolved from `auto`).
    pub algorithm: Algo,
    /// The protocol the tuner picked.
    pub protocol: Protocol,
    /// Message size, bytes (nccl-tests' "size").
    pub bytes: f64,
    /// Modelled time, seconds.
    pub time_s: f64,
    /// Algorithm bandwidth bytes/time, GB/s (10⁹).
    pub algbw_gbs: f64,
    /// nccl-tests bus bandwidth, GB/s.
    pub busbw_gbs: f64,
    /// The link that bounds the transfer part of the time.
    pub bottleneck: Link,
    /// Rounds.
    pub rounds: u64,
    /// Share of the time spent on latency (launch and per-round), 0…1.
    pub latency_share: f64,
    /// Pipeline slices (tree only; 1 otherwise).
    pub slices: u32,
    /// Per tier: node fabric, NICs, leaf uplinks, pod uplinks.
    pub tiers: [TierUse; 4],
}

/// How one tier of the fabric is used by a collective.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TierUse {
    /// Bytes its busiest element carries, one direction.
    pub bytes: f64,
    /// Share of the collective's time that element is busy, 0…1.
    pub utilisation: f64,
}

/// Names of the tiers, in [`CollectiveCost::tiers`] order.
pub const TIERS: [&str; 4] = ["node-fabric", "nic", "leaf-uplink", "spine-uplink"];

/// The round groups of an algorithm (collected; see [`each_group`]).
pub fn round_groups(
    c: &Cluster,
    op: Op,
    algo: Algo,
    bytes: f64,
    slices: u32,
) -> Result<Vec<RoundGroup>, ModelError> {
    let mut v = Vec::new();
    each_group(c, op, algo, bytes, slices, &mut |g| v.push(g))?;
    Ok(v)
}

/// Hands each round group of an algorithm to `emit`, in order, without allocating (the cost is
/// evaluated thousands of times per sweep). Errors name the key at fault.
pub fn each_group(
    c: &Cluster,
    op: Op,
    algo: Algo,
    bytes: f64,
    slices: u32,
    emit: &mut dyn FnMut(RoundGroup),
) -> Result<(), ModelError> {
    let n = c.gpus;
    let g = c.per_node.min(n).max(1);
    let k = c.nodes().max(1);
    let s = bytes;
    check(c, op, algo)?;
    if n <= 1 {
        return Ok(());
    }
    let crossing = k > 1;
    match (op, algo) {
        (_, Algo::Ring) => {
            // One logical ring; NCCL runs one ring per NIC (channels), so a node's traffic leaving
            // it per round is one chunk spread over all NICs. With one GPU per node every hop
            // leaves the node.
            let chunk = s / f64::from(n);
            let mut group = RoundGroup::intra(1, chunk, op != Op::AllGather);
            if crossing {
                group.node_bytes = chunk;
                if g == 1 {
                    group.gpu_bytes = 0.0;
                }
            }
            let phases: &[bool] = match op {
                Op::AllReduce => &[true, false],
                Op::ReduceScatter => &[true],
                Op::AllGather => &[false],
            };
            for &reduce in phases {
                let base = RoundGroup {
                    reduce_bytes: if reduce { group.reduce_bytes } else { 0.0 },
                    ..group
                };
                let rounds = u64::from(n - 1);
                let net = u64::from(ring_network_hops(n, g, reduce)).min(rounds);
                if crossing && net < rounds {
                    emit(RoundGroup { count: net, ..base });
                    emit(RoundGroup {
                        count: rounds - net,
                        intra_latency: true,
                        ..base
                    });
                } else {
                    emit(RoundGroup {
                        count: rounds,
                        ..base
                    });
                }
            }
        }
        (_, Algo::Rhd) => rhd_groups(c, op, s, g, crossing, emit),
        (_, Algo::Tree) => {
            // One steady pipeline tick of the double tree, charged at its busiest GPU and node.
            let slice = s / 2.0 / f64::from(slices.max(1));
            let tree = DoubleTree::new(n, g);
            let (intra, net, recv) = tree.load();
            let mut group = RoundGroup::intra(tree.ticks(slices), f64::from(intra) * slice, true);
            group.reduce_bytes = f64::from(recv) * slice;
            if crossing {
                group.node_bytes = f64::from(net) * slice;
                // A binary tree over the nodes links node m to 2m+1 and 2m+2: the deep levels,
                // which carry most edges, span about half the nodes.
                group.node_distance = (k / 2).max(1);
            }
            emit(group);
        }
        (_, Algo::Hier) => {
            let shard = s / f64::from(g);
            if g > 1 {
                emit(RoundGroup::intra(u64::from(g - 1), shard, true));
            }
            if k > 1 {
                let piece = shard / f64::from(k);
                for reduce in [true, false] {
                    emit(RoundGroup {
                        count: u64::from(k - 1),
                        gpu_bytes: 0.0,
                        node_bytes: piece * f64::from(g),
                        reduce_bytes: if reduce { piece } else { 0.0 },
                        single_peer: false,
                        switch: false,
                        intra_latency: false,
                        node_distance: 1,
                    });
                }
            }
            if g > 1 {
                emit(RoundGroup::intra(u64::from(g - 1), shard, false));
            }
        }
        (_, Algo::Nvls) => {
            // Push to the switch (reduced there), then multicast back: each GPU moves S per phase.
            let mut push = RoundGroup::intra(1, s, false);
            push.switch = true;
            emit(push);
            emit(push);
        }
        (_, Algo::Auto) => {}
    }
    Ok(())
}

/// Whether an algorithm applies to this operation and hardware.
fn check(c: &Cluster, op: Op, algo: Algo) -> Result<(), ModelError> {
    let n = c.gpus;
    match (op, algo) {
        (_, Algo::Auto) => Err(ModelError::new(
            "algo",
            "auto must be resolved before costing",
        )),
        (_, Algo::Ring) | (Op::AllReduce, Algo::Rhd) => Ok(()),
        (_, Algo::Rhd) if !n.is_power_of_two() => Err(ModelError::new(
            "algo",
            format!(
                "rhd {} needs a power-of-two GPU count (gpus={n}); use ring",
                op.id()
            ),
        )),
        (_, Algo::Rhd) | (Op::AllReduce, Algo::Tree) | (Op::AllReduce, Algo::Hier) => Ok(()),
        (Op::AllReduce, Algo::Nvls) if !c.intra.in_switch_reduce => Err(ModelError::new(
            "algo",
            format!(
                "nvls needs an NVSwitch that reduces in the network (nvlink4, nvlink5); {} has none",
                c.intra.id
            ),
        )),
        (Op::AllReduce, Algo::Nvls) if c.nodes() > 1 => Err(ModelError::new(
            "algo",
            "nvls is modelled inside one NVSwitch domain (gpus ≤ per_node); use hier across nodes",
        )),
        (Op::AllReduce, Algo::Nvls) => Ok(()),
        (_, a) => Err(ModelError::new(
            "algo",
            format!(
                "{} is implemented for allreduce only; for {} use ring, rhd or auto",
                a.id(),
                op.id()
            ),
        )),
    }
}

/// Recursive halving-doubling. Non-powers of two fold the extra ranks in first (Thakur et al.
/// 2005 §4): the r = n − p' extra ranks send their whole vector to a partner and get the result
/// back at the end.
fn rhd_groups(
    c: &Cluster,
    op: Op,
    s: f64,
    g: u32,
    multi_node: bool,
    emit: &mut dyn FnMut(RoundGroup),
) {
    let n = c.gpus;
    let p2 = prev_pow2(n);
    let levels = p2.trailing_zeros();
    let fold = n != p2;
    // Partners `dist` ranks apart (node-major ranks) are in another node when dist ≥ g, and for
    // some ranks when g is not a multiple of 2·dist; then the node's GPUs send through its NICs
    // at once (counted for all g: the busiest node).
    let make = |bytes: f64, dist: u32, reduce: bool| {
        let crosses = multi_node && (dist >= g || g % (2 * dist) != 0);
        RoundGroup {
            count: 1,
            gpu_bytes: if crosses { 0.0 } else { bytes },
            node_bytes: if crosses {
                bytes * f64::from(g.min(n))
            } else {
                0.0
            },
            reduce_bytes: if reduce { bytes } else { 0.0 },
            single_peer: true,
            switch: false,
            intra_latency: false,
            node_distance: (dist / g).max(1),
        }
    };
    // A round's time is affine in its bytes within one class (crossing or not, reducing or
    // not), so consecutive rounds of a class merge into one group with their mean size: the
    // same total, computed once (sweeps evaluate this thousands of times).
    let mut pending: Option<(RoundGroup, f64)> = None;
    let mut push = |r: RoundGroup, emit: &mut dyn FnMut(RoundGroup)| {
        let same = |a: &RoundGroup| {
            (a.node_bytes > 0.0) == (r.node_bytes > 0.0)
                && (a.reduce_bytes > 0.0) == (r.reduce_bytes > 0.0)
        };
        match pending.as_mut() {
            Some((acc, n)) if same(acc) => {
                acc.gpu_bytes += r.gpu_bytes;
                acc.node_bytes += r.node_bytes;
                acc.reduce_bytes += r.reduce_bytes;
                *n += 1.0;
            }
            _ => {
                if let Some((acc, n)) = pending.take() {
                    emit(mean(acc, n));
                }
                pending = Some((r, 1.0));
            }
        }
    };
    let part = s / f64::from(p2);
    if fold && op != Op::AllGather {
        push(make(s, p2, true), emit);
    }
    if op != Op::AllGather {
        for j in 0..levels {
            push(make(s / f64::from(2u32 << j), p2 >> (j + 1), true), emit);
        }
    }
    if op != Op::ReduceScatter {
        // Doubling round j sends the 2^j parts gathered so far.
        for j in 0..levels {
            push(make(part * f64::from(1u32 << j), 1 << j, false), emit);
        }
    }
    if fold && op != Op::ReduceScatter {
        push(make(s, p2, false), emit);
    }
    if let Some((acc, n)) = pending {
        emit(mean(acc, n));
    }
}

/// `n` merged rounds as one group of `n` rounds of their mean size.
fn mean(acc: RoundGroup, n: f64) -> RoundGroup {
    RoundGroup {
        count: n as u64,
        gpu_bytes: acc.gpu_bytes / n,
        node_bytes: acc.node_bytes / n,
        reduce_bytes: acc.reduce_bytes / n,
        ..acc
    }
}

/// Rounds of a ring phase whose dependency chain crosses into another node (ranks node-major,
/// g per node): following the chunk that finishes on rank 0, reduce-scatter round t hops from
/// rank t+1 to t+2 and all-gather round t from rank t to t+1; a hop crosses when it lands on a
/// node's first rank. [`crate::model::schedule`] marks the same rounds.
pub fn ring_network_hops(n: u32, g: u32, reduce_scatter: bool) -> u32 {
    let g = g.max(1);
    if reduce_scatter {
        // Landing ranks 2..=n (n ≡ 0): multiples of g in [2, n].
        n / g - u32::from(g == 1)
    } else {
        // Landing ranks 1..=n−1: multiples of g in [1, n−1].
        (n - 1) / g
    }
}

/// Whether ring round `t` of a phase pays a network hop on its dependency chain.
pub fn ring_round_crosses(t: u32, g: u32, reduce_scatter: bool) -> bool {
    let landing = if reduce_scatter { t + 2 } else { t + 1 };
    landing % g.max(1) == 0
}

/// Largest power of two ≤ n (n ≥ 1).
pub fn prev_pow2(n: u32) -> u32 {
    if n == 0 {
        1
    } else {
        1 << (31 - n.leading_zeros())
    }
}

/// Depth (edges from root to deepest leaf) of a heap-ordered binary tree of n nodes.
pub fn tree_depth(n: u32) -> u32 {
    31 - n.max(1).leading_zeros()
}

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
        // Child nodes of node m in the node tree.
        let hc = |m: u32| (i64::from(k) - 1 - 2 * i64::from(m)).clamp(0, 2) as u32;
        let mid = k / 2;
        let picks = || {
            (0..k.min(4))
                .chain(k.saturating_sub(4)..k)
                .chain(mid.saturating_sub(2)..(mid + 2).min(k))
        };
        // A chain GPU talks to its two chain neighbours in each tree.
        let intra = match g {
            1 => 0,
            2 => 2,
            _ => 4,
        };
        // A node's two heads (one per tree) each reach a parent node and up to two children.
        let net = picks()
            .map(|m| {
                let o = k - 1 - m;
                u32::from(m > 0) + hc(m) + u32::from(o > 0) + hc(o)
            })
            .max()
            .unwrap_or(0);
        // A head adds its chain neighbour's and its child nodes' contributions; a chain GPU its
        // neighbour's in each tree; with one GPU per node, children in both trees.
        let recv = if g == 1 {
            picks().map(|m| hc(m) + hc(k - 1 - m)).max().unwrap_or(0)
        } else {
            let head = 1 + hc(0).max(picks().map(hc).max().unwrap_or(0));
            head.max(if g >= 3 { 2 } else { 0 })
        };
        (intra, net, recv)
    }
}

/// Running totals of one protocol's time over the rounds.
#[derive(Clone, Copy, Default)]
struct Totals {
    time: f64,
    latency: f64,
    by_link: [f64; 7],
    tiers: [(f64, f64); 4],
    rounds: u64,
    slices: u32,
}

impl Totals {
    fn add(&mut self, rt: &RoundTime, count: f64, rounds: u64) {
        self.time += rt.total() * count;
        self.latency += rt.latency * count;
        self.by_link[link_index(rt.link)] += rt.transfer * count;
        for (acc, (b, t)) in self.tiers.iter_mut().zip(rt.tiers) {
            acc.0 += b * count;
            acc.1 += t * count;
        }
        self.rounds += rounds;
    }
}

/// Costs of one algorithm under each protocol in `protos`, from one pass over its rounds.
/// The pipelined tree is solved in closed form: with P slices a tick costs h + X/P (every byte
/// term scales as 1/P) and there are 2D + P − 1 ticks, so the best P is near √((2D − 1)·X/h).
fn costs(
    c: &Cluster,
    op: Op,
    algo: Algo,
    bytes: f64,
    protos: &[Protocol],
) -> Result<Option<(Protocol, Totals)>, ModelError> {
    // NVLS runs on the Simple protocol only.
    let protos: &[Protocol] = if algo == Algo::Nvls {
        &[Protocol::Simple]
    } else {
        protos
    };
    let mut totals = [Totals::default(); 3];
    let tree_depth2 = f64::from(2 * DoubleTree::new(c.gpus, c.per_node).height());
    each_group(c, op, algo, bytes, 1, &mut |g| {
        let base = RoundBase::new(c, &g, uplinks(c, &g));
        for (t, p) in totals.iter_mut().zip(protos) {
            if algo == Algo::Tree {
                let rt = RoundTime {
                    latency: tree_tick_latency_us(c, *p) * 1e-6,
                    ..base.at(c, *p, &g)
                };
                let (h, x) = (rt.latency, rt.transfer);
                let ticks = |slices: u32| tree_depth2 + f64::from(slices) - 1.0;
                let time = |slices: u32| ticks(slices) * (h + x / f64::from(slices));
                let ideal = ((tree_depth2 - 1.0).max(0.0) * x / h.max(1e-12)).sqrt();
                let lo = prev_pow2(ideal.clamp(1.0, 64.0) as u32).min(64);
                let hi = (lo * 2).min(64);
                let slices = if time(hi) < time(lo) { hi } else { lo };
                let per_slice = 1.0 / f64::from(slices);
                let tick = RoundTime {
                    transfer: x * per_slice,
                    tiers: rt.tiers.map(|(b, t)| (b * per_slice, t * per_slice)),
                    ..rt
                };
                t.slices = slices;
                t.add(&tick, ticks(slices), ticks(slices) as u64);
            } else {
                let rt = base.at(c, *p, &g);
                t.slices = 1;
                t.add(&rt, g.count as f64, g.count);
            }
        }
    })?;
    // The fastest protocol, launch latency included; only it is finished into a report.
    let launched =
        |p: Protocol, t: &Totals| t.time + p.launch_latency_us(algo) * c.lat_scale * 1e-6;
    Ok(protos
        .iter()
        .zip(totals)
        .map(|(p, t)| (*p, t))
        .min_by(|a, b| launched(a.0, &a.1).total_cmp(&launched(b.0, &b.1))))
}

/// Adds the launch latency (or, on one GPU, the local copy) and derives the reported figures.
fn finish(c: &Cluster, op: Op, algo: Algo, p: Protocol, bytes: f64, t: Totals) -> CollectiveCost {
    let Totals {
        mut time,
        mut latency,
        mut by_link,
        tiers,
        rounds,
        slices,
    } = t;
    if c.gpus <= 1 {
        // One GPU: nccl-tests still copies the buffer out of place: read + write at HBM speed.
        time = 2.0 * bytes / (c.gpu.mem_bw_gbs * 1e9);
        by_link[0] = time;
    } else {
        time += p.launch_latency_us(algo) * c.lat_scale * 1e-6;
        latency += p.launch_latency_us(algo) * c.lat_scale * 1e-6;
    }
    let time = time.max(1e-9);
    let algbw = bytes / time / 1e9;
    let bottleneck = [
        Link::Local,
        Link::Pcie,
        Link::NvLink,
        Link::Switch,
        Link::Network,
        Link::LeafUplink,
        Link::SpineUplink,
    ][by_link
        .iter()
        .enumerate()
        .fold(
            (0, -1.0),
            |best, (i, v)| if *v > best.1 { (i, *v) } else { best },
        )
        .0];
    CollectiveCost {
        op,
        algorithm: algo,
        protocol: p,
        bytes,
        time_s: time,
        algbw_gbs: algbw,
        busbw_gbs: algbw * op.busbw_factor(c.gpus),
        bottleneck,
        rounds,
        latency_share: (latency / time).clamp(0.0, 1.0),
        slices: slices.max(1),
        tiers: tiers.map(|(bytes, busy)| TierUse {
            bytes,
            utilisation: (busy / time).clamp(0.0, 1.0),
        }),
    }
}

fn link_index(l: Link) -> usize {
    match l {
        Link::Local => 0,
        Link::Pcie => 1,
        Link::NvLink => 2,
        Link::Switch => 3,
        Link::Network => 4,
        Link::LeafUplink => 5,
        Link::SpineUplink => 6,
    }
}

/// The algorithms `auto` chooses among: those NCCL's tuner has (ring, tree, NVLS).
fn auto_candidates(op: Op) -> &'static [Algo] {
    match op {
        Op::AllReduce => &[Algo::Ring, Algo::Tree, Algo::Nvls],
        _ => &[Algo::Ring],
    }
}

/// Cost of a collective: the fastest protocol for the algorithm, and for `auto` the fastest
/// algorithm NCCL would choose.
pub fn cost(c: &Cluster, op: Op, algo: Algo, bytes: f64) -> Result<CollectiveCost, ModelError> {
    let single = [algo];
    let algos: &[Algo] = if algo == Algo::Auto {
        auto_candidates(op)
    } else {
        &single
    };
    let mut best: Option<CollectiveCost> = None;
    let mut first_err = None;
    for a in algos {
        match costs(c, op, *a, bytes, c.protocols()) {
            Ok(Some((p, t))) => {
                let r = finish(c, op, *a, p, bytes, t);
                if best.is_none_or(|b| r.time_s < b.time_s) {
                    best = Some(r);
                }
            }
            Ok(None) => {}
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    match best {
        Some(b) => Ok(b),
        None => Err(first_err.unwrap_or_else(|| ModelError::new("algo", "no algorithm applies"))),
    }
}

/// Point-to-point send of `bytes` between two GPUs (pipeline-parallel activations), seconds.
/// Same node: one NVLink/PCIe peer; different nodes: one NIC's share (GPUDirect RDMA).
pub fn p2p_time(c: &Cluster, bytes: f64, same_node: bool) -> f64 {
    let p = Protocol::Simple;
    if same_node {
        let bw = if c.intra.kind == FabricKind::Mesh {
            c.intra.peer_bw()
        } else {
            c.intra_bw()
        };
        (p.base_latency_us(Algo::Ring) + p.hop_latency_us(Algo::Ring, c.intra_link())) * 1e-6
            + bytes / bw
    } else {
        let per_gpu_nics = (f64::from(c.nics) / f64::from(c.per_node.max(1))).min(1.0);
        let bw = c.inter.nic_bw() * per_gpu_nics;
        (p.base_latency_us(Algo::Ring)
            + p.hop_latency_us(Algo::Ring, Link::Network)
            + c.inter.extra_latency_us)
            * 1e-6
            + bytes / bw.max(1.0)
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
