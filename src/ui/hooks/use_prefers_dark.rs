//! `use_prefers_dark`: the reader's theme as a signal, so charts and canvases redraw when the
//! system switches between light and dark — or when the link forces one (`theme=dark`, an
//! embed following its host page).

use super::use_media_query;
use leptos::prelude::*;

/// A theme forced by the page (`Some(dark)`), overriding the system's; provided as context.
#[derive(Clone, Copy)]
pub struct ThemeOverride(pub Signal<Option<bool>>);

/// Whether to draw dark: the page's forced theme if any, else the system's, following changes.
pub fn use_prefers_dark() -> Signal<bool> {
    let system = use_media_query("(prefers-color-scheme: dark)");
    match use_context::<ThemeOverride>() {
        Some(ThemeOverride(forced)) => {
            Signal::derive(move || forced.get().unwrap_or_else(|| system.get()))
        }
        None => system,
    }
}
