//! A figure's data table, the same for every figure that has one.

use super::browser::download;
use crate::render::figure::Table;
use leptos::prelude::*;

/// "Data table": a closed `<details>` whose rows are built only while it is open, in a scroll box
/// a keyboard can reach and a screen reader can name (axe: scrollable-region-focusable), with a
/// CSV download of the same table.
#[component]
pub fn DataTable(
    /// The table. Read for its rows only while the table is open, and for the CSV.
    table: Signal<Table>,
    /// Its column titles when they are cheaper than the table (a chart's, which change only
    /// when the series do); otherwise they are the table's, and it is built once per change.
    #[prop(optional)]
    titles: Option<Signal<Vec<String>>>,
    /// What it lists, for screen readers ("The timeline's bars").
    name: String,
    /// `data-testid` of the `<table>`; the `<details>` gets it with `-details`.
    testid: String,
    /// File name of the CSV download.
    file: String,
    /// Class of the `<table>` (column alignment).
    #[prop(optional)]
    class: &'static str,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let (table, titles) = match titles {
        Some(titles) => (table, titles),
        None => {
            let built = Memo::new(move |_| table.get());
            (
                built.into(),
                Signal::derive(move || built.with(Table::titles)),
            )
        }
    };
    let details = format!("{testid}-details");
    view! {
        <details class="table" data-testid=details on:toggle=move |_| open.update(|o| *o = !*o)>
            <summary>"Data table"</summary>
            <div class="table-scroll" tabindex="0" role="region" aria-label=name>
                <table class=class data-testid=testid>
                    <thead><tr>
                        {move || titles.get().into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view()}
                    </tr></thead>
                    <tbody>
                        {move || {
                            let rows = if open.get() { table.get().rows } else { Vec::new() };
                            rows.into_iter().map(|r| view! {
                                <tr>{r.into_iter().map(|v| view! { <td>{v}</td> }).collect_view()}</tr>
                            }).collect_view()
                        }}
                    </tbody>
                </table>
            </div>
            <button type="button" on:click=move |_| download(&file, "text/csv", &table.get_untracked().csv())>
                "Download CSV"
            </button>
        </details>
    }
}
