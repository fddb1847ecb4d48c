//! Component tests in headless Chromium (wasm-bindgen-test). Each test mounts the app into its
//! own element and waits for Leptos's effects (they run after the current task) before looking.
#![cfg(target_arch = "wasm32")]

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

/// Mounts the app into a fresh element and returns it.
fn mount() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let host = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&host).unwrap();
    let handle = leptos::mount::mount_to(host.clone().unchecked_into(), gpu_scaling_lab::ui::App);
    // Keep the app alive for the rest of the test run.
    std::mem::forget(handle);
    host
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
