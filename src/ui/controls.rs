//! The controls: native inputs with labels, each writing one scenario key.

use super::explainer::Term;
use super::state::{Lab, PRESETS};
use crate::model::collective::Algo;
use crate::model::goodput;
use crate::model::hardware::{FabricKind, Gpu, FABRICS, GPUS, NETWORKS};
use crate::model::keys::{self, Accepts, MAX_GPUS, PER_NODE_STEPS};
use crate::model::scenario::{default_nics, Model, Scaling, Scenario, Setup};
use crate::model::topology::Routing;
use crate::model::units::{format_bytes, GIB, KIB, MIB};
use crate::model::workload::{self, Recompute};
use crate::render::train::compact_count;
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
    // Memos: the DOM is touched only when what it shows changes. Every scenario change reruns
    // the derived signals, and setting a select's value, even to the same one, makes the browser
    // bring the document's style up to date.
    let (options, value) = (memo(options), memo(value));
    view! {
        <label for=id.clone()>{label}</label>
        <select
            id=id
            data-testid=testid
            aria-invalid=invalid(lab, key)
            aria-describedby=described_by(lab, key)
            on:change=move |ev| {
                lab.commit(key, &event_target_value(&ev));
                let el = event_target::<web_sys::HtmlSelectElement>(&ev);
                show_scenario(el.value(), |v| el.set_value(&v), value);
            }
            prop:value=move || value.get()
        >
            // Keyed by value and text: an "auto: …" entry whose text follows the scenario is
            // redrawn when its text changes.
            <For each=move || options.get() key=|o| o.clone() let((v, text))>
                <option value=v.clone() selected=move || value.get() == v>
                    {text}
                </option>
            </For>
        </select>
        <FieldProblem key=key />
    }
}

/// After a change: a control whose value the scenario refused shows the scenario's again (the
/// error says what was refused). The memos below re-set a control only when the scenario
/// changes its value, so a refused one would otherwise keep showing what the model does not run.
fn show_scenario<T: Clone + PartialEq + Send + Sync + 'static>(
    current: T,
    set: impl FnOnce(T),
    value: Memo<T>,
) {
    let shown = value.get_untracked();
    if current != shown {
        set(shown);
    }
}

/// Why the last change to `key` was refused, at its control (the banner at the top of the page
/// may be far above it), or what an emptied field went back to. Its id is the control's
/// `aria-describedby` ([`described_by`]).
#[component]
fn FieldProblem(key: &'static str) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let refused = move || {
        lab.refused.with(|r| {
            r.as_ref().filter(|(k, _)| k == key).map(|(_, why)| {
                view! { <p class="problem field-problem" id=note_id(key) role="status" data-testid=format!("problem-{key}")>{why.clone()}</p> }
            })
        })
    };
    let defaulted = move || {
        lab.defaulted.with(|d| {
            d.as_ref().filter(|(k, _)| k == key).map(|(_, what)| {
                view! { <p class="hint field-note" id=note_id(key) role="status" data-testid=format!("note-{key}")>{what.clone()}</p> }
            })
        })
    };
    view! { {refused} {defaulted} }
}

/// The id of the message [`FieldProblem`] shows for `key`.
fn note_id(key: &str) -> String {
    format!("field-note-{key}")
}

/// Whether the last change refused was to `key`.
fn refused_here(lab: Lab, key: &str) -> bool {
    lab.refused
        .with(|r| r.as_ref().is_some_and(|(k, _)| k == key))
}

