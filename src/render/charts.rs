//! The scaling charts, drawn over any plotters backend (the canvas in the page, a recording mock
//! in tests). Sizes are in device pixels: `Style::scale` is the devicePixelRatio (× projector
//! zoom) so fonts, margins and strokes stay crisp and readable.

use super::figure::Figure;
use super::plot::Ink;
use super::series::{gpus_text, group, share_text, Point, ScalingData};
use super::train::{money, RunData, TimeShares, RUN_PARTS};
use crate::model::hardware::Network;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Colour-blind-safe palette (Okabe & Ito 2008): black, orange, sky blue, bluish green,
/// vermillion, blue, reddish purple, yellow.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 0, 0),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 158, 115),
    RGBColor(213, 94, 0),
    RGBColor(0, 114, 178),
    RGBColor(204, 121, 167),
    RGBColor(240, 228, 66),
];

/// How to draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Style {
    /// Device pixels per CSS pixel (and projector zoom).
    pub scale: f64,
    /// Dark background.
    pub dark: bool,
    /// Thicker lines and larger type for a projector.
    pub projector: bool,
}

// Sizes and theme colours (`px`, `font`, `fg`, `bg`) come from [`Ink`], which every chart of
// the page shares.
impl Style {
    /// The model's own line: black on light, white on dark.
    fn ink(&self) -> RGBColor {
        if self.dark {
            RGBColor(255, 255, 255)
        } else {
            PALETTE[0]
        }
    }
}

/// Where the plotting area landed, in backend pixels, for mapping the mouse back to data.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlotArea {
    /// Left and right edges, pixels.
    pub x: (i32, i32),
    /// Top and bottom edges, pixels.
    pub y: (i32, i32),
}

impl PlotArea {
    /// The GPU count under pixel `px` on a log₂ axis from 1 to `max`.
    pub fn gpus_at(&self, px: f64, max: f64) -> f64 {
        let (a, b) = (f64::from(self.x.0), f64::from(self.x.1));
        let t = ((px - a) / (b - a).max(1.0)).clamp(0.0, 1.0);
        2f64.powf(t * max.log2())
    }
}

type DrawResult<T> = Result<T, String>;

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// The GPU axis's right end (65,536 GPUs, the largest count the sweep reaches).
pub const MAX_X: f64 = 65536.0;

fn axis_labels(x: &f64) -> String {
    let n = x.round() as u64;
    if n >= 1000 && n % 1000 == 0 {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

/// Shades the counts where the model does not fit in memory (`ranges` of counts, from
/// [`ScalingData::out_of_memory_ranges`]).
fn shade_oom<'a, DB: DrawingBackend + 'a, Y: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, Y>>,
    ranges: &[(u32, u32)],
    y: (f64, f64),
    st: &Style,
) -> DrawResult<()> {
    let colour = PALETTE[4].mix(if st.dark { 0.30 } else { 0.15 });
    for &(a, b) in ranges {
        let lo = f64::from(a) / 1.41;
        let hi = (f64::from(b) * 1.41).min(MAX_X);
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(lo.max(1.0), y.0), (hi, y.1)],
                colour.filled(),
            )))
            .map_err(err)?;
    }
    Ok(())
}

/// The legend entry for shaded out-of-memory counts, if there are any.
fn oom_entry(ranges: &[(u32, u32)], st: &Style) -> Option<(String, Glyph)> {
    (!ranges.is_empty()).then(|| {
        let colour = PALETTE[4].mix(if st.dark { 0.30 } else { 0.15 });
        ("does not fit in memory".to_string(), Glyph::Band(colour))
    })
}

/// A chart with GPUs on a log x axis.
type GpuChart<'a, DB, Y> = ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, Y>>;

/// The frame every chart shares: GPUs on a log axis, styled axes and grid.
fn frame<'a, DB, Y>(
    root: &'a DrawingArea<DB, Shift>,
    st: &Style,
    y: Y,
    y_desc: &str,
    y_fmt: &dyn Fn(&f64) -> String,
    widest: &str,
) -> DrawResult<GpuChart<'a, DB, Y::CoordDescType>>
where
    DB: DrawingBackend + 'a,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    root.fill(&st.bg()).map_err(err)?;
    let fg = st.fg();
    let mut chart = ChartBuilder::on(root)
        .margin(st.px(10.0))
        .x_label_area_size(st.px(34.0))
        .y_label_area_size(y_label_area(st, widest))
        .build_cartesian_2d((1f64..MAX_X).log_scale(), y)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("GPUs")
        .y_desc(y_desc)
        .x_label_formatter(&axis_labels)
        .y_label_formatter(y_fmt)
        .label_style(("sans-serif", st.font(12.0)).into_font().color(&fg))
        .axis_desc_style(("sans-serif", st.font(13.0)).into_font().color(&fg))
        .axis_style(fg.stroke_width(st.px(1.0)))
        .bold_line_style(fg.mix(0.12))
        .light_line_style(fg.mix(0.0))
        .draw()
        .map_err(err)?;
    Ok(chart)
}

/// Room left of the plot for the tick labels, as wide as `widest` (the longest label the axis
/// writes) at 12 px, and the axis title beside them: a fixed 48 px let the title print over
/// "100 %" and "1,000 d".
fn y_label_area(st: &Style, widest: &str) -> u32 {
    // Average glyph width of a sans-serif digit, 0.58 em; the title's line, 13 px, and gaps.
    let labels = widest.chars().count() as f64 * 0.58 * st.font(12.0);
    labels.round() as u32 + st.px(28.0)
}

/// The frame of both speedup charts: log–log, 1 to 65,536.
fn speedup_frame<'a, DB: DrawingBackend + 'a>(
    root: &'a DrawingArea<DB, Shift>,
    st: &Style,
) -> DrawResult<GpuChart<'a, DB, LogCoord<f64>>> {
    frame(
        root,
        st,
        (1f64..MAX_X).log_scale(),
        "speedup ×",
        &axis_labels,
        "10k",
    )
}

fn percent(v: &f64) -> String {
    format!("{:.0} %", v * 100.0)
}

