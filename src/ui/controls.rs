//! The controls: native inputs with labels, each writing one scenario key.

use super::state::{Lab, PRESETS};
use crate::model::collective::Algo;
use crate::model::hardware::{FABRICS, GPUS, NETWORKS};
use crate::model::keys::{MAX_GPUS, PER_NODE_STEPS};
use crate::model::scenario::{Model, Scaling};
use crate::model::units::{format_bytes, GIB, KIB, MIB};
use crate::model::workload::{self, Recompute};
use leptos::prelude::*;

/// A labelled `<select>` bound to one scenario key.
#[component]
pub(crate) fn Choice(
    /// Visible label.
    label: &'static str,
    /// Scenario key it writes.
    key: &'static str,
    /// `data-testid` for tests and embedding pages.
    testid: &'static str,
    /// (value, text) pairs.
    options: Signal<Vec<(String, String)>>,
    /// The current value.
    value: Signal<String>,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let id = format!("ctl-{testid}");
    view! {
        <label for=id.clone()>{label}</label>
        <select
            id=id
            data-testid=testid
            on:change=move |ev| lab.set(key, &event_target_value(&ev))
            prop:value=move || value.get()
        >
            <For each=move || options.get() key=|o| o.0.clone() let((v, text))>
                <option value=v.clone() selected=move || value.get() == v>
                    {text}
                </option>
            </For>
        </select>
    }
}

/// A labelled number field bound to one scenario key; empty means "default".
#[component]
fn Number(
    label: &'static str,
    key: &'static str,
    testid: &'static str,
    value: Signal<String>,
    #[prop(optional)] placeholder: &'static str,
    #[prop(default = 1)] min: u32,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let id = format!("ctl-{testid}");
    view! {
        <label for=id.clone()>{label}</label>
        <input
            id=id
            type="number"
            inputmode="numeric"
            min=min
            data-testid=testid
            placeholder=placeholder
            prop:value=move || value.get()
            on:change=move |ev| lab.set(key, event_target_value(&ev).trim())
        />
    }
}

fn opts<T>(items: &[T], f: impl Fn(&T) -> (String, String)) -> Vec<(String, String)> {
    items.iter().map(f).collect()
}

/// The logarithmic GPU slider: 1, 2, 4, … 65,536.
#[component]
fn GpuSlider() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let sc = lab.scenario;
    view! {
        <input
            id="ctl-gpus-slider"
            type="range"
            min="0"
            max="16"
            step="1"
            data-testid="gpus-slider"
            aria-valuetext=move || format!("{} GPUs", sc.with(|s| s.gpus))
            prop:value=move || (f64::from(sc.with(|s| s.gpus)).log2().round() as u32).to_string()
            on:input=move |ev| {
                let e: u32 = event_target_value(&ev).parse().unwrap_or(3);
                lab.set("gpus", &(1u32 << e.min(16)).to_string());
            }
        />
    }
}

/// The GPU type, inter-node network and model choices, shared by the full and compact controls.
#[component]
fn GpuChoice() -> impl IntoView {
    let sc = expect_context::<Lab>().scenario;
    view! {
        <Choice label="GPU" key="gpu" testid="gpu"
            options=Signal::derive(|| opts(&GPUS, |g| (g.id.to_string(), g.name.to_string())))
            value=Signal::derive(move || sc.with(|s| s.gpu.id.to_string())) />
    }
}

#[component]
fn InterChoice() -> impl IntoView {
    let sc = expect_context::<Lab>().scenario;
    view! {
        <Choice label="Between nodes" key="inter" testid="inter"
            options=Signal::derive(|| opts(&NETWORKS, |n| (n.id.to_string(), n.name.to_string())))
            value=Signal::derive(move || sc.with(|s| s.resolved().inter.id.to_string())) />
    }
}

