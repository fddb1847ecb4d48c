//! The step timeline (Gantt): per GPU row, when it computes, communicates, waits for data, sits
//! in the pipeline bubble or runs the optimizer — from the step model's breakdown.

use crate::model::scenario::Scenario;
use crate::model::step::StepResult;

/// What a bar is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarKind {
    /// Waiting for input data.
    Data,
    /// Forward pass.
    Forward,
    /// Backward pass.
    Backward,
    /// Tensor-parallel / pipeline communication (exposed).
    Comm,
    /// Gradient all-reduce running underneath the backward pass (hidden).
    CommHidden,
    /// Gradient all-reduce the GPU waits for (exposed).
    CommExposed,
    /// Pipeline bubble: idle while other stages work.
    Bubble,
    /// Optimizer step and host overhead.
    Serial,
    /// Done with its backward pass, waiting for the slowest GPU's gradients (stragglers).
    Straggler,
}

impl BarKind {
    /// Legend text.
    pub fn label(self) -> &'static str {
        match self {
            BarKind::Data => "waiting for data",
            BarKind::Forward => "forward",
            BarKind::Backward => "backward",
            BarKind::Comm => "tensor/pipeline communication",
            BarKind::CommHidden => "gradient all-reduce (hidden under backward)",
            BarKind::CommExposed => "gradient all-reduce (GPU waits)",
            BarKind::Bubble => "pipeline bubble (idle)",
            BarKind::Serial => "optimizer + host (serial)",
            BarKind::Straggler => "waiting for the slowest GPU",
        }
    }

    /// Whether the GPU's compute units are idle during this bar.
    pub fn idle(self) -> bool {
        matches!(
            self,
            BarKind::Data
                | BarKind::CommExposed
                | BarKind::Bubble
                | BarKind::Comm
                | BarKind::Straggler
        )
    }
}

/// One bar: row, start and end in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    /// Row (GPU or pipeline stage).
    pub row: usize,
    /// Start, seconds.
    pub start: f64,
    /// End, seconds.
    pub end: f64,
    /// What the GPU does.
    pub kind: BarKind,
}

/// The timeline of one step.
#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    /// Row labels.
    pub rows: Vec<String>,
    /// The bars, row by row.
    pub bars: Vec<Bar>,
    /// Step time.
    pub total: f64,
}

