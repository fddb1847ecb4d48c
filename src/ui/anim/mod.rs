//! The all-reduce animation and the step timeline on canvas. What to show comes from the render
//! layer (`render::playable`, `render::anim`, `render::timeline`); [`paint`] draws it with the 2D
//! context, [`panel`] holds the animation's controls and its requestAnimationFrame loop (paused
//! off-screen, never autoplaying under prefers-reduced-motion), [`timeline`] the step's Gantt.

pub mod paint;
pub mod panel;
pub mod timeline;

pub use panel::AnimationPanel;
pub use timeline::TimelinePanel;
