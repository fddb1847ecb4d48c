//! `use_intersection`: whether an element is on screen, from an IntersectionObserver, so work for
//! an element nobody sees (an animation scrolled away) can pause.

use leptos::html::ElementType;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Whether the element behind `node` intersects the viewport. `true` until the first report,
/// so work starts at once. The observer is disconnected, and its callback dropped, when the
/// calling component is cleaned up (or the node is replaced).
pub fn use_intersection<E>(node: NodeRef<E>) -> Signal<bool>
where
    E: ElementType,
    E::Output: JsCast + Clone + 'static,
{
    let visible = RwSignal::new(true);
    Effect::new(move |_| {
        let Some(el) = node.get() else {
            return;
        };
        let Ok(el) = el.dyn_into::<web_sys::Element>() else {
            return;
        };
        let on_change = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            // The latest entry is the current state (several may be queued).
            let last = entries.length().saturating_sub(1);
            if let Ok(e) = entries
                .get(last)
                .dyn_into::<web_sys::IntersectionObserverEntry>()
            {
                visible.set(e.is_intersecting());
            }
        });
        let Ok(observer) = web_sys::IntersectionObserver::new(on_change.as_ref().unchecked_ref())
        else {
            return;
        };
        observer.observe(&el);
        let held = StoredValue::new_local(Some((observer, on_change)));
        on_cleanup(move || {
            if let Some((observer, _on_change)) = held.try_update_value(Option::take).flatten() {
                observer.disconnect();
            }
        });
    });
    visible.into()
}
