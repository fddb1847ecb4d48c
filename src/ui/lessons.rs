//! Guided lessons: set the scene, ask for a prediction, reveal the model's answer, explain, and
//! close with a summary. While a step waits for its prediction, the page masks everything that
//! would give the answer away (`Lab::answer_hidden`); what a run scores and summarises is
//! decided in [`crate::classroom`]. A lesson's printable handout ([`HandoutView`]) is built by
//! [`crate::classroom::handout`].

use super::export::Printing;
use super::page::{focus_nearest, focus_to_top};
use super::state::{read_hash, Lab, Route};
use crate::classroom::{handout, resolve, LessonLink, Progress};
use crate::lessons::{format_value, lessons, shipped, Lesson};
use leptos::prelude::*;

/// The lesson whose handout is open (its id), shared by the lesson panel's button and the
/// handout view the page mounts beside everything else.
#[derive(Clone, Copy)]
pub struct HandoutOpen(pub RwSignal<Option<String>>);

/// Id of the handout's heading, which takes focus when it opens.
const HANDOUT_HEADING: &str = "handout-title";

/// The "Print handout" button of a lesson: opens the lesson's handout and the print dialog.
/// Only in the full page, which mounts the handout view (an embedded lesson has none).
#[component]
fn HandoutButton(
    /// The lesson's id.
    id: String,
) -> impl IntoView {
    let open = use_context::<HandoutOpen>()?.0;
    let printing = use_context::<Printing>()?;
    Some(view! {
        <button type="button" data-testid="lesson-handout"
            title="A page per step to write on, and the answer key on a page of its own"
            on:click=move |_| {
                open.set(Some(id.clone()));
                focus_to_top(HANDOUT_HEADING);
                printing.print();
            }>
            "Print handout"
        </button>
    })
}

/// A lesson's handout, shown in place of the page while open: the title, each step's scene,
/// question, choices, lines to write on and scenario table, then the answer key on a page of
/// its own. Its Print and Close buttons do not print.
#[component]
pub fn HandoutView() -> impl IntoView {
    let open = expect_context::<HandoutOpen>().0;
    let printing = expect_context::<Printing>();
    let close = move || {
        open.set(None);
        focus_to_top(HEADING);
    };
    move || {
        let id = open.get()?;
        let lesson = shipped().iter().find(|l| l.id == id)?;
        let h = handout(lesson);
        let title = h.title.clone();
        Some(view! {
            <article class="handout" data-testid="handout" aria-labelledby=HANDOUT_HEADING
                on:keydown=move |ev| if ev.key() == "Escape" { close() }>
                <div class="handout-bar">
                    <button type="button" class="primary" data-testid="handout-print" on:click=move |_| printing.print()>"Print"</button>
                    <button type="button" data-testid="handout-close" on:click=move |_| close()>"Close handout"</button>
                    <span class="hint">"The answer key prints on a page of its own, last."</span>
                </div>
                <header class="handout-head">
                    <p class="hint">"GPU Scaling Lab — lesson handout"</p>
                    <h1 id=HANDOUT_HEADING tabindex="-1">{h.title.clone()}</h1>
                    <p class="handout-name">"Name: " <span class="blank-inline"></span> " Date: " <span class="blank-inline short"></span></p>
                    <p>"For each step, read the scene, circle the choice you predict, and write why. Then check with the model in the explorer."</p>
                </header>
                <ol class="handout-steps">
                    {h.steps.into_iter().map(|s| view! {
                        <li class="handout-step" data-testid="handout-step">
                            <h2>{format!("Step {}", s.number)}</h2>
                            <p>{s.text}</p>
                            <p class="handout-q" data-testid="handout-question"><strong>{s.question}</strong></p>
                            <ul class="handout-choices" aria-label="Choices">
                                {s.choices.into_iter().map(|c| view! { <li data-testid="handout-choice">{c}</li> }).collect_view()}
                            </ul>
                            <p class="hint">"Why? Your reasoning:"</p>
                            <div class="blanks" aria-hidden="true">
                                {(0..s.blanks).map(|_| view! { <span class="blank-line" data-testid="handout-blank"></span> }).collect_view()}
                            </div>
                            <table class="handout-scenario" data-testid="handout-scenario">
                                <caption>{format!("The scenario of step {}", s.number)}</caption>
                                <thead><tr><th scope="col">"key"</th><th scope="col">"value"</th></tr></thead>
                                <tbody>
                                    {s.inputs.into_iter().map(|i| view! {
                                        <tr><th scope="row">{i.key}</th><td>{i.value}</td></tr>
                                    }).collect_view()}
                                </tbody>
                            </table>
                            <p class="hint handout-link">{s.scenario}</p>
                        </li>
                    }).collect_view()}
                </ol>
                <section class="answer-key" data-testid="handout-key" aria-labelledby="handout-key-title">
                    <h2 id="handout-key-title">{format!("Answer key: {title}")}</h2>
                    <ol>
                        {h.key.into_iter().map(|k| view! {
                            <li data-testid="handout-key-line">
                                <p class="handout-q">{k.question}</p>
                                <p>
                                    {k.closest.map(|c| view! { <strong>{format!("Closest choice: {c}. ")}</strong> })}
                                    <span data-testid="handout-key-answer">{k.answer_text}</span>
                                </p>
                                <p class="hint">{k.why}</p>
                            </li>
                        }).collect_view()}
                    </ol>
                    <p class="hint">"Every answer is the cost model's, computed when this handout was printed."</p>
                </section>
            </article>
        })
    }
}

