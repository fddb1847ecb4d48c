//! The animation panel: play, pause, step through rounds, speed, pause after each round, a
//! comparison canvas on the same time scale, PNG and full screen (of the whole panel, so the
//! round counter, caption and controls stay on screen). One requestAnimationFrame loop advances
//! the shared clock and paints both canvases; it pauses while the panel is off-screen. The speed
//! and pause-after-each-round live in the link (`speed=`, `pause=round`, through [`Lab`]).

use super::paint::{paint_show, paint_show_at};
use crate::render::playable::{advance, compare_options, Shows};
use crate::ui::browser::{download_png, download_url, now_ms, record_perf};
use crate::ui::export::{captioned_png_with, new_canvas};
use crate::ui::hooks::{
    use_element_size, use_intersection, use_prefers_dark, use_raf, use_reduced_motion, ElementSize,
    RafArgs,
};
use crate::ui::state::Lab;
use leptos::prelude::*;

/// The speeds offered, and the link's own when it is another.
fn speeds(link: f64) -> Vec<f64> {
    let mut v = vec![0.25, 0.5, 1.0, 2.0, 4.0];
    if link.is_finite() && link > 0.0 && !v.contains(&link) {
        v.push(link);
        v.sort_by(f64::total_cmp);
    }
    v
}

/// Whether the panel is the document's full-screen element.
fn is_fullscreen(panel: &web_sys::HtmlElement) -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.fullscreen_element())
        .is_some_and(|e| &e == AsRef::<web_sys::Element>::as_ref(panel))
}

