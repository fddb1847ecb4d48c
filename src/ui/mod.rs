//! The Leptos UI shell (browser only).
