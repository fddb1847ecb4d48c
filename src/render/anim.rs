//! The all-reduce animation as data: where each GPU and server sits, when each round starts and
//! ends in model time, and what a frame at time t shows. The UI paints the shapes; tests check
//! them.
//!
//! Up to [`MAX_DRAWN_GPUS`] GPUs, and clusters of up to [`MAX_SERVER_VIEW_GPUS`] GPUs in at most
//! [`MAX_SERVER_VIEW_SERVERS`] servers, are drawn GPU by GPU from the explicit schedule: each
//! server is a labelled box, and a chunk whose sender and receiver sit in different servers
//! leaves its box through the server's network port, crosses the network switch and enters the
//! other box (see [`route`]). Larger clusters are drawn in aggregate (nodes as units, traffic as
//! packets between neighbours) from the cost model's round groups.

use crate::model::collective::{
    launch_seconds, round_groups, round_time, Algo, Cluster, Op, RoundTime,
};
use crate::model::schedule::{Contributions, Phase, Schedule};
use crate::model::units::human_bytes;
use crate::model::ModelError;

/// Largest cluster always drawn GPU by GPU.
pub const MAX_DRAWN_GPUS: u32 = 16;

/// Largest cluster of several servers still drawn GPU by GPU (the colours need the schedule's
/// contribution counts, which [`Schedule::contributions`] follows up to 64 GPUs).
pub const MAX_SERVER_VIEW_GPUS: u32 = 64;

/// Most servers drawn as boxes with their GPUs (two rows of four on a phone stay legible).
pub const MAX_SERVER_VIEW_SERVERS: u32 = 8;

/// Largest number of node boxes drawn in the aggregate view (the rest are summarised).
pub const MAX_DRAWN_NODES: u32 = 256;

/// Size (CSS pixels) layouts are made for when the canvas's is not known yet.
pub const DEFAULT_SIZE: (f64, f64) = (640.0, 294.0);

/// Whether a cluster of `gpus` in servers of `per_node` is drawn GPU by GPU (else nodes as
/// units).
pub fn drawn_gpu_by_gpu(gpus: u32, per_node: u32) -> bool {
    let servers = gpus.div_ceil(per_node.clamp(1, gpus.max(1)));
    gpus <= MAX_DRAWN_GPUS || (gpus <= MAX_SERVER_VIEW_GPUS && servers <= MAX_SERVER_VIEW_SERVERS)
}

/// "Server 3" for the 0-based server index 2.
pub fn server_label(i: usize) -> String {
    format!("Server {}", i + 1)
}

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

impl Rect {
    /// Whether `p` lies inside (edges included).
    pub fn contains(&self, p: Pos) -> bool {
        p.x >= self.x && p.x <= self.x + self.w && p.y >= self.y && p.y <= self.y + self.h
    }
}

/// Where things sit, in the unit square of a drawing area of [`Layout::size`] CSS pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// GPU centres.
    pub gpus: Vec<Pos>,
    /// Server (node) boxes.
    pub nodes: Vec<Rect>,
    /// Per server: the strip of its box its label sits in, on the side away from the network
    /// (the top, or the bottom for the row under the switch), clear of arriving packets.
    pub labels: Vec<Rect>,
    /// GPU radius, as a share of the drawing area's smaller side.
    pub radius: f64,
    /// The in-server switch of in-switch reduction (NVLS), when the algorithm uses one.
    pub switch: Option<Pos>,
    /// The network between the servers, when there are several.
    pub network: Option<NetworkLayout>,
    /// Width and height of the drawing area the layout was made for, CSS pixels.
    pub size: (f64, f64),
}

impl Layout {
    /// The servers' labels, "Server 1", "Server 2", … (one per box).
    pub fn server_labels(&self) -> Vec<String> {
        (0..self.nodes.len()).map(server_label).collect()
    }

    /// GPU radius in CSS pixels.
    pub fn radius_px(&self) -> f64 {
        self.radius * self.size.0.min(self.size.1)
    }

    /// The index of the server box containing `p`, if any.
    pub fn server_at(&self, p: Pos) -> Option<usize> {
        self.nodes.iter().position(|r| r.contains(p))
    }
}

