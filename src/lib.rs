//! GPU Scaling Lab: why more GPUs don't make training proportionally faster.
//!
//! Three layers: [`model`] (pure Rust cost model), [`render`] (what to draw, over any plotters
//! backend) and, in the browser only, `ui` (Leptos components).

pub mod classroom;
pub mod cli;
pub mod lessons;
pub mod model;
pub mod render;
pub mod validation;

#[cfg(target_arch = "wasm32")]
pub mod ui;
