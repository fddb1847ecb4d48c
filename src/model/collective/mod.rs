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

mod protocol;
mod rounds;
mod tree;

pub use protocol::{Link, Protocol, RateTable};
pub use rounds::{
    each_group, nvls_chunk_share, prev_pow2, ring_fabric_share, ring_network_hops,
    ring_round_crosses, round_groups, round_time, uplinks, RoundGroup, RoundTime,
    NVLS_CHUNK_STEP_US,
};
pub use tree::DoubleTree;

use super::hardware::{
    Fabric, FabricKind, Gpu, Library, NetKind, Network, GPUS_PER_SOCKET, SHM_EFF, SOCKET_LINK_GBS,
};
use super::topology::{Partners, TierLoad, Topology};
use super::ModelError;
use rounds::{Pipeline, Rates, RoundBase};

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
    /// NVLink SHARP inside each node and a double binary tree of nodes across them, pipelined
    /// (NCCL's NVLSTree).
    NvlsTree,
}

impl Algo {
    /// All algorithms, `auto` first.
    pub const ALL: [Algo; 7] = [
        Algo::Auto,
        Algo::Ring,
        Algo::Tree,
        Algo::Rhd,
        Algo::Hier,
        Algo::Nvls,
        Algo::NvlsTree,
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
            Algo::NvlsTree => "nvlstree",
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
            Algo::NvlsTree => "in-switch reduction in each node, tree across nodes (NVLSTree)",
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
    /// Multiplier on the whole path between nodes, after the PCIe cap: a calibration from a
    /// measured run (`calib_net`) says what the path achieved, whichever link bounds it.
    pub net_calib: f64,
    /// Line rate of one GPU's own PCIe link, bytes/s ([`crate::model::hardware::Gpu::host_link_bw`],
    /// looked up once: the collectives read it for every algorithm they cost).
    pub host_bw: f64,
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

    /// GPUs in one node of this job (a job smaller than a node uses part of one).
    pub fn node_gpus(&self) -> u32 {
        self.per_node.min(self.gpus).max(1)
    }

    /// Achievable bandwidth of one GPU into the node fabric, bytes/s. Without PCIe
    /// peer-to-peer every hop is relayed through host memory (NCCL's SHM transport) at
    /// [`SHM_EFF`] of the PCIe rate, and a ring over more than one CPU socket's GPUs crosses the
    /// sockets' link once each way ([`SOCKET_LINK_GBS`]): 8 such GPUs are slower than 4.
    pub fn intra_bw(&self) -> f64 {
        let bw = self.intra.gpu_bw();
        let bw = if self.intra.kind == FabricKind::Pcie && !self.p2p {
            let relayed = bw * SHM_EFF;
            if self.node_gpus() > GPUS_PER_SOCKET {
                relayed.min(SOCKET_LINK_GBS * 1e9)
            } else {
                relayed
            }
        } else {
            bw
        };
        bw * self.intra_scale
    }

    /// Achievable bandwidth of a node's NICs together (their share, `net_scale`), bytes/s: NCCL
    /// spreads channels over all NICs of a node. The GPUs reach the NICs over their own PCIe
    /// links (GPUDirect RDMA), so the NICs carry no more than those links' line rate: more NICs
    /// than GPUs, or NICs faster than a GPU's PCIe generation (800 Gb/s XDR on Gen5). The line
    /// rate, not PCIe's achievable share inside a node: each generation's NICs reach their own
    /// figure through the same links ([`crate::model::hardware::Gpu::host_link`]). A calibration
    /// (`net_calib`) scales the result: it measured the path, whichever of the two bounds it.
    pub fn node_net_bw(&self) -> f64 {
        self.net_path().0
    }

    /// The link that bounds traffic between nodes at the node: the NICs, or the GPUs' PCIe
    /// links when those carry less ([`Cluster::node_net_bw`]).
    pub fn net_link(&self) -> Link {
        self.net_path().1
    }

    /// [`Cluster::node_net_bw`] and [`Cluster::net_link`] at once (the GPU's host link is
    /// looked up in the catalog once).
    pub(super) fn net_path(&self) -> (f64, Link) {
        let nics = self.inter.nic_bw() * f64::from(self.nics) * self.net_scale;
        let host = self.host_bw * f64::from(self.node_gpus());
        if host < nics {
            (host * self.net_calib, Link::HostPcie)
        } else {
            (nics * self.net_calib, Link::Network)
        }
    }

    /// One NIC (and one uplink port of the same speed) at its share and calibration, bytes/s.
    pub fn nic_bw(&self) -> f64 {
        self.inter.nic_bw() * self.net_scale * self.net_calib
    }

    /// Link class inside a node.
    pub fn intra_link(&self) -> Link {
        if self.intra.kind == FabricKind::Pcie {
            Link::Pcie
        } else {
            Link::NvLink
        }
    }

    /// Protocols the library enables here: LL128 needs NVLink inside the node and, across
    /// nodes, RDMA (NCCL `tuning.cc`: LL128 enabled only where `typeIntra <= PATH_NVL`). RCCL
    /// enables LL128 by default on gfx90a only (ROCm/rccl 2.21.5 `tuning.cc`, and its LL128
    /// kernels are built for gfx90a only, `src/device/generate.py`): not on MI300X.
    pub fn protocols(&self) -> &'static [Protocol] {
        let net_ok = self.nodes() <= 1 || self.inter.kind == NetKind::Rdma;
        let ll128 = self.gpu.library == Library::Nccl;
        if self.intra.is_nvlink() && net_ok && ll128 {
            &[Protocol::Ll, Protocol::Ll128, Protocol::Simple]
        } else {
            &[Protocol::Ll, Protocol::Simple]
        }
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
    /// Pipeline slices (tree and NVLSTree; 1 otherwise).
    pub slices: u32,
    /// Per tier: node fabric, NICs, leaf uplinks, pod uplinks.
    pub tiers: [TierUse; 4],
}

impl CollectiveCost {
    /// Mostly start-up time: at least half of it latency, so no link's bandwidth is what it
    /// waits on ([`CollectiveCost::bottleneck`] names the link that bounds the rest).
    pub fn latency_bound(&self) -> bool {
        self.latency_share >= 0.5
    }
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
    /// Adds `count` rounds like `rt`; each tier's bytes and time count `tier_count` times (a
    /// tree tick carries one slice of each tier's bytes: `count` over the slices).
    fn add(&mut self, rt: &RoundTime, count: f64, tier_count: f64, rounds: u64) {
        self.time += rt.total() * count;
        self.latency += rt.latency * count;
        self.by_link[link_index(rt.link)] += rt.transfer * count;
        for (acc, (b, t)) in self.tiers.iter_mut().zip(rt.tiers) {
            acc.0 += b * tier_count;
            acc.1 += t * tier_count;
        }
        self.rounds += rounds;
    }
}

/// A round group as the cost reads it: what one of its rounds costs before the protocol is
/// chosen, and how many rounds it stands for.
#[derive(Clone, Copy, Debug, Default)]
struct Charged {
    base: RoundBase,
    count: u64,
    /// `count` as a float (converted once, not once per protocol).
    count_f: f64,
}

/// One round group under one protocol: each round's (or tree tick's) latency and transfer, and
/// how many there are.
struct Step {
    latency: f64,
    transfer: f64,
    count: f64,
    rounds: u64,
    slices: u32,
}

/// Most slices the double tree is pipelined in. NCCL sends a tree all-reduce in chunks of one
/// buffer step per channel, 512 KiB for Simple, 32–512 KiB for LL128 (`enqueue.cc`,
/// `calcCollChunking`): a 1 GiB message over 16 channels runs 128 chunks a channel, 8 GiB 1,024,
/// so the pipeline's fill and drain cost it little. The model takes the count that minimises
/// its time (fewer where the per-tick latency outweighs the fill), up to 256: 94 % of the
/// steady rate through two nodes' 8 levels, 91 % through 64 nodes' 13. It was 64 (81 % and
/// 72 %), which left the tree below the ring on two nodes of A100s at 4–8 GiB, where NCCL runs
/// the tree and measures above the NICs' rate (oracle-quickstart/oci-hpc-oke, 2 × 8 A100: 236
/// GB/s busbw at 4 GiB over 200 GB/s of NICs a node).
pub const MAX_TREE_SLICES: u32 = 256;

impl Charged {
    /// The group under protocol `p`. A `pipe` (the tree's or NVLSTree's) makes it one tick of
    /// the pipeline, solved in closed form: with P slices a tick costs
    /// h + X/P (every byte term scales as 1/P) and there are 2D + P − 1 ticks, so the best P is
    /// near √((2D − 1)·X/h).
    // Inlined into the protocol loop of `costs`: left to the compiler, it was not once the rate
    // tables grew, and the benchmark sweep took 1.09 ms instead of 0.89 ms.
    #[inline(always)]
    fn step(&self, p: Protocol, pipe: Option<&Pipeline>) -> Step {
        let x = self.base.transfer(p);
        let Some(pipe) = pipe else {
            return Step {
                latency: self.base.latency(p),
                transfer: x,
                count: self.count_f,
                rounds: self.count,
                slices: 1,
            };
        };
        let (depth2, h) = (pipe.depth2, pipe.tick_latency(p));
        let ticks = |slices: u32| depth2 + f64::from(slices) - 1.0;
        let time = |slices: u32| ticks(slices) * (h + x / f64::from(slices));
        let ideal = ((depth2 - 1.0).max(0.0) * x / h.max(1e-12)).sqrt();
        let most = MAX_TREE_SLICES;
        let lo = prev_pow2(ideal.clamp(1.0, f64::from(most)) as u32).min(most);
        let hi = (lo * 2).min(most);
        let slices = if time(hi) < time(lo) { hi } else { lo };
        Step {
            latency: h,
            transfer: x * (1.0 / f64::from(slices)),
            count: ticks(slices),
            rounds: ticks(slices) as u64,
            slices,
        }
    }
}

/// A collective's round groups, kept on the stack (no algorithm has more than
/// [`Charges::INLINE`]: `tests::round_groups_fit_inline`); more would all move to the heap.
struct Charges {
    /// The first `len` are used while `spill` is empty.
    inline: [Charged; Charges::INLINE],
    len: usize,
    spill: Vec<Charged>,
}

impl Charges {
    /// Round groups kept on the stack.
    const INLINE: usize = 4;

