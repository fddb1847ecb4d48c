//! Paints the render layer's frames on a 2D canvas: the all-reduce (GPU by GPU, or nodes as
//! units) and the step timeline. Geometry and timing come from `render::anim`,
//! `render::playable` and `render::timeline`; this file only turns them into canvas calls, at
//! device resolution.

use crate::model::collective::Cluster;
use crate::render::anim::{Aggregate, Animation, NodeGrid, Pos, Rect};
use crate::render::charts::{PALETTE, PART_COLOURS};
use crate::render::playable::{Playable, Show};
use crate::render::series::{duration, group};
use crate::render::timeline::{BarKind, Timeline};
use crate::ui::browser::device_pixel_ratio;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

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

/// A canvas's 2D context at device resolution, with the theme it paints in.
struct Painter {
    ctx: CanvasRenderingContext2d,
    w: f64,
    h: f64,
    scale: f64,
    dark: bool,
}

impl Painter {
    /// Prepares a canvas of `cw` × `ch` CSS pixels (from a ResizeObserver: reading its
    /// `clientWidth` would force a layout of the page) for painting at device resolution;
    /// `None` if it is not laid out.
    fn with_size(canvas: &HtmlCanvasElement, cw: f64, ch: f64, dark: bool) -> Option<Painter> {
        let dpr = device_pixel_ratio();
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
            dark,
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

    /// A unit-square rectangle → (x, y, width, height) in device pixels.
    fn rect(&self, r: Rect) -> (f64, f64, f64, f64) {
        let (x, y) = self.p(Pos { x: r.x, y: r.y });
        let (x2, y2) = self.p(Pos {
            x: r.x + r.w,
            y: r.y + r.h,
        });
        (x, y, x2 - x, y2 - y)
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
            let (x, y, w, h) = self.rect(*rect);
            self.ctx
                .set_stroke_style_str(if self.dark { "#4a505c" } else { "#c4c9d2" });
            self.ctx.set_line_width(1.5 * self.scale);
            self.ctx.stroke_rect(x, y, w, h);
            if l.nodes.len() > 1 {
                self.text(
                    &format!("node {}", m + 1),
                    x + 4.0 * self.scale,
                    y + h - 4.0 * self.scale,
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
        let grid = NodeGrid::new(a.nodes);
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
            for (from, to) in grid.ring() {
                self.line(self.p(from), self.p(to), 2.0, &css(PALETTE[4]));
            }
            self.ctx.set_line_dash(&js_sys::Array::new()).ok();
        }
        for i in 0..grid.shown {
            let (x, y, w, h) = self.rect(grid.node_box(i));
            self.ctx
                .set_fill_style_str(&ramp(0.15 + 0.85 * f.done, self.dark));
            self.ctx.fill_rect(x, y, w, h);
            self.ctx.set_stroke_style_str(self.fg());
            self.ctx.set_line_width(1.0 * self.scale);
            self.ctx.stroke_rect(x, y, w, h);
            if !f.inter {
                // Traffic inside the node: a dot circling its box.
                let ang = f.progress * std::f64::consts::TAU;
                let (cx, cy) = self.p(grid.centre(i));
                self.circle(
                    (cx + ang.cos() * w * 0.3, cy + ang.sin() * h * 0.3),
                    2.5 * self.scale,
                    &css(PALETTE[5]),
                );
            }
        }
        if grid.hidden > 0 {
            self.text(
                &format!("…and {} more nodes", group(grid.hidden)),
                self.w - 8.0 * self.scale,
                18.0 * self.scale,
                12.0,
                "right",
            );
        }
    }
}

/// Paints one show at model time `t` (clamped to its end), with its label, on a canvas of
/// `w` × `h` CSS pixels; nothing when its collective could not be built or the canvas is not
/// laid out.
pub fn paint_show(canvas: &HtmlCanvasElement, (w, h): (f64, f64), show: &Show, t: f64, dark: bool) {
    let Ok(p) = &show.playable else {
        return;
    };
    let Some(painter) = Painter::with_size(canvas, w, h, dark) else {
        return;
    };
    let t = t.min(p.total());
    let label = p.label(&show.cluster);
    match p {
        Playable::Gpus(a) => painter.gpus(a, &show.cluster, t, &label),
        Playable::Nodes(a) => painter.nodes(a, t, &label),
    }
}

/// Paints the step timeline on a canvas of `w` × `h` CSS pixels.
pub fn paint_timeline(canvas: &HtmlCanvasElement, tl: &Timeline, w: f64, h: f64, dark: bool) {
    let Some(p) = Painter::with_size(canvas, w, h, dark) else {
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

/// The colour of a timeline bar (and its legend swatch).
pub fn timeline_colour(k: BarKind, dark: bool) -> String {
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
