//! Guided lessons: data (`content/lessons.json`: a scenario string and text per step), so a
//! teacher adds one without touching Rust. The revealed answers are computed by the model, never
//! typed in.

use crate::model::report::{check_metric, evaluate_metric};
use serde::Deserialize;

/// All lessons, as shipped.
pub const LESSONS_JSON: &str = include_str!("../content/lessons.json");

/// The lesson file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct LessonFile {
    /// The lessons, in the order the page lists them.
    pub lessons: Vec<Lesson>,
}

/// A lesson: a sequence of steps.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct Lesson {
    /// Short id for links (`#lesson=<id>`).
    pub id: String,
    /// Heading.
    pub title: String,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// One step: set the scene, ask for a prediction, reveal the model's answer, explain the gap.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct Step {
    /// The scenario the explorer shows for this step.
    pub scenario: String,
    /// Sets the scene.
    pub text: String,
    /// The question the reader answers before the reveal.
    pub question: String,
    /// Predictions to choose from (numbers in `unit`).
    pub choices: Vec<f64>,
    /// Unit of the choices and the answer: `×`, `%`, `GiB`, …
    pub unit: String,
    /// How the model computes the answer.
    pub reveal: Reveal,
    /// What the answer means.
    pub explain: String,
    /// The chart the step is about (one of [`CHARTS`]), the one a presenter shows beside the
    /// lesson; the speedup chart when absent.
    #[serde(default)]
    pub chart: Option<String>,
    /// A scenario pinned as A while the step shows (the results and charts compare it with
    /// the step's own, B): the cluster a question compares against.
    #[serde(default)]
    pub pin: Option<String>,
}

/// The charts a step can name: `speedup`, `efficiency`, `breakdown`, `time-to-train`, `compare`
/// (other networks), `topology` (the job on the cluster's network), `results` (the cards: the
/// collective, memory, the verdict), `collective` (the collective's card, with that all-reduce
/// playing below it in the presenter) and `timeline` (the step's timeline).
pub const CHARTS: [&str; 9] = [
    "speedup",
    "efficiency",
    "breakdown",
    "time-to-train",
    "compare",
    "topology",
    "results",
    "collective",
    "timeline",
];

/// How a step's answer comes from the model.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Reveal {
    /// A metric of one report (`command` is `step` or `collective`) of `query` (default: the
    /// step's own scenario), times `scale`.
    Value {
        /// `step` or `collective`.
        command: String,
        /// The report field.
        metric: String,
        /// The scenario, when not the step's own.
        #[serde(default)]
        query: Option<String>,
        /// Multiplier (100 for a percentage).
        #[serde(default = "one")]
        scale: f64,
    },
    /// A step metric of `to` divided by the same metric of `from`.
    Ratio {
        /// The step report field.
        metric: String,
        /// The scenario of the denominator.
        from: String,
        /// The scenario of the numerator.
        to: String,
    },
    /// One metric divided by another of the same query (default: the step's scenario), times
    /// `scale`.
    Share {
        /// `step` or `collective`.
        command: String,
        /// The numerator's field.
        metric: String,
        /// The denominator's field.
        of: String,
        /// The scenario, when not the step's own.
        #[serde(default)]
        query: Option<String>,
        /// Multiplier (100 for a percentage).
        #[serde(default = "one")]
        scale: f64,
    },
}

fn one() -> f64 {
    1.0
}

/// Parses the shipped lessons.
pub fn lessons() -> Result<Vec<Lesson>, String> {
    parse(LESSONS_JSON)
}

/// The shipped lessons, parsed once for the panels that look one up (empty if the file did not
/// parse, which a test rules out).
pub fn shipped() -> &'static [Lesson] {
    static SHIPPED: std::sync::OnceLock<Vec<Lesson>> = std::sync::OnceLock::new();
    SHIPPED.get_or_init(|| lessons().unwrap_or_default())
}

/// Parses a lesson file; every lesson needs a step, every step two choices, and every reveal a
/// metric its report has.
pub fn parse(json: &str) -> Result<Vec<Lesson>, String> {
    let lessons = serde_json::from_str::<LessonFile>(json)
        .map(|f| f.lessons)
        .map_err(|e| format!("lessons: {e}"))?;
    for l in &lessons {
        if l.steps.is_empty() {
            return Err(format!("lesson '{}': it has no steps", l.id));
        }
        if let Some(i) = l.steps.iter().position(|s| s.choices.len() < 2) {
            return Err(format!(
                "lesson '{}' step {}: give at least two choices",
                l.id,
                i + 1
            ));
        }
        for (i, s) in l.steps.iter().enumerate() {
            s.reveal
                .check()
                .map_err(|e| format!("lesson '{}' step {}: {e}", l.id, i + 1))?;
            if let Some(e) = s
                .pin
                .as_deref()
                .and_then(|q| crate::model::scenario::Scenario::parse(q).err())
            {
                return Err(format!("lesson '{}' step {}: pin: {e}", l.id, i + 1));
            }
            if let Some(c) = s.chart.as_deref().filter(|c| !CHARTS.contains(c)) {
                return Err(format!(
                    "lesson '{}' step {}: '{c}' is not a chart; accepted: {}",
                    l.id,
                    i + 1,
                    CHARTS.join(", ")
                ));
            }
        }
    }
    Ok(lessons)
}

