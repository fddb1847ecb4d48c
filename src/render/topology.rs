//! The topology view: the job's nodes under their leaf switches, the spines (and pods) above,
//! the nodes placed as the `placement` key says, each link coloured by how busy the current
//! collective keeps it, and the bottleneck marked. Pure geometry in a unit square (x right,
//! y down) with semantic colours; the UI paints it on a canvas at device resolution and picks
//! the colours for the theme.
//!
//! A large job is summarised: at most a few leaf groups are drawn (as many as the width allows)
//! and the rest counted; a leaf group of more than [`MAX_NODE_SLOTS`] nodes is drawn as that many
//! boxes, the job's share of them filled.

use super::anim::{Pos, Rect};
use super::figure::Table;
use super::series::group;
use crate::model::report::CollectiveReport;
use crate::model::scenario::Setup;
use crate::model::topology::{Attach, Placement, Routing};
use crate::model::units::human_bytes;

/// Most node boxes drawn under one leaf group.
pub const MAX_NODE_SLOTS: u32 = 8;

/// Narrowest column (CSS px) a drawn leaf group gets; the width decides how many are drawn.
pub const MIN_GROUP_PX: f64 = 140.0;

/// Most leaf groups drawn.
pub const MAX_GROUPS: u32 = 8;

/// Where uplinks land on a spine row: four spine positions (every leaf reaches every spine).
const SPINE_SLOTS: u32 = 4;

/// What a shape is painted with; the UI maps it to a colour of the theme.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ink {
    /// Text and outlines.
    Fg,
    /// Secondary text.
    Muted,
    /// A switch.
    Switch,
    /// The outline of this job's node.
    Job,
    /// Another job's (or a free) node.
    Other,
    /// A link or fabric busy this share (0…1) of the collective's time.
    Use(f64),
    /// A link this job does not use.
    Faint,
    /// The bottleneck's mark.
    Bottleneck,
}

/// Horizontal text alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Left-aligned.
    Left,
    /// Centred.
    Centre,
    /// Right-aligned.
    Right,
}

/// One thing to paint. Sizes (widths, text) are CSS pixels; positions are in the unit square.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A box, filled, with an optional outline.
    Box {
        /// The box.
        rect: Rect,
        /// Fill colour.
        fill: Ink,
        /// Outline colour, if any.
        stroke: Option<Ink>,
        /// Dashed outline (the bottleneck).
        dashed: bool,
    },
    /// A link.
    Line {
        /// Where it starts.
        from: Pos,
        /// Where it ends.
        to: Pos,
        /// Width, CSS px.
        width: f64,
        /// Colour.
        ink: Ink,
        /// Drawn with a dark halo: the bottleneck tier.
        bottleneck: bool,
    },
    /// A label; `boxed` puts it on a background plate (over links).
    Text {
        /// Anchor point.
        at: Pos,
        /// The words.
        text: String,
        /// Font size, CSS px.
        size: f64,
        /// Alignment.
        align: Align,
        /// Colour.
        ink: Ink,
        /// Drawn on a background box.
        boxed: bool,
        /// The widest it may be, in the unit square (the UI shrinks the font to fit).
        max_w: f64,
        /// Fewer words for the same thing, drawn where `text` does not fit at a readable size
        /// (a phone's width, a narrow embed).
        short: Option<String>,
    },
}

/// One tier of the fabric as the data table shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct TierRow {
    /// `node-fabric`, `nic`, `leaf-uplink`, `spine-uplink`.
    pub tier: &'static str,
    /// What it is, in words ("leaf uplinks (3:1)").
    pub what: String,
    /// Bytes the busiest element carries, one direction.
    pub bytes: f64,
    /// Share of the collective's time it is busy.
    pub utilisation: f64,
    /// It bounds the collective.
    pub bottleneck: bool,
}

/// How the job's nodes fill leaf groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fill {
    /// Leaf groups the job touches.
    pub groups: u32,
    /// The job's nodes in each of them (the last may hold fewer).
    pub per_group: u32,
    /// The job's nodes in the last group.
    pub last: u32,
}