#[component]
fn ModelChoice() -> impl IntoView {
    let sc = expect_context::<Lab>().scenario;
    view! {
        <Choice label="Model" key="model" testid="model"
            options=Signal::derive(|| {
                let mut v = opts(&workload::PRESETS, |w| (w.id.to_string(), w.name.to_string()));
                v.push(("custom".to_string(), "Custom transformer".to_string()));
                v
            })
            value=Signal::derive(move || sc.with(|s| s.model.id().to_string())) />
    }
}

/// Every control, grouped, plus the presets.
#[component]
pub fn Controls() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let sc = lab.scenario;
    let custom = move || sc.with(|s| s.model == Model::Custom);
    view! {
        <div class="presets">
            <label for="ctl-preset">"Start from"</label>
            <select
                id="ctl-preset"
                data-testid="preset"
                on:change=move |ev| {
                    let i: usize = event_target_value(&ev).parse().unwrap_or(usize::MAX);
                    if let Some((_, q)) = PRESETS.get(i) {
                        lab.load(q);
                    }
                }
            >
                <option value="">"a named cluster…"</option>
                {PRESETS
                    .iter()
                    .enumerate()
                    .map(|(i, (name, _))| view! { <option value=i.to_string()>{*name}</option> })
                    .collect_view()}
            </select>
        </div>
        <fieldset>
            <legend>"Cluster"</legend>
            <label for="ctl-gpus-slider">"GPUs"</label>
            <div class="gpus-row">
                <GpuSlider />
                <input
                    type="number"
                    min="1"
                    max=MAX_GPUS
                    aria-label="GPU count"
                    data-testid="gpus"
                    prop:value=move || sc.with(|s| s.gpus.to_string())
                    on:change=move |ev| lab.set("gpus", event_target_value(&ev).trim())
                />
            </div>
            <Choice
                label="GPUs per node"
                key="per_node"
                testid="per-node"
                options=Signal::derive(|| {
                    PER_NODE_STEPS.iter().map(|n| (n.to_string(), n.to_string())).collect()
                })
                value=Signal::derive(move || sc.with(|s| s.per_node.unwrap_or(8).to_string()))
            />
            <GpuChoice />
            <Choice
                label="Inside a node"
                key="intra"
                testid="intra"
                options=Signal::derive(|| opts(&FABRICS, |f| (f.id.to_string(), f.name.to_string())))
                value=Signal::derive(move || sc.with(|s| s.resolved().intra.id.to_string()))
            />
            <InterChoice />
            <Choice
                label="NICs per node"
                key="nics"
                testid="nics"
                options=Signal::derive(|| (1u32..=8).map(|n| (n.to_string(), n.to_string())).collect())
                value=Signal::derive(move || sc.with(|s| s.resolved().nics.to_string()))
            />
            <Choice
                label="All-reduce algorithm"
                key="algo"
                testid="algo"
                options=Signal::derive(|| {
                    opts(&Algo::ALL, |a| (a.id().to_string(), a.name().to_string()))
                })
                value=Signal::derive(move || sc.with(|s| s.algo.id().to_string()))
            />
            <Choice
                label="Message for the collective card"
                key="bytes"
                testid="bytes"
                options=Signal::derive(|| {
                    [4.0 * KIB, 64.0 * KIB, MIB, 16.0 * MIB, 256.0 * MIB, GIB, 4.0 * GIB]
                        .iter()
                        .map(|b| (format_bytes(*b), crate::model::units::human_bytes(*b)))
                        .collect()
                })
                value=Signal::derive(move || sc.with(|s| format_bytes(s.bytes.0)))
            />
        </fieldset>
        <fieldset>
            <legend>"Workload"</legend>
            <ModelChoice />
            <Show when=custom>
                <div class="custom">
                    <Number label="Layers" key="layers" testid="layers"
                        value=Signal::derive(move || sc.with(|s| s.layers.map(|v| v.to_string()).unwrap_or_default()))
                        placeholder="32" />
                    <Number label="Hidden size" key="hidden" testid="hidden"
                        value=Signal::derive(move || sc.with(|s| s.hidden.map(|v| v.to_string()).unwrap_or_default()))
                        placeholder="4096" />
                    <Number label="Attention heads" key="heads" testid="heads"
                        value=Signal::derive(move || sc.with(|s| s.heads.map(|v| v.to_string()).unwrap_or_default()))
                        placeholder="32" />
                    <Number label="Sequence length" key="seq" testid="seq"
                        value=Signal::derive(move || sc.with(|s| s.seq.map(|v| v.to_string()).unwrap_or_default()))
                        placeholder="2048" />
                </div>
            </Show>
            <Number label="Global batch (samples)" key="batch" testid="batch"
                value=Signal::derive(move || sc.with(|s| s.batch.map(|v| v.to_string()).unwrap_or_default()))
                placeholder="auto: one micro-batch per replica" />
            <Number label="Micro-batch per GPU" key="micro" testid="micro"
                value=Signal::derive(move || sc.with(|s| s.resolved().micro.to_string())) />
            <Choice
                label="Precision"
                key="precision"
                testid="precision"
                options=Signal::derive(move || {
                    sc.with(|s| s.gpu.precision_ids().iter().map(|p| (p.to_string(), p.to_uppercase())).collect())
                })
                value=Signal::derive(move || sc.with(|s| s.resolved().precision.id().to_string()))
            />
        </fieldset>
        <fieldset>
            <legend>"Parallelism"</legend>
            <Choice
                label="Tensor parallel (tp)"
                key="tp"
                testid="tp"
                options=Signal::derive(move || {
                    let pn = sc.with(|s| s.resolved().per_node);
                    PER_NODE_STEPS
                        .iter()
                        .filter(|t| **t <= u64::from(pn))
                        .map(|t| (t.to_string(), t.to_string()))
                        .collect()
                })
                value=Signal::derive(move || sc.with(|s| s.tp.to_string()))
            />
            <Number label="Pipeline stages (pp)" key="pp" testid="pp"
                value=Signal::derive(move || sc.with(|s| s.pp.to_string())) />
            <Choice
                label="ZeRO / FSDP stage"
                key="zero"
                testid="zero"
                options=Signal::derive(|| {
                    vec![
                        ("0".into(), "0: plain data parallel".into()),
                        ("1".into(), "1: shard optimizer state".into()),
                        ("2".into(), "2: + gradients".into()),
                        ("3".into(), "3: + weights (FSDP)".into()),
                    ]
                })
                value=Signal::derive(move || sc.with(|s| s.resolved().zero.to_string()))
            />
            <Choice
                label="Activation recomputation"
                key="recompute"
                testid="recompute"
                options=Signal::derive(|| opts(&Recompute::ALL, |r| (r.id().to_string(), r.id().to_string())))
                value=Signal::derive(move || sc.with(|s| s.recompute.id().to_string()))
            />
            <div class="check">
                <input
                    id="ctl-overlap"
                    type="checkbox"
                    data-testid="overlap"
                    prop:checked=move || sc.with(|s| s.overlap)
                    on:change=move |ev| lab.set("overlap", if event_target_checked(&ev) { "1" } else { "0" })
                />
                <label for="ctl-overlap">"Overlap the gradient all-reduce with the backward pass"</label>
            </div>
            <Choice
                label="Speedup measured as"
                key="scaling"
                testid="scaling"
                options=Signal::derive(|| {
                    vec![
                        (Scaling::Weak.id().to_string(), "weak: same batch per GPU".to_string()),
                        (Scaling::Strong.id().to_string(), "strong: same global batch".to_string()),
                    ]
                })
                value=Signal::derive(move || sc.with(|s| s.scaling.id().to_string()))
            />
        </fieldset>
    }
}

/// The few controls of the embeddable calculator: GPUs, GPU type, network and model.
#[component]
pub fn CompactControls() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let sc = lab.scenario;
    view! {
        <div class="compact-controls">
            <div>
                <label for="ctl-gpus-slider">"GPUs: " {move || sc.with(|s| s.gpus)}</label>
                <GpuSlider />
            </div>
            <div><GpuChoice /></div>
            <div><InterChoice /></div>
            <div><ModelChoice /></div>
        </div>
    }
}
