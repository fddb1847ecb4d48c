//! Rounds: what each algorithm sends per round (grouped), and what one round costs.

use super::protocol::ll_max_busbw;
use super::tree::DoubleTree;
use super::{Algo, Cluster, Link, Op, Protocol, RateTable};
use crate::model::hardware::{FabricKind, Library};
use crate::model::topology::{Partners, Send, TierLoad};
use crate::model::ModelError;

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
    /// The share of the switch's streaming rate the round keeps at its chunk size (NVLS:
    /// [`nvls_chunk_share`]; 1 otherwise).
    pub switch_share: f64,
    /// The round's latency is that of an intra-node hop even though its traffic crosses nodes:
    /// in a pipelined ring the chain of dependent steps crosses the network only where it
    /// passes from one node to the next (NCCL `tuning.cc` charges `nInterSteps` network hops,
    /// the rest intra-node ones).
    pub intra_latency: bool,
    /// Whom a node's network sends go to: decides how much of them crosses leaf and pod uplinks.
    pub partners: Partners,
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
            switch_share: 1.0,
            intra_latency: false,
            partners: Partners::Shift(1),
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
    Rates::new(c, Algo::Ring).uplinks(c, g)
}

/// Time of one round of algorithm `algo` under a protocol, and which link bound it. A pipelined
/// algorithm's round is one tick of its pipeline: its busiest stage's transfer and the latency
/// per tick. The cost, the explicit schedule and the aggregate view all time rounds with it.
pub fn round_time(c: &Cluster, algo: Algo, p: Protocol, g: &RoundGroup) -> RoundTime {
    let r = Rates::new(c, algo);
    let base = RoundBase::new(c, &r, g, r.uplinks(c, g));
    match Pipeline::of(c, algo) {
        Some(pipe) => base.timed(p, pipe.tick_latency(p), base.transfer(p)),
        None => base.at(p),
    }
}

/// A pipelined algorithm (the double tree, NVLSTree): a message cut in P slices runs in
/// `depth2` + P − 1 lock-step ticks, each as long as its busiest stage plus a latency per tick.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pipeline {
    /// Ticks a slice takes up and down the tree (twice its height).
    pub(super) depth2: f64,
    /// Latency per tick under each protocol ([`Protocol::ALL`] order), seconds.
    tick: [f64; 3],
}

impl Pipeline {
    /// The pipeline of `algo` on `c`, or `None` for an algorithm that runs in rounds.
    pub(super) fn of(c: &Cluster, algo: Algo) -> Option<Pipeline> {
        let (tree, path): (DoubleTree, [f64; 3]) = match algo {
            Algo::Tree => (
                DoubleTree::new(c.gpus, c.node_gpus()),
                Protocol::ALL.map(|p| tree_path_latency_us(c, p)),
            ),
            // Only the network's part of NVLSTree's latency runs along the tree of nodes; its
            // NVLS part is charged once (`launch_latency_us`). NCCL's tuner charges the tree
            // 2·log2(nodes) network latencies of 20.9 µs once (NCCL 2.29.7 `tuning.cc`,
            // `hwLatencies` NET NVLSTree Simple); the model, as for the tree, pays a hop's
            // latency on every tick. On 2 × 8 H100 over 8 NDR that follows NCCL's default runs
            // (NVLSTree) within 7 % from 4 MiB to 8 GiB (nccl-tests#309's 2-node table, chosen
            // against it: the calibration rows ar-309-2x8-h100-64m and -1g), where charging it
            // once would put 64 MiB 43 % above the run; from 4 nodes on it leaves 64 MiB–1 GiB
            // 13–28 % low (held-out gtc24-nvlstree-*, ar-309-4x8-*).
            Algo::NvlsTree => {
                let k = c.nodes().max(1);
                let inter =
                    Protocol::Simple.hop_latency_us(Algo::NvlsTree, Link::Network, c.gpu.library)
                        + c.inter.extra_latency_us;
                (
                    DoubleTree::new(k, 1),
                    [f64::from(31 - k.leading_zeros()) * inter; 3],
                )
            }
            _ => return None,
        };
        // One pass down the tree's height pays the path's latency, spread evenly over its ticks.
        let height = f64::from(tree.height().max(1));
        Some(Pipeline {
            depth2: 2.0 * f64::from(tree.height()),
            tick: path.map(|us| us / height * c.lat_scale * 1e-6),
        })
    }

