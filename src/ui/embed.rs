//! Embed mode: `#embed=<widget>&…` shows one widget with minimal chrome for an `<iframe>`, and
//! tells the host page its height:
//!
//! `window.parent.postMessage({ type: "gpu-scaling-lab:height", widget, height }, "*")`
//!
//! whenever the content's height changes. A host without script just gives the iframe a height.

use super::anim::{AnimationPanel, TimelinePanel};
use super::charts::{ChartPanel, Kind};
use super::controls::CompactControls;
use super::hooks::use_element_size;
use super::lessons::Lessons;
use super::results::Results;
use super::state::Lab;
use leptos::prelude::*;
use wasm_bindgen::JsValue;

/// The message type a host page listens for.
pub const HEIGHT_MESSAGE: &str = "gpu-scaling-lab:height";

/// The widgets that can be embedded.
pub const WIDGETS: [&str; 8] = [
    "calculator",
    "speedup",
    "animation",
    "timeline",
    "lesson",
    "validation",
    "topology",
    "time-to-train",
];

/// Posts the widget's content height (not the frame's: the document is never shorter than its
/// viewport, so measuring it would never let the frame shrink).
fn post_height(widget: &str, root: &web_sys::Element) {
    let w = window();
    let Ok(parent) = w.parent() else {
        return;
    };
    let Some(parent) = parent else {
        return;
    };
    let height = root.get_bounding_client_rect().height().ceil() as i32;
    let msg = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&msg, &"type".into(), &HEIGHT_MESSAGE.into());
    let _ = js_sys::Reflect::set(&msg, &"widget".into(), &widget.into());
    let _ = js_sys::Reflect::set(&msg, &"height".into(), &JsValue::from(height));
    let _ = parent.post_message(&msg, "*");
}

/// One widget alone.
#[component]
pub fn Embed(widget: String) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let root = NodeRef::<leptos::html::Div>::new();
    let size = use_element_size(root);
    let name = widget.clone();
    // Tells the host at once, then whenever the content's size changes.
    Effect::new(move |_| {
        size.width.track();
        size.height.track();
        if let Some(el) = root.get() {
            post_height(&name, &el);
        }
    });
    let body = match widget.as_str() {
        "calculator" => view! { <CompactControls /> <Results /> }.into_any(),
        "speedup" => view! {
            <CompactControls />
            <ChartPanel kind=Kind::Speedup testid="chart-speedup" title="Speedup: ideal, this cluster, and Amdahl's law" />
        }.into_any(),
        "animation" => view! { <AnimationPanel /> }.into_any(),
        "timeline" => view! { <TimelinePanel /> }.into_any(),
        "lesson" => view! { <Lessons /> }.into_any(),
        "validation" => view! { <super::validation::ValidationPage /> }.into_any(),
        "topology" => view! {
            <CompactControls also_shown=&super::controls::FABRIC />
            <super::controls::CompactFabric />
            <super::topology::TopologyPanel />
        }.into_any(),
        "time-to-train" => view! {
            <CompactControls also_shown=&super::controls::RUN />
            <super::controls::CompactRun />
            <ChartPanel kind=Kind::TimeToTrain testid="chart-time-to-train" title="Time to train the data budget" />
        }.into_any(),
        other => {
            let hint = crate::classroom::did_you_mean(other, &WIDGETS)
                .map(|w| format!(" Did you mean '{w}'?"))
                .unwrap_or_default();
            view! {
                <p class="problem" role="alert" data-testid="embed-error">
                    {format!("embed: there is no widget '{other}'.{hint} Accepted: {}.", WIDGETS.join(", "))}
                </p>
            }.into_any()
        }
    };
    view! {
        <div class="embed" class:no-heading=move || !lab.heading.get_value() node_ref=root data-testid="app">
            <super::page::ProblemBanner />
            {body}
            <p class="embed-foot">
                <a href=move || format!("./#{}", lab.scenario.with(|s| s.to_query())) target="_blank" rel="noopener">
                    "Open in GPU Scaling Lab"
                </a>
            </p>
        </div>
    }
}
