//! The results panel: step time and its breakdown, throughput, speedup, efficiency, MFU, idle
//! share, memory, the verdict, and the collective on its own.

use super::explainer::Term;
use super::state::Lab;
use super::validation::ExpectedError;
use crate::model::collective;
use crate::model::units::human_bytes;
use crate::render::charts::PART_COLOURS;
use crate::render::series::{duration, group, parts, speedup_text, PARTS};
use crate::validation::Group;
use leptos::prelude::*;

/// A rate with a readable multiplier.
pub fn rate(x: f64) -> String {
    if !x.is_finite() {
        "—".to_string()
    } else if x >= 1e6 {
        format!("{:.2} M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1} k", x / 1e3)
    } else {
        format!("{x:.1}")
    }
}

/// The share of the step the GPUs sit idle (the "GPUs idle" card, and the timeline's
/// description): all but their compute, and all of it for the replicas strong scaling leaves
/// without a sample.
pub fn idle_share(s: &crate::model::scenario::Setup, r: &crate::model::step::StepResult) -> f64 {
    let active = f64::from(s.dp_active) / f64::from(s.dp.max(1));
    1.0 - active * r.breakdown.compute / r.breakdown.total().max(1e-12)
}

fn css(c: plotters::style::RGBColor) -> String {
    format!("rgb({},{},{})", c.0, c.1, c.2)
}