/// The network between servers: one switch, and one link from each server's port to it.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkLayout {
    /// The network switch, between the servers.
    pub switch: Rect,
    /// Per server: where its network link leaves the server box (its NIC).
    pub ports: Vec<Pos>,
    /// Per server: where that link enters the switch.
    pub taps: Vec<Pos>,
    /// The switch is narrow (between two servers side by side): its name goes above it.
    pub label_above: bool,
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

/// Lays `n` GPUs out in servers of `per_node` for the [`DEFAULT_SIZE`] drawing area.
pub fn layout(n: u32, per_node: u32, with_switch: bool) -> Layout {
    layout_in(n, per_node, with_switch, DEFAULT_SIZE)
}

/// Lays `n` GPUs out in servers of `per_node` for a drawing area of `size` CSS pixels.
///
/// One server fills the area. Two servers on a wide area sit side by side with the network
/// switch between them; otherwise the servers form two rows, the network switch a bar between
/// the rows, and the bottom row runs right to left so that a ring over the servers goes round.
/// Each server's link leaves the edge of its box that faces the switch.
pub fn layout_in(n: u32, per_node: u32, with_switch: bool, size: (f64, f64)) -> Layout {
    let g = per_node.clamp(1, n.max(1));
    let k = n.div_ceil(g).max(1) as usize;
    let (w, h) = (size.0.max(10.0), size.1.max(10.0));
    // A server's label strip: 18 px of its box's top.
    let label = (18.0 / h).min(0.12);
    let (pad_x, pad_y) = ((6.0 / w).min(0.03), (6.0 / h).min(0.03));
    let mut nodes = Vec::with_capacity(k);
    // Servers whose label goes at the bottom of their box.
    let mut below = vec![false; k];
    let mut network = None;
    if k == 1 {
        nodes.push(Rect {
            x: pad_x,
            y: pad_y,
            w: 1.0 - 2.0 * pad_x,
            h: 1.0 - 2.0 * pad_y,
        });
    } else if k == 2 && w / h >= 1.3 {
        // Side by side, the switch in a gap a quarter of the width.
        let gap = 0.26;
        let bw = (1.0 - gap) / 2.0 - pad_x;
        for x in [pad_x, 1.0 - pad_x - bw] {
            nodes.push(Rect {
                x,
                y: pad_y,
                w: bw,
                h: 1.0 - 2.0 * pad_y,
            });
        }
        let (sw, sh) = (gap * 0.7, (0.3f64).max(40.0 / h).min(0.5));
        let switch = Rect {
            x: 0.5 - sw / 2.0,
            y: 0.5 + label / 2.0 - sh / 2.0,
            w: sw,
            h: sh,
        };
        let y = switch.y + sh / 2.0;
        network = Some(NetworkLayout {
            switch,
            ports: vec![
                Pos {
                    x: nodes[0].x + nodes[0].w,
                    y,
                },
                Pos { x: nodes[1].x, y },
            ],
            taps: vec![
                Pos { x: switch.x, y },
                Pos {
                    x: switch.x + sw,
                    y,
                },
            ],
            label_above: true,
        });
    } else {
        // Two rows with the switch between them; the bottom row snakes back.
        let cols = k.div_ceil(2);
        let band = (0.22f64).max(46.0 / h).min(0.34);
        let row_h = (1.0 - band) / 2.0 - pad_y;
        let col_w = 1.0 / cols as f64;
        let (mut ports, mut top) = (Vec::with_capacity(k), Vec::with_capacity(k));
        for (m, under) in below.iter_mut().enumerate() {
            let (row, c) = (m / cols, m % cols);
            let c = if row == 1 { cols - 1 - c } else { c };
            let r = Rect {
                x: c as f64 * col_w + pad_x,
                y: if row == 0 { pad_y } else { 1.0 - pad_y - row_h },
                w: col_w - 2.0 * pad_x,
                h: row_h,
            };
            ports.push(Pos {
                x: r.x + r.w / 2.0,
                y: if row == 0 { r.y + r.h } else { r.y },
            });
            top.push(row == 0);
            *under = row == 1;
            nodes.push(r);
        }
        let sh = band * 0.42;
        let (x0, x1) = ports
            .iter()
            .fold((1.0f64, 0.0f64), |(a, b), p| (a.min(p.x), b.max(p.x)));
        let switch = Rect {
            x: (x0 - col_w * 0.25).max(pad_x),
            y: 0.5 - sh / 2.0,
            w: (x1 - x0 + col_w * 0.5).min(1.0 - 2.0 * pad_x),
            h: sh,
        };
        let taps = ports
            .iter()
            .zip(&top)
            .map(|(p, t)| Pos {
                x: p.x,
                y: if *t { switch.y } else { switch.y + sh },
            })
            .collect();
        network = Some(NetworkLayout {
            switch,
            ports,
            taps,
            label_above: false,
        });
    }
    // GPUs inside a server, under its label: the rows and columns that give the largest
    // circles; the rows snake (left to right, then back) so ring neighbours sit side by side.
    let strip = |r: &Rect, below: bool| Rect {
        x: r.x,
        y: if below { r.y + r.h - label } else { r.y },
        w: r.w,
        h: label,
    };
    let labels: Vec<Rect> = nodes
        .iter()
        .zip(&below)
        .map(|(r, b)| strip(r, *b))
        .collect();
    let inner = |r: &Rect, below: bool| Rect {
        x: r.x,
        y: if below { r.y } else { r.y + label },
        w: r.w,
        h: r.h - label,
    };
    let first = inner(&nodes[0], false);
    let (iw, ih) = (first.w * w, first.h * h);
    let fit = |cols: u32| {
        let rows = g.div_ceil(cols);
        (iw / f64::from(cols)).min(ih / f64::from(rows))
    };
    let per_row = (1..=g).fold(1, |best, c| if fit(c) > fit(best) { c } else { best });
    let inside = Grid::new(g, per_row, true);
    let mut gpus = Vec::with_capacity(n as usize);
    for (m, rect) in nodes.iter().enumerate() {
        let box_ = inner(rect, below[m]);
        let m = m as u32;
        for j in 0..g.min(n - m * g) {
            let at = inside.centre(j);
            gpus.push(Pos {
                x: box_.x + box_.w * at.x,
                y: box_.y + box_.h * at.y,
            });
        }
    }
    let radius = (0.35 * fit(per_row) / w.min(h)).min(0.08);
    let switch = with_switch.then(|| {
        let b = inner(&nodes[0], false);
        Pos {
            x: b.x + b.w / 2.0,
            y: b.y + b.h / 2.0,
        }
    });
    Layout {
        gpus,
        nodes,
        labels,
        radius,
        switch,
        network,
        size: (w, h),
    }
}