/// Ids the panel moves focus to.
pub(crate) const HEADING: &str = "lesson-heading";
const ANSWER: &str = "lesson-answer";
const SUMMARY: &str = "lesson-summary-title";
const LIST: &str = "lessons-title";

/// What the panel shows.
#[derive(Clone, Debug, PartialEq)]
enum Screen {
    List,
    Step(Lesson, usize),
    Summary(Lesson),
    Problem(String, Option<Lesson>),
}

/// The lesson list, the step being followed, or the closing summary.
#[component]
pub fn Lessons() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let all = StoredValue::new(lessons().unwrap_or_default());
    // The summary is a view of the last step's run, not a place in the link: it shows while
    // the link is still the one it was opened from (Back to another step leaves it).
    let summary = RwSignal::new(None::<(String, usize)>);
    let progress = RwSignal::new(Progress::default());
    let choice = RwSignal::new(None::<usize>);
    let screen = Memo::new(move |_| {
        let link = lab.lesson.get();
        all.with_value(|ls| match resolve(ls, link.as_ref()) {
            LessonLink::None => Screen::List,
            LessonLink::Step(l, _) if summary.get().is_some() && summary.get() == link => {
                Screen::Summary(l.clone())
            }
            LessonLink::Step(l, k) => Screen::Step(l.clone(), k),
            LessonLink::UnknownLesson(m) => Screen::Problem(m, None),
            LessonLink::UnknownStep(l, m) => Screen::Problem(m, Some(l.clone())),
        })
    });
    // Whether the pinned A is a lesson step's (`pin` in the lesson file), not the reader's.
    let lesson_pin = StoredValue::new(false);
    // Entering a step: a new lesson starts a new run; the prediction shown is the one made
    // for this step, if any. A page opened on a lesson link without a scenario shows the
    // step's own scenario (without a Back-button entry).
    Effect::new(move |prev: Option<Option<(String, usize)>>| {
        let key = screen.with(|s| match s {
            Screen::Step(l, k) => Some((l.id.clone(), *k)),
            _ => None,
        });
        if prev.as_ref() != Some(&key) {
            if let Some((l, k)) = screen.with_untracked(|s| match s {
                Screen::Step(l, k) => Some((l.clone(), *k)),
                _ => None,
            }) {
                if progress.with_untracked(|p| p.lesson != l.id) {
                    progress.set(Progress::new(&l));
                }
                choice.set(progress.with_untracked(|p| p.outcome(k).and_then(|o| o.choice)));
                if prev.is_none() && Route::parse(&read_hash()).scenario.trim().is_empty() {
                    lab.load(&l.steps[k].scenario);
                    pin_for(lab, &l.steps[k], lesson_pin);
                    lab.push_next.set_value(false);
                }
            }
        }
        key
    });
    // The answer stays masked until this step is revealed.
    Effect::new(move |_| {
        let hidden = screen.with(|s| match s {
            Screen::Step(_, k) => progress.with(|p| p.outcome(*k).is_none()),
            _ => false,
        });
        lab.answer_hidden.set(hidden);
    });
    on_cleanup(move || lab.answer_hidden.set(false));
    // A page opened on a lesson link starts at the lesson (an embed leaves focus to its host).
    if lab.embed.get_value().is_none() {
        match screen.get_untracked() {
            Screen::Step(..) => focus_to_top(HEADING),
            Screen::Problem(..) => focus_to_top(LIST),
            _ => {}
        }
    }

    // Discrete moves: each is a Back-button entry, and focus follows the reader.
    let go = move |l: &Lesson, k: usize| {
        summary.set(None);
        lab.lesson.set(Some((l.id.clone(), k)));
        // A step already revealed shows the scenario its answer is about.
        let s = &l.steps[k];
        let revealed = progress.with_untracked(|p| p.lesson == l.id && p.outcome(k).is_some());
        lab.load(if revealed {
            s.answer_scenario()
        } else {
            &s.scenario
        });
        pin_for(lab, &l.steps[k], lesson_pin);
        focus_to_top(HEADING);
    };
    let start = move |l: &Lesson| {
        progress.set(Progress::new(l));
        go(l, 0);
    };
    let exit = move || {
        summary.set(None);
        lab.push_history();
        lab.lesson.set(None);
        if lesson_pin.get_value() {
            lesson_pin.set_value(false);
            lab.pinned.set(None);
        }
        focus_to_top(LIST);
    };

    view! {
        <section class="lessons" aria-labelledby="lessons-title" data-testid="lessons">
            <h2 id="lessons-title" tabindex="-1" class="widget-heading">"Guided lessons: predict, then see"</h2>
            {move || match screen.get() {
                Screen::List => view! { <LessonList all=all start=start /> }.into_any(),
                Screen::Problem(msg, lesson) => view! {
                    <p class="problem" role="alert" data-testid="lesson-error">{msg}</p>
                    {match lesson {
                        Some(l) => view! {
                            <p>
                                <button type="button" class="lesson-button" on:click=move |_| start(&l)>"Start this lesson at step 1"</button>
                                " "
                                <button type="button" class="lesson-button" data-testid="lesson-exit" on:click=move |_| exit()>"All lessons"</button>
                            </p>
                        }.into_any(),
                        None => view! { <LessonList all=all start=start /> }.into_any(),
                    }}
                }.into_any(),
                Screen::Summary(l) => {
                    let next = all.with_value(|ls| {
                        ls.iter().position(|x| x.id == l.id).and_then(|i| ls.get(i + 1)).cloned()
                    });
                    let lines = progress.with(|p| p.summary(&l));
                    let score = progress.with(|p| p.score_text());
                    let back = l.clone();
                    view! {
                        <div class="lesson lesson-summary" data-testid="lesson-summary">
                            <h3 id=SUMMARY tabindex="-1">{format!("{}: done", l.title)}</h3>
                            <p class="score" data-testid="lesson-score"><strong>{format!("Your predictions: {score}.")}</strong></p>
                            <ol class="summary-steps">
                                {lines.into_iter().map(|s| view! {
                                    <li class:hit=s.hit>
                                        <p class="q">{s.question}</p>
                                        <p><strong>{s.answer}</strong> " " {s.prediction.unwrap_or_default()}</p>
                                        <p class="hint">{s.lesson_learnt}</p>
                                    </li>
                                }).collect_view()}
                            </ol>
                            <div class="lesson-nav">
                                {next.map(|n| {
                                    let title = n.title.clone();
                                    view! {
                                        <button type="button" class="primary" data-testid="lesson-next-lesson" on:click=move |_| start(&n)>
                                            {format!("Next lesson: {title}")}
                                        </button>
                                    }
                                })}
                                <button type="button" on:click=move |_| start(&back)>"Try this lesson again"</button>
                                <HandoutButton id=l.id.clone() />
                                <button type="button" data-testid="lesson-exit" on:click=move |_| exit()>"Exit lesson"</button>
                            </div>
                        </div>
                    }.into_any()
                }
                Screen::Step(l, k) => view! {
                    <LessonStep lesson=l k=k progress=progress choice=choice
                        go=Callback::new(move |(l, k): (Lesson, usize)| go(&l, k))
                        finish=Callback::new(move |_| { summary.set(lab.lesson.get_untracked()); focus_to_top(SUMMARY); })
                        exit=Callback::new(move |_| exit()) />
                }.into_any(),
            }}
        </section>
    }
}

