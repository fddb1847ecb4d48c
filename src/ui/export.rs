//! What a teacher takes away: a canvas as a PNG at twice its CSS size or more (whatever the
//! screen's pixel ratio; the explorer's charts are drawn again at that size, not enlarged),
//! with its panel's title above and the scenario below, so the picture says what it shows; and
//! the printed page, whose print-only parts are filled while the page prints.

use super::browser::{media_query, size_backing_store};
use super::canvas::Canvas;
use super::hooks::use_media_query;
use super::state::{read_hash, Lab, Route};
use crate::model::report::CollectiveReport;
use crate::render::charts::{draw, draw_with_pin, Style};
use crate::render::figure::{Figure, Table};
use crate::render::topology::layout as topology_layout;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// Margin around the picture, CSS pixels.
const PAD: f64 = 16.0;
/// Title and scenario type sizes, CSS pixels.
const TITLE_PX: f64 = 20.0;
const LINE_PX: f64 = 13.0;

/// The title of the panel a canvas belongs to: the first heading of its figure or section.
fn title_for(canvas: &HtmlCanvasElement) -> String {
    canvas
        .closest("figure, section, .embed")
        .ok()
        .flatten()
        .and_then(|p| p.query_selector("h3, h2").ok().flatten())
        .and_then(|h| h.text_content())
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "GPU Scaling Lab".to_string())
}

/// Whether the page is drawn dark (the link's theme, else the system's).
fn page_is_dark() -> bool {
    match document()
        .document_element()
        .and_then(|r| r.get_attribute("data-theme"))
        .as_deref()
    {
        Some("dark") => true,
        Some("light") => false,
        _ => media_query("(prefers-color-scheme: dark)").is_some_and(|m| m.matches()),
    }
}