/// Length of the step from `a` to `b` in pixels of an area of `size`.
fn px_len(a: Pos, b: Pos, size: (f64, f64)) -> f64 {
    ((b.x - a.x) * size.0).hypot((b.y - a.y) * size.1)
}

/// The point a share `t` (0…1) of the way along a route, by length in pixels, and the unit
/// direction (in pixels) of the step it lies on.
pub fn along(route: &[Pos], size: (f64, f64), t: f64) -> (Pos, (f64, f64)) {
    let (Some(first), Some(last)) = (route.first(), route.last()) else {
        return (Pos { x: 0.5, y: 0.5 }, (1.0, 0.0));
    };
    let total: f64 = route.windows(2).map(|s| px_len(s[0], s[1], size)).sum();
    let dir = |a: Pos, b: Pos| {
        let l = px_len(a, b, size).max(1e-12);
        ((b.x - a.x) * size.0 / l, (b.y - a.y) * size.1 / l)
    };
    if total <= 1e-12 {
        return (*first, (1.0, 0.0));
    }
    let mut left = t.clamp(0.0, 1.0) * total;
    for s in route.windows(2) {
        let l = px_len(s[0], s[1], size);
        if left <= l && l > 1e-12 {
            return (s[0].lerp(s[1], left / l), dir(s[0], s[1]));
        }
        left -= l;
    }
    let n = route.len();
    let d = if n >= 2 {
        dir(route[n - 2], route[n - 1])
    } else {
        (1.0, 0.0)
    };
    (*last, d)
}