/// The results for the chosen GPU count.
#[component]
pub fn Results() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let r = lab.result;
    let gib = |x: f64| x / crate::model::units::GIB;
    let ok = move |f: &dyn Fn(&crate::model::step::StepResult) -> String| {
        r.with(|r| match r {
            Ok(r) => f(r),
            Err(_) => "—".to_string(),
        })
    };
    // Whether the one GPU the speedup is measured against holds the job unsplit: where it does
    // not, the speedup is against the time the model computes for it.
    let baseline_fits = Memo::new(move |_| {
        lab.scenario.with(|sc| {
            let one = crate::model::scenario::Scenario {
                gpus: 1,
                tp: 1,
                pp: 1,
                vpp: 1,
                ..sc.clone()
            };
            // A layout one GPU cannot take is not called unfit.
            match one.setup() {
                Ok(s) => crate::model::step::memory(&s).fits(),
                Err(_) => true,
            }
        })
    });
    // How far the model reads below published memory peaks, from the validation rows: worked
    // out once, not on every control change.
    let memory_lean = crate::render::validation::outcomes()
        .as_ref()
        .ok()
        .and_then(|o| crate::render::validation::expected_error(o, Group::Memory))
        .and_then(|e| e.lean)
        .filter(|e| *e < 0.0);
    view! {
        <h2>"At " {move || group(lab.scenario.with(|s| s.gpus))} " GPUs"</h2>
        <super::compare::PinCompare />
        {move || r.with(|r| r.as_ref().err().map(|e| view! { <p class="problem">{e.clone()}</p> }))}
        {move || r.with(|r| r.as_ref().is_ok_and(|r| !r.memory.fits())).then(|| view! {
            <p class="infeasible-note" data-testid="infeasible">
                <strong>"Does not fit in memory"</strong>
                " — these numbers are what it would do if it fit."
            </p>
        })}
        <dl class="figures">
            <div>
                <dt><Term id="step-time">"Step time"</Term></dt>
                <dd data-testid="step-time">{move || ok(&|r| duration(r.breakdown.total()))}</dd>
                <dd class="expected-dd"><ExpectedError group=Group::Step /></dd>
            </div>
            <div>
                <dt><Term id="speedup">"Speedup"</Term>" vs 1 GPU"
                    {move || (!baseline_fits.get()).then_some(" (if it fit)")}</dt>
                <dd data-testid="speedup">{move || ok(&|r| speedup_text(r.speedup))}</dd>
                <dd class="expected-dd"><ExpectedError group=Group::Efficiency /></dd>
            </div>
            <div>
                <dt><Term id="efficiency">"Efficiency"</Term></dt>
                <dd data-testid="efficiency">{move || ok(&|r| format!("{:.0} %", 100.0 * r.efficiency))}</dd>
                <dd class="expected-dd"><ExpectedError group=Group::Efficiency /></dd>
            </div>
            <div>
                <dt><Term id="tokens-per-s">"Throughput"</Term></dt>
                <dd data-testid="throughput">
                    {move || ok(&|r| match r.tokens_per_s {
                        Some(t) => format!("{}tokens/s", rate(t)),
                        None => format!("{}samples/s", rate(r.throughput)),
                    })}
                </dd>
                <dd class="expected-dd"><ExpectedError group=Group::Step /></dd>
            </div>
            <div>
                <dt><Term id="mfu">"MFU"</Term></dt>
                <dd data-testid="mfu">{move || ok(&|r| format!("{:.0} %", 100.0 * r.mfu))}</dd>
                <dd class="expected-dd"><ExpectedError group=Group::Step /></dd>
            </div>
            <div>
                <dt>"GPUs idle"</dt>
                <dd data-testid="idle">
                    {move || ok(&|r| format!("{:.0} % of the step", 100.0 * lab.setup.with(|s| idle_share(s, r))))}
                </dd>
            </div>
        </dl>
        <div class="stack" role="img" data-testid="breakdown-bar"
            aria-label=move || ok(&|r| {
                let t = r.breakdown.total();
                PARTS.iter().zip(parts(&r.breakdown)).filter(|(_, v)| *v > 0.0)
                    .map(|(n, v)| format!("{n} {:.0} %", 100.0 * v / t)).collect::<Vec<_>>().join(", ")
            })>
            {move || r.with(|r| r.as_ref().ok().map(|r| {
                let t = r.breakdown.total();
                parts(&r.breakdown).iter().enumerate().filter(|(_, v)| **v / t > 0.002).map(|(i, v)| {
                    let pct = 100.0 * v / t;
                    view! {
                        <span class="seg" style:width=format!("{pct:.2}%") style:background=css(PART_COLOURS[i])
                            title=format!("{}: {} ({pct:.0} %)", PARTS[i], duration(*v))></span>
                    }
                }).collect_view()
            }))}
        </div>
        <ul class="legend">
            {move || r.with(|r| r.as_ref().ok().map(|r| {
                let t = r.breakdown.total();
                parts(&r.breakdown).iter().enumerate().filter(|(_, v)| **v / t > 0.002).map(|(i, v)| view! {
                    <li><span class="swatch" style:background=css(PART_COLOURS[i])></span>
                        {format!("{} {} ({:.0} %)", PARTS[i], duration(*v), 100.0 * v / t)}</li>
                }).collect_view()
            }))}
        </ul>
        <p class="memory" data-testid="memory">
            {move || r.with(|r| match r {
                Ok(r) => {
                    let m = r.memory;
                    let head = format!("Memory per GPU: {:.1} GiB of {:.0} GiB usable (weights {:.1}, gradients {:.1}, optimizer {:.1}, ",
                        gib(m.total()), gib(m.capacity), gib(m.weights), gib(m.gradients), gib(m.optimizer));
                    let fits = fit_words(m.total(), m.capacity, memory_lean);
                    view! {
                        {head}
                        <Term id="activations">"activations"</Term>
                        {format!(" {:.1}, ", gib(m.activations))}
                        <Term id="working-buffers">"working buffers"</Term>
                        {format!(" {:.1}) — {fits}", gib(m.buffers))}
                    }.into_any()
                }
                Err(_) => "—".into_any(),
            })}
            " " <ExpectedError group=Group::Memory />
        </p>
        <super::run::RunCard />
        <div class="verdict" data-testid="bottleneck" aria-live="polite">
            {move || lab.verdict.with(|v| v.as_ref().map(|v| view! {
                <p><strong>{v.text.clone()}</strong></p>
                <p>{v.advice.clone()}</p>
                {v.fix.clone().map(|f| {
                    let q = f.scenario.to_query();
                    view! {
                        <button type="button" class="apply-fix" data-testid="apply-fix" on:click=move |_| lab.load(&q)>
                            {crate::classroom::fix_label(&f.changes)}
                        </button>
                    }
                })}
            }))}
        </div>
        <CollectiveCard />
    }
}

