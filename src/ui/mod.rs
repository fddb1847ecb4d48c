//! The Leptos UI shell (browser only): components, signals, URL state, canvases.

pub mod anim;
pub mod browser;
pub mod canvas;
pub mod charts;
pub mod compare;
pub mod controls;
pub mod embed;
pub mod explainer;
pub mod export;
pub mod hooks;
pub mod lessons;
pub mod measured;
pub mod page;
pub mod plot;
pub mod results;
pub mod run;
pub mod state;
pub mod table;
pub mod topology;
pub mod validation;

use anim::{AnimationPanel, TimelinePanel};
use charts::{ChartPanel, Kind};
use controls::Controls;
use embed::Embed;
use explainer::{Explainer, Glossary};
use leptos::prelude::*;
use lessons::{HandoutOpen, HandoutView, Lessons};
use results::Results;
use state::{read_hash, write_hash, Lab};

/// Whether the validation page is shown instead of the explorer.
fn on_validation_now(lab: Lab) -> bool {
    lab.page.with(|p| p.as_deref() == Some(validation::PAGE))
}

/// Mounts the app on `<body>`.
pub fn mount() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
    page::remove_prerender();
}

/// Copies the link to this view, or selects it in a field when the clipboard is not available
/// (a sandboxed iframe).
fn copy_link(status: RwSignal<String>) {
    let href = window().location().href().unwrap_or_default();
    let clipboard = window().navigator().clipboard();
    let promise = clipboard.write_text(&href);
    leptos::task::spawn_local(async move {
        match wasm_bindgen_futures::JsFuture::from(promise).await {
            Ok(_) => status.set("Link copied.".to_string()),
            Err(_) => status.set(format!("Copy this link: {href}")),
        }
    });
}

/// The chart a presenter shows beside the lesson: the one the current step is about (its
/// `chart`), else the speedup chart; one of [`crate::lessons::CHARTS`].
fn presented_chart(lab: &Lab) -> &'static str {
    // A step's chart is one of CHARTS: the lesson file is checked when it is parsed.
    lab.lesson
        .with(|l| {
            let (id, k) = l.as_ref()?;
            let lesson = crate::lessons::shipped().iter().find(|x| &x.id == id)?;
            lesson.steps.get(*k).map(|s| s.chart())
        })
        .unwrap_or(crate::lessons::CHARTS[0])
}

/// Presenter layout on and off: it brings projector mode's large type with it, and leaving it
/// puts projector mode back as it was.
fn use_presenter(lab: Lab) {
    let projector_before = StoredValue::new(lab.projector.get_untracked());
    Effect::new(move |prev: Option<bool>| {
        let on = lab.presenter.get();
        if on && prev != Some(true) {
            projector_before.set_value(lab.projector.get_untracked());
            lab.projector.set(true);
        } else if !on && prev == Some(true) {
            lab.projector.set(projector_before.get_value());
            // Back on the full page, the teacher is where the lesson is.
            if lab.lesson.with_untracked(Option::is_some) {
                page::focus_to_top(lessons::HEADING);
            }
        }
        on
    });
    // Escape leaves it, unless it closes something smaller first (a glossary popover).
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        let in_term = document()
            .active_element()
            .is_some_and(|e| e.class_list().contains("term-button"));
        if ev.key() == "Escape" && lab.presenter.get_untracked() && !in_term {
            lab.push_history();
            lab.presenter.set(false);
        }
    });
    on_cleanup(move || keys.remove());
}