/// Builds the timeline: one row per pipeline stage (data-parallel replicas behave alike), or
/// one row per GPU up to eight for pure data parallelism.
pub fn timeline(sc: &Scenario, r: &StepResult) -> Timeline {
    let b = r.breakdown;
    let pp = sc.pp.max(1) as usize;
    // Stragglers (`jitter`, `slow_gpus`): the slowest of the job's GPUs computes this much
    // longer, and the synchronous gradient sync waits for it (the same figure as the run's).
    let straggler = sc.ops.straggler_seconds(b.compute, sc.gpus);
    let rows: Vec<String> = if pp > 1 {
        (0..pp)
            .map(|s| {
                format!(
                    "stage {} ({} GPU{})",
                    s + 1,
                    sc.tp,
                    if sc.tp > 1 { "s" } else { "" }
                )
            })
            .collect()
    } else {
        let shown = sc.gpus.min(8);
        let mut v: Vec<String> = (0..shown).map(|g| format!("GPU {}", g + 1)).collect();
        if sc.gpus > shown {
            if let Some(last) = v.last_mut() {
                *last = format!("GPU {}…{}", shown, sc.gpus);
            }
        }
        if straggler > 0.0 && sc.gpus > 1 {
            // The slowest GPU gets its own row, at the top.
            if let Some(first) = v.first_mut() {
                *first = "slowest GPU".to_string();
            }
        }
        v
    };
    // With pipeline stages every row is a group of GPUs: the slowest GPU is somewhere in each,
    // so every stage computes longer; without, only its own row does and the others wait.
    let slowest_row = |row: usize| pp > 1 || row == 0;
    let mut bars = Vec::new();
    // Forward is a third of the compute and backward two thirds (Kaplan et al. 2020: backward ≈
    // 2× forward); tensor-parallel and pipeline communication sit between them.
    let fwd = b.compute / 3.0;
    let bwd = b.compute - fwd;
    let other_comm = r.comm.tp + r.comm.pp;
    let dp_exposed = (b.comm_exposed - other_comm).max(0.0);
    for (row, _) in rows.iter().enumerate() {
        // Stage s waits s micro-batch slots before its first forward and leaves the rest of the
        // bubble at the end (1F1B warm-up and cool-down).
        let share = if pp > 1 {
            row as f64 / (pp - 1) as f64
        } else {
            0.0
        };
        let mut t = 0.0;
        let push = |bars: &mut Vec<Bar>, kind: BarKind, d: f64, t: &mut f64| {
            if d > 0.0 {
                bars.push(Bar {
                    row,
                    start: *t,
                    end: *t + d,
                    kind,
                });
                *t += d;
            }
        };
        push(&mut bars, BarKind::Data, b.data_wait, &mut t);
        push(&mut bars, BarKind::Bubble, b.bubble * share, &mut t);
        push(&mut bars, BarKind::Forward, fwd, &mut t);
        push(&mut bars, BarKind::Comm, other_comm, &mut t);
        let bwd_start = t;
        if slowest_row(row) {
            push(&mut bars, BarKind::Backward, bwd + straggler, &mut t);
        } else {
            push(&mut bars, BarKind::Backward, bwd, &mut t);
            push(&mut bars, BarKind::Straggler, straggler, &mut t);
        }
        push(&mut bars, BarKind::Bubble, b.bubble * (1.0 - share), &mut t);
        // The gradient all-reduce starts under the backward pass and runs past it by the
        // exposed part.
        let hidden = (r.comm.dp - dp_exposed).max(0.0).min(t - bwd_start);
        if hidden > 0.0 {
            bars.push(Bar {
                row,
                start: t - hidden,
                end: t,
                kind: BarKind::CommHidden,
            });
        }
        push(&mut bars, BarKind::CommExposed, dp_exposed, &mut t);
        push(&mut bars, BarKind::Serial, b.serial, &mut t);
    }
    Timeline {
        rows,
        bars,
        total: b.total() + straggler,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::goodput::straggler_seconds;
    use crate::model::step::evaluate;

    #[test]
    fn every_row_adds_up_to_the_step_time() {
        for q in [
            "gpus=64&gpu=a100&inter=tcp100&nics=1&model=llama3-8b&zero=3",
            "gpus=512&gpu=h100&inter=ib-ndr&model=llama3-70b&tp=8&pp=4&zero=1",
            "gpus=64&gpu=h100&inter=ib-ndr&model=resnet50",
        ] {
            let sc = Scenario::parse(q).unwrap();
            let r = evaluate(&sc).unwrap();
            let tl = timeline(&sc, &r);
            for row in 0..tl.rows.len() {
                let end = tl
                    .bars
                    .iter()
                    .filter(|b| b.row == row && b.kind != BarKind::CommHidden)
                    .map(|b| b.end - b.start)
                    .sum::<f64>();
                assert!((end - tl.total).abs() < 1e-9 * tl.total, "{q} row {row}");
            }
        }
    }

    #[test]
    fn network_bound_steps_show_the_gpus_waiting() {
        let sc =
            Scenario::parse("gpus=64&gpu=a100&inter=tcp100&nics=1&model=llama3-8b&zero=3").unwrap();
        let tl = timeline(&sc, &evaluate(&sc).unwrap());
        assert_eq!(tl.rows.len(), 8);
        assert_eq!(tl.rows[7], "GPU 8…64");
        let waiting: f64 = tl
            .bars
            .iter()
            .filter(|b| b.row == 0 && b.kind == BarKind::CommExposed)
            .map(|b| b.end - b.start)
            .sum();
        assert!(waiting > 0.4 * tl.total);
        assert!(tl.bars.iter().any(|b| b.kind == BarKind::CommHidden));
    }

    #[test]
    fn stragglers_make_the_others_wait_for_the_slowest_gpu() {
        let q = "gpus=64&gpu=h100&inter=ib-ndr&model=llama3-8b&jitter=0.05&slow_gpus=0.01";
        let sc = Scenario::parse(q).unwrap();
        let r = evaluate(&sc).unwrap();
        let tl = timeline(&sc, &r);
        let slowest = straggler_seconds(r.breakdown.compute, 64, 0.05, 0.01, 1.5);
        assert!(slowest > 0.0);
        assert!((tl.total - (r.breakdown.total() + slowest)).abs() < 1e-12);
        assert_eq!(tl.rows[0], "slowest GPU");
        let of = |row: usize, kind: BarKind| -> f64 {
            tl.bars
                .iter()
                .filter(|b| b.row == row && b.kind == kind)
                .map(|b| b.end - b.start)
                .sum()
        };
        // The slowest computes longer; every other row waits exactly that long.
        assert!((of(0, BarKind::Backward) - of(1, BarKind::Backward) - slowest).abs() < 1e-12);
        assert_eq!(of(0, BarKind::Straggler), 0.0);
        for row in 1..tl.rows.len() {
            assert!(
                (of(row, BarKind::Straggler) - slowest).abs() < 1e-12,
                "row {row}"
            );
        }
        // Without jitter or slow GPUs nothing changes.
        let calm = Scenario::parse("gpus=64&gpu=h100&inter=ib-ndr&model=llama3-8b").unwrap();
        let tl = timeline(&calm, &evaluate(&calm).unwrap());
        assert!(tl.bars.iter().all(|b| b.kind != BarKind::Straggler));
        assert_eq!(tl.rows[0], "GPU 1");
    }

    #[test]
    fn pipeline_rows_are_stages_with_a_bubble() {
        let sc =
            Scenario::parse("gpus=512&gpu=h100&inter=ib-ndr&model=llama3-70b&tp=8&pp=4&zero=1")
                .unwrap();
        let tl = timeline(&sc, &evaluate(&sc).unwrap());
        assert_eq!(tl.rows.len(), 4);
        assert!(tl
            .bars
            .iter()
            .any(|b| b.kind == BarKind::Bubble && b.row == 0));
        // The first stage starts at once, the last waits for the warm-up.
        let first_fwd = |row| {
            tl.bars
                .iter()
                .find(|b| b.row == row && b.kind == BarKind::Forward)
                .unwrap()
                .start
        };
        assert!(first_fwd(0) < first_fwd(3));
    }
}