/// Draws a figure with its own chart.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    figure: Figure<'_>,
    st: &Style,
) -> DrawResult<PlotArea> {
    match figure {
        Figure::Speedup(d) => draw_speedup(root, d, st),
        Figure::Efficiency(d) => draw_efficiency(root, d, st),
        Figure::Breakdown(d) => draw_breakdown(root, d, st),
        Figure::Compare(cs) => draw_compare(root, cs, st),
        Figure::TimeToTrain(d) => draw_time_to_train(root, d, st),
    }
}

/// Draws a figure as [`draw`] does, with a pinned scenario A's curve (dashed, "A (pinned)")
/// beside the live one on the speedup and efficiency charts; the other charts ignore `pinned`.
pub fn draw_with_pin<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    figure: Figure<'_>,
    pinned: Option<&ScalingData>,
    st: &Style,
) -> DrawResult<PlotArea> {
    match (figure, pinned) {
        (Figure::Speedup(d), Some(a)) => draw_speedup_with(root, d, Some(a), st),
        (Figure::Efficiency(d), Some(a)) => draw_efficiency_with(root, d, Some(a), st),
        _ => draw(root, figure, st),
    }
}

/// The pinned curve's colour: blue, apart from the live curve's ink, Amdahl's orange and the
/// ideal's sky blue.
pub const PINNED_COLOUR: RGBColor = PALETTE[5];

/// A scaling chart's curves, the pinned A's (if any) under the live one, and the legend boxed
/// in the plot's upper left corner when `boxed` (else it went above the plot).
fn curves_and_legend<'a, DB: DrawingBackend + 'a, Y: Ranged<ValueType = f64>>(
    chart: &mut GpuChart<'a, DB, Y>,
    d: &ScalingData,
    pinned: Option<&ScalingData>,
    y: impl Fn(&Point) -> f64 + Copy,
    entries: &[(String, Glyph)],
    boxed: bool,
    st: &Style,
) -> DrawResult<()> {
    if let Some(a) = pinned {
        pinned_curve(chart, a, y, st)?;
    }
    live_curve(chart, d, y, st)?;
    if boxed {
        legend(&chart.plotting_area().strip_coord_spec(), entries, st)?;
    }
    Ok(())
}

/// Draws A's curve (`y` of each point) dashed, with triangle markers so it differs from the
/// live curve by shape as well as colour (its legend entry: "A (pinned)", a dashed line).
fn pinned_curve<'a, DB: DrawingBackend + 'a, Y: Ranged<ValueType = f64>>(
    chart: &mut GpuChart<'a, DB, Y>,
    a: &ScalingData,
    y: impl Fn(&Point) -> f64,
    st: &Style,
) -> DrawResult<()> {
    let c = PINNED_COLOUR;
    let xy: Vec<(f64, f64)> = a.points.iter().map(|p| (f64::from(p.gpus), y(p))).collect();
    chart
        .draw_series(DashedLineSeries::new(
            xy.clone(),
            st.px(8.0),
            st.px(4.0),
            c.stroke_width(st.px(2.5)),
        ))
        .map_err(err)?;
    let size = st.px(3.5) as i32;
    chart
        .draw_series(xy.iter().map(|p| TriangleMarker::new(*p, size, c.filled())))
        .map_err(err)?;
    Ok(())
}

/// The live curve (`y` of each point): a line with dot markers in the model's ink, and a ring at
/// the chosen count. Returns the chosen point's GPU count, for the legend.
fn live_curve<'a, DB: DrawingBackend + 'a, Y: Ranged<ValueType = f64>>(
    chart: &mut GpuChart<'a, DB, Y>,
    d: &ScalingData,
    y: impl Fn(&Point) -> f64,
    st: &Style,
) -> DrawResult<Option<u32>> {
    let xy: Vec<(f64, f64)> = d.points.iter().map(|p| (f64::from(p.gpus), y(p))).collect();
    model_line(chart, &xy, st)?;
    let Some(p) = d.chosen_point() else {
        return Ok(None);
    };
    chart
        .draw_series(std::iter::once(Circle::new(
            (f64::from(p.gpus), y(p)),
            st.px(7.0),
            CHOSEN_COLOUR.stroke_width(st.px(3.0)),
        )))
        .map_err(err)?;
    Ok(Some(p.gpus))
}

/// The model's curve: a line with a dot at each point, in the model's ink.
fn model_line<'a, DB: DrawingBackend + 'a, Y: Ranged<ValueType = f64>>(
    chart: &mut GpuChart<'a, DB, Y>,
    xy: &[(f64, f64)],
    st: &Style,
) -> DrawResult<()> {
    let ink = st.ink();
    chart
        .draw_series(LineSeries::new(xy.to_vec(), ink.stroke_width(st.px(3.0))))
        .map_err(err)?;
    chart
        .draw_series(
            xy.iter()
                .map(|(x, y)| Circle::new((*x, *y), st.px(2.5), ink.filled())),
        )
        .map_err(err)?;
    Ok(())
}

/// The ring marking the chosen GPU count.
const CHOSEN_COLOUR: RGBColor = PALETTE[4];

/// Speedup against GPU count (log–log): ideal, the model, the matching Amdahl curve, a marker at
/// the chosen count, out-of-memory counts shaded.
pub fn draw_speedup<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    d: &ScalingData,
    st: &Style,
) -> DrawResult<PlotArea> {
    draw_speedup_with(root, d, None, st)
}

