//! The all-reduce animation as data: where each GPU sits, when each round starts and ends in
//! model time, and what a frame at time t shows. The UI paints the shapes; tests check them.
//!
//! Up to [`MAX_DRAWN_GPUS`] GPUs are drawn one by one from the explicit schedule; larger clusters
//! are drawn in aggregate (nodes as units, traffic as flows) from the cost model's round groups.

use crate::model::collective::{round_groups, round_time, Algo, Cluster, Op, RoundTime};
use crate::model::schedule::{Phase, Schedule};
use crate::model::ModelError;

/// Largest cluster drawn GPU by GPU.
pub const MAX_DRAWN_GPUS: u32 = 16;

/// Largest number of node boxes drawn in the aggregate view (the rest are summarised).
pub const MAX_DRAWN_NODES: u32 = 256;

/// A point in the unit square (x right, y down).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pos {
    /// Horizontal position.
    pub x: f64,
    /// Vertical position.
    pub y: f64,
}

impl Pos {
    /// Linear interpolation.
    pub fn lerp(self, to: Pos, t: f64) -> Pos {
        Pos {
            x: self.x + (to.x - self.x) * t,
            y: self.y + (to.y - self.y) * t,
        }
    }
}

/// A rectangle in the unit square.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Horizontal position.
    pub x: f64,
    /// Vertical position.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

/// Where things sit.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// GPU centres.
    pub gpus: Vec<Pos>,
    /// Node boxes.
    pub nodes: Vec<Rect>,
    /// GPU radius.
    pub radius: f64,
    /// The in-network switch, when the algorithm uses one.
    pub switch: Option<Pos>,
}

/// Equal cells on a grid over the unit square, filled row by row; `snake` turns every other row
/// back (right to left) so that consecutive cells always sit side by side, as ring neighbours
/// should.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// Columns.
    pub cols: u32,
    /// Rows.
    pub rows: u32,
    /// Odd rows run right to left.
    pub snake: bool,
}

impl Grid {
    /// A grid of `cols` columns with room for `count` cells (at least one row and column).
    pub fn new(count: u32, cols: u32, snake: bool) -> Grid {
        let cols = cols.max(1);
        Grid {
            cols,
            rows: count.div_ceil(cols).max(1),
            snake,
        }
    }

    /// Width and height of one cell.
    pub fn cell_size(&self) -> (f64, f64) {
        (1.0 / f64::from(self.cols), 1.0 / f64::from(self.rows))
    }

    /// The cell of the `i`-th item.
    pub fn cell(&self, i: u32) -> Rect {
        let (r, c) = (i / self.cols, i % self.cols);
        let c = if self.snake && r % 2 == 1 {
            self.cols - 1 - c
        } else {
            c
        };
        let (w, h) = self.cell_size();
        Rect {
            x: f64::from(c) * w,
            y: f64::from(r) * h,
            w,
            h,
        }
    }

    /// The centre of the `i`-th cell.
    pub fn centre(&self, i: u32) -> Pos {
        let r = self.cell(i);
        Pos {
            x: r.x + r.w / 2.0,
            y: r.y + r.h / 2.0,
        }
    }
}

/// The aggregate view's node boxes: up to [`MAX_DRAWN_NODES`] on a snaking grid about 1.6 times
/// wider than tall, in ring order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeGrid {
    /// The grid the boxes sit on.
    pub grid: Grid,
    /// Nodes drawn.
    pub shown: u32,
    /// Nodes left out (summarised in words).
    pub hidden: u32,
}

impl NodeGrid {
    /// The grid for `nodes` nodes.
    pub fn new(nodes: u32) -> NodeGrid {
        let shown = nodes.clamp(1, MAX_DRAWN_NODES);
        let cols = (f64::from(shown).sqrt() * 1.6).ceil().max(1.0) as u32;
        NodeGrid {
            grid: Grid::new(shown, cols, true),
            shown,
            hidden: nodes.saturating_sub(shown),
        }
    }

    /// Centre of node `i`.
    pub fn centre(&self, i: u32) -> Pos {
        self.grid.centre(i)
    }

    /// Box of node `i`: 70 % of its cell's width, 60 % of its height, centred.
    pub fn node_box(&self, i: u32) -> Rect {
        let c = self.centre(i);
        let (cw, ch) = self.grid.cell_size();
        let (w, h) = (cw * 0.7, ch * 0.6);
        Rect {
            x: c.x - w / 2.0,
            y: c.y - h / 2.0,
            w,
            h,
        }
    }

