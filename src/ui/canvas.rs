//! `Canvas`: the plotters drawing backend of every chart, on a 2D canvas, in place of
//! plotters-canvas, which sets the context's colour, width and font strings before every line
//! and label (about two thousand calls into the browser per redraw of two charts) and measures
//! text by adding an element to the page (a forced layout each). This one sets the context's
//! state only when it changes, draws runs of lines and dots of one style (a dashed curve is a
//! hundred dashes, a grid forty lines) as one path, and measures text with `measureText`.

use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontTransform,
};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// The page's background behind a hand-drawn canvas (the animation, the topology view, an
/// exported figure), light or dark, as the stylesheet's.
pub fn page_bg(dark: bool) -> &'static str {
    if dark {
        "#181a1f"
    } else {
        "#ffffff"
    }
}

/// A failed canvas call, with the browser's message.
#[derive(Debug)]
pub struct CanvasError(String);

impl std::fmt::Display for CanvasError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "canvas: {}", self.0)
    }
}

impl std::error::Error for CanvasError {}

type Drawn = Result<(), DrawingErrorKind<CanvasError>>;

fn failed(e: wasm_bindgen::JsValue) -> DrawingErrorKind<CanvasError> {
    DrawingErrorKind::DrawingError(CanvasError(
        e.as_string().unwrap_or_else(|| format!("{e:?}")),
    ))
}

/// A colour that can be compared (plotters' has no `PartialEq`).
#[derive(Clone, Copy, PartialEq)]
struct Colour((u8, u8, u8), f64);

impl From<BackendColor> for Colour {
    fn from(c: BackendColor) -> Colour {
        Colour(c.rgb, c.alpha)
    }
}

/// The path being collected: strokes of one colour and width, or fills of one colour.
#[derive(Clone, Copy, PartialEq)]
enum Batch {
    Stroke(Colour, u32),
    Fill(Colour),
}

/// The context's state as last set, so equal values are not sent again.
#[derive(Default)]
struct State {
    stroke: Option<Colour>,
    width: Option<u32>,
    fill: Option<Colour>,
    font: String,
    align: &'static str,
    baseline: &'static str,
}

/// A plotters backend drawing on `canvas` in backing-store pixels.
pub struct Canvas {
    canvas: HtmlCanvasElement,
    ctx: CanvasRenderingContext2d,
    state: State,
    batch: Option<Batch>,
}

impl Canvas {
    /// The backend for `canvas`, or `None` if the browser gives no 2D context.
    pub fn new(canvas: HtmlCanvasElement) -> Option<Canvas> {
        let ctx = canvas
            .get_context("2d")
            .ok()??
            .dyn_into::<CanvasRenderingContext2d>()
            .ok()?;
        Some(Canvas {
            canvas,
            ctx,
            state: State::default(),
            batch: None,
        })
    }

    /// Draws the path collected so far.
    fn flush(&mut self) {
        match self.batch.take() {
            Some(Batch::Stroke(..)) => self.ctx.stroke(),
            Some(Batch::Fill(_)) => self.ctx.fill(),
            None => {}
        }
    }

    /// Adds the points as one sub-path of the current path: a move to the first, lines to the
    /// rest.
    fn trace(&self, path: impl IntoIterator<Item = BackendCoord>) {
        let mut path = path.into_iter();
        if let Some(start) = path.next() {
            self.ctx.move_to(f64::from(start.0), f64::from(start.1));
        }
        for p in path {
            self.ctx.line_to(f64::from(p.0), f64::from(p.1));
        }
    }

    /// Continues the current path if it has the same style, else draws it and starts one.
    fn join(&mut self, batch: Batch) {
        if self.batch == Some(batch) {
            return;
        }
        self.flush();
        match batch {
            Batch::Stroke(c, w) => self.stroke_style(c, w),
            Batch::Fill(c) => self.fill_style(c),
        }
        self.ctx.begin_path();
        self.batch = Some(batch);
    }

    fn stroke_style(&mut self, c: Colour, width: u32) {
        if self.state.stroke != Some(c) {
            self.ctx.set_stroke_style_str(&css(c));
            self.state.stroke = Some(c);
        }
        if self.state.width != Some(width) {
            self.ctx.set_line_width(f64::from(width));
            self.state.width = Some(width);
        }
    }

    fn fill_style(&mut self, c: Colour) {
        if self.state.fill != Some(c) {
            self.ctx.set_fill_style_str(&css(c));
            self.state.fill = Some(c);
        }
    }

    fn font<S: BackendTextStyle>(&mut self, style: &S) {
        let font = format!(
            "{} {}px {}",
            style.style().as_str(),
            style.size(),
            style.family().as_str()
        );
        if self.state.font != font {
            self.ctx.set_font(&font);
            self.state.font = font;
        }
    }
}

impl Drop for Canvas {
    fn drop(&mut self) {
        self.flush();
    }
}

/// A colour as CSS.
fn css(Colour((r, g, b), a): Colour) -> String {
    format!("rgba({r},{g},{b},{a})")
}

