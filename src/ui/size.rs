//! `use_element_size`: an element's CSS size from a ResizeObserver, so drawing code never reads
//! `clientWidth` (which forces a layout of the page after every DOM change).

use leptos::html::ElementType;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The element's content-box size in CSS pixels, updated whenever it changes (0×0 until first
/// observed).
pub fn use_element_size<E>(node: NodeRef<E>) -> ReadSignal<(f64, f64)>
where
    E: ElementType,
    E::Output: JsCast + Clone + 'static,
{
    let (size, set_size) = signal((0.0f64, 0.0f64));
    Effect::new(move |_| {
        let Some(el) = node.get() else {
            return;
        };
        let Ok(el) = el.dyn_into::<web_sys::Element>() else {
            return;
        };
        let cb = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            if let Ok(e) = entries.get(0).dyn_into::<web_sys::ResizeObserverEntry>() {
                let r = e.content_rect();
                set_size.set((r.width(), r.height()));
            }
        });
        if let Ok(obs) = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()) {
            obs.observe(&el);
        }
        cb.forget();
    });
    size
}
