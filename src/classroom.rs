//! What the reader-facing panels decide, as plain Rust tested natively: a reader's progress
//! through a lesson (predictions, the model's answers, the score and the closing summary), the
//! message for a link to a lesson or step that does not exist, "did you mean" for a misspelt
//! name in a link, the words on the button that applies a fix, a view's inputs as a
//! teacher exports or prints them, and a lesson as a printed handout with its answer key.

use crate::lessons::{format_value, Lesson};
use crate::model::keys::KEYS;
use crate::model::scenario::{Scenario, Setup};
use crate::model::workload::Arch;
use serde::Serialize;

/// One input of a view: a scenario key, the value the model used, and whether the link gave it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Input {
    /// The scenario key.
    pub key: &'static str,
    /// The value the model used, in scenario syntax; for a derived value the model does not
    /// resolve to one setting (a Chinchilla budget, the optimal checkpoint interval), how it
    /// is derived.
    pub value: String,
    /// Whether the link sets it (otherwise it is a default or derived from other keys).
    pub given: bool,
}

/// Every input of a scenario as the model resolved it, in the key table's order.
pub fn inputs(sc: &Scenario) -> Vec<Input> {
    let canonical = sc.to_query();
    let given: Vec<&str> = canonical
        .split('&')
        .filter_map(|p| p.split_once('=').map(|(k, _)| k))
        .collect();
    let setup = sc.resolved();
    KEYS.iter()
        .map(|k| Input {
            key: k.name,
            value: sc
                .get(k.name)
                .or_else(|| resolved(&setup, k.name))
                .unwrap_or_else(|| format!("default: {}", k.default)),
            given: given.contains(&k.name),
        })
        .collect()
}

/// The resolved value of a key the scenario leaves unset, where the setup holds one.
fn resolved(s: &Setup, key: &str) -> Option<String> {
    let on = |b: bool| if b { "1" } else { "0" }.to_string();
    Some(match key {
        "per_node" => s.per_node.to_string(),
        "intra" => s.intra.id.to_string(),
        "inter" => s.inter.id.to_string(),
        "nics" => s.nics.to_string(),
        "precision" => s.precision.id().to_string(),
        "zero" => s.zero.to_string(),
        "micro" => s.micro.to_string(),
        "batch" => s.batch.to_string(),
        "attn" => s.attn.id().to_string(),
        "sp" => on(s.sp),
        "layers" | "hidden" | "heads" | "seq" | "vocab" => match s.workload.arch {
            Arch::Transformer {
                layers,
                hidden,
                heads,
                seq,
                vocab,
            } => match key {
                "layers" => layers,
                "hidden" => hidden,
                "heads" => heads,
                "seq" => seq,
                _ => vocab,
            }
            .to_string(),
            Arch::Generic { .. } => "not a transformer".to_string(),
        },
        "data_rate" => format!("{:.0}", s.data_rate),
        "leaf_nodes" => s.topo.leaf_nodes.to_string(),
        "routing" => s.topo.routing.id().to_string(),
        _ => return None,
    })
}

/// What happened at one revealed step.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The reader's prediction (index into the step's choices).
    pub choice: Option<usize>,
    /// The model's answer, in the step's unit, or why it could not be computed.
    pub answer: Result<f64, String>,
    /// The choice closest to the answer.
    pub closest: Option<usize>,
}

impl Outcome {
    /// Whether the reader's prediction was the closest choice.
    pub fn hit(&self) -> bool {
        self.choice.is_some() && self.choice == self.closest
    }
}

/// One lesson run: an outcome per step, `None` until the step is revealed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    /// The lesson's id.
    pub lesson: String,
    /// One entry per step.
    pub steps: Vec<Option<Outcome>>,
}

impl Progress {
    /// A fresh run of `lesson`.
    pub fn new(lesson: &Lesson) -> Progress {
        Progress {
            lesson: lesson.id.clone(),
            steps: vec![None; lesson.steps.len()],
        }
    }

    /// Reveals step `k`: the model answers and the prediction is scored. A step revealed
    /// before keeps its first outcome (no second try at the score).
    pub fn reveal(&mut self, lesson: &Lesson, k: usize, choice: Option<usize>) -> Option<&Outcome> {
        let step = lesson.steps.get(k)?;
        let slot = self.steps.get_mut(k)?;
        if slot.is_none() {
            let answer = step.answer();
            let closest = answer.as_ref().ok().and_then(|v| step.closest_choice(*v));
            *slot = Some(Outcome {
                choice,
                answer,
                closest,
            });
        }
        slot.as_ref()
    }

