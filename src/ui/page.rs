//! Page-level pieces shared by the full page and the embeds: the problem banner at the top, the
//! note that stands in for answers a lesson has not revealed yet, the theme the link asks for,
//! section jumps that Back undoes, and the hand-over from the static first screen.

use super::hooks::{use_media_query, ThemeOverride};
use super::state::Lab;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The static first screen in `index.html`, shown before any WebAssembly runs.
pub const PRERENDER_ID: &str = "prerender";

/// The static first screen's answer, its headline with the model's numbers and its curve, as
/// HTML for the live header to keep; `None` where the page has none (the embeds).
pub fn first_answer_html() -> Option<String> {
    let answer = document()
        .query_selector(&format!("#{PRERENDER_ID} .first-answer"))
        .ok()
        .flatten()?;
    // Its "loading" line is done with.
    if let Ok(Some(loading)) = answer.query_selector(".loading") {
        loading.remove();
    }
    Some(answer.inner_html())
}

/// Removes the static first screen once the live app is on the page.
pub fn remove_prerender() {
    if let Some(el) = document().get_element_by_id(PRERENDER_ID) {
        el.remove();
    }
}

/// Messages with their repeat counts, in first-seen order: the same message twice is one line.
pub fn collapse(messages: &[String]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for m in messages {
        match out.iter_mut().find(|(t, _)| t == m) {
            Some((_, n)) => *n += 1,
            None => out.push((m.clone(), 1)),
        }
    }
    out
}

/// The link's problems (a bad key, a misspelt theme), near the top of the page where a reader
/// arriving from a link sees them; a repeated message is shown once with its count.
#[component]
pub fn ProblemBanner() -> impl IntoView {
    let lab = expect_context::<Lab>();
    move || {
        let msgs: Vec<String> = lab
            .errors
            .with(|e| e.iter().map(|e| e.to_string()).collect());
        (!msgs.is_empty()).then(|| {
            let lines = collapse(&msgs);
            view! {
                <div class="error problem-banner" role="alert" data-testid="error">
                    {lines.into_iter().map(|(m, n)| view! {
                        <p>
                            {format!("{m}.")}
                            {(n > 1).then(|| view! { <span class="repeat" data-testid="error-repeat">{format!(" (×{n})")}</span> })}
                            " " <span class="hint">{if lab.refused.with(Option::is_some) {
                                "The previous value is kept."
                            } else {
                                "The default is used for this key."
                            }}</span>
                        </p>
                    }).collect_view()}
                    <button type="button" class="dismiss" on:click=move |_| lab.show_problems(Vec::new())>
                        "Dismiss"
                    </button>
                </div>
            }
        })
    }
}

/// Stands in for a region whose numbers would give a lesson's answer away, until the reader
/// reveals it.
#[component]
pub fn MaskNote(
    /// What is hidden, for the sentence ("The results").
    what: &'static str,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    move || {
        lab.answer_hidden.get().then(|| {
            view! {
                <div class="mask-note" data-testid="mask-note">
                    <p>
                        <strong>"Make your prediction first."</strong>
                        {format!(" {what} appear when you reveal the lesson's answer.")}
                    </p>
                    <button type="button" on:click=move |_| focus_by_id("lesson-question")>
                        "Back to the question"
                    </button>
                </div>
            }
        })
    }
}

/// Focuses an element by id (scrolling it into view), once the current render is on screen.
pub fn focus_by_id(id: &'static str) {
    request_animation_frame(move || {
        if let Some(el) = document().get_element_by_id(id) {
            if let Some(h) = el.dyn_ref::<web_sys::HtmlElement>() {
                let _ = h.focus();
            }
        }
    });
}

/// Focuses an element by id once the current render is on screen, scrolling only as far as it
/// takes to bring it into view (`block: "nearest"`): a lesson's answer revealed below the
/// question no longer scrolls the step's heading and scene out of a presenter's pane when it
/// is already in sight.
pub fn focus_nearest(id: &'static str) {
    request_animation_frame(move || {
        let Some(el) = document().get_element_by_id(id) else {
            return;
        };
        // web-sys's FocusOptions and ScrollIntoViewOptions are not compiled in: plain objects.
        let call = |method: &str, key: &str, value: wasm_bindgen::JsValue| {
            let options = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&options, &key.into(), &value);
            if let Ok(f) = js_sys::Reflect::get(&el, &method.into()) {
                if let Some(f) = f.dyn_ref::<js_sys::Function>() {
                    let _ = f.call1(&el, &options);
                }
            }
        };
        call("focus", "preventScroll", true.into());
        call("scrollIntoView", "block", "nearest".into());
    });
}

/// Focuses an element by id and scrolls it to the top of the view (the start of a lesson).
pub fn focus_to_top(id: &'static str) {
    request_animation_frame(move || {
        if let Some(el) = document().get_element_by_id(id) {
            if let Some(h) = el.dyn_ref::<web_sys::HtmlElement>() {
                let _ = h.focus();
            }
            el.scroll_into_view();
        }
    });
}

