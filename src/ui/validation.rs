//! "How good is this model?" (`#page=validation`, `#embed=validation`): every validation row
//! with the model's value computed now, the per-group errors, and the scatter of model against
//! published; and the expected error beside each headline number of the results, linking here.
//! What the page says is decided in [`crate::render::validation`].

use super::plot::use_plot;
use super::state::Lab;
use crate::render::validation::{
    draw_scatter, expected_error, group_colour, group_summaries, group_title, outcomes,
    scatter_points, scatter_takeaway, table_html, table_rows, TableRow,
};
use crate::validation::{Group, Set as RowSet};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The page key's value for this page (`page=validation`).
pub const PAGE: &str = "validation";

/// The id of a group's summary on the page (a link target).
fn group_anchor(g: Group) -> String {
    format!("validation-group-{}", g.id())
}

/// Scrolls to the element with `id` and focuses it, once the current render is on screen.
fn scroll_to(id: String) {
    request_animation_frame(move || {
        if let Some(el) = document().get_element_by_id(&id) {
            el.scroll_into_view();
            if let Some(h) = el.dyn_ref::<web_sys::HtmlElement>() {
                let _ = h.focus();
            }
        }
    });
}

/// Opens the validation page, at a group's summary when one is given.
pub fn open(lab: Lab, group: Option<Group>) {
    lab.push_history();
    lab.page.set(Some(PAGE.to_string()));
    lab.page_group.set(group.map(|g| g.id().to_string()));
    match group {
        Some(g) => scroll_to(group_anchor(g)),
        None => scroll_to("validation-title".to_string()),
    }
}

/// Leaves the validation page for the explorer, scrolled to the element with `id`.
pub fn close(lab: Lab, id: &'static str) {
    lab.push_history();
    lab.page.set(None);
    lab.page_group.set(None);
    scroll_to(id.to_string());
}

/// The link to a group on the validation page: in the page itself it opens it in place; in an
/// embed, in a new tab of the full app.
fn group_href(lab: Lab, g: Group) -> impl Fn() -> String {
    let embedded = lab.embed.get_value().is_some();
    move || {
        format!(
            "{}#page={PAGE}&group={}&{}",
            if embedded { "./" } else { "" },
            g.id(),
            lab.scenario.with(|s| s.to_query())
        )
    }
}

/// The expected error of a headline number ("±16 %"), from the held-out mean absolute error
/// of its validation group, linking to that group on the validation page. Nothing when the
/// group has no held-out row.
#[component]
pub fn ExpectedError(
    /// The validation group whose error the number carries.
    group: Group,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let e = outcomes()
        .as_ref()
        .ok()
        .and_then(|o| expected_error(o, group))?;
    let embedded = lab.embed.get_value().is_some();
    Some(view! {
        <a class="expected" data-testid="expected-error" data-group=group.id()
            href=group_href(lab, group)
            title=e.title.clone()
            aria-label=e.title
            target=embedded.then_some("_blank")
            rel=embedded.then_some("noopener")
            on:click=move |ev| {
                if !embedded {
                    ev.prevent_default();
                    open(lab, Some(group));
                }
            }>
            {e.label}
        </a>
    })
}