    /// The outcome of step `k`, once revealed.
    pub fn outcome(&self, k: usize) -> Option<&Outcome> {
        self.steps.get(k).and_then(Option::as_ref)
    }

    /// (closest predictions, revealed steps, steps).
    pub fn score(&self) -> (usize, usize, usize) {
        let revealed = self.steps.iter().flatten().count();
        let hits = self.steps.iter().flatten().filter(|o| o.hit()).count();
        (hits, revealed, self.steps.len())
    }

    /// The score in words: "2 of 3 closest", with the steps left unrevealed.
    pub fn score_text(&self) -> String {
        let (hits, revealed, n) = self.score();
        let mut t = format!("{hits} of {n} closest");
        if revealed < n {
            let left = n - revealed;
            t.push_str(&format!(
                " ({left} step{} not revealed)",
                if left == 1 { "" } else { "s" }
            ));
        }
        t
    }

    /// One line per step for the summary: what the step asked, what the model said, what the
    /// reader predicted.
    pub fn summary(&self, lesson: &Lesson) -> Vec<SummaryLine> {
        lesson
            .steps
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let o = self.outcome(k);
                SummaryLine {
                    question: s.question.clone(),
                    answer: match o.map(|o| &o.answer) {
                        Some(Ok(v)) => format!("The model says {}.", format_value(*v, &s.unit)),
                        Some(Err(e)) => e.clone(),
                        None => "Not revealed.".to_string(),
                    },
                    prediction: o.map(|o| match (o.choice, o.hit()) {
                        (Some(c), true) => {
                            format!(
                                "You predicted {}: closest.",
                                format_value(s.choices[c], &s.unit)
                            )
                        }
                        (Some(c), false) => format!(
                            "You predicted {}; closest was {}.",
                            format_value(s.choices[c], &s.unit),
                            o.closest
                                .map(|b| format_value(s.choices[b], &s.unit))
                                .unwrap_or_default()
                        ),
                        (None, _) => "No prediction.".to_string(),
                    }),
                    lesson_learnt: first_sentence(&s.explain),
                    hit: o.is_some_and(Outcome::hit),
                }
            })
            .collect()
    }
}

/// One step in the closing summary.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryLine {
    /// The step's question.
    pub question: String,
    /// The model's answer in words.
    pub answer: String,
    /// The reader's prediction in words, `None` when the step was not revealed.
    pub prediction: Option<String>,
    /// The first sentence of the step's explanation: what it showed.
    pub lesson_learnt: String,
    /// Whether the prediction was the closest.
    pub hit: bool,
}

/// The first sentence of a text (up to the first ". ", "! " or "? ").
pub fn first_sentence(text: &str) -> String {
    let ends = [". ", "! ", "? "];
    let cut = ends
        .iter()
        .filter_map(|e| text.find(e).map(|i| i + 1))
        .min()
        .unwrap_or(text.len());
    text[..cut].trim().to_string()
}

/// Lines left under each question of a handout for the written answer.
pub const HANDOUT_BLANKS: usize = 3;

/// A lesson as a printed handout: every step's scene, question, choices and scenario, with
/// lines to write on; the answer key, printed on a page of its own, gives each step's closest
/// choice and the model's number.
#[derive(Clone, Debug, PartialEq)]
pub struct Handout {
    /// The lesson's title.
    pub title: String,
    /// One entry per step, in order.
    pub steps: Vec<HandoutStep>,
    /// The answers, one line per step.
    pub key: Vec<KeyLine>,
}

/// One step of a handout.
#[derive(Clone, Debug, PartialEq)]
pub struct HandoutStep {
    /// The step's number, from 1.
    pub number: usize,
    /// The scene.
    pub text: String,
    /// The question.
    pub question: String,
    /// The choices with their unit (`0.80×`), in the lesson's order.
    pub choices: Vec<String>,
    /// How many lines to leave for the written answer.
    pub blanks: usize,
    /// The scenario string the step sets.
    pub scenario: String,
    /// The keys the step's scenario sets, with their values (the table under the question).
    pub inputs: Vec<Input>,
}

/// One step's answer in a handout's key.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyLine {
    /// The step's number, from 1.
    pub number: usize,
    /// The step's question.
    pub question: String,
    /// The model's number in the step's unit, or why it could not be computed.
    pub answer: Result<f64, String>,
    /// The model's number in words (`The model says 0.80×.`), or the problem.
    pub answer_text: String,
    /// The choice closest to the model's number, with its unit.
    pub closest: Option<String>,
    /// What the step shows: the first sentence of its explanation.
    pub why: String,
}

