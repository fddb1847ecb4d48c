//! The all-reduce animation and the step timeline on canvas. Frames are computed by the render
//! layer (`render::anim`, `render::timeline`) and painted here with the 2D context; the loop runs
//! on requestAnimationFrame, pauses off-screen, and respects prefers-reduced-motion.

use super::charts::{download_png, now_ms, prefers_dark, record_perf};
use super::results::duration;
use super::state::Lab;
use crate::model::collective::Cluster;
use crate::model::hardware;
use crate::model::scenario::Setup;
use crate::render::anim::{Aggregate, Animation, Pos, MAX_DRAWN_GPUS, MAX_DRAWN_NODES};
use crate::render::charts::{PALETTE, PART_COLOURS};
use crate::render::series::group;
use crate::render::timeline::{timeline, BarKind, Timeline};
use leptos::prelude::*;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// On-screen seconds the slower of the shown collectives takes at 1× speed.
const SCREEN_SECONDS: f64 = 8.0;

/// What one canvas plays.
#[derive(Clone, Debug, PartialEq)]
enum Playable {
    /// GPU by GPU.
    Gpus(Animation),
    /// Nodes as units.
    Nodes(Aggregate),
}

impl Playable {
    fn build(sc: &Setup, c: &Cluster) -> Result<Playable, String> {
        if c.gpus <= MAX_DRAWN_GPUS {
            Animation::new(c, sc.op, sc.algo, sc.bytes)
                .map(Playable::Gpus)
                .map_err(|e| e.to_string())
        } else {
            Aggregate::new(c, sc.op, sc.algo, sc.bytes)
                .map(Playable::Nodes)
                .map_err(|e| e.to_string())
        }
    }

    fn total(&self) -> f64 {
        match self {
            Playable::Gpus(a) => a.playback.total,
            Playable::Nodes(a) => a.total,
        }
    }

    /// (round index, rounds) at model time t.
    fn round(&self, t: f64) -> (u64, u64) {
        match self {
            Playable::Gpus(a) => {
                let f = a.playback.at(t);
                (f.0 as u64, a.playback.rounds() as u64)
            }
            Playable::Nodes(a) => {
                let f = a.frame(t);
                (f.round, f.rounds)
            }
        }
    }

    fn caption(&self, t: f64) -> String {
        match self {
            Playable::Gpus(a) => a.caption(a.playback.at(t).0),
            Playable::Nodes(a) => a.caption(t),
        }
    }

    fn next(&self, t: f64) -> f64 {
        match self {
            Playable::Gpus(a) => a.playback.next_boundary(t),
            Playable::Nodes(a) => a.next_boundary(t),
        }
    }

    fn prev(&self, t: f64) -> f64 {
        match self {
            Playable::Gpus(a) => a.playback.prev_boundary(t),
            Playable::Nodes(a) => a.prev_boundary(t),
        }
    }

    fn algorithm_name(&self) -> &'static str {
        match self {
            Playable::Gpus(a) => a.schedule.algo.name(),
            Playable::Nodes(a) => a.algo.name(),
        }
    }
}

/// Does the reader ask for less motion?
fn reduced_motion() -> bool {
    window()
        .match_media("(prefers-reduced-motion: reduce)")
        .ok()
        .flatten()
        .is_some_and(|m| m.matches())
}

/// Colour of a partial sum holding `level` (0…1) of all contributions: a light-to-dark blue
/// ramp (lightness carries the meaning, so it survives colour-blindness and greyscale).
fn ramp(level: f64, dark: bool) -> String {
    let l = level.clamp(0.0, 1.0);
    let (lo, hi) = if dark {
        ((60.0, 70.0, 90.0), (140.0, 210.0, 255.0))
    } else {
        ((205.0, 230.0, 250.0), (0.0, 70.0, 140.0))
    };
    let mix = |a: f64, b: f64| (a + (b - a) * l).round();
    format!(
        "rgb({},{},{})",
        mix(lo.0, hi.0),
        mix(lo.1, hi.1),
        mix(lo.2, hi.2)
    )
}

fn css(c: plotters::style::RGBColor) -> String {
    format!("rgb({},{},{})", c.0, c.1, c.2)
}

/// Line width (CSS px) for a bandwidth in bytes/s: thicker is faster, on a log scale.
fn link_width(bw: f64) -> f64 {
    (1.0 + 2.0 * (bw / 1e9).max(1.0).log10()).clamp(1.0, 8.0)
}

