//! Executable schedules: every algorithm as explicit rounds of transfers.
//!
//! In round r, GPU `src` sends parts `part .. part + count` of its buffer to `dst`, which either
//! adds them to its own (`reduce`) or overwrites (`copy`). The buffer is split into `parts` equal
//! parts. A switch that reduces in the network (NVLS) appears as an extra rank after the GPUs.
//!
//! Round durations come from the same [`round_time`] as the closed-form cost, with the bytes each
//! round actually moves; [`Schedule::execute`] runs the transfers on real numbers, so tests can
//! check that every GPU ends with the exact sum and that the time charged matches the cost.

use super::collective::{
    cost, each_group, launch_seconds, nvls_chunk_share, prev_pow2, ring_fabric_share,
    ring_round_crosses, round_time, Algo, Cluster, DoubleTree, Op, Protocol, RoundGroup, RoundTime,
};
use super::topology::Partners;
use super::ModelError;

/// Why NVLSTree has no explicit schedule: it runs a switch in every server, and the explicit
/// drawing has one (the animation plays it with servers as units).
const NVLS_TREE_UNDRAWN: &str =
    "nvlstree is drawn with servers as units (each server's switch and the tree between servers)";

/// Largest GPU count drawn transfer by transfer (larger counts are animated in aggregate).
pub const MAX_EXPLICIT_GPUS: u32 = 256;

/// One transfer inside a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// Sending rank (a GPU, or the switch rank).
    pub src: u32,
    /// Receiving rank.
    pub dst: u32,
    /// First part sent.
    pub part: u32,
    /// Number of consecutive parts sent.
    pub count: u32,
    /// The receiver adds (true) or overwrites (false).
    pub reduce: bool,
}

/// What a round is doing, for captions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Partial sums travel and are added.
    ReduceScatter,
    /// Finished sums are copied around.
    AllGather,
    /// Extra ranks fold into / out of a power of two (rhd).
    Fold,
    /// Inside a node (hierarchical).
    IntraReduce,
    /// Between nodes (hierarchical).
    InterReduce,
    /// Between nodes, copies (hierarchical).
    InterGather,
    /// Inside a node, copies (hierarchical).
    IntraGather,
    /// Up a tree, reducing.
    TreeUp,
    /// Into the switch, reduced there.
    SwitchReduce,
    /// Out of the switch, multicast.
    SwitchMulticast,
}

/// One round.
#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    /// Transfers that happen at once.
    pub transfers: Vec<Transfer>,
    /// What the round does.
    pub phase: Phase,
    /// Its modelled cost.
    pub time: RoundTime,
}

/// An algorithm expanded into rounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// Operation.
    pub op: Op,
    /// Algorithm (resolved).
    pub algo: Algo,
    /// Protocol the tuner picked.
    pub protocol: Protocol,
    /// GPUs.
    pub gpus: u32,
    /// GPUs per node.
    pub per_node: u32,
    /// Index of the in-network switch rank, if the algorithm uses one.
    pub switch_rank: Option<u32>,
    /// Parts the buffer is split into.
    pub parts: u32,
    /// Bytes per part.
    pub part_bytes: f64,
    /// For reduce-scatter: the part each GPU owns at the end; for all-gather: the part each GPU
    /// starts with.
    pub owned: Vec<u32>,
    /// Launch latency before the first round, seconds.
    pub base_latency: f64,
    /// The rounds.
    pub rounds: Vec<Round>,
}

