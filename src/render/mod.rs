//! The render layer: turns model output into things to draw, over any plotters backend or as
//! plain shapes. Native-testable; the UI hands it a canvas.

pub mod anim;
pub mod charts;
pub mod figure;
pub mod measured;
pub mod playable;
pub mod plot;
pub mod series;
pub mod timeline;
pub mod topology;
pub mod train;
pub mod validation;
