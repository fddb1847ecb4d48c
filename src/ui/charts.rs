//! Chart panels: a crisp canvas drawn by the render layer, a hover/keyboard readout, the takeaway
//! as the canvas's accessible name, and a data table with CSV export.

use super::browser::{device_pixel_ratio, download, download_png, now_ms, record_perf};
use super::hooks::{use_element_size, use_prefers_dark};
use super::state::Lab;
use crate::render::charts::{
    draw_breakdown, draw_compare, draw_efficiency, draw_speedup, PlotArea, Style,
};
use crate::render::series::{group, parts, ScalingData, PARTS};
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

/// Which chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Speedup,
    Efficiency,
    Breakdown,
    Compare,
}

fn readout(kind: Kind, lab: &Lab, i: usize) -> String {
    match kind {
        Kind::Compare => lab.compare_curves.with(|cs| {
            let n = cs.first().and_then(|(_, p)| p.get(i)).map(|p| p.gpus);
            let vals: Vec<String> = cs
                .iter()
                .filter_map(|(net, pts)| {
                    pts.get(i).map(|p| format!("{} {:.1}×", net.id, p.speedup))
                })
                .collect();
            format!(
                "{} GPUs: {}",
                n.map(group).unwrap_or_default(),
                vals.join(", ")
            )
        }),
        _ => lab.curve.with(|d| {
            let Some(p) = d.points.get(i) else {
                return String::new();
            };
            let head = format!("{} GPUs", group(p.gpus));
            let oom = if p.fits {
                ""
            } else {
                " — does not fit in memory"
            };
            match kind {
                Kind::Speedup => format!(
                    "{head}: {:.1}× (ideal {}×, Amdahl {:.1}×){oom}",
                    p.speedup,
                    group(p.gpus),
                    crate::model::sweep::amdahl(d.serial_fraction, f64::from(p.gpus))
                ),
                Kind::Efficiency => format!("{head}: {:.1} % efficient{oom}", 100.0 * p.efficiency),
                _ => {
                    let t = p.breakdown.total();
                    let s: Vec<String> = PARTS
                        .iter()
                        .zip(parts(&p.breakdown))
                        .filter(|(_, v)| *v / t > 0.005)
                        .map(|(n, v)| format!("{n} {:.0} %", 100.0 * v / t))
                        .collect();
                    format!("{head}: {}", s.join(", "))
                }
            }
        }),
    }
}

fn point_count(kind: Kind, lab: &Lab) -> usize {
    match kind {
        Kind::Compare => lab
            .compare_curves
            .with(|c| c.first().map(|(_, p)| p.len()).unwrap_or(0)),
        _ => lab.curve.with(|d| d.points.len()),
    }
}

fn gpus_at_index(kind: Kind, lab: &Lab, i: usize) -> Option<u32> {
    match kind {
        Kind::Compare => lab
            .compare_curves
            .with(|c| c.first().and_then(|(_, p)| p.get(i)).map(|p| p.gpus)),
        _ => lab.curve.with(|d| d.points.get(i).map(|p| p.gpus)),
    }
}

fn takeaway(kind: Kind, lab: &Lab) -> String {
    match kind {
        Kind::Speedup => lab.curve.with(ScalingData::speedup_takeaway),
        Kind::Efficiency => lab.curve.with(ScalingData::efficiency_takeaway),
        Kind::Breakdown => lab.curve.with(ScalingData::breakdown_takeaway),
        Kind::Compare => lab.compare_curves.with(|cs| {
            let parts: Vec<String> = cs
                .iter()
                .filter_map(|(n, pts)| {
                    pts.iter().rev().find(|p| p.efficiency >= 0.5).map(|p| {
                        format!(
                            "{} keeps half efficiency up to {} GPUs",
                            n.name,
                            group(p.gpus)
                        )
                    })
                })
                .collect();
            if parts.is_empty() {
                "No network keeps half efficiency beyond one GPU.".to_string()
            } else {
                parts.join("; ") + "."
            }
        }),
    }
}