impl Schedule {
    /// Builds the schedule the cost model times for this collective (resolving `auto` and the
    /// protocol exactly as [`cost`] does).
    pub fn build(c: &Cluster, op: Op, algo: Algo, bytes: f64) -> Result<Schedule, ModelError> {
        if c.gpus > MAX_EXPLICIT_GPUS {
            return Err(ModelError::new(
                "gpus",
                format!(
                    "explicit schedules go up to {MAX_EXPLICIT_GPUS} GPUs; larger clusters are shown in aggregate"
                ),
            ));
        }
        let chosen = cost(c, op, algo, bytes)?;
        let n = c.gpus;
        let g = c.per_node.min(n).max(1);
        let mut b = Builder::default();
        if n <= 1 {
            // One GPU: no rounds, only the local copy the cost charges.
            return Ok(Schedule {
                op,
                algo: chosen.algorithm,
                protocol: chosen.protocol,
                gpus: n,
                per_node: g,
                switch_rank: None,
                parts: 1,
                part_bytes: bytes,
                owned: vec![0],
                base_latency: chosen.time_s,
                rounds: Vec::new(),
            });
        }
        let (parts, owned) = match chosen.algorithm {
            Algo::Ring => {
                ring(&mut b, op, n);
                (n, (0..n).collect())
            }
            Algo::Rhd => {
                rhd(&mut b, op, n);
                (prev_pow2(n), (0..n).collect())
            }
            Algo::Tree => {
                tree(&mut b, &DoubleTree::new(n, g), chosen.slices);
                (2 * chosen.slices, Vec::new())
            }
            Algo::Hier => {
                hier(&mut b, n, g);
                (n, Vec::new())
            }
            Algo::Nvls => {
                b.round(
                    Phase::SwitchReduce,
                    (0..n).map(|i| Transfer {
                        src: i,
                        dst: n,
                        part: 0,
                        count: 1,
                        reduce: true,
                    }),
                );
                b.round(
                    Phase::SwitchMulticast,
                    (0..n).map(|i| Transfer {
                        src: n,
                        dst: i,
                        part: 0,
                        count: 1,
                        reduce: false,
                    }),
                );
                (1, Vec::new())
            }
            Algo::NvlsTree => return Err(ModelError::new("algo", NVLS_TREE_UNDRAWN)),
            Algo::Auto => return Err(ModelError::new("algo", "auto was not resolved")),
        };
        let part_bytes = bytes / f64::from(parts.max(1));
        let switch_rank = (chosen.algorithm == Algo::Nvls).then_some(n);
        // A pipelined tree advances in lock-step ticks, each charged as the cost model's tick.
        let mut tick = None;
        if chosen.algorithm == Algo::Tree {
            each_group(c, op, Algo::Tree, bytes, chosen.slices, &mut |grp| {
                tick = Some(round_time(c, Algo::Tree, chosen.protocol, &grp));
            })?;
        }
        let ring = chosen.algorithm == Algo::Ring && c.nodes() > 1;
        let mut phase_round = 0u32;
        let mut last_phase = None;
        let rounds = b
            .rounds
            .into_iter()
            .map(|(phase, transfers)| {
                if last_phase != Some(phase) {
                    phase_round = 0;
                    last_phase = Some(phase);
                }
                let mut grp = group_of(
                    &transfers,
                    g,
                    switch_rank,
                    part_bytes,
                    chosen.algorithm == Algo::Rhd,
                );
                // The ring's dependency chain pays a network hop only where it changes node; the
                // channels, drawn as one ring, take turns at leaving each node, so every GPU sends
                // a share of its bytes through a NIC instead of the fabric ([`ring_fabric_share`]).
                // NVLS moves the message in chunks sized by the message ([`nvls_chunk_share`]).
                if grp.switch {
                    grp.switch_share = nvls_chunk_share(c, bytes);
                }
                if ring {
                    grp.intra_latency =
                        !ring_round_crosses(phase_round, g, phase == Phase::ReduceScatter);
                    grp.gpu_bytes *= ring_fabric_share(c);
                }
                phase_round += 1;
                // A pipelined tree advances in lock-step ticks as long as its busiest stage.
                let time =
                    tick.unwrap_or_else(|| round_time(c, chosen.algorithm, chosen.protocol, &grp));
                Round {
                    transfers,
                    phase,
                    time,
                }
            })
            .collect();
        Ok(Schedule {
            op,
            algo: chosen.algorithm,
            protocol: chosen.protocol,
            gpus: n,
            per_node: g,
            switch_rank,
            parts,
            part_bytes,
            owned,
            base_latency: launch_seconds(c, chosen.algorithm, chosen.protocol),
            rounds,
        })
    }