/// Moves a horizontal or vertical line onto the pixel grid (half-pixel offsets), so a 1 px line
/// stays sharp.
fn crisp(from: BackendCoord, to: BackendCoord) -> ((f64, f64), (f64, f64)) {
    let (mut a, mut b) = (
        (f64::from(from.0), f64::from(from.1)),
        (f64::from(to.0), f64::from(to.1)),
    );
    if from.0 == to.0 {
        a.0 -= 0.5;
        b.0 -= 0.5;
    }
    if from.1 == to.1 {
        a.1 -= 0.5;
        b.1 -= 0.5;
    }
    (a, b)
}

impl DrawingBackend for Canvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        (self.canvas.width(), self.canvas.height())
    }

    fn ensure_prepared(&mut self) -> Drawn {
        Ok(())
    }

    fn present(&mut self) -> Drawn {
        self.flush();
        Ok(())
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawn {
        if color.alpha == 0.0 {
            return Ok(());
        }
        self.flush();
        self.fill_style(color.into());
        self.ctx
            .fill_rect(f64::from(point.0), f64::from(point.1), 1.0, 1.0);
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawn {
        let c = Colour::from(style.color());
        if c.1 == 0.0 {
            return Ok(());
        }
        self.join(Batch::Stroke(c, style.stroke_width()));
        let (a, b) = crisp(from, to);
        self.ctx.move_to(a.0, a.1);
        self.ctx.line_to(b.0, b.1);
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn {
        let c = Colour::from(style.color());
        if c.1 == 0.0 {
            return Ok(());
        }
        self.flush();
        let (x, y) = (f64::from(upper_left.0), f64::from(upper_left.1));
        let (w, h) = (
            f64::from(bottom_right.0 - upper_left.0),
            f64::from(bottom_right.1 - upper_left.1),
        );
        if fill {
            self.fill_style(c);
            self.ctx.fill_rect(x, y, w, h);
        } else {
            self.stroke_style(c, style.stroke_width());
            self.ctx.stroke_rect(x, y, w, h);
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn {
        let c = Colour::from(style.color());
        if c.1 == 0.0 {
            return Ok(());
        }
        let mut path = path.into_iter().peekable();
        if path.peek().is_none() {
            return Ok(());
        }
        // A sub-path of the current path: its joins stay its own (a dashed line is a hundred
        // two-point paths).
        self.join(Batch::Stroke(c, style.stroke_width()));
        self.trace(path);
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn {
        let c = Colour::from(style.color());
        if c.1 == 0.0 {
            return Ok(());
        }
        let mut path = path.into_iter().peekable();
        if path.peek().is_none() {
            return Ok(());
        }
        self.flush();
        self.join(Batch::Fill(c));
        self.trace(path);
        self.ctx.close_path();
        self.flush();
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn {
        let c = Colour::from(style.color());
        if c.1 == 0.0 {
            return Ok(());
        }
        // Dots of one style join one path; each is its own closed sub-path.
        self.join(if fill {
            Batch::Fill(c)
        } else {
            Batch::Stroke(c, style.stroke_width())
        });
        let (x, y, r) = (f64::from(center.0), f64::from(center.1), f64::from(radius));
        self.ctx.move_to(x + r, y);
        self.ctx
            .arc(x, y, r, 0.0, std::f64::consts::TAU)
            .map_err(failed)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        // `&self`: set the font for the measurement and put the current one back.
        let font = format!(
            "{} {}px {}",
            style.style().as_str(),
            style.size(),
            style.family().as_str()
        );
        self.ctx.set_font(&font);
        let width = self.ctx.measure_text(text).map_err(failed)?.width();
        if !self.state.font.is_empty() && self.state.font != font {
            self.ctx.set_font(&self.state.font);
        }
        // The line box of a sans-serif font is about 1.15 em.
        Ok((width.ceil() as u32, (style.size() * 1.15).ceil() as u32))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Drawn {
        let c = Colour::from(style.color());
        if c.1 == 0.0 {
            return Ok(());
        }
        self.flush();
        let degrees: f64 = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 90.0,
            FontTransform::Rotate180 => 180.0,
            FontTransform::Rotate270 => 270.0,
        };
        let (mut x, mut y) = (f64::from(pos.0), f64::from(pos.1));
        if degrees != 0.0 {
            self.ctx.save();
            self.ctx.translate(x, y).map_err(failed)?;
            self.ctx.rotate(degrees.to_radians()).map_err(failed)?;
            (x, y) = (0.0, 0.0);
        }
        let baseline = match style.anchor().v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        };
        if self.state.baseline != baseline {
            self.ctx.set_text_baseline(baseline);
            self.state.baseline = baseline;
        }
        let align = match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        };
        if self.state.align != align {
            self.ctx.set_text_align(align);
            self.state.align = align;
        }
        self.fill_style(c);
        self.font(style);
        let drawn = self.ctx.fill_text(text, x, y).map_err(failed);
        if degrees != 0.0 {
            // `restore` also undoes the text settings made since `save`: forget them.
            self.ctx.restore();
            self.state.baseline = "";
            self.state.align = "";
            self.state.fill = None;
            self.state.font.clear();
        }
        drawn
    }
}
