//! The render layer: turns model output into things to draw, over any plotters backend.
//! Native-testable; the UI hands it a canvas.

pub mod charts;
pub mod series;