    /// The ring's links between drawn nodes: each node to the next, the last back to the first.
    pub fn ring(&self) -> impl Iterator<Item = (Pos, Pos)> + '_ {
        (0..self.shown).map(|i| (self.centre(i), self.centre((i + 1) % self.shown)))
    }
}

/// Lays `n` GPUs out in nodes of `per_node`, nodes on a grid.
pub fn layout(n: u32, per_node: u32, with_switch: bool) -> Layout {
    let g = per_node.clamp(1, n.max(1));
    let k = n.div_ceil(g).max(1);
    let grid = Grid::new(k, f64::from(k).sqrt().ceil() as u32, false);
    let (cw, ch) = grid.cell_size();
    let pad = 0.06_f64.min(cw * 0.1);
    let mut nodes = Vec::new();
    let mut gpus = Vec::new();
    // GPUs inside a node: a row, or two rows when there are many; the rows snake (left to right,
    // then back) so ring neighbours sit side by side.
    let per_row = if g > 4 { g.div_ceil(2) } else { g };
    let inside = Grid::new(g, per_row, true);
    for m in 0..k {
        let cell = grid.cell(m);
        let rect = Rect {
            x: cell.x + pad,
            y: cell.y + pad,
            w: cw - 2.0 * pad,
            h: ch - 2.0 * pad,
        };
        for j in 0..g.min(n - m * g) {
            let at = inside.centre(j);
            gpus.push(Pos {
                x: rect.x + rect.w * at.x,
                y: rect.y + rect.h * at.y,
            });
        }
        nodes.push(rect);
    }
    let radius = (0.35 * (cw - 2.0 * pad) / f64::from(inside.cols))
        .min(0.35 * (ch - 2.0 * pad) / f64::from(inside.rows))
        .min(0.08);
    let switch = with_switch.then_some(Pos { x: 0.5, y: 0.5 });
    Layout {
        gpus,
        nodes,
        radius,
        switch,
    }
}

/// Model time of each round: `starts[r]` is when round r begins (after the launch latency),
/// `ends[r]` when it ends.
#[derive(Clone, Debug, PartialEq)]
pub struct Playback {
    /// When each round starts, seconds from the collective's start.
    pub starts: Vec<f64>,
    /// When each round ends.
    pub ends: Vec<f64>,
    /// Launch latency before round 0.
    pub base: f64,
    /// Total modelled time.
    pub total: f64,
}

impl Playback {
    /// Round boundaries from round durations.
    pub fn new(base: f64, durations: impl IntoIterator<Item = f64>) -> Playback {
        let mut t = base;
        let (mut starts, mut ends) = (Vec::new(), Vec::new());
        for d in durations {
            starts.push(t);
            t += d;
            ends.push(t);
        }
        Playback {
            starts,
            ends,
            base,
            total: t,
        }
    }

    /// Rounds.
    pub fn rounds(&self) -> usize {
        self.starts.len()
    }

    /// The round running at model time `t` and how far it is (0…1); before round 0 it is round
    /// 0 at progress 0, after the end the last round at 1.
    pub fn at(&self, t: f64) -> (usize, f64) {
        if self.starts.is_empty() {
            return (0, 1.0);
        }
        let i = self
            .ends
            .partition_point(|e| *e <= t)
            .min(self.rounds() - 1);
        let (s, e) = (self.starts[i], self.ends[i]);
        let p = if e > s {
            ((t - s) / (e - s)).clamp(0.0, 1.0)
        } else {
            1.0
        };
        (i, p)
    }

    /// Start of the round after the one at `t` (or the end).
    pub fn next_boundary(&self, t: f64) -> f64 {
        self.ends
            .iter()
            .copied()
            .find(|e| *e > t + 1e-15)
            .unwrap_or(self.total)
    }

    /// Start of the round before the one at `t` (or the start).
    pub fn prev_boundary(&self, t: f64) -> f64 {
        self.ends
            .iter()
            .rev()
            .copied()
            .find(|e| *e < t - 1e-15)
            .unwrap_or(0.0)
    }
}