/// The way a chunk travels from GPU `a` (in server `sa`) to GPU `b` (in server `sb`): straight
/// inside a server; across servers out through the sender's port, through the network switch
/// and in through the receiver's port. The ends are pulled back to the GPUs' rims.
pub fn route(l: &Layout, a: Pos, sa: Option<usize>, b: Pos, sb: Option<usize>) -> Vec<Pos> {
    let mut pts = vec![a];
    if let (Some(net), Some(sa), Some(sb)) = (&l.network, sa, sb) {
        if sa != sb {
            if let (Some(pa), Some(ta), Some(tb), Some(pb)) = (
                net.ports.get(sa),
                net.taps.get(sa),
                net.taps.get(sb),
                net.ports.get(sb),
            ) {
                pts.extend([*pa, *ta, *tb, *pb]);
            }
        }
    }
    pts.push(b);
    // Leave and arrive at the rims, not the centres.
    let r = l.radius_px();
    let n = pts.len();
    let trim = |from: Pos, towards: Pos| {
        let d = px_len(from, towards, l.size);
        if d <= 1e-12 {
            from
        } else {
            from.lerp(towards, (r / d).min(0.45))
        }
    };
    let (start, end) = (trim(pts[0], pts[1]), trim(pts[n - 1], pts[n - 2]));
    pts[0] = start;
    pts[n - 1] = end;
    pts
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
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    /// Where it starts (the sender's rim).
    pub from: Pos,
    /// Where it ends (the receiver's rim).
    pub to: Pos,
    /// Where it is now: on its route, and for a network chunk on the right-hand lane so that
    /// chunks crossing in opposite directions pass each other.
    pub at: Pos,
    /// The way it travels, from `from` to `to` (see [`route`]).
    pub route: Vec<Pos>,
    /// Share of all GPUs' contributions it carries (0…1): its colour.
    pub level: f64,
    /// The receiver adds it (true) or copies it.
    pub reduce: bool,
    /// It leaves its server and crosses the network.
    pub network: bool,
}

/// What crosses the network from one server to another in a round.
#[derive(Clone, Debug, PartialEq)]
pub struct Crossing {
    /// Sending server (0-based).
    pub from: usize,
    /// Receiving server (0-based).
    pub to: usize,
    /// Transfers (one chunk each).
    pub chunks: u32,
    /// Bytes, from the schedule's part size.
    pub bytes: f64,
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
    /// Servers whose network link carries a chunk this round.
    pub busy_ports: Vec<usize>,
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
    contributions: Contributions,
    /// Where each GPU sits on a drawing area of [`DEFAULT_SIZE`]; [`Animation::layout_in`]
    /// lays it out for another.
    pub layout: Layout,
}

impl Animation {
    /// Prepares the explicit schedule of a cluster [`drawn_gpu_by_gpu`].
    pub fn new(c: &Cluster, op: Op, algo: Algo, bytes: f64) -> Result<Animation, ModelError> {
        let schedule = Schedule::build(c, op, algo, bytes)?;
        let playback = Playback::new(
            schedule.base_latency,
            schedule.rounds.iter().map(|r| r.time.total()),
        );
        let contributions = schedule.contributions();
        let layout = layout(
            schedule.gpus,
            schedule.per_node,
            schedule.switch_rank.is_some(),
        );
        Ok(Animation {
            schedule,
            playback,
            contributions,
            layout,
        })
    }

    /// The layout for a drawing area of `size` CSS pixels.
    pub fn layout_in(&self, size: (f64, f64)) -> Layout {
        layout_in(
            self.schedule.gpus,
            self.schedule.per_node,
            self.schedule.switch_rank.is_some(),
            size,
        )
    }

    /// Servers the GPUs sit in.
    pub fn servers(&self) -> usize {
        self.layout.nodes.len()
    }

    /// The server of a rank; `None` for the in-server switch of NVLS.
    pub fn server_of(&self, rank: u32) -> Option<usize> {
        (rank < self.schedule.gpus).then(|| (rank / self.schedule.per_node.max(1)) as usize)
    }

    fn pos(&self, l: &Layout, rank: u32) -> Pos {
        l.gpus
            .get(rank as usize)
            .copied()
            .or(l.switch)
            .unwrap_or(Pos { x: 0.5, y: 0.5 })
    }

    /// Share of all contributions in a rank's buffer after `done` rounds.
    fn level(&self, done: usize, rank: usize) -> f64 {
        self.contributions
            .levels
            .get(done)
            .and_then(|l| l.get(rank))
            .copied()
            .unwrap_or(0.0)
    }

    /// The frame at model time `t` on the default layout.
    pub fn frame(&self, t: f64) -> Frame {
        self.frame_in(&self.layout, t)
    }

