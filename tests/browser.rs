//! Component tests in headless Chromium (wasm-bindgen-test). Each test mounts the app into its
//! own element and waits for Leptos's effects (they run after the current task) before looking.
#![cfg(target_arch = "wasm32")]

use gpu_scaling_lab::ui::hooks::{
    use_element_size, use_intersection, use_media_query, use_raf, use_reduced_motion, ElementSize,
    Pausable,
};
use leptos::prelude::*;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement};

wasm_bindgen_test_configure!(run_in_browser);

/// Lets the reactive system run its effects (they are queued, not synchronous).
async fn settle() {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 30)
            .unwrap();
    });
    JsFuture::from(p).await.unwrap();
}

/// Waits (up to two seconds) until `cond` holds: the URL hash is written once the page rests.
async fn until(what: &str, cond: impl Fn() -> bool) {
    for _ in 0..100 {
        if cond() {
            return;
        }
        settle().await;
    }
    panic!("timed out waiting for {what}");
}

fn set_hash(h: &str) {
    web_sys::window().unwrap().location().set_hash(h).unwrap();
}

fn hash() -> String {
    web_sys::window().unwrap().location().hash().unwrap()
}

/// A fresh element at the end of the page.
fn host() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let host = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&host).unwrap();
    host
}

/// Something mounted for one test. Dropping it at the end of the test unmounts it, which runs
/// every `on_cleanup` (observers, listeners, the animation loop): a panicking cleanup fails the
/// test, and nothing keeps running into the next one.
struct Mounted {
    host: Element,
    _handle: Box<dyn std::any::Any>,
}

impl std::ops::Deref for Mounted {
    type Target = Element;
    fn deref(&self) -> &Element {
        &self.host
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        self.host.remove();
    }
}

/// Mounts `view` into a fresh element.
fn mount_view<V: IntoView + 'static>(view: impl FnOnce() -> V + 'static) -> Mounted {
    let host = host();
    let handle = leptos::mount::mount_to(host.clone().unchecked_into(), view);
    Mounted {
        host,
        _handle: Box::new(handle),
    }
}

/// Mounts the whole app into a fresh element.
fn mount() -> Mounted {
    mount_view(gpu_scaling_lab::ui::App)
}

fn find(host: &Element, testid: &str) -> Element {
    host.query_selector(&format!("[data-testid={testid}]"))
        .unwrap()
        .unwrap_or_else(|| panic!("no element with data-testid={testid}"))
}

fn change_select(host: &Element, testid: &str, value: &str) {
    let sel: HtmlSelectElement = find(host, testid).unchecked_into();
    sel.set_value(value);
    sel.dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
}

#[wasm_bindgen_test]
async fn the_url_hash_restores_the_view_and_follows_the_controls() {
    set_hash("gpus=32&per_node=8&gpu=a100&inter=ib-hdr&model=gpt2-xl");
    let host = mount();
    settle().await;
    let gpus: HtmlInputElement = find(&host, "gpus").unchecked_into();
    assert_eq!(gpus.value(), "32");
    let gpu: HtmlSelectElement = find(&host, "gpu").unchecked_into();
    assert_eq!(gpu.value(), "a100");
    let model: HtmlSelectElement = find(&host, "model").unchecked_into();
    assert_eq!(model.value(), "gpt2-xl");
    assert!(host
        .query_selector("[data-testid=error]")
        .unwrap()
        .is_none());
    let before = find(&host, "step-time").text_content().unwrap();

    change_select(&host, "inter", "tcp10");
    until("the hash to follow the network", || {
        hash().contains("inter=tcp10")
    })
    .await;
    let h = hash();
    assert!(h.contains("inter=tcp10"), "{h}");
    assert!(h.contains("gpus=32") && h.contains("gpu=a100"), "{h}");
    let after = find(&host, "step-time").text_content().unwrap();
    assert_ne!(before, after, "a slower network must change the step time");
    // The hash is the CLI's format: it parses back to the same scenario.
    let sc = gpu_scaling_lab::model::scenario::Scenario::parse(h.trim_start_matches('#')).unwrap();
    assert_eq!(sc.inter.map(|n| n.id), Some("tcp10"));
    assert_eq!(sc.gpus, 32);
}

#[wasm_bindgen_test]
async fn an_invalid_hash_names_the_key_and_the_page_keeps_working() {
    set_hash("gpus=64&gpu=banana&bytes=lots");
    let host = mount();
    settle().await;
    let err = find(&host, "error").text_content().unwrap();
    assert!(err.contains("gpu") && err.contains("banana"), "{err}");
    assert!(err.contains("bytes"), "{err}");
    // Defaults were used for the bad keys; the good one stays.
    let gpus: HtmlInputElement = find(&host, "gpus").unchecked_into();
    assert_eq!(gpus.value(), "64");
    assert!(find(&host, "step-time")
        .text_content()
        .unwrap()
        .ends_with('s'));
    // A control change clears the message and updates the page.
    change_select(&host, "gpu", "h200");
    until("the hash to follow the GPU", || hash().contains("gpu=h200")).await;
    assert!(host
        .query_selector("[data-testid=error]")
        .unwrap()
        .is_none());
}

