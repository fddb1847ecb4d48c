//! `use_prefers_dark`: the reader's system theme as a signal, so charts and canvases redraw when
//! the system switches between light and dark.

use super::use_media_query;
use leptos::prelude::*;

/// Whether the system asks for a dark theme, following its changes.
pub fn use_prefers_dark() -> Signal<bool> {
    use_media_query("(prefers-color-scheme: dark)")
}
