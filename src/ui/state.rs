//! The page's state: one scenario signal mirrored in the URL hash, and the model's answers
//! derived from it.

use super::browser::{now_ms, record_perf};
use crate::model::hardware::{self, Network};
use crate::model::scenario::Scenario;
use crate::model::step::{self, StepResult, Verdict};
use crate::model::sweep;
use crate::model::ModelError;
use crate::render::figure::NetworkCurve;
use crate::render::series::{self, ScalingData};
use crate::render::train::{self, RunData, TimeShares};
use leptos::prelude::*;

/// Everything components read and write, provided as context.
#[derive(Clone, Copy)]
pub struct Lab {
    /// The scenario on screen.
    pub scenario: RwSignal<Scenario>,
    /// Input problems to show (bad URL values, a rejected control change).
    pub errors: RwSignal<Vec<ModelError>>,
    /// Networks drawn in the comparison chart.
    pub compare: RwSignal<Vec<&'static str>>,
    /// The step at the chosen count.
    pub result: Memo<Result<StepResult, String>>,
    /// The verdict at the chosen count.
    pub verdict: Memo<Option<Verdict>>,
    /// The scaling curve.
    pub curve: Memo<ScalingData>,
    /// The comparison curves.
    pub compare_curves: Memo<Vec<NetworkCurve>>,
    /// The training run at every count: time to train, cost, stragglers, failures.
    pub run: Memo<RunData>,
    /// Where the run's elapsed time goes at every count (the breakdown chart).
    pub shares: Memo<TimeShares>,
    /// Projector mode (large type, thick lines).
    pub projector: RwSignal<bool>,
    /// The lesson being followed and its step, kept in the hash beside the scenario.
    pub lesson: RwSignal<Option<(String, usize)>>,
    /// The single widget shown in embed mode (fixed at load).
    pub embed: StoredValue<Option<String>>,
}

/// A hash split into the page's own keys and the scenario string.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Route {
    pub embed: Option<String>,
    pub lesson: Option<String>,
    pub step: usize,
    pub scenario: String,
}

impl Route {
    /// Splits `embed=…&lesson=…&step=…&<scenario>`.
    pub fn parse(hash: &str) -> Route {
        let mut r = Route::default();
        let mut rest = Vec::new();
        for pair in hash
            .trim_start_matches('#')
            .split('&')
            .filter(|p| !p.is_empty())
        {
            match pair.split_once('=') {
                Some(("embed", v)) => r.embed = Some(v.to_string()),
                Some(("lesson", v)) => r.lesson = Some(v.to_string()),
                Some(("step", v)) => r.step = v.parse::<usize>().unwrap_or(1).max(1) - 1,
                _ => rest.push(pair),
            }
        }
        r.scenario = rest.join("&");
        r
    }

    /// The page keys as a hash prefix (`embed=speedup&`), empty when there are none.
    fn prefix(embed: &Option<String>, lesson: &Option<(String, usize)>) -> String {
        let mut p = String::new();
        if let Some(e) = embed {
            p.push_str(&format!("embed={e}&"));
        }
        if let Some((id, step)) = lesson {
            p.push_str(&format!("lesson={id}&step={}&", step + 1));
        }
        p
    }
}

impl Lab {
    /// Creates the state from a scenario string (the URL hash), keeping defaults for bad keys.
    pub fn new(hash: &str) -> Lab {
        let route = Route::parse(hash);
        // An empty hash opens on the classic surprise: a cloud cluster that waits on its network.
        let hash = if route.scenario.trim().is_empty() {
            PRESETS[3].1
        } else {
            route.scenario.as_str()
        };
        let (sc, errs) = Scenario::parse_lenient(hash);
        let scenario = RwSignal::new(sc);
        // What the step reads: the scenario without the run's keys (price, failures, …), so
        // changing one of those re-sweeps nothing and redraws only the charts it moves.
        let step_scenario = Memo::new(move |_| scenario.with(train::step_scenario));
        let result = Memo::new(move |_| {
            step_scenario.with(|s| step::evaluate(s).map_err(|e| e.to_string()))
        });
        let verdict = Memo::new(move |_| {
            result.with(|r| {
                r.as_ref()
                    .ok()
                    .map(|r| scenario.with_untracked(|s| step::verdict(s, r)))
            })
        });
        let swept = Memo::new(move |_| {
            let t0 = now_ms();
            let pts = step_scenario.with(sweep::curve);
            record_perf("model-curve", now_ms() - t0);
            pts
        });
        let curve = Memo::new(move |_| {
            swept.with(|pts| step_scenario.with(|s| series::scaling_data_from(s, pts)))
        });
        let run = Memo::new(move |_| swept.with(|pts| scenario.with(|s| train::run_data(s, pts))));
        let shares = Memo::new(move |_| run.with(TimeShares::new));
        let compare = RwSignal::new(vec!["tcp25", "roce100", "ib-ndr", "ib-xdr"]);
        let compare_curves = Memo::new(move |_| {
            let nets: Vec<&'static Network> = compare
                .get()
                .iter()
                .filter_map(|id| hardware::network(id))
                .collect();
            step_scenario.with(|s| {
                // Across nodes only: on one node the network plays no part.
                let per_node = s.resolved().per_node;
                let s = if s.gpus <= per_node {
                    Scenario {
                        gpus: per_node * 8,
                        ..s.clone()
                    }
                } else {
                    s.clone()
                };
                series::compare_data(&s, &nets)
            })
        });
        Lab {
            scenario,
            errors: RwSignal::new(errs),
            compare,
            result,
            verdict,
            curve,
            compare_curves,
            run,
            shares,
            projector: RwSignal::new(false),
            lesson: RwSignal::new(route.lesson.map(|l| (l, route.step))),
            embed: StoredValue::new(route.embed),
        }
    }

