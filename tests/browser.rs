//! Component tests in headless Chromium (wasm-bindgen-test).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn app_mounts_its_regions() {
    let doc = web_sys::window().unwrap().document().unwrap();
    let host = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&host).unwrap();
    let _handle =
        leptos::mount::mount_to(host.clone().dyn_into().unwrap(), gpu_scaling_lab::ui::App);
    assert!(host.query_selector("[data-testid=app]").unwrap().is_some());
}
use wasm_bindgen::JsCast;