/// A control's `aria-invalid`: "true" while its last change stands refused.
fn invalid(lab: Lab, key: &'static str) -> impl Fn() -> Option<&'static str> + Copy {
    move || refused_here(lab, key).then_some("true")
}

/// A control's `aria-describedby`: the message at it, while there is one.
fn described_by(lab: Lab, key: &'static str) -> impl Fn() -> Option<String> + Copy {
    move || {
        let noted = lab
            .defaulted
            .with(|d| d.as_ref().is_some_and(|(k, _)| k == key));
        (refused_here(lab, key) || noted).then(|| note_id(key))
    }
}

/// A number field's entry, committed (Enter, or leaving the field): one Back-button entry. Text
/// the browser could not read as a number (a number field's value is then empty) is refused,
/// the previous value kept, as any other value the model refuses; an emptied field puts its
/// key back to its default and says so at the field, with the value it went back to (the
/// field's own, or its `placeholder`'s "default: …" or "auto: …").
fn commit_field(
    lab: Lab,
    key: &'static str,
    el: &web_sys::HtmlInputElement,
    shown: Memo<String>,
    placeholder: &str,
) {
    let text = el.value();
    let text = text.trim();
    // web-sys's ValidityState is not compiled in: read `validity.badInput` by name.
    let bad = js_sys::Reflect::get(el, &"validity".into())
        .and_then(|v| js_sys::Reflect::get(&v, &"badInput".into()))
        .is_ok_and(|b| b.as_bool() == Some(true));
    if text.is_empty() && bad {
        lab.refuse(
            key,
            crate::model::ModelError::new(key, "what was typed is not a number"),
        );
    } else if lab.commit(key, text) && text.is_empty() {
        let now = shown.get_untracked();
        let default = if now.is_empty() {
            placeholder
                .trim_start_matches("default: ")
                .trim_start_matches("auto: ")
                .to_string()
        } else {
            now
        };
        let what = if default.is_empty() {
            "Empty: back to the default.".to_string()
        } else {
            format!("Empty: back to the default, {default}.")
        };
        lab.defaulted.set(Some((key.to_string(), what)));
    }
    show_scenario(el.value(), |v| el.set_value(&v), shown);
}

/// A signal that notifies only when its value changes.
fn memo<T: Clone + PartialEq + Send + Sync + 'static>(s: Signal<T>) -> Memo<T> {
    Memo::new(move |_| s.get())
}

/// A labelled number field bound to one scenario key; empty means "default" (and says so).
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
    let value = memo(value);
    view! {
        <label for=id.clone()>{label}</label>
        <input
            id=id
            type="number"
            inputmode="numeric"
            min=min
            data-testid=testid
            placeholder=placeholder
            aria-invalid=invalid(lab, key)
            aria-describedby=described_by(lab, key)
            prop:value=move || value.get()
            on:change=move |ev| {
                let el = event_target::<web_sys::HtmlInputElement>(&ev);
                commit_field(lab, key, &el, value, placeholder);
            }
        />
        <FieldProblem key=key />
    }
}

/// The default as a placeholder: the key table's default up to its source in brackets
/// ("0.47 (Llama 3 405B …)" → "0.47").
fn short_default(default: &str) -> String {
    let d = default.split(" (").next().unwrap_or(default);
    format!("default: {d}")
}

