//! The page's state: one scenario signal mirrored in the URL hash, and the model's answers
//! derived from it.

use super::browser::{now_ms, record_perf};
use crate::model::hardware::{self, Network};
use crate::model::scenario::{Scenario, Setup};
use crate::model::step::{self, StepResult, Verdict};
use crate::model::sweep;
use crate::model::ModelError;
use crate::render::figure::NetworkCurve;
use crate::render::series::{self, pin, ScalingData};
use crate::render::train::{self, RunData, TimeShares};
use leptos::prelude::*;

/// Everything components read and write, provided as context.
#[derive(Clone, Copy)]
pub struct Lab {
    /// The scenario on screen.
    pub scenario: RwSignal<Scenario>,
    /// The scenario resolved (every default filled in), once per change, for the controls.
    pub setup: Memo<Setup>,
    /// Input problems to show (bad URL values, a rejected control change).
    pub errors: RwSignal<Vec<ModelError>>,
    /// The key of the last control change refused, and why: shown at that control, whose
    /// previous value stays.
    pub refused: RwSignal<Option<(String, String)>>,
    /// The key of a field just emptied, and what it went back to ("Empty: back to the default,
    /// 8."): shown at that field, so a cleared field does not change the results unsaid.
    pub defaulted: RwSignal<Option<(String, String)>>,
    /// Networks the reader ticked for the comparison chart; `None` until they tick one (the
    /// chart then draws [`default_compare`], which includes the scenario's own network).
    pub compare: RwSignal<Option<Vec<&'static str>>>,
    /// The networks the comparison chart draws.
    pub compare_nets: Memo<Vec<&'static str>>,
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
    /// While a lesson step waits for the reader's prediction, everything that shows its answer
    /// is masked (set by the lesson panel).
    pub answer_hidden: RwSignal<bool>,
    /// The colour theme asked for by the link (`theme=light|dark|auto`), so an embed follows
    /// its host page.
    pub theme: RwSignal<Theme>,
    /// Whether an embedded widget shows its own heading (`heading=0` hides it; fixed at load).
    pub heading: StoredValue<bool>,
    /// The next hash write adds a Back-button entry (a discrete action in the top-level page).
    pub push_next: StoredValue<bool>,
    /// A page shown instead of the explorer (`page=validation`), kept in the hash.
    pub page: RwSignal<Option<String>>,
    /// Presenter layout (`presenter=1`): the lesson and one chart, the controls hidden.
    pub presenter: RwSignal<bool>,
    /// The animation's playback speed (`speed=0.5`; 1 when absent), kept in the link.
    pub anim_speed: RwSignal<f64>,
    /// The animation pauses after each round (`pause=round`), kept in the link.
    pub anim_pause: RwSignal<bool>,
    /// The group of the validation page a link points at (`group=step`), kept in the hash.
    pub page_group: RwSignal<Option<String>>,
    /// The pinned scenario A (`pin=`), compared with the live scenario B; `None` when nothing is
    /// pinned.
    pub pinned: RwSignal<Option<Scenario>>,
    /// A's canonical query, for the link (once per pin, not once per hash write).
    pub pinned_query: Memo<Option<String>>,
    /// A's step at its chosen count, by the same model as B's.
    pub pinned_result: Memo<Option<Result<StepResult, String>>>,
    /// A's verdict (its bottleneck).
    pub pinned_verdict: Memo<Option<Verdict>>,
    /// A's scaling curve: swept when A changes, never when B does.
    pub pinned_curve: Memo<Option<ScalingData>>,
}

/// The colour theme: the system's (`auto`) or one forced by the link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Theme {
    #[default]
    Auto,
    Light,
    Dark,
}