/// [`draw_speedup`], with a pinned scenario A's curve when there is one (the live curve is
/// then "B (live)").
fn draw_speedup_with<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    d: &ScalingData,
    pinned: Option<&ScalingData>,
    st: &Style,
) -> DrawResult<PlotArea> {
    let oom = d.out_of_memory_ranges();
    let (ideal, amdahl) = (PALETTE[2], PALETTE[1]);
    // On a narrow canvas the legend goes above the plot in short words, two or three to a
    // row (one a row, it took two fifths of a phone's chart).
    let above = legend_above(root, st);
    let words = |long: String, short: String| if above { short } else { long };
    let mut entries: Vec<(String, Glyph)> = oom_entry(&oom, st)
        .map(|(label, g)| (words(label, "out of memory".into()), g))
        .into_iter()
        .collect();
    entries.push((
        words("ideal (linear)".into(), "ideal".into()),
        Glyph::Line(ideal, true),
    ));
    let serial = share_text(d.serial_fraction);
    entries.push((
        words(
            format!("Amdahl, serial {serial}"),
            format!("Amdahl {serial}"),
        ),
        Glyph::Line(amdahl, true),
    ));
    if pinned.is_some() {
        entries.push(("A (pinned)".into(), Glyph::Line(PINNED_COLOUR, true)));
    }
    let live = if pinned.is_some() {
        "B (live)".to_string()
    } else {
        words("this cluster (model)".into(), "model".into())
    };
    entries.push((live, Glyph::Line(st.ink(), false)));
    if let Some(p) = d.chosen_point() {
        entries.push((
            words(
                format!("chosen: {}", gpus_text(p.gpus)),
                format!("chosen: {}", group(p.gpus)),
            ),
            Glyph::Ring(CHOSEN_COLOUR),
        ));
    }
    let plot = plot_below_legend(root, &entries, st, above)?;
    let mut chart = speedup_frame(&plot, st)?;
    shade_oom(&mut chart, &oom, (1.0, MAX_X), st)?;
    let w = st.px(2.0);
    chart
        .draw_series(DashedLineSeries::new(
            [(1.0, 1.0), (MAX_X, MAX_X)],
            st.px(6.0),
            st.px(4.0),
            ideal.stroke_width(w),
        ))
        .map_err(err)?;
    chart
        .draw_series(DashedLineSeries::new(
            d.amdahl_curve()
                .into_iter()
                .map(|(n, s)| (f64::from(n), s.max(1.0))),
            st.px(2.0),
            st.px(3.0),
            amdahl.stroke_width(w),
        ))
        .map_err(err)?;
    curves_and_legend(
        &mut chart,
        d,
        pinned,
        |p| p.speedup.max(1.0),
        &entries,
        !above,
        st,
    )?;
    Ok(area(&chart))
}

/// The area the plot gets: below a legend strip when the legend goes `above` ([`legend_strip`]),
/// else all of `root` (the legend then goes in a corner once the curves are drawn).
fn plot_below_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    entries: &[(String, Glyph)],
    st: &Style,
    above: bool,
) -> DrawResult<DrawingArea<DB, Shift>> {
    if above {
        legend_strip(root, entries, st)
    } else {
        Ok(root.clone())
    }
}

/// Whether a chart's legend goes in rows above the plot rather than in a corner of it: on a
/// narrow canvas (a phone, a small embed) a corner box covers the curves.
fn legend_above<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, st: &Style) -> bool {
    root.dim_in_pixel().0 < st.px(400.0)
}

fn area<'a, DB: DrawingBackend + 'a, X: Ranged, Y: Ranged>(
    chart: &ChartContext<'a, DB, Cartesian2d<X, Y>>,
) -> PlotArea {
    let (x, y) = chart.plotting_area().get_pixel_range();
    PlotArea {
        x: (x.start, x.end),
        y: (y.start, y.end),
    }
}

/// Draws a boxed legend in the upper left corner of the plotting area. Text widths are estimated
/// ([`text_width`]) rather than measured: plotters' own series labels measure every line by
/// adding an element to the page, which costs a forced layout each.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(String, Glyph)],
    st: &Style,
) -> DrawResult<()> {
    if entries.is_empty() {
        return Ok(());
    }
    let font = st.font(12.0);
    let row_h = (font * 1.25).round() as i32;
    let sample = st.px(22.0) as i32;
    let margin = st.px(6.0) as i32;
    let gap = st.px(6.0) as i32;
    let text_w = entries
        .iter()
        .map(|(label, _)| text_width(label, font))
        .max()
        .unwrap_or(0);
    let box_w = margin * 2 + sample + gap + text_w;
    let box_h = margin * 2 + row_h * entries.len() as i32;
    let x0 = st.px(5.0) as i32;
    let y0 = x0;
    let corners = [(x0, y0), (x0 + box_w, y0 + box_h)];
    area.draw(&Rectangle::new(corners, st.bg().mix(0.85).filled()))
        .map_err(err)?;
    area.draw(&Rectangle::new(corners, st.fg().mix(0.3)))
        .map_err(err)?;
    let style = ("sans-serif", font)
        .into_font()
        .color(&st.fg())
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (label, glyph)) in entries.iter().enumerate() {
        let x = x0 + margin;
        let y = y0 + margin + row_h * i as i32 + row_h / 2;
        draw_glyph(area, *glyph, (x, y), sample, st)?;
        area.draw(&Text::new(
            label.as_str(),
            (x + sample + gap, y),
            style.clone(),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// The width of `text` in `font_px` sans-serif, estimated from coarse advance widths: Arial's
/// (Helvetica's, Liberation Sans') plus about a tenth, which is DejaVu Sans', the widest common
/// default, so a box sized by it holds its text.
pub fn text_width(text: &str, font_px: f64) -> i32 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '\'' | '|' | '.' | ',' | ':' | ';' | '!' => 0.26,
            ' ' => 0.30,
            'f' | 't' | 'r' | 'I' | '(' | ')' | '[' | ']' | '-' | '/' => 0.36,
            'm' | 'w' | 'M' | 'W' | '%' | '@' | '×' | '—' => 0.92,
            'A'..='Z' => 0.74,
            _ => 0.60,
        })
        .sum();
    (em * font_px).ceil() as i32
}

/// Efficiency (speedup / GPUs) against GPU count.
pub fn draw_efficiency<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    d: &ScalingData,
    st: &Style,
) -> DrawResult<PlotArea> {
    draw_efficiency_with(root, d, None, st)
}

