//! The Leptos UI shell (browser only): components, signals, URL state, canvases.

use leptos::prelude::*;

/// Mounts the app on `<body>`.
pub fn mount() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    view! {
        <header class="masthead">
            <h1>"GPU Scaling Lab"</h1>
            <p class="tagline">"Why doubling the GPUs rarely halves the training time: pick a cluster and watch where the time goes."</p>
        </header>
        <main class="layout" data-testid="app">
            <section class="controls" aria-label="Controls"></section>
            <section class="results" aria-label="Results"></section>
            <section class="charts" aria-label="Charts"></section>
            <section class="animation" aria-label="All-reduce animation"></section>
        </main>
    }
}