/// A labelled field for any numeric scenario key, its limits, unit, default and help taken
/// from the key table (`crate::model::keys`); emptying it puts the key back to its default.
/// Counts (`tokens=15T`) are text fields that accept K/M/B/T suffixes.
#[component]
fn KeyField(
    /// Visible label (the unit from the key table is appended).
    label: &'static str,
    /// Scenario key it writes.
    key: &'static str,
    /// `data-testid`.
    testid: &'static str,
    /// The value the model resolves when the key is unset, shown as the placeholder (else the
    /// key table's default in words).
    #[prop(optional)]
    auto: Option<fn(&Setup) -> String>,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let sc = lab.scenario;
    let id = format!("ctl-{testid}");
    let k = keys::key(key);
    let placeholder = move || match auto {
        Some(f) => format!("auto: {}", lab.setup.with(f)),
        None => k.map(|k| short_default(k.default)).unwrap_or_default(),
    };
    let accepts = k.map(|k| k.accepts);
    let (min, max, step) = match accepts {
        Some(Accepts::Whole { lo, hi, .. }) => (Some(lo as f64), Some(hi as f64), "1"),
        Some(Accepts::Number { lo, hi }) => (Some(lo), Some(hi), "any"),
        _ => (None, None, "any"),
    };
    let count = matches!(accepts, Some(Accepts::Count { .. }));
    let unit = k
        .map(|k| k.unit)
        .filter(|u| !u.is_empty() && !u.starts_with(':'))
        .map(|u| format!(" ({u})"))
        .unwrap_or_default();
    let value = Memo::new(move |_| {
        sc.with(|s| s.get(key))
            .map_or(String::new(), |v| match (count, v.parse::<f64>()) {
                (true, Ok(x)) => compact_count(x),
                _ => v,
            })
    });
    let placeholder = Memo::new(move |_| placeholder());
    view! {
        <label for=id.clone()>{label}{unit}</label>
        <input
            id=id
            type=if count { "text" } else { "number" }
            inputmode=if count { "text" } else { "decimal" }
            min=min
            max=max
            step=step
            data-testid=testid
            placeholder=placeholder
            title=k.map(|k| k.doc).unwrap_or_default()
            aria-invalid=invalid(lab, key)
            aria-describedby=described_by(lab, key)
            prop:value=value
            on:change=move |ev| {
                let el = event_target::<web_sys::HtmlInputElement>(&ev);
                commit_field(lab, key, &el, value, &placeholder.get_untracked());
            }
        />
        <FieldProblem key=key />
    }
}

/// (value, text) options, with a first "auto" entry (the empty value resets the key) when the
/// key's default is derived from other keys.
fn with_auto(auto: &str, items: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v = Vec::new();
    if !auto.is_empty() {
        v.push((String::new(), format!("auto: {auto}")));
    }
    v.extend(items.iter().map(|(a, b)| (a.to_string(), b.to_string())));
    v
}

/// Options whose "auto" entry names what the model resolves for the scenario on screen.
fn auto_options(
    lab: Lab,
    resolved: fn(&Setup) -> &'static str,
    items: &'static [(&'static str, &'static str)],
) -> Signal<Vec<(String, String)>> {
    Signal::derive(move || with_auto(lab.setup.with(resolved), items))
}

/// A key's value as a select shows it: empty when unset (the "auto" entry).
fn key_value(lab: Lab, key: &'static str) -> Signal<String> {
    Signal::derive(move || lab.scenario.with(|s| s.get(key)).unwrap_or_default())
}

/// A 0/1 key as a checkbox.
#[component]
fn KeyCheck(label: &'static str, key: &'static str, testid: &'static str) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let id = format!("ctl-{testid}");
    let checked = Memo::new(move |_| lab.scenario.with(|s| s.get(key).as_deref() == Some("1")));
    view! {
        <div class="check">
            <input
                id=id.clone()
                type="checkbox"
                data-testid=testid
                title=keys::key(key).map(|k| k.doc).unwrap_or_default()
                prop:checked=checked
                on:change=move |ev| {
                    lab.commit(key, if event_target_checked(&ev) { "1" } else { "0" });
                    let el = event_target::<web_sys::HtmlInputElement>(&ev);
                    show_scenario(el.checked(), |v| el.set_checked(v), checked);
                }
            />
            <label for=id>{label}</label>
        </div>
    }
}

/// One key's control in a group of them ([`FABRIC`], [`RUN`]): the group's table is the one
/// place that says which keys it shows, for its component and for the embed's "also set" note.
pub struct KeyRow {
    /// Scenario key it writes.
    pub key: &'static str,
    /// Visible label.
    label: &'static str,
    /// `data-testid`.
    testid: &'static str,
    /// The control.
    kind: RowKind,
}

/// How a [`KeyRow`] is shown.
enum RowKind {
    /// A [`KeyField`], with what the model resolves when the key is unset.
    Field(Option<fn(&Setup) -> String>),
    /// A [`Choice`] of (value, text) options, with an "auto" entry naming what the model
    /// resolves when there is one.
    Choice(
        &'static [(&'static str, &'static str)],
        Option<fn(&Setup) -> &'static str>,
    ),
}

