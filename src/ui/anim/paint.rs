//! Paints the render layer's frames on a 2D canvas: the all-reduce (GPU by GPU in labelled
//! servers, or nodes as units) and the step timeline. Geometry and timing come from
//! `render::anim`, `render::playable` and `render::timeline`; this file only turns them into
//! canvas calls, at device resolution.

use crate::model::collective::Cluster;
use crate::render::anim::{server_label, Aggregate, Animation, NodeGrid, Pos, Rect};
use crate::render::charts::{PALETTE, PART_COLOURS};
use crate::render::playable::{Playable, Show};
use crate::render::series::{duration, group};
use crate::render::timeline::{BarKind, Timeline};
use crate::ui::browser::{device_pixel_ratio, size_backing_store};
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

/// The ink that reads on [`ramp`] at `level`: the ramp darkens as it fills in the light theme
/// and lightens in the dark one, so white text turns black (and back) around its middle.
fn ink_on_ramp(level: f64, dark: bool) -> &'static str {
    if (level > 0.55) != dark {
        "#ffffff"
    } else {
        "#141414"
    }
}

fn css(c: plotters::style::RGBColor) -> String {
    format!("rgb({},{},{})", c.0, c.1, c.2)
}

/// The network's colour (vermillion, far from the blue of the partial sums): its links, the
/// switch and the edge of every chunk crossing it.
const NETWORK: plotters::style::RGBColor = PALETTE[4];

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
    /// Text and marks grow with the canvas (a projector, full screen): 1 up to 640 × 320 CSS
    /// pixels, at most 2.2.
    fs: f64,
    dark: bool,
    /// The smallest type drawn so far, CSS pixels (for tests and embedding pages).
    least: std::cell::Cell<f64>,
}