impl Reveal {
    /// Checks the metric names against the reports, without running the model.
    fn check(&self) -> Result<(), String> {
        match self {
            Reveal::Value {
                command, metric, ..
            } => check_metric(command, metric),
            Reveal::Ratio { metric, .. } => check_metric("step", metric),
            Reveal::Share {
                command,
                metric,
                of,
                ..
            } => check_metric(command, metric).and(check_metric(command, of)),
        }
    }

    /// The model's answer, in the step's unit; `scenario` is the step's own.
    pub fn value(&self, scenario: &str) -> Result<f64, String> {
        match self {
            Reveal::Value {
                command,
                metric: m,
                query: q,
                scale,
            } => Ok(evaluate_metric(command, q.as_deref().unwrap_or(scenario), m)? * scale),
            Reveal::Ratio {
                metric: m,
                from,
                to,
            } => {
                let a = evaluate_metric("step", from, m)?;
                let b = evaluate_metric("step", to, m)?;
                if a == 0.0 {
                    return Err(format!("{m} is zero for {from}"));
                }
                Ok(b / a)
            }
            Reveal::Share {
                command,
                metric: m,
                of,
                query: q,
                scale,
            } => {
                let q = q.as_deref().unwrap_or(scenario);
                let den = evaluate_metric(command, q, of)?;
                if den == 0.0 {
                    return Err(format!("{of} is zero for {q}"));
                }
                Ok(evaluate_metric(command, q, m)? / den * scale)
            }
        }
    }
}

impl Step {
    /// The model's answer to this step's question.
    pub fn answer(&self) -> Result<f64, String> {
        self.reveal.value(&self.scenario)
    }

    /// The scenario the answer is about, which the explorer shows once the step is revealed:
    /// a ratio's `to` side (one-box sets up 1 GPU and asks about 8), a value's or share's own
    /// query, else the step's scenario.
    pub fn answer_scenario(&self) -> &str {
        match &self.reveal {
            Reveal::Ratio { to, .. } => to,
            Reveal::Value { query: Some(q), .. } | Reveal::Share { query: Some(q), .. } => q,
            _ => &self.scenario,
        }
    }

    /// The chart this step is about: its own, else the speedup chart.
    pub fn chart(&self) -> &str {
        self.chart.as_deref().unwrap_or(CHARTS[0])
    }

    /// The choice closest to the model's answer (on a log scale for ratios and sizes).
    pub fn closest_choice(&self, answer: f64) -> Option<usize> {
        let dist = |c: f64| {
            if self.unit == "%" {
                (c - answer).abs()
            } else {
                (c.max(1e-12).ln() - answer.max(1e-12).ln()).abs()
            }
        };
        self.choices
            .iter()
            .enumerate()
            .min_by(|a, b| dist(*a.1).total_cmp(&dist(*b.1)))
            .map(|(i, _)| i)
    }
}

