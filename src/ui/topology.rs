//! The topology view on a canvas: the job on the cluster's network, laid out by
//! `render::topology` and painted here at device resolution. Its description is the canvas's
//! accessible name; its tiers are a data table with CSV, like the charts'.

use super::browser::{device_pixel_ratio, download_png, now_ms, record_perf, size_backing_store};
use super::hooks::{use_deferred_paint, use_element_size, use_prefers_dark};
use super::state::Lab;
use super::table::DataTable;
use crate::model::report::CollectiveReport;
use crate::render::anim::Pos;
use crate::render::topology::{layout, Align, Ink, Shape, TopologyView};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// A busy share on a light-to-dark ramp (pale yellow, orange, red, dark red: lightness carries
/// the meaning, so it reads in greyscale and for colour-blind readers).
fn use_colour(u: f64) -> String {
    const STOPS: [(f64, [f64; 3]); 4] = [
        (0.0, [255.0, 237.0, 160.0]),
        (0.4, [254.0, 178.0, 76.0]),
        (0.75, [227.0, 74.0, 51.0]),
        (1.0, [140.0, 10.0, 40.0]),
    ];
    let u = u.clamp(0.0, 1.0);
    let i = STOPS
        .iter()
        .rposition(|(at, _)| *at <= u)
        .unwrap_or(0)
        .min(2);
    let (a, ca) = STOPS[i];
    let (b, cb) = STOPS[i + 1];
    let t = ((u - a) / (b - a)).clamp(0.0, 1.0);
    let c: Vec<String> = (0..3)
        .map(|k| format!("{}", (ca[k] + (cb[k] - ca[k]) * t).round()))
        .collect();
    format!("rgb({})", c.join(","))
}

/// The theme's colour for an ink.
fn colour(ink: Ink, dark: bool) -> String {
    let pick = |light: &str, dk: &str| if dark { dk } else { light }.to_string();
    match ink {
        Ink::Fg | Ink::Job => pick("#141414", "#ebebeb"),
        Ink::Muted => pick("#555b66", "#a9b0bb"),
        Ink::Switch => pick("#d5d8de", "#3a3f49"),
        Ink::Other => pick("#eceef2", "#2b2f37"),
        Ink::Faint => pick("#c9ced6", "#454b56"),
        Ink::Bottleneck => "#d55e00".to_string(),
        Ink::Use(u) => use_colour(u),
    }
}

/// A label's text and type size within `room` device pixels, from its full size `full` (device
/// pixels; `width(text, px)` measures): shrunk to fit down to 70 % of its size (never below
/// 10 CSS px: at 7–8 px a 320 px embed's labels could not be read), else its `short` wording
/// the same way, then its last " · " parts dropped, each time at the largest size that fits,
/// so a projector's leaf-switch label keeps readable type rather than shrinking to 7 px; at the
/// smallest size, cut at a character with an ellipsis.
fn fit_label(
    text: &str,
    short: Option<&str>,
    room: f64,
    full: f64,
    dpr: f64,
    width: impl Fn(&str, f64) -> f64,
) -> (String, f64) {
    let least = (0.7 * full).max(10.0 * dpr).min(full);
    let fits_at = |t: &str| {
        let w = width(t, full);
        if w <= room || w <= 0.0 {
            full
        } else {
            full * room / w
        }
    };
    if short.is_some() {
        let px = fits_at(text);
        if px >= least {
            return (text.to_string(), px);
        }
    }
    let mut shown = short.unwrap_or(text).to_string();
    loop {
        let px = fits_at(&shown);
        if px >= least {
            return (shown, px);
        }
        match shown.rsplit_once(" · ") {
            Some((head, _)) => shown = head.to_string(),
            None => break,
        }
    }
    while width(&shown, least) > room && shown.chars().count() > 2 {
        let keep = shown.chars().count().saturating_sub(2);
        shown = shown.chars().take(keep).collect::<String>() + "…";
    }
    (shown, least)
}

