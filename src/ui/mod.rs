//! The Leptos UI shell (browser only): components, signals, URL state, canvases.

pub mod anim;
pub mod charts;
pub mod controls;
pub mod results;
pub mod state;

use anim::AnimationPanel;
use charts::{ChartPanel, Kind};
use controls::Controls;
use leptos::prelude::*;
use results::Results;
use state::{read_hash, write_hash, Lab};

/// Mounts the app on `<body>`.
pub fn mount() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let lab = Lab::new(&read_hash());
    provide_context(lab);
    // The scenario lives in the URL hash (replaceState: no Back-button entries in an iframe).
    Effect::new(move |_| {
        let q = lab.scenario.with(|s| s.to_query());
        write_hash(&q);
    });
    // A hash edited by hand (or by an embedding page) reloads the view.
    let listener = window_event_listener(leptos::ev::hashchange, move |_| {
        let h = read_hash();
        if h != lab.scenario.with_untracked(|s| s.to_query()) {
            lab.load(&h);
        }
    });
    on_cleanup(move || listener.remove());

    view! {
        <a class="skip" href="#results">"Skip to results"</a>
        <header class="masthead">
            <h1>"GPU Scaling Lab"</h1>
            <p class="tagline">
                "Why doubling the GPUs rarely halves the training time: pick a cluster and a model, and see where the time goes — computed in your browser by a cost model checked against published measurements."
            </p>
            <label class="toggle">
                <input type="checkbox" data-testid="projector"
                    prop:checked=move || lab.projector.get()
                    on:change=move |ev| lab.projector.set(event_target_checked(&ev)) />
                "Projector mode"
            </label>
        </header>
        <main class="layout" class:projector=move || lab.projector.get() data-testid="app">
            <section class="controls" aria-label="Controls">
                <Controls />
            </section>
            <section class="results" id="results" aria-label="Results">
                {move || {
                    let errs = lab.errors.get();
                    (!errs.is_empty()).then(|| view! {
                        <div class="error" role="alert" data-testid="error">
                            {errs.iter().map(|e| view! {
                                <p>{format!("{e}.")} " " <span class="hint">"The default is used for this key."</span></p>
                            }).collect_view()}
                        </div>
                    })
                }}
                <Results />
            </section>
            <section class="charts" aria-label="Scaling charts">
                <ChartPanel kind=Kind::Speedup testid="chart-speedup" title="Speedup: ideal, this cluster, and Amdahl's law" />
                <ChartPanel kind=Kind::Efficiency testid="chart-efficiency" title="Efficiency: how much of each added GPU you keep" />
                <ChartPanel kind=Kind::Breakdown testid="chart-breakdown" title="Where the step's time goes" />
                <ChartPanel kind=Kind::Compare testid="chart-compare" title="The same job on other networks" />
            </section>
            <section class="animation" aria-label="All-reduce animation and step timeline">
                <AnimationPanel />
            </section>
        </main>
        <footer>
            <p>"Every figure in the model carries its source; the model's assumptions and what it leaves out are listed in the README. Nothing leaves this page: no requests, no storage."</p>
        </footer>
    }
}
