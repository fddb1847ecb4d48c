//! The animation panel: play, pause, step through rounds, speed, a comparison canvas on the same
//! time scale, PNG and full screen. One requestAnimationFrame loop advances the shared clock and
//! paints both canvases; it pauses while the panel is off-screen.

use super::paint::paint_show;
use crate::render::playable::{advance, compare_options, Shows};
use crate::ui::browser::{download_png, now_ms, record_perf};
use crate::ui::hooks::{
    use_element_size, use_intersection, use_prefers_dark, use_raf, use_reduced_motion, ElementSize,
    RafArgs,
};
use crate::ui::state::Lab;
use leptos::prelude::*;

/// The all-reduce animation with its controls.
#[component]
pub fn AnimationPanel() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let compare = RwSignal::new(String::new());
    let speed = RwSignal::new(1.0f64);
    let still = use_reduced_motion();
    let dark = use_prefers_dark();
    let playing = RwSignal::new(!still.get_untracked());
    // Model time on the shared clock, seconds.
    let time = StoredValue::new(0.0f64);
    let round_text = RwSignal::new(String::new());
    let caption = RwSignal::new(String::new());
    let clock = RwSignal::new(String::new());
    let primary = NodeRef::<leptos::html::Canvas>::new();
    let secondary = NodeRef::<leptos::html::Canvas>::new();
    let visible = use_intersection(primary);
    // Sizes from ResizeObservers: a frame that read `clientWidth` after the previous frame's
    // caption change would force a layout of the page.
    let primary_size = use_element_size(primary);
    let secondary_size = use_element_size(secondary);

    // The collectives to play: the scenario's, and the comparison's.
    let shows = Memo::new(move |_| lab.scenario.with(|sc| compare.with(|c| Shows::new(sc, c))));
    // A new scenario restarts the playback.
    Effect::new(move |_| {
        shows.track();
        time.set_value(0.0);
        if !still.get_untracked() {
            playing.set(true);
        }
    });
    // Asking the system for less motion stops a running animation.
    Effect::new(move |_| {
        if still.get() && playing.get_untracked() {
            playing.set(false);
        }
    });

    // One frame: advance the clock by `dt` screen seconds, paint, update the texts.
    let frame = move |dt: f64| {
        let t0 = now_ms();
        shows.with_untracked(|s| {
            let Ok(main) = &s.main.playable else {
                return;
            };
            let mut t = time.get_value();
            if playing.get_untracked() {
                let (next, ended) = advance(t, dt, s.longest(), speed.get_untracked());
                t = next;
                if ended {
                    playing.set(false);
                }
                time.set_value(t);
            }
            let dark = dark.get_untracked();
            let size = |s: ElementSize| (s.width.get_untracked(), s.height.get_untracked());
            if let Some(c) = primary.get_untracked() {
                paint_show(&c, size(primary_size), &s.main, t, dark);
            }
            if let (Some(other), Some(c)) = (&s.compared, secondary.get_untracked()) {
                paint_show(&c, size(secondary_size), other, t, dark);
            }
            let text = main.round_label(t);
            if round_text.get_untracked() != text {
                round_text.set(text);
                caption.set(main.caption(t.min(main.total())));
            }
            let c = main.clock_label(t);
            if clock.get_untracked() != c {
                clock.set(c);
            }
        });
        record_perf("anim-frame", now_ms() - t0);
    };
    // A hidden tab gets no frames: cap the step so the clock does not jump when it comes back.
    let frames = use_raf(move |a: RafArgs| frame((a.delta / 1000.0).clamp(0.0, 0.1)));
    // Paint nothing while the canvas is off-screen.
    Effect::new(move |_| {
        if visible.get() {
            frames.resume();
        } else {
            frames.pause();
        }
    });

    let step = move |forward: bool| {
        playing.set(false);
        shows.with_untracked(|s| {
            if let Ok(p) = &s.main.playable {
                let t = time.get_value();
                time.set_value(if forward {
                    p.next_boundary(t)
                } else {
                    p.prev_boundary(t)
                });
            }
        });
    };
    let toggle = move || {
        if !playing.get_untracked() && time.get_value() >= shows.with_untracked(Shows::longest) {
            time.set_value(0.0);
        }
        playing.update(|p| *p = !*p);
    };

    view! {
        <h2>"Watch one all-reduce, timed by the model"</h2>
        <p class="hint">
            "Each round lasts on screen in proportion to its modelled time. Circles are partial sums being added, squares finished sums being copied; darker means more GPUs' contributions are in it."
        </p>
        <div class="anim-controls">
            <button type="button" data-testid="anim-play" on:click=move |_| toggle()>
                {move || if playing.get() { "Pause" } else { "Play" }}
            </button>
            <button type="button" data-testid="anim-back" aria-label="One round back" on:click=move |_| step(false)>"◀ Round"</button>
            <button type="button" data-testid="anim-step" aria-label="One round forward" on:click=move |_| step(true)>"Round ▶"</button>
            <span data-testid="anim-round" class="round">{move || round_text.get()}</span>
            <label>"Speed "
                <select data-testid="anim-speed" on:change=move |ev| speed.set(event_target_value(&ev).parse().unwrap_or(1.0))>
                    {[0.25, 0.5, 1.0, 2.0, 4.0].iter().map(|s| view! {
                        <option value=s.to_string() selected=*s == 1.0>{format!("{s}×")}</option>
                    }).collect_view()}
                </select>
            </label>
            <label>"Compare with "
                <select data-testid="anim-compare" on:change=move |ev| compare.set(event_target_value(&ev))>
                    {compare_options().into_iter().map(|(v, t)| view! { <option value=v>{t}</option> }).collect_view()}
                </select>
            </label>
            <span class="clock" data-testid="anim-clock">{move || clock.get()}</span>
            <button type="button" data-testid="anim-png" on:click=move |_| download_png(primary.get_untracked(), "all-reduce-frame.png")>"Save frame as PNG"</button>
            <button type="button" data-testid="anim-fullscreen" on:click=move |_| {
                if let Some(c) = primary.get_untracked() {
                    let _ = c.request_fullscreen();
                }
            }>"Full screen"</button>
        </div>
        {move || shows.with(|s| s.main.playable.as_ref().err().map(|e| view! { <p class="problem">{e.to_string()}</p> }))}
        <div class="anim-canvases" class:two=move || !compare.get().is_empty()>
            <canvas node_ref=primary data-testid="anim-canvas" role="img" tabindex="0"
                aria-label=move || format!("All-reduce animation. {}", caption.get())
                on:keydown=move |ev| match ev.key().as_str() {
                    " " | "k" => { ev.prevent_default(); toggle() }
                    "ArrowRight" => { ev.prevent_default(); step(true) }
                    "ArrowLeft" => { ev.prevent_default(); step(false) }
                    _ => {}
                }></canvas>
            <Show when=move || !compare.get().is_empty()>
                <canvas node_ref=secondary data-testid="anim-canvas-compare" role="img"
                    aria-label="The same all-reduce on the compared interconnect, on the same time scale"></canvas>
            </Show>
        </div>
        <p class="caption" aria-live="polite" data-testid="anim-caption">{move || caption.get()}</p>
    }
}
