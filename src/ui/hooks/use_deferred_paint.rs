//! `use_deferred_paint`: repaints a canvas at once while it is on screen, and an off-screen one
//! only once the controls have rested (or when it scrolls into view), so a dragged slider
//! redraws just the canvases the reader can see. Each redraw of a canvas costs its script and,
//! on screen or not, a flush of its pixels at the next frame.

use super::use_intersection;
use leptos::html::ElementType;
use leptos::prelude::*;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;

/// How long the inputs must rest before an off-screen canvas catches up (about the pause
/// between two steps of a dragged slider, and below the e2e tests' waits).
pub const QUIET: Duration = Duration::from_millis(120);

/// A repaint waiting for its canvas to come on screen, or for the quiet period to end.
struct Pending {
    paint: Rc<dyn Fn()>,
    stale: bool,
    timer: Option<TimeoutHandle>,
}

/// Calls `paint` whenever anything `track` reads changes: at once while the element behind
/// `node` is on screen, else once nothing has changed for [`QUIET`], or as soon as it comes
/// into view, whichever is first. `paint` runs untracked: `track` alone decides when. The
/// first paint is immediate (an element counts as on screen until the first report), and a
/// pending paint is dropped when the calling component is cleaned up.
pub fn use_deferred_paint<E>(
    node: NodeRef<E>,
    track: impl Fn() + 'static,
    paint: impl Fn() + 'static,
) where
    E: ElementType,
    E::Output: JsCast + Clone + 'static,
{
    let on_screen = use_intersection(node);
    let state = StoredValue::new_local(Pending {
        paint: Rc::new(move || untrack(&paint)),
        stale: false,
        timer: None,
    });
    Effect::new(move |_| {
        track();
        if on_screen.get_untracked() {
            paint_now(state);
            return;
        }
        // Off screen: (re)start the quiet period.
        let timer = set_timeout_with_handle(move || paint_now(state), QUIET).ok();
        state.try_update_value(|s| {
            s.stale = true;
            if let Some(t) = std::mem::replace(&mut s.timer, timer) {
                t.clear();
            }
        });
    });
    // Scrolled into view with a paint pending: paint before the reader sees the old picture.
    Effect::new(move |_| {
        if on_screen.get() && state.try_with_value(|s| s.stale) == Some(true) {
            paint_now(state);
        }
    });
    on_cleanup(move || {
        state.try_update_value(|s| {
            if let Some(t) = s.timer.take() {
                t.clear();
            }
        });
    });
}

/// Runs the paint, clearing the pending state first (the paint itself never touches it).
fn paint_now(state: StoredValue<Pending, LocalStorage>) {
    let paint = state.try_update_value(|s| {
        s.stale = false;
        if let Some(t) = s.timer.take() {
            t.clear();
        }
        s.paint.clone()
    });
    if let Some(paint) = paint {
        paint();
    }
}
