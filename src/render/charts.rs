//! The scaling charts, drawn over any plotters backend (the canvas in the page, a recording mock
//! in tests). Sizes are in device pixels: `Style::scale` is the devicePixelRatio (× projector
//! zoom) so fonts, margins and strokes stay crisp and readable.

use super::figure::Figure;
use super::series::{parts, Point, ScalingData, PARTS};
use crate::model::hardware::Network;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

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

impl Style {
    fn px(&self, css: f64) -> u32 {
        let k = if self.projector { 1.5 } else { 1.0 };
        (css * self.scale * k).round().max(1.0) as u32
    }
    fn font(&self, css: f64) -> f64 {
        css * self.scale * if self.projector { 1.4 } else { 1.0 }
    }
    fn fg(&self) -> RGBColor {
        if self.dark {
            RGBColor(235, 235, 235)
        } else {
            RGBColor(20, 20, 20)
        }
    }
    fn bg(&self) -> RGBColor {
        if self.dark {
            RGBColor(24, 26, 31)
        } else {
            RGBColor(255, 255, 255)
        }
    }
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
    pub x: (i32, i32),
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

/// Shades the counts where the model does not fit in memory.
fn shade_oom<'a, DB: DrawingBackend + 'a, Y: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, Y>>,
    d: &ScalingData,
    y: (f64, f64),
    st: &Style,
) -> DrawResult<()> {
    let colour = PALETTE[4].mix(if st.dark { 0.30 } else { 0.15 });
    for (a, b) in d.out_of_memory_ranges() {
        let lo = f64::from(a) / 1.41;
        let hi = (f64::from(b) * 1.41).min(MAX_X);
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(lo.max(1.0), y.0), (hi, y.1)],
                colour.filled(),
            )))
            .map_err(err)?
            .label("does not fit in memory")
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
    }
    Ok(())
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
        .y_label_area_size(st.px(48.0))
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
    }
}

/// Speedup against GPU count (log–log): ideal, the model, the matching Amdahl curve, a marker at
/// the chosen count, out-of-memory counts shaded.
pub fn draw_speedup<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    d: &ScalingData,
    st: &Style,
) -> DrawResult<PlotArea> {
    let mut chart = speedup_frame(root, st)?;
    shade_oom(&mut chart, d, (1.0, MAX_X), st)?;
    let w = st.px(2.0);
    let ideal = PALETTE[2];
    chart
        .draw_series(DashedLineSeries::new(
            [(1.0, 1.0), (MAX_X, MAX_X)],
            st.px(6.0),
            st.px(4.0),
            ideal.stroke_width(w),
        ))
        .map_err(err)?
        .label("ideal (linear)")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], ideal.stroke_width(w)));
    let amdahl = PALETTE[1];
    chart
        .draw_series(DashedLineSeries::new(
            d.amdahl_curve()
                .into_iter()
                .map(|(n, s)| (f64::from(n), s.max(1.0))),
            st.px(2.0),
            st.px(3.0),
            amdahl.stroke_width(w),
        ))
        .map_err(err)?
        .label(format!("Amdahl, serial {:.3} %", 100.0 * d.serial_fraction))
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], amdahl.stroke_width(w)));
    let ink = st.ink();
    let model: Vec<(f64, f64)> = d
        .points
        .iter()
        .map(|p| (f64::from(p.gpus), p.speedup.max(1.0)))
        .collect();
    chart
        .draw_series(LineSeries::new(model.clone(), ink.stroke_width(st.px(3.0))))
        .map_err(err)?
        .label("this cluster (model)")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], ink.stroke_width(w)));
    chart
        .draw_series(
            model
                .iter()
                .map(|(x, y)| Circle::new((*x, *y), st.px(2.5), ink.filled())),
        )
        .map_err(err)?;
    if let Some(p) = d.chosen_point() {
        let c = PALETTE[4];
        chart
            .draw_series(std::iter::once(Circle::new(
                (f64::from(p.gpus), p.speedup.max(1.0)),
                st.px(7.0),
                c.stroke_width(st.px(3.0)),
            )))
            .map_err(err)?
            .label(format!("chosen: {} GPUs", p.gpus))
            .legend(move |(x, y)| Circle::new((x + 10, y), 5, c.stroke_width(2)));
    }
    legend(&mut chart, st, SeriesLabelPosition::UpperLeft)?;
    Ok(area(&chart))
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