    /// Total modelled time, seconds.
    pub fn total_time(&self) -> f64 {
        self.base_latency + self.rounds.iter().map(|r| r.time.total()).sum::<f64>()
    }

    /// Ranks including the switch.
    pub fn ranks(&self) -> u32 {
        self.gpus + u32::from(self.switch_rank.is_some())
    }

    /// Each rank's starting buffer: `own(rank, part)` where the rank starts with that part
    /// (every part, or for an all-gather only its own), `zero` elsewhere and on the switch.
    fn initial<T: Copy>(&self, zero: T, own: impl Fn(usize, usize) -> T) -> Vec<Vec<T>> {
        let n = self.gpus as usize;
        let mut buf = vec![vec![zero; self.parts as usize]; self.ranks() as usize];
        for (r, row) in buf.iter_mut().enumerate().take(n) {
            for (p, cell) in row.iter_mut().enumerate() {
                if self.op != Op::AllGather || self.owned[r] as usize == p {
                    *cell = own(r, p);
                }
            }
        }
        buf
    }

    /// What the animation colours by ([`Contributions`]), for up to 64 GPUs (empty beyond):
    /// contribution sets are followed part by part, one rank's buffer at a time, and only their
    /// counts kept (a tree of 64 GPUs in 256 slices would hold 72 MB of sets, round by round).
    pub fn contributions(&self) -> Contributions {
        if self.gpus > 64 {
            return Contributions::default();
        }
        let n = f64::from(self.gpus.max(1));
        let share = |held: u32, parts: usize| f64::from(held) / (n * parts.max(1) as f64);
        let mut has = self.initial(0u64, |r, _| 1u64 << r);
        let mut held: Vec<u32> = has
            .iter()
            .map(|row| row.iter().map(|m| m.count_ones()).sum())
            .collect();
        let parts = self.parts as usize;
        let gpus = self.gpus as usize;
        let level = |held: &[u32]| held.iter().take(gpus).map(|&h| share(h, parts)).collect();
        let mut out = Contributions {
            levels: vec![level(&held)],
            sent: Vec::with_capacity(self.rounds.len()),
        };
        let mut reads = Vec::new();
        for round in &self.rounds {
            let sent = round
                .transfers
                .iter()
                .map(|t| {
                    (t.part..t.part + t.count)
                        .map(|p| has[t.src as usize][p as usize].count_ones())
                        .sum()
                })
                .collect();
            // Or-ing contribution sets cannot fail.
            let _ = apply(round, &mut has, &mut reads, |d, cell, v, reduce| {
                let new = if reduce { *cell | v } else { v };
                held[d] = held[d] - cell.count_ones() + new.count_ones();
                *cell = new;
                Ok(())
            });
            out.sent.push(sent);
            out.levels.push(level(&held));
        }
        out
    }

    /// Runs the schedule on real numbers. `input[rank][part]` is each GPU's buffer (for an
    /// all-gather, only its owned part matters). Returns every rank's final buffer and, per rank
    /// and part, the set of GPUs whose contribution it holds (bit i = GPU i; n ≤ 64 only, else
    /// the sets are empty). A transfer that would count a contribution twice is an error.
    pub fn execute(&self, input: &[Vec<f64>]) -> Result<Execution, String> {
        let track = self.gpus <= 64;
        let mut value = self.initial(0.0, |r, p| input[r][p]);
        let mut has = self.initial(0u64, |r, _| if track { 1u64 << r } else { 0 });
        let (mut sets, mut sums) = (Vec::new(), Vec::new());
        for (ri, round) in self.rounds.iter().enumerate() {
            apply(round, &mut has, &mut sets, |_, cell, v, reduce| {
                if !reduce {
                    *cell = v;
                } else if *cell & v != 0 {
                    return Err(format!(
                        "round {ri}: a rank would add GPU contributions {:#x} twice",
                        *cell & v
                    ));
                } else {
                    *cell |= v;
                }
                Ok(())
            })?;
            apply(round, &mut value, &mut sums, |_, cell, v, reduce| {
                *cell = if reduce { *cell + v } else { v };
                Ok(())
            })?;
        }
        Ok(Execution { value, has })
    }
}

