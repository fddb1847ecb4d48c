//! "How good is this model?": every validation row as a reader sees it (what was measured, in
//! words; the published value; the model's, computed now; the error and the band), the
//! per-group summary, the expected error a headline number carries, and the scatter chart of
//! model against published on log axes. Pure: the page shows the strings and hands a canvas.

use super::charts::{legend_strip, text_width, Glyph, Style};
use super::plot::{decade_count, decade_label, err, DrawResult, Ink};
use super::series::{duration, group as thousands};
use crate::model::collective::Op;
use crate::model::scenario::Scenario;
use crate::model::units::human_bytes;
use crate::validation::{self, Group, Outcome, Set, Summary};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::sync::OnceLock;

/// Every shipped row with the model's answer, evaluated once (about 2 ms natively): the rows
/// and the model are compiled in, so the answers cannot change while the page is open.
pub fn outcomes() -> &'static Result<Vec<Outcome>, String> {
    static CACHE: OnceLock<Result<Vec<Outcome>, String>> = OnceLock::new();
    CACHE.get_or_init(|| validation::rows().map(|r| validation::evaluate(&r)))
}

/// A group's heading on the page.
pub fn group_title(g: Group) -> &'static str {
    match g {
        Group::Collective => "Collectives (nccl-tests)",
        Group::Step => "Training step: throughput, TFLOP/s, MFU",
        Group::Efficiency => "Scaling efficiency",
        Group::Memory => "Memory per GPU",
        Group::Goodput => "Goodput: failures and checkpoints",
    }
}

/// What a group's rows measure, for a sentence ("… published collective measurements").
fn group_noun(g: Group) -> &'static str {
    match g {
        Group::Collective => "collective (nccl-tests)",
        Group::Step => "training-step",
        Group::Efficiency => "scaling-efficiency",
        Group::Memory => "memory-per-GPU",
        Group::Goodput => "goodput",
    }
}

/// The short name of a catalog GPU.
fn gpu_short(id: &str, name: &'static str) -> String {
    match id {
        "rtx4090" => "RTX 4090".to_string(),
        "mi300x" => "MI300X".to_string(),
        "v100" | "a100" | "h100" | "h200" | "b200" => id.to_ascii_uppercase(),
        _ => name.to_string(),
    }
}

/// The collective's name in prose.
pub fn op_name(op: Op) -> &'static str {
    match op {
        Op::AllReduce => "all-reduce",
        Op::AllGather => "all-gather",
        Op::ReduceScatter => "reduce-scatter",
    }
}

/// A parameter count: 1.7 B, 350 M.
fn params(n: f64) -> String {
    if n >= 1e9 {
        format!("{:.1} B", n / 1e9)
    } else {
        format!("{:.0} M", n / 1e6)
    }
}

/// A scenario in words: "all-reduce of 1 GiB on 8 × A100, NVLink 3 + NVSwitch (A100)", "Llama 3
/// 8B on 8 nodes × 8 H100, …, tp 8, BF16". Falls back to the query when it does not parse.
pub fn describe(command: &str, query: &str) -> String {
    let Ok(sc) = Scenario::parse(query) else {
        return query.to_string();
    };
    let Ok(s) = sc.setup() else {
        return query.to_string();
    };
    let gpu = gpu_short(s.gpu.id, s.gpu.name);
    let nodes = s.nodes();
    let cluster = if nodes > 1 {
        let nics = if s.nics > 1 {
            format!(", {} NICs per node", s.nics)
        } else {
            String::new()
        };
        format!(
            "{} nodes × {} {gpu}, {}, {}{nics}",
            thousands(nodes),
            s.per_node,
            s.intra.name,
            s.inter.name
        )
    } else if s.gpus == 1 {
        format!("1 {gpu}")
    } else {
        format!("{} × {gpu}, {}", s.gpus, s.intra.name)
    };
    if command == "collective" {
        let algo = if sc.algo == crate::model::collective::Algo::Auto {
            String::new()
        } else {
            format!(" ({})", sc.algo.name())
        };
        format!(
            "{} of {}{algo} on {cluster}",
            op_name(s.op),
            human_bytes(s.bytes)
        )
    } else {
        let mut w = s.workload.name.to_string();
        if sc.model == crate::model::scenario::Model::Custom {
            w = format!("{w} ({} parameters)", params(s.workload.params));
        }
        let mut extra = Vec::new();
        if s.tp > 1 {
            extra.push(format!("tp {}", s.tp));
        }
        if s.pp > 1 {
            extra.push(format!("pp {}", s.pp));
        }
        extra.push(s.precision.id().to_ascii_uppercase());
        format!("{w} on {cluster}; {}", extra.join(", "))
    }
}