/// The validation page: group summaries, the scatter chart and every row.
#[component]
pub fn ValidationPage() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let embedded = lab.embed.get_value().is_some();
    let all =
        match outcomes() {
            Ok(o) => o.as_slice(),
            Err(e) => return view! {
                <section class="validation" data-testid="validation">
                    <h2 id="validation-title">"How good is this model?"</h2>
                    <p class="problem">{format!("The validation rows could not be read: {e}")}</p>
                </section>
            }
            .into_any(),
        };
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let points = scatter_points(all);
    use_plot(canvas, "chart-validation", move |root, st| {
        draw_scatter(root, &points, st)
    });
    // A link to a group lands on its summary.
    Effect::new(move |_| {
        if let Some(g) = lab.page_group.get() {
            scroll_to(format!("validation-group-{g}"));
        }
    });
    let dark = super::hooks::use_prefers_dark();
    let swatch = move |g: Group| {
        let c = group_colour(g, dark.get());
        format!("rgb({},{},{})", c.0, c.1, c.2)
    };
    let rows = table_rows(all);
    let row_count = rows.len();
    let table = rows_table(lab, rows, embedded, swatch);
    let takeaway = scatter_takeaway(all);
    let held_out = all.iter().filter(|o| o.row.set == RowSet::HeldOut).count();
    view! {
        <section class="validation" id="validation" aria-labelledby="validation-title" data-testid="validation">
            {(!embedded).then(|| view! {
                <p class="vback">
                    <a href=move || format!("#{}", lab.scenario.with(|s| s.to_query()))
                        data-testid="validation-back"
                        on:click=move |ev| { ev.prevent_default(); close(lab, "results"); }>
                        "← Back to the explorer"
                    </a>
                </p>
            })}
            <h2 id="validation-title" tabindex="-1">"How good is this model?"</h2>
            <p class="vintro">
                {format!("Every published measurement the model is checked against — {} rows — with the model's value computed now, in your browser. ", all.len())}
                {format!("The {} calibration rows are the only ones any constant was fitted on; the {held_out} held-out rows were never used for fitting, so their error is the model's accuracy. ", all.len() - held_out)}
                "A row the model misses stays in the list, with the reason: it is the next thing to fix."
            </p>
            <div class="vgroups">
                {group_summaries(all).into_iter().map(|s| {
                    let g = s.group;
                    view! {
                        <article class="vgroup" id=group_anchor(g) tabindex="-1" data-testid="validation-group"
                            data-group=g.id()
                            class:focused=move || lab.page_group.with(|x| x.as_deref() == Some(g.id()))>
                            <h3><span class="swatch" style:background=move || swatch(g)></span>{group_title(g)}</h3>
                            <p>{s.held_out_text()}</p>
                            {let c = s.calibration_text(); (!c.is_empty()).then(|| view! { <p class="hint">{c}</p> })}
                        </article>
                    }
                }).collect_view()}
            </div>
            <figure class="chart vchart">
                <figcaption><h3>"Model against published, every row"</h3></figcaption>
                <div class="canvas-wrap">
                    <canvas node_ref=canvas data-testid="chart-validation" role="img" aria-label=takeaway.clone()></canvas>
                </div>
                <p class="readout">
                    {takeaway}
                    " Filled markers are held-out rows, hollow ones calibration rows."
                </p>
            </figure>
            {
                if embedded {
                    // Embedded in a documentation page, the widget stays a summary and a chart;
                    // the rows (hundreds of lines tall) open on request.
                    view! {
                        <details class="vrows" data-testid="validation-rows">
                            <summary>{format!("Every row ({}), with its source and the reason for each miss", row_count)}</summary>
                            {table}
                        </details>
                    }.into_any()
                } else {
                    table.into_any()
                }
            }
        </section>
    }
    .into_any()
}

/// The table of every row, in its scrolling box.
fn rows_table(
    lab: Lab,
    rows: Vec<TableRow>,
    embedded: bool,
    swatch: impl Fn(Group) -> String + Copy + Send + Sync + 'static,
) -> impl IntoView {
    view! {
            <div class="vtable-scroll">
                // Static rows as markup (see render::validation::table_html); a scenario link
                // opens the explorer through this one handler.
                <table class="vtable" data-testid="validation-table"
                    inner_html=move || table_html(&rows, embedded, swatch)
                    on:click=move |ev| {
                        let link = ev.target()
                            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                            .and_then(|t| t.closest("a[data-query]").ok().flatten());
                        if let Some(q) = link.and_then(|a| a.get_attribute("data-query")) {
                            ev.prevent_default();
                            lab.load(&q);
                            close(lab, "results");
                        }
                    }>
                </table>
            </div>
    }
}