/// A number with its unit for display: `7.9×`, `41 %`, `302 GiB`.
pub fn format_value(v: f64, unit: &str) -> String {
    let num = if v >= 100.0 || unit == "%" || v.fract() == 0.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    match unit {
        "×" => format!("{num}×"),
        "" => num,
        u => format!("{num} {u}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::scenario::Scenario;

    #[test]
    fn there_are_at_least_six_lessons_with_unique_ids() {
        let ls = lessons().unwrap();
        assert!(ls.len() >= 6);
        let mut ids: Vec<&str> = ls.iter().map(|l| l.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), ls.len());
    }

    #[test]
    fn every_scenario_parses_and_every_answer_comes_from_the_model() {
        for l in lessons().unwrap() {
            assert!(!l.steps.is_empty(), "{}", l.id);
            for (i, s) in l.steps.iter().enumerate() {
                Scenario::parse(&s.scenario).unwrap_or_else(|e| panic!("{} step {i}: {e}", l.id));
                let v = s
                    .answer()
                    .unwrap_or_else(|e| panic!("{} step {i}: {e}", l.id));
                assert!(v.is_finite() && v > 0.0, "{} step {i}: {v}", l.id);
                assert!(s.choices.len() >= 2, "{} step {i}", l.id);
                assert!(s.closest_choice(v).is_some());
            }
        }
    }

    /// A lesson's setup fits in memory unless the lesson is about memory: one that does not
    /// times nothing, and its reveal and whole-run figures are dashes (three lessons had drifted
    /// over the limit as the memory model grew).
    #[test]
    fn every_setup_fits_unless_it_is_about_memory() {
        for l in lessons().unwrap() {
            for (i, s) in l.steps.iter().enumerate() {
                let about_memory = matches!(&s.reveal, Reveal::Value { metric, .. } if metric == "memory_gib_per_gpu");
                if about_memory {
                    continue;
                }
                // The step's own scenario and every one its reveal computes on.
                let mut queries = vec![s.scenario.as_str()];
                match &s.reveal {
                    Reveal::Value { query, .. } | Reveal::Share { query, .. } => {
                        queries.extend(query.as_deref())
                    }
                    Reveal::Ratio { from, to, .. } => queries.extend([from.as_str(), to.as_str()]),
                }
                for q in queries {
                    let setup = Scenario::parse(q).unwrap().setup().unwrap();
                    let fits = crate::model::step::memory(&setup).fits();
                    assert!(fits, "{} step {}: {q}", l.id, i + 1);
                }
            }
        }
    }

    #[test]
    fn the_reveals_tell_the_story_the_text_tells() {
        let ls = lessons().unwrap();
        let step = |id: &str, i: usize| {
            let l = ls.iter().find(|l| l.id == id).unwrap();
            let s = &l.steps[i];
            let v = s.answer().unwrap();
            (v, s.choices[s.closest_choice(v).unwrap()])
        };
        // Every claim a lesson's explanation makes, checked against the model's answer.
        let one_box = step("one-box", 0).0;
        assert!(
            (7.0..=8.0).contains(&one_box),
            "almost exactly 8×, a little under: {one_box}"
        );
        let slow = step("leaving-the-box", 0).0;
        assert!(
            slow < 1.0 && slow > 0.6,
            "64 GPUs over one 100 GbE port are slower than 8: {slow}"
        );
        let ib = step("leaving-the-box", 1).0;
        assert!(
            (7.0..14.0).contains(&ib),
            "about ten times faster on InfiniBand: {ib}"
        );
        assert_eq!(step("latency-bandwidth", 0).1, 90.0, "nearly all latency");
        assert_eq!(step("latency-bandwidth", 1).1, 10.0, "only a small share");
        let amdahl = step("amdahl", 0).0;
        assert!(
            (300.0..512.0).contains(&amdahl),
            "less than half of the ideal 1,024×: {amdahl}"
        );
        let starving = step("starving", 0).0;
        assert!((40.0..60.0).contains(&starving), "about half: {starving}");
        let placement = step("placement", 0).0;
        assert!(
            (0.7..0.95).contains(&placement),
            "slower when scattered: {placement}"
        );
        let routing = step("routing", 0).0;
        assert!(
            (1.55..1.85).contains(&routing),
            "about two-thirds faster: {routing}"
        );
        let stragglers = step("stragglers", 0).0;
        assert!(
            (12.0..25.0).contains(&stragglers),
            "far more than 5 %: {stragglers}"
        );
        let mttf = step("failures", 0).0;
        assert!((2.5..4.0).contains(&mttf), "about three hours: {mttf}");
        let steps = step("batch-limit", 0).0;
        assert!(
            (0.62..0.72).contains(&steps),
            "only about a third fewer: {steps}"
        );
        assert!(step("memory-wall", 0).0 > 80.0);
        // Step 2 moves from 8 GPUs to 64: its text says so, or a class compares the two
        // answers as if on the same 8 GPUs.
        let wall = &ls.iter().find(|l| l.id == "memory-wall").unwrap().steps;
        assert_eq!(Scenario::parse(&wall[0].scenario).unwrap().gpus, 8);
        assert_eq!(Scenario::parse(&wall[1].scenario).unwrap().gpus, 64);
        assert!(wall[1].text.contains("64 GPUs") && wall[1].question.contains("64 GPUs"));
        assert!(
            step("memory-wall", 1).0 < 72.0,
            "the split version fits an H100"
        );
    }

    /// A lesson is shown in the full page, the presenter layout (one chart beside it) and an
    /// embed (no explorer at all): a text that points at a view names it as the explorer's, so
    /// it holds where that view is not on screen.
    #[test]
    fn lesson_texts_name_the_explorer_for_the_views_they_point_at() {
        let views = [
            "animation",
            "timeline",
            "topology view",
            "speedup chart",
            "collective card",
            "results name",
        ];
        for l in lessons().unwrap() {
            for (i, s) in l.steps.iter().enumerate() {
                for text in [&s.text, &s.question, &s.explain] {
                    // Any case: "Timeline …" at a sentence's start counts too.
                    let text = &text.to_lowercase();
                    for v in views {
                        for (at, _) in text.match_indices(v) {
                            let before = &text[..at];
                            assert!(
                                before.ends_with("explorer's ")
                                    || before.ends_with("explorer's step "),
                                "{} step {}: '{v}' without saying where: {text}",
                                l.id,
                                i + 1
                            );
                        }
                    }
                }
                assert!(!s.explain.contains("Watch the"), "{} step {}", l.id, i + 1);
            }
        }
    }

    #[test]
    fn a_teacher_can_add_a_lesson_as_data() {
        let json = r#"{"lessons":[{"id":"mine","title":"Mine","steps":[{"scenario":"gpus=16",
            "text":"t","question":"q","choices":[1,2],"unit":"×",
            "reveal":{"kind":"ratio","metric":"throughput","from":"gpus=8","to":"gpus=16&inter=ib-ndr"},
            "explain":"e"}]}]}"#;
        let ls = parse(json).unwrap();
        assert!(ls[0].steps[0].answer().unwrap() > 1.5);
        let typo = json.replace("throughput", "thruput");
        assert!(parse(&typo).unwrap_err().contains("no metric 'thruput'"));
        assert!(parse("{").is_err());
        let chart = json.replace(r#""explain":"e""#, r#""explain":"e","chart":"pie""#);
        assert_eq!(
            parse(&chart).unwrap_err(),
            "lesson 'mine' step 1: 'pie' is not a chart; accepted: speedup, efficiency, breakdown, time-to-train, compare, topology, results, collective, timeline"
        );
        assert_eq!(
            ls[0].steps[0].chart(),
            "speedup",
            "the speedup chart by default"
        );
        let pin = json.replace(
            r#""explain":"e""#,
            r#""explain":"e","pin":"gpus=8&nics=lots""#,
        );
        assert!(parse(&pin)
            .unwrap_err()
            .starts_with("lesson 'mine' step 1: pin: nics"));
        let empty = r#"{"lessons":[{"id":"x","title":"X","steps":[]}]}"#;
        assert_eq!(parse(empty).unwrap_err(), "lesson 'x': it has no steps");
    }

    #[test]
    fn steps_about_the_network_or_the_run_name_their_chart() {
        let ls = lessons().unwrap();
        let chart = |id: &str, i: usize| {
            ls.iter().find(|l| l.id == id).unwrap().steps[i]
                .chart()
                .to_string()
        };
        assert_eq!(chart("leaving-the-box", 1), "results");
        assert_eq!(chart("placement", 0), "topology");
        assert_eq!(chart("stragglers", 0), "breakdown");
        assert_eq!(chart("failures", 0), "time-to-train");
        assert_eq!(chart("memory-wall", 0), "results");
        assert_eq!(chart("latency-bandwidth", 0), "collective");
        assert_eq!(chart("bubble", 0), "timeline");
    }

    /// After the reveal the explorer shows the scenario the answer is about: a presenter's
    /// chart marks the 8 GPUs of one-box's 7.9×, not the 1 GPU it starts from.
    #[test]
    fn a_revealed_step_shows_the_scenario_its_answer_is_about() {
        let ls = lessons().unwrap();
        let step = |id: &str, i: usize| ls.iter().find(|l| l.id == id).unwrap().steps[i].clone();
        let gpus = |q: &str| Scenario::parse(q).unwrap().gpus;
        let one_box = step("one-box", 0);
        assert_eq!(gpus(&one_box.scenario), 1, "the scene: one GPU");
        assert_eq!(gpus(one_box.answer_scenario()), 8, "the answer: eight");
        let routing = step("routing", 0);
        assert!(routing.answer_scenario().contains("routing=adaptive"));
        // A step whose scenario already is the answer's keeps it.
        let ib = step("leaving-the-box", 1);
        assert_eq!(ib.answer_scenario(), ib.scenario);
        for l in &ls {
            for s in &l.steps {
                Scenario::parse(s.answer_scenario()).unwrap();
            }
        }
    }

    #[test]
    fn values_read_well() {
        assert_eq!(format_value(7.987, "×"), "7.99×");
        assert_eq!(format_value(41.2, "%"), "41 %");
        assert_eq!(format_value(1222.0, "GiB"), "1222 GiB");
        assert_eq!(format_value(8.0, "×"), "8×");
        assert_eq!(format_value(1.2, "×"), "1.20×");
    }
}