/// The all-reduce animation with its controls.
#[component]
pub fn AnimationPanel() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let compare = RwSignal::new(String::new());
    let speed = lab.anim_speed;
    let pause_rounds = lab.anim_pause;
    let still = use_reduced_motion();
    let dark = use_prefers_dark();
    let playing = RwSignal::new(!still.get_untracked());
    // Stopped at the end of a round by pause-after-each-round (cleared by play and steps).
    let held = RwSignal::new(false);
    let fullscreen = RwSignal::new(false);
    // Model time on the shared clock, seconds.
    let time = StoredValue::new(0.0f64);
    let round_text = RwSignal::new(String::new());
    let caption = RwSignal::new(String::new());
    let network = RwSignal::new(String::new());
    let clock = RwSignal::new(String::new());
    let least_type = StoredValue::new(0.0f64);
    let panel = NodeRef::<leptos::html::Div>::new();
    let primary = NodeRef::<leptos::html::Canvas>::new();
    let secondary = NodeRef::<leptos::html::Canvas>::new();
    let visible = use_intersection(primary);
    // Sizes from ResizeObservers: a frame that read `clientWidth` after the previous frame's
    // caption change would force a layout of the page.
    let primary_size = use_element_size(primary);
    let secondary_size = use_element_size(secondary);

    // The comparisons this GPU can have; a GPU change drops one it cannot.
    let options = Memo::new(move |_| lab.setup.with(|s| compare_options(s.gpu)));
    Effect::new(move |_| {
        let kept = options.with(|o| o.iter().any(|(v, _)| compare.with_untracked(|c| c == v)));
        if !kept {
            compare.set(String::new());
        }
    });
    // The collectives to play: the scenario's, and the comparison's.
    let shows = Memo::new(move |_| lab.scenario.with(|sc| compare.with(|c| Shows::new(sc, c))));
    // A new scenario restarts the playback.
    Effect::new(move |_| {
        shows.track();
        time.set_value(0.0);
        held.set(false);
        // The texts follow on the next frame, even when the round's label reads the same.
        round_text.set(String::new());
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
    // The servers drawn as boxes, for the canvas's description and tests.
    let servers = Memo::new(move |_| {
        shows.with(|s| {
            s.main
                .playable
                .as_ref()
                .map(|p| p.server_labels())
                .unwrap_or_default()
        })
    });

    // The frame on screen as a PNG, painted again at the picture's scale (≥ 2×), with the
    // panel's title and the scenario.
    let save_frame = move || {
        let Some(c) = primary.get_untracked() else {
            return;
        };
        let (t, dark) = (time.get_value(), dark.get_untracked());
        let url = shows.with_untracked(|s| {
            captioned_png_with(&c, |w, h, scale| {
                let out = new_canvas()?;
                paint_show_at(&out, (w, h), &s.main, t, dark, scale, 1.0);
                Some(out)
            })
        });
        match url {
            Some(url) => download_url("all-reduce-frame.png", &url),
            None => download_png(Some(c), "all-reduce-frame.png"),
        }
    };

    // One frame: advance the clock by `dt` screen seconds, paint, update the texts.
    let frame = move |dt: f64| {
        let t0 = now_ms();
        shows.with_untracked(|s| {
            let Ok(main) = &s.main.playable else {
                return;
            };
            let mut t = time.get_value();
            if playing.get_untracked() {
                let (mut next, mut ended) =
                    advance(t, dt, s.longest(), speed.get_untracked().max(0.01));
                if pause_rounds.get_untracked() {
                    if let Some(stop) = main.stop_between(t, next) {
                        (next, ended) = (stop, true);
                        held.set(true);
                    }
                }
                t = next;
                if ended {
                    playing.set(false);
                }
                time.set_value(t);
            }
            let dark = dark.get_untracked();
            let size = |s: ElementSize| (s.width.get_untracked(), s.height.get_untracked());
            let type_scale = lab.canvas_type_scale();
            if let Some(c) = primary.get_untracked() {
                let least = paint_show(&c, size(primary_size), &s.main, t, dark, type_scale);
                // The smallest type on screen, for tests and embedding pages; written when it
                // changes, not every frame.
                if least.is_finite() && (least - least_type.get_value()).abs() > 0.05 {
                    least_type.set_value(least);
                    let _ = c.set_attribute("data-least-type", &format!("{least:.1}"));
                }
            }
            if let (Some(other), Some(c)) = (&s.compared, secondary.get_untracked()) {
                paint_show(&c, size(secondary_size), other, t, dark, type_scale);
            }
            let text = main.round_label(t);
            if round_text.get_untracked() != text {
                round_text.set(text);
                caption.set(main.caption(t.min(main.total())));
                network.set(main.network_summary(t));
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
        held.set(false);
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
        held.set(false);
        playing.update(|p| *p = !*p);
    };
    let toggle_fullscreen = move || {
        let Some(el) = panel.get_untracked() else {
            return;
        };
        if is_fullscreen(&el) {
            if let Some(d) = web_sys::window().and_then(|w| w.document()) {
                d.exit_fullscreen();
            }
        } else {
            let _ = el.request_fullscreen();
        }
    };

    view! {
        <div class="anim-panel" node_ref=panel data-testid="anim-panel"
            data-held=move || if held.get() { "round-end" } else { "" }
            on:fullscreenchange=move |_| {
                fullscreen.set(panel.get_untracked().is_some_and(|el| is_fullscreen(&el)))
            }>
        <h2>"Watch one all-reduce, timed by the model"</h2>
        <p class="hint">
            "Each round lasts on screen in proportion to its modelled time. Circles are partial sums being added, squares finished sums being copied; darker means more GPUs' contributions are in it. "
            <span class="net-key">"Chunks with a thick orange edge leave their server and cross the network switch"</span>
            "; the others stay on the fast links inside a server."
        </p>
        <div class="anim-controls">
            <button type="button" data-testid="anim-play" class="play" on:click=move |_| toggle()>
                {move || if playing.get() { "Pause" } else { "Play" }}
            </button>
            <button type="button" data-testid="anim-back" aria-label="One round back" on:click=move |_| step(false)>"◀ Round"</button>
            <button type="button" data-testid="anim-step" aria-label="One round forward" on:click=move |_| step(true)>"Round ▶"</button>
            <span data-testid="anim-round" class="round">{move || round_text.get()}</span>
            <label>"Speed "
                <select data-testid="anim-speed" on:change=move |ev| {
                    let v: f64 = event_target_value(&ev).parse().unwrap_or(1.0);
                    speed.set(if v.is_finite() && v > 0.0 { v } else { 1.0 });
                }>
                    {move || speeds(speed.get()).into_iter().map(|s| view! {
                        <option value=s.to_string() selected=move || speed.get() == s>{format!("{s}×")}</option>
                    }).collect_view()}
                </select>
            </label>
            <label class="pause-rounds">
                <input type="checkbox" data-testid="anim-pause-rounds"
                    prop:checked=move || pause_rounds.get()
                    on:change=move |ev| pause_rounds.set(event_target_checked(&ev)) />
                " Pause after each round"
            </label>
            <label class="compare">"Compare with "
                <select data-testid="anim-compare" on:change=move |ev| compare.set(event_target_value(&ev))>
                    {move || options.get().into_iter().map(|(v, t)| {
                        let chosen = v.clone();
                        view! { <option value=v selected=move || compare.with(|c| *c == chosen)>{t}</option> }
                    }).collect_view()}
                </select>
            </label>
            // As wide as its widest label (tabular digits): a label growing by a digit mid-play
            // would wrap the controls and move the page below. The widest is at the end or just
            // below a decade's or a unit's change ("999.9 µs" before "1.00 ms").
            <span class="clock" data-testid="anim-clock" style:min-width=move || shows.with(|s| {
                let chars = s.main.playable.as_ref().map_or(0, |p| {
                    let total = p.total();
                    (-7..3)
                        .map(|e| 0.99995 * 10f64.powi(e))
                        .chain([total])
                        .filter(|t| *t <= total)
                        .map(|t| p.clock_label(t).chars().count())
                        .max()
                        .unwrap_or(0)
                });
                format!("{}ch", chars + 1)
            })>{move || clock.get()}</span>
            <button type="button" class="png" data-testid="anim-png" on:click=move |_| save_frame()>"Save frame as PNG"</button>
            <button type="button" data-testid="anim-fullscreen" aria-pressed=move || fullscreen.get().to_string()
                on:click=move |_| toggle_fullscreen()>
                {move || if fullscreen.get() { "Exit full screen" } else { "Full screen" }}
            </button>
        </div>
        {move || shows.with(|s| s.main.playable.as_ref().err().map(|e| view! { <p class="problem">{e.to_string()}</p> }))}
        {move || shows.with(|s| s.compare_error.clone().map(|e| view! { <p class="problem" data-testid="anim-compare-problem">{format!("No comparison: {e}")}</p> }))}
        <div class="anim-canvases" class:two=move || !compare.get().is_empty()>
            <canvas node_ref=primary data-testid="anim-canvas" role="img" tabindex="0"
                data-servers=move || servers.with(|s| s.join(", "))
                aria-label=move || {
                    let boxes = servers.with(|s| match s.as_slice() {
                        [] | [_] => String::new(),
                        [first, .., last] => format!(" {} boxes, {first} to {last}, joined by a network switch.", s.len()),
                    });
                    format!("All-reduce animation.{boxes} {} {}", caption.get(), network.get())
                }
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
        <p class="network" data-testid="anim-network" hidden=move || network.with(String::is_empty)>{move || network.get()}</p>
        </div>
    }
}