/// One chunk in flight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chunk {
    /// Where it starts.
    pub from: Pos,
    /// Where it ends.
    pub to: Pos,
    /// Where it is now.
    pub at: Pos,
    /// Share of all GPUs' contributions it carries (0…1): its colour.
    pub level: f64,
    /// The receiver adds it (true) or copies it.
    pub reduce: bool,
}

/// What one frame of the GPU-by-GPU view shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// Current round (0-based) and rounds in all.
    pub round: usize,
    /// Rounds.
    pub rounds: usize,
    /// Progress through the round.
    pub progress: f64,
    /// Per GPU: share of the final sum it holds (0…1), averaged over its buffer.
    pub gpu_level: Vec<f64>,
    /// Chunks travelling.
    pub chunks: Vec<Chunk>,
    /// Model time.
    pub time: f64,
}

/// A schedule prepared for playback: its rounds' timing and contributions.
#[derive(Clone, Debug, PartialEq)]
pub struct Animation {
    /// The executable schedule.
    pub schedule: Schedule,
    /// When each round plays.
    pub playback: Playback,
    states: Vec<Vec<Vec<u64>>>,
    /// Where each GPU sits.
    pub layout: Layout,
}

impl Animation {
    /// Prepares a schedule of at most [`MAX_DRAWN_GPUS`] GPUs.
    pub fn new(c: &Cluster, op: Op, algo: Algo, bytes: f64) -> Result<Animation, ModelError> {
        let schedule = Schedule::build(c, op, algo, bytes)?;
        let playback = Playback::new(
            schedule.base_latency,
            schedule.rounds.iter().map(|r| r.time.total()),
        );
        let states = schedule.states();
        let layout = layout(
            schedule.gpus,
            schedule.per_node,
            schedule.switch_rank.is_some(),
        );
        Ok(Animation {
            schedule,
            playback,
            states,
            layout,
        })
    }

    fn pos(&self, rank: u32) -> Pos {
        self.layout
            .gpus
            .get(rank as usize)
            .copied()
            .or(self.layout.switch)
            .unwrap_or(Pos { x: 0.5, y: 0.5 })
    }

    /// Share of all contributions in a rank's buffer after `done` rounds.
    fn level(&self, done: usize, rank: usize) -> f64 {
        let n = f64::from(self.schedule.gpus.max(1));
        self.states
            .get(done)
            .and_then(|s| s.get(rank))
            .map(|parts| {
                parts.iter().map(|m| f64::from(m.count_ones())).sum::<f64>()
                    / (n * parts.len().max(1) as f64)
            })
            .unwrap_or(0.0)
    }

    /// The frame at model time `t`.
    pub fn frame(&self, t: f64) -> Frame {
        let (round, progress) = self.playback.at(t);
        let n = self.schedule.gpus;
        let started = t >= self.playback.starts.first().copied().unwrap_or(0.0);
        let finished = t >= self.playback.total;
        let done = if finished {
            self.playback.rounds()
        } else {
            round
        };
        let gpu_level = (0..n as usize).map(|r| self.level(done, r)).collect();
        let mut chunks = Vec::new();
        if started && !finished {
            if let (Some(r), Some(state)) =
                (self.schedule.rounds.get(round), self.states.get(round))
            {
                for tr in &r.transfers {
                    let (from, to) = (self.pos(tr.src), self.pos(tr.dst));
                    let held: u32 = (tr.part..tr.part + tr.count)
                        .map(|p| state[tr.src as usize][p as usize].count_ones())
                        .sum();
                    chunks.push(Chunk {
                        from,
                        to,
                        at: from.lerp(to, progress),
                        level: f64::from(held) / f64::from(n * tr.count),
                        reduce: tr.reduce,
                    });
                }
            }
        }
        Frame {
            round,
            rounds: self.playback.rounds(),
            progress,
            gpu_level,
            chunks,
            time: t,
        }
    }

    /// The caption of round `i`, in plain words.
    pub fn caption(&self, i: usize) -> String {
        caption(&self.schedule, i)
    }
}

fn fraction(n: u32) -> String {
    match n {
        1 => "all".to_string(),
        2 => "one half".to_string(),
        3 => "one third".to_string(),
        4 => "one quarter".to_string(),
        5 => "one fifth".to_string(),
        6 => "one sixth".to_string(),
        7 => "one seventh".to_string(),
        8 => "one eighth".to_string(),
        _ => format!("1/{n}"),
    }
}