/// A metric's name for a reader.
pub fn metric_label(metric: &str) -> String {
    match metric {
        "busbw_gbs" => "bus bandwidth",
        "algbw_gbs" => "algorithm bandwidth",
        "time_us" => "time",
        "step_ms" => "step time",
        "throughput" => "throughput",
        "tokens_per_gpu_s" => "tokens/s per GPU",
        "tflops_per_gpu" => "TFLOP/s per GPU",
        "mfu" => "MFU",
        "efficiency" => "scaling efficiency",
        "memory_gib_per_gpu" => "memory per GPU",
        "ettr" => "effective training time ratio",
        "mttf_hours" => "mean time to failure",
        "goodput" => "goodput",
        other => return other.replace('_', " "),
    }
    .to_string()
}

/// A value of `metric` with its unit: "229 GB/s", "8.2 ms", "41.3 %".
pub fn format_value(metric: &str, v: f64) -> String {
    let num = |v: f64| {
        if v.abs() >= 1000.0 {
            thousands(v.round().max(0.0) as u32)
        } else if v.abs() >= 100.0 {
            format!("{v:.0}")
        } else if v.abs() >= 10.0 {
            format!("{v:.1}")
        } else {
            format!("{v:.2}")
        }
    };
    match metric {
        "busbw_gbs" | "algbw_gbs" => format!("{} GB/s", num(v)),
        "time_us" => duration(v * 1e-6),
        "step_ms" => duration(v * 1e-3),
        "throughput" => format!("{} samples/s", num(v)),
        "tokens_per_gpu_s" => format!("{} tokens/s", num(v)),
        "tflops_per_gpu" => format!("{} TFLOP/s", num(v)),
        "mfu" | "efficiency" | "ettr" | "goodput" => format!("{:.1}\u{a0}%", 100.0 * v),
        "memory_gib_per_gpu" => format!("{} GiB", num(v)),
        "mttf_hours" => format!("{} h", num(v)),
        _ => num(v),
    }
}

/// A relative error as "+7.2 %".
pub fn percent(e: f64) -> String {
    format!("{:+.1}\u{a0}%", 100.0 * e)
}

/// A piece of a source's citation: text, or a web address written out in it (made a link; the
/// page itself fetches nothing).
#[derive(Clone, Debug, PartialEq)]
pub enum Segment {
    /// Plain text.
    Text(String),
    /// An `http(s)://` address as written.
    Link(String),
}

/// Splits a citation into text and the web addresses written in it.
pub fn segments(source: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut rest = source;
    while let Some(i) = ["https://", "http://"]
        .iter()
        .filter_map(|p| rest.find(p))
        .min()
    {
        if i > 0 {
            out.push(Segment::Text(rest[..i].to_string()));
        }
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| c.is_whitespace() || c == ')' || c == ',' || c == ';' || c == '"')
            .unwrap_or(tail.len());
        let url = tail[..end].trim_end_matches('.');
        out.push(Segment::Link(url.to_string()));
        rest = &tail[url.len()..];
    }
    if !rest.is_empty() {
        out.push(Segment::Text(rest.to_string()));
    }
    out
}

/// One row of the table, as text.
#[derive(Clone, Debug, PartialEq)]
pub struct TableRow {
    /// Row id.
    pub id: String,
    /// Group.
    pub group: Group,
    /// Calibration or held-out.
    pub set: Set,
    /// What was measured: the metric's name.
    pub metric: String,
    /// The measured configuration in words.
    pub what: String,
    /// The scenario string (the explorer opens it).
    pub query: String,
    /// Published value with its unit.
    pub published: String,
    /// The model's value with its unit, or why it has none.
    pub model: String,
    /// Relative error, or "—".
    pub error: String,
    /// The relative error as a number.
    pub error_value: Option<f64>,
    /// The source's band: "206 – 252 GB/s".
    pub band: String,
    /// Whether the model lands inside the band.
    pub inside: bool,
    /// The citation.
    pub source: Vec<Segment>,
    /// Why the model misses, for a known miss.
    pub miss: Option<String>,
}