/// A [`KeyField`] row whose placeholder is the key table's default.
const fn field(key: &'static str, label: &'static str, testid: &'static str) -> KeyRow {
    KeyRow {
        key,
        label,
        testid,
        kind: RowKind::Field(None),
    }
}

/// Where the job's nodes sit, how NICs attach, oversubscription and routing: the fabric keys
/// the compact (embedded) controls show too.
pub const FABRIC: [KeyRow; 4] = [
    KeyRow {
        key: "placement",
        label: "Where the scheduler puts the job",
        testid: "placement",
        kind: RowKind::Choice(
            &[
                ("packed", "packed"),
                ("spread", "spread: 1 per leaf group"),
                ("random", "random: leftovers"),
            ],
            None,
        ),
    },
    field("oversub", "Leaf → spine oversubscription, x:1", "oversub"),
    KeyRow {
        key: "nic_attach",
        label: "NICs attach to",
        testid: "nic-attach",
        kind: RowKind::Choice(&[("rail", "rail-optimised"), ("tor", "top-of-rack")], None),
    },
    KeyRow {
        key: "routing",
        label: "Routing",
        testid: "routing",
        kind: RowKind::Choice(
            &[("ecmp", "ECMP hashing"), ("adaptive", "adaptive")],
            Some(|s| match s.topo.routing {
                Routing::Ecmp => "ECMP",
                Routing::Adaptive => "adaptive",
            }),
        ),
    },
];

/// The run's headline keys: data budget, price, stragglers, failures.
pub const RUN: [KeyRow; 5] = [
    KeyRow {
        key: "tokens",
        label: "Data budget",
        testid: "tokens",
        kind: RowKind::Field(Some(|s| match s.workload.sample_tokens() {
            Some(t) => compact_count((goodput::budget_samples(s) * t).round()),
            None => "no tokens: set samples".to_string(),
        })),
    },
    field("price", "Price, an example", "price"),
    field("jitter", "Step-time jitter per GPU", "jitter"),
    field("slow_gpus", "Slow GPUs", "slow-gpus"),
    field("failure_rate", "Failures", "failure-rate"),
];

/// A group's rows, each in its own field.
#[component]
fn KeyRows(rows: &'static [KeyRow]) -> impl IntoView {
    let lab = expect_context::<Lab>();
    rows.iter()
        .map(|r| {
            let control = match r.kind {
                // `auto` is an optional prop that takes the function itself, not an Option.
                RowKind::Field(Some(auto)) => {
                    view! { <KeyField label=r.label key=r.key testid=r.testid auto=auto /> }.into_any()
                }
                RowKind::Field(None) => view! { <KeyField label=r.label key=r.key testid=r.testid /> }.into_any(),
                RowKind::Choice(items, resolved) => {
                    let options = match resolved {
                        Some(f) => auto_options(lab, f, items),
                        None => Signal::derive(move || with_auto("", items)),
                    };
                    view! {
                        <Choice label=r.label key=r.key testid=r.testid options=options value=key_value(lab, r.key) />
                    }
                    .into_any()
                }
            };
            view! { <div class="field">{control}</div> }
        })
        .collect_view()
}

fn opts<T>(items: &[T], f: impl Fn(&T) -> (String, String)) -> Vec<(String, String)> {
    items.iter().map(f).collect()
}