struct Painter {
    ctx: CanvasRenderingContext2d,
    w: f64,
    h: f64,
    scale: f64,
    dark: bool,
}

impl Painter {
    /// Prepares a canvas for painting at device resolution; `None` if it is not laid out.
    fn new(canvas: &HtmlCanvasElement) -> Option<Painter> {
        Painter::with_size(
            canvas,
            f64::from(canvas.client_width()),
            f64::from(canvas.client_height()),
        )
    }

    /// As `new`, with the canvas's CSS size already known (no layout read).
    fn with_size(canvas: &HtmlCanvasElement, cw: f64, ch: f64) -> Option<Painter> {
        let dpr = window().device_pixel_ratio().max(1.0);
        if cw < 10.0 || ch < 10.0 {
            return None;
        }
        let (pw, ph) = ((cw * dpr).round() as u32, (ch * dpr).round() as u32);
        if canvas.width() != pw || canvas.height() != ph {
            canvas.set_width(pw);
            canvas.set_height(ph);
        }
        let ctx = canvas
            .get_context("2d")
            .ok()
            .flatten()?
            .dyn_into::<CanvasRenderingContext2d>()
            .ok()?;
        Some(Painter {
            ctx,
            w: f64::from(pw),
            h: f64::from(ph),
            scale: dpr,
            dark: prefers_dark(),
        })
    }