/// The table's rows, in the files' order (calibration first).
pub fn table_rows(outcomes: &[Outcome]) -> Vec<TableRow> {
    outcomes
        .iter()
        .map(|o| {
            let r = &o.row;
            let m = r.metric.as_str();
            TableRow {
                id: r.id.clone(),
                group: r.group,
                set: r.set,
                metric: metric_label(m),
                what: describe(&r.command, &r.query),
                query: r.query.clone(),
                published: format_value(m, r.published),
                model: match &o.model {
                    Ok(v) => format_value(m, *v),
                    Err(e) => format!("no value: {e}"),
                },
                error: o.error().map_or_else(|| "—".to_string(), percent),
                error_value: o.error(),
                band: format!("{} – {}", format_value(m, r.low), format_value(m, r.high)),
                inside: o.inside(),
                source: segments(&r.source),
                miss: r.miss.clone(),
            }
        })
        .collect()
}

/// Text made safe inside HTML text and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The whole table (caption, header, one `<tbody>` per group) as HTML: its rows never change
/// while the page is open, and as markup they cost the wasm a fraction of what as many
/// components would. Every text is escaped. A scenario link carries its query in
/// `data-query` (the page opens it in the explorer) and, `embedded`, opens the full app in a
/// new tab instead; `swatch` gives a group's colour as CSS.
pub fn table_html(rows: &[TableRow], embedded: bool, swatch: impl Fn(Group) -> String) -> String {
    let mut h = String::from(
        "<caption>Every validation row, by group</caption><thead><tr>\
         <th scope=\"col\">Measured</th><th scope=\"col\">Published</th>\
         <th scope=\"col\">Model (now)</th><th scope=\"col\">Error</th>\
         <th scope=\"col\">Band</th><th scope=\"col\">Set</th>\
         <th scope=\"col\">Source</th></tr></thead>",
    );
    for g in Group::ALL {
        let these: Vec<&TableRow> = rows.iter().filter(|r| r.group == g).collect();
        if these.is_empty() {
            continue;
        }
        h.push_str(&format!(
            "<tbody><tr class=\"vgroup-row\"><th scope=\"colgroup\" colspan=\"7\">\
             <span class=\"swatch\" style=\"background:{}\"></span>{} — {} rows</th></tr>",
            escape(&swatch(g)),
            escape(group_title(g)),
            these.len()
        ));
        for r in these {
            let link = if embedded {
                format!(
                    "<a href=\"./#{q}\" target=\"_blank\" rel=\"noopener\">{}</a>",
                    escape(&r.what),
                    q = escape(&r.query)
                )
            } else {
                format!(
                    "<a href=\"#{q}\" data-query=\"{q}\" title=\"Open this scenario in the explorer\">{}</a>",
                    escape(&r.what),
                    q = escape(&r.query)
                )
            };
            let source: String = r
                .source
                .iter()
                .map(|s| match s {
                    Segment::Text(t) => escape(t),
                    Segment::Link(u) => format!(
                        "<a href=\"{u}\" rel=\"noopener noreferrer\" target=\"_blank\">{u}</a>",
                        u = escape(u)
                    ),
                })
                .collect();
            let miss = r
                .miss
                .as_ref()
                .map(|m| {
                    // Folded: the reasons run to paragraphs, and open they made rows 700 px
                    // tall.
                    format!(
                        "<details class=\"vmiss\"><summary><strong>Known miss</strong>: why</summary><p>{}</p></details>",
                        escape(m)
                    )
                })
                .unwrap_or_default();
            let (err_class, flag) = if r.inside {
                ("inside", "inside band")
            } else {
                ("outside", "outside band")
            };
            h.push_str(&format!(
                "<tr data-testid=\"validation-row\" data-id=\"{id}\" data-group=\"{group}\" data-set=\"{set}\"{miss_class}>\
                 <th scope=\"row\" class=\"vwhat\" data-label=\"Measured\"><span class=\"vmetric\">{metric}</span> of {link}<code class=\"vid\">{id}</code></th>\
                 <td class=\"vnum\" data-label=\"Published\">{published}</td>\
                 <td class=\"vnum\" data-label=\"Model (now)\" data-testid=\"validation-model\">{model}</td>\
                 <td class=\"verr {err_class}\" data-label=\"Error\">{error}<span class=\"vband-flag\">{flag}</span></td>\
                 <td class=\"vnum vband\" data-label=\"Band\">{band}</td>\
                 <td data-label=\"Set\"><span class=\"vset {set}\">{set}</span></td>\
                 <td class=\"vsource\" data-label=\"Source\">{source}{miss}</td></tr>",
                id = escape(&r.id),
                group = g.id(),
                set = r.set.name(),
                miss_class = if r.miss.is_some() { " class=\"miss\"" } else { "" },
                metric = escape(&r.metric),
                published = escape(&r.published),
                model = escape(&r.model),
                error = escape(&r.error),
                band = escape(&r.band),
            ));
        }
        h.push_str("</tbody>");
    }
    h
}