    /// Latency per tick under protocol `p`, seconds.
    pub(super) fn tick_latency(&self, p: Protocol) -> f64 {
        self.tick[p.index()]
    }
}

/// What every round of a collective on one cluster reads: derived once per collective, not once
/// per round group and protocol (a sweep costs thousands of collectives).
#[derive(Clone, Copy, Debug)]
pub(super) struct Rates {
    /// Nodes the collective spans.
    nodes: u32,
    /// Link class inside a node.
    intra_link: Link,
    /// One GPU into the node fabric, bytes/s ([`Cluster::intra_bw`]).
    intra_bw: f64,
    /// A node's NICs together, bytes/s ([`Cluster::node_net_bw`]).
    node_net_bw: f64,
    /// One NIC (and one uplink port of the same speed), bytes/s.
    nic_bw: f64,
    /// HBM at its streaming rate, bytes/s ([`crate::model::hardware::Gpu::stream_bw`]).
    mem_bw: f64,
    /// Hop latency of a round inside the node, per protocol ([`hop_latencies`]).
    intra_hop: [f64; 3],
    /// Hop latency of a round whose dependency chain crosses to another node, per protocol.
    net_hop: [f64; 3],
    /// Each protocol's share of the link for this algorithm.
    table: RateTable,
    /// LL's ceiling for this algorithm, bytes/s ([`ll_max_busbw`]; infinite where none).
    ll_cap: f64,
}

impl Rates {
    /// The rates of algorithm `algo` on cluster `c`.
    pub(super) fn new(c: &Cluster, algo: Algo) -> Rates {
        let (nodes, intra_link) = (c.nodes(), c.intra_link());
        Rates {
            table: RateTable::of(c.gpu.library, algo, nodes),
            ll_cap: match (c.gpu.library, algo) {
                (Library::Nccl, Algo::Ring | Algo::Tree) => ll_max_busbw(nodes),
                _ => None,
            }
            .unwrap_or(f64::INFINITY),
            nodes,
            intra_link,
            intra_bw: c.intra_bw(),
            node_net_bw: c.node_net_bw(),
            nic_bw: c.nic_bw(),
            mem_bw: c.gpu.stream_bw(),
            intra_hop: hop_latencies(c, nodes, intra_link, false, false),
            net_hop: hop_latencies(c, nodes, intra_link, false, true),
        }
    }

    /// [`uplinks`], from the rates.
    pub(super) fn uplinks(&self, c: &Cluster, g: &RoundGroup) -> (TierLoad, TierLoad) {
        if g.node_bytes > 0.0 {
            c.topo.uplinks(
                self.nodes,
                Send {
                    bytes: g.node_bytes,
                    partners: g.partners,
                    nics: f64::from(c.nics.max(1)),
                    nic_bw: self.nic_bw,
                },
            )
        } else {
            Default::default()
        }
    }
}

/// Hop latency of a round under each protocol ([`Protocol::ALL`] order), seconds: over
/// `intra_link` inside the node, through the NVLS `switch`, or with a `net_hop` to another node,
/// on a cluster of `nodes` nodes.
fn hop_latencies(
    c: &Cluster,
    nodes: u32,
    intra_link: Link,
    switch: bool,
    net_hop: bool,
) -> [f64; 3] {
    let hops = if switch {
        // The switch rounds' latency is NVLS's, charged once per collective
        // (`launch_latency_us`).
        [0.0; 3]
    } else if net_hop && c.per_node <= 1 {
        // One GPU per node: every step's latency is exposed; NCCL charges the tree's network
        // latency (`tuning.cc`: "With ppn=1 latencies are fully exposed").
        Protocol::hop_latencies_us(Algo::Tree, Link::Network, c.gpu.library)
    } else {
        let hop_link = if net_hop { Link::Network } else { intra_link };
        Protocol::hop_latencies_us(Algo::Ring, hop_link, c.gpu.library)
    };
    Protocol::ALL.map(|p| {
        let mut hop = hops[p.index()];
        if net_hop {
            hop += c.inter.extra_latency_us;
        } else if nodes > 1 && !switch {
            // A step inside a node of a multi-node collective still pays the network post
            // overhead.
            hop = hop.max(p.net_overhead_us());
        }
        hop *= c.lat_scale;
        hop * 1e-6
    })
}