fn csv(kind: Kind, lab: &Lab) -> String {
    match kind {
        Kind::Compare => lab.compare_curves.with(|cs| {
            let mut s = String::from("gpus");
            for (n, _) in cs {
                s.push_str(&format!(",{}_speedup", n.id));
            }
            s.push('\n');
            let len = cs.first().map(|(_, p)| p.len()).unwrap_or(0);
            for i in 0..len {
                let g = cs[0].1[i].gpus;
                s.push_str(&g.to_string());
                for (_, pts) in cs {
                    s.push_str(&format!(
                        ",{}",
                        pts.get(i)
                            .map(|p| format!("{:.4}", p.speedup))
                            .unwrap_or_default()
                    ));
                }
                s.push('\n');
            }
            s
        }),
        _ => lab.curve.with(ScalingData::csv),
    }
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
    let table_open = RwSignal::new(false);

    // Redraws when the data, the canvas's size, projector mode or the system theme change.
    Effect::new(move |_| {
        let (w, h) = (size.width.get(), size.height.get());
        let projector = lab.projector.get();
        let dark = dark.get();
        let Some(c) = canvas.get() else {
            return;
        };
        let t0 = now_ms();
        let dpr = device_pixel_ratio();
        if w < 10.0 || h < 10.0 {
            return;
        }
        // plotters-canvas draws in backing-store pixels: size the store to the device pixels.
        // Only when it changed: resizing invalidates layout, and the next canvas's size read
        // would force a reflow of the whole page.
        let (pw, ph) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
        if c.width() != pw || c.height() != ph {
            c.set_width(pw);
            c.set_height(ph);
        }
        let style = Style {
            scale: dpr,
            dark,
            projector,
        };
        let Some(backend) = CanvasBackend::with_canvas_object(c.clone()) else {
            return;
        };
        let root = backend.into_drawing_area();
        let drawn = match kind {
            Kind::Speedup => lab.curve.with(|d| draw_speedup(&root, d, &style)),
            Kind::Efficiency => lab.curve.with(|d| draw_efficiency(&root, d, &style)),
            Kind::Breakdown => lab.curve.with(|d| draw_breakdown(&root, d, &style)),
            Kind::Compare => lab
                .compare_curves
                .with(|cs| draw_compare(&root, cs, &style)),
        };
        let _ = root.present();
        match drawn {
            Ok(a) => area.set_value(a),
            Err(e) => leptos::logging::warn!("chart {testid}: {e}"),
        }
        record_perf(testid, now_ms() - t0);
    });

    let nearest = move |css_x: f64| {
        let dpr = device_pixel_ratio();
        let n = area.get_value().gpus_at(css_x * dpr, 65536.0);
        (0..point_count(kind, &lab))
            .filter_map(|i| {
                gpus_at_index(kind, &lab, i).map(|g| (i, (f64::from(g).log2() - n.log2()).abs()))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    };
    let step = move |delta: i64| {
        let len = point_count(kind, &lab) as i64;
        if len == 0 {
            return;
        }
        let start = hover
            .get_untracked()
            .map(|i| i as i64)
            .unwrap_or(if delta > 0 { -1 } else { len });
        hover.set(Some((start + delta).clamp(0, len - 1) as usize));
    };

    view! {
        <figure class="chart">
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
                    on:mousemove=move |ev| hover.set(nearest(f64::from(ev.offset_x())))
                    on:mouseleave=move |_| hover.set(None)
                    on:blur=move |_| hover.set(None)
                    on:keydown=move |ev| match ev.key().as_str() {
                        "ArrowRight" | "ArrowUp" => { ev.prevent_default(); step(1) }
                        "ArrowLeft" | "ArrowDown" => { ev.prevent_default(); step(-1) }
                        _ => {}
                    }
                ></canvas>
            </div>
            <p class="readout" aria-live="polite" data-testid=format!("{testid}-readout")>
                {move || match hover.get() {
                    Some(i) => readout(kind, &lab, i),
                    None => takeaway(kind, &lab),
                }}
            </p>
            // The table's rows are built only while it is open (hundreds of cells per change
            // otherwise); its header always, so it names the series even when closed.
            <details class="table" on:toggle=move |_| table_open.update(|o| *o = !*o)>
                <summary>"Data table"</summary>
                <div class="table-scroll">
                    <table data-testid=format!("{testid}-table")>
                        {move || {
                            let text = csv(kind, &lab);
                            let mut lines = text.lines();
                            let head = lines.next().unwrap_or_default().to_string();
                            let rows: Vec<String> = if table_open.get() {
                                lines.map(str::to_string).collect()
                            } else {
                                Vec::new()
                            };
                            view! {
                                <thead><tr>
                                    {head.split(',').map(|h| view! { <th scope="col">{h.replace('_', " ")}</th> }).collect_view()}
                                </tr></thead>
                                <tbody>
                                    {rows.into_iter().map(|r| view! {
                                        <tr>{r.split(',').map(|v| view! { <td>{v.to_string()}</td> }).collect_view()}</tr>
                                    }).collect_view()}
                                </tbody>
                            }
                        }}
                    </table>
                </div>
                <button type="button" on:click=move |_| download(&format!("{testid}.csv"), "text/csv", &csv(kind, &lab))>
                    "Download CSV"
                </button>
            </details>
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
                            prop:checked=move || lab.compare.with(|c| c.contains(&id))
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                lab.compare.update(|c| {
                                    c.retain(|x| *x != id);
                                    if on {
                                        c.push(id);
                                        if c.len() > 4 {
                                            c.remove(0);
                                        }
                                    }
                                });
                            } />
                        {n.id}
                    </label>
                }
            }).collect_view()}
        </fieldset>
    }
}