impl Theme {
    /// Parses `light`, `dark` or `auto`.
    pub fn parse(v: &str) -> Option<Theme> {
        match v {
            "auto" => Some(Theme::Auto),
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }

    /// The value in the hash.
    pub fn id(self) -> &'static str {
        match self {
            Theme::Auto => "auto",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// `Some(dark)` when forced, `None` when the system decides.
    pub fn forced_dark(self) -> Option<bool> {
        match self {
            Theme::Auto => None,
            Theme::Light => Some(false),
            Theme::Dark => Some(true),
        }
    }
}

/// A hash split into the page's own keys and the scenario string.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Route {
    pub embed: Option<String>,
    pub lesson: Option<String>,
    /// The lesson step, from 0; `usize::MAX` when the link's step is not a number from 1.
    pub step: usize,
    pub scenario: String,
    /// `theme=`; `None` when absent.
    pub theme: Option<Theme>,
    /// `projector=1`.
    pub projector: bool,
    /// `heading=0` hides an embedded widget's own heading.
    pub no_heading: bool,
    /// `presenter=1`.
    pub presenter: bool,
    /// `speed=`: the animation's speed, a positive number; `None` when absent.
    pub speed: Option<f64>,
    /// `pause=round`: the animation stops after each round.
    pub pause_rounds: bool,
    /// Problems with the page keys (a misspelt theme), named for the reader.
    pub problems: Vec<ModelError>,
    /// `page=`: a page shown instead of the explorer.
    pub page: Option<String>,
    /// `group=`: the validation group a link points at.
    pub group: Option<String>,
    /// `pin=`: the pinned scenario A's query, decoded ([`pin::decode`]); `None` when absent or
    /// unreadable (then a problem names it).
    pub pin: Option<String>,
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
                Some(("step", v)) => {
                    r.step = v
                        .parse::<usize>()
                        .ok()
                        .filter(|n| *n >= 1)
                        .map_or(usize::MAX, |n| n - 1)
                }
                Some(("theme", v)) => match Theme::parse(v) {
                    Some(t) => r.theme = Some(t),
                    None => r.problems.push(ModelError::new(
                        "theme",
                        format!("'{v}' is not a theme; accepted: light, dark, auto"),
                    )),
                },
                Some(("projector", v)) => r.projector = v == "1",
                Some(("heading", v)) => r.no_heading = v == "0",
                Some(("presenter", v)) => r.presenter = v == "1",
                Some(("speed", v)) => match v.parse::<f64>() {
                    Ok(x) if x.is_finite() && (0.05..=20.0).contains(&x) => r.speed = Some(x),
                    _ => r.problems.push(ModelError::new(
                        "speed",
                        format!(
                            "'{v}' is not an animation speed; accepted: a number from 0.05 to 20"
                        ),
                    )),
                },
                Some(("pause", v)) => match v {
                    "round" => r.pause_rounds = true,
                    "none" => r.pause_rounds = false,
                    _ => r.problems.push(ModelError::new(
                        "pause",
                        format!("'{v}' is not a pause mode; accepted: round, none"),
                    )),
                },
                // One page so far; a misspelt one is named, not silently the explorer.
                Some(("page", v)) if v == super::validation::PAGE => r.page = Some(v.to_string()),
                Some(("page", v)) => r.problems.push(ModelError::new(
                    "page",
                    format!(
                        "'{v}' is not a page; accepted: {} (the explorer is shown)",
                        super::validation::PAGE
                    ),
                )),
                Some(("group", v)) => r.group = Some(v.to_string()),
                // A's whole query in one value, its `&` and `=` percent-encoded (pin::encode).
                Some(("pin", v)) => match pin::decode(v) {
                    Ok(q) => r.pin = Some(q),
                    Err(e) => r.problems.push(ModelError::new(
                        "pin",
                        format!("the pinned scenario A cannot be read: {e}; nothing is pinned"),
                    )),
                },
                _ => rest.push(pair),
            }
        }
        r.scenario = rest.join("&");
        r
    }

    /// The page keys as a hash prefix (`embed=speedup&`), empty when there are none.
    fn prefix(lab: &Lab) -> String {
        let mut p = String::new();
        if let Some(e) = lab.embed.get_value() {
            p.push_str(&format!("embed={e}&"));
        }
        if !lab.heading.get_value() {
            p.push_str("heading=0&");
        }
        let theme = lab.theme.get();
        if theme != Theme::Auto {
            p.push_str(&format!("theme={}&", theme.id()));
        }
        if lab.projector.get() {
            p.push_str("projector=1&");
        }
        if lab.presenter.get() {
            p.push_str("presenter=1&");
        }
        let speed = lab.anim_speed.get();
        if speed != 1.0 {
            p.push_str(&format!("speed={speed}&"));
        }
        if lab.anim_pause.get() {
            p.push_str("pause=round&");
        }
        if let Some(page) = lab.page.get() {
            p.push_str(&format!("page={page}&"));
            if let Some(g) = lab.page_group.get() {
                p.push_str(&format!("group={g}&"));
            }
        }
        if let Some(q) = lab.pinned_query.get() {
            p.push_str(&format!("pin={}&", pin::encode(&q)));
        }
        if let Some((id, step)) = lab.lesson.get() {
            // An invalid step stays invalid (0) rather than wrapping.
            let n = step.checked_add(1).unwrap_or(0);
            p.push_str(&format!("lesson={id}&step={n}&"));
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
        let (sc, mut errs) = Scenario::parse_lenient(hash);
        errs.extend(route.problems.iter().cloned());
        let scenario = RwSignal::new(sc);
        let pinned = RwSignal::new(route.pin.as_deref().map(|q| {
            let (a, a_errs) = pin::scenario(q);
            errs.extend(a_errs);
            a
        }));
        let setup = Memo::new(move |_| scenario.with(Scenario::resolved));
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
        let compare = RwSignal::new(None);
        let compare_nets = Memo::new(move |_| {
            compare
                .get()
                .unwrap_or_else(|| default_compare(setup.with(|s| s.inter.id)))
        });
        let compare_curves = Memo::new(move |_| {
            let nets: Vec<&'static Network> = compare_nets
                .get()
                .iter()
                .filter_map(|id| hardware::network(id))
                .collect();
            step_scenario.with(|s| {
                // Across nodes only: on one node the network plays no part.
                let per_node = setup.with(|x| x.per_node);
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
        let pinned_query = Memo::new(move |_| pinned.with(|a| a.as_ref().map(Scenario::to_query)));
        // A through the same model functions as B, in memos that read only A.
        let pinned_step = Memo::new(move |_| pinned.with(|a| a.as_ref().map(train::step_scenario)));
        let pinned_result = Memo::new(move |_| {
            pinned_step.with(|a| {
                a.as_ref()
                    .map(|s| step::evaluate(s).map_err(|e| e.to_string()))
            })
        });
        let pinned_verdict = Memo::new(move |_| {
            pinned_result.with(|r| match r {
                Some(Ok(r)) => pinned.with_untracked(|a| a.as_ref().map(|s| step::verdict(s, r))),
                _ => None,
            })
        });
        let pinned_curve = Memo::new(move |_| {
            pinned_step.with(|a| {
                a.as_ref().map(|s| {
                    let t0 = now_ms();
                    let d = series::scaling_data_from(s, &sweep::curve(s));
                    record_perf("model-curve-pinned", now_ms() - t0);
                    d
                })
            })
        });
        Lab {
            scenario,
            setup,
            errors: RwSignal::new(errs),
            refused: RwSignal::new(None),
            defaulted: RwSignal::new(None),
            compare,
            compare_nets,
            result,
            verdict,
            curve,
            compare_curves,
            run,
            shares,
            projector: RwSignal::new(route.projector),
            lesson: RwSignal::new(route.lesson.map(|l| (l, route.step))),
            embed: StoredValue::new(route.embed),
            answer_hidden: RwSignal::new(false),
            theme: RwSignal::new(route.theme.unwrap_or_default()),
            heading: StoredValue::new(!route.no_heading),
            push_next: StoredValue::new(false),
            page: RwSignal::new(route.page),
            page_group: RwSignal::new(route.group),
            presenter: RwSignal::new(route.presenter),
            anim_speed: RwSignal::new(route.speed.unwrap_or(1.0)),
            anim_pause: RwSignal::new(route.pause_rounds),
            pinned,
            pinned_query,
            pinned_result,
            pinned_verdict,
            pinned_curve,
        }
    }

    /// The whole hash for the current view: page keys, then the scenario.
    pub fn hash(&self) -> String {
        let q = self.scenario.with(|s| s.to_query());
        format!("{}{q}", Route::prefix(self))
    }

    /// How much larger a canvas draws its type and marks than at projector mode's size: in the
    /// presenter layout the page's type follows the screen (`html.presenting` in
    /// style/presenter.css), and the canvases grow with it, read from the page's root type over
    /// projector mode's 20.8 px (130 % of 16), so the formula lives in the CSS alone; 1
    /// elsewhere, and never below 1 (a 1280 × 720 screen keeps the projector's canvas type).
    /// The animation asks every frame: the computed style (which brings the document's style up
    /// to date) is read again only when the window's size or the root's class changes.
    pub fn presenter_zoom(&self) -> f64 {
        const PROJECTOR_PX: f64 = 20.8;
        /// Window width and height, whether the root has the presenter's class; the zoom.
        type Cached = Option<((f64, f64, bool), f64)>;
        thread_local! {
            static ZOOM: std::cell::Cell<Cached> = const { std::cell::Cell::new(None) };
        }
        if !self.presenter.get_untracked() {
            return 1.0;
        }
        let w = window();
        let size = |v: Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue>| {
            v.ok().and_then(|v| v.as_f64()).unwrap_or(0.0)
        };
        let root = w.document().and_then(|d| d.document_element());
        let presenting = root
            .as_ref()
            .is_some_and(|r| r.class_name().split_whitespace().any(|c| c == "presenting"));
        let key = (size(w.inner_width()), size(w.inner_height()), presenting);
        if let Some((k, zoom)) = ZOOM.get() {
            if k == key {
                return zoom;
            }
        }
        let root_px = root
            .and_then(|root| w.get_computed_style(&root).ok().flatten())
            .and_then(|style| style.get_property_value("font-size").ok())
            .and_then(|v| v.trim_end_matches("px").parse::<f64>().ok())
            .unwrap_or(PROJECTOR_PX);
        let zoom = (root_px / PROJECTOR_PX).max(1.0);
        ZOOM.set(Some((key, zoom)));
        zoom
    }

    /// How much larger a hand-painted canvas (the animation, the timeline, the topology) draws
    /// its type than the page's CSS pixels: projector mode's 1.4 (the charts' too), times the
    /// [`Lab::presenter_zoom`].
    pub fn canvas_type_scale(&self) -> f64 {
        let projector = if self.projector.get_untracked() {
            1.4
        } else {
            1.0
        };
        projector * self.presenter_zoom()
    }

    /// Follows a changed hash (edited by hand, by an embedding page, or Back and Forward):
    /// the lesson, the theme, projector mode and the scenario, adding no history entry.
    pub fn follow(&self, hash: &str) {
        let r = Route::parse(hash);
        let lesson = r.lesson.map(|l| (l, r.step));
        if lesson != self.lesson.get_untracked() {
            self.lesson.set(lesson);
        }
        if let Some(t) = r.theme {
            self.theme.set(t);
        }
        if r.projector != self.projector.get_untracked() {
            self.projector.set(r.projector);
        }
        if r.presenter != self.presenter.get_untracked() {
            self.presenter.set(r.presenter);
        }
        let speed = r.speed.unwrap_or(1.0);
        if speed != self.anim_speed.get_untracked() {
            self.anim_speed.set(speed);
        }
        if r.pause_rounds != self.anim_pause.get_untracked() {
            self.anim_pause.set(r.pause_rounds);
        }
        if r.page != self.page.get_untracked() {
            self.page.set(r.page);
        }
        if r.group != self.page_group.get_untracked() {
            self.page_group.set(r.group);
        }
        if r.scenario != self.scenario.with_untracked(|s| s.to_query()) {
            let (sc, errs) = Scenario::parse_lenient(&r.scenario);
            self.show_problems(errs);
            self.scenario.set(sc);
        }
        // A misspelt page key named, as on load (the pin's problems are shown below).
        let page_problems: Vec<ModelError> = r
            .problems
            .iter()
            .filter(|e| e.key == "page")
            .cloned()
            .collect();
        // Replaced, not added: the same typo edited again was listed twice.
        if !page_problems.is_empty()
            || self
                .errors
                .with_untracked(|e| e.iter().any(|x| x.key == "page"))
        {
            self.errors.update(|e| {
                e.retain(|x| x.key != "page");
                e.extend(page_problems);
            });
        }
        if r.pin != self.pinned_query.get_untracked() {
            let mut errs: Vec<ModelError> = r
                .problems
                .iter()
                .filter(|e| e.key == "pin")
                .cloned()
                .collect();
            let a = r.pin.as_deref().map(|q| {
                let (a, a_errs) = pin::scenario(q);
                errs.extend(a_errs);
                a
            });
            if !errs.is_empty() {
                self.errors.update(|e| e.extend(errs));
            }
            self.pinned.set(a);
        }
    }

    /// Pins the live scenario as A (replacing an earlier A): a discrete action that adds a
    /// Back-button entry in the top-level page.
    pub fn pin(&self) {
        self.push_history();
        self.pinned.set(Some(self.scenario.get_untracked()));
    }

    /// Ends the comparison (a discrete action too).
    pub fn unpin(&self) {
        self.push_history();
        self.pinned.set(None);
    }

    /// Marks the next hash write as a discrete action: in the top-level page it adds a
    /// Back-button entry (an embed never does).
    pub fn push_history(&self) {
        self.push_next.set_value(true);
    }

    /// Shows a link's problems (its scenario loaded with defaults for the keys named).
    pub fn show_problems(&self, errs: Vec<ModelError>) {
        clear(self.refused);
        clear(self.defaulted);
        self.errors.set(errs);
    }

    /// Refuses a change to `key`: the previous value stays, and the control says why (in words:
    /// the field names the key).
    pub fn refuse(&self, key: &str, e: ModelError) {
        clear(self.defaulted);
        self.refused.set(Some((key.to_string(), e.message.clone())));
        self.errors.set(vec![e]);
    }

    /// Sets one scenario key from a control moved continuously (a dragged slider): the link
    /// follows without a Back-button entry. A value that would make the scenario invalid is
    /// refused with a message naming the key; the previous scenario stays. An empty value puts
    /// the key back to its default.
    pub fn set(&self, key: &str, value: &str) {
        self.apply(key, value, false);
    }

    /// Sets one scenario key from a discrete change (a select, a number entered, a check box):
    /// as [`Lab::set`], and a change is a Back-button entry in the top-level page, which Back
    /// undoes. Returns whether the value was accepted.
    pub fn commit(&self, key: &str, value: &str) -> bool {
        self.apply(key, value, true)
    }

    fn apply(&self, key: &str, value: &str, discrete: bool) -> bool {
        let mut next = self.scenario.get_untracked();
        let outcome = if value.is_empty() {
            next.reset(key);
            next.validate_after(&[key])
        } else {
            next.set(key, value)
                .and_then(|_| next.validate_after(&[key]))
        };
        match outcome {
            Ok(()) => {
                self.show_problems(Vec::new());
                // Only a change is an entry: choosing the value already shown adds none (and
                // leaves no push pending for a later slider drag).
                if discrete && self.scenario.with_untracked(|s| *s != next) {
                    self.push_history();
                }
                self.scenario.set(next);
                true
            }
            Err(e) => {
                self.refuse(key, e);
                false
            }
        }
    }

    /// Replaces the whole scenario: a discrete action (a preset, "show me", a lesson step) that
    /// adds a Back-button entry in the top-level page.
    pub fn load(&self, query: &str) {
        self.push_history();
        let (sc, errs) = Scenario::parse_lenient(query);
        self.show_problems(errs);
        self.scenario.set(sc);
    }
}

/// The networks the comparison chart draws until the reader picks: slow Ethernet, RoCE and two
/// InfiniBand generations, with the scenario's own network in place of the last (so "my network
/// against InfiniBand" needs no re-ticking), in the order of the network list.
pub fn default_compare(own: &str) -> Vec<&'static str> {
    const DEFAULT: [&str; 4] = ["tcp25", "roce100", "ib-ndr", "ib-xdr"];
    let own = hardware::NETWORKS
        .iter()
        .skip(1)
        .find(|n| n.id == own)
        .map(|n| n.id);
    let mut nets: Vec<&'static str> = match own {
        Some(o) if !DEFAULT.contains(&o) => std::iter::once(o)
            .chain(DEFAULT.into_iter().take(3))
            .collect(),
        _ => DEFAULT.to_vec(),
    };
    nets.sort_by_key(|id| hardware::NETWORKS.iter().position(|n| n.id == *id));
    nets
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

/// Writes the view into the URL hash: with `pushState` for a discrete action in the top-level
/// page (`push`), else with `replaceState`, so a dragged slider and an embedding page's Back
/// button get no entries.
pub fn write_hash(query: &str, push: bool) {
    if read_hash() == query {
        return;
    }
    if let Ok(history) = window().history() {
        let url = format!("#{query}");
        let _ = if push {
            history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        } else {
            history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        };
    }
}

/// Empties a field message signal, only when it holds one: every control's FieldProblem,
/// aria-invalid and aria-describedby read these, and setting one, even to `None` again, would
/// rerun them all on each control change.
fn clear<T: Send + Sync + 'static>(s: RwSignal<Option<T>>) {
    if s.with_untracked(Option::is_some) {
        s.set(None);
    }
}