/// What a round costs before the protocol is chosen: each tier's transfer time at the full
/// rate, and the reduction time (the protocols divide the first by their rate and add their
/// hop latency). Computed once per round group for all protocols.
#[derive(Clone, Copy, Debug)]
pub(super) struct RoundBase {
    intra_link: Link,
    /// Each protocol's share of the link.
    table: RateTable,
    /// Nothing crosses a link: no bytes inside the node and none leave it.
    local: bool,
    /// Hop latency under each protocol ([`Protocol::ALL`] order), seconds.
    latency: [f64; 3],
    /// Node fabric, NICs, leaf uplinks, pod uplinks: (bytes, seconds at the full rate).
    tiers: [(f64, f64); 4],
    /// The slowest tier's seconds at the full rate (0 if none is used). A protocol divides
    /// every tier by the same positive rate, which keeps their order, so its slowest tier is
    /// this one: one [`Protocol::transfer_time`] per protocol instead of four.
    t_max: f64,
    t_reduce: f64,
    /// The least time LL takes under its ceiling across nodes, seconds: the round's bytes per
    /// GPU at [`ll_max_busbw`]. A ring round moves one chunk per GPU and a tree tick four slices
    /// (two trees, up and down), which is the bus bandwidth's measure of each; the busiest GPU's
    /// or node's sends give both.
    ll_floor: f64,
}

impl Default for RoundBase {
    /// A round that moves nothing.
    fn default() -> RoundBase {
        RoundBase {
            intra_link: Link::Local,
            table: RateTable::Nccl,
            local: true,
            latency: [0.0; 3],
            tiers: [(0.0, 0.0); 4],
            t_max: 0.0,
            t_reduce: 0.0,
            ll_floor: 0.0,
        }
    }
}

impl RoundBase {
    /// Group `g`'s rounds on a cluster with rates `r`, with the group's [`uplinks`] loads.
    pub(super) fn new(
        c: &Cluster,
        r: &Rates,
        g: &RoundGroup,
        (leaf, pod): (TierLoad, TierLoad),
    ) -> RoundBase {
        let crosses = g.node_bytes > 0.0;
        let intra_link = if g.switch { Link::Switch } else { r.intra_link };
        let t_intra = if g.gpu_bytes > 0.0 {
            let intra_bw = if g.switch {
                // The switch's rate at the round's chunk size.
                nvls_rate(c) * g.switch_share
            } else if g.single_peer && c.intra.kind == FabricKind::Mesh {
                c.intra.peer_bw() * c.intra_scale
            } else {
                r.intra_bw
            };
            g.gpu_bytes / intra_bw
        } else {
            0.0
        };
        let t_net = if crosses {
            g.node_bytes / r.node_net_bw
        } else {
            0.0
        };
        let tiers = [
            (g.gpu_bytes, t_intra),
            (g.node_bytes, t_net),
            (leaf.bytes, leaf.time),
            (pod.bytes, pod.time),
        ];
        let net_hop = crosses && !g.intra_latency;
        let latency = match (g.switch, net_hop) {
            (false, false) => r.intra_hop,
            (false, true) => r.net_hop,
            (true, _) => hop_latencies(c, r.nodes, intra_link, true, net_hop),
        };
        RoundBase {
            intra_link,
            table: r.table,
            local: g.gpu_bytes == 0.0 && !crosses,
            latency,
            tiers,
            t_max: tiers
                .iter()
                .fold(0.0, |m, &(_, t)| if t > m { t } else { m }),
            // Reading two operands and writing one at HBM speed (reduction pipelined with the
            // copy).
            t_reduce: 3.0 * g.reduce_bytes / r.mem_bw,
            ll_floor: g.gpu_bytes.max(g.node_bytes) / r.ll_cap,
        }
    }

    /// Hop latency of the round under protocol `p`, seconds.
    pub(super) fn latency(&self, p: Protocol) -> f64 {
        self.latency[p.index()]
    }

    /// Transfer (or reduction, if slower) time of the round under protocol `p`, seconds.
    pub(super) fn transfer(&self, p: Protocol) -> f64 {
        let t = p.transfer_time(self.table, self.t_max).max(self.t_reduce);
        if p == Protocol::Ll {
            t.max(self.ll_floor)
        } else {
            t
        }
    }