fn legend<'a, DB: DrawingBackend + 'a, X: Ranged, Y: Ranged>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    st: &Style,
    at: SeriesLabelPosition,
) -> DrawResult<()> {
    chart
        .configure_series_labels()
        .position(at)
        .label_font(("sans-serif", st.font(12.0)).into_font().color(&st.fg()))
        .background_style(st.bg().mix(0.85))
        .border_style(st.fg().mix(0.3))
        .margin(st.px(6.0))
        .draw()
        .map_err(err)
}

/// Efficiency (speedup / GPUs) against GPU count.
pub fn draw_efficiency<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    d: &ScalingData,
    st: &Style,
) -> DrawResult<PlotArea> {
    let mut chart = frame(root, st, 0f64..1.05, "efficiency", &percent)?;
    shade_oom(&mut chart, d, (0.0, 1.05), st)?;
    let ink = st.ink();
    let pts: Vec<(f64, f64)> = d
        .points
        .iter()
        .map(|p| (f64::from(p.gpus), p.efficiency.clamp(0.0, 1.05)))
        .collect();
    let w = st.px(3.0);
    chart
        .draw_series(LineSeries::new(pts.clone(), ink.stroke_width(w)))
        .map_err(err)?
        .label("efficiency")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], ink.stroke_width(w)));
    chart
        .draw_series(
            pts.iter()
                .map(|(x, y)| Circle::new((*x, *y), st.px(2.5), ink.filled())),
        )
        .map_err(err)?;
    if let Some(p) = d.chosen_point() {
        chart
            .draw_series(std::iter::once(Circle::new(
                (f64::from(p.gpus), p.efficiency.clamp(0.0, 1.05)),
                st.px(7.0),
                PALETTE[4].stroke_width(st.px(3.0)),
            )))
            .map_err(err)?;
    }
    legend(&mut chart, st, SeriesLabelPosition::LowerLeft)?;
    Ok(area(&chart))
}

/// Fill colours of the breakdown parts, in [`PARTS`] order; each also gets a hatch-free legend
/// with its name, so meaning never rests on colour alone.
pub const PART_COLOURS: [RGBColor; 5] =
    [PALETTE[5], PALETTE[4], PALETTE[1], PALETTE[6], PALETTE[2]];

/// Share of the step by part (stacked, 0–100 %) against GPU count.
pub fn draw_breakdown<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    d: &ScalingData,
    st: &Style,
) -> DrawResult<PlotArea> {
    let fg = st.fg();
    let mut chart = frame(root, st, 0f64..1.0, "share of step", &percent)?;
    let shares: Vec<(f64, [f64; 5])> = d
        .points
        .iter()
        .map(|p: &Point| {
            let t = p.breakdown.total().max(1e-12);
            (f64::from(p.gpus), parts(&p.breakdown).map(|v| v / t))
        })
        .collect();
    // Draw from the top of the stack down so each band's area covers the ones above it.
    for i in (0..PARTS.len()).rev() {
        let top: Vec<(f64, f64)> = shares
            .iter()
            .map(|(x, s)| (*x, s[..=i].iter().sum::<f64>().min(1.0)))
            .collect();
        if shares.iter().all(|(_, s)| s[i] < 1e-4) {
            continue;
        }
        let colour = PART_COLOURS[i];
        chart
            .draw_series(
                AreaSeries::new(top, 0.0, colour.mix(0.85))
                    .border_style(fg.stroke_width(st.px(1.0))),
            )
            .map_err(err)?
            .label(PARTS[i])
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
    }
    legend(&mut chart, st, SeriesLabelPosition::LowerLeft)?;
    Ok(area(&chart))
}