/// "Round 3 of 14: …" for one round of a schedule.
pub fn caption(s: &Schedule, i: usize) -> String {
    let total = s.rounds.len();
    if total == 0 {
        return "One GPU: nothing to exchange, only a local copy.".to_string();
    }
    let i = i.min(total - 1);
    let head = format!("Round {} of {}: ", i + 1, total);
    let r = &s.rounds[i];
    let piece = fraction(s.parts);
    let body = match (s.algo, r.phase) {
        (Algo::Ring, Phase::ReduceScatter) => format!(
            "every GPU passes {piece} of its gradient to its right-hand neighbour, which adds it to its own."
        ),
        (Algo::Ring, Phase::AllGather) => format!(
            "every GPU passes a finished {piece} on to its neighbour, which copies it."
        ),
        (_, Phase::Fold) if r.transfers.first().is_some_and(|t| t.reduce) => {
            "the GPUs beyond the largest power of two hand their whole gradient to a partner, which adds it.".to_string()
        }
        (_, Phase::Fold) => "the partners hand the finished sum back to the extra GPUs.".to_string(),
        (Algo::Rhd, Phase::ReduceScatter) => {
            let d = r.transfers.first().map(|t| t.src.abs_diff(t.dst)).unwrap_or(1);
            format!("GPUs {d} apart swap halves of what they hold; each adds the half it keeps.")
        }
        (Algo::Rhd, Phase::AllGather) => {
            let d = r.transfers.first().map(|t| t.src.abs_diff(t.dst)).unwrap_or(1);
            format!("GPUs {d} apart swap their finished pieces; each now holds twice as much of the sum.")
        }
        (_, Phase::TreeUp) => "partial sums climb both trees towards their roots while finished slices flow back down.".to_string(),
        (Algo::Tree, _) => "finished slices flow down both trees to every GPU.".to_string(),
        (_, Phase::IntraReduce) => "inside each node, GPUs add up their shares over the fast links.".to_string(),
        (_, Phase::InterReduce) => "across nodes, GPUs with the same position add up their node's shares over the network.".to_string(),
        (_, Phase::InterGather) => "across nodes, finished shares are copied over the network.".to_string(),
        (_, Phase::IntraGather) => "inside each node, finished shares are copied to every GPU.".to_string(),
        (_, Phase::SwitchReduce) => "every GPU sends its gradient into the switch, which adds them up itself.".to_string(),
        (_, Phase::SwitchMulticast) => "the switch sends the finished sum to every GPU at once.".to_string(),
        (_, Phase::ReduceScatter) => "partial sums travel and are added.".to_string(),
        (_, Phase::AllGather) => "finished sums are copied around.".to_string(),
    };
    head + &body
}

/// A run of identical rounds in the aggregate view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    /// First round index.
    pub first: u64,
    /// Rounds in the run.
    pub count: u64,
    /// Model time at its start.
    pub start: f64,
    /// Each round's cost.
    pub each: RoundTime,
    /// The traffic crosses nodes.
    pub inter: bool,
    /// The traffic is reduced (first half) or copied.
    pub reduce: bool,
}

/// The aggregate view's timing, from the cost model's round groups (cheap at any size).
#[derive(Clone, Debug, PartialEq)]
pub struct Aggregate {
    /// The phases, in order.
    pub segments: Vec<Segment>,
    /// Total time, seconds.
    pub total: f64,
    /// Rounds.
    pub rounds: u64,
    /// Nodes.
    pub nodes: u32,
    /// GPUs per node.
    pub per_node: u32,
    /// The algorithm.
    pub algo: Algo,
}

/// What one aggregate frame shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AggregateFrame {
    /// Current round (0-based) and rounds in all.
    pub round: u64,
    /// Rounds.
    pub rounds: u64,
    /// Progress within the round.
    pub progress: f64,
    /// The current traffic crosses nodes.
    pub inter: bool,
    /// Whether the phase adds up data.
    pub reduce: bool,
    /// Share of the whole collective done (by rounds).
    pub done: f64,
}