/// The node fabrics a GPU can be built on, as (value, text) options: its own NVLink or xGMI
/// and every PCIe generation.
pub(crate) fn fabric_options(gpu: &Gpu) -> Vec<(String, String)> {
    FABRICS
        .iter()
        .filter(|f| gpu.can_use(f))
        .map(|f| (f.id.to_string(), f.name.to_string()))
        .collect()
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
    let lab = expect_context::<Lab>();
    view! {
        <Choice label="Between nodes" key="inter" testid="inter"
            options=Signal::derive(|| opts(&NETWORKS, |n| (n.id.to_string(), n.name.to_string())))
            value=Signal::derive(move || lab.setup.with(|s| s.inter.id.to_string())) />
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
    let gpus = Memo::new(move |_| sc.with(|s| s.gpus.to_string()));
    // The preset the scenario still is, if any: a change away from it shows the prompt again.
    let presets: Vec<String> = PRESETS
        .iter()
        .map(|(_, q)| Scenario::parse_lenient(q).0.to_query())
        .collect();
    let preset = Memo::new(move |_| {
        sc.with(|s| {
            let q = s.to_query();
            presets
                .iter()
                .position(|p| *p == q)
                .map_or(String::new(), |i| i.to_string())
        })
    });
    view! {
        <div class="presets">
            <label for="ctl-preset">"Start from"</label>
            <select
                id="ctl-preset"
                data-testid="preset"
                prop:value=move || preset.get()
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
                    // `selected` as well: the select's value is set before its options exist.
                    .map(|(i, (name, _))| {
                        let v = i.to_string();
                        view! { <option value=v.clone() selected=move || preset.with(|p| *p == v)>{*name}</option> }
                    })
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
                    aria-invalid=invalid(lab, "gpus")
                    aria-describedby=described_by(lab, "gpus")
                    prop:value=move || gpus.get()
                    on:change=move |ev| {
                        // Refused, the field shows the count the results are for again.
                        let el = event_target::<web_sys::HtmlInputElement>(&ev);
                        commit_field(lab, "gpus", &el, gpus, "");
                    }
                />
            </div>
            <FieldProblem key="gpus" />
            <Choice
                label="GPUs per node"
                key="per_node"
                testid="per-node"
                // As many as the node's links connect (a cube-mesh or xGMI joins 8).
                options=Signal::derive(move || {
                    let most = lab.setup.with(|s| u64::from(s.intra.max_gpus));
                    PER_NODE_STEPS
                        .iter()
                        .filter(|n| **n <= most)
                        .map(|n| (n.to_string(), n.to_string()))
                        .collect()
                })
                value=Signal::derive(move || sc.with(|s| s.per_node.unwrap_or(8).to_string()))
            />
            <GpuChoice />
            <Choice
                label="Inside a node"
                key="intra"
                testid="intra"
                options=Signal::derive(move || lab.setup.with(|s| fabric_options(s.gpu)))
                value=Signal::derive(move || lab.setup.with(|s| s.intra.id.to_string()))
            />
            // Peer-to-peer matters only on PCIe: NVLink and xGMI always reach the peer.
            {move || lab.setup.with(|s| s.intra.kind == FabricKind::Pcie).then(|| view! {
                <Choice label="PCIe peer-to-peer" key="p2p" testid="p2p"
                    options=auto_options(lab, |s| if s.p2p { "on" } else { "off (GeForce driver)" },
                        &[("1", "on"), ("0", "off: relayed through host memory")])
                    value=key_value(lab, "p2p") />
            })}
            <InterChoice />
            <Choice
                label="NICs per node"
                key="nics"
                testid="nics"
                // "auto" says what the network brings: a network change that moves the count
                // is then visible (8 on RDMA, 1 over TCP).
                options=Signal::derive(move || {
                    let auto = lab.setup.with(|s| default_nics(s.inter, s.per_node));
                    std::iter::once((String::new(), format!("auto: {auto}")))
                        .chain((1u32..=8).map(|n| (n.to_string(), n.to_string())))
                        .collect()
                })
                value=key_value(lab, "nics")
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
                // The usual sizes, and the scenario's own when the link gives another.
                options=Signal::derive(move || {
                    let own = sc.with(|s| s.bytes.0);
                    let mut sizes = vec![4.0 * KIB, 64.0 * KIB, MIB, 16.0 * MIB, 256.0 * MIB, GIB, 4.0 * GIB];
                    if !sizes.contains(&own) {
                        sizes.push(own);
                        sizes.sort_by(f64::total_cmp);
                    }
                    sizes
                        .into_iter()
                        .map(|b| (format_bytes(b), crate::model::units::human_bytes(b)))
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
                    <KeyCheck label="Untied input embedding (Llama)" key="untied" testid="untied" />
                </div>
            </Show>
            <Number label="Global batch (samples)" key="batch" testid="batch"
                value=Signal::derive(move || sc.with(|s| s.batch.map(|v| v.to_string()).unwrap_or_default()))
                placeholder="auto: 1 micro-batch/replica" />
            <Number label="Micro-batch per GPU" key="micro" testid="micro"
                value=Signal::derive(move || lab.setup.with(|s| s.micro.to_string())) />
            <KeyField label="Mean padded length" key="fill" testid="fill" />
            <KeyField label="Its root-mean-square" key="fill_rms" testid="fill-rms" />
            <p class="hint terms">"Batches of shorter sequences: " <Term id="padding">"padding"</Term></p>
            <Choice
                label="Precision"
                key="precision"
                testid="precision"
                options=Signal::derive(move || {
                    sc.with(|s| s.gpu.precision_ids().iter().map(|p| (p.to_string(), p.to_ascii_uppercase())).collect())
                })
                value=Signal::derive(move || lab.setup.with(|s| s.precision.id().to_string()))
            />
        </fieldset>
        <fieldset>
            <legend>"Parallelism"</legend>
            <Choice
                label="Tensor parallel (tp)"
                key="tp"
                testid="tp"
                // Inside a node (a group never spans two), and whole attention heads per rank.
                options=Signal::derive(move || lab.setup.with(|s| {
                    PER_NODE_STEPS
                        .iter()
                        .filter_map(|t| u32::try_from(*t).ok())
                        .filter(|t| s.per_node % *t == 0 && s.workload.splits_over(*t))
                        .map(|t| (t.to_string(), t.to_string()))
                        .collect()
                }))
                value=Signal::derive(move || sc.with(|s| s.tp.to_string()))
            />
            <Choice label="Sequence parallelism (sp)" key="sp" testid="sp"
                options=auto_options(lab, |s| if s.sp { "on (tp > 1)" } else { "off (tp = 1)" },
                    &[("1", "on"), ("0", "off")])
                value=key_value(lab, "sp") />
            <KeyCheck label="Tensor-parallel collectives overlap the GEMMs" key="tp_overlap" testid="tp-overlap" />
            <KeyCheck label="Backward: column-parallel collectives beside the next GEMM (Megatron since 2021)" key="tp_async" testid="tp-async" />
            <Number label="Pipeline stages (pp)" key="pp" testid="pp"
                value=Signal::derive(move || sc.with(|s| s.pp.to_string())) />
            <KeyField label="Interleaved 1F1B, vpp" key="vpp" testid="vpp" />
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
                value=Signal::derive(move || lab.setup.with(|s| s.zero.to_string()))
            />
            <KeyCheck label="ZeRO-1/2: gather the weights during the next forward (Megatron)" key="gather_overlap" testid="gather-overlap" />
            <KeyCheck label="Reduce the gradients in FP32 (Megatron with bf16)" key="grad_fp32" testid="grad-fp32" />
            <p class="hint terms">"What the stages shard: " <Term id="zero-stages">"ZeRO-1, 2, 3"</Term></p>
            <Choice
                label="Activation recomputation"
                key="recompute"
                testid="recompute"
                options=Signal::derive(|| opts(&Recompute::ALL, |r| (r.id().to_string(), recompute_label(*r).to_string())))
                value=Signal::derive(move || sc.with(|s| s.tech.recompute.id().to_string()))
            />
            <p class="hint terms">"What is kept and what is computed again: " <Term id="recompute">"recomputation"</Term></p>
            <Choice label="Attention kernel" key="attn" testid="attn"
                options=auto_options(lab, |s| s.attn.id(), &[
                    ("flash", "FlashAttention-2"),
                    ("flash1", "FlashAttention 1 / Triton"),
                    ("cudnn", "cuDNN fused (Hopper)"),
                    ("eager", "eager: stores the score matrix"),
                ])
                value=key_value(lab, "attn") />
            <KeyCheck label="Overlap the gradient all-reduce with the backward pass" key="overlap" testid="overlap" />
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
        <fieldset>
            <legend>"Network fabric"</legend>
            <KeyRows rows=&FABRIC />
            <KeyField label="Leaf group size" key="leaf_nodes" testid="leaf-nodes"
                auto=|s| s.topo.leaf_nodes.to_string() />
            <KeyField label="Other jobs' load on the uplinks" key="bg_load" testid="bg-load" />
            <KeyField label="Pod size, a third tier" key="pod_gpus" testid="pod-gpus" />
            <KeyField label="Taper between pods, x:1" key="pod_oversub" testid="pod-oversub" />
            <p class="hint terms">"What these mean: " <Term id="placement">"placement"</Term> ", "
                <Term id="oversubscription">"oversubscription"</Term> ", " <Term id="ecmp">"ECMP"</Term></p>
        </fieldset>
        <fieldset>
            <legend>"Training run"</legend>
            <KeyRows rows=&RUN />
            <p class="hint terms">"What these mean: " <Term id="straggler">"stragglers"</Term> ", "
                <Term id="mttf">"MTTF"</Term> ", " <Term id="goodput">"goodput"</Term></p>
            <details class="advanced">
                <summary>"Advanced"</summary>
                <div class="advanced-fields">
                    <KeyField label="How much slower the slow GPUs are" key="slow_factor" testid="slow-factor" />
                    <KeyField label="Checkpoint write bandwidth" key="ckpt_gbs" testid="ckpt-gbs" />
                    <KeyField label="Restart after a failure" key="restart_min" testid="restart-min" />
                    <KeyField label="Checkpoint interval" key="ckpt_interval" testid="ckpt-interval" />
                    <KeyField label="Critical batch" key="batch_noise" testid="batch-noise"
                        auto=|s| compact_count(goodput::critical_batch(s).round()) />
                    <KeyField label="Data budget in samples (overrides tokens)" key="samples" testid="samples"
                        auto=|s| compact_count(goodput::budget_samples(s).round()) />
                </div>
            </details>
        </fieldset>
    }
}

/// The fabric controls of the embedded topology widget.
#[component]
pub fn CompactFabric() -> impl IntoView {
    view! {
        <div class="compact-controls">
            <KeyRows rows=&FABRIC />
        </div>
    }
}

/// The run controls of the embedded time-to-train widget.
#[component]
pub fn CompactRun() -> impl IntoView {
    view! {
        <div class="compact-controls">
            <KeyRows rows=&RUN />
        </div>
    }
}

/// The few controls of the embeddable calculator: GPUs, GPU type, network and model.
#[component]
pub fn CompactControls(
    /// Keys the widget's other controls show (its fabric or run fields): not listed again as
    /// "also set" above the controls that show them.
    #[prop(optional)]
    also_shown: &'static [KeyRow],
) -> impl IntoView {
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
        // What the link sets beyond these four stays set when they change: say so.
        {move || {
            let shown = ["gpus", "gpu", "inter", "model"];
            let query = sc.with(Scenario::to_query);
            let also: Vec<&str> = Scenario::pairs(&query)
                .filter(|p| {
                    p.split_once('=')
                        .is_some_and(|(k, _)| !shown.contains(&k) && !also_shown.iter().any(|r| r.key == k))
                })
                .collect();
            (!also.is_empty()).then(|| view! {
                <p class="hint" data-testid="also-set">"Also set by this widget: " {also.join(" · ")}</p>
            })
        }}
    }
}

/// A recomputation choice as the control shows it.
fn recompute_label(r: Recompute) -> &'static str {
    match r {
        Recompute::None => "none: keep everything",
        Recompute::Selective => "selective (Megatron)",
        Recompute::Ops => "ops (torchtitan)",
        Recompute::Full => "full: whole layers",
    }
}