/// Paints a view on the canvas, `w`×`h` CSS pixels at `dpr` device pixels each (the screen's
/// ratio, or an exported picture's scale), its text `type_scale` times its size (projector mode's
/// larger type). Returns the smallest type drawn, in CSS pixels (for tests and embedding pages).
pub(super) fn paint(
    canvas: &HtmlCanvasElement,
    v: &TopologyView,
    (w, h): (f64, f64),
    dark: bool,
    dpr: f64,
    type_scale: f64,
) -> f64 {
    let mut least_px = f64::INFINITY;
    let (pw, ph) = size_backing_store(canvas, (w, h), dpr);
    let Some(ctx) = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return least_px;
    };
    let (cw, ch) = (f64::from(pw), f64::from(ph));
    let at = |p: Pos| (p.x * cw, p.y * ch);
    let bg = super::canvas::page_bg(dark);
    ctx.set_fill_style_str(bg);
    ctx.fill_rect(0.0, 0.0, cw, ch);
    ctx.set_line_cap("round");
    for s in &v.shapes {
        match s {
            Shape::Box {
                rect,
                fill,
                stroke,
                dashed,
            } => {
                let (x, y) = at(Pos {
                    x: rect.x,
                    y: rect.y,
                });
                let (rw, rh) = (rect.w * cw, rect.h * ch);
                ctx.set_fill_style_str(&colour(*fill, dark));
                ctx.fill_rect(x, y, rw, rh);
                if let Some(ink) = stroke {
                    ctx.set_stroke_style_str(&colour(*ink, dark));
                    ctx.set_line_width(if *dashed { 2.5 } else { 1.5 } * dpr);
                    let dash = js_sys::Array::new();
                    if *dashed {
                        dash.push(&(4.0 * dpr).into());
                        dash.push(&(3.0 * dpr).into());
                    }
                    let _ = ctx.set_line_dash(&dash);
                    ctx.stroke_rect(x, y, rw, rh);
                    let _ = ctx.set_line_dash(&js_sys::Array::new());
                }
            }
            Shape::Line {
                from,
                to,
                width,
                ink,
                bottleneck,
            } => {
                let (x0, y0) = at(*from);
                let (x1, y1) = at(*to);
                let line = |c: &str, lw: f64| {
                    ctx.set_stroke_style_str(c);
                    ctx.set_line_width(lw * dpr);
                    ctx.begin_path();
                    ctx.move_to(x0, y0);
                    ctx.line_to(x1, y1);
                    ctx.stroke();
                };
                // The bottleneck's links get a vermillion halo, so the mark does not rest on
                // the ramp's colour alone.
                if *bottleneck {
                    line(&colour(Ink::Bottleneck, dark), width + 5.0);
                }
                // A thin dark edge keeps pale (idle) links visible on a light background.
                if matches!(ink, Ink::Use(_)) {
                    line(if dark { "#000000" } else { "#555b66" }, width + 1.5);
                }
                line(&colour(*ink, dark), *width);
            }
            Shape::Text {
                at: p,
                text,
                size,
                align,
                ink,
                boxed,
                max_w,
                short,
            } => {
                let (x, y) = at(*p);
                let room = max_w * cw - 8.0 * dpr;
                let full = size * dpr * type_scale;
                let (shown, px) = fit_label(text, short.as_deref(), room, full, dpr, |t, px| {
                    ctx.set_font(&format!("{px}px system-ui, sans-serif"));
                    ctx.measure_text(t).map(|m| m.width()).unwrap_or(0.0)
                });
                least_px = least_px.min(px / dpr);
                ctx.set_font(&format!("{px}px system-ui, sans-serif"));
                let tw = ctx.measure_text(&shown).map(|m| m.width()).unwrap_or(0.0);
                let text = &shown;
                let x0 = match align {
                    Align::Left => x,
                    Align::Centre => x - tw / 2.0,
                    Align::Right => x - tw,
                };
                if *boxed {
                    let pad = 3.0 * dpr;
                    ctx.set_fill_style_str(bg);
                    ctx.fill_rect(x0 - pad, y - px * 0.7, tw + 2.0 * pad, px * 1.4);
                    ctx.set_stroke_style_str(&colour(
                        if *ink == Ink::Bottleneck {
                            Ink::Bottleneck
                        } else {
                            Ink::Faint
                        },
                        dark,
                    ));
                    ctx.set_line_width(if *ink == Ink::Bottleneck { 2.0 } else { 1.0 } * dpr);
                    ctx.stroke_rect(x0 - pad, y - px * 0.7, tw + 2.0 * pad, px * 1.4);
                }
                ctx.set_fill_style_str(&colour(
                    if *ink == Ink::Bottleneck && !dark {
                        Ink::Fg
                    } else {
                        *ink
                    },
                    dark,
                ));
                ctx.set_text_baseline("middle");
                ctx.set_text_align("left");
                let _ = ctx.fill_text(text, x0, y);
            }
        }
    }
    least_px
}