impl Aggregate {
    /// Timing of the collective the cost model picks.
    pub fn new(c: &Cluster, op: Op, algo: Algo, bytes: f64) -> Result<Aggregate, ModelError> {
        let chosen = crate::model::collective::cost(c, op, algo, bytes)?;
        let groups = round_groups(c, op, chosen.algorithm, bytes, chosen.slices)?;
        let mut t = chosen.protocol.launch_latency_us(chosen.algorithm) * 1e-6;
        let mut first = 0;
        let mut segments = Vec::new();
        for g in groups {
            let each = round_time(c, chosen.protocol, &g);
            segments.push(Segment {
                first,
                count: g.count,
                start: t,
                each,
                inter: g.node_bytes > 0.0,
                reduce: g.reduce_bytes > 0.0,
            });
            t += each.total() * g.count as f64;
            first += g.count;
        }
        Ok(Aggregate {
            segments,
            total: chosen.time_s,
            rounds: first,
            nodes: c.nodes(),
            per_node: c.per_node,
            algo: chosen.algorithm,
        })
    }

    /// The frame at model time `t`.
    pub fn frame(&self, t: f64) -> AggregateFrame {
        let last = AggregateFrame {
            round: self.rounds.saturating_sub(1),
            rounds: self.rounds,
            progress: 1.0,
            inter: false,
            reduce: false,
            done: 1.0,
        };
        for s in &self.segments {
            let each = s.each.total().max(1e-15);
            let end = s.start + each * s.count as f64;
            if t < end {
                let into = ((t - s.start) / each).max(0.0);
                let k = (into.floor() as u64).min(s.count - 1);
                let round = s.first + k;
                return AggregateFrame {
                    round,
                    rounds: self.rounds,
                    progress: (into - k as f64).clamp(0.0, 1.0),
                    inter: s.inter,
                    reduce: s.reduce,
                    done: round as f64 / self.rounds.max(1) as f64,
                };
            }
        }
        last
    }

    /// Round boundary after `t`.
    pub fn next_boundary(&self, t: f64) -> f64 {
        let f = self.frame(t);
        self.round_start(f.round + 1).unwrap_or(self.total)
    }

    /// Round boundary before `t`.
    pub fn prev_boundary(&self, t: f64) -> f64 {
        let f = self.frame(t);
        let start = self.round_start(f.round).unwrap_or(0.0);
        if t - start > 1e-15 {
            start
        } else {
            self.round_start(f.round.saturating_sub(1)).unwrap_or(0.0)
        }
    }

    fn round_start(&self, round: u64) -> Option<f64> {
        self.segments
            .iter()
            .find(|s| round >= s.first && round < s.first + s.count)
            .map(|s| s.start + s.each.total() * (round - s.first) as f64)
    }

