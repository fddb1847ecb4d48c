//! A figure's data table, the same for every figure that has one.

use super::browser::download;
use crate::render::figure::Table;
use leptos::prelude::*;

/// "Data table": a closed `<details>` whose rows are built only while it is open, in a scroll box
/// a keyboard can reach and a screen reader can name (axe: scrollable-region-focusable), with a
/// CSV download of the same table.
#[component]
pub fn DataTable(
    /// The table; its titles follow the data while it is closed, its rows while it is open.
    table: Signal<Table>,
    /// What it lists, for screen readers ("The timeline's bars").
    name: String,
    /// `data-testid` of the `<table>`; the `<details>` gets it with `-details`.
    testid: &'static str,
    /// File name of the CSV download.
    file: &'static str,
    /// Class of the `<table>` (column alignment).
    #[prop(optional)]
    class: &'static str,
) -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <details class="table" data-testid=format!("{testid}-details") on:toggle=move |_| open.update(|o| *o = !*o)>
            <summary>"Data table"</summary>
            <div class="table-scroll" tabindex="0" role="region" aria-label=name>
                <table class=class data-testid=testid>
                    {move || {
                        let t = table.get();
                        let titles = t.titles();
                        let rows = if open.get() { t.rows } else { Vec::new() };
                        view! {
                            <thead><tr>
                                {titles.into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view()}
                            </tr></thead>
                            <tbody>
                                {rows.into_iter().map(|r| view! {
                                    <tr>{r.into_iter().map(|v| view! { <td>{v}</td> }).collect_view()}</tr>
                                }).collect_view()}
                            </tbody>
                        }
                    }}
                </table>
            </div>
            <button type="button" on:click=move |_| download(file, "text/csv", &table.get_untracked().csv())>
                "Download CSV"
            </button>
        </details>
    }
}
