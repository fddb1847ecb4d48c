//! "Explain my run": paste (or drop) the output of nccl-tests, see what the header says, confirm
//! the cluster with the explorer's own controls, see the run against the model with the gap
//! explained, and apply the fitted calibration to the whole explorer. What is inferred, found
//! and drawn is decided in [`crate::render::measured`]; the pasted text never leaves the page
//! and is not kept in the link (the calibration's few numbers are).

use super::controls::{fabric_options, Choice};
use super::plot::use_plot;
use super::state::Lab;
use super::table::DataTable;
use crate::model::hardware::{GPUS, NETWORKS};
use crate::model::keys::PER_NODE_STEPS;
use crate::model::nccl_tests::{self, Run, SAMPLES};
use crate::model::scenario::Scenario;
use crate::render::measured::{
    draw_measured, explain, header_keys, inferred, problems_message, Explained,
};
use crate::render::series::group;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Wait after the last keystroke before parsing.
const DEBOUNCE_MS: u64 = 250;
/// Longest text read (nccl-tests output is a few kB; a wrong file is cut here).
const MAX_CHARS: usize = 1 << 20;
/// The cluster keys a sample's scenario sets.
const CLUSTER_KEYS: [&str; 6] = ["gpus", "per_node", "gpu", "intra", "inter", "nics"];

/// Sets several scenario keys at once (one change for the explorer, checked as a whole); a
/// value the scenario refuses is shown as the explorer shows a refused control change.
fn set_keys(lab: Lab, keys: &[(&str, String)]) {
    let before = lab.scenario.get_untracked();
    let mut next = before.clone();
    for (k, v) in keys {
        if let Err(e) = next.set(k, v) {
            lab.refuse(k, e);
            return;
        }
    }
    let changed: Vec<&str> = keys.iter().map(|(k, _)| *k).collect();
    if let Err(e) = next.validate_after(&changed) {
        lab.refuse(&e.key.clone(), e);
        return;
    }
    if next != before {
        lab.show_problems(Vec::new());
        lab.scenario.set(next);
    }
}

/// The cluster keys of a sample's scenario string.
fn sample_keys(query: &str) -> Vec<(&'static str, String)> {
    query
        .split('&')
        .filter_map(|p| p.split_once('='))
        .filter_map(|(k, v)| {
            CLUSTER_KEYS
                .iter()
                .find(|c| **c == k)
                .map(|c| (*c, v.to_string()))
        })
        .collect()
}

/// The cluster keys that differ between the reader's plan and the explorer now, in words
/// ("GPUs 1,024 → 16"), from their resolved values (a default spelt out or not is the same).
fn cluster_changes(plan: &Scenario, now: &Scenario) -> Vec<String> {
    let (a, b) = (plan.resolved(), now.resolved());
    let pairs = [
        ("GPUs", group(a.gpus), group(b.gpus)),
        (
            "GPUs per node",
            a.per_node.to_string(),
            b.per_node.to_string(),
        ),
        ("GPU", plan.gpu.name.to_string(), now.gpu.name.to_string()),
        (
            "inside a node",
            a.intra.id.to_string(),
            b.intra.id.to_string(),
        ),
        (
            "between nodes",
            a.inter.id.to_string(),
            b.inter.id.to_string(),
        ),
        ("NICs per node", a.nics.to_string(), b.nics.to_string()),
    ];
    pairs
        .into_iter()
        .filter(|(_, x, y)| x != y)
        .map(|(what, x, y)| format!("{what} {x} → {y}"))
        .collect()
}

/// The text as read: at most [`MAX_CHARS`] characters.
fn capped(text: &str) -> String {
    match text.char_indices().nth(MAX_CHARS) {
        Some((i, _)) => text[..i].to_string(),
        None => text.to_string(),
    }
}