    fn new() -> Charges {
        Charges {
            inline: [Charged::default(); Charges::INLINE],
            len: 0,
            spill: Vec::new(),
        }
    }

    fn push(&mut self, ch: Charged) {
        match self.inline.get_mut(self.len) {
            Some(slot) => {
                *slot = ch;
                self.len += 1;
            }
            None => {
                if self.spill.is_empty() {
                    self.spill.extend_from_slice(&self.inline);
                }
                self.spill.push(ch);
            }
        }
    }

    fn as_slice(&self) -> &[Charged] {
        if self.spill.is_empty() {
            self.inline.get(..self.len).unwrap_or(&[])
        } else {
            &self.spill
        }
    }
}

/// The fastest of `protos` for one algorithm, launch latency included, with its totals. The
/// round groups are costed once before the protocol is chosen; each protocol's total time
/// then takes a few operations per group, and only the fastest is summed tier by tier.
fn costs(
    c: &Cluster,
    op: Op,
    algo: Algo,
    bytes: f64,
    protos: &[Protocol],
) -> Result<(Protocol, Totals), ModelError> {
    // NVLS and NVLSTree run on the Simple protocol only.
    let protos: &[Protocol] = if matches!(algo, Algo::Nvls | Algo::NvlsTree) {
        &[Protocol::Simple]
    } else {
        protos
    };
    let r = Rates::new(c, algo);
    let mut groups = Charges::new();
    // A ring's (or the hierarchical algorithm's) network rounds all send the same bytes the same
    // distance: their uplink loads are worked out once.
    let mut last_send: Option<((f64, Partners), (TierLoad, TierLoad))> = None;
    each_group(c, op, algo, bytes, 1, &mut |g| {
        let send = (g.node_bytes, g.partners);
        let loads = match last_send {
            Some((s, loads)) if s == send => loads,
            _ => {
                let loads = r.uplinks(c, &g);
                last_send = Some((send, loads));
                loads
            }
        };
        groups.push(Charged {
            base: RoundBase::new(c, &r, &g, loads),
            count: g.count,
            count_f: g.count as f64,
        })
    })?;
    let pipe = Pipeline::of(c, algo);
    // The fastest protocol, launch latency included (the first of equals).
    let mut best: Option<(Protocol, f64)> = None;
    for &p in protos {
        let mut time = 0.0;
        for ch in groups.as_slice() {
            let s = ch.step(p, pipe.as_ref());
            time += (s.latency + s.transfer) * s.count;
        }
        let launched = time + launch_seconds(c, algo, p);
        if best.is_none_or(|(_, b)| b.total_cmp(&launched).is_gt()) {
            best = Some((p, launched));
        }
    }
    let (p, _) = best.ok_or_else(|| ModelError::new("algo", "no protocol applies"))?;
    // Only it is summed tier by tier, with the same sums as its total above.
    let mut t = Totals::default();
    for ch in groups.as_slice() {
        let s = ch.step(p, pipe.as_ref());
        let rt = ch.base.timed(p, s.latency, s.transfer);
        t.slices = s.slices;
        t.add(&rt, s.count, s.count / f64::from(s.slices), s.rounds);
    }
    Ok((p, t))
}

/// The fixed cost of launching `algo` with protocol `p`, calibration included, seconds.
pub fn launch_seconds(c: &Cluster, algo: Algo, p: Protocol) -> f64 {
    p.launch_latency_us(algo, c.gpu.library) * c.lat_scale * 1e-6
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
        time = 2.0 * bytes / c.gpu.stream_bw();
        by_link[0] = time;
    } else {
        let launch = launch_seconds(c, algo, p);
        time += launch;
        latency += launch;
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
    // The NIC tier is bound by the GPUs' own PCIe links where those carry less than the NICs.
    let bottleneck = if bottleneck == Link::Network {
        c.net_link()
    } else {
        bottleneck
    };
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
        // Counted as the NIC tier's; `finish` names the GPUs' links when they bound it.
        Link::HostPcie => 4,
    }
}

