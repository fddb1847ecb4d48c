//! The render layer: turns model output into things to draw. Native-testable.
