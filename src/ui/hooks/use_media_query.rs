//! `use_media_query`: a CSS media query as a signal that follows the system's changes (theme,
//! motion preference) through the query list's `change` event.

use crate::ui::browser::media_query;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Whether `query` (e.g. `"(prefers-color-scheme: dark)"`) matches now; it changes when the
/// system setting does. Read at once (not after the first effect), so a component can decide its
/// first render from it. The listener is removed when the calling component is cleaned up.
pub fn use_media_query(query: &str) -> Signal<bool> {
    let Some(list) = media_query(query) else {
        return Signal::stored(false);
    };
    let matches = RwSignal::new(list.matches());
    let on_change = {
        let list = list.clone();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |_| matches.set(list.matches()))
    };
    if list
        .add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref())
        .is_err()
    {
        return matches.into();
    }
    let held = StoredValue::new_local(Some((list, on_change)));
    on_cleanup(move || {
        if let Some((list, on_change)) = held.try_update_value(Option::take).flatten() {
            let _ = list
                .remove_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
        }
    });
    matches.into()
}
