//! Sizes, colours and number labels shared by every chart (the explorer's, the validation
//! scatter, the measured-run chart) for a [`super::charts::Style`]: device pixels, `scale` =
//! devicePixelRatio, larger type and thicker lines in projector mode, light or dark ink.

use super::charts::Style;
use plotters::style::RGBColor;

/// Drawing results carry the backend's error as text.
pub type DrawResult<T> = Result<T, String>;

/// The backend's error as text.
pub fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// Device-pixel sizes and theme colours for a [`Style`].
pub trait Ink {
    /// A length given in CSS pixels, in device pixels (at least 1).
    fn px(&self, css: f64) -> u32;
    /// A font size given in CSS pixels, in device pixels.
    fn font(&self, css: f64) -> f64;
    /// Text and axes.
    fn fg(&self) -> RGBColor;
    /// The chart's background.
    fn bg(&self) -> RGBColor;
}

impl Ink for Style {
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
}

/// A number for a log axis: 0.01, 0.1, 1, 10, 100, 1k, 10k, 1M.
pub fn short_number(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e3 {
        format!("{}k", trim(v / 1e3))
    } else {
        trim(v)
    }
}

/// A log axis drawn as a linear axis over log₁₀ values (one coordinate type for every chart of
/// these pages, which keeps the wasm small): the label at each whole decade, none between.
pub fn decade_label(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-6 {
        short_number(10f64.powf(v.round()))
    } else {
        String::new()
    }
}

/// How many labels a log₁₀ axis from `lo` to `hi` asks for: one per whole decade, so the
/// axis steps by one decade.
pub fn decade_count(lo: f64, hi: f64) -> usize {
    ((hi.floor() - lo.ceil()) as i64 + 1).clamp(2, 12) as usize
}

/// Up to three significant digits, without trailing zeros.
fn trim(v: f64) -> String {
    let a = v.abs();
    let s = if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A drawing backend that records what is drawn, for tests without a browser.
#[cfg(test)]
pub mod recorder {
    use plotters::prelude::*;
    use plotters_backend::{BackendColor, BackendCoord, BackendStyle, DrawingErrorKind};
    use std::cell::RefCell;
    use std::rc::Rc;

    /// What was drawn.
    #[derive(Debug, Default)]
    pub struct Log {
        /// Line segments.
        pub lines: usize,
        /// Filled or outlined rectangles.
        pub rects: usize,
        /// Circles.
        pub circles: usize,
        /// Texts, in order.
        pub texts: Vec<String>,
    }

    #[derive(Debug)]
    pub struct Never;
    impl std::fmt::Display for Never {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "never")
        }
    }
    impl std::error::Error for Never {}

    /// The recording backend, 800 × 600 device pixels.
    pub struct Recorder(pub Rc<RefCell<Log>>);

    impl DrawingBackend for Recorder {
        type ErrorType = Never;
        fn get_size(&self) -> (u32, u32) {
            (800, 600)
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
        fn draw_rect<S: BackendStyle>(
            &mut self,
            _: BackendCoord,
            _: BackendCoord,
            _: &S,
            _: bool,
        ) -> Result<(), DrawingErrorKind<Never>> {
            self.0.borrow_mut().rects += 1;
            Ok(())
        }
        fn draw_circle<S: BackendStyle>(
            &mut self,
            _: BackendCoord,
            _: u32,
            _: &S,
            _: bool,
        ) -> Result<(), DrawingErrorKind<Never>> {
            self.0.borrow_mut().circles += 1;
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

    /// Draws with `f` on a fresh recorder and returns what was drawn.
    pub fn record(
        f: impl FnOnce(&DrawingArea<Recorder, plotters::coord::Shift>) -> Result<(), String>,
    ) -> Log {
        let log = Rc::new(RefCell::new(Log::default()));
        {
            let root = Recorder(log.clone()).into_drawing_area();
            f(&root).unwrap();
        }
        Rc::try_unwrap(log)
            .ok()
            .map(RefCell::into_inner)
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_numbers_are_short() {
        assert_eq!(short_number(1000.0), "1k");
        assert_eq!(short_number(25000.0), "25k");
        assert_eq!(short_number(0.1), "0.1");
        assert_eq!(short_number(2.5e6), "2.5M");
        assert_eq!(short_number(100.0), "100");
        assert_eq!(decade_label(&3.0), "1k");
        assert_eq!(decade_label(&2.5), "");
        assert_eq!(decade_count(-0.7, 5.4), 6);
    }

    #[test]
    fn projector_and_hidpi_scale_sizes() {
        let st = Style {
            scale: 2.0,
            dark: true,
            projector: true,
        };
        assert_eq!(st.px(10.0), 30);
        assert!((st.font(10.0) - 28.0).abs() < 1e-9);
        assert_ne!(st.fg(), st.bg());
    }
}
