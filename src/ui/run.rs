//! The whole training run at the chosen count, beside the step's results: the slowest GPU's
//! step, the effective training time ratio, where the elapsed time goes (stragglers,
//! checkpoints, lost work, restarts in their own colours), days, GPU-hours, energy and an
//! example cost. The numbers come from `render::train`.

use super::explainer::Term;
use super::state::Lab;
use crate::render::charts::RUN_PART_COLOURS;
use crate::render::series::duration;
use crate::render::train::{
    days_text, energy_text, money, RunData, RunPoint, SharePoint, RUN_PARTS,
};
use leptos::prelude::*;

fn css(c: plotters::style::RGBColor) -> String {
    format!("rgb({},{},{})", c.0, c.1, c.2)
}

/// The run's figures and its elapsed-time bar.
#[component]
pub fn RunCard() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let at = move |f: &dyn Fn(&RunData, &RunPoint) -> String| {
        // A model that does not fit runs nothing.
        lab.run.with(|d| match d.timed_point() {
            Some(p) => f(d, p),
            None => "—".to_string(),
        })
    };
    // Where the run's time goes, only for a run that is timed: one that does not fit in
    // memory has no bar (its cards are dashes).
    let share = Memo::new(move |_| {
        let chosen = lab.scenario.with(|s| s.gpus);
        let timed = lab.run.with(|d| d.timed_point().is_some());
        timed
            .then(|| {
                lab.shares
                    .with(|s| s.points.iter().find(|p| p.gpus == chosen).copied())
            })
            .flatten()
    });
    let parts = move || {
        share.with(|p| {
            p.map(|p: SharePoint| {
                let t = p.total().max(1e-12);
                p.parts
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (i, *v, v / t))
                    .filter(|(_, _, s)| *s > 0.002)
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
        })
    };
    view! {
        <div class="run" data-testid="run">
            <h3>"The whole training run"</h3>
            <dl class="figures">
                <div>
                    <dt><Term id="straggler">"Slowest GPU"</Term>"'s step"</dt>
                    <dd data-testid="slowest-step">{move || at(&|_, p| duration(p.breakdown.total() + p.straggler))}</dd>
                </div>
                <div>
                    <dt>"Useful time (" <Term id="ettr">"ETTR"</Term> ")"</dt>
                    <dd data-testid="ettr">{move || at(&|_, p| format!("{:.1} %", 100.0 * p.ettr))}</dd>
                </div>
                <div>
                    <dt>"Time to train"</dt>
                    <dd data-testid="time-to-train">{move || at(&|_, p| days_text(p.days))}</dd>
                </div>
                <div>
                    <dt>"GPU-hours"</dt>
                    <dd data-testid="gpu-hours">{move || at(&|_, p| super::results::rate(p.gpu_hours))}</dd>
                </div>
                <div>
                    <dt>"Energy"</dt>
                    <dd data-testid="energy">{move || at(&|_, p| energy_text(p.energy_mwh))}</dd>
                </div>
                <div>
                    <dt>"Cost (example price)"</dt>
                    <dd data-testid="cost">{move || at(&|_, p| money(p.cost))}</dd>
                </div>
            </dl>
            // No bar for a run that is not timed (a model that does not fit).
            {move || share.with(Option::is_some).then(|| view! {
                <div class="stack" role="img" data-testid="run-bar"
                    aria-label=move || {
                        let s: Vec<String> = parts().into_iter()
                            .map(|(i, _, s)| format!("{} {:.0} %", RUN_PARTS[i], 100.0 * s))
                            .collect();
                        format!("Elapsed time of the run: {}", s.join(", "))
                    }>
                    {move || parts().into_iter().map(|(i, v, s)| view! {
                        <span class="seg" style:width=format!("{:.2}%", 100.0 * s)
                            style:background=css(RUN_PART_COLOURS[i])
                            title=format!("{}: {} per step ({:.0} %)", RUN_PARTS[i], duration(v), 100.0 * s)></span>
                    }).collect_view()}
                </div>
                <ul class="legend">
                    {move || parts().into_iter().map(|(i, v, s)| view! {
                        <li><span class="swatch" style:background=css(RUN_PART_COLOURS[i])></span>
                            {format!("{} {} ({:.0} %)", RUN_PARTS[i], duration(v), 100.0 * s)}</li>
                    }).collect_view()}
                </ul>
            })}
            <p class="hint terms" data-testid="run-terms">"What these mean: "
                <Term id="ettr">"ETTR"</Term> ", " <Term id="goodput">"goodput"</Term> ", "
                <Term id="mttf">"MTTF"</Term> ", " <Term id="straggler">"stragglers"</Term> ", "
                <Term id="checkpoint">"checkpoints"</Term></p>
            <p class="hint" data-testid="run-note">
                {move || if lab.run.with(|d| d.chosen_point().is_some_and(|p| !p.fits)) {
                    "Nothing is timed until the model fits in memory.".to_string()
                } else { at(&|d, p| format!(
                    "Elapsed time per step, with the time lost to checkpoints, redone work and restarts spread over the steps. Budget: {}; the batch of {} samples against a critical batch of {} needs {:.1}× the steps of budget ÷ batch. Cost at an example price of ${:.2} per GPU-hour{}: prices vary by GPU, provider and commitment: set your own (price).",
                    d.budget_text(),
                    crate::render::series::group_u64(p.batch as u64),
                    crate::render::series::group_u64(d.critical_batch.round() as u64),
                    p.batch_factor(d.critical_batch),
                    d.price,
                    // The default is one H100's; a price is not in the GPU catalog.
                    if d.price == crate::model::goodput::EXAMPLE_PRICE_PER_GPU_HOUR {
                        " (an H100 on AWS on demand, 2024; the same for every GPU)"
                    } else {
                        ""
                    }
                )) }}
            </p>
        </div>
    }
}