/// A group's errors on the page.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupSummary {
    /// The group.
    pub group: Group,
    /// Its held-out errors, when it has held-out rows.
    pub held_out: Option<Summary>,
    /// Its calibration errors, when it has calibration rows.
    pub calibration: Option<Summary>,
}

impl GroupSummary {
    /// The held-out sentence: "26 held-out rows: mean absolute error 15.6 %, worst
    /// ar-8xpcie5-large (+71.0 %); 17 inside the source's band."
    pub fn held_out_text(&self) -> String {
        match &self.held_out {
            Some(s) => {
                let worst = s
                    .worst
                    .as_ref()
                    .filter(|_| s.rows > 1)
                    .map(|(id, e)| format!(", worst {id} ({})", percent(*e)))
                    .unwrap_or_default();
                format!(
                    "{} held-out row{}: mean absolute error {:.1}\u{a0}%{worst}; {} of {} inside the source's band.",
                    s.rows,
                    if s.rows == 1 { "" } else { "s" },
                    100.0 * s.mean_abs,
                    s.inside,
                    s.rows
                )
            }
            None => "No held-out rows yet: every row of this group was used for fitting.".into(),
        }
    }

    /// The calibration sentence, empty without calibration rows.
    pub fn calibration_text(&self) -> String {
        self.calibration
            .as_ref()
            .map(|s| {
                format!(
                    "{} calibration row{} (constants were fitted on {}): mean absolute error {:.1}\u{a0}%.",
                    s.rows,
                    if s.rows == 1 { "" } else { "s" },
                    if s.rows == 1 { "it" } else { "them" },
                    100.0 * s.mean_abs
                )
            })
            .unwrap_or_default()
    }
}

/// Per group, in report order, its held-out and calibration errors.
pub fn group_summaries(outcomes: &[Outcome]) -> Vec<GroupSummary> {
    let all = validation::summarize(outcomes);
    let find = |g: Group, set: Set| all.iter().find(|s| s.group == g && s.set == set).cloned();
    Group::ALL
        .into_iter()
        .map(|g| GroupSummary {
            group: g,
            held_out: find(g, Set::HeldOut),
            calibration: find(g, Set::Calibration),
        })
        .filter(|s| s.held_out.is_some() || s.calibration.is_some())
        .collect()
}

/// The expected error a headline number carries: its group's held-out mean absolute error.
#[derive(Clone, Debug, PartialEq)]
pub struct Expected {
    /// The group it comes from.
    pub group: Group,
    /// Mean absolute relative error.
    pub mean_abs: f64,
    /// Held-out rows behind it.
    pub rows: usize,
    /// The mean signed error when the model errs the same way on every held-out row.
    pub lean: Option<f64>,
    /// What the page shows: "±16 %", with the row count when there are fewer than three, or
    /// "−16 % (reads low)" when every row errs the same way.
    pub label: String,
    /// The sentence behind it (the link's title and accessible name).
    pub title: String,
}

