//! Pin and compare (issue 15): "Pin as A" keeps the scenario on screen as A while the reader
//! changes the live one (B); the results show both side by side with the difference, the
//! speedup and efficiency charts draw A's curve dashed, and the link carries A (`pin=`). What
//! the texts say is decided by `render::series::pin`; A's numbers come from `Lab`'s memos over
//! the same model as B's.

use super::results::rate;
use super::state::Lab;
use crate::model::step::{StepResult, Verdict};
use crate::render::series::{duration, group, pin, speedup_text};
use leptos::prelude::*;

/// One line of a side's card: its label, a `data-field` for tests, the value.
type Row = (&'static str, &'static str, String);

/// What a card lists for one side: the count, the step and its rates, memory, the bottleneck.
fn rows(gpus: u32, r: &StepResult, verdict: Option<&Verdict>) -> Vec<Row> {
    let gib = |x: f64| x / 1073741824.0;
    let memory = format!(
        "{} ({:.1} of {:.0} GiB)",
        if r.memory.fits() {
            "fits"
        } else {
            "does not fit"
        },
        gib(r.memory.total()),
        gib(r.memory.capacity)
    );
    let throughput = match r.tokens_per_s {
        Some(t) => format!("{}tokens/s", rate(t)),
        None => format!("{}samples/s", rate(r.throughput)),
    };
    vec![
        ("GPUs", "gpus", group(gpus)),
        ("Step time", "step-time", duration(r.breakdown.total())),
        ("Speedup", "speedup", speedup_text(r.speedup)),
        (
            "Efficiency",
            "efficiency",
            format!("{:.0} %", 100.0 * r.efficiency),
        ),
        ("MFU", "mfu", format!("{:.0} %", 100.0 * r.mfu)),
        ("Throughput", "throughput", throughput),
        ("Memory per GPU", "memory", memory),
        (
            "Bottleneck",
            "bottleneck",
            verdict.map(|v| v.text.clone()).unwrap_or_default(),
        ),
    ]
}

/// The pin and unpin buttons, and while A is pinned, A and B side by side with what differs.
#[component]
pub fn PinCompare() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let pinned = Memo::new(move |_| lab.pinned.with(Option::is_some));
    // An embed shows a comparison its link asks for, without the buttons.
    let top_level = lab.embed.get_value().is_none();
    let pin_button = NodeRef::<leptos::html::Button>::new();
    let keys = Memo::new(move |_| {
        lab.pinned.with(|a| {
            a.as_ref()
                .map(|a| {
                    lab.scenario
                        .with(|b| pin::keys_text(&pin::differing_keys(a, b)))
                })
                .unwrap_or_default()
        })
    });
    let a_rows = Memo::new(move |_| {
        lab.pinned_result.with(|r| match r {
            Some(Ok(r)) => {
                let gpus = lab.pinned.with(|a| a.as_ref().map_or(0, |a| a.gpus));
                lab.pinned_verdict.with(|v| Ok(rows(gpus, r, v.as_ref())))
            }
            Some(Err(e)) => Err(e.clone()),
            None => Ok(Vec::new()),
        })
    });
    let b_rows = Memo::new(move |_| {
        if !pinned.get() {
            return Ok(Vec::new());
        }
        lab.result.with(|r| match r {
            Ok(r) => {
                let gpus = lab.scenario.with(|s| s.gpus);
                lab.verdict.with(|v| Ok(rows(gpus, r, v.as_ref())))
            }
            Err(e) => Err(e.clone()),
        })
    });
    let diff = Memo::new(move |_| {
        lab.pinned_result.with(|a| match a {
            Some(Ok(a)) => lab.result.with(|b| {
                b.as_ref()
                    .map(|b| pin::difference(a, b))
                    .unwrap_or_default()
            }),
            _ => String::new(),
        })
    });
    view! {
        {top_level.then(|| view! {
            <div class="pin-bar">
                <button type="button" data-testid="pin" node_ref=pin_button on:click=move |_| lab.pin()>
                    {move || if pinned.get() { "Pin B as the new A" } else { "Pin as A" }}
                </button>
                {move || pinned.get().then(|| view! {
                    <button type="button" data-testid="unpin" on:click=move |_| {
                        lab.unpin();
                        // The button goes with the comparison: keep the keyboard's place.
                        if let Some(b) = pin_button.get_untracked() {
                            let _ = b.focus();
                        }
                    }>"Unpin"</button>
                })}
                {move || (!pinned.get()).then(|| view! {
                    <span class="hint">"Keep this configuration as A, change another, and compare them (the link carries both)."</span>
                })}
            </div>
        })}
        {move || pinned.get().then(|| view! {
            <section class="ab" data-testid="compare" aria-label="Pinned A against live B">
                <p class="ab-keys" data-testid="compare-keys">{move || keys.get()}</p>
                <div class="ab-grid">
                    <Side title="A (pinned)" testid="compare-a" rows=a_rows />
                    <Side title="B (live)" testid="compare-b" rows=b_rows />
                </div>
                <p class="ab-diff" data-testid="compare-diff" aria-live="polite">{move || diff.get()}</p>
            </section>
        })}
    }
}

/// One side's card.
#[component]
fn Side(
    /// Heading ("A (pinned)").
    title: &'static str,
    /// `data-testid` of the card.
    testid: &'static str,
    /// The side's lines, or why its step cannot be computed.
    rows: Memo<Result<Vec<Row>, String>>,
) -> impl IntoView {
    view! {
        <div class="ab-card" data-testid=testid>
            <h3>{title}</h3>
            {move || rows.with(|r| match r {
                Ok(rows) => view! {
                    <dl>
                        {rows.iter().map(|(label, field, value)| view! {
                            <div data-field=*field>
                                <dt>{*label}</dt>
                                <dd>{value.clone()}</dd>
                            </div>
                        }).collect_view()}
                    </dl>
                }.into_any(),
                Err(e) => view! { <p class="problem">{e.clone()}</p> }.into_any(),
            })}
        </div>
    }
}