    /// The round under protocol `p`.
    pub(super) fn at(&self, p: Protocol) -> RoundTime {
        self.timed(p, self.latency(p), self.transfer(p))
    }

    /// The round under protocol `p` with its latency and transfer already known: each tier's
    /// time at the protocol's rate, and the link of the slowest.
    pub(super) fn timed(&self, p: Protocol, latency: f64, transfer: f64) -> RoundTime {
        let tiers = self.tiers.map(|(b, t)| (b, p.transfer_time(self.table, t)));
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
        RoundTime {
            latency,
            transfer,
            link: if self.local { Link::Local } else { bound.1 },
            tiers,
        }
    }
}

/// Latency of one pass down the double tree, µs: NCCL charges a tree all-reduce
/// 2·((ppn − 1)·intra + log2(nodes)·inter), up and down (NCCL 2.29.7 `tuning.cc` line 380),
/// NVLink (or PCIe) latencies on the chain inside a node and network latencies between nodes.
fn tree_path_latency_us(c: &Cluster, p: Protocol) -> f64 {
    let g = c.node_gpus();
    let k = c.nodes().max(1);
    let lib = c.gpu.library;
    let intra = p.hop_latency_us(Algo::Tree, c.intra_link(), lib);
    let inter = p.hop_latency_us(Algo::Tree, Link::Network, lib) + c.inter.extra_latency_us;
    let log2_nodes = 31 - k.leading_zeros();
    f64::from(g - 1) * intra + f64::from(log2_nodes) * inter
}

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
                group.gpu_bytes = chunk * ring_fabric_share(c);
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
                group.partners = Partners::Tree;
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
                        switch_share: 1.0,
                        intra_latency: false,
                        partners: Partners::Shift(1),
                    });
                }
            }
            if g > 1 {
                emit(RoundGroup::intra(u64::from(g - 1), shard, false));
            }
        }
        (_, Algo::NvlsTree) => {
            // One steady tick of NVLSTree (NCCL `ncclPatternNvlsTree`): each node's NVSwitch
            // reduces a slice from its GPUs and multicasts the result back, while every GPU, head
            // of 1/g of the slice, runs it through a double binary tree of nodes over its own
            // NIC. The two stages overlap, so a tick lasts as long as the busier. Inside, as for
            // NVLS, each GPU pushes the slice and pulls it back (4 half-slices); across, the
            // busiest node sends what the node tree's busiest node sends (`DoubleTree::load`
            // with one GPU a node): one slice on two nodes (a root in one tree, a leaf in the
            // other), two from four nodes on. A head adds its child nodes' halves into its own.
            let half = s / 2.0 / f64::from(slices.max(1));
            let nodes = DoubleTree::new(k, 1);
            let (_, net, recv) = nodes.load();
            let mut group = RoundGroup::intra(nodes.ticks(slices), 4.0 * half, false);
            group.switch = true;
            group.node_bytes = f64::from(net) * half;
            group.reduce_bytes = f64::from(recv) * half / f64::from(g);
            group.partners = Partners::Tree;
            emit(group);
        }
        (_, Algo::Nvls) => {
            // Push to the switch (reduced there), then multicast back: each GPU moves S per phase.
            let mut push = RoundGroup::intra(1, s, false);
            push.switch = true;
            push.switch_share = nvls_chunk_share(c, s);
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
            "nvls runs inside one NVSwitch domain (gpus ≤ per_node); across nodes use nvlstree",
        )),
        (Op::AllReduce, Algo::NvlsTree) if !c.intra.in_switch_reduce => Err(ModelError::new(
            "algo",
            format!(
                "nvlstree needs an NVSwitch that reduces in the network (nvlink4, nvlink5); {} has none",
                c.intra.id
            ),
        )),
        (Op::AllReduce, Algo::NvlsTree) if c.node_gpus() < 2 => Err(ModelError::new(
            "algo",
            "nvlstree reduces in each node's switch, which needs at least two GPUs a node (NCCL turns NVLS off below that); use tree",
        )),
        (Op::AllReduce, Algo::NvlsTree) if c.nodes() <= 1 => Err(ModelError::new(
            "algo",
            "nvlstree joins NVSwitch domains across nodes; inside one node (gpus ≤ per_node) use nvls",
        )),
        (Op::AllReduce, Algo::Nvls | Algo::NvlsTree) => Ok(()),
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
    let node_gpus = f64::from(g.min(n));
    // Partners `dist` ranks apart (node-major ranks) are in another node when dist ≥ g, and for
    // some ranks when g is not a multiple of 2·dist; then the node's GPUs send through its NICs
    // at once (counted for all g: the busiest node). For dist a power of two, as here, both
    // come to dist ≥ the largest power of two dividing g.
    let g_pow2 = 1u32 << g.max(1).trailing_zeros();
    // Halving level j (j = 0…levels−1) sends s/2^(j+1) to the partner p'/2^(j+1) ranks away;
    // doubling level j sends 2^j parts to the partner 2^j away. The first `across` halving
    // levels and the last `across` doubling levels cross nodes.
    let across = if multi_node {
        levels.saturating_sub(g_pow2.trailing_zeros())
    } else {
        0
    };
    let pow2 = |j: u32| f64::from(1u32 << j);
    let part = s / f64::from(p2);
    // A round's time is affine in its bytes within one class (crossing or not, reducing or
    // not), so the rounds of a class that follow each other form one group of their mean size:
    // the same total, in at most four groups (a sweep evaluates this thousands of times). Each
    // run is (rounds, their bytes together, the first one's partner distance, reduces).
    // Reduce-scatter halves, all-gather doubles; an all-reduce does both.
    let halve = |rounds: u32| if op != Op::AllGather { rounds } else { 0 };
    let double = |rounds: u32| if op != Op::ReduceScatter { rounds } else { 0 };
    let folds = u32::from(fold);
    let runs = [
        (halve(folds), s, p2, true),
        // Σ_{j<across} s/2^(j+1)
        (halve(across), s - s / pow2(across), p2 >> 1, true),
        // Σ_{across≤j<levels} s/2^(j+1)
        (
            halve(levels - across),
            s / pow2(across) - s / pow2(levels),
            p2 >> (across + 1),
            true,
        ),
        // Σ_{j<levels−across} part·2^j
        (
            double(levels - across),
            part * (pow2(levels - across) - 1.0),
            1,
            false,
        ),
        // Σ_{levels−across≤j<levels} part·2^j
        (
            double(across),
            part * (pow2(levels) - pow2(levels - across)),
            1 << (levels - across),
            false,
        ),
        (double(folds), s, p2, false),
    ];
    let mut pending: Option<RoundGroup> = None;
    for (rounds, bytes, dist, reduces) in runs {
        if rounds == 0 {
            continue;
        }
        let crosses = multi_node && dist >= g_pow2;
        let (gpu_bytes, node_bytes) = if crosses {
            (0.0, bytes * node_gpus)
        } else {
            (bytes, 0.0)
        };
        let reduce_bytes = if reduces { bytes } else { 0.0 };
        match pending.as_mut() {
            Some(acc)
                if (acc.node_bytes > 0.0) == crosses && (acc.reduce_bytes > 0.0) == reduces =>
            {
                acc.gpu_bytes += gpu_bytes;
                acc.node_bytes += node_bytes;
                acc.reduce_bytes += reduce_bytes;
                acc.count += u64::from(rounds);
            }
            _ => {
                if let Some(acc) = pending.take() {
                    emit(mean(acc));
                }
                pending = Some(RoundGroup {
                    count: u64::from(rounds),
                    gpu_bytes,
                    node_bytes,
                    reduce_bytes,
                    single_peer: true,
                    switch: false,
                    switch_share: 1.0,
                    intra_latency: false,
                    partners: Partners::Shift((dist / g.max(1)).max(1)),
                });
            }
        }
    }
    if let Some(acc) = pending {
        emit(mean(acc));
    }
}