/// The expected error of a number from `group`: `None` when the group has no held-out row.
pub fn expected_error(outcomes: &[Outcome], group: Group) -> Option<Expected> {
    let s = validation::summarize(outcomes)
        .into_iter()
        .find(|s| s.group == group && s.set == Set::HeldOut)?;
    let pct = 100.0 * s.mean_abs;
    let pct_text = format!("{pct:.0}");
    let way = |e: f64| if e < 0.0 { "low" } else { "high" };
    let label = if let Some(e) = s.lean.filter(|_| s.rows >= 3) {
        format!(
            "{}{pct_text}\u{a0}% (reads {})",
            if e < 0.0 { '−' } else { '+' },
            way(e)
        )
    } else if s.rows < 3 {
        format!(
            "±{pct_text}\u{a0}% ({} row{})",
            s.rows,
            if s.rows == 1 { "" } else { "s" }
        )
    } else {
        format!("±{pct_text}\u{a0}%")
    };
    let title = format!(
        "Expected error ±{pct_text}\u{a0}%: the model's mean absolute error on {} held-out published {} measurement{}{}. See how good the model is.",
        s.rows,
        group_noun(group),
        if s.rows == 1 { "" } else { "s" },
        match s.lean {
            Some(e) if s.rows > 1 => format!(", and it reads {} on every one", way(e)),
            _ => String::new(),
        }
    );
    Some(Expected {
        group,
        mean_abs: s.mean_abs,
        rows: s.rows,
        lean: s.lean,
        label,
        title,
    })
}

/// One point of the scatter chart.
#[derive(Clone, Debug, PartialEq)]
pub struct ScatterPoint {
    /// Row id.
    pub id: String,
    /// Group (colour and marker).
    pub group: Group,
    /// Calibration (hollow marker) or held-out (filled).
    pub set: Set,
    /// Published value.
    pub published: f64,
    /// Model value.
    pub model: f64,
}

/// The rows with a positive published and model value (a log axis needs both).
pub fn scatter_points(outcomes: &[Outcome]) -> Vec<ScatterPoint> {
    outcomes
        .iter()
        .filter_map(|o| {
            let m = *o.model.as_ref().ok()?;
            (m > 0.0 && o.row.published > 0.0).then(|| ScatterPoint {
                id: o.row.id.clone(),
                group: o.row.group,
                set: o.row.set,
                published: o.row.published,
                model: m,
            })
        })
        .collect()
}

/// The scatter chart's message (its accessible name).
pub fn scatter_takeaway(outcomes: &[Outcome]) -> String {
    let pts = scatter_points(outcomes);
    let within = |k: f64| {
        pts.iter()
            .filter(|p| (p.model / p.published - 1.0).abs() <= k)
            .count()
    };
    format!(
        "Model against published for {} rows on log axes: {} within ±10\u{a0}% of the line y = x, {} within ±25\u{a0}%; the rest are the known misses listed in the table.",
        pts.len(),
        within(0.10),
        within(0.25)
    )
}

/// A group's colour on a light or dark background (Okabe & Ito hues, lightened for dark).
pub fn group_colour(g: Group, dark: bool) -> RGBColor {
    match (g, dark) {
        (Group::Collective, false) => RGBColor(0, 114, 178),
        (Group::Collective, true) => RGBColor(86, 180, 233),
        (Group::Step, false) => RGBColor(213, 94, 0),
        (Group::Step, true) => RGBColor(240, 150, 60),
        (Group::Efficiency, false) => RGBColor(0, 140, 100),
        (Group::Efficiency, true) => RGBColor(0, 200, 150),
        (Group::Memory, false) => RGBColor(170, 70, 140),
        (Group::Memory, true) => RGBColor(224, 140, 190),
        (Group::Goodput, false) => RGBColor(130, 110, 0),
        (Group::Goodput, true) => RGBColor(240, 228, 66),
    }
}

/// A group's marker as a legend glyph's corners ([`marker_shape`] for that group).
fn marker_of(g: Group) -> fn(i32) -> Vec<(i32, i32)> {
    match g {
        Group::Collective => |r| marker_shape(Group::Collective, r),
        Group::Step => |r| marker_shape(Group::Step, r),
        Group::Efficiency => |r| marker_shape(Group::Efficiency, r),
        Group::Memory => |r| marker_shape(Group::Memory, r),
        Group::Goodput => |r| marker_shape(Group::Goodput, r),
    }
}