impl Fill {
    /// Where `nodes` nodes land in leaf groups of `leaf_nodes`: packed fills whole groups,
    /// spread puts one per group, random gets half of each group it touches (the model's busy
    /// scheduler, `crate::model::topology`).
    pub fn new(nodes: u32, leaf_nodes: u32, placement: Placement) -> Fill {
        let nodes = nodes.max(1);
        let l = leaf_nodes.max(1);
        let per = match placement {
            Placement::Packed => l,
            Placement::Spread => 1,
            Placement::Random => (l / 2).max(1),
        }
        .min(nodes);
        let groups = nodes.div_ceil(per);
        Fill {
            groups,
            per_group: per,
            last: nodes - per * (groups - 1),
        }
    }

    /// The job's nodes in group `g`.
    pub fn in_group(&self, g: u32) -> u32 {
        if g + 1 == self.groups {
            self.last
        } else {
            self.per_group
        }
    }
}

/// Everything the canvas paints, with the table and the accessible description.
#[derive(Clone, Debug, PartialEq)]
pub struct TopologyView {
    /// Shapes in painting order.
    pub shapes: Vec<Shape>,
    /// The fabric's tiers for the data table.
    pub tiers: Vec<TierRow>,
    /// The picture in words (the canvas's aria-label).
    pub description: String,
    /// How the job fills the leaf groups.
    pub fill: Fill,
    /// Leaf groups drawn (the rest are counted in a label).
    pub groups_drawn: u32,
}

impl TopologyView {
    /// The tiers as a data table (and its CSV).
    pub fn table(&self) -> Table {
        Table {
            header: ["tier", "what", "bytes", "busy", "bottleneck"]
                .iter()
                .map(|h| h.to_string())
                .collect(),
            rows: self
                .tiers
                .iter()
                .map(|t| {
                    vec![
                        t.tier.to_string(),
                        t.what.clone(),
                        human_bytes(t.bytes),
                        format!("{:.0} %", 100.0 * t.utilisation),
                        if t.bottleneck { "yes" } else { "" }.to_string(),
                    ]
                })
                .collect(),
        }
    }
}

/// The tier a bottleneck link id belongs to.
fn tier_of(bottleneck: &str) -> &'static str {
    match bottleneck {
        "nic" | "gpu-pcie" => "nic",
        "leaf-uplink" => "leaf-uplink",
        "spine-uplink" => "spine-uplink",
        _ => "node-fabric",
    }
}

/// "3:1", "1.5:1".
fn ratio(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}:1")
}

/// Which of `slots` boxes hold the job's `n` nodes: the first ones (packed, spread) or a
/// scattered, repeatable pick (random).
fn job_slots(slots: u32, n: u32, placement: Placement, seed: u32) -> Vec<bool> {
    let mut on = vec![false; slots as usize];
    if placement == Placement::Random {
        let mut order: Vec<u32> = (0..slots).collect();
        // A fixed scramble per group (a multiplicative hash), so the picture is stable.
        order.sort_by_key(|i| (i.wrapping_mul(2_654_435_761) ^ seed.wrapping_mul(40_503)) % 1009);
        for i in order.into_iter().take(n as usize) {
            on[i as usize] = true;
        }
    } else {
        for v in on.iter_mut().take(n as usize) {
            *v = true;
        }
    }
    on
}

