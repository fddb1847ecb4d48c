//! Chart panels: a crisp canvas drawn by the render layer, a hover/keyboard readout, the takeaway
//! as the canvas's accessible name, and a data table with CSV export. What the texts and the
//! table say is decided by `render::figure`; this file wires it to signals and the canvas.

use super::browser::{device_pixel_ratio, download_png, now_ms, record_perf, size_backing_store};
use super::canvas::Canvas;
use super::hooks::{use_deferred_paint, use_element_size, use_prefers_dark};
use super::state::Lab;
use super::table::DataTable;
use crate::render::charts::{draw_with_pin, PlotArea, Style, MAX_X};
use crate::render::figure::{Figure, Table};
use crate::render::series::{pin, ScalingData};
use crate::render::train::RunData;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;

/// Which chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Speedup,
    Efficiency,
    Breakdown,
    Compare,
    TimeToTrain,
}

/// Runs `f` on the chart's figure, reading (and so tracking) only the data that chart draws: the
/// comparison does not follow the GPU slider.
fn with_figure<R>(kind: Kind, lab: &Lab, f: impl FnOnce(Figure<'_>) -> R) -> R {
    match kind {
        Kind::Speedup => lab.curve.with(|d| f(Figure::Speedup(d))),
        Kind::Efficiency => lab.curve.with(|d| f(Figure::Efficiency(d))),
        Kind::Breakdown => lab.shares.with(|d| f(Figure::Breakdown(d))),
        Kind::Compare => lab.compare_curves.with(|cs| f(Figure::Compare(cs))),
        Kind::TimeToTrain => lab.run.with(|d| f(Figure::TimeToTrain(d))),
    }
}

/// The GPU count the time-to-train chart marks with `pick` (fastest, cheapest); `None` for
/// the other charts, which do not read the run.
fn marked(kind: Kind, lab: &Lab, pick: fn(&RunData) -> Option<usize>) -> Option<String> {
    (kind == Kind::TimeToTrain)
        .then(|| {
            lab.run
                .with(|d| pick(d).map(|i| d.points[i].gpus.to_string()))
        })
        .flatten()
}

/// Runs `f` on the pinned scenario A's curve for the charts that draw it (speedup and
/// efficiency), reading (and so tracking) it only there; `None` when nothing is pinned.
fn with_pinned<R>(kind: Kind, lab: &Lab, f: impl FnOnce(Option<&ScalingData>) -> R) -> R {
    match kind {
        Kind::Speedup | Kind::Efficiency => lab.pinned_curve.with(|a| f(a.as_ref())),
        _ => f(None),
    }
}

/// The chart's table, with A's columns beside B's while a scenario is pinned.
fn table(kind: Kind, lab: &Lab) -> Table {
    let t = with_figure(kind, lab, |f| f.table());
    with_pinned(kind, lab, |a| match a {
        Some(a) => pin::table(t, a),
        None => t,
    })
}

/// The chart's takeaway (its accessible name), with A's sentence while a scenario is pinned.
fn takeaway(kind: Kind, lab: &Lab) -> String {
    let t = with_figure(kind, lab, |f| f.takeaway());
    t + &with_pinned(kind, lab, |a| {
        a.map(|a| pinned_takeaway(kind, a)).unwrap_or_default()
    })
}

/// The sentence A adds to a chart's takeaway, in the chart's own measure: the efficiency
/// chart's in efficiency, not speedup.
fn pinned_takeaway(kind: Kind, a: &ScalingData) -> String {
    match (kind, a.chosen_point()) {
        (Kind::Efficiency, Some(p)) => format!(
            " The pinned scenario A (dashed) is {:.0} % efficient at its {}.",
            100.0 * p.efficiency,
            crate::render::series::gpus_text(p.gpus)
        ),
        _ => pin::takeaway(a),
    }
}

/// As [`with_figure`], without tracking (event handlers).
fn with_figure_untracked<R>(kind: Kind, lab: &Lab, f: impl FnOnce(Figure<'_>) -> R) -> R {
    untrack(|| with_figure(kind, lab, f))
}

/// One chart with its readout, its table and its CSV.
#[component]
pub fn ChartPanel(
    /// Which chart.
    kind: Kind,
    /// `data-testid` of the canvas.
    testid: &'static str,
    /// Heading.
    title: &'static str,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let area = StoredValue::new(PlotArea::default());
    let size = use_element_size(canvas);
    let dark = use_prefers_dark();
    let hover = RwSignal::new(None::<usize>);

    // Redraws when the data, the canvas's size, projector mode or the system theme change; an
    // off-screen chart once the controls rest or it scrolls into view.
    let track = move || {
        size.width.track();
        size.height.track();
        lab.projector.track();
        dark.track();
        canvas.track();
        with_figure(kind, &lab, |_| ());
        with_pinned(kind, &lab, |_| ());
    };
    let paint = move || {
        let (w, h) = (size.width.get(), size.height.get());
        let Some(c) = canvas.get() else {
            return;
        };
        let t0 = now_ms();
        let dpr = device_pixel_ratio();
        if w < 10.0 || h < 10.0 {
            return;
        }
        // The backend draws in backing-store pixels: size the store to the device pixels.
        size_backing_store(&c, (w, h), dpr);
        let style = Style {
            // A large presenter screen draws the chart's type and lines larger with the page's.
            scale: dpr * lab.presenter_zoom(),
            dark: dark.get(),
            projector: lab.projector.get(),
        };
        let Some(backend) = Canvas::new(c.clone()) else {
            return;
        };
        let root = backend.into_drawing_area();
        let drawn = with_pinned(kind, &lab, |a| {
            with_figure(kind, &lab, |f| draw_with_pin(&root, f, a, &style))
        });
        let _ = root.present();
        match drawn {
            Ok(a) => {
                area.set_value(a);
                // How far down the plot starts (what its legend and margins take), as a share
                // of the canvas's height: for tests and embedding pages.
                let top = f64::from(a.y.0) / f64::from(c.height().max(1));
                let _ = c.set_attribute("data-plot-top", &format!("{top:.3}"));
            }
            Err(e) => leptos::logging::warn!("chart {testid}: {e}"),
        }
        record_perf(testid, now_ms() - t0);
    };
    use_deferred_paint(canvas, track, paint);

    // The point under the mouse, from its x in CSS pixels.
    let nearest = move |css_x: f64| {
        let gpus = area
            .get_value()
            .gpus_at(css_x * device_pixel_ratio(), MAX_X);
        with_figure_untracked(kind, &lab, |f| f.nearest(gpus))
    };
    // The keys move from the chosen count (the first press shows it); Home and End go to the
    // ends.
    let step = move |delta: i64| {
        let chosen = f64::from(lab.scenario.with_untracked(|s| s.gpus));
        let next = with_figure_untracked(kind, &lab, |f| match hover.get_untracked() {
            None => f.nearest(chosen),
            current => f.step(current, delta),
        });
        if let Some(i) = next {
            hover.set(Some(i));
        }
    };
    let to_end = move |last: bool| {
        if let Some(i) =
            with_figure_untracked(kind, &lab, |f| f.step(None, if last { -1 } else { 1 }))
        {
            hover.set(Some(i));
        }
    };
    // The table's rows are formatted only while it is open (hundreds of cells per change
    // otherwise); its header always, so it names the series even when closed, and it changes
    // only when the series do.
    let titles = Memo::new(move |_| {
        let t = with_figure(kind, &lab, |f| f.titles());
        with_pinned(kind, &lab, |a| if a.is_some() { pin::titles(t) } else { t })
    });

    view! {
        <figure class="chart" data-chart=testid>
            <figcaption>
                <h3>{title}</h3>
            </figcaption>
            {(kind == Kind::Compare).then(|| view! { <CompareChooser /> })}
            <div class="canvas-wrap">
                <canvas
                    node_ref=canvas
                    data-testid=testid
                    role="img"
                    tabindex="0"
                    aria-label=move || takeaway(kind, &lab)
                    // The marked counts, for tests and embedding pages.
                    data-fastest=move || marked(kind, &lab, RunData::fastest)
                    data-cheapest=move || marked(kind, &lab, RunData::cheapest)
                    // The count the time-to-train chart rings as chosen (none where the model
                    // does not fit).
                    data-chosen=move || (kind == Kind::TimeToTrain).then(|| {
                        lab.run.with(|d| d.timed_point().map(|p| p.gpus.to_string()))
                    }).flatten()
                    on:mousemove=move |ev| hover.set(nearest(f64::from(ev.offset_x())))
                    on:mouseleave=move |_| hover.set(None)
                    on:blur=move |_| hover.set(None)
                    on:keydown=move |ev| match ev.key().as_str() {
                        "ArrowRight" | "ArrowUp" => { ev.prevent_default(); step(1) }
                        "ArrowLeft" | "ArrowDown" => { ev.prevent_default(); step(-1) }
                        "Home" => { ev.prevent_default(); to_end(false) }
                        "End" => { ev.prevent_default(); to_end(true) }
                        _ => {}
                    }
                ></canvas>
            </div>
            <p class="readout" aria-live="polite" data-testid=format!("{testid}-readout")>
                {move || {
                    match hover.get() {
                        Some(i) => {
                            let (text, gpus) = with_figure(kind, &lab, |f| (f.readout(i), f.gpus(i)));
                            let a = with_pinned(kind, &lab, |a| match (a, gpus) {
                                (Some(a), Some(g)) => pin::readout(a, g, kind == Kind::Speedup),
                                _ => String::new(),
                            });
                            text + &a
                        }
                        None => takeaway(kind, &lab),
                    }
                }}
            </p>
            <DataTable table=Signal::derive(move || table(kind, &lab)) titles=titles.into()
                name=format!("{title}: data table") testid=format!("{testid}-table") file=format!("{testid}.csv") />
            <button type="button" class="png" data-testid=format!("{testid}-png")
                on:click=move |_| download_png(canvas.get_untracked(), &format!("{testid}.png"))>
                "Save as PNG"
            </button>
        </figure>
    }
}

/// Check boxes for the networks the comparison chart draws (at most four: a fifth drops the
/// oldest).
#[component]
fn CompareChooser() -> impl IntoView {
    let lab = expect_context::<Lab>();
    view! {
        <fieldset class="compare-choice">
            <legend>"Networks to compare (up to four)"</legend>
            {crate::model::hardware::NETWORKS.iter().skip(1).map(|n| {
                let id = n.id;
                view! {
                    <label>
                        <input type="checkbox" data-testid=format!("compare-{id}")
                            prop:checked=move || lab.compare_nets.with(|c| c.contains(&id))
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                // The first tick makes the set the reader's own, from what
                                // is drawn now.
                                let mut c = lab.compare_nets.get_untracked();
                                c.retain(|x| *x != id);
                                if on {
                                    c.push(id);
                                    if c.len() > 4 {
                                        c.remove(0);
                                    }
                                }
                                lab.compare.set(Some(c));
                            } />
                        // The name the chart's legend gives it (not its key in the link).
                        {n.name}
                    </label>
                }
            }).collect_view()}
            // A curve drawn exactly under another is named, or its legend entry has no line.
            {move || {
                let same = coinciding(&lab);
                (!same.is_empty()).then(|| view! {
                    <p class="hint" data-testid="compare-coincide">{same}</p>
                })
            }}
            // A network brings its usual NIC count unless the scenario states one: say which,
            // or TCP's one NIC against RDMA's eight reads as the network alone.
            <p class="hint" data-testid="compare-nics">{move || match lab.scenario.with(|s| s.nics) {
                Some(n) => format!("Every network with nics={n}, as the scenario states."),
                None => "Each network with its usual NICs per node: one per GPU (up to 8) over RDMA, one over TCP. State nics to compare the links alone.".to_string(),
            }}</p>
        </fieldset>
    }
}

/// Says which compared networks give the same curve (within 0.5 % at every count), whose
/// lines lie one on the other, by the legend's names: "InfiniBand NDR 400 Gb/s and InfiniBand
/// XDR 800 Gb/s give the same curve here: …". Empty when
/// every curve can be seen.
fn coinciding(lab: &Lab) -> String {
    lab.compare_curves.with(|cs| {
        let same = |a: &[crate::render::series::Point], b: &[crate::render::series::Point]| {
            a.len() == b.len()
                && a.iter().zip(b).all(|(p, q)| {
                    p.gpus == q.gpus
                        && (p.speedup - q.speedup).abs() <= 0.005 * p.speedup.abs().max(1e-9)
                })
        };
        let mut groups: Vec<Vec<&str>> = Vec::new();
        let mut seen = vec![false; cs.len()];
        for i in 0..cs.len() {
            if seen[i] {
                continue;
            }
            let mut g = vec![cs[i].0.name];
            for j in i + 1..cs.len() {
                if !seen[j] && same(&cs[i].1, &cs[j].1) {
                    seen[j] = true;
                    g.push(cs[j].0.name);
                }
            }
            if g.len() > 1 {
                groups.push(g);
            }
        }
        groups
            .iter()
            .map(|g| {
                let (last, rest) = g.split_last().unwrap_or((&"", &[]));
                format!(
                    "{} and {last} give the same curve here: the line drawn last ({last}) hides the {}.",
                    rest.join(", "),
                    if rest.len() > 1 { "others" } else { "other" }
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    })
}
