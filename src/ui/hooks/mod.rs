//! Reusable browser behaviour as `use_*` functions, one per file in the manner of leptos-use.
//! Each hook ties what it registers (an observer, a listener, an animation frame) to the
//! reactive owner that called it and releases it in `on_cleanup`, so an unmounted panel leaves
//! nothing running and nothing leaked.

pub mod use_deferred_paint;
pub mod use_element_size;
pub mod use_intersection;
pub mod use_media_query;
pub mod use_prefers_dark;
pub mod use_raf;
pub mod use_reduced_motion;

pub use use_deferred_paint::use_deferred_paint;
pub use use_element_size::{use_element_size, ElementSize};
pub use use_intersection::use_intersection;
pub use use_media_query::use_media_query;
pub use use_prefers_dark::{use_prefers_dark, ThemeOverride};
pub use use_raf::{use_raf, use_raf_with_options, Pausable, RafArgs, UseRafOptions};
pub use use_reduced_motion::use_reduced_motion;
