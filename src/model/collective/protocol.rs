//! NCCL's wire protocols and the link classes a round crosses, with their latencies.

use super::Algo;
use crate::model::hardware::Library;

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
    /// Every protocol, in the order of the per-protocol tables here.
    pub const ALL: [Protocol; 3] = [Protocol::Ll, Protocol::Ll128, Protocol::Simple];

    /// Scenario / JSON id.
    pub fn id(self) -> &'static str {
        match self {
            Protocol::Ll => "LL",
            Protocol::Ll128 => "LL128",
            Protocol::Simple => "Simple",
        }
    }

    /// Position in [`Protocol::ALL`].
    pub fn index(self) -> usize {
        match self {
            Protocol::Ll => 0,
            Protocol::Ll128 => 1,
            Protocol::Simple => 2,
        }
    }

    /// Time of a transfer under the protocol, from its time at the full link rate: divided by
    /// the protocol's share in [`RateTable::factors`], written as constants in each table's own
    /// arms (a hot path). NCCL's LL quarter is the exact multiplication by 4 and Simple's 1
    /// leaves the time as it is (`tests::protocol_time_divides_by_the_factor`).
    pub fn transfer_time(self, table: RateTable, at_full_rate: f64) -> f64 {
        match (table, self) {
            (RateTable::Nccl | RateTable::RcclRing, Protocol::Simple) => at_full_rate,
            (RateTable::Nccl, Protocol::Ll) => at_full_rate * 4.0,
            (RateTable::Nccl, Protocol::Ll128) => at_full_rate / 0.92,
            (RateTable::RcclRing, _) => at_full_rate / 0.08,
            (RateTable::RcclTreeFewNodes, Protocol::Simple) => at_full_rate / 0.11,
            (RateTable::RcclTreeManyNodes, Protocol::Simple) => at_full_rate / 0.59,
            (RateTable::RcclTreeFewNodes | RateTable::RcclTreeManyNodes, _) => at_full_rate / 0.06,
        }
    }

    /// Base latency of launching one collective, µs. Every NCCL latency here is from one
    /// release, NCCL 2.29.7 (`src/graph/tuning.cc`, `baseLatencies`): Tree LL 6.8, LL128 14.0,
    /// Simple 8.4; Ring 6.6, 14.0, 8.4; NVLS 0 (its cost is all in its hop latency). RCCL's
    /// (2.21.5 `tuning.cc`, `baseLat`, every table): LL 12, LL128 12, Simple 17, NVLS 0.
    pub fn base_latency_us(self, algo: Algo, lib: Library) -> f64 {
        match (lib, algo) {
            (_, Algo::Nvls | Algo::NvlsTree) => 0.0,
            (Library::Rccl, _) => [12.0, 12.0, 17.0][self.index()],
            (Library::Nccl, Algo::Tree) => [6.8, 14.0, 8.4][self.index()],
            (Library::Nccl, _) => [6.6, 14.0, 8.4][self.index()],
        }
    }

    /// Latency charged once per collective, µs: the base latency, and for NVLS and NVLSTree one
    /// NVLink step through the switch, 25 µs (all of NVLS's latency; NVLSTree adds its network
    /// hops per pipeline tick).
    pub fn launch_latency_us(self, algo: Algo, lib: Library) -> f64 {
        let own = if matches!(algo, Algo::Nvls | Algo::NvlsTree) {
            self.hop_latency_us(algo, Link::Switch, lib)
        } else {
            0.0
        };
        self.base_latency_us(algo, lib) + own
    }

    /// Per-step latency of a link class, µs (NCCL 2.29.7 `tuning.cc` `hwLatencies`). Ring:
    /// NVLink .6/1.9/3.4, PCI 1.0/2.5/5.7, NET 2.7/4.0/14.0; Tree: NVLink .6/1.25/4.0,
    /// PCI 1.0/1.9/4.0, NET 5.0/8.5/14; NVLS (Simple): NVLink 25, NET 18. Recursive
    /// halving-doubling and the hierarchical algorithm, which NCCL does not have, take the ring's.
    /// RCCL's gfx942 table (`tuning_model_5`, its "NVLINK" row is xGMI): ring .8/.8/2.1, tree
    /// .9/.9/2.3. **Assumption**: its PCI and network rows are NCCL's here; RCCL's own network
    /// row (ring LL 9.5 / Simple 320 µs, tree 10.5 / 25) has no MI300X measurement across nodes
    /// at small sizes to check it on.
    pub fn hop_latency_us(self, algo: Algo, link: Link, lib: Library) -> f64 {
        Protocol::hop_latencies_us(algo, link, lib)[self.index()]
    }

    /// [`Protocol::hop_latency_us`] of every protocol, in [`Protocol::ALL`] order (a round
    /// reads all three at once).
    pub fn hop_latencies_us(algo: Algo, link: Link, lib: Library) -> [f64; 3] {
        match (lib, algo, link) {
            (_, _, Link::Local) => [0.0; 3],
            (_, a, Link::LeafUplink | Link::SpineUplink | Link::HostPcie) => {
                Protocol::hop_latencies_us(a, Link::Network, lib)
            }
            (_, Algo::Nvls, Link::Network) => [18.0; 3],
            (_, Algo::NvlsTree, Link::Network) => [20.9; 3],
            (_, Algo::Nvls | Algo::NvlsTree, _) => [25.0; 3],
            (Library::Rccl, Algo::Tree, Link::NvLink | Link::Switch) => [0.9, 0.9, 2.3],
            (Library::Rccl, _, Link::NvLink | Link::Switch) => [0.8, 0.8, 2.1],
            (_, Algo::Tree, Link::NvLink | Link::Switch) => [0.6, 1.25, 4.0],
            (_, Algo::Tree, Link::Pcie) => [1.0, 1.9, 4.0],
            (_, Algo::Tree, Link::Network) => [5.0, 8.5, 14.0],
            (_, _, Link::NvLink | Link::Switch) => [0.6, 1.9, 3.4],
            (_, _, Link::Pcie) => [1.0, 2.5, 5.7],
            (_, _, Link::Network) => [2.7, 4.0, 14.0],
        }
    }

    /// NCCL's per-step network post overhead on a multi-node ring, µs: 1 µs on Intel x86 hosts,
    /// three times that for Simple (NCCL 2.29.7 `tuning.cc` `getNetOverhead`, about lines 213–220
    /// and 374–376). AMD hosts are charged 2 µs there; the model has no host vendor and takes
    /// Intel's.
    /// A ring step inside a node of a multi-node ring costs at least this.
    pub fn net_overhead_us(self) -> f64 {
        if self == Protocol::Simple {
            3.0
        } else {
            1.0
        }
    }
}