/// Breaks `text` at `&` into lines no wider than `width` in the context's current font.
fn wrap(ctx: &CanvasRenderingContext2d, text: &str, width: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (i, part) in text.split('&').enumerate() {
        let piece = if i == 0 {
            part.to_string()
        } else {
            format!("&{part}")
        };
        let trial = format!("{cur}{piece}");
        let w = ctx.measure_text(&trial).map(|m| m.width()).unwrap_or(0.0);
        if w > width && !cur.is_empty() {
            lines.push(std::mem::take(&mut cur));
            cur = piece;
        } else {
            cur = trial;
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// The canvas with its title and the scenario, as a PNG data URL at ≥ 2 device pixels per CSS
/// pixel; `None` if the browser refuses a canvas.
pub fn captioned_png(canvas: &HtmlCanvasElement) -> Option<String> {
    captioned_png_with(canvas, |w, h, scale| redraw(canvas, w, h, scale))
}

/// [`captioned_png`] with the picture drawn by `draw(css_w, css_h, scale)` on a new canvas (the
/// animation paints its frame there); when it gives nothing, the canvas is copied as it is.
pub fn captioned_png_with(
    canvas: &HtmlCanvasElement,
    draw: impl FnOnce(f64, f64, f64) -> Option<HtmlCanvasElement>,
) -> Option<String> {
    let (bw, bh) = (f64::from(canvas.width()), f64::from(canvas.height()));
    if bw < 1.0 || bh < 1.0 {
        return None;
    }
    let css_w = match f64::from(canvas.client_width()) {
        w if w >= 1.0 => w,
        _ => bw,
    };
    let css_h = css_w * bh / bw;
    // At least 2×, and never below the canvas's own backing store.
    let scale = (bw / css_w).max(2.0);
    let out = new_canvas()?;
    let ctx: CanvasRenderingContext2d = out.get_context("2d").ok()??.dyn_into().ok()?;
    let font = |px: f64, bold: bool| {
        format!(
            "{}{px}px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
            if bold { "600 " } else { "" }
        )
    };
    let scenario = format!(
        "GPU Scaling Lab — {}",
        Route::parse(&read_hash()).scenario.replace("%20", " ")
    );
    ctx.set_font(&font(LINE_PX, false));
    let lines = wrap(&ctx, &scenario, css_w);
    let title_h = TITLE_PX * 1.5;
    let line_h = LINE_PX * 1.45;
    let h = PAD + title_h + 6.0 + css_h + 8.0 + line_h * lines.len() as f64 + PAD;
    let w = css_w + 2.0 * PAD;
    out.set_width((w * scale).round() as u32);
    out.set_height((h * scale).round() as u32);
    // Resizing reset the context: set the scale and font again.
    let _ = ctx.scale(scale, scale);
    let dark = page_is_dark();
    let bg = super::canvas::page_bg(dark);
    let (fg, muted) = if dark {
        ("#ebebeb", "#a9b0bb")
    } else {
        ("#141414", "#555b66")
    };
    ctx.set_fill_style_str(bg);
    ctx.fill_rect(0.0, 0.0, w, h);
    ctx.set_fill_style_str(fg);
    ctx.set_font(&font(TITLE_PX, true));
    let _ = ctx.fill_text_with_max_width(&title_for(canvas), PAD, PAD + TITLE_PX, css_w);
    let top = PAD + title_h + 6.0;
    // The picture is drawn again at its own scale (on a 1× screen the canvas holds only 1×
    // pixels); a canvas nobody can redraw is copied as it is.
    let sharp = draw(css_w, css_h, scale);
    let _ = ctx.draw_image_with_html_canvas_element_and_dw_and_dh(
        sharp.as_ref().unwrap_or(canvas),
        PAD,
        top,
        css_w,
        css_h,
    );
    ctx.set_fill_style_str(muted);
    ctx.set_font(&font(LINE_PX, false));
    for (i, l) in lines.iter().enumerate() {
        let y = top + css_h + 8.0 + LINE_PX + line_h * i as f64;
        let _ = ctx.fill_text(l, PAD, y);
    }
    out.to_data_url_with_type("image/png").ok()
}

/// The explorer's chart behind a canvas, by its `data-testid`, drawn on a new canvas of
/// `css_w` × `css_h` CSS pixels at `scale` device pixels each (the topology too); `None` for a
/// canvas that is not one of those or outside the page's reactive owner.
/// A new, detached canvas.
pub fn new_canvas() -> Option<HtmlCanvasElement> {
    document().create_element("canvas").ok()?.dyn_into().ok()
}

fn redraw(
    canvas: &HtmlCanvasElement,
    css_w: f64,
    css_h: f64,
    scale: f64,
) -> Option<HtmlCanvasElement> {
    let lab = use_context::<Lab>()?;
    let testid = canvas.get_attribute("data-testid")?;
    let out = new_canvas()?;
    size_backing_store(&out, (css_w, css_h), scale);
    // The topology is drawn by the page's own painter, at the picture's scale.
    if testid == "topology-canvas" {
        let view = lab.scenario.with_untracked(|sc| {
            CollectiveReport::new(sc).map(|r| topology_layout(&sc.resolved(), &r, css_w))
        });
        super::topology::paint(
            &out,
            &view.ok()?,
            (css_w, css_h),
            page_is_dark(),
            scale,
            1.0,
        );
        return Some(out);
    }
    let style = Style {
        scale,
        dark: page_is_dark(),
        projector: lab.projector.get_untracked(),
    };
    let root = Canvas::new(out.clone())?.into_drawing_area();
    let drawn = untrack(|| match testid.as_str() {
        // With a configuration pinned, its dashed curve is in the picture as on screen.
        "chart-speedup" => Some(lab.curve.with(|d| {
            lab.pinned_curve
                .with(|a| draw_with_pin(&root, Figure::Speedup(d), a.as_ref(), &style))
        })),
        "chart-efficiency" => Some(lab.curve.with(|d| {
            lab.pinned_curve
                .with(|a| draw_with_pin(&root, Figure::Efficiency(d), a.as_ref(), &style))
        })),
        "chart-breakdown" => Some(
            lab.shares
                .with(|d| draw(&root, Figure::Breakdown(d), &style)),
        ),
        "chart-time-to-train" => Some(
            lab.run
                .with(|d| draw(&root, Figure::TimeToTrain(d), &style)),
        ),
        "chart-compare" => Some(
            lab.compare_curves
                .with(|d| draw(&root, Figure::Compare(d), &style)),
        ),
        _ => None,
    })?;
    let _ = root.present();
    drop(root);
    drawn.ok().map(|_| out)
}

/// Whether the page is being printed: the print media query, or the print dialog announced
/// (`beforeprint`) until it closes. Print-only parts fill themselves from it.
#[derive(Clone, Copy)]
pub struct Printing {
    /// True while printing.
    pub active: Signal<bool>,
    /// Set by `beforeprint` and [`Printing::print`], cleared by `afterprint`.
    announced: RwSignal<bool>,
}

impl Printing {
    /// Fills the print-only parts, then opens the print dialog once they are on the page (the
    /// browser prints what is there when `print()` is called).
    pub fn print(self) {
        self.announced.set(true);
        request_animation_frame(move || {
            let _ = window().print();
            self.announced.set(false);
        });
    }
}

/// Provides [`Printing`] to the page: listens to `beforeprint` and `afterprint` for as long as
/// the calling component lives.
pub fn provide_printing() -> Printing {
    let media = use_media_query("print");
    let announced = RwSignal::new(false);
    let before = window_event_listener_untyped("beforeprint", move |_| announced.set(true));
    let after = window_event_listener_untyped("afterprint", move |_| announced.set(false));
    on_cleanup(move || {
        before.remove();
        after.remove();
    });
    let printing = Printing {
        active: Signal::derive(move || announced.get() || media.get()),
        announced,
    };
    provide_context(printing);
    printing
}

/// The explorer's chart data as printed: every chart's table expanded (on screen each is
/// folded under its chart), formatted only while printing, and left out while a lesson step
/// hides its answer.
#[component]
pub fn PrintTables() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let printing = expect_context::<Printing>().active;
    let tables = move || -> Vec<(&'static str, Table)> {
        if !printing.get() || lab.answer_hidden.get() {
            return Vec::new();
        }
        vec![
            // The speedup and efficiency charts draw one table.
            (
                "Speedup and efficiency",
                lab.curve.with(|d| Figure::Speedup(d).table()),
            ),
            (
                "Where the time goes",
                lab.shares.with(|d| Figure::Breakdown(d).table()),
            ),
            (
                "Time to train the data budget",
                lab.run.with(|d| Figure::TimeToTrain(d).table()),
            ),
            (
                "The same job on other networks",
                lab.compare_curves.with(|d| Figure::Compare(d).table()),
            ),
        ]
    };
    view! {
        <section class="print-only print-tables" aria-labelledby="print-tables-title" data-testid="print-tables">
            <h2 id="print-tables-title">"The charts' data"</h2>
            {move || lab.answer_hidden.get().then(|| view! {
                <p class="hint">"Left out: this lesson step has not been revealed."</p>
            })}
            {move || tables().into_iter().map(|(title, t)| view! {
                <table class="print-table" data-testid="print-table">
                    <caption>{title}</caption>
                    <thead><tr>{t.titles().into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view()}</tr></thead>
                    <tbody>
                        {t.rows.into_iter().map(|r| view! {
                            <tr>{r.into_iter().map(|v| view! { <td>{v}</td> }).collect_view()}</tr>
                        }).collect_view()}
                    </tbody>
                </table>
            }).collect_view()}
        </section>
    }
}