impl Painter {
    /// Prepares a canvas of `cw` × `ch` CSS pixels (from a ResizeObserver: reading its
    /// `clientWidth` would force a layout of the page) for painting at device resolution, its
    /// type `type_scale` times its size (projector mode's larger type; more in a large
    /// presenter layout), up to the 2.2 a full-screen canvas reaches anyway; `None` if it is
    /// not laid out.
    fn with_size(
        canvas: &HtmlCanvasElement,
        cw: f64,
        ch: f64,
        dark: bool,
        dpr: f64,
        type_scale: f64,
    ) -> Option<Painter> {
        if cw < 10.0 || ch < 10.0 {
            return None;
        }
        let (pw, ph) = size_backing_store(canvas, (cw, ch), dpr);
        let ctx = canvas
            .get_context("2d")
            .ok()
            .flatten()?
            .dyn_into::<CanvasRenderingContext2d>()
            .ok()?;
        let fs = (cw / 640.0).min(ch / 320.0).clamp(1.0, 2.2);
        Some(Painter {
            ctx,
            w: f64::from(pw),
            h: f64::from(ph),
            scale: dpr,
            fs: (fs * type_scale).min(2.2).max(fs),
            dark,
            least: std::cell::Cell::new(f64::INFINITY),
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
            .set_fill_style_str(crate::ui::canvas::page_bg(self.dark));
        self.ctx.fill_rect(0.0, 0.0, self.w, self.h);
    }

    /// Height of the header strip for the label, device pixels.
    fn top(&self) -> f64 {
        26.0 * self.fs * self.scale
    }

    /// The drawing area under the header, CSS pixels.
    fn area(&self) -> (f64, f64) {
        (self.w / self.scale, (self.h - self.top()) / self.scale)
    }

    /// Unit square → device pixels, leaving a header strip for the label.
    fn p(&self, q: Pos) -> (f64, f64) {
        let top = self.top();
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

    /// Text of `size` CSS px (grown by [`Painter::fs`]) in the foreground colour.
    fn text(&self, s: &str, x: f64, y: f64, size: f64, align: &str) {
        self.text_in(s, x, y, size, align, "", self.fg());
    }

    /// Text with a weight (`""` or `"bold "`) and a colour.
    #[allow(clippy::too_many_arguments)]
    fn text_in(&self, s: &str, x: f64, y: f64, size: f64, align: &str, weight: &str, fill: &str) {
        self.ctx.set_fill_style_str(fill);
        self.set_font(size, weight);
        self.ctx.set_text_align(align);
        let _ = self.ctx.fill_text(s, x, y);
    }

    fn set_font(&self, size: f64, weight: &str) {
        self.font_px(size * self.fs, weight);
    }

    /// Sets the font at `css` CSS pixels (not grown by [`Painter::fs`]) for text about to be
    /// drawn, and notes its size.
    fn font_px(&self, css: f64, weight: &str) {
        let px = self.apply_font(css, weight);
        self.least.set(self.least.get().min(px / self.scale));
    }

    /// Sets the font at `css` CSS pixels; returns its size in device pixels.
    fn apply_font(&self, css: f64, weight: &str) -> f64 {
        let px = (css * self.scale).round();
        self.ctx
            .set_font(&format!("{weight}{px}px system-ui, sans-serif"));
        px
    }

    /// The smallest type drawn on the canvas, CSS pixels (infinite when none was).
    fn least_type(&self) -> f64 {
        self.least.get()
    }

    /// Width of `s` in device pixels at `size` CSS px.
    fn text_width(&self, s: &str, size: f64, weight: &str) -> f64 {
        self.apply_font(size * self.fs, weight);
        self.ctx.measure_text(s).map(|m| m.width()).unwrap_or(0.0)
    }

    fn muted(&self) -> &'static str {
        if self.dark {
            "#a9b0bb"
        } else {
            "#555d68"
        }
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

    /// The label in the header strip ("16 GPUs · fabric · algorithm · time"): on a narrow
    /// canvas the fabric's name goes, then the algorithm's, so the time stays readable.
    fn header(&self, label: &str) {
        let room = self.w - 16.0 * self.scale;
        let parts: Vec<&str> = label.split(" · ").collect();
        let shorter = |keep: &[usize]| -> String {
            keep.iter()
                .filter_map(|&i| parts.get(i).copied())
                .collect::<Vec<_>>()
                .join(" · ")
        };
        let fitted = [label.to_string(), shorter(&[0, 2, 3]), shorter(&[0, 3])]
            .into_iter()
            .find(|l| self.text_width(l, 13.0, "") <= room)
            .unwrap_or_else(|| shorter(&[0, 3]));
        self.text(
            &fitted,
            8.0 * self.scale,
            18.0 * self.fs * self.scale,
            13.0,
            "left",
        );
    }

    /// A server's box with "Server k" in its label strip (and, when there is room, its fabric).
    fn server_box(&self, i: usize, rect: Rect, strip: Rect, fabric: Option<&str>) {
        let (x, y, w, h) = self.rect(rect);
        self.ctx
            .set_fill_style_str(if self.dark { "#20242b" } else { "#f5f7fa" });
        self.ctx.fill_rect(x, y, w, h);
        self.ctx
            .set_stroke_style_str(if self.dark { "#6b7280" } else { "#8a93a0" });
        self.ctx.set_line_width(1.5 * self.scale);
        self.ctx.stroke_rect(x, y, w, h);
        let name = server_label(i);
        let pad = 5.0 * self.scale;
        let (_, sy, _, sh) = self.rect(strip);
        let base = sy + sh / 2.0 + 4.5 * self.fs * self.scale;
        let name_w = self.text_width(&name, 12.0, "bold ");
        let name = if name_w + 2.0 * pad <= w {
            name
        } else {
            format!("S{}", i + 1)
        };
        self.text_in(&name, x + pad, base, 12.0, "left", "bold ", self.fg());
        if let Some(f) = fabric {
            if name_w + self.text_width(f, 10.0, "") + 4.0 * pad <= w {
                self.text_in(f, x + w - pad, base, 10.0, "right", "", self.muted());
            }
        }
    }

    /// A line with an arrow head at its end.
    fn arrow(&self, pts: &[(f64, f64)], width: f64, colour: &str) {
        let n = pts.len();
        if n < 2 {
            return;
        }
        self.ctx.begin_path();
        self.ctx.set_stroke_style_str(colour);
        self.ctx.set_line_width(width * self.scale);
        self.ctx.move_to(pts[0].0, pts[0].1);
        for p in &pts[1..] {
            self.ctx.line_to(p.0, p.1);
        }
        self.ctx.stroke();
        let (a, end) = (pts[n - 2], pts[n - 1]);
        let (dx, dy) = (end.0 - a.0, end.1 - a.1);
        let len = dx.hypot(dy).max(1e-9);
        let (ux, uy) = (dx / len, dy / len);
        let h = (5.0 + 2.0 * width) * self.scale * self.fs.sqrt();
        self.ctx.begin_path();
        self.ctx.move_to(end.0, end.1);
        self.ctx
            .line_to(end.0 - ux * h - uy * h * 0.5, end.1 - uy * h + ux * h * 0.5);
        self.ctx
            .line_to(end.0 - ux * h + uy * h * 0.5, end.1 - uy * h - ux * h * 0.5);
        self.ctx.close_path();
        self.ctx.set_fill_style_str(colour);
        self.ctx.fill();
    }

    /// A chunk: a circle when the receiver adds it, a square when it copies it; a chunk on the
    /// network is larger with a thick vermillion edge.
    fn chunk(&self, (x, y): (f64, f64), size: f64, fill: &str, reduce: bool, network: bool) {
        let (edge, width) = if network {
            (css(NETWORK), 3.0 * self.fs.sqrt())
        } else {
            (self.fg().to_string(), 1.0)
        };
        self.ctx.begin_path();
        if reduce {
            let _ = self.ctx.arc(x, y, size, 0.0, std::f64::consts::TAU);
        } else {
            self.ctx.rect(x - size, y - size, 2.0 * size, 2.0 * size);
        }
        self.ctx.set_fill_style_str(fill);
        self.ctx.fill();
        self.ctx.set_stroke_style_str(&edge);
        self.ctx.set_line_width(width * self.scale);
        self.ctx.stroke();
    }

    /// Paints the GPU-by-GPU view at model time t: servers as labelled boxes, the network
    /// switch between them, chunks on NVLink inside a server and packets on the network.
    fn gpus(&self, a: &Animation, c: &Cluster, t: f64, label: &str) {
        self.clear();
        self.header(label);
        let l = a.layout_in(self.area());
        let unit = self.w.min(self.h - self.top());
        let r = (l.radius * unit).max(6.0 * self.scale);
        let f = a.frame_in(&l, t);
        let several = l.nodes.len() > 1;
        let net_colour = css(NETWORK);
        let idle_net = if self.dark { "#6b4a33" } else { "#f0c9a8" };
        let switch_fill = if self.dark { "#3d2a1c" } else { "#fbe6d4" };
        // The switch's name and where it goes, drawn last (over the packets crossing it).
        let mut switch_label: Option<(&[&str], f64, f64, f64, &str)> = None;
        // The network: each server's link to the switch (thickness by bandwidth; vermillion
        // while it carries a chunk), and the switch.
        if let Some(net) = &l.network {
            let net_w = link_width(c.node_net_bw()) * self.fs.sqrt();
            for (i, (port, tap)) in net.ports.iter().zip(&net.taps).enumerate() {
                let busy = f.busy_ports.contains(&i);
                self.line(
                    self.p(*port),
                    self.p(*tap),
                    net_w,
                    if busy { &net_colour } else { idle_net },
                );
            }
            let (x, y, w, h) = self.rect(net.switch);
            self.ctx.set_fill_style_str(switch_fill);
            self.ctx.fill_rect(x, y, w, h);
            self.ctx.set_stroke_style_str(&net_colour);
            self.ctx.set_line_width(2.0 * self.scale);
            self.ctx.stroke_rect(x, y, w, h);
            // Its name: inside a bar, above a narrow box (on one or two lines).
            let line = 14.0 * self.fs * self.scale;
            let fits =
                |s: &str, room: f64| self.text_width(s, 11.0, "bold ") + 6.0 * self.scale <= room;
            let lines: &[&str] = if net.label_above {
                let room = (net.switch.w / 0.7) * self.w;
                if fits("Network switch", room) {
                    &["Network switch"]
                } else {
                    &["Network", "switch"]
                }
            } else if fits("Network switch", w) {
                &["Network switch"]
            } else {
                &["Switch"]
            };
            let first = if net.label_above {
                y - 6.0 * self.scale - line * (lines.len() as f64 - 1.0)
            } else {
                y + h / 2.0 + 4.0 * self.fs * self.scale
            };
            let bg = crate::ui::canvas::page_bg(self.dark);
            let plate = if net.label_above { bg } else { switch_fill };
            switch_label = Some((lines, x + w / 2.0, first, line, plate));
        }
        for (m, rect) in l.nodes.iter().enumerate() {
            if several {
                let strip = l.labels.get(m).copied().unwrap_or(*rect);
                self.server_box(m, *rect, strip, Some(c.intra.name));
            } else {
                let (x, y, w, h) = self.rect(*rect);
                self.ctx
                    .set_stroke_style_str(if self.dark { "#4a505c" } else { "#c4c9d2" });
                self.ctx.set_line_width(1.5 * self.scale);
                self.ctx.stroke_rect(x, y, w, h);
            }
        }
        // NVLink inside each server, between ring neighbours.
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
        if let Some(sw) = l.switch {
            let (x, y) = self.p(sw);
            self.ctx.set_fill_style_str(&css(PALETTE[6]));
            let (hw, hh) = (40.0 * self.scale, 12.0 * self.scale);
            self.ctx.fill_rect(x - hw, y - hh, 2.0 * hw, 2.0 * hh);
            self.text("NVSwitch", x, y + 4.0 * self.scale, 11.0, "center");
        }
        // Arrows for this round's transfers, then the GPUs, then the chunks on the arrows, so a
        // still at a round's start shows where everything goes. Network routes are drawn in
        // the network's colour, over the switch.
        let arrow = if self.dark { "#9aa3ae" } else { "#5b6470" };
        for ch in &f.chunks {
            let pts: Vec<(f64, f64)> = ch.route.iter().map(|q| self.p(*q)).collect();
            if ch.network {
                self.ctx.set_global_alpha(0.55);
                self.arrow(&pts, 2.0, &net_colour);
                self.ctx.set_global_alpha(1.0);
            } else {
                self.arrow(&pts, 1.2, arrow);
            }
        }
        // GPUs: a gauge of how much of the final sum each holds; numbered when there is room.
        let numbered = r >= 9.0 * self.scale;
        // The numbers' type, for one digit and for two: the page's size where it fits inside
        // the circle, else as large as fits: as wide as 1.6 radii, its digits (0.73 of the
        // type's size) as tall as one radius.
        let number_size = ["8", "88"].map(|n| {
            let full = 11.0 * self.fs;
            let wide = self.text_width(n, 11.0, "") / self.scale;
            let room = (1.6 * r / self.scale) / wide.max(1e-9) * full;
            full.min(room).min(1.4 * r / self.scale)
        });
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
            if numbered {
                self.ctx.set_fill_style_str(ink_on_ramp(level, self.dark));
                let size = number_size[usize::from(i + 1 >= 10)];
                self.font_px(size, "");
                self.ctx.set_text_align("center");
                let _ = self.ctx.fill_text(
                    &format!("{}", i + 1),
                    c0.0,
                    c0.1 + size * 0.36 * self.scale,
                );
            }
        }
        // Chunks inside servers first, then the network's packets on top.
        let cr = (r * 0.45).max(4.0 * self.scale);
        for network in [false, true] {
            for ch in f.chunks.iter().filter(|ch| ch.network == network) {
                let size = if network { cr * 1.5 } else { cr };
                self.chunk(
                    self.p(ch.at),
                    size,
                    &ramp(ch.level, self.dark),
                    ch.reduce,
                    network,
                );
            }
        }
        // The switch's name on a plate of the colour behind it, over the packets that cross it.
        if let Some((lines, cx, first, line, plate)) = switch_label {
            for (k, s) in lines.iter().enumerate() {
                let y = first + line * k as f64;
                let tw = self.text_width(s, 11.0, "bold ") + 8.0 * self.scale;
                self.ctx.set_fill_style_str(plate);
                self.ctx.fill_rect(cx - tw / 2.0, y - 0.8 * line, tw, line);
                self.text_in(s, cx, y, 11.0, "center", "bold ", self.fg());
            }
        }
    }

    /// Paints the aggregate view (nodes as units, packets between neighbours while traffic
    /// crosses the network). Up to 256 boxes, links and packets a frame: each kind is one path,
    /// filled and stroked once.
    fn nodes(&self, a: &Aggregate, t: f64, label: &str) {
        self.clear();
        self.header(label);
        let f = a.frame(t);
        let grid = NodeGrid::new(a.nodes);
        let packets = a.packets(&grid, &f);
        let ctx = &self.ctx;
        // The ring's links between neighbouring nodes: vermillion while traffic crosses.
        ctx.begin_path();
        for (from, to) in grid.ring() {
            let ((x0, y0), (x1, y1)) = (self.p(from), self.p(to));
            ctx.move_to(x0, y0);
            ctx.line_to(x1, y1);
        }
        let link = if f.inter {
            css(NETWORK)
        } else if self.dark {
            "#6b4a33".to_string()
        } else {
            "#f0c9a8".to_string()
        };
        ctx.set_stroke_style_str(&link);
        ctx.set_line_width(if f.inter { 2.0 } else { 1.0 } * self.scale);
        ctx.stroke();
        // The boxes, shaded by how much of the collective is done.
        let boxes: Vec<(f64, f64, f64, f64)> = (0..grid.shown)
            .map(|i| self.rect(grid.node_box(i)))
            .collect();
        ctx.begin_path();
        for &(x, y, w, h) in &boxes {
            ctx.rect(x, y, w, h);
        }
        ctx.set_fill_style_str(&ramp(0.15 + 0.85 * f.done, self.dark));
        ctx.fill();
        ctx.set_stroke_style_str(self.fg());
        ctx.set_line_width(self.scale);
        ctx.stroke();
        if !f.inter {
            // Traffic inside each node: a dot circling its box.
            let ang = f.progress * std::f64::consts::TAU;
            let r = 2.5 * self.scale;
            ctx.begin_path();
            for &(x, y, w, h) in &boxes {
                let (cx, cy) = (
                    x + w / 2.0 + ang.cos() * w * 0.3,
                    y + h / 2.0 + ang.sin() * h * 0.3,
                );
                ctx.move_to(cx + r, cy);
                let _ = ctx.arc(cx, cy, r, 0.0, std::f64::consts::TAU);
            }
            ctx.set_fill_style_str(&css(PALETTE[5]));
            ctx.fill();
        }
        // Server labels (or numbers) when the boxes have room for them.
        let bw = boxes.first().map_or(0.0, |b| b.2);
        let name_fits = self.text_width("Server 888", 10.0, "bold ") + 4.0 * self.scale <= bw;
        let number_fits = self.text_width("888", 10.0, "bold ") + 2.0 * self.scale <= bw;
        if name_fits || number_fits {
            self.set_font(10.0, "bold ");
            ctx.set_text_align("center");
            ctx.set_fill_style_str(ink_on_ramp(0.15 + 0.85 * f.done, self.dark));
            for (i, &(x, y, w, h)) in boxes.iter().enumerate() {
                let text = if name_fits {
                    server_label(i)
                } else {
                    format!("{}", i + 1)
                };
                let _ = ctx.fill_text(&text, x + w / 2.0, y + h / 2.0 + 3.5 * self.fs * self.scale);
            }
        }
        // The packets on the network.
        let size = (bw * 0.12).clamp(2.5 * self.scale, 7.0 * self.scale * self.fs);
        if !packets.is_empty() {
            ctx.begin_path();
            for q in &packets {
                let (x, y) = self.p(*q);
                if f.reduce {
                    ctx.move_to(x + size, y);
                    let _ = ctx.arc(x, y, size, 0.0, std::f64::consts::TAU);
                } else {
                    ctx.rect(x - size, y - size, 2.0 * size, 2.0 * size);
                }
            }
            ctx.set_fill_style_str(&ramp(0.5, self.dark));
            ctx.fill();
            ctx.set_stroke_style_str(&css(NETWORK));
            ctx.set_line_width(2.0 * self.scale);
            ctx.stroke();
        }
        if grid.hidden > 0 {
            self.text(
                &format!("…and {} more nodes", group(grid.hidden)),
                self.w - 8.0 * self.scale,
                18.0 * self.fs * self.scale,
                12.0,
                "right",
            );
        }
    }
}

/// Paints one show at model time `t` (clamped to its end), with its label, on a canvas of
/// `w` × `h` CSS pixels at the screen's pixel ratio; nothing when its collective could not be
/// built or the canvas is not laid out.
/// Its type is `type_scale` times its size (projector mode's larger type). Returns the smallest
/// type drawn, CSS pixels (infinite when nothing was).
pub fn paint_show(
    canvas: &HtmlCanvasElement,
    size: (f64, f64),
    show: &Show,
    t: f64,
    dark: bool,
    type_scale: f64,
) -> f64 {
    paint_show_at(
        canvas,
        size,
        show,
        t,
        dark,
        device_pixel_ratio(),
        type_scale,
    )
}

/// [`paint_show`] at `dpr` device pixels per CSS pixel (an exported picture's scale).
pub fn paint_show_at(
    canvas: &HtmlCanvasElement,
    (w, h): (f64, f64),
    show: &Show,
    t: f64,
    dark: bool,
    dpr: f64,
    type_scale: f64,
) -> f64 {
    let Ok(p) = &show.playable else {
        return f64::INFINITY;
    };
    let Some(painter) = Painter::with_size(canvas, w, h, dark, dpr, type_scale) else {
        return f64::INFINITY;
    };
    let t = t.min(p.total());
    let label = p.label(&show.cluster);
    match p {
        Playable::Gpus(a) => painter.gpus(a, &show.cluster, t, &label),
        Playable::Nodes(a) => painter.nodes(a, t, &label),
    }
    painter.least_type()
}

/// Paints the step timeline on a canvas of `w` × `h` CSS pixels. Projector mode's larger type
/// (`type_scale` above 1) scales its text as the page's.
pub fn paint_timeline(
    canvas: &HtmlCanvasElement,
    tl: &Timeline,
    (w, h): (f64, f64),
    dark: bool,
    type_scale: f64,
) {
    let Some(mut p) = Painter::with_size(canvas, w, h, dark, device_pixel_ratio(), 1.0) else {
        return;
    };
    let projector = type_scale > 1.0;
    p.fs *= type_scale;
    p.clear();
    // Room for the widest row label at the type's size (projector mode enlarges it).
    let widest = tl
        .rows
        .iter()
        .map(|r| p.text_width(r, 11.0, ""))
        .fold(0.0, f64::max);
    let left = (110.0 * p.scale).max(widest + 12.0 * p.scale);
    let top = 8.0 * p.scale;
    let axis = 22.0 * p.fs * p.scale;
    let rows = tl.rows.len().max(1) as f64;
    // Rows at most 40 px (64 at the projector, whose canvas is as tall as its rows there).
    let most = if projector { 64.0 } else { 40.0 };
    let rh = ((p.h - top - axis) / rows).min(most * p.scale);
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
        let width = (x(b.end) - x(b.start)).max(1.0);
        p.ctx.fill_rect(x(b.start), y + dy, width, h);
        // A pipeline pass: a stage's later model chunks (vpp) lighter, and the micro-batch's
        // number where it fits.
        if let Some((micro, chunk)) = b.op {
            if chunk % 2 == 1 {
                p.ctx.set_fill_style_str("rgba(255,255,255,0.75)");
                p.ctx.fill_rect(x(b.start), y + dy, width, h * 0.2);
            }
            let label = micro.to_string();
            if width >= p.text_width(&label, 10.0, "") + 4.0 * p.scale && h >= 11.0 * p.fs * p.scale
            {
                let ink = if b.kind == BarKind::Backward && p.dark {
                    "#0b1d2a"
                } else {
                    "#ffffff"
                };
                p.text_in(
                    &label,
                    x(b.start) + width / 2.0,
                    y + dy + h / 2.0 + 3.5 * p.scale,
                    10.0,
                    "center",
                    "",
                    ink,
                );
            }
        }
    }
    // Time axis: as many ticks as fit a label ("12.3 ms") every 70 CSS pixels, up to four.
    let y = top + rh * rows + 14.0 * p.fs * p.scale;
    let n = ((p.w - left) / p.scale / (70.0 * p.fs))
        .floor()
        .clamp(1.0, 4.0) as u32;
    for k in 0..=n {
        let s = tl.total * f64::from(k) / f64::from(n);
        let label = if k == 0 { "0".to_string() } else { duration(s) };
        p.text(
            &label,
            x(s),
            y,
            10.0,
            if k == 0 {
                "left"
            } else if k == n {
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
        // Lighter than the forward's blue on either background (over a dark one the light
        // theme's translucent blue turned navy, next to the forward's).
        BarKind::Backward => {
            if dark {
                css(PALETTE[2])
            } else {
                css(PALETTE[5])
                    .replace("rgb(", "rgba(")
                    .replace(')', ",0.7)")
            }
        }
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
        // A darker grey than the bubble's: idle too, but for another GPU.
        BarKind::Straggler => {
            if dark {
                "#8d939e".into()
            } else {
                "#7a7f89".into()
            }
        }
    }
}