    fn fg(&self) -> &'static str {
        if self.dark {
            "#ebebeb"
        } else {
            "#141414"
        }
    }

    fn clear(&self) {
        self.ctx
            .set_fill_style_str(if self.dark { "#181a1f" } else { "#ffffff" });
        self.ctx.fill_rect(0.0, 0.0, self.w, self.h);
    }

    /// Unit square → device pixels, leaving a header strip for the label.
    fn p(&self, q: Pos) -> (f64, f64) {
        let top = 26.0 * self.scale;
        (q.x * self.w, top + q.y * (self.h - top))
    }

    fn text(&self, s: &str, x: f64, y: f64, size: f64, align: &str) {
        self.ctx.set_fill_style_str(self.fg());
        self.ctx.set_font(&format!(
            "{}px system-ui, sans-serif",
            (size * self.scale).round()
        ));
        self.ctx.set_text_align(align);
        let _ = self.ctx.fill_text(s, x, y);
    }

    fn line(&self, a: (f64, f64), b: (f64, f64), width: f64, colour: &str) {
        self.ctx.begin_path();
        self.ctx.set_stroke_style_str(colour);
        self.ctx.set_line_width(width * self.scale);
        self.ctx.move_to(a.0, a.1);
        self.ctx.line_to(b.0, b.1);
        self.ctx.stroke();
    }

    fn circle(&self, c: (f64, f64), r: f64, fill: &str) {
        self.ctx.begin_path();
        let _ = self.ctx.arc(c.0, c.1, r, 0.0, std::f64::consts::TAU);
        self.ctx.set_fill_style_str(fill);
        self.ctx.fill();
    }

    /// Paints the GPU-by-GPU view at model time t.
    fn gpus(&self, a: &Animation, c: &Cluster, t: f64, label: &str) {
        self.clear();
        self.text(label, 8.0 * self.scale, 18.0 * self.scale, 13.0, "left");
        let l = &a.layout;
        let unit = self.w.min(self.h);
        let r = (l.radius * unit).max(6.0 * self.scale);
        let f = a.frame(t);
        // Node boxes and their internal links (thickness by bandwidth).
        for (m, rect) in l.nodes.iter().enumerate() {
            let (x, y) = self.p(Pos {
                x: rect.x,
                y: rect.y,
            });
            let (x2, y2) = self.p(Pos {
                x: rect.x + rect.w,
                y: rect.y + rect.h,
            });
            self.ctx
                .set_stroke_style_str(if self.dark { "#4a505c" } else { "#c4c9d2" });
            self.ctx.set_line_width(1.5 * self.scale);
            self.ctx.stroke_rect(x, y, x2 - x, y2 - y);
            if l.nodes.len() > 1 {
                self.text(
                    &format!("node {}", m + 1),
                    x + 4.0 * self.scale,
                    y2 - 4.0 * self.scale,
                    10.0,
                    "left",
                );
            }
        }
        let per = a.schedule.per_node as usize;
        let intra_w = link_width(c.intra_bw());
        for node in l.gpus.chunks(per.max(1)) {
            for pair in node.windows(2) {
                self.line(
                    self.p(pair[0]),
                    self.p(pair[1]),
                    intra_w,
                    if self.dark { "#3a4150" } else { "#dde3ea" },
                );
            }
        }
        if l.nodes.len() > 1 {
            let net_w = link_width(c.node_net_bw());
            for pair in l.nodes.windows(2) {
                let a0 = Pos {
                    x: pair[0].x + pair[0].w,
                    y: pair[0].y + pair[0].h / 2.0,
                };
                let b0 = Pos {
                    x: pair[1].x,
                    y: pair[1].y + pair[1].h / 2.0,
                };
                self.line(
                    self.p(a0),
                    self.p(b0),
                    net_w,
                    if self.dark { "#5a4a30" } else { "#f2d9b0" },
                );
            }
        }
        if let Some(sw) = l.switch {
            let (x, y) = self.p(sw);
            self.ctx.set_fill_style_str(&css(PALETTE[6]));
            self.ctx.fill_rect(
                x - 40.0 * self.scale,
                y - 12.0 * self.scale,
                80.0 * self.scale,
                24.0 * self.scale,
            );
            self.text("NVSwitch", x, y + 4.0 * self.scale, 11.0, "center");
        }
        // Arrows for this round's transfers (edge to edge, with a head), then the GPUs, then the
        // chunks on the arrows, so a still at a round's start shows where everything goes.
        let edge = |a: (f64, f64), b: (f64, f64), t: f64| {
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let len = (dx * dx + dy * dy).sqrt().max(1e-9);
            let k = (r / len).min(0.45);
            let u = k + t * (1.0 - 2.0 * k);
            ((a.0 + dx * u, a.1 + dy * u), (dx / len, dy / len))
        };
        let arrow = if self.dark { "#9aa3ae" } else { "#5b6470" };
        for ch in &f.chunks {
            let (a, b) = (self.p(ch.from), self.p(ch.to));
            let (start, _) = edge(a, b, 0.0);
            let (end, (ux, uy)) = edge(a, b, 1.0);
            self.line(start, end, 1.2, arrow);
            let h = 7.0 * self.scale;
            self.ctx.begin_path();
            self.ctx.move_to(end.0, end.1);
            self.ctx
                .line_to(end.0 - ux * h - uy * h * 0.5, end.1 - uy * h + ux * h * 0.5);
            self.ctx
                .line_to(end.0 - ux * h + uy * h * 0.5, end.1 - uy * h - ux * h * 0.5);
            self.ctx.close_path();
            self.ctx.set_fill_style_str(arrow);
            self.ctx.fill();
        }
        // GPUs: a gauge of how much of the final sum each holds.
        for (i, pos) in l.gpus.iter().enumerate() {
            let c0 = self.p(*pos);
            let level = f.gpu_level.get(i).copied().unwrap_or(0.0);
            self.circle(c0, r, &ramp(level, self.dark));
            self.ctx.begin_path();
            self.ctx.set_stroke_style_str(self.fg());
            self.ctx.set_line_width(2.0 * self.scale);
            let _ = self.ctx.arc(
                c0.0,
                c0.1,
                r,
                -std::f64::consts::FRAC_PI_2,
                -std::f64::consts::FRAC_PI_2 + level * std::f64::consts::TAU,
            );
            self.ctx.stroke();
            self.ctx
                .set_fill_style_str(if level > 0.55 { "#ffffff" } else { "#141414" });
            self.ctx.set_font(&format!(
                "{}px system-ui, sans-serif",
                (11.0 * self.scale).round()
            ));
            self.ctx.set_text_align("center");
            let _ = self
                .ctx
                .fill_text(&format!("{}", i + 1), c0.0, c0.1 + 4.0 * self.scale);
        }
        // Chunks: circles when the receiver adds, squares when it copies.
        let cr = (r * 0.45).max(4.0 * self.scale);
        for ch in &f.chunks {
            let ((x, y), _) = edge(self.p(ch.from), self.p(ch.to), f.progress);
            let fill = ramp(ch.level, self.dark);
            if ch.reduce {
                self.circle((x, y), cr, &fill);
                self.ctx.set_stroke_style_str(self.fg());
                self.ctx.set_line_width(1.0 * self.scale);
                self.ctx.stroke();
            } else {
                self.ctx.set_fill_style_str(&fill);
                self.ctx.fill_rect(x - cr, y - cr, 2.0 * cr, 2.0 * cr);
                self.ctx.set_stroke_style_str(self.fg());
                self.ctx.set_line_width(1.0 * self.scale);
                self.ctx.stroke_rect(x - cr, y - cr, 2.0 * cr, 2.0 * cr);
            }
        }
    }

    /// Paints the aggregate view (nodes as units, traffic as flows).
    fn nodes(&self, a: &Aggregate, t: f64, label: &str) {
        self.clear();
        self.text(label, 8.0 * self.scale, 18.0 * self.scale, 13.0, "left");
        let f = a.frame(t);
        let shown = a.nodes.clamp(1, MAX_DRAWN_NODES);
        let cols = (f64::from(shown).sqrt() * 1.6).ceil().max(1.0) as u32;
        let rows = shown.div_ceil(cols);
        let (cw, ch) = (1.0 / f64::from(cols), 1.0 / f64::from(rows));
        // Rows snake so that ring neighbours sit side by side.
        let centre = |i: u32| {
            let (r, c) = (i / cols, i % cols);
            let c = if r % 2 == 0 { c } else { cols - 1 - c };
            Pos {
                x: (f64::from(c) + 0.5) * cw,
                y: (f64::from(r) + 0.5) * ch,
            }
        };
        // Flows between neighbouring nodes (ring order) while traffic crosses the network.
        if f.inter {
            self.ctx
                .set_line_dash(&js_sys::Array::of2(
                    &(6.0 * self.scale).into(),
                    &(6.0 * self.scale).into(),
                ))
                .ok();
            self.ctx
                .set_line_dash_offset(-f.progress * 12.0 * self.scale);
            for i in 0..shown {
                let j = (i + 1) % shown;
                self.line(self.p(centre(i)), self.p(centre(j)), 2.0, &css(PALETTE[4]));
            }
            self.ctx.set_line_dash(&js_sys::Array::new()).ok();
        }
        let (bw, bh) = (cw * 0.7, ch * 0.6);
        for i in 0..shown {
            let c0 = centre(i);
            let (x, y) = self.p(Pos {
                x: c0.x - bw / 2.0,
                y: c0.y - bh / 2.0,
            });
            let (x2, y2) = self.p(Pos {
                x: c0.x + bw / 2.0,
                y: c0.y + bh / 2.0,
            });
            self.ctx
                .set_fill_style_str(&ramp(0.15 + 0.85 * f.done, self.dark));
            self.ctx.fill_rect(x, y, x2 - x, y2 - y);
            self.ctx.set_stroke_style_str(self.fg());
            self.ctx.set_line_width(1.0 * self.scale);
            self.ctx.stroke_rect(x, y, x2 - x, y2 - y);
            if !f.inter {
                // Traffic inside the node: a dot circling its box.
                let ang = f.progress * std::f64::consts::TAU;
                let (cx, cy) = self.p(c0);
                self.circle(
                    (
                        cx + ang.cos() * (x2 - x) * 0.3,
                        cy + ang.sin() * (y2 - y) * 0.3,
                    ),
                    2.5 * self.scale,
                    &css(PALETTE[5]),
                );
            }
        }
        if a.nodes > shown {
            self.text(
                &format!("…and {} more nodes", group(a.nodes - shown)),
                self.w - 8.0 * self.scale,
                18.0 * self.scale,
                12.0,
                "right",
            );
        }
    }
}

