//! Pictures a teacher can paste into slides: a canvas as a PNG at twice its CSS size or more
//! (whatever the screen's pixel ratio), with its panel's title above and the scenario below, so
//! the picture says what it shows.

use super::browser::media_query;
use super::state::{read_hash, Route};
use leptos::prelude::*;
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
    let out: HtmlCanvasElement = document().create_element("canvas").ok()?.dyn_into().ok()?;
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
    let (bg, fg, muted) = if page_is_dark() {
        ("#181a1f", "#ebebeb", "#a9b0bb")
    } else {
        ("#ffffff", "#141414", "#555b66")
    };
    ctx.set_fill_style_str(bg);
    ctx.fill_rect(0.0, 0.0, w, h);
    ctx.set_fill_style_str(fg);
    ctx.set_font(&font(TITLE_PX, true));
    let _ = ctx.fill_text_with_max_width(&title_for(canvas), PAD, PAD + TITLE_PX, css_w);
    let top = PAD + title_h + 6.0;
    let _ = ctx.draw_image_with_html_canvas_element_and_dw_and_dh(canvas, PAD, top, css_w, css_h);
    ctx.set_fill_style_str(muted);
    ctx.set_font(&font(LINE_PX, false));
    for (i, l) in lines.iter().enumerate() {
        let y = top + css_h + 8.0 + LINE_PX + line_h * i as f64;
        let _ = ctx.fill_text(l, PAD, y);
    }
    out.to_data_url_with_type("image/png").ok()
}
