//! Small helpers over the browser's APIs that several panels share: the clock, the benchmark's
//! timings, media queries, and file downloads. No component state lives here.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

/// Milliseconds since page load.
pub fn now_ms() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or(0.0)
}

/// Appends a duration to `window.__gslPerf[name]` for the benchmark script.
pub fn record_perf(name: &str, ms: f64) {
    let w = window();
    let key = JsValue::from_str("__gslPerf");
    let store = js_sys::Reflect::get(&w, &key)
        .ok()
        .filter(|v| v.is_object())
        .unwrap_or_else(|| {
            let o = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&w, &key, &o);
            o.into()
        });
    let list = js_sys::Reflect::get(&store, &JsValue::from_str(name))
        .ok()
        .and_then(|v| v.dyn_into::<js_sys::Array>().ok())
        .unwrap_or_else(|| {
            let a = js_sys::Array::new();
            let _ = js_sys::Reflect::set(&store, &JsValue::from_str(name), &a);
            a
        });
    list.push(&JsValue::from_f64(ms));
}

/// The media query list for `query` (`"(prefers-color-scheme: dark)"`), if the browser has one.
/// For a value that follows changes, use the hooks in [`super::hooks`].
pub fn media_query(query: &str) -> Option<web_sys::MediaQueryList> {
    window().match_media(query).ok().flatten()
}

/// Device pixels per CSS pixel (at least 1).
pub fn device_pixel_ratio() -> f64 {
    window().device_pixel_ratio().max(1.0)
}

/// Offers `text` as a file download (a data: URL, so nothing leaves the page).
pub fn download(name: &str, mime: &str, text: &str) {
    let href = format!(
        "data:{mime};charset=utf-8,{}",
        String::from(js_sys::encode_uri_component(text))
    );
    download_url(name, &href);
}

/// Offers a canvas as a PNG download: at ≥ 2× with its panel's title and the scenario
/// ([`super::export`]), or its bare pixels if the browser refuses a second canvas.
pub fn download_png(canvas: Option<web_sys::HtmlCanvasElement>, name: &str) {
    let url = canvas.and_then(|c| {
        super::export::captioned_png(&c).or_else(|| c.to_data_url_with_type("image/png").ok())
    });
    if let Some(url) = url {
        download_url(name, &url);
    }
}

/// Clicks a temporary link to `href` with a download name.
pub fn download_url(name: &str, href: &str) {
    let doc = document();
    if let Ok(a) = doc.create_element("a") {
        let _ = a.set_attribute("href", href);
        let _ = a.set_attribute("download", name);
        if let Some(body) = doc.body() {
            let _ = body.append_child(&a);
            if let Some(el) = a.dyn_ref::<web_sys::HtmlElement>() {
                el.click();
            }
            let _ = body.remove_child(&a);
        }
    }
}

/// Adds or removes a class on `<body>`: page-wide layouts (presenter, an open handout) are
/// selected by it, not by `body:has(…)`, which Chrome re-checks on every change below it
/// (measured: 1.2 ms of style recalculation per control change).
pub fn set_body_class(name: &str, on: bool) {
    if let Some(body) = document().body() {
        toggle_class(&body, name, on);
    }
}

/// Adds or removes a class on `<html>`: projector mode scales the root font size, so every
/// size in `rem` grows with it.
pub fn set_root_class(name: &str, on: bool) {
    if let Some(root) = document().document_element() {
        toggle_class(&root, name, on);
    }
}

fn toggle_class(el: &web_sys::Element, name: &str, on: bool) {
    let list = el.class_list();
    let _ = if on {
        list.add_1(name)
    } else {
        list.remove_1(name)
    };
}

/// Sizes a canvas's backing store to `w` × `h` CSS pixels at `dpr` device pixels each, and
/// returns that size. Only when it changed: resizing invalidates layout, and the next canvas's
/// size read would force a reflow of the whole page.
pub fn size_backing_store(
    canvas: &web_sys::HtmlCanvasElement,
    (w, h): (f64, f64),
    dpr: f64,
) -> (u32, u32) {
    let (pw, ph) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
    if canvas.width() != pw || canvas.height() != ph {
        canvas.set_width(pw);
        canvas.set_height(ph);
    }
    (pw, ph)
}