/// The view of the scenario's job and collective on a canvas `width_css` pixels wide.
pub fn layout(s: &Setup, r: &CollectiveReport, width_css: f64) -> TopologyView {
    let topo = s.topo;
    let nodes = s.nodes();
    let l = topo.leaf_nodes.max(1);
    let fill = Fill::new(nodes, l, topo.placement);
    let max_groups = ((width_css / MIN_GROUP_PX).floor() as u32).clamp(2, MAX_GROUPS);
    let drawn = fill.groups.min(max_groups);
    let more = fill.groups - drawn;
    let cols = drawn;
    let pods = topo.pod_nodes > l;
    let groups_per_pod = if pods { (topo.pod_nodes / l).max(1) } else { 1 };
    let bottleneck = tier_of(r.bottleneck);
    let util = |tier: &str| {
        r.tiers
            .iter()
            .find(|t| t.tier == tier)
            .map_or(0.0, |t| t.utilisation.clamp(0.0, 1.0))
    };
    let multi = nodes > 1;

    // Rows, top to bottom.
    let core = Rect {
        x: 0.02,
        y: 0.03,
        w: 0.96,
        h: 0.07,
    };
    let spine_y = if pods { 0.25 } else { 0.10 };
    let spine_h = 0.075;
    let leaf_y = 0.47;
    let leaf_h = 0.08;
    let node_y = 0.70;
    let node_h = 0.15;
    let col_w = 0.96 / f64::from(cols.max(1));
    let col_x = |c: u32| 0.02 + col_w * f64::from(c);
    let inner = |c: u32| (col_x(c) + col_w * 0.05, col_w * 0.9);

    let mut sh: Vec<Shape> = Vec::new();
    let mut texts: Vec<Shape> = Vec::new();
    let label =
        |at: Pos, text: String, align: Align, ink: Ink, boxed: bool, max_w: f64| Shape::Text {
            at,
            text,
            size: 11.0,
            align,
            ink,
            boxed,
            max_w,
            short: None,
        };
    let with_short = |mut shape: Shape, words: String| {
        if let Shape::Text { text, short, .. } = &mut shape {
            if *text != words {
                *short = Some(words);
            }
        }
        shape
    };

    // Spines: one bar, or one per pod (consecutive columns of the same pod) under a core bar.
    let pod_of = |c: u32| -> u32 {
        if pods {
            c / groups_per_pod
        } else {
            0
        }
    };
    let mut spines: Vec<Rect> = Vec::new();
    let mut spine_pod: Vec<u32> = Vec::new();
    for c in 0..cols {
        let (x, w) = inner(c);
        let p = pod_of(c);
        match spines.last_mut() {
            Some(r) if pods && spine_pod.last() == Some(&p) => r.w = x + w - r.x,
            _ => {
                spines.push(Rect {
                    x,
                    y: spine_y,
                    w,
                    h: spine_h,
                });
                spine_pod.push(p);
            }
        }
    }
    if !pods {
        spines = vec![Rect {
            x: 0.02,
            y: spine_y,
            w: 0.96,
            h: spine_h,
        }];
    }
    let uplinks = |ratio: f64| ((4.0 / ratio.max(1.0)).round() as u32).max(1);
    if pods {
        let u = util("spine-uplink");
        let b = bottleneck == "spine-uplink";
        for sp in &spines {
            let n = uplinks(topo.pod_oversub);
            for k in 0..n {
                let x = sp.x + sp.w * (f64::from(k) + 0.5) / f64::from(n);
                sh.push(Shape::Line {
                    from: Pos { x, y: sp.y },
                    to: Pos {
                        x,
                        y: core.y + core.h,
                    },
                    width: 3.0,
                    ink: if multi { Ink::Use(u) } else { Ink::Faint },
                    bottleneck: b,
                });
            }
        }
        sh.push(Shape::Box {
            rect: core,
            fill: Ink::Switch,
            stroke: None,
            dashed: false,
        });
        texts.push(label(
            Pos {
                x: 0.5,
                y: core.y + core.h / 2.0,
            },
            "core: between pods".to_string(),
            Align::Centre,
            Ink::Fg,
            false,
            core.w,
        ));
    }
    for (i, sp) in spines.iter().enumerate() {
        sh.push(Shape::Box {
            rect: *sp,
            fill: Ink::Switch,
            stroke: None,
            dashed: false,
        });
        let text = if pods {
            format!("pod {} spines", spine_pod[i] + 1)
        } else {
            "spine switches".to_string()
        };
        texts.push(label(
            Pos {
                x: sp.x + sp.w / 2.0,
                y: sp.y + sp.h / 2.0,
            },
            text,
            Align::Centre,
            Ink::Fg,
            false,
            sp.w,
        ));
    }
    let spine_of = |c: u32| {
        let i = spine_pod.iter().position(|p| *p == pod_of(c)).unwrap_or(0);
        spines.get(i).copied().unwrap_or(spines[0])
    };

    let leaf_use = util("leaf-uplink");
    let nic_use = util("nic");
    let node_use = util("node-fabric");
    let slots = l.min(MAX_NODE_SLOTS);
    for c in 0..drawn {
        let (x, w) = inner(c);
        let leaf = Rect {
            x,
            y: leaf_y,
            w,
            h: leaf_h,
        };
        // Uplinks from this leaf group to the spines: fewer lines when oversubscribed.
        let sp = spine_of(c);
        let n = uplinks(topo.oversub);
        for k in 0..n {
            let t = (f64::from(k) + 0.5) / f64::from(n);
            let from = Pos {
                x: leaf.x + leaf.w * t,
                y: leaf.y,
            };
            // Every leaf reaches every spine (a Clos): uplink k of leaf c goes to spine
            // position (c + k·S/n) mod S of S, so the uplinks of neighbouring leaves cross.
            let j = (c + k * SPINE_SLOTS / n) % SPINE_SLOTS;
            let to_x = sp.x + sp.w * (f64::from(j) + 0.5) / f64::from(SPINE_SLOTS);
            sh.push(Shape::Line {
                from,
                to: Pos {
                    x: to_x,
                    y: sp.y + sp.h,
                },
                width: 3.0,
                ink: if multi {
                    Ink::Use(leaf_use)
                } else {
                    Ink::Faint
                },
                bottleneck: multi && bottleneck == "leaf-uplink",
            });
        }
        // Nodes, the job's share filled, each linked to its leaf group.
        let job = fill.in_group(c);
        let shown = if l <= MAX_NODE_SLOTS {
            job
        } else {
            ((f64::from(job) * f64::from(slots) / f64::from(l)).round() as u32).clamp(1, slots)
        };
        let on = job_slots(slots, shown, topo.placement, c);
        let gap = w * 0.12 / f64::from(slots);
        let bw = (w - gap * f64::from(slots - 1)) / f64::from(slots);
        for (k, is_job) in on.iter().enumerate() {
            let bx = x + f64::from(k as u32) * (bw + gap);
            let rect = Rect {
                x: bx,
                y: node_y,
                w: bw,
                h: node_h,
            };
            let cx = bx + bw / 2.0;
            sh.push(Shape::Line {
                from: Pos { x: cx, y: node_y },
                to: Pos {
                    x: cx,
                    y: leaf_y + leaf_h,
                },
                width: if *is_job { 2.0 } else { 1.0 },
                ink: if *is_job && multi {
                    Ink::Use(nic_use)
                } else {
                    Ink::Faint
                },
                bottleneck: *is_job && multi && bottleneck == "nic",
            });
            sh.push(Shape::Box {
                rect,
                fill: if *is_job {
                    Ink::Use(node_use)
                } else {
                    Ink::Other
                },
                stroke: if *is_job {
                    Some(if bottleneck == "node-fabric" {
                        Ink::Bottleneck
                    } else {
                        Ink::Job
                    })
                } else {
                    None
                },
                dashed: *is_job && bottleneck == "node-fabric",
            });
        }
        sh.push(Shape::Box {
            rect: leaf,
            fill: Ink::Switch,
            stroke: None,
            dashed: false,
        });
        let rails = match topo.attach {
            Attach::Rail if s.nics > 1 => format!(" · {} rails", s.nics),
            Attach::Rail => String::new(),
            Attach::Tor => " · ToR".to_string(),
        };
        texts.push(label(
            Pos {
                x: x + w / 2.0,
                y: leaf_y + leaf_h / 2.0,
            },
            // More nodes than boxes: say what a box stands for.
            if l > slots {
                format!(
                    "{}/{} nodes{rails} · a box ≈ {} nodes",
                    group(job),
                    group(l),
                    group(l.div_ceil(slots))
                )
            } else {
                format!("{}/{} nodes{rails}", group(job), group(l))
            },
            Align::Centre,
            Ink::Fg,
            false,
            w,
        ));
    }
    if more > 0 {
        // The groups not drawn, counted at the top right (above the spines, or under the core).
        texts.push(with_short(
            label(
                Pos {
                    x: 0.98,
                    y: if pods {
                        (core.y + core.h + spine_y) / 2.0
                    } else {
                        0.045
                    },
                },
                format!(
                    "+ {} more leaf group{} not drawn",
                    group(more),
                    if more == 1 { "" } else { "s" }
                ),
                Align::Right,
                Ink::Muted,
                true,
                0.5,
            ),
            format!(
                "+ {} group{} not drawn",
                group(more),
                if more == 1 { "" } else { "s" }
            ),
        ));
    }

    // The tiers: a plate beside each, saying how busy it is and which one bounds.
    let mut tiers: Vec<TierRow> = Vec::new();
    let what = |tier: &str| -> String {
        match tier {
            "nic" => format!("NICs: {} × {} per node", s.nics, s.inter.name),
            "leaf-uplink" => format!("leaf uplinks {}", ratio(topo.oversub)),
            "spine-uplink" => format!("pod uplinks {}", ratio(topo.oversub * topo.pod_oversub)),
            _ => format!("inside each node: {}", s.intra.name),
        }
    };
    for t in &r.tiers {
        tiers.push(TierRow {
            tier: t.tier,
            what: what(t.tier),
            bytes: t.bytes,
            utilisation: t.utilisation,
            bottleneck: tier_of(r.bottleneck) == t.tier,
        });
    }
    // The same in fewer words: the node's fabric without its GPU, the NICs without "per node".
    let what_short = |tier: &str| -> String {
        match tier {
            "nic" => format!("NICs {} × {}", s.nics, s.inter.name),
            "node-fabric" => format!(
                "in a node: {}",
                s.intra.name.split(" (").next().unwrap_or(s.intra.name)
            ),
            _ => what(tier),
        }
    };
    let plate = |tier: &'static str, y: f64| {
        let busy = if multi || tier == "node-fabric" {
            format!(" — {:.0} % busy", 100.0 * util(tier))
        } else {
            " — idle".to_string()
        };
        let mark = if bottleneck == tier {
            " · bottleneck"
        } else {
            ""
        };
        with_short(
            label(
                Pos { x: 0.02, y },
                format!("{}{busy}{mark}", what(tier)),
                Align::Left,
                if bottleneck == tier {
                    Ink::Bottleneck
                } else {
                    Ink::Fg
                },
                true,
                0.96,
            ),
            format!("{}{busy}{mark}", what_short(tier)),
        )
    };
    if pods {
        texts.push(plate("spine-uplink", (core.y + core.h + spine_y) / 2.0));
    }
    texts.push(plate("leaf-uplink", (spine_y + spine_h + leaf_y) / 2.0));
    texts.push(plate("nic", (leaf_y + leaf_h + node_y) / 2.0));
    texts.push(plate("node-fabric", 0.935));
    sh.extend(texts);

    let placement = match topo.placement {
        Placement::Packed => "packed",
        Placement::Spread => "spread one per leaf group",
        Placement::Random => "scattered by a busy scheduler",
    };
    let attach = match topo.attach {
        Attach::Rail => "rail-optimised",
        Attach::Tor => "top-of-rack",
    };
    let pods_text = if pods {
        format!(
            ", pods of {} nodes with {} above them",
            group(topo.pod_nodes),
            ratio(topo.pod_oversub)
        )
    } else {
        String::new()
    };
    let routing = match topo.routing {
        Routing::Ecmp => "ECMP hashing",
        Routing::Adaptive => "adaptive routing",
    };
    let bg = if topo.bg_load > 0.0 {
        format!(
            ", other jobs using {:.0} % of the uplinks",
            100.0 * topo.bg_load
        )
    } else {
        String::new()
    };
    let busy: Vec<String> = tiers
        .iter()
        .map(|t| format!("{} {:.0} %", what(t.tier), 100.0 * t.utilisation))
        .collect();
    let description = format!(
        "The job's {} nodes of {} GPUs sit {placement} in {} leaf group{} of {} nodes ({attach}, {} uplinks{pods_text}; {routing}{bg}){}. The {} of {} ({}) is bound by the {}. Busy: {}.",
        group(nodes),
        s.per_node,
        group(fill.groups),
        if fill.groups == 1 { "" } else { "s" },
        group(l),
        ratio(topo.oversub),
        if more > 0 {
            format!(", {} of them drawn", drawn)
        } else {
            String::new()
        },
        r.op,
        human_bytes(r.bytes),
        r.algorithm,
        what(bottleneck),
        if busy.is_empty() {
            "nothing".to_string()
        } else {
            busy.join(", ")
        },
    );
    TopologyView {
        shapes: sh,
        tiers,
        description,
        fill,
        groups_drawn: drawn,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::scenario::Scenario;

    fn view(q: &str, width: f64) -> TopologyView {
        let sc = Scenario::parse(q).unwrap();
        layout(
            &sc.setup().unwrap(),
            &CollectiveReport::new(&sc).unwrap(),
            width,
        )
    }

    /// Job node boxes per drawn leaf group, left to right.
    fn job_boxes(v: &TopologyView) -> usize {
        v.shapes
            .iter()
            .filter(|s| {
                matches!(
                    s,
                    Shape::Box {
                        stroke: Some(Ink::Job | Ink::Bottleneck),
                        ..
                    }
                )
            })
            .count()
    }

    fn texts(v: &TopologyView) -> Vec<String> {
        v.shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Text { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect()
    }

    const BASE: &str = "gpus=256&gpu=h100&inter=roce400&model=llama3-8b";

    #[test]
    fn long_labels_carry_fewer_words_for_a_narrow_canvas() {
        let v = view(&format!("{BASE}&nic_attach=tor&oversub=3"), 270.0);
        let shorts: Vec<(String, String)> = v
            .shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Text {
                    text,
                    short: Some(short),
                    ..
                } => Some((text.clone(), short.clone())),
                _ => None,
            })
            .collect();
        assert!(shorts.iter().all(|(t, s)| s.len() < t.len()), "{shorts:?}");
        // The node's fabric without its GPU's name, the busy share and the bottleneck kept.
        assert!(shorts.iter().any(|(t, s)| t
            .starts_with("inside each node: NVLink 4 + NVSwitch (H100)")
            && s.starts_with("in a node: NVLink 4 + NVSwitch — ")
            && s.ends_with("% busy")));
        // A tier's busy share and bottleneck mark stay whole.
        let tail = |x: &str| x.rsplit_once(" — ").map(|(_, b)| b.to_string());
        assert!(shorts.iter().all(|(t, s)| tail(t) == tail(s)), "{shorts:?}");
        assert!(
            shorts.iter().any(|(_, s)| s == "+ 6 groups not drawn"),
            "{shorts:?}"
        );
    }

    #[test]
    fn placement_decides_how_many_leaf_groups_the_job_touches() {
        // 32 nodes, 32 per leaf group (rail default).
        assert_eq!(Fill::new(32, 32, Placement::Packed).groups, 1);
        assert_eq!(Fill::new(32, 32, Placement::Spread).groups, 32);
        assert_eq!(Fill::new(32, 32, Placement::Random).groups, 2);
        let f = Fill::new(40, 32, Placement::Packed);
        assert_eq!((f.groups, f.in_group(0), f.in_group(1)), (2, 32, 8));
        assert_eq!(Fill::new(1, 32, Placement::Spread).groups, 1);

        let packed = view(BASE, 900.0);
        let spread = view(&format!("{BASE}&placement=spread"), 900.0);
        let random = view(&format!("{BASE}&placement=random"), 900.0);
        assert_eq!(packed.groups_drawn, 1);
        assert_eq!(job_boxes(&packed), 8, "a full leaf group: every box");
        assert_eq!(spread.groups_drawn, 6, "six columns at 900 px");
        assert_eq!(job_boxes(&spread), 6, "one box per group");
        assert!(texts(&spread).contains(&"+ 26 more leaf groups not drawn".to_string()));
        assert_eq!(random.groups_drawn, 2);
        assert_eq!(job_boxes(&random), 8, "half of each of two groups");
        assert_ne!(packed.shapes, random.shapes);
        assert!(
            spread
                .description
                .contains("spread one per leaf group in 32 leaf groups"),
            "{}",
            spread.description
        );
    }

    #[test]
    fn the_bottleneck_tier_is_marked_on_its_links_and_its_label() {
        // Top-of-rack leaves of 4 nodes at 3:1 with hashed flows: the uplinks bound.
        let q = format!("{BASE}&nic_attach=tor&oversub=3&routing=ecmp");
        let v = view(&q, 900.0);
        let r = CollectiveReport::new(&Scenario::parse(&q).unwrap()).unwrap();
        assert_eq!(r.bottleneck, "leaf-uplink");
        let marked: Vec<&Shape> = v
            .shapes
            .iter()
            .filter(|s| {
                matches!(
                    s,
                    Shape::Line {
                        bottleneck: true,
                        ..
                    }
                )
            })
            .collect();
        assert!(!marked.is_empty());
        let leaf = r
            .tiers
            .iter()
            .find(|t| t.tier == "leaf-uplink")
            .unwrap()
            .utilisation;
        assert!(marked.iter().all(
            |s| matches!(s, Shape::Line { ink: Ink::Use(u), .. } if (*u - leaf).abs() < 1e-12)
        ));
        let t = texts(&v);
        assert!(
            t.iter()
                .any(|s| s.starts_with("leaf uplinks 3:1 — ") && s.ends_with("· bottleneck")),
            "{t:?}"
        );
        assert!(v
            .tiers
            .iter()
            .any(|t| t.tier == "leaf-uplink" && t.bottleneck));
        assert!(
            v.description.contains("is bound by the leaf uplinks 3:1"),
            "{}",
            v.description
        );
    }

    #[test]
    fn oversubscription_thins_the_uplinks() {
        let count = |q: &str| {
            view(q, 900.0)
                .shapes
                .iter()
                .filter(|s| matches!(s, Shape::Line { width, .. } if *width == 3.0))
                .count()
        };
        assert_eq!(count(BASE), 4, "1:1 — four uplinks");
        assert_eq!(count(&format!("{BASE}&oversub=2")), 2);
        assert_eq!(count(&format!("{BASE}&oversub=4")), 1);
    }

    #[test]
    fn pods_add_a_core_and_one_spine_per_pod() {
        let v = view(
            "gpus=2048&gpu=h100&inter=ib-ndr&model=llama3-8b&pod_gpus=512&pod_oversub=4",
            1200.0,
        );
        let t = texts(&v);
        assert!(t.contains(&"core: between pods".to_string()), "{t:?}");
        assert!(t.contains(&"pod 1 spines".to_string()), "{t:?}");
        assert!(t.iter().any(|s| s.starts_with("pod uplinks 4:1")), "{t:?}");
        assert!(
            v.description.contains("pods of 64 nodes"),
            "{}",
            v.description
        );
        assert!(!texts(&view(BASE, 900.0))
            .iter()
            .any(|s| s.starts_with("core")));
    }

    #[test]
    fn one_node_uses_no_network() {
        let v = view("gpus=8&gpu=h100&model=llama3-8b", 600.0);
        assert_eq!(v.fill.groups, 1);
        assert_eq!(job_boxes(&v), 1);
        assert!(v.shapes.iter().all(|s| !matches!(
            s,
            Shape::Line {
                ink: Ink::Use(_),
                ..
            }
        )));
        assert!(texts(&v)
            .iter()
            .any(|s| s.starts_with("leaf uplinks") && s.ends_with("idle")));
    }

    #[test]
    fn every_shape_stays_inside_the_picture() {
        for q in [
            BASE.to_string(),
            format!("{BASE}&placement=spread&pod_gpus=512"),
            "gpus=65536&gpu=h100&inter=ib-ndr&model=llama3-8b&placement=random&pod_gpus=4096&leaf_nodes=100".to_string(),
            "gpus=16&per_node=4&gpu=a100&inter=tcp100&model=gpt2-xl&nic_attach=tor".to_string(),
        ] {
            for w in [300.0, 900.0, 2000.0] {
                let v = view(&q, w);
                let inside = |p: &Pos| (0.0..=1.0).contains(&p.x) && (0.0..=1.0).contains(&p.y);
                for s in &v.shapes {
                    match s {
                        Shape::Box { rect, .. } => {
                            assert!(rect.x >= 0.0 && rect.y >= 0.0 && rect.x + rect.w <= 1.0 + 1e-9 && rect.y + rect.h <= 1.0, "{q} {w}: {rect:?}");
                            assert!(rect.w > 0.0 && rect.h > 0.0);
                        }
                        Shape::Line { from, to, .. } => assert!(inside(from) && inside(to), "{q} {w}"),
                        Shape::Text { at, .. } => assert!(inside(at), "{q} {w}"),
                    }
                }
                assert!(v.groups_drawn >= 1 && v.groups_drawn <= MAX_GROUPS);
            }
        }
    }
}
