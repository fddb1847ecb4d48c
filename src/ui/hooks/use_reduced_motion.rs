//! `use_reduced_motion`: the reader's "reduce motion" setting as a signal; animations must not
//! start by themselves while it is on.

use super::use_media_query;
use leptos::prelude::*;

/// Whether the system asks for less motion, following its changes.
pub fn use_reduced_motion() -> Signal<bool> {
    use_media_query("(prefers-reduced-motion: reduce)")
}