/// [`draw_efficiency`], with a pinned scenario A's curve when there is one (the live curve is
/// then "B (live)").
fn draw_efficiency_with<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    d: &ScalingData,
    pinned: Option<&ScalingData>,
    st: &Style,
) -> DrawResult<PlotArea> {
    let oom = d.out_of_memory_ranges();
    let ink = st.ink();
    let mut entries: Vec<(String, Glyph)> = oom_entry(&oom, st).into_iter().collect();
    let live = if pinned.is_some() {
        entries.push(("A (pinned)".into(), Glyph::Line(PINNED_COLOUR, true)));
        "B (live)"
    } else {
        "efficiency"
    };
    entries.push((live.into(), Glyph::Line(ink, false)));
    // The legend sits above the plot: an efficiency curve can run anywhere from the top to
    // the bottom of the chart (a pinned A, a slow network's), and a corner box covered it and
    // the chosen count's marker.
    let plot = plot_below_legend(root, &entries, st, true)?;
    let mut chart = frame(&plot, st, 0f64..1.05, "efficiency", &percent, "100 %")?;
    shade_oom(&mut chart, &oom, (0.0, 1.05), st)?;
    let y = |p: &Point| p.efficiency.clamp(0.0, 1.05);
    curves_and_legend(&mut chart, d, pinned, y, &entries, false, st)?;
    Ok(area(&chart))
}

/// Fill colours of the breakdown parts, in [`super::series::PARTS`] order; each also gets a
/// hatch-free legend with its name, so meaning never rests on colour alone.
pub const PART_COLOURS: [RGBColor; 5] =
    [PALETTE[5], PALETTE[4], PALETTE[1], PALETTE[6], PALETTE[2]];

/// Fill colours of a run's parts, in [`RUN_PARTS`] order: the step's, then stragglers (bluish
/// green), checkpoints (yellow), lost work and restarts (two greys).
pub const RUN_PART_COLOURS: [RGBColor; 9] = [
    PART_COLOURS[0],
    PART_COLOURS[1],
    PART_COLOURS[2],
    PART_COLOURS[3],
    PART_COLOURS[4],
    PALETTE[3],
    PALETTE[7],
    RGBColor(150, 150, 150),
    RGBColor(95, 95, 95),
];

/// Share of the elapsed time by part (stacked, 0–100 %) against GPU count: the step's parts,
/// stragglers, and the time failures and checkpoints take.
pub fn draw_breakdown<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    d: &TimeShares,
    st: &Style,
) -> DrawResult<PlotArea> {
    let fg = st.fg();
    let shares: Vec<(f64, [f64; 9])> = d
        .points
        .iter()
        .map(|p| {
            let t = p.total().max(1e-12);
            (f64::from(p.gpus), p.parts.map(|v| v / t))
        })
        .collect();
    // The parts that take any time, from the top of the stack down; the legend sits above
    // the plot, whose stacked bands fill every corner.
    let present: Vec<usize> = (0..RUN_PARTS.len())
        .rev()
        .filter(|&i| shares.iter().any(|(_, s)| s[i] >= 1e-4))
        .collect();
    let mut entries: Vec<(String, Glyph)> = present
        .iter()
        .map(|&i| (RUN_PARTS[i].to_string(), Glyph::Block(RUN_PART_COLOURS[i])))
        .collect();
    let chosen = d.chosen_point().map(|p| p.gpus);
    if let Some(n) = chosen {
        entries.push((format!("chosen: {}", gpus_text(n)), Glyph::Rule(st.ink())));
    }
    let plot = legend_strip(root, &entries, st)?;
    let mut chart = frame(&plot, st, 0f64..1.0, "share of time", &percent, "100 %")?;
    // Draw from the top of the stack down so each band's area covers the ones above it.
    for &i in &present {
        let top: Vec<(f64, f64)> = shares
            .iter()
            .map(|(x, s)| (*x, s[..=i].iter().sum::<f64>().min(1.0)))
            .collect();
        let colour = RUN_PART_COLOURS[i];
        chart
            .draw_series(
                AreaSeries::new(top, 0.0, colour.mix(0.85))
                    .border_style(fg.stroke_width(st.px(1.0))),
            )
            .map_err(err)?;
    }
    // The chosen count, as the speedup chart rings it: a rule across the bands, in the model's
    // ink on a halo of the background so it reads over every band's colour.
    if let Some(n) = chosen {
        let x = f64::from(n);
        for (colour, width) in [(st.bg(), 6.0), (st.ink(), 2.5)] {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x, 0.0), (x, 1.0)],
                    colour.stroke_width(st.px(width)),
                )))
                .map_err(err)?;
        }
    }
    Ok(area(&chart))
}