    /// Caption of the round at `t`.
    pub fn caption(&self, t: f64) -> String {
        let f = self.frame(t);
        let what = match (f.inter, f.reduce) {
            (true, true) => "partial sums cross the network between nodes and are added",
            (true, false) => "finished sums cross the network between nodes",
            (false, true) => "partial sums move inside each node over its fast links and are added",
            (false, false) => "finished sums are copied inside each node",
        };
        format!(
            "Round {} of {}: {} ({} nodes of {} GPUs, shown as units).",
            f.round + 1,
            f.rounds,
            what,
            self.nodes,
            self.per_node
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::scenario::Scenario;

    fn cluster(q: &str) -> Cluster {
        Scenario::parse(q).unwrap().setup().unwrap().cluster()
    }

    #[test]
    fn a_rounds_screen_time_is_proportional_to_its_model_time() {
        let c = cluster("gpus=8&gpu=h100&intra=nvlink4");
        let a = Animation::new(&c, Op::AllReduce, Algo::Ring, 1073741824.0).unwrap();
        for (i, r) in a.schedule.rounds.iter().enumerate() {
            let d = a.playback.ends[i] - a.playback.starts[i];
            assert!((d - r.time.total()).abs() < 1e-15);
        }
        assert!((a.playback.total - a.schedule.total_time()).abs() < 1e-12);
        // Half-way through round 3 the chunks are half-way along their links.
        let mid = (a.playback.starts[2] + a.playback.ends[2]) / 2.0;
        let f = a.frame(mid);
        assert_eq!(f.round, 2);
        assert!((f.progress - 0.5).abs() < 1e-9);
        assert_eq!(f.chunks.len(), 8);
        for ch in &f.chunks {
            let want = ch.from.lerp(ch.to, 0.5);
            assert!((ch.at.x - want.x).abs() < 1e-12 && (ch.at.y - want.y).abs() < 1e-12);
        }
    }

    #[test]
    fn colours_follow_the_partial_sums() {
        let c = cluster("gpus=4&gpu=h100&intra=nvlink4");
        let a = Animation::new(&c, Op::AllReduce, Algo::Ring, 1048576.0).unwrap();
        // Before anything moves each GPU holds only its own contribution: 1/4 of each part.
        let f0 = a.frame(0.0);
        assert!(f0.gpu_level.iter().all(|l| (l - 0.25).abs() < 1e-12));
        // In round 1 each chunk carries one GPU's contribution; in round 3, three.
        let r = |i: usize| a.frame((a.playback.starts[i] + a.playback.ends[i]) / 2.0);
        assert!(r(0)
            .chunks
            .iter()
            .all(|c| (c.level - 0.25).abs() < 1e-12 && c.reduce));
        assert!(r(2).chunks.iter().all(|c| (c.level - 0.75).abs() < 1e-12));
        // The all-gather half carries finished sums.
        assert!(r(3)
            .chunks
            .iter()
            .all(|c| (c.level - 1.0).abs() < 1e-12 && !c.reduce));
        // At the end every GPU holds the whole sum.
        let end = a.frame(a.playback.total + 1.0);
        assert!(end.gpu_level.iter().all(|l| (l - 1.0).abs() < 1e-12));
        assert!(end.chunks.is_empty());
    }

    #[test]
    fn slower_links_stretch_the_rounds_by_the_model_ratio() {
        let fast = cluster("gpus=16&per_node=8&gpu=h100&inter=ib-ndr");
        let slow = cluster("gpus=16&per_node=8&gpu=h100&inter=tcp100&nics=1");
        let bytes = 1073741824.0;
        let a = Animation::new(&fast, Op::AllReduce, Algo::Ring, bytes).unwrap();
        let b = Animation::new(&slow, Op::AllReduce, Algo::Ring, bytes).unwrap();
        let ratio = b.playback.total / a.playback.total;
        let model = crate::model::collective::cost(&slow, Op::AllReduce, Algo::Ring, bytes)
            .unwrap()
            .time_s
            / crate::model::collective::cost(&fast, Op::AllReduce, Algo::Ring, bytes)
                .unwrap()
                .time_s;
        assert!((ratio - model).abs() < 1e-9 * model);
        assert!(
            ratio > 5.0,
            "100 GbE TCP is far slower than 8× NDR: {ratio}"
        );
    }

    #[test]
    fn small_messages_are_latency_and_large_ones_bandwidth() {
        let c = cluster("gpus=8&gpu=a100");
        let small = Animation::new(&c, Op::AllReduce, Algo::Ring, 4096.0).unwrap();
        let large = Animation::new(&c, Op::AllReduce, Algo::Ring, 1073741824.0).unwrap();
        let lat = |a: &Animation| {
            a.schedule
                .rounds
                .iter()
                .map(|r| r.time.latency)
                .sum::<f64>()
                / a.playback.total
        };
        assert!(lat(&small) > 0.5, "{}", lat(&small));
        assert!(lat(&large) < 0.05, "{}", lat(&large));
    }

    #[test]
    fn captions_say_what_happens() {
        let c = cluster("gpus=8&gpu=h100");
        let a = Animation::new(&c, Op::AllReduce, Algo::Ring, 1e9).unwrap();
        assert_eq!(
            a.caption(2),
            "Round 3 of 14: every GPU passes one eighth of its gradient to its right-hand neighbour, which adds it to its own."
        );
        assert!(a.caption(10).contains("copies"));
        let t = Animation::new(&c, Op::AllReduce, Algo::Nvls, 1e9).unwrap();
        assert!(t.caption(0).contains("switch"));
    }

    #[test]
    fn the_aggregate_view_times_1024_gpus_from_round_groups() {
        let c = cluster("gpus=1024&gpu=h100&inter=ib-ndr");
        let agg = Aggregate::new(&c, Op::AllReduce, Algo::Ring, 1073741824.0).unwrap();
        assert_eq!(agg.rounds, 2046);
        let cost =
            crate::model::collective::cost(&c, Op::AllReduce, Algo::Ring, 1073741824.0).unwrap();
        assert!((agg.total - cost.time_s).abs() < 1e-12);
        let f = agg.frame(agg.total / 2.0);
        assert!(f.round > 900 && f.round < 1100, "{}", f.round);
        assert!(f.inter);
        assert!(agg.caption(0.0).starts_with("Round 1 of 2046"));
        let b = agg.next_boundary(0.0);
        assert_eq!(agg.frame(b).round, 1);
        assert_eq!(agg.frame(agg.prev_boundary(b)).round, 0);
    }

    /// Two cells touch along an edge: one step apart in exactly one direction.
    fn side_by_side(g: &Grid, a: u32, b: u32) -> bool {
        let (w, h) = g.cell_size();
        let (p, q) = (g.centre(a), g.centre(b));
        let (dx, dy) = ((p.x - q.x).abs(), (p.y - q.y).abs());
        ((dx - w).abs() < 1e-12 && dy < 1e-12) || ((dy - h).abs() < 1e-12 && dx < 1e-12)
    }

    #[test]
    fn a_snaking_grid_keeps_ring_neighbours_side_by_side() {
        let g = Grid::new(23, 5, true);
        assert_eq!((g.cols, g.rows), (5, 5));
        for i in 0..22 {
            assert!(side_by_side(&g, i, i + 1), "cells {i} and {}", i + 1);
        }
        // Without the snake a row's end and the next row's start are a whole row apart.
        let flat = Grid::new(23, 5, false);
        assert!(!side_by_side(&flat, 4, 5));
        // Every cell lies in the unit square.
        for i in 0..23 {
            let r = g.cell(i);
            assert!(
                r.x >= 0.0 && r.y >= 0.0 && r.x + r.w <= 1.0 + 1e-12 && r.y + r.h <= 1.0 + 1e-12
            );
        }
    }

    #[test]
    fn the_aggregate_view_draws_at_most_256_nodes_and_counts_the_rest() {
        // 1,024 GPUs in nodes of 8: all 128 nodes drawn, wider than tall.
        let g = NodeGrid::new(128);
        assert_eq!((g.shown, g.hidden), (128, 0));
        assert!(g.grid.cols > g.grid.rows);
        assert!(g.grid.cols * g.grid.rows >= 128);
        // 65,536 GPUs: 8,192 nodes, 256 drawn.
        let big = NodeGrid::new(8192);
        assert_eq!(
            (big.shown, big.hidden),
            (MAX_DRAWN_NODES, 8192 - MAX_DRAWN_NODES)
        );
        // One node still gets a box.
        assert_eq!(NodeGrid::new(1).shown, 1);
        assert_eq!(NodeGrid::new(0).shown, 1);
    }

    #[test]
    fn node_boxes_do_not_overlap_and_the_ring_closes() {
        let g = NodeGrid::new(12);
        let boxes: Vec<Rect> = (0..g.shown).map(|i| g.node_box(i)).collect();
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.x > 0.0 && a.y > 0.0 && a.x + a.w < 1.0 && a.y + a.h < 1.0);
            for b in &boxes[i + 1..] {
                let apart =
                    a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
                assert!(apart, "{a:?} overlaps {b:?}");
            }
        }
        let links: Vec<(Pos, Pos)> = g.ring().collect();
        assert_eq!(links.len(), 12);
        assert_eq!(
            links[11].1,
            g.centre(0),
            "the last node sends back to the first"
        );
        // Neighbours on the ring (but the closing link) sit side by side.
        for i in 0..11 {
            assert!(side_by_side(&g.grid, i, i + 1));
        }
    }

    #[test]
    fn gpus_inside_a_node_snake_in_two_rows() {
        // Eight GPUs: two rows of four; GPU 4 sits under GPU 3, not under GPU 0.
        let l = layout(8, 8, false);
        let (a, b) = (l.gpus[3], l.gpus[4]);
        assert!((a.x - b.x).abs() < 1e-12 && b.y > a.y);
        assert!(l.gpus[0].x < l.gpus[3].x);
        assert!(l.radius > 0.0 && l.radius <= 0.08);
        assert_eq!(layout(16, 8, true).switch, Some(Pos { x: 0.5, y: 0.5 }));
    }

    #[test]
    fn layout_groups_gpus_by_node() {
        let l = layout(16, 4, false);
        assert_eq!(l.nodes.len(), 4);
        assert_eq!(l.gpus.len(), 16);
        for (i, p) in l.gpus.iter().enumerate() {
            let r = l.nodes[i / 4];
            assert!(p.x > r.x && p.x < r.x + r.w && p.y > r.y && p.y < r.y + r.h);
        }
    }
}