/// Applies the link's theme: `data-theme` on the root element for the CSS, and the forced
/// value as context so canvases draw in the same colours.
pub fn use_theme(lab: Lab) {
    provide_context(ThemeOverride(Signal::derive(move || {
        lab.theme.get().forced_dark()
    })));
    Effect::new(move |_| {
        let t = lab.theme.get();
        if let Some(root) = document().document_element() {
            let _ = match t.forced_dark() {
                Some(_) => root.set_attribute("data-theme", t.id()),
                None => root.remove_attribute("data-theme"),
            };
        }
    });
}

/// Scrolls to a page section and focuses it; in the top-level page the jump is a Back-button
/// entry (the same address: the hash holds the scenario), and Back scrolls back.
pub fn jump_to(lab: Lab, id: &str) {
    if lab.embed.get_value().is_none() {
        if let Ok(h) = window().history() {
            let _ = h.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", None);
        }
    }
    if let Some(el) = document().get_element_by_id(id) {
        el.scroll_into_view();
        if let Some(h) = el.dyn_ref::<web_sys::HtmlElement>() {
            let _ = h.focus();
        }
    }
}

/// The numbers of the current view as JSON: the CLI's `step` report, with the inputs — the
/// scenario string, the link, and every key's value as the model resolved it — so a file
/// alone says what produced it.
pub fn numbers_json(lab: &Lab) -> String {
    lab.scenario.with(|s| {
        let report = crate::model::report::StepReport::new(s)
            .map_err(|e| e.to_string())
            .and_then(|r| serde_json::to_value(&r).map_err(|e| e.to_string()));
        let mut out = match report {
            Ok(v) => v,
            Err(e) => serde_json::json!({ "error": e }),
        };
        let inputs = crate::classroom::inputs(s);
        let given: Vec<&str> = inputs.iter().filter(|i| i.given).map(|i| i.key).collect();
        let values: serde_json::Map<String, serde_json::Value> = inputs
            .iter()
            .map(|i| {
                (
                    i.key.to_string(),
                    serde_json::Value::String(i.value.clone()),
                )
            })
            .collect();
        if let Some(o) = out.as_object_mut() {
            // A pinned configuration travels with B's numbers: its scenario and its report.
            if let Some(a) = lab.pinned.get_untracked() {
                let report = crate::model::report::StepReport::new(&a)
                    .map_err(|e| e.to_string())
                    .and_then(|r| serde_json::to_value(&r).map_err(|e| e.to_string()));
                o.insert(
                    "pinned_a".to_string(),
                    match report {
                        Ok(v) => serde_json::json!({ "scenario": a.to_query(), "report": v }),
                        Err(e) => serde_json::json!({ "scenario": a.to_query(), "error": e }),
                    },
                );
            }
            o.insert(
                "inputs".to_string(),
                serde_json::json!({
                    "scenario": s.to_query(),
                    "link": window().location().href().unwrap_or_default(),
                    "given": given,
                    "resolved": values,
                }),
            );
        }
        serde_json::to_string_pretty(&out).unwrap_or_default()
    })
}

/// The scenario as a table, for print (a handout says what it shows): every key with the value
/// the model used, the ones the link sets in bold.
#[component]
pub fn PrintScenario() -> impl IntoView {
    let lab = expect_context::<Lab>();
    // Filled only while printing: hidden on screen, its seventy rows cost about a millisecond
    // of every control change. The page's print state also follows `beforeprint`, which a
    // browser's own print (Ctrl+P) fires before laying the page out; the media query alone
    // changes too late for that layout. An embed has no such state: the media query it is.
    let printing: Signal<bool> = match use_context::<super::export::Printing>() {
        Some(p) => p.active,
        None => use_media_query("print"),
    };
    let inputs = move || {
        if printing.get() {
            lab.scenario.with(crate::classroom::inputs)
        } else {
            Vec::new()
        }
    };
    view! {
        <section class="print-only print-scenario" aria-label="Scenario" data-testid="print-scenario">
            <h2>"Scenario"</h2>
            <p class="hint">{move || printing.get().then(|| lab.scenario.with(|s| s.to_query()))}</p>
            {move || printing.get().then(|| lab.pinned_query.get()).flatten().map(|a| view! {
                <p class="hint" data-testid="print-pinned">"Compared with A (pinned): " {a}</p>
            })}
            <table>
                <thead><tr><th scope="col">"key"</th><th scope="col">"value"</th><th scope="col">"from"</th></tr></thead>
                <tbody>
                    {move || inputs().into_iter().map(|i| view! {
                        <tr class:given=i.given>
                            <th scope="row">{i.key}</th>
                            <td>{i.value}</td>
                            <td>{if i.given { "the link" } else { "default" }}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}