/// Paints the step timeline.
fn paint_timeline(canvas: &HtmlCanvasElement, tl: &Timeline, w: f64, h: f64) {
    let Some(p) = Painter::with_size(canvas, w, h) else {
        return;
    };
    p.clear();
    let left = 110.0 * p.scale;
    let top = 8.0 * p.scale;
    let axis = 22.0 * p.scale;
    let rows = tl.rows.len().max(1) as f64;
    let rh = ((p.h - top - axis) / rows).min(40.0 * p.scale);
    let x = |s: f64| left + (p.w - left - 10.0 * p.scale) * s / tl.total.max(1e-12);
    for (i, label) in tl.rows.iter().enumerate() {
        p.text(
            label,
            left - 6.0 * p.scale,
            top + rh * (i as f64 + 0.62),
            11.0,
            "right",
        );
    }
    for b in &tl.bars {
        let y = top + rh * b.row as f64;
        let (h, dy) = if b.kind == BarKind::CommHidden {
            (rh * 0.25, rh * 0.7)
        } else {
            (rh * 0.7, rh * 0.1)
        };
        p.ctx.set_fill_style_str(&timeline_colour(b.kind, p.dark));
        p.ctx
            .fill_rect(x(b.start), y + dy, (x(b.end) - x(b.start)).max(1.0), h);
    }
    // Time axis.
    let y = top + rh * rows + 14.0 * p.scale;
    for k in 0..=4 {
        let s = tl.total * f64::from(k) / 4.0;
        let label = if k == 0 { "0".to_string() } else { duration(s) };
        p.text(
            &label,
            x(s),
            y,
            10.0,
            if k == 0 {
                "left"
            } else if k == 4 {
                "right"
            } else {
                "center"
            },
        );
    }
}