/// Merged rounds (their bytes summed) as one group of rounds of their mean size.
fn mean(acc: RoundGroup) -> RoundGroup {
    let n = acc.count as f64;
    RoundGroup {
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

/// The share of a GPU's ring sends that go over the node fabric when the ring spans nodes, with
/// `g` GPUs a node and a NIC for each. Each channel's ring crosses a node as a chain of g GPUs: g − 1 hops over
/// the fabric and one out through a NIC. NCCL gives each channel its own NIC and so its own exit
/// GPU (the GPU nearest that NIC), so over the channels every GPU sends (g − 1)/g of its bytes
/// over the fabric and 1/g through its NIC, two separate paths. A multi-node ring is therefore
/// faster per GPU than one inside a node where the fabric bounds it, as measured: 2 × 8 H100
/// over 8 × NDR, NCCL_ALGO=Ring, 392 GB/s busbw at 8 GiB (NVIDIA/nccl-tests#309) where one node's
/// ring gives 370 (ar-h100-nvlink4-ring-4g); 2 × 8 MI300X over 8 × 400G RoCE, 361 GB/s at
/// 16 GiB where one node gives 317 (ar-mi300x-2node-roce400-16g, ar-mi300x-8g-8g). With one GPU
/// per node every send leaves the node. On a PCIe fabric the paths are not separate: a GPU's one
/// PCIe link carries its sends to its peers and to the NIC alike, so all of them count. With
/// fewer NICs than GPUs only the GPUs beside a NIC leave the node, and the busiest GPU is one of
/// the others, which sends everything over the fabric.
pub fn ring_fabric_share(c: &Cluster) -> f64 {
    let g = c.node_gpus();
    if g <= 1 {
        0.0
    } else if c.intra.kind == FabricKind::Pcie || c.nics < g {
        1.0
    } else {
        let g = f64::from(g);
        (g - 1.0) / g
    }
}

/// The NVLS all-reduce's rate through one node's switch, bytes/s: each GPU pushes S into the
/// switch and pulls S back, calibrated so that the all-reduce's busbw equals the measured NVLS
/// busbw: rate = busbw · n/(n−1), n the GPUs on the switch (one node's: NVLSTree joins nodes
/// beyond it).
fn nvls_rate(c: &Cluster) -> f64 {
    let n = f64::from(c.node_gpus().max(2));
    c.intra.nvls_busbw_gbs * 1e9 * n / (n - 1.0) * c.intra_scale
}

/// Fixed time of one NVLS chunk step, µs: each of NCCL's concurrent NVLS operations (channels ×
/// heads) moves its share of a message in chunks, and every chunk pays a synchronisation through
/// the switch besides its bytes. Fitted (least squares on the log of the time) on the
/// calibration rows ar-h200-nvls-4m, ar-h200-nvls-16m and ar-h200-nvls-128m (Azure's ND H200 v5
/// table, NCCL 2.20.5): 5.1 µs. With it the table's 1 MiB–8 GiB sizes fall within 7 % of the
/// model but one (8 MiB, where the chunk doubles: 17 %); without it 1–32 MiB ran 20–45 % fast.
pub const NVLS_CHUNK_STEP_US: f64 = 5.1;

/// The share of the NVLS switch's streaming rate an all-reduce of `bytes` keeps: a chunk of c
/// bytes takes c/r + t (r the rate of one operation, t [`NVLS_CHUNK_STEP_US`]), relative to the
/// 128 KiB chunks of the large messages the switch's busbw was measured on. NCCL's chunk (2.29.7
/// `enqueue.cc`, `calcCollChunking`, NVLS): 128 KiB (`nvlsChunkSize`), halved to 64 KiB below
/// 64 chunks per operation, 32 KiB below 8 and 16 KiB below 2, over 16 channels × one head per
/// GPU (`NCCL_NVLS_NCHANNELS`'s default): 16 KiB below 8 MiB on 8 GPUs, 32 KiB to 64 MiB, 64 KiB
/// to 1 GiB.
pub fn nvls_chunk_share(c: &Cluster, bytes: f64) -> f64 {
    let ops = 16.0 * f64::from(c.node_gpus().max(1));
    let mut chunk = 131072.0;
    for (below, size) in [(64.0, 65536.0), (8.0, 32768.0), (2.0, 16384.0)] {
        if bytes < below * ops * chunk && chunk > size {
            chunk = size;
        }
    }
    let step = NVLS_CHUNK_STEP_US * 1e-6 * c.lat_scale * nvls_rate(c) / ops;
    let keeps = |c: f64| c / (c + step);
    keeps(chunk) / keeps(131072.0)
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