/// NCCL's ceiling on the LL protocol's bus bandwidth across nodes, bytes/s, or `None` inside
/// one node. NCCL 2.29.7's tuner caps ring LL at `min(llMaxBw, busBw · 0.5)` and tree LL at
/// `min(busBw / 3.8, llMaxBw)` (`tuning.cc`, `llMaxBws`, indexed on more than one node by the
/// host CPU and the node count): 39 GB/s on two Intel nodes, 20.4 GB/s on more (AMD hosts 22.5
/// and 19.0; the model has no host vendor and takes Intel's, as for
/// [`Protocol::net_overhead_us`]). LL's flags travel with its data through the network proxy,
/// and NVIDIA's tuning measured these rates. Inside one node the table's caps (Volta 39,
/// Ampere 87.7, Hopper 141, Blackwell 282 GB/s) sit above LL's quarter of every catalog
/// fabric (NVLink 4 at 370 GB/s gives 92), so they never bind and are left out.
pub fn ll_max_busbw(nodes: u32) -> Option<f64> {
    match nodes {
        0 | 1 => None,
        2 => Some(39.0e9),
        _ => Some(20.4e9),
    }
}

/// Which share of the link each protocol delivers: NCCL's, or RCCL's for an algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RateTable {
    /// NCCL (`tuning.cc`): LL × 1/4, LL128 × 0.92 ("120.0/128.0"), Simple × 1, every algorithm.
    /// LL's quarter is the ring all-reduce's until NCCL 2.21.5 (`busBw * 1.0/4.0`, capped by
    /// `llMaxBw`); 2.21.5 raised it to half, which puts the 1 MiB all-reduce on 8 A100s
    /// (ar-a100-8g-auto-1m, where the tuner picks LL) 65 % above its measured 36 GB/s, so the
    /// quarter stays.
    Nccl,
    /// RCCL's ring on MI300X (ROCm/rccl 2.21.5 `src/graph/tuning.cc`, `tuning_model_5`, the
    /// gfx942 table for a node RCCL recognises as `rome_model_79/81/84`, `bwRatio`, applied as
    /// `busBw *= bwRatio`): LL 0.08, Simple 1. LL128 has no ratio there (it is off: RCCL
    /// enables it by default on gfx90a only); its slot repeats LL's and is never used.
    RcclRing,
    /// RCCL's tree on up to two nodes: LL 0.06, Simple 0.11.
    RcclTreeFewNodes,
    /// RCCL's tree on more than two nodes: LL 0.06, Simple 0.59.
    RcclTreeManyNodes,
}

