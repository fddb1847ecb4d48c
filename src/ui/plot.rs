//! `use_plot`: a canvas drawn by the render layer at the device's pixel ratio, redrawn when the
//! data its drawing function reads, its size, the theme or projector mode change — for the
//! validation scatter and the measured-run chart (the explorer's charts have their own panel).

use super::browser::{device_pixel_ratio, size_backing_store};
use super::canvas::Canvas;
use super::hooks::{use_element_size, use_prefers_dark};
use super::state::Lab;
use crate::render::charts::Style;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea};

/// Draws `draw` on the canvas behind `canvas` whenever anything it reads changes. A canvas
/// with no size (hidden, or not laid out yet) is left alone until it has one.
pub fn use_plot<F>(canvas: NodeRef<leptos::html::Canvas>, name: &'static str, draw: F)
where
    F: Fn(&DrawingArea<Canvas, Shift>, &Style) -> Result<(), String> + 'static,
{
    let lab = expect_context::<Lab>();
    let size = use_element_size(canvas);
    let dark = use_prefers_dark();
    Effect::new(move |_| {
        let (w, h) = (size.width.get(), size.height.get());
        let projector = lab.projector.get();
        let dark = dark.get();
        let Some(c) = canvas.get() else {
            return;
        };
        if w < 10.0 || h < 10.0 {
            return;
        }
        let dpr = device_pixel_ratio();
        // The backend draws in backing-store pixels: size the store to the device pixels.
        size_backing_store(&c, (w, h), dpr);
        let style = Style {
            scale: dpr,
            dark,
            projector,
        };
        let Some(backend) = Canvas::new(c.clone()) else {
            return;
        };
        let root = backend.into_drawing_area();
        if let Err(e) = draw(&root, &style) {
            leptos::logging::warn!("chart {name}: {e}");
        }
        let _ = root.present();
    });
}