/// Applies one round to per-rank buffers: every transfer reads the buffers as they were before
/// the round (all reads first, into `reads`), then each receiver takes its part through
/// `put(rank, cell, incoming, reduce)`: a reducing one combines, a copying one overwrites.
fn apply<T: Copy>(
    round: &Round,
    buf: &mut [Vec<T>],
    reads: &mut Vec<(usize, usize, T, bool)>,
    mut put: impl FnMut(usize, &mut T, T, bool) -> Result<(), String>,
) -> Result<(), String> {
    reads.clear();
    for t in &round.transfers {
        let (s, d) = (t.src as usize, t.dst as usize);
        let parts = buf[s].iter().enumerate().skip(t.part as usize);
        for (p, &v) in parts.take(t.count as usize) {
            reads.push((d, p, v, t.reduce));
        }
    }
    for &(d, p, v, reduce) in reads.iter() {
        put(d, &mut buf[d][p], v, reduce)?;
    }
    Ok(())
}

/// Contribution counts for the animation ([`Schedule::contributions`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Contributions {
    /// Before the first round and after each: every GPU's share of all contributions, averaged
    /// over its buffer (0…1).
    pub levels: Vec<Vec<f64>>,
    /// Per round and transfer: the contributions the parts it sends hold as the round starts.
    pub sent: Vec<Vec<u32>>,
}

/// The result of [`Schedule::execute`].
#[derive(Clone, Debug, PartialEq)]
pub struct Execution {
    /// Final buffer per rank and part.
    pub value: Vec<Vec<f64>>,
    /// Contributions held per rank and part (bit i = GPU i).
    pub has: Vec<Vec<u64>>,
}

#[derive(Default)]
struct Builder {
    rounds: Vec<(Phase, Vec<Transfer>)>,
}

impl Builder {
    fn round(&mut self, phase: Phase, t: impl IntoIterator<Item = Transfer>) {
        self.rounds.push((phase, t.into_iter().collect()));
    }
}

fn send(src: u32, dst: u32, part: u32, count: u32, reduce: bool) -> Transfer {
    Transfer {
        src,
        dst,
        part,
        count,
        reduce,
    }
}

/// Ring over ranks `members` (in ring order), parts `base + idx·stride…` of `width` each:
/// reduce-scatter rounds (rank j sends part j−t−1 to j+1), then all-gather rounds (part j−t).
fn ring_rounds(
    b: &mut Builder,
    members: &[Vec<u32>],
    part_of: impl Fn(usize, u32) -> u32,
    width: u32,
    reduce_phase: Option<Phase>,
    gather_phase: Option<Phase>,
) {
    // `members` holds several independent rings that run in the same rounds.
    let m = members.first().map_or(0, |r| r.len());
    if m < 2 {
        return;
    }
    let mm = m as i64;
    if let Some(phase) = reduce_phase {
        for t in 0..m - 1 {
            let mut ts = Vec::new();
            for (ri, ring) in members.iter().enumerate() {
                for j in 0..m {
                    let idx = (j as i64 - t as i64 - 1).rem_euclid(mm) as u32;
                    ts.push(send(
                        ring[j],
                        ring[(j + 1) % m],
                        part_of(ri, idx),
                        width,
                        true,
                    ));
                }
            }
            b.round(phase, ts);
        }
    }
    if let Some(phase) = gather_phase {
        for t in 0..m - 1 {
            let mut ts = Vec::new();
            for (ri, ring) in members.iter().enumerate() {
                for j in 0..m {
                    let idx = (j as i64 - t as i64).rem_euclid(mm) as u32;
                    ts.push(send(
                        ring[j],
                        ring[(j + 1) % m],
                        part_of(ri, idx),
                        width,
                        false,
                    ));
                }
            }
            b.round(phase, ts);
        }
    }
}