/// The lessons to choose from.
#[component]
fn LessonList(
    all: StoredValue<Vec<Lesson>>,
    start: impl Fn(&Lesson) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <p class="hint">"Each lesson sets up the explorer, asks you to predict what happens, then shows the model's answer and why."</p>
        <ul class="lesson-list">
            {all.with_value(|ls| ls.iter().map(|l: &Lesson| {
                let l2 = l.clone();
                let n = l.steps.len();
                view! {
                    <li>
                        <button type="button" data-testid=format!("lesson-start-{}", l.id)
                            on:click=move |_| start(&l2)>
                            {l.title.clone()}
                        </button>
                        <span class="hint">{format!(" {n} step{}", if n == 1 { "" } else { "s" })}</span>
                    </li>
                }
            }).collect_view())}
        </ul>
    }
}

/// One step: the scene, the prediction, the reveal marked right or closest, and the way on.
#[component]
fn LessonStep(
    lesson: Lesson,
    k: usize,
    progress: RwSignal<Progress>,
    choice: RwSignal<Option<usize>>,
    /// Go to another step of the lesson.
    go: Callback<(Lesson, usize)>,
    /// Show the summary (after the last step).
    finish: Callback<()>,
    /// Leave the lesson.
    exit: Callback<()>,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let step = lesson.steps[k].clone();
    let n = lesson.steps.len();
    let unit = step.unit.clone();
    let name = format!("lesson-{}-{k}", lesson.id);
    let outcome = move || progress.with(|p| p.outcome(k).cloned());
    let revealed = move || progress.with(|p| p.outcome(k).is_some());
    let l_reveal = lesson.clone();
    let answer_scenario = step.answer_scenario().to_string();
    let reveal = move |_| {
        let c = choice.get_untracked();
        progress.update(|p| {
            p.reveal(&l_reveal, k, c);
        });
        // The explorer moves to the scenario the answer is about (one-box's 8 GPUs, not the
        // 1 it starts from), so the chart a presenter projects marks it; part of the reveal,
        // not a Back-button entry of its own.
        if answer_scenario != lab.scenario.with_untracked(|s| s.to_query())
            && answer_scenario != l_reveal.steps[k].scenario
        {
            lab.load(&answer_scenario);
            lab.push_next.set_value(false);
        }
        focus_nearest(ANSWER);
    };
    // The presenter's step fits its pane: on entering it, on the reveal, and when the screen
    // changes size.
    Effect::new(move |_| {
        let _ = revealed();
        if lab.presenter.get() {
            fit_to_pane();
        }
    });
    let resized = window_event_listener(leptos::ev::resize, move |_| {
        if lab.presenter.get_untracked() {
            fit_to_pane();
        }
    });
    on_cleanup(move || resized.remove());
    let (l_prev, l_next) = (lesson.clone(), lesson.clone());
    let choices = step.choices.clone();
    let unit_c = unit.clone();
    view! {
        <div class="lesson" data-testid="lesson">
            <h3 id=HEADING tabindex="-1">{lesson.title.clone()} <span class="hint">{format!(" — step {} of {n}", k + 1)}</span></h3>
            <p data-testid="lesson-text">{step.text.clone()}</p>
            <fieldset class="predict" id="lesson-question" tabindex="-1" disabled=revealed>
                <legend>{step.question.clone()}</legend>
                {choices.iter().enumerate().map(|(i, c)| {
                    let label = format_value(*c, &unit_c);
                    let input_id = format!("{name}-{i}");
                    let mark = move || outcome().map(|o| {
                        if o.closest == Some(i) {
                            if o.choice == Some(i) { " ✓ your prediction, closest" } else { " ✓ closest" }
                        } else if o.choice == Some(i) {
                            " ✗ your prediction"
                        } else {
                            ""
                        }
                    }).unwrap_or("");
                    view! {
                        <span class="choice"
                            class:closest=move || outcome().is_some_and(|o| o.closest == Some(i))
                            class:missed=move || outcome().is_some_and(|o| o.choice == Some(i) && o.closest != Some(i))>
                            <input type="radio" id=input_id.clone() name=name.clone() data-testid="lesson-choice"
                                prop:checked=move || choice.get() == Some(i)
                                on:change=move |_| choice.set(Some(i)) />
                            <label for=input_id>{label}<span class="mark" data-testid="lesson-mark">{mark}</span></label>
                        </span>
                    }
                }).collect_view()}
            </fieldset>
            {move || (!revealed()).then(|| view! {
                <p class="reveal-row">
                    <button type="button" class="primary" data-testid="lesson-reveal"
                        disabled=move || choice.get().is_none()
                        aria-describedby="lesson-reveal-hint"
                        on:click=reveal.clone()>
                        "Reveal the model's answer"
                    </button>
                    " "
                    <span class="hint" id="lesson-reveal-hint">
                        // An embedded lesson has no results or charts beside it to hide.
                        {move || match (choice.get().is_none(), lab.embed.get_value().is_some()) {
                            (true, true) => "Make your prediction first.",
                            (true, false) => "Make your prediction first: the results, charts and timeline stay hidden until you reveal.",
                            (false, true) => "",
                            (false, false) => "The results, charts and timeline stay hidden until you reveal.",
                        }}
                    </span>
                </p>
            })}
            <div aria-live="polite">
                {move || outcome().map(|o| {
                    let verdict = match (o.choice, o.closest) {
                        (Some(m), Some(b)) if m == b => "Your prediction was the closest.".to_string(),
                        (Some(_), Some(b)) => format!("The closest choice was {}.", format_value(step.choices[b], &unit)),
                        _ => String::new(),
                    };
                    match o.answer {
                        Ok(v) => view! {
                            <div class="answer" id=ANSWER tabindex="-1" data-testid="lesson-answer">
                                <p><strong>{format!("The model says {}.", format_value(v, &unit))}</strong> " " {verdict}</p>
                                <p>{step.explain.clone()}</p>
                                {if lab.embed.get_value().is_some() {
                                    // An embedded lesson has no explorer: the app opens in a new tab.
                                    view! { <p class="hint to-explorer"><a href=move || format!("./#{}", lab.scenario.with(|s| s.to_query()))
                                        target="_blank" rel="noopener">"See it in the explorer"</a></p> }.into_any()
                                } else {
                                    view! { <p class="hint to-explorer"><a href="#results" on:click=move |ev| { ev.prevent_default(); super::page::jump_to(lab, "results") }>"See it in the explorer"</a></p> }.into_any()
                                }}
                            </div>
                        }.into_any(),
                        Err(e) => view! { <p class="problem" id=ANSWER tabindex="-1" data-testid="lesson-answer">{e}</p> }.into_any(),
                    }
                })}
            </div>
            <div class="lesson-nav">
                <button type="button" disabled=k == 0 on:click=move |_| go.run((l_prev.clone(), k.saturating_sub(1)))>"Previous"</button>
                {if k + 1 < n {
                    view! { <button type="button" data-testid="lesson-next" on:click=move |_| go.run((l_next.clone(), k + 1))>"Next step"</button> }.into_any()
                } else {
                    view! { <button type="button" data-testid="lesson-next" on:click=move |_| finish.run(())>"Finish: see your summary"</button> }.into_any()
                }}
                <button type="button" data-testid="lesson-exit" on:click=move |_| exit.run(())>"Exit lesson"</button>
                <HandoutButton id=lesson.id.clone() />
                // In an embed the link leads to the app, in a new tab: a copied link to the
                // bare widget would open the lesson without the explorer.
                <a data-testid="lesson-link" href=move || step_link(lab)
                    target=lab.embed.get_value().is_some().then_some("_blank")
                    rel=lab.embed.get_value().is_some().then_some("noopener")>"Link to this step"</a>
                <span class="hint" data-testid="lesson-progress">{move || {
                    let (a, r, _) = progress.with(|p| p.score());
                    if r > 0 { format!("Closest predictions so far: {a} of {r}") } else { String::new() }
                }}</span>
            </div>
        </div>
    }
}

