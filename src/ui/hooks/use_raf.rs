//! `use_raf`: a requestAnimationFrame loop that can pause and resume, and whose pending frame is
//! cancelled when the calling component is cleaned up.

use crate::ui::browser::now_ms;
use leptos::prelude::*;
use std::rc::Rc;

/// What each frame's callback is told.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RafArgs {
    /// Milliseconds since page load.
    pub timestamp: f64,
    /// Milliseconds since the previous frame of this run (0 for the first frame after a start
    /// or a resume, so a paused loop does not jump ahead).
    pub delta: f64,
}

/// Options of [`use_raf_with_options`].
#[derive(Clone, Copy, Debug)]
pub struct UseRafOptions {
    /// Start the loop at once (default `true`).
    pub immediate: bool,
}

impl Default for UseRafOptions {
    fn default() -> Self {
        UseRafOptions { immediate: true }
    }
}

/// Controls of a loop: `pause`, `resume`, and whether it runs.
#[derive(Clone, Copy)]
pub struct Pausable {
    /// The loop is running.
    pub is_active: Signal<bool>,
    active: RwSignal<bool>,
    state: StoredValue<Loop, LocalStorage>,
}

/// The loop's callback and its pending frame (JS handles are not Send: kept by the owner).
struct Loop {
    callback: Rc<dyn Fn(RafArgs)>,
    pending: Option<AnimationFrameRequestHandle>,
    last: Option<f64>,
}

impl Pausable {
    /// Stops the loop: the pending frame is cancelled.
    pub fn pause(&self) {
        self.active.set(false);
        self.state.try_update_value(|s| {
            if let Some(h) = s.pending.take() {
                h.cancel();
            }
            s.last = None;
        });
    }

    /// Starts the loop again (nothing if it runs).
    pub fn resume(&self) {
        if self.active.get_untracked() {
            return;
        }
        self.active.set(true);
        self.state.try_update_value(|s| s.last = None);
        schedule(self.state, self.active);
    }
}

/// Asks for the next frame, unless one is pending.
fn schedule(state: StoredValue<Loop, LocalStorage>, active: RwSignal<bool>) {
    if state.try_with_value(|s| s.pending.is_some()) != Some(false) {
        return;
    }
    let handle = request_animation_frame_with_handle(move || {
        if active.try_get_untracked() != Some(true) {
            return;
        }
        let now = now_ms();
        let Some((callback, last)) = state.try_update_value(|s| {
            s.pending = None;
            (s.callback.clone(), s.last.replace(now))
        }) else {
            return;
        };
        callback(RafArgs {
            timestamp: now,
            delta: last.map_or(0.0, |l| (now - l).max(0.0)),
        });
        // The callback may have paused the loop.
        if active.try_get_untracked() == Some(true) {
            schedule(state, active);
        }
    });
    state.try_update_value(|s| s.pending = handle.ok());
}

/// Calls `callback` on every animation frame while the calling component lives.
pub fn use_raf(callback: impl Fn(RafArgs) + 'static) -> Pausable {
    use_raf_with_options(callback, UseRafOptions::default())
}

/// As [`use_raf`], with options.
pub fn use_raf_with_options(
    callback: impl Fn(RafArgs) + 'static,
    options: UseRafOptions,
) -> Pausable {
    let active = RwSignal::new(false);
    let state = StoredValue::new_local(Loop {
        callback: Rc::new(callback),
        pending: None,
        last: None,
    });
    let controls = Pausable {
        is_active: active.into(),
        active,
        state,
    };
    on_cleanup(move || {
        // Owned values are dropped right after the cleanups run; the frame must not outlive
        // them.
        state.try_update_value(|s| {
            if let Some(h) = s.pending.take() {
                h.cancel();
            }
        });
    });
    if options.immediate {
        controls.resume();
    }
    controls
}