/// The handout of a lesson; every answer is computed by the model.
pub fn handout(lesson: &Lesson) -> Handout {
    let steps = lesson
        .steps
        .iter()
        .enumerate()
        .map(|(k, s)| HandoutStep {
            number: k + 1,
            text: s.text.clone(),
            question: s.question.clone(),
            choices: s
                .choices
                .iter()
                .map(|c| format_value(*c, &s.unit))
                .collect(),
            blanks: HANDOUT_BLANKS,
            scenario: s.scenario.clone(),
            // The lessons' scenarios all parse (a test checks); one that did not would print
            // its string alone.
            inputs: Scenario::parse(&s.scenario)
                .map(|sc| inputs(&sc).into_iter().filter(|i| i.given).collect())
                .unwrap_or_default(),
        })
        .collect();
    let key = lesson
        .steps
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let answer = s.answer();
            KeyLine {
                number: k + 1,
                question: s.question.clone(),
                answer_text: match &answer {
                    Ok(v) => format!("The model says {}.", format_value(*v, &s.unit)),
                    Err(e) => e.clone(),
                },
                closest: answer
                    .as_ref()
                    .ok()
                    .and_then(|v| s.closest_choice(*v))
                    .map(|b| format_value(s.choices[b], &s.unit)),
                answer,
                why: first_sentence(&s.explain),
            }
        })
        .collect();
    Handout {
        title: lesson.title.clone(),
        steps,
        key,
    }
}

/// What the lesson panel shows for a lesson link.
#[derive(Clone, Debug, PartialEq)]
pub enum LessonLink<'a> {
    /// No lesson in the link.
    None,
    /// A valid lesson and step.
    Step(&'a Lesson, usize),
    /// A link to a lesson that does not exist: the message names it.
    UnknownLesson(String),
    /// A link to a step the lesson does not have.
    UnknownStep(&'a Lesson, String),
}

/// Resolves `#lesson=<id>&step=<n>` (the step from 0; `usize::MAX` for a step that is not a
/// number from 1) against the shipped lessons.
pub fn resolve<'a>(lessons: &'a [Lesson], link: Option<&(String, usize)>) -> LessonLink<'a> {
    let Some((id, step)) = link else {
        return LessonLink::None;
    };
    let Some(l) = lessons.iter().find(|l| &l.id == id) else {
        let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
        let hint = did_you_mean(id, &ids)
            .map(|s| format!(" Did you mean '{s}'?"))
            .unwrap_or_default();
        return LessonLink::UnknownLesson(format!(
            "There is no lesson '{id}' in this link.{hint} Choose one below."
        ));
    };
    if *step < l.steps.len() {
        return LessonLink::Step(l, *step);
    }
    let asked = if *step == usize::MAX {
        "a step that is not a number from 1".to_string()
    } else {
        format!("step {}", step + 1)
    };
    let n = l.steps.len();
    LessonLink::UnknownStep(
        l,
        format!(
            "The lesson “{}” has {n} step{}; this link asks for {asked}.",
            l.title,
            if n == 1 { "" } else { "s" }
        ),
    )
}

/// The accepted name closest to a misspelt one (at most two edits away, or a prefix).
pub fn did_you_mean<'a>(name: &str, accepted: &[&'a str]) -> Option<&'a str> {
    let name = name.to_ascii_lowercase();
    accepted
        .iter()
        .map(|a| (edit_distance(&name, a), *a))
        .filter(|(d, a)| *d <= 2 || (name.len() >= 3 && a.starts_with(&name)))
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a)
}

/// The label of the button that applies a fix: "Apply: ZeRO-3, full recomputation".
pub fn fix_label(changes: &[(&str, String)]) -> String {
    let parts: Vec<String> = changes
        .iter()
        .map(|(k, v)| match *k {
            "zero" => format!("ZeRO-{v}"),
            "recompute" => format!("{v} recomputation"),
            "gpus" => format!("{v} GPUs"),
            "tp" => format!("tensor parallel {v}"),
            "pp" => format!("{v} pipeline stages"),
            "micro" => format!("micro-batch {v}"),
            k => format!("{k}={v}"),
        })
        .collect();
    format!("Apply: {}", parts.join(", "))
}