/// In the presenter layout, sets a step whose words run longer than its pane (a long
/// explanation on a 720 px screen) a little smaller, 2 % at a time down to 86 % (`--fit` on the
/// pane, read by style/presenter.css), so its answer does not slide under the buttons pinned at
/// the pane's foot; a step that fits keeps the full size. Once the current render is on screen.
fn fit_to_pane() {
    request_animation_frame(|| {
        let Ok(Some(pane)) = document().query_selector(".page.presenter > .lessons") else {
            return;
        };
        let _ = pane.remove_attribute("style");
        for smaller in 1..=7 {
            if pane.scroll_height() <= pane.client_height() + 1 {
                break;
            }
            let fit = 1.0 - 0.02 * f64::from(smaller);
            let _ = pane.set_attribute("style", &format!("--fit: {fit:.2}"));
        }
    });
}

/// The link to the current step: the hash in the full page; from an embed, the app's whole
/// address without the embed's own keys (which widget, its heading, the host's theme).
fn step_link(lab: Lab) -> String {
    let hash = lab.hash();
    if lab.embed.get_value().is_none() {
        return format!("#{hash}");
    }
    let kept: Vec<&str> = hash
        .split('&')
        .filter(|p| {
            !matches!(
                p.split_once('=').map(|(k, _)| k),
                Some("embed" | "heading" | "theme")
            )
        })
        .collect();
    let here = window().location().href().unwrap_or_default();
    let base = here.split('#').next().unwrap_or_default();
    format!("{base}#{}", kept.join("&"))
}

/// Pins the step's comparison scenario as A; a step without one ends a comparison an earlier
/// step pinned (`lesson_pin`), and leaves the reader's own A alone.
fn pin_for(lab: Lab, step: &crate::lessons::Step, lesson_pin: StoredValue<bool>) {
    match step.pin.as_deref() {
        Some(q) => {
            lab.pinned
                .set(Some(crate::model::scenario::Scenario::parse_lenient(q).0));
            lesson_pin.set_value(true);
        }
        None if lesson_pin.get_value() => {
            lab.pinned.set(None);
            lesson_pin.set_value(false);
        }
        None => {}
    }
}
