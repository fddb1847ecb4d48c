//! The cost model: pure Rust, no web crates. Hardware, collectives and their schedules,
//! workloads, the training step, sweeps, and the scenario format shared by the URL and the CLI.

pub mod collective;
pub mod goodput;
pub mod hardware;
pub mod keys;
pub mod nccl_tests;
pub mod report;
pub mod scenario;
pub mod schedule;
pub mod step;
pub mod sweep;
pub mod topology;
pub mod units;
pub mod workload;

use std::fmt;

/// An error a user can act on: which key was wrong and what is accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    /// The scenario key at fault (or keys, joined by `+`).
    pub key: String,
    /// What was wrong and what is accepted.
    pub message: String,
}

impl ModelError {
    /// A new error about `key`.
    pub fn new(key: &str, message: impl Into<String>) -> ModelError {
        ModelError {
            key: key.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

impl std::error::Error for ModelError {}
