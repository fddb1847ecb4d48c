//! `use_element_size`: an element's CSS size from a ResizeObserver, so drawing code never reads
//! `clientWidth` (which forces a layout of the page after every DOM change).

use leptos::html::ElementType;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// An element's content-box size in CSS pixels (0 × 0 until it is first observed).
#[derive(Clone, Copy, Debug)]
pub struct ElementSize {
    /// Width, CSS px.
    pub width: Signal<f64>,
    /// Height, CSS px.
    pub height: Signal<f64>,
}

/// The size of the element behind `node`, updated whenever it changes. The observer is
/// disconnected, and its callback dropped, when the calling component is cleaned up (or the
/// node is replaced).
pub fn use_element_size<E>(node: NodeRef<E>) -> ElementSize
where
    E: ElementType,
    E::Output: JsCast + Clone + 'static,
{
    let size = RwSignal::new((0.0f64, 0.0f64));
    Effect::new(move |_| {
        let Some(el) = node.get() else {
            return;
        };
        let Ok(el) = el.dyn_into::<web_sys::Element>() else {
            return;
        };
        let on_resize = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            if let Ok(e) = entries.get(0).dyn_into::<web_sys::ResizeObserverEntry>() {
                let r = e.content_rect();
                size.set((r.width(), r.height()));
            }
        });
        let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) else {
            return;
        };
        observer.observe(&el);
        // JS objects are not Send: the owner keeps them, the cleanup only holds the handle.
        let held = StoredValue::new_local(Some((observer, on_resize)));
        on_cleanup(move || {
            if let Some((observer, _on_resize)) = held.try_update_value(Option::take).flatten() {
                observer.disconnect();
            }
        });
    });
    ElementSize {
        width: Signal::derive(move || size.get().0),
        height: Signal::derive(move || size.get().1),
    }
}