/// On a narrow screen the results sit above the controls, a screen or more away: a bar at
/// the foot of the controls keeps the headline numbers in view while they change, and jumps to
/// the results. Hidden on wide screens (CSS) and while a lesson hides its answer.
#[component]
pub fn MiniResults() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || {
        lab.result.with(|r| match r {
            Ok(r) if !r.memory.fits() => "Does not fit in memory".to_string(),
            Ok(r) => format!(
                "Step {} · {} speedup · {:.0} % efficiency",
                duration(r.breakdown.total()),
                speedup_text(r.speedup),
                100.0 * r.efficiency
            ),
            Err(_) => "No result: see the problem above".to_string(),
        })
    };
    view! {
        <button type="button" class="mini-results" data-testid="mini-results"
            hidden=move || lab.answer_hidden.get()
            on:click=move |_| super::page::jump_to(lab, "results")>
            <span>{text}</span> <span aria-hidden="true">"↑"</span>
        </button>
    }
}

/// "fits" or "does not fit"; "fits, tightly" where the memory the model counts fits by less
/// than it reads below published peaks (`lean`, negative, on every held-out memory row).
fn fit_words(need: f64, capacity: f64, lean: Option<f64>) -> String {
    if need > capacity {
        return "does not fit".to_string();
    }
    match lean {
        Some(e) if need / (1.0 + e) > capacity => format!(
            "fits, tightly: by less than the {:.0} % the model reads below published peaks (it counts live tensors, not the allocator's reserve)",
            -100.0 * e
        ),
        _ => "fits".to_string(),
    }
}

/// One collective on this cluster, as nccl-tests would report it.
#[component]
fn CollectiveCard() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let cost = Memo::new(move |_| {
        lab.scenario.with(|s| {
            let s = s.resolved();
            collective::cost(&s.cluster(), s.op, s.algo, s.bytes).map_err(|e| e.to_string())
        })
    });
    view! {
        <div class="collective" data-testid="collective">
            <h3>"One " {move || lab.scenario.with(|s| s.op.id())} " of "
                {move || lab.scenario.with(|s| human_bytes(s.bytes.0))}
                " " <ExpectedError group=Group::Collective /></h3>
            {move || cost.with(|c| match c {
                // nccl-tests on one GPU times a local copy: there is no one to combine with.
                Ok(c) if lab.setup.with(|s| s.gpus) == 1 => view! {
                    <p>{format!("One GPU has no one to combine gradients with: the collective is a local copy ({}), and a step needs no sync.",
                        duration(c.time_s))}</p>
                }.into_any(),
                Ok(c) => view! {
                    <p>
                        {format!("{} ({} protocol): {} — algbw {}, busbw {}; {}; {:.0} % of it is latency.",
                            c.algorithm.name(), c.protocol.id(), duration(c.time_s),
                            crate::render::measured::gbs(c.algbw_gbs), crate::render::measured::gbs(c.busbw_gbs),
                            if c.latency_bound() {
                                "latency-bound".to_string()
                            } else {
                                format!("bound by {}", c.bottleneck.id_on(lab.setup.with(|s| s.intra)))
                            },
                            100.0 * c.latency_share)}
                    </p>
                }.into_any(),
                Err(e) => view! { <p class="problem">{e.clone()}</p> }.into_any(),
            })}
            <p class="hint terms">"What these mean: "
                <Term id="algbw">"algbw"</Term> ", " <Term id="busbw">"busbw"</Term> ", "
                <Term id="protocol">"LL / LL128 / Simple"</Term></p>
        </div>
    }
}