/// The run's cluster, with the explorer's own controls (they write the explorer's scenario,
/// which the comparison uses).
#[component]
fn ClusterConfirm() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let sc = lab.scenario;
    let opts = |v: Vec<(String, String)>| Signal::derive(move || v.clone());
    view! {
        <fieldset class="explain-cluster">
            <legend>"Your cluster — check it (these are the explorer's controls)"</legend>
            <div class="explain-fields">
                <div>
                    <label for="ctl-explain-gpus">"GPUs (ranks)"</label>
                    <input id="ctl-explain-gpus" type="number" min="1" inputmode="numeric"
                        data-testid="explain-gpus"
                        prop:value=move || sc.with(|s| s.gpus.to_string())
                        on:change=move |ev| { lab.commit("gpus", event_target_value(&ev).trim()); } />
                </div>
                <div>
                    <Choice label="GPUs per node" key="per_node" testid="explain-per-node"
                        options=opts(PER_NODE_STEPS.iter().map(|n| (n.to_string(), n.to_string())).collect())
                        value=Signal::derive(move || sc.with(|s| s.resolved().per_node.to_string())) />
                </div>
                <div>
                    <Choice label="GPU" key="gpu" testid="explain-gpu"
                        options=opts(GPUS.iter().map(|g| (g.id.to_string(), g.name.to_string())).collect())
                        value=Signal::derive(move || sc.with(|s| s.gpu.id.to_string())) />
                </div>
                <div>
                    <Choice label="Inside a node" key="intra" testid="explain-intra"
                        options=Signal::derive(move || sc.with(|s| fabric_options(s.gpu)))
                        value=Signal::derive(move || sc.with(|s| s.resolved().intra.id.to_string())) />
                </div>
                <div>
                    <Choice label="Between nodes" key="inter" testid="explain-inter"
                        options=opts(NETWORKS.iter().map(|n| (n.id.to_string(), n.name.to_string())).collect())
                        value=Signal::derive(move || sc.with(|s| s.resolved().inter.id.to_string())) />
                </div>
                <div>
                    <Choice label="NICs per node" key="nics" testid="explain-nics"
                        options=opts((1u32..=8).map(|n| (n.to_string(), n.to_string())).collect())
                        value=Signal::derive(move || sc.with(|s| s.resolved().nics.to_string())) />
                </div>
            </div>
        </fieldset>
    }
}