/// The whole page, or one widget in embed mode.
#[component]
pub fn App() -> impl IntoView {
    let lab = Lab::new(&read_hash());
    provide_context(lab);
    page::use_theme(lab);
    // The view lives in the URL hash: replaceState, except that a discrete action (a preset, a
    // lesson step, "show me") in the top-level page adds a Back-button entry; an iframe never
    // does. Debounced: replaceState costs about a millisecond and Chrome throttles frequent
    // calls, so the hash follows a dragged slider once it rests.
    let pending = StoredValue::new(None::<TimeoutHandle>);
    // The address as the page last wrote or followed it. Back changes the address at once but
    // dispatches its hashchange as a later task: a timer that runs between the two finds the
    // address moved under it and leaves it to the hashchange, instead of writing the view Back
    // left over the entry Back arrived at (seen under load: Back then never reached that view).
    let known = StoredValue::new(read_hash());
    Effect::new(move |_| {
        // Tracks everything the hash is made of; the timer writes the view as it is then.
        let _ = lab.hash();
        if let Some(t) = pending.get_value() {
            t.clear();
        }
        let t = set_timeout_with_handle(
            move || {
                // Taken whether or not this write happens: a Back that moved the address
                // superseded the discrete action that asked for an entry.
                let asked = lab.push_next.get_value();
                lab.push_next.set_value(false);
                if read_hash() != known.get_value() {
                    return;
                }
                let push = asked && lab.embed.get_value().is_none();
                // The view as it is now: Back pressed twice quickly must not write an older view
                // over the entry it arrived at.
                write_hash(&lab.hash(), push);
                // As the browser holds it, so that a fragment it encodes otherwise still matches.
                known.set_value(read_hash());
            },
            std::time::Duration::from_millis(120),
        );
        pending.set_value(t.ok());
    });
    // A hash edited by hand (or by an embedding page) reloads the view.
    let listener = window_event_listener(leptos::ev::hashchange, move |_| {
        let h = read_hash();
        known.set_value(h.clone());
        if h != lab.hash() {
            lab.follow(&h);
        }
    });
    on_cleanup(move || listener.remove());

    if let Some(widget) = lab.embed.get_value() {
        return view! { <Embed widget=widget /> }.into_any();
    }
    let copied = RwSignal::new(String::new());
    let printing = export::provide_printing();
    let handout = HandoutOpen(RwSignal::new(None));
    provide_context(handout);
    use_presenter(lab);
    let presenting = move || lab.presenter.get() && !on_validation_now(lab);
    // On <html> too: the presenter's type follows the screen's size (style/presenter.css).
    Effect::new(move |_| {
        let on = presenting();
        browser::set_body_class("presenting", on);
        browser::set_root_class("presenting", on);
    });
    Effect::new(move |_| browser::set_root_class("projector", lab.projector.get()));
    Effect::new(move |_| browser::set_body_class("handout-open", handout.0.with(Option::is_some)));
    let on_validation =
        Memo::new(move |_| lab.page.with(|p| p.as_deref() == Some(validation::PAGE)));
    // In-page links scroll without touching the hash, which holds the scenario; Back undoes
    // the jump.
    let jump = move |id: &'static str| {
        move |ev: leptos::ev::MouseEvent| {
            ev.prevent_default();
            // From the validation page, back to the explorer first.
            if on_validation.get_untracked() {
                return validation::close(lab, id);
            }
            page::jump_to(lab, id);
        }
    };
    // For a newcomer on the bare page; a link with a scenario came for that scenario, and opens
    // at its results (a lesson, a page or the presenter layout keep their own place).
    let opened_with = read_hash();
    let first_answer = opened_with
        .is_empty()
        .then(page::first_answer_html)
        .flatten();
    let own_place = lab.lesson.with_untracked(Option::is_some)
        || lab.page.with_untracked(Option::is_some)
        || lab.presenter.get_untracked();
    if !opened_with.is_empty() && !own_place {
        page::focus_to_top("results");
    }
    view! {
        <HandoutView />
        // Past the masthead, the explainer and the lessons, to the controls.
        <a class="skip" href="#explorer" on:click=jump("explorer")>"Skip to the explorer"</a>
        <a class="skip" href="#results" on:click=jump("results")>"Skip to results"</a>
        <header class="masthead">
            <h1>"GPU Scaling Lab"</h1>
            <p class="tagline">
                "Why doubling the GPUs rarely halves the training time: pick a cluster and a model, and see where the time goes — computed in your browser by a cost model checked against published measurements."
            </p>
            // Beside the title, top right (below it on a phone): first in the tab order too,
            // before the answer and the section links under it.
            <div class="toolbar" role="toolbar" aria-label="Classroom tools">
                <label class="toggle">
                    <input type="checkbox" data-testid="projector"
                        prop:checked=move || lab.projector.get()
                        on:change=move |ev| lab.projector.set(event_target_checked(&ev)) />
                    "Projector mode"
                </label>
                <label class="toggle">
                    <input type="checkbox" data-testid="presenter"
                        prop:checked=move || lab.presenter.get()
                        on:change=move |ev| { lab.push_history(); lab.presenter.set(event_target_checked(&ev)) } />
                    "Presenter layout"
                </label>
                <button type="button" data-testid="copy-link" on:click=move |_| copy_link(copied)>"Copy link to this view"</button>
                <button type="button" data-testid="download-json"
                    on:click=move |_| browser::download("gpu-scaling-lab.json", "application/json", &page::numbers_json(&lab))>
                    "Numbers (JSON)"
                </button>
                <button type="button" data-testid="print" on:click=move |_| printing.print()>"Print"</button>
                <span class="hint" aria-live="polite" data-testid="copy-status">{move || copied.get()}</span>
            </div>
            // The static first screen's answer (index.html: the model's numbers for one common
            // cluster, checked by e2e/first-screen.test.mjs) stays on top of the live page.
            {match first_answer {
                Some(html) => view! {
                    <div class="first-answer" data-testid="headline" hidden=move || on_validation.get() inner_html=html></div>
                }.into_any(),
                None => view! {
                    <p class="headline" data-testid="headline">
                        <strong>"Because the GPUs wait"</strong>
                        " — for each other's gradients to cross the network, for serial work, for input data, or because the model had to be split."
                    </p>
                }.into_any(),
            }}
            <nav class="jump" aria-label="Sections">
                <a href="#why" on:click=jump("why")>"Why"</a>
                <a href="#lessons-title" on:click=jump("lessons-title")>"Lessons"</a>
                <a href="#results" on:click=jump("results")>"Explorer"</a>
                <a href="#animation" on:click=jump("animation")>"Animation"</a>
                <a href="#glossary-title" on:click=jump("glossary-title")>"Glossary"</a>
                <a href="#explain" on:click=jump("explain")>"Explain my run"</a>
                <a href="#page=validation" data-testid="open-validation"
                    on:click=move |ev| { ev.prevent_default(); validation::open(lab, None); }>
                    "How good is the model?"
                </a>
            </nav>
        </header>
        <page::ProblemBanner />
        <page::PrintScenario />
        {move || on_validation.get().then(|| view! {
            <div class="page" class:projector=move || lab.projector.get()><validation::ValidationPage /></div>
        })}
        <div class="page" class:projector=move || lab.projector.get() hidden=move || on_validation.get()
            class:presenter=presenting data-present=move || presenting().then(|| presented_chart(&lab))>
            {move || presenting().then(|| view! {
                <div class="presenter-bar">
                    <span class="presenter-name">"GPU Scaling Lab"</span>
                    <button type="button" class="presenter-exit" data-testid="presenter-exit"
                        on:click=move |_| { lab.push_history(); lab.presenter.set(false); }>
                        "Exit presenter"
                    </button>
                </div>
            })}
            <Explainer />
            <Lessons />
            <main class="layout" id="explorer" tabindex="-1" data-testid="app">
                <section class="controls" aria-label="Controls">
                    <Controls />
                    <results::MiniResults />
                </section>
                <section class="results" id="results" tabindex="-1" aria-label="Results"
                    class:masked=move || lab.answer_hidden.get()
                    class:infeasible=move || lab.result.with(|r| r.as_ref().is_ok_and(|r| !r.memory.fits()))>
                    <page::MaskNote what="The results" />
                    <Results />
                </section>
                <section class="charts" id="charts" aria-label="Scaling charts"
                    class:masked=move || lab.answer_hidden.get()>
                    <page::MaskNote what="The charts" />
                    <ChartPanel kind=Kind::Speedup testid="chart-speedup" title="Speedup: ideal, this cluster, and Amdahl's law" />
                    <ChartPanel kind=Kind::Efficiency testid="chart-efficiency" title="Efficiency: how much of each added GPU you keep" />
                    <ChartPanel kind=Kind::Breakdown testid="chart-breakdown" title="Where the time goes: the step, stragglers and failures" />
                    <ChartPanel kind=Kind::TimeToTrain testid="chart-time-to-train" title="Time to train the data budget" />
                    <topology::TopologyPanel />
                    <ChartPanel kind=Kind::Compare testid="chart-compare" title="The same job on other networks" />
                </section>
                <section class="animation" id="animation" tabindex="-1" aria-label="All-reduce animation and step timeline"
                    class:masked=move || lab.answer_hidden.get()>
                    <page::MaskNote what="The animation and the timeline" />
                    <AnimationPanel />
                    <TimelinePanel />
                </section>
            </main>
            <export::PrintTables />
            <measured::ExplainRun />
            <Glossary />
        </div>
        <footer>
            <p>"Every figure in the model carries its source; the model's assumptions and what it leaves out are listed in the README. Nothing leaves this page: no requests, no storage. "
                <a href="public/embed.html">"Embed a widget in your docs"</a> "."</p>
        </footer>
    }
    .into_any()
}