/// The marker of a group as a polygon around (0, 0) in pixels, so colour is not the only cue:
/// circle, triangle, square, diamond, plus.
pub fn marker_shape(g: Group, r: i32) -> Vec<(i32, i32)> {
    let r = r.max(2);
    match g {
        Group::Collective => (0..12)
            .map(|k| {
                let a = f64::from(k) * std::f64::consts::PI / 6.0;
                (
                    (f64::from(r) * a.cos()).round() as i32,
                    (f64::from(r) * a.sin()).round() as i32,
                )
            })
            .collect(),
        Group::Step => vec![(0, -r - 1), (r + 1, r), (-r - 1, r)],
        Group::Efficiency => vec![(-r, -r), (r, -r), (r, r), (-r, r)],
        Group::Memory => vec![(0, -r - 1), (r + 1, 0), (0, r + 1), (-r - 1, 0)],
        Group::Goodput => {
            let t = (r / 3).max(1);
            vec![
                (-t, -r),
                (t, -r),
                (t, -t),
                (r, -t),
                (r, t),
                (t, t),
                (t, r),
                (-t, r),
                (-t, t),
                (-r, t),
                (-r, -t),
                (-t, -t),
            ]
        }
    }
}

/// The shape closed, for an outline.
fn closed(mut v: Vec<(i32, i32)>) -> Vec<(i32, i32)> {
    if let Some(first) = v.first().copied() {
        v.push(first);
    }
    v
}