fn timeline_colour(k: BarKind, dark: bool) -> String {
    match k {
        BarKind::Forward => css(PART_COLOURS[0]),
        BarKind::Backward => css(PALETTE[5])
            .replace("rgb(", "rgba(")
            .replace(')', ",0.7)"),
        BarKind::Comm => css(PALETTE[7]),
        BarKind::CommHidden => css(PALETTE[3]),
        BarKind::CommExposed => css(PART_COLOURS[1]),
        BarKind::Data => css(PART_COLOURS[2]),
        BarKind::Bubble => {
            if dark {
                "#555b66".into()
            } else {
                "#c9ced6".into()
            }
        }
        BarKind::Serial => css(PART_COLOURS[3]),
    }
}

/// The compare options: other inter-node networks and intra-node fabrics.
fn compare_options() -> Vec<(String, String)> {
    let mut v = vec![(String::new(), "nothing".to_string())];
    for n in hardware::NETWORKS.iter().skip(1) {
        v.push((
            format!("inter={}", n.id),
            format!("between nodes: {}", n.name),
        ));
    }
    for f in hardware::FABRICS.iter() {
        v.push((
            format!("intra={}", f.id),
            format!("inside nodes: {}", f.name),
        ));
    }
    v
}

/// The animation panel with its controls, and the step timeline.
#[component]
pub fn AnimationPanel() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let compare = RwSignal::new(String::new());
    let speed = RwSignal::new(1.0f64);
    let still = reduced_motion();
    let playing = RwSignal::new(!still);
    let time = StoredValue::new(0.0f64);
    let round_text = RwSignal::new(String::new());
    let caption = RwSignal::new(String::new());
    let clock = RwSignal::new(String::new());
    // Shared with the rAF loop and the cleanup (which must be Send): atomics, not cells.
    let visible = Arc::new(AtomicBool::new(true));
    let alive = Arc::new(AtomicBool::new(true));
    let primary = NodeRef::<leptos::html::Canvas>::new();
    let secondary = NodeRef::<leptos::html::Canvas>::new();

    // The collectives to play: the scenario's, and the comparison's.
    let shows = Memo::new(move |_| {
        let sc = lab.scenario.get();
        let setup = sc.resolved();
        let a = (setup.cluster(), Playable::build(&setup, &setup.cluster()));
        let b = compare.with(|cmp| {
            let (k, v) = cmp.split_once('=')?;
            let mut s2 = sc.clone();
            s2.set(k, v).ok()?;
            if k == "inter" && s2.gpus <= setup.per_node {
                // A network only matters across nodes: compare on two nodes.
                s2.gpus = setup.per_node * 2;
            }
            let setup2 = s2.setup().ok()?;
            let c2 = setup2.cluster();
            Some((c2, Playable::build(&setup2, &c2)))
        });
        (a, b)
    });
    // A new scenario restarts the playback.
    Effect::new(move |_| {
        shows.track();
        time.set_value(0.0);
        if !still {
            playing.set(true);
        }
    });

    let frame = {
        let visible = visible.clone();
        move |dt: f64| {
            let t0 = now_ms();
            if !visible.load(Ordering::Relaxed) {
                return;
            }
            shows.with_untracked(|((ca, pa), b)| {
                let Ok(pa) = pa else {
                    return;
                };
                let longest = b
                    .as_ref()
                    .and_then(|(_, pb)| pb.as_ref().ok())
                    .map_or(pa.total(), |pb| pb.total().max(pa.total()));
                let mut t = time.get_value();
                if playing.get_untracked() {
                    // Model seconds per screen second, shared by both canvases.
                    let rate = longest / SCREEN_SECONDS * speed.get_untracked();
                    t += dt * rate;
                    if t >= longest {
                        t = longest;
                        playing.set(false);
                    }
                    time.set_value(t);
                }
                let label = |c: &Cluster, p: &Playable| {
                    format!(
                        "{} GPUs · {} · {} · {}",
                        group(c.gpus),
                        if c.nodes() > 1 {
                            c.inter.name
                        } else {
                            c.intra.name
                        },
                        p.algorithm_name(),
                        duration(p.total())
                    )
                };
                let paint = |canvas: Option<HtmlCanvasElement>, c: &Cluster, p: &Playable| {
                    if let Some(painter) = canvas.as_ref().and_then(Painter::new) {
                        let tt = t.min(p.total());
                        match p {
                            Playable::Gpus(a) => painter.gpus(a, c, tt, &label(c, p)),
                            Playable::Nodes(a) => painter.nodes(a, tt, &label(c, p)),
                        }
                    }
                };
                paint(primary.get_untracked(), ca, pa);
                if let Some((cb, Ok(pb))) = b {
                    paint(secondary.get_untracked(), cb, pb);
                }
                let (r, rs) = pa.round(t.min(pa.total()));
                let text = format!("Round {} of {}", r + 1, rs.max(1));
                if round_text.get_untracked() != text {
                    round_text.set(text);
                    caption.set(pa.caption(t.min(pa.total())));
                }
                let c = format!(
                    "model time {} of {}",
                    duration(t.min(pa.total())),
                    duration(pa.total())
                );
                if clock.get_untracked() != c {
                    clock.set(c);
                }
            });
            record_perf("anim-frame", now_ms() - t0);
        }
    };
    let frame = Rc::new(frame);

    // The loop: one requestAnimationFrame after another while the panel is mounted.
    fn run(frame: Rc<dyn Fn(f64)>, alive: Arc<AtomicBool>, last: f64) {
        request_animation_frame(move || {
            if !alive.load(Ordering::Relaxed) {
                return;
            }
            let now = now_ms();
            // A hidden tab gets no frames; don't jump ahead when it comes back.
            let dt = ((now - last) / 1000.0).clamp(0.0, 0.1);
            frame(dt);
            run(frame, alive, now);
        });
    }
    run(frame.clone(), alive.clone(), now_ms());
    {
        let alive = alive.clone();
        on_cleanup(move || alive.store(false, Ordering::Relaxed));
    }

    // Pause drawing while the canvas is off-screen.
    Effect::new({
        let visible = visible.clone();
        move |_| {
            let Some(el) = primary.get() else {
                return;
            };
            let v = visible.clone();
            let cb = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
                if let Ok(e) = entries
                    .get(0)
                    .dyn_into::<web_sys::IntersectionObserverEntry>()
                {
                    v.store(e.is_intersecting(), Ordering::Relaxed);
                }
            });
            if let Ok(obs) = web_sys::IntersectionObserver::new(cb.as_ref().unchecked_ref()) {
                obs.observe(&el);
            }
            cb.forget();
        }
    });

    let step = move |forward: bool| {
        playing.set(false);
        shows.with_untracked(|((_, pa), _)| {
            if let Ok(pa) = pa {
                let t = time.get_value();
                time.set_value(if forward { pa.next(t) } else { pa.prev(t) });
            }
        });
    };
    let toggle = move || {
        if !playing.get_untracked() {
            let at_end = shows.with_untracked(|((_, pa), b)| {
                let longest = pa.as_ref().map(Playable::total).unwrap_or(0.0).max(
                    b.as_ref()
                        .and_then(|(_, pb)| pb.as_ref().ok())
                        .map_or(0.0, Playable::total),
                );
                time.get_value() >= longest
            });
            if at_end {
                time.set_value(0.0);
            }
        }
        playing.update(|p| *p = !*p);
    };

    view! {
        <h2>"Watch one all-reduce, timed by the model"</h2>
        <p class="hint">
            "Each round lasts on screen in proportion to its modelled time. Circles are partial sums being added, squares finished sums being copied; darker means more GPUs' contributions are in it."
        </p>
        <div class="anim-controls">
            <button type="button" data-testid="anim-play" on:click=move |_| toggle()>
                {move || if playing.get() { "Pause" } else { "Play" }}
            </button>
            <button type="button" data-testid="anim-back" aria-label="One round back" on:click=move |_| step(false)>"◀ Round"</button>
            <button type="button" data-testid="anim-step" aria-label="One round forward" on:click=move |_| step(true)>"Round ▶"</button>
            <span data-testid="anim-round" class="round">{move || round_text.get()}</span>
            <label>"Speed "
                <select data-testid="anim-speed" on:change=move |ev| speed.set(event_target_value(&ev).parse().unwrap_or(1.0))>
                    {[0.25, 0.5, 1.0, 2.0, 4.0].iter().map(|s| view! {
                        <option value=s.to_string() selected=*s == 1.0>{format!("{s}×")}</option>
                    }).collect_view()}
                </select>
            </label>
            <label>"Compare with "
                <select data-testid="anim-compare" on:change=move |ev| compare.set(event_target_value(&ev))>
                    {compare_options().into_iter().map(|(v, t)| view! { <option value=v>{t}</option> }).collect_view()}
                </select>
            </label>
            <span class="clock" data-testid="anim-clock">{move || clock.get()}</span>
            <button type="button" data-testid="anim-png" on:click=move |_| download_png(primary.get_untracked(), "all-reduce-frame.png")>"Save frame as PNG"</button>
            <button type="button" data-testid="anim-fullscreen" on:click=move |_| {
                if let Some(c) = primary.get_untracked() {
                    let _ = c.request_fullscreen();
                }
            }>"Full screen"</button>
        </div>
        {move || shows.with(|((_, a), _)| a.as_ref().err().map(|e| view! { <p class="problem">{e.clone()}</p> }))}
        <div class="anim-canvases" class:two=move || !compare.get().is_empty()>
            <canvas node_ref=primary data-testid="anim-canvas" role="img" tabindex="0"
                aria-label=move || format!("All-reduce animation. {}", caption.get())
                on:keydown=move |ev| match ev.key().as_str() {
                    " " | "k" => { ev.prevent_default(); toggle() }
                    "ArrowRight" => { ev.prevent_default(); step(true) }
                    "ArrowLeft" => { ev.prevent_default(); step(false) }
                    _ => {}
                }></canvas>
            <Show when=move || !compare.get().is_empty()>
                <canvas node_ref=secondary data-testid="anim-canvas-compare" role="img"
                    aria-label="The same all-reduce on the compared interconnect, on the same time scale"></canvas>
            </Show>
        </div>
        <p class="caption" aria-live="polite" data-testid="anim-caption">{move || caption.get()}</p>
    }
}