/// Levenshtein distance between two short names.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::lessons;

    fn lesson(id: &str) -> Lesson {
        lessons().unwrap().into_iter().find(|l| l.id == id).unwrap()
    }

    #[test]
    fn a_run_scores_closest_predictions_and_summarises_each_step() {
        let l = lesson("leaving-the-box");
        assert!(l.steps.len() >= 2);
        let mut p = Progress::new(&l);
        assert_eq!(p.score(), (0, 0, l.steps.len()));
        // Step 1: the reader picks the closest choice; step 2: a choice that is not.
        let best = |k: usize| {
            l.steps[k]
                .closest_choice(l.steps[k].answer().unwrap())
                .unwrap()
        };
        p.reveal(&l, 0, Some(best(0)));
        let wrong = (best(1) + 1) % l.steps[1].choices.len();
        p.reveal(&l, 1, Some(wrong));
        assert_eq!(p.score().0, 1);
        assert!(p
            .score_text()
            .starts_with(&format!("1 of {} closest", l.steps.len())));
        let lines = p.summary(&l);
        assert!(lines[0].hit && !lines[1].hit);
        assert!(lines[0].answer.starts_with("The model says "));
        assert!(lines[0]
            .prediction
            .as_deref()
            .unwrap()
            .ends_with("closest."));
        assert!(lines[1]
            .prediction
            .as_deref()
            .unwrap()
            .contains("closest was"));
        assert!(
            !lines[0].lesson_learnt.is_empty()
                && lines[0].lesson_learnt.len() < l.steps[0].explain.len() + 1
        );
    }

    #[test]
    fn a_step_is_scored_once_and_unrevealed_steps_are_named() {
        let l = lesson("leaving-the-box");
        let mut p = Progress::new(&l);
        let best = l.steps[0].closest_choice(l.steps[0].answer().unwrap());
        let other = best.map(|b| (b + 1) % l.steps[0].choices.len());
        p.reveal(&l, 0, other);
        p.reveal(&l, 0, best);
        assert_eq!(
            p.outcome(0).unwrap().choice,
            other,
            "the first prediction counts"
        );
        assert_eq!(
            p.score_text(),
            format!("0 of {} closest (1 step not revealed)", l.steps.len())
        );
        assert_eq!(p.summary(&l)[1].prediction, None);
        assert!(p.reveal(&l, 99, None).is_none());
    }

    #[test]
    fn links_to_missing_lessons_and_steps_are_named() {
        let ls = lessons().unwrap();
        let link = |id: &str, step: usize| resolve(&ls, Some(&(id.to_string(), step)));
        assert!(matches!(link("leaving-the-box", 1), LessonLink::Step(_, 1)));
        match link("leaving-the-bx", 0) {
            LessonLink::UnknownLesson(m) => {
                assert!(
                    m.contains("'leaving-the-bx'") && m.contains("Did you mean 'leaving-the-box'"),
                    "{m}"
                )
            }
            other => panic!("{other:?}"),
        }
        match link("leaving-the-box", 6) {
            LessonLink::UnknownStep(_, m) => assert!(m.contains("asks for step 7"), "{m}"),
            other => panic!("{other:?}"),
        }
        match link("leaving-the-box", usize::MAX) {
            LessonLink::UnknownStep(_, m) => assert!(m.contains("not a number"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(resolve(&ls, None), LessonLink::None);
    }

    #[test]
    fn a_fix_that_does_not_fit_reads_as_an_action_and_makes_it_fit() {
        use crate::model::scenario::Scenario;
        use crate::model::step;
        let sc = Scenario::parse("gpus=8&per_node=8&gpu=h100&model=llama3-70b&zero=0").unwrap();
        let r = step::evaluate(&sc).unwrap();
        assert!(!r.memory.fits());
        let fix = step::verdict(&sc, &r).fix.expect("a fix");
        let label = fix_label(&fix.changes);
        assert!(label.starts_with("Apply: "), "{label}");
        assert!(step::evaluate(&fix.scenario).unwrap().memory.fits());
        assert_eq!(
            fix_label(&[("zero", "3".into()), ("recompute", "full".into())]),
            "Apply: ZeRO-3, full recomputation"
        );
    }

    #[test]
    fn the_inputs_say_what_the_model_used_and_what_the_link_gave() {
        let sc = Scenario::parse("gpus=64&gpu=a100&inter=tcp100&model=llama3-8b").unwrap();
        let rows = inputs(&sc);
        assert_eq!(rows.len(), KEYS.len());
        let row = |k: &str| rows.iter().find(|r| r.key == k).unwrap().clone();
        assert_eq!(row("gpus").value, "64");
        assert!(row("gpus").given && row("inter").given);
        // Derived from the GPU: A100 servers have NVLink 3 and 8 GPUs; the ZeRO stage is the
        // least sharding that fits.
        assert_eq!(row("intra").value, "nvlink3");
        assert!(!row("intra").given);
        assert_eq!(row("per_node").value, "8");
        assert!(["0", "1", "2", "3"].contains(&row("zero").value.as_str()));
        assert!(!row("precision").value.is_empty());
        assert!(rows.iter().all(|r| !r.value.is_empty()));
    }

    #[test]
    fn every_lesson_has_a_handout_with_its_questions_blanks_and_a_key_from_the_model() {
        for l in lessons().unwrap() {
            let h = handout(&l);
            assert_eq!(h.title, l.title);
            assert_eq!(h.steps.len(), l.steps.len(), "{}", l.id);
            assert_eq!(h.key.len(), l.steps.len(), "{}", l.id);
            for (k, (s, hs)) in l.steps.iter().zip(&h.steps).enumerate() {
                let at = format!("{} step {}", l.id, k + 1);
                assert_eq!(hs.number, k + 1, "{at}");
                assert_eq!(hs.question, s.question, "{at}");
                assert!(hs.blanks >= 2, "{at}: lines to write on");
                assert_eq!(hs.choices.len(), s.choices.len(), "{at}");
                assert!(
                    hs.choices.iter().all(|c| !c.is_empty()),
                    "{at}: {:?}",
                    hs.choices
                );
                // The table holds every key the step's scenario sets (as the model reads it:
                // a default spelt out, `algo=auto`, is not a setting), with its value.
                let canonical = Scenario::parse(&s.scenario).unwrap().to_query();
                for pair in canonical.split('&') {
                    let (key, value) = pair.split_once('=').unwrap();
                    assert!(
                        hs.inputs.iter().any(|i| i.key == key && i.value == value),
                        "{at}: {key}={value} missing from {:?}",
                        hs.inputs
                    );
                }
                assert!(hs.inputs.iter().all(|i| i.given), "{at}");
                // The key: the model's number and the choice closest to it.
                let line = &h.key[k];
                let v = s.answer().unwrap();
                assert_eq!(line.answer, Ok(v), "{at}");
                assert!(
                    line.answer_text.contains(&format_value(v, &s.unit)),
                    "{at}: {}",
                    line.answer_text
                );
                let best = s.closest_choice(v).unwrap();
                assert_eq!(
                    line.closest.as_deref(),
                    Some(format_value(s.choices[best], &s.unit).as_str()),
                    "{at}"
                );
                assert!(!line.why.is_empty(), "{at}");
            }
        }
    }

    #[test]
    fn a_handout_key_is_the_model_s_number_not_a_typed_one() {
        use crate::model::report::evaluate_metric;
        // leaving-the-box step 1: 64 GPUs over 100 GbE against 8 in one box, computed here from
        // the step reports directly.
        let l = lesson("leaving-the-box");
        let eight = evaluate_metric(
            "step",
            "gpus=8&per_node=8&gpu=h100&intra=nvlink4&model=llama3-8b&zero=3",
            "throughput",
        )
        .unwrap();
        let sixty_four = evaluate_metric("step", &l.steps[0].scenario, "throughput").unwrap();
        let key = &handout(&l).key[0];
        let got = key.answer.clone().unwrap();
        assert!(
            (got - sixty_four / eight).abs() < 1e-9,
            "{got} vs {}",
            sixty_four / eight
        );
        assert!(got < 1.0, "slower than one box: {got}");
        assert_eq!(key.closest.as_deref(), Some("0.80×"));
        assert!(key.answer_text.starts_with("The model says 0."));
    }

    #[test]
    fn misspelt_names_get_a_suggestion() {
        let w = ["calculator", "speedup", "animation", "timeline", "lesson"];
        assert_eq!(did_you_mean("spedup", &w), Some("speedup"));
        assert_eq!(did_you_mean("Calculater", &w), Some("calculator"));
        assert_eq!(did_you_mean("anim", &w), Some("animation"));
        assert_eq!(did_you_mean("histogram", &w), None);
        assert_eq!(first_sentence("One. Two. Three."), "One.");
        assert_eq!(first_sentence("No end"), "No end");
        assert_eq!(
            first_sentence("About 8× (a little under). Then."),
            "About 8× (a little under)."
        );
    }
}