    /// The frame at model time `t` on layout `l` (from [`Animation::layout_in`]).
    pub fn frame_in(&self, l: &Layout, t: f64) -> Frame {
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
        let mut busy_ports = Vec::new();
        // Chunks on the network keep to the right-hand side of their link, a third of a GPU's
        // radius off its middle.
        let lane = l.radius_px() * 0.35;
        if started && !finished {
            if let Some(r) = self.schedule.rounds.get(round) {
                let sent = self.contributions.sent.get(round);
                for (i, tr) in r.transfers.iter().enumerate() {
                    let (sa, sb) = (self.server_of(tr.src), self.server_of(tr.dst));
                    let network = l.network.is_some() && sa.is_some() && sb.is_some() && sa != sb;
                    let route = route(l, self.pos(l, tr.src), sa, self.pos(l, tr.dst), sb);
                    let (mut at, (dx, dy)) = along(&route, l.size, progress);
                    if network {
                        // Right-hand normal of the direction of travel (y points down).
                        at.x += -dy * lane / l.size.0;
                        at.y += dx * lane / l.size.1;
                        for s in [sa, sb].into_iter().flatten() {
                            if !busy_ports.contains(&s) {
                                busy_ports.push(s);
                            }
                        }
                    }
                    let held = sent.and_then(|s| s.get(i)).copied().unwrap_or(0);
                    chunks.push(Chunk {
                        from: route.first().copied().unwrap_or(at),
                        to: route.last().copied().unwrap_or(at),
                        at,
                        route,
                        level: f64::from(held) / f64::from((n * tr.count).max(1)),
                        reduce: tr.reduce,
                        network,
                    });
                }
            }
        }
        busy_ports.sort_unstable();
        Frame {
            round,
            rounds: self.playback.rounds(),
            progress,
            gpu_level,
            chunks,
            busy_ports,
            time: t,
        }
    }

    /// What crosses the network in round `i`, server to server, in server order.
    pub fn crossings(&self, i: usize) -> Vec<Crossing> {
        let mut out: Vec<Crossing> = Vec::new();
        let Some(r) = self.schedule.rounds.get(i) else {
            return out;
        };
        for tr in &r.transfers {
            let (Some(a), Some(b)) = (self.server_of(tr.src), self.server_of(tr.dst)) else {
                continue;
            };
            if a == b {
                continue;
            }
            let bytes = self.schedule.part_bytes * f64::from(tr.count);
            match out.iter_mut().find(|c| c.from == a && c.to == b) {
                Some(c) => {
                    c.chunks += 1;
                    c.bytes += bytes;
                }
                None => out.push(Crossing {
                    from: a,
                    to: b,
                    chunks: 1,
                    bytes,
                }),
            }
        }
        out.sort_by_key(|c| (c.from, c.to));
        out
    }