/// Model against published, log–log, with y = x and the ±25 % lines; one colour and marker per
/// group, calibration rows hollow.
pub fn draw_scatter<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    points: &[ScatterPoint],
    st: &Style,
) -> DrawResult<()> {
    let fg = st.fg();
    // The dashed ±25 % lines' grey, as an opaque colour for the legend.
    let (f, b) = (fg, st.bg());
    let mix = |x: u8, y: u8| (0.45 * f64::from(x) + 0.55 * f64::from(y)).round() as u8;
    let grey = RGBColor(mix(f.0, b.0), mix(f.1, b.1), mix(f.2, b.2));
    // The legend in rows above the plot: in its upper left corner it covered the rows along
    // the diagonal on a phone.
    let mut entries: Vec<(String, Glyph)> = vec![
        (
            "y = x: model equals published".into(),
            Glyph::Line(fg, false),
        ),
        ("±25\u{a0}%".into(), Glyph::Line(grey, true)),
    ];
    for g in Group::ALL {
        if points.iter().any(|p| p.group == g) {
            entries.push((
                g.id().into(),
                Glyph::Marker(group_colour(g, st.dark), marker_of(g)),
            ));
        }
    }
    let root = &legend_strip(root, &entries, st)?;
    let (mut lo, mut hi) = points
        .iter()
        .flat_map(|p| [p.published, p.model])
        .fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    if !(lo.is_finite() && hi > lo) {
        (lo, hi) = (0.1, 10.0);
    }
    // Both axes log₁₀.
    let (a, b) = ((lo / 2.0).log10(), (hi * 2.0).log10());
    let (margin, y_labels) = (st.px(12.0), st.px(52.0));
    // The x axis's name is centred under the plot: on a phone's width the long one ran off the
    // canvas's right edge.
    let plot_w = i64::from(root.dim_in_pixel().0) - 2 * i64::from(margin) - i64::from(y_labels);
    let x_desc = [
        "published (each row in its own unit)",
        "published (own units)",
    ]
    .into_iter()
    .find(|d| i64::from(text_width(d, st.font(13.0))) <= plot_w)
    .unwrap_or("published");
    let mut chart = ChartBuilder::on(root)
        .margin(margin)
        .x_label_area_size(st.px(40.0))
        .y_label_area_size(y_labels)
        .build_cartesian_2d(a..b, a..b)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc("model")
        .x_labels(decade_count(a, b))
        .y_labels(decade_count(a, b))
        .x_label_formatter(&decade_label)
        .y_label_formatter(&decade_label)
        .label_style(("sans-serif", st.font(12.0)).into_font().color(&fg))
        .axis_desc_style(("sans-serif", st.font(13.0)).into_font().color(&fg))
        .axis_style(fg.stroke_width(st.px(1.0)))
        .bold_line_style(fg.mix(0.12))
        .light_line_style(fg.mix(0.0))
        .draw()
        .map_err(err)?;
    let w = st.px(1.5);
    chart
        .draw_series(LineSeries::new([(a, a), (b, b)], fg.stroke_width(w)))
        .map_err(err)?;
    let band = fg.mix(0.45);
    for k in [1.25f64, 0.75] {
        // The part of y = x + k inside the square: plotters clamps points outside the plot to
        // its edge, which bent the line onto y = x at one end.
        let k = k.log10();
        let ends = if k > 0.0 {
            [(a, a + k), (b - k, b)]
        } else {
            [(a - k, a), (b, b + k)]
        };
        chart
            .draw_series(DashedLineSeries::new(
                ends,
                st.px(5.0),
                st.px(4.0),
                band.stroke_width(st.px(1.0)),
            ))
            .map_err(err)?;
    }
    let r = st.px(4.0) as i32;
    let sw = st.px(1.5);
    for g in Group::ALL {
        let colour = group_colour(g, st.dark);
        let at = |set: Set| {
            points
                .iter()
                .filter(move |p| p.group == g && p.set == set)
                .map(|p| (p.published.log10(), p.model.log10()))
        };
        if at(Set::HeldOut).next().is_none() && at(Set::Calibration).next().is_none() {
            continue;
        }
        // Calibration rows hollow, held-out rows filled.
        chart
            .draw_series(at(Set::Calibration).map(|c| {
                EmptyElement::at(c)
                    + PathElement::new(closed(marker_shape(g, r)), colour.stroke_width(sw))
            }))
            .map_err(err)?;
        chart
            .draw_series(
                at(Set::HeldOut).map(|c| {
                    EmptyElement::at(c) + Polygon::new(marker_shape(g, r), colour.filled())
                }),
            )
            .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::plot::recorder::record;
    use super::*;

    fn all() -> &'static [Outcome] {
        outcomes().as_ref().expect("shipped rows parse")
    }

    #[test]
    fn every_row_becomes_a_table_row_with_the_models_value() {
        let n = validation::rows().unwrap().len();
        let rows = table_rows(all());
        assert_eq!(rows.len(), n, "no row may be missing from the page");
        for r in &rows {
            assert!(
                !r.what.contains("gpus="),
                "{}: scenario not in words: {}",
                r.id,
                r.what
            );
            assert!(!r.model.starts_with("no value"), "{}: {}", r.id, r.model);
            assert!(r.error.ends_with('%'), "{}: {}", r.id, r.error);
        }
        // A known miss keeps its reason; a row inside its band has none.
        assert!(rows.iter().any(|r| r.miss.is_some() && !r.inside));
    }

    #[test]
    fn scenarios_read_as_words() {
        assert_eq!(
            describe(
                "collective",
                "op=allreduce&gpus=8&per_node=8&gpu=a100&intra=nvlink3&algo=ring&bytes=1GiB"
            ),
            "all-reduce of 1 GiB (ring) on 8 × A100, NVLink 3 + NVSwitch (A100)"
        );
        let multi = describe(
            "step",
            "model=llama3-8b&gpus=64&per_node=8&gpu=h100&inter=ib-ndr&nics=8&tp=8&precision=fp8",
        );
        assert!(
            multi.starts_with("Llama 3 8B on 8 nodes × 8 H100"),
            "{multi}"
        );
        assert!(
            multi.contains("InfiniBand NDR") && multi.contains("tp 8, FP8"),
            "{multi}"
        );
        let custom = describe(
            "step",
            "model=custom&layers=24&hidden=2304&heads=24&gpus=32&gpu=a100",
        );
        assert!(custom.contains("parameters"), "{custom}");
        assert_eq!(describe("step", "gpus=banana"), "gpus=banana");
    }

    #[test]
    fn values_carry_their_units() {
        assert_eq!(format_value("busbw_gbs", 229.04), "229 GB/s");
        assert_eq!(format_value("time_us", 8203.9), "8.2 ms");
        assert_eq!(format_value("step_ms", 929.6), "929.6 ms");
        assert_eq!(metric_label("step_ms"), "step time");
        assert_eq!(format_value("mfu", 0.413), "41.3\u{a0}%");
        assert_eq!(format_value("tokens_per_gpu_s", 16930.0), "16,930 tokens/s");
        assert_eq!(percent(0.072), "+7.2\u{a0}%");
        assert_eq!(percent(-0.477), "-47.7\u{a0}%");
    }

    #[test]
    fn only_written_out_addresses_become_links() {
        assert_eq!(
            segments("NVIDIA GTC 2017 (read off a chart)"),
            vec![Segment::Text("NVIDIA GTC 2017 (read off a chart)".into())]
        );
        assert_eq!(
            segments("see https://example.org/a.pdf, table 2"),
            vec![
                Segment::Text("see ".into()),
                Segment::Link("https://example.org/a.pdf".into()),
                Segment::Text(", table 2".into())
            ]
        );
    }

    #[test]
    fn the_table_is_escaped_markup_with_a_row_per_validation_row() {
        let rows = table_rows(all());
        let html = table_html(&rows, false, |_| "red".into());
        assert_eq!(
            html.matches("data-testid=\"validation-row\"").count(),
            rows.len()
        );
        assert_eq!(html.matches("<tbody>").count(), Group::ALL.len());
        assert_eq!(
            html.matches("class=\"vmiss\"").count(),
            rows.iter().filter(|r| r.miss.is_some()).count()
        );
        // Scenario links open in the page; in an embed, in a new tab of the full app.
        assert!(html.contains("data-query=\"op=allreduce&amp;gpus=8"));
        let embedded = table_html(&rows, true, |_| "red".into());
        assert!(!embedded.contains("data-query") && embedded.contains("href=\"./#"));
        // Nothing from the files can open a tag.
        assert_eq!(
            escape("<a href=\"x\">R&D's</a>"),
            "&lt;a href=&quot;x&quot;&gt;R&amp;D&#39;s&lt;/a&gt;"
        );
        let mut odd = rows[0].clone();
        odd.what = "<script>".into();
        assert!(!table_html(&[odd], false, |_| "red".into()).contains("<script>"));
    }

    #[test]
    fn groups_summarise_held_out_rows_and_give_the_expected_error() {
        let sums = group_summaries(all());
        let collective = sums.iter().find(|s| s.group == Group::Collective).unwrap();
        let h = collective.held_out.as_ref().unwrap();
        assert!(collective.held_out_text().contains("mean absolute error"));
        assert!(collective
            .held_out_text()
            .contains(&format!("{} held-out rows", h.rows)));
        let e = expected_error(all(), Group::Collective).unwrap();
        assert!((e.mean_abs - h.mean_abs).abs() < 1e-12);
        assert!(
            e.label.starts_with('±') && e.label.ends_with('%'),
            "{}",
            e.label
        );
        assert!(e.title.contains("held-out"));
        // A group with one held-out row says so beside the number.
        let goodput = expected_error(all(), Group::Goodput).unwrap();
        assert!(goodput.label.contains("1 row"), "{}", goodput.label);
        let eff = expected_error(all(), Group::Efficiency).unwrap();
        assert!(!eff.label.contains("row"), "{}", eff.label);
        // Where the model errs the same way on every row, the number says which way.
        let memory = expected_error(all(), Group::Memory).unwrap();
        let lean = memory.lean.expect("memory reads low on every held-out row");
        assert!(lean < 0.0);
        assert!(memory.label.ends_with("(reads low)"), "{}", memory.label);
    }

    #[test]
    fn scatter_has_a_point_per_row_and_draws_every_group() {
        let pts = scatter_points(all());
        assert_eq!(pts.len(), all().len());
        assert!(scatter_takeaway(all()).contains(&format!("{} rows", pts.len())));
        for dark in [false, true] {
            let st = Style {
                scale: 2.0,
                dark,
                projector: false,
            };
            let log = record(|root| draw_scatter(root, &pts, &st));
            for g in Group::ALL {
                assert!(log.texts.iter().any(|t| t == g.id()), "{} missing", g.id());
            }
            assert!(log.texts.iter().any(|t| t == "model"));
            // The legend is a strip above the plot, drawn before it: boxed in the plot's upper
            // left after the points, it covered the rows along the diagonal on a phone.
            let at = |f: &dyn Fn(&String) -> bool| log.texts.iter().position(f).unwrap();
            assert!(at(&|t| t.starts_with("y = x")) < at(&|t| t == "model"));
        }
        // Light and dark colours differ for every group, and are distinct within a theme.
        for dark in [false, true] {
            let cs: Vec<RGBColor> = Group::ALL.iter().map(|g| group_colour(*g, dark)).collect();
            for (i, a) in cs.iter().enumerate() {
                assert!(cs[i + 1..].iter().all(|b| b != a));
            }
        }
    }
}