    /// The whole hash for the current view: page keys, then the scenario.
    pub fn hash(&self) -> String {
        let q = self.scenario.with(|s| s.to_query());
        let lesson = self.lesson.get();
        format!("{}{q}", Route::prefix(&self.embed.get_value(), &lesson))
    }

    /// Follows a changed hash (edited by hand or by an embedding page).
    pub fn follow(&self, hash: &str) {
        let r = Route::parse(hash);
        if r.lesson.is_some() {
            self.lesson.set(r.lesson.map(|l| (l, r.step)));
        }
        if r.scenario != self.scenario.with_untracked(|s| s.to_query()) {
            self.load(&r.scenario);
        }
    }

    /// Sets one scenario key from a control. A value that would make the scenario invalid is
    /// refused with a message naming the key; the previous scenario stays.
    pub fn set(&self, key: &str, value: &str) {
        let mut next = self.scenario.get_untracked();
        let outcome = if value.is_empty() {
            next.reset(key);
            next.validate()
        } else {
            next.set(key, value).and_then(|_| next.validate())
        };
        match outcome {
            Ok(()) => {
                self.errors.set(Vec::new());
                self.scenario.set(next);
            }
            Err(e) => self.errors.set(vec![e]),
        }
    }

    /// Replaces the whole scenario (a preset or a new URL hash).
    pub fn load(&self, query: &str) {
        let (sc, errs) = Scenario::parse_lenient(query);
        self.errors.set(errs);
        self.scenario.set(sc);
    }
}

/// Named starting points a newcomer recognises.
pub const PRESETS: [(&str, &str); 10] = [
    (
        "8 GPUs in one box over NVLink",
        "gpus=8&per_node=8&gpu=h100&intra=nvlink4&model=llama3-8b&zero=3",
    ),
    (
        "PCIe workstation with 4 gaming GPUs",
        "gpus=4&per_node=4&gpu=rtx4090&intra=pcie4&model=gpt2-xl&micro=1&zero=2",
    ),
    (
        "DGX H100 cluster over InfiniBand",
        "gpus=512&per_node=8&gpu=h100&intra=nvlink4&inter=ib-ndr&nics=8&model=llama3-70b&tp=8&pp=4&zero=1",
    ),
    (
        "Cloud cluster over 100 GbE",
        "gpus=64&per_node=8&gpu=a100&intra=nvlink3&inter=tcp100&nics=1&model=llama3-8b&zero=3",
    ),
    (
        "Starving GPUs: ResNet-50 on H100",
        "gpus=64&per_node=8&gpu=h100&inter=ib-ndr&model=resnet50&precision=bf16",
    ),
    (
        "Megatron-LM: 1T GPT on 3072 A100",
        "model=custom&layers=128&hidden=25600&heads=160&seq=2048&vocab=51200&batch=3072&micro=1&tp=8&pp=64&gpus=3072&per_node=8&gpu=a100&intra=nvlink3&inter=ib-hdr&nics=8&recompute=full",
    ),
    (
        "Small messages: 4 KiB all-reduce, 1,024 GPUs",
        "gpus=1024&gpu=h100&inter=ib-ndr&bytes=4KiB&model=bert-large",
    ),
    // The fabric beyond one switch (issue 12): the same GPUs on three networks.
    (
        "DGX SuperPOD (rail, 1:1)",
        "gpus=1024&per_node=8&gpu=h100&intra=nvlink4&inter=ib-ndr&nics=8&model=llama3-70b&tp=8&pp=4&zero=1&nic_attach=rail&leaf_nodes=32&oversub=1&placement=packed&routing=adaptive",
    ),
    (
        "Top-of-rack, 3:1 Ethernet",
        "gpus=256&per_node=8&gpu=h100&intra=nvlink4&inter=roce400&nics=8&model=llama3-8b&nic_attach=tor&leaf_nodes=4&oversub=3&routing=ecmp",
    ),
    (
        "Busy shared cluster",
        "gpus=512&per_node=8&gpu=h100&intra=nvlink4&inter=roce400&nics=8&model=llama3-8b&oversub=2&placement=random&routing=ecmp&bg_load=0.4",
    ),
];

/// Reads the URL hash without its `#`.
pub fn read_hash() -> String {
    window()
        .location()
        .hash()
        .unwrap_or_default()
        .trim_start_matches('#')
        .to_string()
}

/// Writes the scenario into the URL hash with `replaceState`, so an embedding page's Back button
/// gets no entries.
pub fn write_hash(query: &str) {
    if read_hash() == query {
        return;
    }
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("#{query}")),
        );
    }
}