fn ring(b: &mut Builder, op: Op, n: u32) {
    let members = vec![(0..n).collect::<Vec<_>>()];
    let (rs, ag) = match op {
        Op::AllReduce => (Some(Phase::ReduceScatter), Some(Phase::AllGather)),
        Op::ReduceScatter => (Some(Phase::ReduceScatter), None),
        Op::AllGather => (None, Some(Phase::AllGather)),
    };
    ring_rounds(b, &members, |_, idx| idx, 1, rs, ag);
}

fn rhd(b: &mut Builder, op: Op, n: u32) {
    let p2 = prev_pow2(n);
    let levels = p2.trailing_zeros();
    if n != p2 && op != Op::AllGather {
        b.round(Phase::Fold, (p2..n).map(|i| send(i, i - p2, 0, p2, true)));
    }
    if op != Op::AllGather {
        for j in 0..levels {
            let d = p2 >> (j + 1);
            let len = p2 >> j;
            b.round(
                Phase::ReduceScatter,
                (0..p2).map(|i| {
                    // Rank i's current range is the aligned block of `len` parts containing i.
                    let lo = i / len * len;
                    if i & d == 0 {
                        send(i, i + d, lo + len / 2, len / 2, true)
                    } else {
                        send(i, i - d, lo, len / 2, true)
                    }
                }),
            );
        }
    }
    if op != Op::ReduceScatter {
        for j in 0..levels {
            let d = 1u32 << j;
            b.round(
                Phase::AllGather,
                (0..p2).map(|i| send(i, i ^ d, i / d * d, d, false)),
            );
        }
    }
    if n != p2 && op != Op::ReduceScatter {
        b.round(Phase::Fold, (p2..n).map(|i| send(i - p2, i, 0, p2, false)));
    }
}

/// Double binary tree ([`DoubleTree`]): half A of the buffer goes through tree A (parts
/// 0..P), half B through tree B (parts P..2P). A rank at height h sends slice s up at tick s + h;
/// the root broadcasts slice s from tick s + D, each level one tick later.
fn tree(b: &mut Builder, t: &DoubleTree, slices: u32) {
    let n = t.n;
    if n < 2 {
        return;
    }
    let d = t.height();
    // Heights and depths per tree, by walking from each root.
    let mut height = [vec![0u32; n as usize], vec![0u32; n as usize]];
    let mut depth = [vec![0u32; n as usize], vec![0u32; n as usize]];
    for (ti, tree_b) in [false, true].into_iter().enumerate() {
        let root = (0..n).find(|r| t.parent(tree_b, *r).is_none()).unwrap_or(0);
        let mut order = vec![root];
        let mut i = 0;
        while i < order.len() {
            let r = order[i];
            for c in t.children(tree_b, r) {
                depth[ti][c as usize] = depth[ti][r as usize] + 1;
                order.push(c);
            }
            i += 1;
        }
        for &r in order.iter().rev() {
            height[ti][r as usize] = t
                .children(tree_b, r)
                .map(|c| height[ti][c as usize] + 1)
                .max()
                .unwrap_or(0);
        }
    }
    let ticks = t.ticks(slices) as u32;
    for tick in 0..ticks {
        let mut ts = Vec::new();
        let mut up = false;
        for (ti, tree_b) in [false, true].into_iter().enumerate() {
            let half = ti as u32 * slices;
            for r in 0..n {
                // Reduce: a rank with a parent sends slice tick − h(r) up.
                if let Some(p) = t.parent(tree_b, r) {
                    let h = height[ti][r as usize];
                    if let Some(s) = tick.checked_sub(h).filter(|s| *s < slices) {
                        ts.push(send(r, p, half + s, 1, true));
                        up = true;
                    }
                }
                // Broadcast: a rank sends slice tick − D − depth(r) to its children.
                if let Some(s) = tick
                    .checked_sub(d + depth[ti][r as usize])
                    .filter(|s| *s < slices)
                {
                    for c in t.children(tree_b, r) {
                        ts.push(send(r, c, half + s, 1, false));
                    }
                }
            }
        }
        b.round(if up { Phase::TreeUp } else { Phase::AllGather }, ts);
    }
}