/// Speedup curves of the same scenario over up to four networks.
pub fn draw_compare<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    curves: &[(&'static Network, Vec<Point>)],
    st: &Style,
) -> DrawResult<PlotArea> {
    let colour_of = |i: usize| [st.ink(), PALETTE[1], PALETTE[5], PALETTE[3]][i % 4];
    // The legend in rows above the plot: in the corner it covered the curves.
    let entries: Vec<(String, Glyph)> = curves
        .iter()
        .enumerate()
        .map(|(i, (net, _))| (net.name.to_string(), Glyph::Line(colour_of(i), false)))
        .collect();
    let plot = legend_strip(root, &entries, st)?;
    let mut chart = speedup_frame(&plot, st)?;
    let w = st.px(2.5);
    for (i, (_, pts)) in curves.iter().enumerate() {
        let colour = colour_of(i);
        let xy: Vec<(f64, f64)> = pts
            .iter()
            .map(|p| (f64::from(p.gpus), p.speedup.max(1.0)))
            .collect();
        chart
            .draw_series(LineSeries::new(xy.clone(), colour.stroke_width(w)))
            .map_err(err)?;
        // A different marker per curve, so the lines differ by shape as well as colour.
        let size = st.px(3.5) as i32;
        match i % 4 {
            0 => chart
                .draw_series(xy.iter().map(|p| Circle::new(*p, size, colour.filled())))
                .map(|_| ()),
            1 => chart
                .draw_series(
                    xy.iter()
                        .map(|p| TriangleMarker::new(*p, size + 1, colour.filled())),
                )
                .map(|_| ()),
            2 => chart
                .draw_series(
                    xy.iter()
                        .map(|p| Cross::new(*p, size, colour.stroke_width(2))),
                )
                .map(|_| ()),
            _ => chart
                .draw_series(xy.iter().map(|p| {
                    EmptyElement::at(*p)
                        + Rectangle::new([(-size, -size), (size, size)], colour.filled())
                }))
                .map(|_| ()),
        }
        .map_err(err)?;
    }
    Ok(area(&chart))
}

/// A duration given in days, in the unit that reads best: "120 d", "2.4 h", "14 min", "8.6 s".
fn days_label(v: &f64) -> String {
    let short = |x: f64, unit: &str| {
        let s = if x >= 10.0 {
            group(x.round() as u32)
        } else {
            format!("{x:.1}").trim_end_matches(".0").to_string()
        };
        format!("{s} {unit}")
    };
    match *v {
        d if d >= 1.0 => short(d, "d"),
        d if d * 24.0 >= 1.0 => short(d * 24.0, "h"),
        d if d * 1440.0 >= 1.0 => short(d * 1440.0, "min"),
        d => short(d * 86400.0, "s"),
    }
}

/// A legend entry's sample.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Glyph {
    /// A line, dashed or solid.
    Line(RGBColor, bool),
    /// A shaded band.
    Band(RGBAColor),
    /// A solid block (a stacked area's colour).
    Block(RGBColor),
    /// A filled triangle marker.
    Triangle(RGBColor),
    /// A square outline marker.
    Square(RGBColor),
    /// A ring marker.
    Ring(RGBColor),
    /// A vertical rule (a marked count across a stacked chart).
    Rule(RGBColor),
    /// A filled polygon marker of radius r: its corners around the sample's middle.
    Marker(RGBColor, fn(i32) -> Vec<(i32, i32)>),
}

/// Draws a legend entry's sample, `sample` pixels wide, starting at `(x, y)` (its left end, on
/// the text's middle line).
fn draw_glyph<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    glyph: Glyph,
    (x, y): (i32, i32),
    sample: i32,
    st: &Style,
) -> DrawResult<()> {
    let lw = st.px(2.0);
    let mid = (x + sample / 2, y);
    let r = st.px(5.0) as i32;
    match glyph {
        Glyph::Line(c, false) => area.draw(&PathElement::new(
            [(x, y), (x + sample, y)],
            c.stroke_width(st.px(3.0)),
        )),
        Glyph::Line(c, true) => (0..3).try_for_each(|k| {
            let a = x + k * sample * 2 / 5;
            area.draw(&PathElement::new(
                [(a, y), (a + sample / 5, y)],
                c.stroke_width(lw),
            ))
        }),
        Glyph::Band(c) => area.draw(&Rectangle::new(
            [(x, y - r), (x + sample, y + r)],
            c.filled(),
        )),
        Glyph::Block(c) => area.draw(&Rectangle::new(
            [(x, y - r), (x + sample * 3 / 5, y + r)],
            c.filled(),
        )),
        Glyph::Triangle(c) => area.draw(&TriangleMarker::new(mid, r + 1, c.filled())),
        Glyph::Square(c) => area.draw(&Rectangle::new(
            [(mid.0 - r, y - r), (mid.0 + r, y + r)],
            c.stroke_width(lw),
        )),
        Glyph::Ring(c) => area.draw(&Circle::new(mid, r, c.stroke_width(lw))),
        Glyph::Rule(c) => area.draw(&PathElement::new(
            [(mid.0, y - r - 2), (mid.0, y + r + 2)],
            c.stroke_width(st.px(2.5)),
        )),
        Glyph::Marker(c, corners) => area.draw(&Polygon::new(
            corners(r)
                .into_iter()
                .map(|(dx, dy)| (mid.0 + dx, mid.1 + dy))
                .collect::<Vec<_>>(),
            c.filled(),
        )),
    }
    .map_err(err)
}

/// Draws the legend in rows above the plot, so it never covers a curve on a narrow canvas, and
/// returns the area left for the chart. Text widths are estimated ([`text_width`]), not measured.
pub(crate) fn legend_strip<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    entries: &[(String, Glyph)],
    st: &Style,
) -> DrawResult<DrawingArea<DB, Shift>> {
    root.fill(&st.bg()).map_err(err)?;
    let (w, _) = root.dim_in_pixel();
    let font = st.font(12.0);
    // Narrow (a phone, a small embed): shorter samples, closer entries, rows closer together.
    let narrow = legend_above(root, st);
    let row_h = (font * if narrow { 1.45 } else { 1.6 }).round() as i32;
    let sample = st.px(if narrow { 16.0 } else { 22.0 }) as i32;
    let gap = st.px(if narrow { 10.0 } else { 16.0 }) as i32;
    let pad = st.px(if narrow { 6.0 } else { 10.0 }) as i32;
    let right = w as i32 - pad;
    // Flow the entries into rows.
    let mut at: Vec<(i32, i32)> = Vec::new();
    let (mut x, mut row) = (pad, 0);
    for (label, _) in entries {
        let width = sample + st.px(5.0) as i32 + text_width(label, font);
        if x > pad && x + width > right {
            x = pad;
            row += 1;
        }
        at.push((x, row));
        x += width + gap;
    }
    let rows = if entries.is_empty() { 0 } else { row + 1 };
    let (strip, rest) = root.split_vertically(rows * row_h + pad);
    let style = ("sans-serif", font)
        .into_font()
        .color(&st.fg())
        .pos(Pos::new(HPos::Left, VPos::Center));
    for ((label, glyph), (x, row)) in entries.iter().zip(at) {
        let y = pad + row * row_h + row_h / 2;
        draw_glyph(&strip, *glyph, (x, y), sample, st)?;
        strip
            .draw(&Text::new(
                label.as_str(),
                (x + sample + st.px(5.0) as i32, y),
                style.clone(),
            ))
            .map_err(err)?;
    }
    Ok(rest)
}