impl RateTable {
    /// The table for an algorithm of a library on `nodes` nodes.
    pub fn of(lib: Library, algo: Algo, nodes: u32) -> RateTable {
        match (lib, algo) {
            (Library::Nccl, _) => RateTable::Nccl,
            (Library::Rccl, Algo::Tree) if nodes <= 2 => RateTable::RcclTreeFewNodes,
            (Library::Rccl, Algo::Tree) => RateTable::RcclTreeManyNodes,
            (Library::Rccl, _) => RateTable::RcclRing,
        }
    }

    /// Each protocol's share of the link, in [`Protocol::ALL`] order.
    pub fn factors(self) -> [f64; 3] {
        match self {
            RateTable::Nccl => [0.25, 0.92, 1.0],
            RateTable::RcclRing => [0.08, 0.08, 1.0],
            RateTable::RcclTreeFewNodes => [0.06, 0.06, 0.11],
            RateTable::RcclTreeManyNodes => [0.06, 0.06, 0.59],
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
    /// Between nodes, bound by the GPUs' own PCIe links into the NICs (GPUDirect RDMA), which
    /// carry less than the node's NICs ([`super::Cluster::node_net_bw`]).
    HostPcie,
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
            Link::HostPcie => "gpu-pcie",
            Link::LeafUplink => "leaf-uplink",
            Link::SpineUplink => "spine-uplink",
        }
    }

    /// [`Link::id`] in a node built on `intra`: the mesh class is NVLink's, but AMD's mesh is
    /// xGMI.
    pub fn id_on(self, intra: &crate::model::hardware::Fabric) -> &'static str {
        match self {
            Link::NvLink if intra.id == "xgmi" => "xgmi",
            link => link.id(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Protocol, RateTable};

    #[test]
    fn protocol_time_divides_by_the_factor() {
        let times = [
            0.0,
            1e-300,
            3e-9,
            0.1,
            1.0 / 3.0,
            0.7,
            1.0,
            12345.678,
            1e300,
            f64::MAX,
        ];
        let tables = [
            RateTable::Nccl,
            RateTable::RcclRing,
            RateTable::RcclTreeFewNodes,
            RateTable::RcclTreeManyNodes,
        ];
        for table in tables {
            for p in Protocol::ALL {
                for t in times {
                    assert_eq!(
                        p.transfer_time(table, t).to_bits(),
                        (t / table.factors()[p.index()]).to_bits(),
                        "{table:?} {p:?} {t}"
                    );
                }
            }
        }
    }
}