/// Hierarchical: ring reduce-scatter of g shards inside each node, ring all-reduce of each shard
/// across nodes among GPUs with the same local index, ring all-gather inside each node.
fn hier(b: &mut Builder, n: u32, g: u32) {
    let k = n / g;
    let nodes: Vec<Vec<u32>> = (0..k)
        .map(|m| (0..g).map(|j| m * g + j).collect())
        .collect();
    // Shard j = parts j·k .. (j+1)·k.
    ring_rounds(b, &nodes, |_, j| j * k, k, Some(Phase::IntraReduce), None);
    let columns: Vec<Vec<u32>> = (0..g)
        .map(|j| (0..k).map(|m| m * g + j).collect())
        .collect();
    ring_rounds(
        b,
        &columns,
        |j, piece| j as u32 * k + piece,
        1,
        Some(Phase::InterReduce),
        Some(Phase::InterGather),
    );
    ring_rounds(b, &nodes, |_, j| j * k, k, None, Some(Phase::IntraGather));
}

/// The cost-model view of one explicit round: busiest GPU's intra-node bytes, busiest node's
/// network bytes, busiest receiver's reduction bytes.
pub fn group_of(
    ts: &[Transfer],
    per_node: u32,
    switch_rank: Option<u32>,
    part_bytes: f64,
    single_peer: bool,
) -> RoundGroup {
    use std::collections::HashMap;
    let mut gpu_out: HashMap<u32, f64> = HashMap::new();
    let mut node_out: HashMap<u32, f64> = HashMap::new();
    let mut reduce_in: HashMap<u32, f64> = HashMap::new();
    let mut switch = false;
    for t in ts {
        let bytes = f64::from(t.count) * part_bytes;
        let via_switch = Some(t.src) == switch_rank || Some(t.dst) == switch_rank;
        switch |= via_switch;
        if via_switch {
            // The GPU side of a switch transfer: what it pushes or pulls over its NVLinks.
            let gpu = if Some(t.src) == switch_rank {
                t.dst
            } else {
                t.src
            };
            *gpu_out.entry(gpu).or_default() += bytes;
        } else if t.src / per_node == t.dst / per_node {
            *gpu_out.entry(t.src).or_default() += bytes;
        } else {
            *node_out.entry(t.src / per_node).or_default() += bytes;
        }
        if t.reduce && Some(t.dst) != switch_rank {
            *reduce_in.entry(t.dst).or_default() += bytes;
        }
    }
    let max = |m: &HashMap<u32, f64>| m.values().copied().fold(0.0, f64::max);
    // Partner distance in node order, the shorter way round (a ring's last node sends to the
    // first, one place away).
    let real = || {
        ts.iter()
            .filter(|t| Some(t.src) != switch_rank && Some(t.dst) != switch_rank)
    };
    let nodes = real()
        .map(|t| t.src.max(t.dst) / per_node + 1)
        .max()
        .unwrap_or(1);
    let distance = real()
        .map(|t| {
            let d = (t.dst / per_node).abs_diff(t.src / per_node);
            d.min(nodes - d)
        })
        .max()
        .unwrap_or(1)
        .max(1);
    RoundGroup {
        count: 1,
        gpu_bytes: max(&gpu_out),
        node_bytes: max(&node_out),
        reduce_bytes: max(&reduce_in),
        single_peer,
        switch,
        switch_share: 1.0,
        intra_latency: false,
        partners: Partners::Shift(distance),
    }
}