/// The step timeline (Gantt) of the current scenario.
#[component]
pub fn TimelinePanel() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let timeline_ref = NodeRef::<leptos::html::Canvas>::new();
    // The timeline redraws when the scenario or its size changes.
    let size = super::size::use_element_size(timeline_ref);
    let tl = Memo::new(move |_| {
        let sc = lab.scenario.get();
        lab.result
            .with(|r| r.as_ref().ok().map(|r| timeline(&sc, r)))
    });
    Effect::new(move |_| {
        let (w, h) = size.get();
        let Some(c) = timeline_ref.get() else {
            return;
        };
        tl.with(|t| {
            if let Some(t) = t {
                paint_timeline(&c, t, w, h);
            }
        });
    });

    view! {
        <h2>"One training step, GPU by GPU"</h2>
        <canvas node_ref=timeline_ref data-testid="timeline-canvas" class="timeline" role="img"
            aria-label=move || lab.result.with(|r| r.as_ref().ok().map(|r| format!(
                "Step timeline: compute {} of a {} step; the GPUs are idle {:.0} % of the time.",
                duration(r.breakdown.compute), duration(r.breakdown.total()),
                100.0 * (1.0 - r.breakdown.compute / r.breakdown.total()))).unwrap_or_default())></canvas>
        <ul class="legend">
            {[BarKind::Data, BarKind::Forward, BarKind::Backward, BarKind::Comm, BarKind::CommHidden, BarKind::CommExposed, BarKind::Bubble, BarKind::Serial]
                .into_iter().map(|k| view! {
                    <li><span class="swatch" style:background=timeline_colour(k, false)></span>{k.label()}</li>
                }).collect_view()}
        </ul>
    }
}