/// Speedup curves of the same scenario over up to four networks.
pub fn draw_compare<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    curves: &[(&'static Network, Vec<Point>)],
    st: &Style,
) -> DrawResult<PlotArea> {
    let mut chart = speedup_frame(root, st)?;
    let w = st.px(2.5);
    for (i, (net, pts)) in curves.iter().enumerate() {
        let colour = [st.ink(), PALETTE[1], PALETTE[5], PALETTE[3]][i % 4];
        let xy: Vec<(f64, f64)> = pts
            .iter()
            .map(|p| (f64::from(p.gpus), p.speedup.max(1.0)))
            .collect();
        chart
            .draw_series(LineSeries::new(xy.clone(), colour.stroke_width(w)))
            .map_err(err)?
            .label(net.name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(w)));
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
    legend(&mut chart, st, SeriesLabelPosition::UpperLeft)?;
    Ok(area(&chart))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware;
    use crate::model::scenario::Scenario;
    use crate::render::series::{compare_data, scaling_data};
    use plotters::prelude::{DrawingBackend, IntoDrawingArea};
    use plotters_backend::{BackendColor, BackendCoord, BackendStyle, DrawingErrorKind};
    use std::cell::RefCell;
    use std::rc::Rc;

    /// What the recording backend saw.
    #[derive(Default)]
    struct Log {
        lines: usize,
        texts: Vec<String>,
    }

    /// A backend that records what is drawn, so drawing code is tested without a browser.
    struct Recorder(Rc<RefCell<Log>>);

    #[derive(Debug)]
    struct Never;
    impl std::fmt::Display for Never {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "never")
        }
    }
    impl std::error::Error for Never {}

    impl DrawingBackend for Recorder {
        type ErrorType = Never;
        fn get_size(&self) -> (u32, u32) {
            (800, 500)
        }
        fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Never>> {
            Ok(())
        }
        fn present(&mut self) -> Result<(), DrawingErrorKind<Never>> {
            Ok(())
        }
        fn draw_pixel(
            &mut self,
            _: BackendCoord,
            _: BackendColor,
        ) -> Result<(), DrawingErrorKind<Never>> {
            Ok(())
        }
        fn draw_line<S: BackendStyle>(
            &mut self,
            _: BackendCoord,
            _: BackendCoord,
            _: &S,
        ) -> Result<(), DrawingErrorKind<Never>> {
            self.0.borrow_mut().lines += 1;
            Ok(())
        }
        fn draw_text<S: plotters_backend::BackendTextStyle>(
            &mut self,
            text: &str,
            _: &S,
            _: BackendCoord,
        ) -> Result<(), DrawingErrorKind<Never>> {
            self.0.borrow_mut().texts.push(text.to_string());
            Ok(())
        }
    }

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
        assert!(texts(Figure::Breakdown(&d))
            .iter()
            .any(|t| t == "data wait"));
        let nets: Vec<&'static hardware::Network> =
            hardware::network("ib-ndr").into_iter().collect();
        let curves = compare_data(&sc, &nets);
        assert!(texts(Figure::Compare(&curves))
            .iter()
            .any(|t| t == nets[0].name));
    }

    #[test]
    fn breakdown_and_compare_charts_name_every_series() {
        let sc = Scenario::parse("gpus=64&gpu=h100&model=resnet50").unwrap();
        let d = scaling_data(&sc);
        let (rec, _) = record(|root| draw_breakdown(root, &d, &style()));
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
        let (rec2, _) = record(|root| draw_compare(root, &curves, &style()));
        for n in &nets {
            assert!(rec2.texts.iter().any(|t| t == n.name), "{}", n.name);
        }
        let dark = Style {
            dark: true,
            projector: true,
            scale: 2.0,
        };
        let (rec3, _) = record(|root| draw_efficiency(root, &d, &dark));
        assert!(rec3.texts.iter().any(|t| t == "efficiency"));
    }
}