/// Days to train the data budget against GPU count (log–log): ideal, the step time alone, and
/// the run with stragglers, failures and the critical batch; the fastest and the cheapest
/// counts marked. The legend sits above the plot.
pub fn draw_time_to_train<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    d: &RunData,
    st: &Style,
) -> DrawResult<PlotArea> {
    // A count whose model does not fit runs nothing: its times are not drawn (the ideal is the
    // reference line, drawn everywhere).
    let xy = |f: &dyn Fn(usize) -> f64, fitting: bool| -> Vec<(f64, f64)> {
        (0..d.points.len())
            .filter(|&i| d.points[i].fits || !fitting)
            .map(|i| (f64::from(d.points[i].gpus), f(i)))
            .filter(|(_, y)| y.is_finite() && *y > 0.0)
            .collect()
    };
    let ideal = xy(&|i| d.ideal_days(i), false);
    let step_only = xy(&|i| d.points[i].step_only_days, true);
    let run = xy(&|i| d.points[i].days, true);
    let all = ideal.iter().chain(&step_only).chain(&run).map(|p| p.1);
    let (lo, hi) = all.fold((f64::INFINITY, 0f64), |(a, b), y| (a.min(y), b.max(y)));
    let (lo, hi) = if lo.is_finite() && hi > 0.0 {
        (
            10f64.powf((lo / 1.5).log10().floor()),
            10f64.powf((hi * 1.5).log10().ceil()),
        )
    } else {
        (0.01, 100.0)
    };
    let (c_ideal, c_step, ink) = (PALETTE[2], PALETTE[5], st.ink());
    let (c_fast, c_cheap, c_chosen) = (PALETTE[3], PALETTE[1], CHOSEN_COLOUR);
    let fastest = d.fastest().map(|i| &d.points[i]);
    let cheapest = d.cheapest().map(|i| &d.points[i]);
    let oom = super::series::unfit_ranges(d.points.iter().map(|p| (p.gpus, p.fits)));
    let shade = PALETTE[4].mix(if st.dark { 0.30 } else { 0.15 });
    let mut entries: Vec<(String, Glyph)> = Vec::new();
    if !oom.is_empty() {
        entries.push(("does not fit in memory".into(), Glyph::Band(shade)));
    }
    entries.push(("ideal".into(), Glyph::Line(c_ideal, true)));
    entries.push(("step time alone".into(), Glyph::Line(c_step, true)));
    entries.push((
        "with stragglers, failures, batch limit".into(),
        Glyph::Line(ink, false),
    ));
    if let Some(p) = fastest {
        entries.push((
            format!("fastest: {}", gpus_text(p.gpus)),
            Glyph::Triangle(c_fast),
        ));
    }
    if let Some(p) = cheapest {
        entries.push((
            format!("cheapest: {}, {}", gpus_text(p.gpus), money(p.cost)),
            Glyph::Square(c_cheap),
        ));
    }
    if let Some(p) = d.timed_point() {
        entries.push((
            format!("chosen: {}", gpus_text(p.gpus)),
            Glyph::Ring(c_chosen),
        ));
    }
    let plot = legend_strip(root, &entries, st)?;
    let mut chart = frame(
        &plot,
        st,
        (lo..hi).log_scale(),
        "time to train",
        &days_label,
        "1,000 d",
    )?;
    shade_oom(&mut chart, &oom, (lo, hi), st)?;
    let w = st.px(2.0);
    chart
        .draw_series(DashedLineSeries::new(
            ideal,
            st.px(6.0),
            st.px(4.0),
            c_ideal.stroke_width(w),
        ))
        .map_err(err)?;
    chart
        .draw_series(DashedLineSeries::new(
            step_only,
            st.px(2.0),
            st.px(3.0),
            c_step.stroke_width(w),
        ))
        .map_err(err)?;
    model_line(&mut chart, &run, st)?;
    // A thin guide from the axis up to each marked count, so the count reads off the x axis.
    let guide = |x: f64, c: RGBColor| {
        DashedLineSeries::new(
            [(x, lo), (x, hi)],
            st.px(3.0),
            st.px(3.0),
            c.mix(0.7).stroke_width(st.px(1.0)),
        )
    };
    let size = st.px(7.0) as i32;
    if let Some(p) = fastest {
        let at = (f64::from(p.gpus), p.days);
        chart.draw_series(guide(at.0, c_fast)).map_err(err)?;
        chart
            .draw_series(std::iter::once(TriangleMarker::new(
                at,
                size,
                c_fast.filled(),
            )))
            .map_err(err)?;
    }
    if let Some(p) = cheapest {
        let at = (f64::from(p.gpus), p.days);
        chart.draw_series(guide(at.0, c_cheap)).map_err(err)?;
        chart
            .draw_series(std::iter::once(
                EmptyElement::at(at)
                    + Rectangle::new(
                        [(-size, -size), (size, size)],
                        c_cheap.stroke_width(st.px(3.0)),
                    ),
            ))
            .map_err(err)?;
    }
    if let Some(p) = d.timed_point() {
        chart
            .draw_series(std::iter::once(Circle::new(
                (f64::from(p.gpus), p.days),
                st.px(5.0),
                c_chosen.stroke_width(st.px(2.0)),
            )))
            .map_err(err)?;
    }
    Ok(area(&chart))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware;
    use crate::model::scenario::Scenario;
    use crate::render::plot::recorder::{Log, Recorder};
    use crate::render::series::{compare_data, scaling_data};
    use plotters::prelude::IntoDrawingArea;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// Draws with `f` on a fresh recorder and returns the log and the plot area.
    fn record(
        f: impl FnOnce(&DrawingArea<Recorder, Shift>) -> DrawResult<PlotArea>,
    ) -> (Log, PlotArea) {
        let log = Rc::new(RefCell::new(Log::default()));
        let area = {
            let root = Recorder(log.clone()).into_drawing_area();
            f(&root).unwrap()
        };
        let log = Rc::try_unwrap(log).ok().unwrap().into_inner();
        (log, area)
    }

    fn style() -> Style {
        Style {
            scale: 1.0,
            dark: false,
            projector: false,
        }
    }

    #[test]
    fn a_narrow_speedup_chart_keeps_its_legend_to_short_words_in_two_rows() {
        let d = scaling_data(
            &Scenario::parse(
                "gpus=64&per_node=8&gpu=h100&inter=tcp100&nics=1&model=llama3-8b&zero=3",
            )
            .unwrap(),
        );
        let (wide, _) = record(|root| draw_speedup(root, &d, &style()));
        assert!(wide.texts.iter().any(|t| t == "ideal (linear)"));
        // A 300 px column (a phone, a narrow embed): five entries, one a row, took two fifths
        // of the chart.
        let (narrow, area) = record(|root| {
            let (column, _) = root.split_horizontally(300);
            draw_speedup(&column, &d, &style())
        });
        for t in [
            "out of memory",
            "ideal",
            "Amdahl 15 %",
            "model",
            "chosen: 64",
        ] {
            assert!(
                narrow.texts.iter().any(|x| x == t),
                "{t}: {:?}",
                narrow.texts
            );
        }
        let rows = 3.0 * (12.0 * 1.45_f64).round() + 6.0;
        assert!(
            f64::from(area.y.0) <= rows + 12.0,
            "the plot starts at {} px",
            area.y.0
        );
    }

    #[test]
    fn speedup_chart_draws_curves_labels_and_legend() {
        let d =
            scaling_data(&Scenario::parse("gpus=64&gpu=a100&inter=tcp25&model=gpt2-xl").unwrap());
        let (rec, area) = record(|root| draw_speedup(root, &d, &style()));
        assert!(rec.lines > 20, "{}", rec.lines);
        assert!(rec.texts.iter().any(|t| t == "GPUs"));
        assert!(rec.texts.iter().any(|t| t.starts_with("Amdahl")));
        assert!(rec.texts.iter().any(|t| t == "chosen: 64 GPUs"));
        assert!(area.x.0 < area.x.1 && area.y.0 < area.y.1);
        // The hover mapping inverts the log axis.
        assert!((area.gpus_at(f64::from(area.x.0), MAX_X) - 1.0).abs() < 1e-9);
        assert!((area.gpus_at(f64::from(area.x.1), MAX_X) - MAX_X).abs() < 1e-6);
    }

    #[test]
    fn legend_text_widths_hold_their_text_without_much_to_spare() {
        // Widths at 12 px sans-serif (Liberation Sans) measured with canvas measureText in
        // headless Chromium 156.
        for (label, measured) in [
            ("ideal (linear)", 66.0),
            ("Amdahl, serial 7.509 %", 123.4),
            ("chosen: 64 GPUs", 94.0),
            ("with stragglers, failures, batch limit", 183.4),
            ("cheapest: 1,024 GPUs, $712,688", 177.5),
            ("MMMMWWWW", 85.3),
            ("iiiilll111", 38.7),
        ] {
            let est = f64::from(text_width(label, 12.0));
            assert!(
                est >= measured && est <= 1.25 * measured,
                "{label}: {est} vs {measured}"
            );
        }
        assert_eq!(text_width("", 12.0), 0);
        assert!(text_width("GPUs", 24.0) > text_width("GPUs", 12.0));
    }

    #[test]
    fn each_figure_is_drawn_by_its_own_chart() {
        let sc = Scenario::parse("gpus=64&gpu=h100&model=resnet50").unwrap();
        let d = scaling_data(&sc);
        let texts = |f: Figure<'_>| record(|root| draw(root, f, &style())).0.texts;
        assert!(texts(Figure::Speedup(&d))
            .iter()
            .any(|t| t.starts_with("Amdahl")));
        assert!(texts(Figure::Efficiency(&d))
            .iter()
            .any(|t| t == "efficiency"));
        let run = crate::render::train::run_data(&sc, &crate::model::sweep::curve(&sc));
        let breakdown = texts(Figure::Breakdown(&TimeShares::new(&run)));
        assert!(breakdown.iter().any(|t| t == "data wait"));
        // The chosen count is marked, as the speedup chart rings it.
        assert!(
            breakdown.iter().any(|t| t == "chosen: 64 GPUs"),
            "{breakdown:?}"
        );
        let nets: Vec<&'static hardware::Network> =
            hardware::network("ib-ndr").into_iter().collect();
        let curves = compare_data(&sc, &nets);
        assert!(texts(Figure::Compare(&curves))
            .iter()
            .any(|t| t == nets[0].name));
    }

    #[test]
    fn time_axis_labels_read_in_their_own_units_and_never_repeat() {
        let labels: Vec<String> = [1000.0, 1.0, 0.1, 0.01, 0.001, 1e-4]
            .iter()
            .map(days_label)
            .collect();
        assert_eq!(
            labels,
            ["1,000 d", "1 d", "2.4 h", "14 min", "1.4 min", "8.6 s"]
        );
    }

    #[test]
    fn a_run_that_fits_nowhere_draws_no_times() {
        let sc = Scenario::parse("gpus=8&gpu=rtx4090&intra=pcie4&model=gpt2-xl").unwrap();
        let run = crate::render::train::run_data(&sc, &crate::model::sweep::curve(&sc));
        assert!(run.points.iter().all(|p| !p.fits));
        let fits = Scenario::parse("gpus=8&gpu=h100&model=gpt2-xl").unwrap();
        let fitting = crate::render::train::run_data(&fits, &crate::model::sweep::curve(&fits));
        let lines = |d| {
            record(|root| draw(root, Figure::TimeToTrain(d), &style()))
                .0
                .lines
        };
        assert!(
            lines(&run) < lines(&fitting),
            "{} vs {}",
            lines(&run),
            lines(&fitting)
        );
        // No count is ringed as chosen where nothing is timed (it was, at ~300 days).
        let texts = record(|root| draw(root, Figure::TimeToTrain(&run), &style()))
            .0
            .texts;
        assert!(!texts.iter().any(|t| t.starts_with("chosen")), "{texts:?}");
        assert!(run.timed_point().is_none() && fitting.timed_point().is_some());
    }

    #[test]
    fn the_time_to_train_chart_draws_its_curves_and_marks_the_fastest_and_cheapest_counts() {
        let sc =
            Scenario::parse("gpus=512&gpu=h100&inter=ib-ndr&model=llama3-8b&jitter=0.05").unwrap();
        let run = crate::render::train::run_data(&sc, &crate::model::sweep::curve(&sc));
        let (rec, area) = record(|root| draw(root, Figure::TimeToTrain(&run), &style()));
        let fastest = &run.points[run.fastest().unwrap()];
        let cheapest = &run.points[run.cheapest().unwrap()];
        for label in [
            "ideal",
            "step time alone",
            "with stragglers, failures, batch limit",
            "time to train",
            "chosen: 512 GPUs",
        ] {
            assert!(
                rec.texts.iter().any(|t| t == label),
                "{label}: {:?}",
                rec.texts
            );
        }
        let fast = format!("fastest: {}", gpus_text(fastest.gpus));
        assert!(rec.texts.contains(&fast), "{:?}", rec.texts);
        assert!(rec
            .texts
            .iter()
            .any(|t| t.starts_with(&format!("cheapest: {}, $", gpus_text(cheapest.gpus)))));
        assert!(rec.lines > 30, "{}", rec.lines);
        assert!(area.x.0 < area.x.1);
        // The same hover mapping as the other charts (GPUs on the same log axis).
        assert!((area.gpus_at(f64::from(area.x.1), MAX_X) - MAX_X).abs() < 1e-6);
    }

    #[test]
    fn a_pinned_scenario_is_drawn_dashed_beside_the_live_one() {
        let b =
            scaling_data(&Scenario::parse("gpus=64&gpu=a100&inter=ib-ndr&model=gpt2-xl").unwrap());
        let a =
            scaling_data(&Scenario::parse("gpus=64&gpu=a100&inter=tcp25&model=gpt2-xl").unwrap());
        // Where each chart's plot starts (its top), unpinned, in the order below.
        let mut tops = Vec::new();
        for (f, alone) in [
            (Figure::Speedup(&b), "this cluster (model)"),
            (Figure::Efficiency(&b), "efficiency"),
        ] {
            let (plain, plain_area) = record(|root| draw(root, f, &style()));
            let (same, _) = record(|root| draw_with_pin(root, f, None, &style()));
            assert_eq!(plain.texts, same.texts, "no pin draws the chart as before");
            assert_eq!(plain.lines, same.lines);
            let (both, area) = record(|root| draw_with_pin(root, f, Some(&a), &style()));
            assert!(
                both.texts.iter().any(|t| t == "A (pinned)"),
                "{:?}",
                both.texts
            );
            assert!(
                both.texts.iter().any(|t| t == "B (live)"),
                "{:?}",
                both.texts
            );
            // The live curve's own legend entry gives way to "B (live)" (the efficiency
            // chart's axis keeps its name).
            let count = |texts: &[String]| texts.iter().filter(|t| *t == alone).count();
            assert_eq!(
                count(&both.texts) + 1,
                count(&plain.texts),
                "{:?}",
                both.texts
            );
            // A's dashes and markers are drawn on top of what was there.
            assert!(
                both.lines > plain.lines + a.points.len(),
                "{} vs {}",
                both.lines,
                plain.lines
            );
            assert!(area.x.0 < area.x.1);
            // The efficiency chart's legend is above the plot: A's entry may take a row more.
            if matches!(f, Figure::Efficiency(_)) {
                assert!(area.y.0 >= plain_area.y.0, "{area:?} vs {plain_area:?}");
            } else {
                assert_eq!(area, plain_area);
            }
            tops.push(plain_area.y.0);
        }
        // On a wide canvas the speedup chart boxes its legend in the plot's corner, where its
        // curves never run; the efficiency chart's plot starts below its legend strip.
        assert!(tops[1] > tops[0], "plots start at {tops:?}");
        // The other charts take no pinned curve.
        let sc = Scenario::parse("gpus=64&gpu=h100&model=resnet50").unwrap();
        let run = crate::render::train::run_data(&sc, &crate::model::sweep::curve(&sc));
        let f = Figure::TimeToTrain(&run);
        let (plain, _) = record(|root| draw(root, f, &style()));
        let (pinned, _) = record(|root| draw_with_pin(root, f, Some(&a), &style()));
        assert_eq!(plain.texts, pinned.texts);
    }

    #[test]
    fn breakdown_and_compare_charts_name_every_series() {
        let sc = Scenario::parse("gpus=64&gpu=h100&model=resnet50").unwrap();
        let d = scaling_data(&sc);
        let shares = TimeShares::new(&crate::render::train::run_data(
            &sc,
            &crate::model::sweep::curve(&sc),
        ));
        let (rec, _) = record(|root| draw_breakdown(root, &shares, &style()));
        assert!(rec.texts.iter().any(|t| t == "compute"));
        assert!(
            rec.texts.iter().any(|t| t == "data wait"),
            "ResNet-50 on 64 H100 starves"
        );
        let nets: Vec<&'static hardware::Network> = ["tcp10", "tcp100", "ib-ndr"]
            .iter()
            .filter_map(|id| hardware::network(id))
            .collect();
        let curves = compare_data(&sc, &nets);
        let (rec2, compare_area) = record(|root| draw_compare(root, &curves, &style()));
        for n in &nets {
            assert!(rec2.texts.iter().any(|t| t == n.name), "{}", n.name);
        }
        // Its legend is a strip above the plot (boxed in the corner, it covered the curves):
        // the plot starts lower than the speedup chart's, whose corner box sits inside it.
        let (_, speedup_area) = record(|root| draw_speedup(root, &d, &style()));
        assert!(
            compare_area.y.0 > speedup_area.y.0,
            "{compare_area:?} vs {speedup_area:?}"
        );
        let dark = Style {
            dark: true,
            projector: true,
            scale: 2.0,
        };
        let (rec3, _) = record(|root| draw_efficiency(root, &d, &dark));
        assert!(rec3.texts.iter().any(|t| t == "efficiency"));
    }
}