#[wasm_bindgen_test]
async fn a_control_value_that_breaks_the_scenario_is_refused_with_a_message() {
    set_hash("gpus=16&per_node=8");
    let host = mount();
    settle().await;
    let gpus: HtmlInputElement = find(&host, "gpus").unchecked_into();
    gpus.set_value("12");
    gpus.dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
    let err = find(&host, "error").text_content().unwrap();
    assert!(err.contains("per_node"), "{err}");
    assert!(
        hash().contains("gpus=16"),
        "the previous scenario stays: {}",
        hash()
    );
}

// The hooks: each one releases what it registered when its component goes away.

#[wasm_bindgen_test]
async fn the_frame_loop_pauses_resumes_and_stops_when_unmounted() {
    let frames = Rc::new(Cell::new(0u32));
    let first_delta = Rc::new(Cell::new(f64::NAN));
    let controls = Rc::new(Cell::new(None::<Pausable>));
    let app = {
        let (frames, first_delta, controls) =
            (frames.clone(), first_delta.clone(), controls.clone());
        mount_view(move || {
            let f = frames.clone();
            controls.set(Some(use_raf(move |a| {
                if f.get() == 0 {
                    first_delta.set(a.delta);
                }
                f.set(f.get() + 1);
            })));
            view! { <p>"a frame loop"</p> }
        })
    };
    until("frames to run", || frames.get() >= 3).await;
    assert_eq!(
        first_delta.get(),
        0.0,
        "the first frame does not jump ahead"
    );
    let controls = controls.get().unwrap();
    assert!(controls.is_active.get_untracked());

    controls.pause();
    let paused = frames.get();
    for _ in 0..4 {
        settle().await;
    }
    assert_eq!(frames.get(), paused, "no frames while paused");
    assert!(!controls.is_active.get_untracked());

    controls.resume();
    until("frames to run again", || frames.get() > paused + 2).await;

    // Unmounting cancels the pending frame: the count stops for good.
    drop(app);
    let at_unmount = frames.get();
    for _ in 0..4 {
        settle().await;
    }
    assert_eq!(frames.get(), at_unmount, "the loop outlived its component");
}

#[wasm_bindgen_test]
async fn element_size_follows_a_resize() {
    let size = Rc::new(Cell::new(None::<ElementSize>));
    let app = {
        let size = size.clone();
        mount_view(move || {
            let node = NodeRef::<leptos::html::Div>::new();
            size.set(Some(use_element_size(node)));
            view! { <div node_ref=node data-testid="sized" style="width: 120px; height: 30px"></div> }
        })
    };
    let size = size.get().unwrap();
    until("the first size", || size.width.get_untracked() == 120.0).await;
    assert_eq!(size.height.get_untracked(), 30.0);
    let el: web_sys::HtmlElement = find(&app, "sized").unchecked_into();
    el.style().set_property("width", "200px").unwrap();
    until("the new size", || size.width.get_untracked() == 200.0).await;
}

#[wasm_bindgen_test]
async fn intersection_tells_on_screen_from_off_screen() {
    let seen = Rc::new(Cell::new(None::<(Signal<bool>, Signal<bool>)>));
    let _app = {
        let seen = seen.clone();
        mount_view(move || {
            let here = NodeRef::<leptos::html::Div>::new();
            let away = NodeRef::<leptos::html::Div>::new();
            seen.set(Some((use_intersection(here), use_intersection(away))));
            view! {
                <div node_ref=here style="position: fixed; top: 0; left: 0; width: 20px; height: 20px"></div>
                <div node_ref=away style="position: fixed; top: -5000px; left: 0; width: 20px; height: 20px"></div>
            }
        })
    };
    let (here, away) = seen.get().unwrap();
    // Both start as visible (so work starts at once) until the observer reports.
    until("the off-screen element to be reported", || {
        !away.get_untracked()
    })
    .await;
    assert!(here.get_untracked());
}

#[wasm_bindgen_test]
async fn media_queries_are_read_at_once() {
    let read = Rc::new(Cell::new(None::<(bool, bool, bool)>));
    let _app = {
        let read = read.clone();
        mount_view(move || {
            read.set(Some((
                use_media_query("(min-width: 1px)").get_untracked(),
                use_media_query("(max-width: 1px)").get_untracked(),
                use_reduced_motion().get_untracked(),
            )));
            view! { <p>"media"</p> }
        })
    };
    let (wide, narrow, still) = read.get().unwrap();
    assert!(wide && !narrow);
    let system = web_sys::window()
        .unwrap()
        .match_media("(prefers-reduced-motion: reduce)")
        .unwrap()
        .unwrap()
        .matches();
    assert_eq!(still, system);
}

#[wasm_bindgen_test]
async fn the_whole_app_unmounts_cleanly() {
    set_hash("gpus=16&per_node=8&gpu=h100&inter=ib-ndr&algo=ring");
    let app = mount();
    settle().await;
    until("the animation to draw a round", || {
        find(&app, "anim-round")
            .text_content()
            .unwrap_or_default()
            .starts_with("Round ")
    })
    .await;
    // Every observer, listener and frame is released here; a cleanup that panics fails the test.
    drop(app);
    for _ in 0..3 {
        settle().await;
    }
}