/// The algorithms `auto` chooses among: those NCCL's tuner has (ring, tree, NVLS, NVLSTree).
fn auto_candidates(op: Op) -> &'static [Algo] {
    match op {
        Op::AllReduce => &[Algo::Ring, Algo::Tree, Algo::Nvls, Algo::NvlsTree],
        _ => &[Algo::Ring],
    }
}

/// Cost of a collective: the fastest protocol for the algorithm, and for `auto` the fastest
/// algorithm NCCL would choose.
pub fn cost(c: &Cluster, op: Op, algo: Algo, bytes: f64) -> Result<CollectiveCost, ModelError> {
    let costed =
        |a: Algo| costs(c, op, a, bytes, c.protocols()).map(|(p, t)| finish(c, op, a, p, bytes, t));
    if algo != Algo::Auto {
        return costed(algo);
    }
    let mut best: Option<CollectiveCost> = None;
    let mut first_err = None;
    for a in auto_candidates(op) {
        match costed(*a) {
            Ok(r) => {
                if best.is_none_or(|b| r.time_s < b.time_s) {
                    best = Some(r);
                }
            }
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
    let lib = c.gpu.library;
    if same_node {
        let bw = if c.intra.kind == FabricKind::Mesh {
            c.intra.peer_bw()
        } else {
            c.intra_bw()
        };
        (p.base_latency_us(Algo::Ring, lib) + p.hop_latency_us(Algo::Ring, c.intra_link(), lib))
            * c.lat_scale
            * 1e-6
            + bytes / (bw * c.intra_scale)
    } else {
        // One GPU's share of the node's NICs (as the collectives see them: shared, capped by
        // the PCIe links, scaled), at most one NIC.
        let share = c.node_net_bw() / f64::from(c.node_gpus());
        let bw = share.min(c.nic_bw());
        (p.base_latency_us(Algo::Ring, lib)
            + p.hop_latency_us(Algo::Ring, Link::Network, lib)
            + c.inter.extra_latency_us)
            * c.lat_scale
            * 1e-6
            + bytes / bw.max(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::scenario::Scenario;

    /// `costs` keeps a collective's round groups on the stack; more than it has room for would
    /// still be costed right, but from the heap.
    #[test]
    fn round_groups_fit_inline() {
        let mut most = 0;
        for (pn, intra) in [
            (1, "nvlink4"),
            (2, "pcie4"),
            (3, "xgmi"),
            (4, "nvlink3"),
            (8, "nvlink4"),
        ] {
            for n in (1..=200).chain([256, 1000, 1024, 4096, 65536]) {
                let q = format!("gpus={n}&per_node={pn}&intra={intra}&inter=roce400");
                let Ok(s) = Scenario::parse(&q).and_then(|sc| sc.setup()) else {
                    continue;
                };
                let c = s.cluster();
                for op in Op::ALL {
                    for algo in Algo::ALL {
                        if let Ok(groups) = round_groups(&c, op, algo, 1e9, 1) {
                            most = most.max(groups.len());
                        }
                    }
                }
            }
        }
        // A multi-node ring has four (two phases, each with and without a network hop).
        assert_eq!(most, Charges::INLINE);
    }

    /// The cluster of a scenario string.
    fn cluster(q: &str) -> Cluster {
        Scenario::parse(q).unwrap().setup().unwrap().cluster()
    }

    /// `a` is more than `k` times `b`'s bus bandwidth.
    fn faster(a: &CollectiveCost, b: &CollectiveCost, k: f64) {
        assert!(
            a.busbw_gbs > k * b.busbw_gbs,
            "{} {} GB/s against {} {} GB/s",
            a.algorithm.id(),
            a.busbw_gbs,
            b.algorithm.id(),
            b.busbw_gbs
        );
    }

    /// LL's bus bandwidth at a size where latency no longer counts, forced to LL.
    fn ll_busbw(q: &str, algo: Algo) -> f64 {
        let c = cluster(q);
        let bytes = 1e10;
        let (p, t) = costs(&c, Op::AllReduce, algo, bytes, &[Protocol::Ll]).unwrap();
        finish(&c, Op::AllReduce, algo, p, bytes, t).busbw_gbs
    }

    /// NCCL's tuner caps LL across nodes at 39 GB/s of bus bandwidth on two nodes and 20.4 on
    /// more (`llMaxBws`); a quarter of 8 NDR NICs (100 GB/s) was what the model gave before.
    #[test]
    fn ll_across_nodes_is_capped_as_nccl_caps_it() {
        let net = "per_node=8&gpu=h100&intra=nvlink4&inter=ib-ndr&nics=8";
        // The tree's pipeline of at most 256 slices spends part of the time filling and
        // draining (16 and 20 ticks of transfer at these heights) and pays a hop's latency a
        // tick: it reaches 0.7 to 1 of any rate.
        for (algo, lowest) in [(Algo::Ring, 0.9), (Algo::Tree, 0.7)] {
            let two = ll_busbw(&format!("gpus=16&{net}"), algo);
            let many = ll_busbw(&format!("gpus=64&{net}"), algo);
            assert!(
                (39.0 * lowest..=39.0).contains(&two),
                "{algo:?} on 2 nodes: {two}"
            );
            assert!(
                (20.4 * lowest..=20.4).contains(&many),
                "{algo:?} on 8 nodes: {many}"
            );
        }
        // Inside a node LL keeps its quarter of NVLink.
        let one = ll_busbw(&format!("gpus=8&{net}"), Algo::Ring);
        assert!(one > 80.0, "one node: {one}");
    }

    /// On two nodes the double tree crosses the network with half of what the ring sends, so
    /// it beats the NICs' rate when NVLink allows: NCCL runs it there ("On two nodes, NCCL uses
    /// the tree ... which can indeed go beyond the network bottleneck", NVIDIA/nccl-tests#196).
    /// With at most 64 slices the model's tree filled its pipeline too slowly to win (177 GB/s
    /// against the ring's 180 on two nodes of A100s at 4 GiB).
    #[test]
    fn two_nodes_take_the_tree_for_large_messages() {
        let q = "gpus=16&per_node=8&gpu=a100&intra=nvlink3&inter=roce200&nics=8";
        let c = cluster(q);
        let bytes = 4.0 * 1073741824.0;
        let auto = cost(&c, Op::AllReduce, Algo::Auto, bytes).unwrap();
        let ring = cost(&c, Op::AllReduce, Algo::Ring, bytes).unwrap();
        assert_eq!(auto.algorithm, Algo::Tree);
        faster(&auto, &ring, 1.1);
    }

    /// NVLSTree on two nodes: each node is a root in one tree and a leaf in the other, so its
    /// NICs carry the message once each way, half a ring's per-GPU share of the NICs' load, and
    /// the switch inside the node bounds it, as NCCL's tuner says (it doubles the network rate on
    /// two nodes, `tuning.cc`) and 2 × 8 H100 measured (466 GB/s busbw at 4 GiB by default, 384
    /// with the ring forced, NVIDIA/nccl-tests#309). From four nodes an inner node carries
    /// twice that, and the NICs bound it. The model had no NVLSTree: auto gave the ring, 387.
    #[test]
    fn nvls_tree_doubles_the_network_rate_on_two_nodes() {
        let at = |q: &str, algo: Algo| {
            let c = cluster(q);
            cost(&c, Op::AllReduce, algo, 4.0 * 1073741824.0)
        };
        let two = at("gpus=16&gpu=h100&inter=ib-ndr&nics=8", Algo::Auto).unwrap();
        assert_eq!(two.algorithm, Algo::NvlsTree);
        assert_eq!(two.bottleneck, Link::Switch);
        assert!((420.0..490.0).contains(&two.busbw_gbs), "{}", two.busbw_gbs);
        let four = at("gpus=32&gpu=h100&inter=ib-ndr&nics=8", Algo::NvlsTree).unwrap();
        assert_eq!(four.bottleneck, Link::Network);
        assert!(four.busbw_gbs < 0.85 * two.busbw_gbs, "{}", four.busbw_gbs);
        // It needs a reducing switch, and more than one node.
        let e = at("gpus=8&gpu=h100", Algo::NvlsTree).unwrap_err();
        assert!(e.to_string().contains("use nvls"), "{e}");
        let e = at(
            "gpus=16&gpu=a100&intra=nvlink3&inter=ib-hdr",
            Algo::NvlsTree,
        )
        .unwrap_err();
        assert!(e.to_string().contains("nvlink3 has none"), "{e}");
        let e = at("gpus=16&per_node=1&gpu=h100&inter=ib-ndr", Algo::NvlsTree).unwrap_err();
        assert!(e.to_string().contains("two GPUs a node"), "{e}");
    }

    /// NVLS moves a message in chunks sized by the message, each paying a step through the
    /// switch: mid sizes run well below the switch's rate (8 H200, NCCL 2.20.5: 240 GB/s busbw
    /// at 16 MiB against 480 at 8 GiB; the model gave 341 before the chunk steps).
    #[test]
    fn nvls_mid_sizes_pay_their_chunk_steps() {
        let c = cluster("gpus=8&gpu=h200");
        let at = |bytes: f64| cost(&c, Op::AllReduce, Algo::Nvls, bytes).unwrap();
        let (mid, big) = (at(16.0 * 1048576.0), at(8.0 * 1073741824.0));
        assert!(
            mid.busbw_gbs < 0.6 * big.busbw_gbs,
            "{} against {}",
            mid.busbw_gbs,
            big.busbw_gbs
        );
        assert!(at(1048576.0).time_s > 30e-6);
        // The explicit schedule charges the same chunk share.
        let s = crate::model::schedule::Schedule::build(
            &c,
            Op::AllReduce,
            Algo::Nvls,
            16.0 * 1048576.0,
        )
        .unwrap();
        assert!((s.total_time() / mid.time_s - 1.0).abs() < 1e-9);
    }

    /// A ring over two nodes sends an eighth of each GPU's bytes through its own NIC, so the node
    /// fabric that bounds one node's ring no longer bounds it: 2 × 8 H100 with NCCL_ALGO=Ring
    /// measured 392 GB/s busbw at 8 GiB (NVIDIA/nccl-tests#309) against one node's 370. The model
    /// charged every GPU its whole ring traffic over NVLink and gave 369, bound by NVLink.
    #[test]
    fn a_ring_across_nodes_leaves_each_node_through_every_gpus_nic() {
        let busbw = |q: &str| {
            let c = cluster(q);
            cost(&c, Op::AllReduce, Algo::Ring, 8.0 * 1073741824.0).unwrap()
        };
        let one = busbw("gpus=8&gpu=h100");
        let two = busbw("gpus=16&gpu=h100&inter=ib-ndr&nics=8");
        assert_eq!(one.bottleneck, Link::NvLink);
        assert_eq!(two.bottleneck, Link::Network);
        faster(&two, &one, 1.03);
        // On PCIe a GPU's one link carries its sends to peers and to the NIC alike, and with
        // fewer NICs than GPUs some GPUs never leave the node.
        let share = |q: &str| ring_fabric_share(&cluster(q));
        assert_eq!(share("gpus=16&gpu=h100&inter=ib-ndr"), 7.0 / 8.0);
        assert_eq!(share("gpus=16&gpu=rtx4090&inter=roce100"), 1.0);
        assert_eq!(share("gpus=16&per_node=1&gpu=h100&inter=ib-ndr"), 0.0);
        assert_eq!(share("gpus=16&gpu=h100&inter=ib-xdr&nics=4"), 1.0);
    }

    #[test]
    fn round_groups_past_the_inline_ones_are_kept_in_order() {
        let mut groups = Charges::new();
        for count in 1..=6 {
            groups.push(Charged {
                count,
                ..Charged::default()
            });
        }
        let counts: Vec<u64> = groups.as_slice().iter().map(|ch| ch.count).collect();
        assert_eq!(counts, [1, 2, 3, 4, 5, 6]);
    }
}