/// The chart, the named causes, the fit and the calibration button.
#[component]
fn Explanation(
    /// The run against the model on the explorer's cluster.
    explained: Memo<Option<Result<Explained, String>>>,
    /// The reader's scenario before the run's header changed the explorer's cluster.
    plan: RwSignal<Option<Scenario>>,
    /// Puts the plan back in the explorer with these calibration keys.
    to_plan: Callback<Vec<(&'static str, String)>>,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let dark = super::hooks::use_prefers_dark();
    let ok = move || explained.with(|e| matches!(e, Some(Ok(_))));
    use_plot(canvas, "chart-measured", move |root, st| {
        explained.with(|e| match e {
            Some(Ok(e)) => draw_measured(root, e, st),
            _ => Ok(()),
        })
    });
    let with_ok = move |f: &dyn Fn(&Explained) -> String| {
        explained.with(|e| match e {
            Some(Ok(e)) => f(e),
            _ => String::new(),
        })
    };
    // What the plan has other than the run's cluster where the calibration acts: the GPU and
    // its fabric for calib_intra, the network, its NICs and GPUs per node for calib_net. A
    // factor measured on one fabric does not carry to another (it was offered to an H100 plan
    // from an A100 run).
    let plan_differs = move || -> Option<String> {
        let tier = explained.with(|e| match e {
            Some(Ok(e)) => e.calibration.as_ref().ok().map(|c| c.tier),
            _ => None,
        })?;
        let differs = plan.with(|p| {
            let p = p.as_ref()?;
            let (a, b) = lab.scenario.with(|now| (p.resolved(), now.resolved()));
            let nics = |n: u32| format!("{n} NICs per node");
            let pairs: Vec<(String, String)> = if tier == "network" {
                vec![
                    (a.inter.name.into(), b.inter.name.into()),
                    (nics(a.nics), nics(b.nics)),
                ]
            } else {
                vec![
                    (a.gpu.name.into(), b.gpu.name.into()),
                    (a.intra.name.into(), b.intra.name.into()),
                ]
            };
            Some(
                pairs
                    .into_iter()
                    .filter(|(x, y)| x != y)
                    .map(|(x, y)| format!("{x} where the run has {y}"))
                    .collect::<Vec<_>>(),
            )
        })?;
        (!differs.is_empty()).then(|| differs.join(", "))
    };
    let keys = Memo::new(move |_| {
        explained.with(|e| match e {
            Some(Ok(e)) => e.calibration_keys(),
            _ => Vec::new(),
        })
    });
    // Applied when the explorer already carries exactly these factors.
    let applied = move || {
        let k = keys.get();
        !k.is_empty()
            && lab.scenario.with(|s| {
                k.iter()
                    .all(|(key, v)| s.get(key).unwrap_or_else(|| "1".into()) == *v)
            })
    };
    let calibrated = move || lab.scenario.with(|s| s.calib.is_set());
    view! {
        <div class="explain-result" hidden=move || !ok()>
            <figure class="chart explain-chart">
                <figcaption><h3>{move || with_ok(&|e| format!("Your {} against the model", e.op))}</h3></figcaption>
                <p class="hint">{move || with_ok(&|e| format!("Compared on {}.", e.cluster))}</p>
                <div class="canvas-wrap">
                    <canvas node_ref=canvas data-testid="chart-measured" role="img" tabindex="0"
                        aria-label=move || with_ok(&|e| e.takeaway())></canvas>
                </div>
                <ul class="legend mlegend" data-testid="chart-measured-legend">
                    {move || explained.with(|e| match e {
                        Some(Ok(e)) => e.legend(dark.get()).into_iter().map(|l| view! {
                            <li>
                                <span class=format!("lg lg-{}", l.mark.id()) style=format!("--c: {}", l.css)></span>
                                {l.label}
                            </li>
                        }).collect_view().into_any(),
                        _ => ().into_any(),
                    })}
                </ul>
                <p class="readout" data-testid="explain-fit">{move || with_ok(&|e| e.fit_text())}</p>
                <DataTable
                    table=Signal::derive(move || explained.with(|e| match e { Some(Ok(e)) => e.table(), _ => Default::default() }))
                    name="The run beside the model".to_string() testid="chart-measured-table".to_string()
                    file="measured-vs-model.csv".to_string() />
            </figure>
            <div class="explain-why">
                <h3>"Why the gap"</h3>
                <ul class="findings" data-testid="explain-findings">
                    {move || explained.with(|e| match e {
                        Some(Ok(e)) => e.findings.iter().map(|f| view! {
                            <li class="finding" class:gap=f.cause.is_gap() data-testid="explain-finding">
                                <strong>{f.headline.clone()}</strong>
                                " "
                                <span>{f.detail.clone()}</span>
                            </li>
                        }).collect_view().into_any(),
                        _ => ().into_any(),
                    })}
                </ul>
                <h3>"Calibrate the explorer to your run"</h3>
                <p data-testid="explain-calibration">{move || with_ok(&|e| e.calibration_text())}</p>
                <div class="explain-apply">
                    // The reader's own plan first, when the run's header replaced its cluster
                    // and the plan has the hardware the calibration measured.
                    {move || plan.with(|p| p.as_ref().map(|p| p.gpus)).map(|g| match plan_differs() {
                        None => view! {
                            <button type="button" class="primary" data-testid="apply-calibration-plan"
                                disabled=move || keys.with(|k| k.is_empty())
                                on:click=move |_| to_plan.run(keys.get_untracked())>
                                {format!("Apply it to my plan ({} GPUs)", group(g))}
                            </button>
                        }.into_any(),
                        Some(why) => view! {
                            <p class="hint" data-testid="apply-plan-differs">
                                {format!("Your plan ({} GPUs) has {why}: this calibration holds for the run's own hardware.", group(g))}
                            </p>
                        }.into_any(),
                    })}
                    <button type="button" data-testid="apply-calibration"
                        class:primary=move || plan.with(Option::is_none)
                        disabled=move || keys.with(|k| k.is_empty()) || applied()
                        on:click=move |_| {
                            let k = keys.get_untracked();
                            set_keys(lab, &k);
                        }>
                        {move || match (applied(), plan.with(Option::is_some)) {
                            (true, _) => "Calibration applied".to_string(),
                            (false, false) => "Apply this calibration to the explorer".to_string(),
                            (false, true) => format!("Apply it to the run's cluster ({} GPUs)",
                                lab.scenario.with(|s| group(s.gpus))),
                        }}
                    </button>
                    <button type="button" data-testid="remove-calibration" hidden=move || !calibrated()
                        on:click=move |_| set_keys(lab, &[("calib_intra", "1".into()), ("calib_net", "1".into()), ("calib_lat", "1".into())])>
                        "Remove the calibration"
                    </button>
                    <span class="hint" aria-live="polite" data-testid="calibration-status">
                        {move || {
                            if applied() {
                                "The explorer's step, sweep and animation now use your measured fabric; the link keeps it.".to_string()
                            } else if calibrated() {
                                let q = lab.scenario.with(|s| ["calib_intra", "calib_net", "calib_lat"].iter()
                                    .filter_map(|k| s.get(k).filter(|v| v != "1").map(|v| format!("{k}={v}")))
                                    .collect::<Vec<_>>().join(", "));
                                format!("The explorer carries another calibration ({q}).")
                            } else {
                                String::new()
                            }
                        }}
                    </span>
                </div>
            </div>
        </div>
    }
}

/// The "Explain my run" panel.
#[component]
pub fn ExplainRun() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let area = NodeRef::<leptos::html::Textarea>::new();
    // The text parsed: follows the textarea once typing rests.
    let text = RwSignal::new(String::new());
    let cut = RwSignal::new(false);
    let dragging = RwSignal::new(false);
    let pending = StoredValue::new(None::<TimeoutHandle>);
    let take = move |t: String| {
        let c = capped(&t);
        cut.set(c.len() < t.len());
        text.set(c);
    };
    let on_input = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        if let Some(t) = pending.get_value() {
            t.clear();
        }
        let t = set_timeout_with_handle(
            move || take(v),
            std::time::Duration::from_millis(DEBOUNCE_MS),
        );
        pending.set_value(t.ok());
    };
    // Shows a text in the box and reads it at once (an example, a dropped file).
    let show = move |t: String| {
        if let Some(p) = pending.get_value() {
            p.clear();
        }
        if let Some(el) = area.get_untracked() {
            el.set_value(&t);
        }
        take(t);
    };
    let read_file = move |file: web_sys::File| {
        let promise = file.text();
        leptos::task::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(promise).await {
                Ok(v) => show(v.as_string().unwrap_or_default()),
                Err(_) => show(String::new()),
            }
        });
    };
    let run: Memo<Option<Run>> =
        Memo::new(move |_| text.with(|t| (!t.trim().is_empty()).then(|| nccl_tests::parse(t))));
    // What the header tells goes into the explorer once per run (the reader then corrects it).
    let told = StoredValue::new(Vec::<(&'static str, String)>::new());
    // The reader's scenario before a run's header (or an example) first changed the explorer's
    // cluster: the page says what changed, and the calibration can go back onto it.
    let plan = RwSignal::new(None::<Scenario>);
    // What became of the plan, once the reader went back to it.
    let back_note = RwSignal::new(None::<String>);
    let set_run_keys = move |keys: &[(&'static str, String)]| {
        let before = lab.scenario.get_untracked();
        set_keys(lab, keys);
        if plan.with_untracked(Option::is_none) && lab.scenario.with_untracked(|s| *s != before) {
            plan.set(Some(before));
        }
        back_note.set(None);
    };
    Effect::new(move |_| {
        let keys = run.with(|r| r.as_ref().map(header_keys).unwrap_or_default());
        if !keys.is_empty() && keys != told.get_value() {
            told.set_value(keys.clone());
            set_run_keys(&keys);
        }
    });
    // Back to the plan, with a calibration or none: the comparison was on the run's cluster, so
    // the pasted run is cleared (pasting it again compares once more).
    let to_plan = Callback::new(move |calib: Vec<(&'static str, String)>| {
        let Some(mut p) = plan.get_untracked() else {
            return;
        };
        for (k, v) in &calib {
            if let Err(e) = p.set(k, v) {
                lab.refuse(k, e);
                return;
            }
        }
        let applied = calib
            .iter()
            .filter(|(_, v)| v != "1")
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>();
        lab.load(&p.to_query());
        plan.set(None);
        told.set_value(Vec::new());
        show(String::new());
        back_note.set(Some(format!(
            "Your plan is back in the explorer ({} GPUs){}. The pasted run was cleared: paste it again to compare once more.",
            group(p.gpus),
            if applied.is_empty() {
                String::new()
            } else {
                format!(", calibrated with {}", applied.join(", "))
            }
        )));
    });
    let explained =
        Memo::new(move |_| run.with(|r| r.as_ref().map(|r| lab.scenario.with(|s| explain(r, s)))));
    view! {
        <section class="explain" id="explain" tabindex="-1" aria-labelledby="explain-title">
            <h2 id="explain-title">"Explain my run"</h2>
            <p class="hint">
                "Paste the output of nccl-tests' " <code>"all_reduce_perf"</code> ", " <code>"all_gather_perf"</code>
                " or " <code>"reduce_scatter_perf"</code>
                " (the whole text, header lines included), or drop the file on the box. The page reads it here and sends it nowhere."
            </p>
            <div class="explain-input">
                <label for="paste-nccl">"nccl-tests output"</label>
                <textarea id="paste-nccl" node_ref=area data-testid="paste-nccl" rows="9" spellcheck="false"
                    autocomplete="off" wrap="off"
                    class:dragging=move || dragging.get()
                    placeholder="#  Rank  0 Group  0 Pid 4242 on node-a device  0 [0x1b] NVIDIA H100 80GB HBM3\n#       size         count      type   redop    root     time   algbw   busbw #wrong ...\n     1048576        262144     float     sum      -1    50.00   20.97   39.32      0 ..."
                    on:input=on_input
                    on:dragover=move |ev: leptos::ev::DragEvent| { ev.prevent_default(); dragging.set(true); }
                    on:dragleave=move |_| dragging.set(false)
                    on:drop=move |ev: leptos::ev::DragEvent| {
                        ev.prevent_default();
                        dragging.set(false);
                        if let Some(f) = ev.data_transfer().and_then(|d| d.files()).and_then(|l| l.get(0)) {
                            read_file(f);
                        }
                    }></textarea>
                <div class="explain-actions">
                    <span>"Try an example:"</span>
                    {SAMPLES.iter().enumerate().map(|(i, (name, sample, q))| view! {
                        <button type="button" data-testid=format!("nccl-example-{i}")
                            on:click=move |_| {
                                set_run_keys(&sample_keys(q));
                                told.set_value(header_keys(&nccl_tests::parse(sample)));
                                show(sample.to_string());
                            }>
                            {*name}
                        </button>
                    }).collect_view()}
                    <label class="file-button">
                        "Open a file…"
                        <input type="file" accept=".txt,.log,.out,text/plain" data-testid="nccl-file"
                            on:change=move |ev| {
                                let input = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
                                if let Some(f) = input.and_then(|i| i.files()).and_then(|l| l.get(0)) {
                                    read_file(f);
                                }
                            } />
                    </label>
                    // Clearing a run that replaced the plan's cluster goes back to the plan
                    // (its note outlived the run).
                    <button type="button" data-testid="nccl-clear" on:click=move |_| {
                        if plan.with_untracked(Option::is_some) {
                            to_plan.run(Vec::new());
                        } else {
                            show(String::new());
                        }
                    }>"Clear"</button>
                </div>
            </div>
            <div class="explain-status" aria-live="polite">
                {move || run.with(|r| r.as_ref().map(|r| {
                    let said = inferred(r);
                    view! {
                        <p data-testid="explain-inferred"><strong>"Read: "</strong>{said.join(" · ")}</p>
                    }
                }))}
                // A plan replaced by the run's cluster is said, with the way back.
                {move || {
                    let changes = plan.with(|p| p.as_ref().map(|p| lab.scenario.with(|now| cluster_changes(p, now))))?;
                    (!changes.is_empty()).then(|| view! {
                        <p class="plan-note" data-testid="explain-plan-note">
                            {format!("To compare with your run, the explorer now has the run's cluster: {}. Your plan is kept: apply the calibration to it below, or ",
                                changes.join(", "))}
                            <button type="button" class="link-button" data-testid="explain-back-to-plan"
                                on:click=move |_| to_plan.run(Vec::new())>
                                {move || format!("go back to it ({} GPUs) now", plan.with(|p| p.as_ref().map(|p| group(p.gpus)).unwrap_or_default()))}
                            </button>
                            "."
                        </p>
                    })
                }}
                {move || back_note.get().map(|m| view! {
                    <p data-testid="explain-plan-back">{m}</p>
                })}
                {move || cut.get().then(|| view! {
                    <p class="problem">"The text is longer than 1 MB: only its beginning was read."</p>
                })}
                {move || run.with(|r| r.as_ref().and_then(problems_message)).map(|m| view! {
                    <p class="problem" data-testid="explain-problems">{m}</p>
                })}
                {move || explained.with(|e| match e {
                    Some(Err(m)) => Some(view! { <p class="problem" data-testid="explain-error">{m.clone()}</p> }),
                    _ => None,
                })}
            </div>
            // Shown once there is a run to compare.
            <Show when=move || run.with(|r| r.is_some())>
                <ClusterConfirm />
            </Show>
            <Explanation explained=explained plan=plan to_plan=to_plan />
        </section>
    }
}