/// The job on the cluster's network: leaf groups, spines, pods, the placement, each tier's use
/// by the current collective, and the bottleneck.
#[component]
pub fn TopologyPanel() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let size = use_element_size(canvas);
    let dark = use_prefers_dark();
    // The picture: recomputed when the scenario or the width changes, but equal pictures
    // (a price, a failure rate, a height change) do not repaint.
    let view = Memo::new(move |_| {
        let width = size.width.get();
        lab.scenario.with(|sc| {
            CollectiveReport::new(sc)
                .map(|r| layout(&sc.resolved(), &r, width))
                .map_err(|e| e.to_string())
        })
    });
    // Off screen, repainted once the controls rest or it scrolls into view.
    let track = move || {
        size.width.track();
        size.height.track();
        dark.track();
        canvas.track();
        view.track();
        lab.projector.track();
    };
    let repaint = move || {
        let (w, h) = (size.width.get(), size.height.get());
        let dark = dark.get();
        let Some(c) = canvas.get() else {
            return;
        };
        if w < 10.0 || h < 10.0 {
            return;
        }
        let t0 = now_ms();
        view.with(|v| {
            if let Ok(v) = v {
                let type_scale = lab.canvas_type_scale();
                let least = paint(&c, v, (w, h), dark, device_pixel_ratio(), type_scale);
                if least.is_finite() {
                    let _ = c.set_attribute("data-least-type", &format!("{least:.1}"));
                }
            }
        });
        record_perf("topology-canvas", now_ms() - t0);
    };
    use_deferred_paint(canvas, track, repaint);
    let description = move || {
        view.with(|v| match v {
            Ok(v) => v.description.clone(),
            Err(e) => e.clone(),
        })
    };
    let table = move || view.with(|v| v.as_ref().map(|v| v.table()).unwrap_or_default());
    view! {
        <figure class="chart topology" data-chart="topology-canvas">
            <figcaption>
                <h3>"The job on the cluster's network"</h3>
            </figcaption>
            <div class="canvas-wrap">
                <canvas
                    node_ref=canvas
                    data-testid="topology-canvas"
                    role="img"
                    tabindex="0"
                    aria-label=description
                    data-bottleneck=move || view.with(|v| v.as_ref().ok().and_then(|v| {
                        v.tiers.iter().find(|t| t.bottleneck).map(|t| t.tier.to_string())
                    }))
                    data-leaf-groups=move || view.with(|v| v.as_ref().ok().map(|v| v.fill.groups.to_string()))
                ></canvas>
            </div>
            <ul class="legend topology-legend" aria-hidden="true">
                <li><span class="swatch job"></span>"this job's nodes"</li>
                <li><span class="swatch" style:background=move || colour(Ink::Other, dark.get())></span>"other jobs' nodes"</li>
                <li><span class="ramp"></span>"link busy 0 → 100 %"</li>
                <li><span class="swatch bottleneck"></span>"bottleneck"</li>
            </ul>
            <p class="readout" data-testid="topology-readout">{description}</p>
            <DataTable table=Signal::derive(table) name="The network's links".to_string()
                testid="topology-table".to_string() file="topology.csv".to_string() />
            <button type="button" class="png" data-testid="topology-canvas-png"
                on:click=move |_| download_png(canvas.get_untracked(), "topology.png")>
                "Save as PNG"
            </button>
        </figure>
    }
}
