//! Guided lessons: set the scene, ask for a prediction, reveal the model's answer, explain.

use super::state::Lab;
use crate::lessons::{format_value, lessons, Lesson};
use leptos::prelude::*;

/// The lesson list, or the lesson being followed.
#[component]
pub fn Lessons() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let all = StoredValue::new(lessons().unwrap_or_default());
    let current = Memo::new(move |_| {
        lab.lesson.get().and_then(|(id, step)| {
            all.with_value(|ls| ls.iter().find(|l| l.id == id).cloned())
                .map(|l| {
                    let step = step.min(l.steps.len().saturating_sub(1));
                    (l, step)
                })
        })
    });
    let choice = RwSignal::new(None::<usize>);
    let revealed = RwSignal::new(None::<Result<f64, String>>);
    let score = RwSignal::new((0u32, 0u32));
    // Entering a step sets its scenario and clears the prediction.
    Effect::new(move |prev: Option<Option<(String, usize)>>| {
        let key = current.with(|c| c.as_ref().map(|(l, s)| (l.id.clone(), *s)));
        if prev.as_ref() != Some(&key) {
            if let Some((l, s)) = current.get_untracked() {
                lab.load(&l.steps[s].scenario);
            }
            choice.set(None);
            revealed.set(None);
        }
        key
    });
    let go = move |id: &str, step: usize| lab.lesson.set(Some((id.to_string(), step)));

    view! {
        <section class="lessons" aria-labelledby="lessons-title" data-testid="lessons">
            <h2 id="lessons-title">"Guided lessons: predict, then see"</h2>
            {move || match current.get() {
                None => view! {
                    <p class="hint">"Each lesson sets up the explorer, asks you to predict what happens, then shows the model's answer and why."</p>
                    <ul class="lesson-list">
                        {all.with_value(|ls| ls.iter().map(|l: &Lesson| {
                            let id = l.id.clone();
                            let id2 = id.clone();
                            view! {
                                <li>
                                    <button type="button" data-testid=format!("lesson-start-{id}")
                                        on:click=move |_| { score.set((0, 0)); go(&id2, 0) }>
                                        {l.title.clone()}
                                    </button>
                                    <span class="hint">{format!(" {} step{}", l.steps.len(), if l.steps.len() == 1 { "" } else { "s" })}</span>
                                </li>
                            }
                        }).collect_view())}
                    </ul>
                }.into_any(),
                Some((l, k)) => {
                    let step = l.steps[k].clone();
                    let n = l.steps.len();
                    let id = l.id.clone();
                    let (id_prev, id_next) = (id.clone(), id.clone());
                    let unit = step.unit.clone();
                    let unit2 = unit.clone();
                    let choices = step.choices.clone();
                    let step2 = step.clone();
                    let name = format!("lesson-{id}-{k}");
                    view! {
                        <div class="lesson" data-testid="lesson">
                            <h3>{l.title.clone()} <span class="hint">{format!(" — step {} of {n}", k + 1)}</span></h3>
                            <p data-testid="lesson-text">{step.text.clone()}</p>
                            <fieldset class="predict">
                                <legend>{step.question.clone()}</legend>
                                {choices.iter().enumerate().map(|(i, c)| {
                                    let label = format_value(*c, &unit);
                                    let input_id = format!("{name}-{i}");
                                    view! {
                                        <span class="choice">
                                            <input type="radio" id=input_id.clone() name=name.clone() data-testid="lesson-choice"
                                                prop:checked=move || choice.get() == Some(i)
                                                on:change=move |_| choice.set(Some(i)) />
                                            <label for=input_id>{label}</label>
                                        </span>
                                    }
                                }).collect_view()}
                            </fieldset>
                            <button type="button" data-testid="lesson-reveal" disabled=move || revealed.with(|r| r.is_some())
                                on:click=move |_| {
                                    let v = step2.answer();
                                    if let (Ok(v), Some(c)) = (&v, choice.get_untracked()) {
                                        let hit = step2.closest_choice(*v) == Some(c);
                                        score.update(|(a, b)| { *a += u32::from(hit); *b += 1; });
                                    }
                                    revealed.set(Some(v));
                                }>
                                "Reveal the model's answer"
                            </button>
                            <div aria-live="polite">
                                {move || revealed.get().map(|r| match r {
                                    Ok(v) => {
                                        let best = step.closest_choice(v);
                                        let mine = choice.get();
                                        let verdict = match (mine, best) {
                                            (Some(m), Some(b)) if m == b => "Your prediction was the closest.".to_string(),
                                            (Some(_), Some(b)) => format!("The closest choice was {}.", format_value(step.choices[b], &unit2)),
                                            _ => String::new(),
                                        };
                                        view! {
                                            <div class="answer" data-testid="lesson-answer">
                                                <p><strong>{format!("The model says {}.", format_value(v, &unit2))}</strong> " " {verdict}</p>
                                                <p>{step.explain.clone()}</p>
                                            </div>
                                        }.into_any()
                                    }
                                    Err(e) => view! { <p class="problem">{e}</p> }.into_any(),
                                })}
                            </div>
                            <div class="lesson-nav">
                                <button type="button" disabled=k == 0 on:click=move |_| go(&id_prev, k.saturating_sub(1))>"Previous"</button>
                                {if k + 1 < n {
                                    view! { <button type="button" data-testid="lesson-next" on:click=move |_| go(&id_next, k + 1)>"Next step"</button> }.into_any()
                                } else {
                                    view! { <button type="button" data-testid="lesson-next" on:click=move |_| lab.lesson.set(None)>"Finish"</button> }.into_any()
                                }}
                                <a href=move || format!("#{}", lab.hash())>"Link to this step"</a>
                                <span class="hint">{move || { let (a, b) = score.get(); if b > 0 { format!("Closest predictions so far: {a} of {b}") } else { String::new() } }}</span>
                            </div>
                        </div>
                    }.into_any()
                }
            }}
        </section>
    }
}
