//! The step timeline (Gantt) panel: one row per GPU group, bars for compute, communication,
//! data waits and bubbles, and the same bars as a data table with CSV.

use super::paint::{paint_timeline, timeline_colour};
use crate::render::series::duration;
use crate::render::timeline::{timeline, BarKind};
use crate::ui::hooks::{use_deferred_paint, use_element_size, use_prefers_dark};
use crate::ui::results::idle_share;
use crate::ui::state::Lab;
use crate::ui::table::DataTable;
use leptos::prelude::*;

/// The step timeline of the current scenario: the canvas, its legend, and the bars it draws as
/// a table (`Timeline::table`, from the same schedule).
#[component]
pub fn TimelinePanel() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let timeline_ref = NodeRef::<leptos::html::Canvas>::new();
    let size = use_element_size(timeline_ref);
    let dark = use_prefers_dark();
    let tl = Memo::new(move |_| {
        let sc = lab.scenario.get();
        lab.result
            .with(|r| r.as_ref().ok().map(|r| timeline(&sc, r)))
    });
    // Redraws when the scenario, the canvas's size or the system theme change; off screen,
    // once the controls rest or it scrolls into view.
    let track = move || {
        size.width.track();
        size.height.track();
        dark.track();
        timeline_ref.track();
        tl.track();
        lab.projector.track();
    };
    let paint = move || {
        let (w, h) = (size.width.get(), size.height.get());
        let dark = dark.get();
        let Some(c) = timeline_ref.get() else {
            return;
        };
        tl.with(|t| {
            if let Some(t) = t {
                paint_timeline(&c, t, (w, h), dark, lab.canvas_type_scale());
            }
        });
    };
    use_deferred_paint(timeline_ref, track, paint);
    // A pipeline's table runs to a thousand lines: its cells are made only while it is open.
    let table = move || tl.with(|t| t.as_ref().map(|t| t.table()).unwrap_or_default());

    view! {
        <h2>"One training step, GPU by GPU"</h2>
        // As tall as its rows need, up to the stylesheet's height (it left 60 px empty below
        // four stages).
        <canvas node_ref=timeline_ref data-testid="timeline-canvas" class="timeline" role="img"
            style=move || format!("--rows: {}", tl.with(|t| t.as_ref().map_or(8, |t| t.rows.len())))
            // How many bars it draws, for tests that hold the table against the drawing.
            data-bars=move || tl.with(|t| t.as_ref().map(|t| t.bars.len()))
            // The figures the result cards show for the same step (summing the drawn bars gave
            // other numbers than the cards beside it), then how long the drawing's step is when
            // the slowest GPU stretches it.
            aria-label=move || lab.result.with(|r| r.as_ref().ok().map(|r| {
                let step = r.breakdown.total();
                let slowest = tl.with(|t| t.as_ref().map_or(step, |t| t.total));
                let stretched = if slowest > step * 1.005 {
                    format!(" Drawn as the slowest GPU runs it: {}, the others waiting for it.", duration(slowest))
                } else {
                    String::new()
                };
                format!(
                    "Step timeline: compute {} of a {} step; the GPUs are idle {:.0} % of the time.{stretched}",
                    duration(r.breakdown.compute),
                    duration(step),
                    100.0 * lab.setup.with(|s| idle_share(s, r))
                )
            }).unwrap_or_default())></canvas>
        <ul class="legend">
            {move || [BarKind::Data, BarKind::Forward, BarKind::Backward, BarKind::Comm, BarKind::CommHidden, BarKind::CommExposed, BarKind::Bubble, BarKind::Serial, BarKind::Straggler]
                .into_iter()
                // The slowest GPU's entry only when there is one.
                .filter(|k| *k != BarKind::Straggler || tl.with(|t| t.as_ref().is_some_and(|t| t.bars.iter().any(|b| b.kind == BarKind::Straggler))))
                .map(|k| view! {
                    <li><span class="swatch" style:background=move || timeline_colour(k, dark.get())></span>{k.label()}</li>
                }).collect_view()}
        </ul>
        <p class="hint" data-testid="timeline-passes" hidden=move || tl.with(|t| !t.as_ref().is_some_and(|t| t.pipeline))>
            {move || tl.with(|t| {
                let Some(t) = t else { return "" };
                if t.bars.iter().any(|b| b.op.is_some_and(|(_, chunk)| chunk > 0)) {
                    "Each stage's passes in Megatron's interleaved 1F1B order: the number, where it fits, is the micro-batch; a bar with a pale top band is the stage's next model chunk; grey gaps are the bubble."
                } else if t.bars.iter().any(|b| b.op.is_some()) {
                    "Each stage's passes in Megatron's 1F1B order (forwards, then a forward and a backward in turn): the number, where it fits, is the micro-batch; grey gaps are the bubble."
                } else {
                    "Too many micro-batches to draw one by one: each stage's forward and backward passes are drawn as one block each, its share of the bubble before and after them."
                }
            })}
        </p>
        <DataTable table=Signal::derive(table) name="The timeline's bars".to_string()
            testid="timeline-table".to_string() file="timeline.csv".to_string() class="timeline-table" />
    }
}