    /// What crosses the network in round `i`, in words a class can follow ("Round 3 over the
    /// network: Server 1 → Server 2 (64 MiB), …"); empty on a single server.
    pub fn network_summary(&self, i: usize) -> String {
        if self.servers() < 2 || self.schedule.rounds.is_empty() {
            return String::new();
        }
        let i = i.min(self.schedule.rounds.len() - 1);
        let head = format!("Round {} over the network: ", i + 1);
        let crossings = self.crossings(i);
        if crossings.is_empty() {
            return head + "nothing; every chunk stays inside its server.";
        }
        let what = |c: &Crossing| {
            if c.chunks == 1 {
                human_bytes(c.bytes)
            } else {
                format!("{} in {} chunks", human_bytes(c.bytes), c.chunks)
            }
        };
        let same = crossings
            .iter()
            .all(|c| c.chunks == crossings[0].chunks && c.bytes == crossings[0].bytes);
        // A ring over three or more servers: each passes the same to the next.
        let k = self.servers();
        let ring = k >= 3
            && same
            && crossings.len() == k
            && crossings
                .iter()
                .enumerate()
                .all(|(i, c)| c.from == i && c.to == (i + 1) % k);
        if ring {
            let hops: Vec<String> = (2..=k).map(|s| s.to_string()).collect();
            return head
                + &format!(
                    "every server sends {} to the next, Server 1 → {} → 1.",
                    what(&crossings[0]),
                    hops.join(" → ")
                );
        }
        let list: Vec<String> = crossings
            .iter()
            .map(|c| {
                let pair = format!("{} → {}", server_label(c.from), server_label(c.to));
                if same {
                    pair
                } else {
                    format!("{pair} ({})", what(c))
                }
            })
            .collect();
        let each = if !same {
            String::new()
        } else if crossings.len() == 1 {
            format!(", {}", what(&crossings[0]))
        } else {
            format!(", {} each", what(&crossings[0]))
        };
        head + &list.join(", ") + &each + "."
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
        let mut t = launch_seconds(c, chosen.algorithm, chosen.protocol);
        let mut first = 0;
        let mut segments = Vec::new();
        for g in groups {
            let each = round_time(c, chosen.algorithm, chosen.protocol, &g);
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

    /// When round `round` starts (`None` past the last).
    pub fn round_start(&self, round: u64) -> Option<f64> {
        self.segments
            .iter()
            .find(|s| round >= s.first && round < s.first + s.count)
            .map(|s| s.start + s.each.total() * (round - s.first) as f64)
    }

    /// When round `round` ends (the total after the last).
    pub fn round_end(&self, round: u64) -> f64 {
        self.round_start(round + 1).unwrap_or(self.total)
    }

    /// The packets on the ring's links between drawn nodes at frame `f`: one per link, `f`'s
    /// progress of the way along it, while the traffic crosses the network (none otherwise).
    pub fn packets(&self, grid: &NodeGrid, f: &AggregateFrame) -> Vec<Pos> {
        if !f.inter || grid.shown < 2 {
            return Vec::new();
        }
        // From the edge of one box to the edge of the next, so that the packets never hide a
        // box's label.
        let b = grid.node_box(0);
        let (hw, hh) = (b.w / 2.0, b.h / 2.0);
        let exit = |from: Pos, to: Pos| {
            let (dx, dy) = ((to.x - from.x).abs(), (to.y - from.y).abs());
            let t = (hw / dx.max(1e-12)).min(hh / dy.max(1e-12)).min(0.5);
            from.lerp(to, t)
        };
        grid.ring()
            .map(|(a, b)| exit(a, b).lerp(exit(b, a), f.progress))
            .collect()
    }

    /// What crosses the network in the round at `t`, in words.
    pub fn network_summary(&self, t: f64) -> String {
        let f = self.frame(t);
        if self.nodes < 2 {
            return String::new();
        }
        let what = if f.reduce {
            "partial sums"
        } else {
            "finished sums"
        };
        let body = match (f.inter, self.algo) {
            (false, _) => "nothing; every chunk stays inside its server.".to_string(),
            (true, Algo::Ring) => format!(
                "each of the {} servers passes {what} to the next one.",
                self.nodes
            ),
            (true, _) => format!("{what} travel between the {} servers.", self.nodes),
        };
        format!("Round {} over the network: {body}", f.round + 1)
    }

    /// Caption of the round at `t`.
    pub fn caption(&self, t: f64) -> String {
        let f = self.frame(t);
        let what = match (f.inter, f.reduce) {
            _ if self.algo == Algo::NvlsTree => {
                "each node's NVSwitch adds up its GPUs' slice and hands it back while a tree of \
                 nodes combines the nodes' sums, slice after slice"
            }
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
        // The NVSwitch of in-switch reduction sits in the middle of the server, between the rows.
        let l = layout(8, 8, true);
        let sw = l.switch.expect("a switch");
        assert!((sw.x - 0.5).abs() < 1e-12 && sw.y > l.gpus[0].y && sw.y < l.gpus[7].y);
    }

    /// The middle of the first round in which something crosses the network.
    fn first_network_round(a: &Animation) -> (usize, f64) {
        let i = (0..a.playback.rounds())
            .find(|i| !a.crossings(*i).is_empty())
            .expect("a round crosses the network");
        (i, (a.playback.starts[i] + a.playback.ends[i]) / 2.0)
    }

    #[test]
    fn mid_round_packets_cross_the_network_between_two_labelled_servers() {
        // Two servers of eight, a ring: the chunks from GPU 8 to 9 and from 16 to 1 leave
        // their servers; the other fourteen stay on NVLink inside them.
        let c = cluster("gpus=16&per_node=8&gpu=h100&inter=ib-ndr");
        let a = Animation::new(&c, Op::AllReduce, Algo::Ring, 1073741824.0).unwrap();
        for size in [DEFAULT_SIZE, (366.0, 208.0), (1880.0, 700.0)] {
            let l = a.layout_in(size);
            assert_eq!(l.server_labels(), ["Server 1", "Server 2"]);
            let net = l.network.as_ref().expect("a network between the servers");
            let (_, mid) = first_network_round(&a);
            let f = a.frame_in(&l, mid);
            let (out, inside): (Vec<&Chunk>, Vec<&Chunk>) =
                f.chunks.iter().partition(|c| c.network);
            assert_eq!((out.len(), inside.len()), (2, 14), "{size:?}");
            for ch in &out {
                // Half-way along its route the packet is in no server box: it is on the wire
                // or in the switch, between the two servers it joins.
                assert_eq!(l.server_at(ch.at), None, "{size:?}: {:?}", ch.at);
                let (s, e) = (l.server_at(ch.from), l.server_at(ch.to));
                assert!(s.is_some() && e.is_some() && s != e, "{size:?}");
                let (lo, hi) = (l.nodes[0].x + l.nodes[0].w, l.nodes[1].x);
                if lo < hi {
                    assert!(
                        ch.at.x > lo && ch.at.x < hi,
                        "between the boxes: {:?}",
                        ch.at
                    );
                }
                // Its route passes through the switch.
                assert!(ch.route.iter().any(|p| net.switch.contains(*p)));
            }
            for ch in &inside {
                let s = l.server_at(ch.from);
                assert!(s.is_some() && s == l.server_at(ch.to) && s == l.server_at(ch.at));
            }
            // The two packets cross in opposite directions on separate lanes.
            let d = px_len(out[0].at, out[1].at, l.size);
            assert!(d > l.radius_px() * 0.5, "{size:?}: packets {d} px apart");
            assert_eq!(f.busy_ports, vec![0, 1]);
        }
    }

    #[test]
    fn eight_servers_of_four_are_drawn_gpu_by_gpu_in_two_rows_around_a_switch() {
        assert!(drawn_gpu_by_gpu(32, 4) && drawn_gpu_by_gpu(16, 8) && drawn_gpu_by_gpu(16, 1));
        assert!(!drawn_gpu_by_gpu(64, 4) && !drawn_gpu_by_gpu(128, 8));
        let c = cluster("gpus=32&per_node=4&gpu=h100&inter=ib-ndr");
        let a = Animation::new(&c, Op::AllReduce, Algo::Ring, 1073741824.0).unwrap();
        for size in [DEFAULT_SIZE, (366.0, 208.0)] {
            let l = a.layout_in(size);
            assert_eq!(l.nodes.len(), 8);
            assert_eq!(l.server_labels()[7], "Server 8");
            for (i, p) in l.gpus.iter().enumerate() {
                assert_eq!(l.server_at(*p), Some(i / 4), "GPU {} in its server", i + 1);
            }
            for (i, r) in l.nodes.iter().enumerate() {
                for q in &l.nodes[i + 1..] {
                    let apart = r.x + r.w <= q.x
                        || q.x + q.w <= r.x
                        || r.y + r.h <= q.y
                        || q.y + q.h <= r.y;
                    assert!(apart, "{r:?} overlaps {q:?}");
                }
            }
            // Legible on a phone: GPUs at least 8 px across… of radius.
            assert!(l.radius_px() >= 8.0, "{size:?}: radius {}", l.radius_px());
            let net = l.network.as_ref().unwrap();
            assert!(l.nodes.iter().all(|r| !(r.contains(Pos {
                x: net.switch.x + net.switch.w / 2.0,
                y: net.switch.y + net.switch.h / 2.0
            }))));
            // Each label sits inside its box, on the side away from the switch, clear of the
            // port packets arrive through.
            for (i, (strip, r)) in l.labels.iter().zip(&l.nodes).enumerate() {
                assert!(r.contains(Pos {
                    x: strip.x,
                    y: strip.y
                }));
                assert!(r.contains(Pos {
                    x: strip.x + strip.w,
                    y: strip.y + strip.h
                }));
                let port = net.ports[i];
                let gap = (port.y - (strip.y + strip.h / 2.0)).abs();
                assert!(gap > r.h / 2.0, "server {}: label by its port", i + 1);
            }
            let (i, mid) = first_network_round(&a);
            // A ring over eight servers: each sends to the next, the last to the first.
            let cross = a.crossings(i);
            assert_eq!(cross.len(), 8);
            assert!(cross
                .iter()
                .all(|c| c.to == (c.from + 1) % 8 && c.chunks == 1));
            let f = a.frame_in(&l, mid);
            let packets: Vec<&Chunk> = f.chunks.iter().filter(|c| c.network).collect();
            assert_eq!(packets.len(), 8);
            assert!(packets.iter().all(|p| l.server_at(p.at).is_none()));
        }
    }

    #[test]
    fn the_network_summary_names_the_servers_each_round() {
        let c = cluster("gpus=16&per_node=8&gpu=h100&inter=ib-ndr");
        let a = Animation::new(&c, Op::AllReduce, Algo::Ring, 1073741824.0).unwrap();
        let (i, _) = first_network_round(&a);
        let s = a.network_summary(i);
        assert!(
            s.starts_with(&format!("Round {} over the network: ", i + 1)),
            "{s}"
        );
        assert!(
            s.ends_with("Server 1 → Server 2, Server 2 → Server 1, 64 MiB each."),
            "{s}"
        );
        // Eight servers in a ring: one sentence, not eight.
        let c = cluster("gpus=32&per_node=4&gpu=h100&inter=ib-ndr");
        let a = Animation::new(&c, Op::AllReduce, Algo::Ring, 1073741824.0).unwrap();
        let (i, _) = first_network_round(&a);
        assert_eq!(
            a.network_summary(i),
            format!(
                "Round {} over the network: every server sends 32 MiB to the next, Server 1 → 2 → 3 → 4 → 5 → 6 → 7 → 8 → 1.",
                i + 1
            )
        );
        // One server: no network to speak of.
        let one =
            Animation::new(&cluster("gpus=8&gpu=h100"), Op::AllReduce, Algo::Ring, 1e9).unwrap();
        assert_eq!(one.network_summary(0), "");
        assert!(one.layout.network.is_none());
    }

    #[test]
    fn a_hierarchical_all_reduce_crosses_the_network_only_in_its_middle_phases() {
        let c = cluster("gpus=16&per_node=8&gpu=h100&inter=ib-ndr");
        let a = Animation::new(&c, Op::AllReduce, Algo::Hier, 1073741824.0).unwrap();
        for (i, r) in a.schedule.rounds.iter().enumerate() {
            let crosses = !a.crossings(i).is_empty();
            let inter = matches!(r.phase, Phase::InterReduce | Phase::InterGather);
            assert_eq!(crosses, inter, "round {} ({:?})", i + 1, r.phase);
            if crosses {
                // Eight GPUs each way, one chunk each: said once, with the bytes in all.
                assert!(
                    a.network_summary(i)
                        .contains("Server 1 → Server 2, Server 2 → Server 1, "),
                    "{}",
                    a.network_summary(i)
                );
                assert!(a.network_summary(i).ends_with(" in 8 chunks each."));
            } else {
                assert!(a
                    .network_summary(i)
                    .ends_with("nothing; every chunk stays inside its server."));
            }
        }
    }

    #[test]
    fn aggregate_packets_travel_between_neighbouring_nodes_while_traffic_crosses() {
        let c = cluster("gpus=1024&gpu=h100&inter=ib-ndr&algo=ring");
        let agg = Aggregate::new(&c, Op::AllReduce, Algo::Ring, 1073741824.0).unwrap();
        let grid = NodeGrid::new(agg.nodes);
        let t = (agg.round_start(5).unwrap() + agg.round_end(5)) / 2.0;
        let f = agg.frame(t);
        let p = agg.packets(&grid, &f);
        assert_eq!(p.len(), 128);
        // Node 1's packet is on the way to node 2, between their boxes, never over a label.
        let (a, b) = (grid.node_box(0), grid.node_box(1));
        assert!(p[0].x >= a.x + a.w && p[0].x <= b.x, "{:?}", p[0]);
        assert!((p[0].y - grid.centre(0).y).abs() < 1e-12);
        for (i, q) in p.iter().enumerate() {
            let inside = (0..grid.shown).any(|j| {
                let r = grid.node_box(j);
                q.x > r.x + 1e-9
                    && q.x < r.x + r.w - 1e-9
                    && q.y > r.y + 1e-9
                    && q.y < r.y + r.h - 1e-9
            });
            assert!(!inside, "packet {i} inside a box: {q:?}");
        }
        assert!(agg
            .network_summary(t)
            .contains("each of the 128 servers passes"));
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
