//! Typed reports: what the CLI prints, the page exports, and lessons and validation rows read.
//!
//! Each report is a `Serialize` struct. Lessons and validation rows name a metric by its JSON
//! key; [`metric_names`] lists the numeric ones and [`CollectiveReport::metric`] /
//! [`StepReport::metric`] read them, so a typo is caught when the file is loaded.

use super::collective::{self, CollectiveCost};
use super::goodput;
use super::scenario::{Scenario, Setup};
use super::step::{self, Bottleneck, StepResult};
use super::sweep::{self, SweepPoint};
use super::units::GIB;
use super::ModelError;
use serde::Serialize;

/// The `collective` command's answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CollectiveReport {
    /// The scenario string that produced it (canonical).
    pub scenario: String,
    /// The collective.
    pub op: &'static str,
    /// The algorithm (resolved from `auto`).
    pub algorithm: &'static str,
    /// NCCL protocol used.
    pub protocol: &'static str,
    /// GPUs.
    pub gpus: u32,
    /// Nodes.
    pub nodes: u32,
    /// Message size, bytes.
    pub bytes: f64,
    /// Time, µs.
    pub time_us: f64,
    /// Algorithm bandwidth, GB/s (10⁹ bytes).
    pub algbw_gbs: f64,
    /// nccl-tests bus bandwidth, GB/s.
    pub busbw_gbs: f64,
    /// The link class that bounds the transfer.
    pub bottleneck: &'static str,
    /// Rounds.
    pub rounds: u64,
    /// Share of the time that is latency, 0…1.
    pub latency_share: f64,
    /// At least half the time is latency: no link's bandwidth is what it waits on.
    pub latency_bound: bool,
    /// How each tier of the fabric is used.
    pub tiers: Vec<TierReport>,
}

/// One tier of the fabric in a collective.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TierReport {
    /// `node-fabric`, `nic`, `leaf-uplink`, `spine-uplink`.
    pub tier: &'static str,
    /// Bytes the tier's busiest element carries, one direction.
    pub bytes: f64,
    /// Share of the collective's time that element is busy.
    pub utilisation: f64,
}

impl CollectiveReport {
    /// Costs the scenario's collective.
    pub fn new(sc: &Scenario) -> Result<CollectiveReport, ModelError> {
        let s = sc.setup()?;
        let c = s.cluster();
        let r: CollectiveCost = collective::cost(&c, s.op, s.algo, s.bytes)?;
        Ok(CollectiveReport {
            scenario: sc.to_query(),
            op: r.op.id(),
            algorithm: r.algorithm.id(),
            protocol: r.protocol.id(),
            gpus: c.gpus,
            nodes: c.nodes(),
            bytes: r.bytes,
            time_us: r.time_s * 1e6,
            algbw_gbs: r.algbw_gbs,
            busbw_gbs: r.busbw_gbs,
            bottleneck: r.bottleneck.id_on(c.intra),
            rounds: r.rounds,
            latency_share: r.latency_share,
            latency_bound: r.latency_bound(),
            tiers: collective::TIERS
                .iter()
                .zip(r.tiers)
                .filter(|(_, t)| t.bytes > 0.0)
                .map(|(name, t)| TierReport {
                    tier: name,
                    bytes: t.bytes,
                    utilisation: t.utilisation,
                })
                .collect(),
        })
    }

    /// A numeric field by its JSON key.
    pub fn metric(&self, name: &str) -> Option<f64> {
        COLLECTIVE_METRICS
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, f)| f(self))
    }
}

type Getter<T> = fn(&T) -> f64;

/// The numeric fields of [`CollectiveReport`].
const COLLECTIVE_METRICS: &[(&str, Getter<CollectiveReport>)] = &[
    ("gpus", |r| f64::from(r.gpus)),
    ("nodes", |r| f64::from(r.nodes)),
    ("bytes", |r| r.bytes),
    ("time_us", |r| r.time_us),
    ("algbw_gbs", |r| r.algbw_gbs),
    ("busbw_gbs", |r| r.busbw_gbs),
    ("rounds", |r| r.rounds as f64),
    ("latency_share", |r| r.latency_share),
];

/// Communication before overlap, ms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CommMs {
    /// Tensor-parallel collectives.
    pub tp: f64,
    /// Pipeline sends.
    pub pp: f64,
    /// Data-parallel gradient sync.
    pub dp: f64,
}

/// Memory per GPU by kind, GiB.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MemoryGib {
    /// Weights.
    pub weights: f64,
    /// Gradients.
    pub gradients: f64,
    /// Optimizer state.
    pub optimizer: f64,
    /// Activations kept for the backward pass.
    pub activations: f64,
    /// Working buffers at the peak (the loss's, ZeRO-3's gathered units).
    pub buffers: f64,
}

/// Where a step's time goes, ms (serialised flat: `step_ms`, `compute_ms`, …).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StepMs {
    /// Step time.
    pub step_ms: f64,
    /// Compute.
    pub compute_ms: f64,
    /// Communication not hidden.
    pub comm_exposed_ms: f64,
    /// Input-pipeline wait.
    pub data_wait_ms: f64,
    /// Serial work.
    pub serial_ms: f64,
    /// Pipeline bubble.
    pub bubble_ms: f64,
}

impl StepMs {
    fn of(b: &step::Breakdown) -> StepMs {
        StepMs {
            step_ms: b.total() * 1e3,
            compute_ms: b.compute * 1e3,
            comm_exposed_ms: b.comm_exposed * 1e3,
            data_wait_ms: b.data_wait * 1e3,
            serial_ms: b.serial * 1e3,
            bubble_ms: b.bubble * 1e3,
        }
    }
}

/// Shares of elapsed time lost.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Lost {
    /// Writing checkpoints.
    pub checkpoints: f64,
    /// Redoing work since the last checkpoint.
    pub work: f64,
    /// Restarting.
    pub restarts: f64,
}

/// The `step` command's answer: inputs as resolved, the step's parts, rates and the verdict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepReport {
    /// The scenario string that produced it (canonical).
    pub scenario: String,
    /// GPUs.
    pub gpus: u32,
    /// Data-parallel replicas.
    pub dp: u32,
    /// Tensor-parallel degree.
    pub tp: u32,
    /// Pipeline stages.
    pub pp: u32,
    /// Model chunks per pipeline GPU as run (1 where strong scaling leaves a replica fewer
    /// micro-batches than stages).
    pub vpp: u32,
    /// ZeRO stage (resolved).
    pub zero: u8,
    /// Global batch, samples.
    pub batch: u64,
    /// Micro-batch per GPU.
    pub micro: u32,
    /// Micro-batches per step.
    pub micro_batches: u64,
    /// Training math.
    pub precision: &'static str,
    /// Where the step's time goes, ms.
    #[serde(flatten)]
    pub times: StepMs,
    /// Communication before overlap, ms.
    pub comm_total_ms: CommMs,
    /// Samples/s, whole cluster.
    pub throughput: f64,
    /// Tokens/s, whole cluster (transformers).
    pub tokens_per_s: Option<f64>,
    /// Tokens/s per GPU (transformers), as training benchmarks publish it.
    pub tokens_per_gpu_s: Option<f64>,
    /// Achieved TFLOP/s per GPU counting recomputation.
    pub tflops_per_gpu: f64,
    /// Model FLOPs utilisation, 0…1.
    pub mfu: f64,
    /// Speedup against one GPU.
    pub speedup: f64,
    /// Speedup / GPUs.
    pub efficiency: f64,
    /// The Amdahl serial fraction this count's speedup implies (Karp–Flatt).
    pub serial_fraction: f64,
    /// Memory per GPU, GiB.
    pub memory_gib_per_gpu: f64,
    /// Usable memory per GPU, GiB.
    pub memory_capacity_gib: f64,
    /// Memory per GPU by kind.
    pub memory_gib: MemoryGib,
    /// Whether it fits.
    pub fits: bool,
    /// Median step time, ms (the step as modelled, every GPU on time).
    pub step_ms_p50: f64,
    /// What the slowest GPU adds to a step on average, ms.
    pub straggler_ms: f64,
    /// The expected step with stragglers, ms.
    pub slowest_step_ms: f64,
    /// Mean time between job interruptions, hours.
    pub mttf_hours: f64,
    /// Minutes between checkpoints.
    pub checkpoint_interval_min: f64,
    /// Minutes to write one checkpoint.
    pub checkpoint_write_min: f64,
    /// Effective training time ratio: useful time over elapsed time.
    pub ettr: f64,
    /// Where the rest of the time goes: checkpoint writes, lost work, restarts (shares).
    pub lost: Lost,
    /// Useful samples/s after stragglers and failures.
    pub goodput: f64,
    /// Critical batch, samples.
    pub critical_batch: f64,
    /// The run's data budget, samples.
    pub budget_samples: f64,
    /// Steps to train.
    pub steps_to_train: f64,
    /// Days to train.
    pub time_to_train_days: f64,
    /// GPU-hours of the run.
    pub gpu_hours: f64,
    /// Energy of the run, MWh.
    pub energy_mwh: f64,
    /// Cost of the run at the price per GPU-hour.
    pub cost: f64,
    /// The dominant wait.
    pub bottleneck: Bottleneck,
    /// The verdict in words.
    pub verdict: String,
    /// The advice, quantified.
    pub advice: String,
}

impl StepReport {
    /// Evaluates the scenario's step, with the serial fraction its speedup implies.
    pub fn new(sc: &Scenario) -> Result<StepReport, ModelError> {
        let s = sc.setup()?;
        let r = step::evaluate_setup(&s)?;
        let f = sweep::karp_flatt(sc.gpus, r.speedup);
        Ok(StepReport::from_result(sc, &s, &r, f))
    }

    /// The report of an evaluated step.
    pub fn from_result(
        sc: &Scenario,
        s: &Setup,
        r: &StepResult,
        serial_fraction: f64,
    ) -> StepReport {
        let b = &r.breakdown;
        let v = step::verdict(sc, r);
        let g = goodput::goodput(s, r);
        let rel = g.reliability;
        StepReport {
            scenario: sc.to_query(),
            gpus: s.gpus,
            dp: s.dp,
            tp: s.tp,
            pp: s.pp,
            vpp: s.vpp,
            zero: s.zero,
            batch: s.batch,
            micro: s.micro,
            micro_batches: r.micro_batches,
            precision: s.precision.id(),
            times: StepMs::of(b),
            comm_total_ms: CommMs {
                tp: r.comm.tp * 1e3,
                pp: r.comm.pp * 1e3,
                dp: r.comm.dp * 1e3,
            },
            throughput: r.throughput,
            tokens_per_s: r.tokens_per_s,
            tokens_per_gpu_s: r.tokens_per_s.map(|t| t / f64::from(s.gpus)),
            tflops_per_gpu: r.tflops_per_gpu,
            mfu: r.mfu,
            speedup: r.speedup,
            efficiency: r.efficiency,
            serial_fraction,
            memory_gib_per_gpu: r.memory.total() / GIB,
            memory_capacity_gib: r.memory.capacity / GIB,
            memory_gib: MemoryGib {
                weights: r.memory.weights / GIB,
                gradients: r.memory.gradients / GIB,
                optimizer: r.memory.optimizer / GIB,
                activations: r.memory.activations / GIB,
                buffers: r.memory.buffers / GIB,
            },
            fits: r.memory.fits(),
            step_ms_p50: b.total() * 1e3,
            straggler_ms: g.straggler * 1e3,
            slowest_step_ms: (b.total() + g.straggler) * 1e3,
            mttf_hours: rel.mttf_hours,
            checkpoint_interval_min: rel.interval_minutes,
            checkpoint_write_min: rel.checkpoint_minutes,
            ettr: rel.ettr,
            lost: Lost {
                checkpoints: rel.lost_checkpoint,
                work: rel.lost_work,
                restarts: rel.lost_restart,
            },
            goodput: g.goodput,
            critical_batch: g.critical_batch,
            budget_samples: g.budget_samples,
            steps_to_train: g.steps,
            time_to_train_days: g.days,
            gpu_hours: g.gpu_hours,
            energy_mwh: g.energy_mwh,
            cost: g.cost,
            bottleneck: v.bottleneck,
            verdict: v.text,
            advice: v.advice,
        }
    }

    /// A numeric field by its JSON key.
    pub fn metric(&self, name: &str) -> Option<f64> {
        STEP_METRICS
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, f)| f(self))
    }
}

/// The numeric fields of [`StepReport`].
const STEP_METRICS: &[(&str, Getter<StepReport>)] = &[
    ("gpus", |r| f64::from(r.gpus)),
    ("dp", |r| f64::from(r.dp)),
    ("tp", |r| f64::from(r.tp)),
    ("pp", |r| f64::from(r.pp)),
    ("vpp", |r| f64::from(r.vpp)),
    ("zero", |r| f64::from(r.zero)),
    ("batch", |r| r.batch as f64),
    ("micro", |r| f64::from(r.micro)),
    ("micro_batches", |r| r.micro_batches as f64),
    ("step_ms", |r| r.times.step_ms),
    ("compute_ms", |r| r.times.compute_ms),
    ("comm_exposed_ms", |r| r.times.comm_exposed_ms),
    ("data_wait_ms", |r| r.times.data_wait_ms),
    ("serial_ms", |r| r.times.serial_ms),
    ("bubble_ms", |r| r.times.bubble_ms),
    ("throughput", |r| r.throughput),
    ("tokens_per_s", |r| r.tokens_per_s.unwrap_or(f64::NAN)),
    ("tokens_per_gpu_s", |r| {
        r.tokens_per_gpu_s.unwrap_or(f64::NAN)
    }),
    ("tflops_per_gpu", |r| r.tflops_per_gpu),
    ("mfu", |r| r.mfu),
    ("speedup", |r| r.speedup),
    ("efficiency", |r| r.efficiency),
    ("serial_fraction", |r| r.serial_fraction),
    ("memory_gib_per_gpu", |r| r.memory_gib_per_gpu),
    ("memory_capacity_gib", |r| r.memory_capacity_gib),
    ("step_ms_p50", |r| r.step_ms_p50),
    ("straggler_ms", |r| r.straggler_ms),
    ("slowest_step_ms", |r| r.slowest_step_ms),
    ("mttf_hours", |r| r.mttf_hours),
    ("checkpoint_interval_min", |r| r.checkpoint_interval_min),
    ("checkpoint_write_min", |r| r.checkpoint_write_min),
    ("ettr", |r| r.ettr),
    ("goodput", |r| r.goodput),
    ("critical_batch", |r| r.critical_batch),
    ("budget_samples", |r| r.budget_samples),
    ("steps_to_train", |r| r.steps_to_train),
    ("time_to_train_days", |r| r.time_to_train_days),
    ("gpu_hours", |r| r.gpu_hours),
    ("energy_mwh", |r| r.energy_mwh),
    ("cost", |r| r.cost),
];

/// The numeric metrics a command's report has, for checking lesson and validation files.
pub fn metric_names(command: &str) -> Option<Vec<&'static str>> {
    match command {
        "collective" => Some(COLLECTIVE_METRICS.iter().map(|(k, _)| *k).collect()),
        "step" => Some(STEP_METRICS.iter().map(|(k, _)| *k).collect()),
        _ => None,
    }
}

/// Checks that `command` exists and reports `metric`; the error names both.
pub fn check_metric(command: &str, metric: &str) -> Result<(), String> {
    let names = metric_names(command)
        .ok_or_else(|| format!("unknown command '{command}'; accepted: collective, step"))?;
    if names.contains(&metric) {
        Ok(())
    } else {
        Err(format!(
            "the {command} report has no metric '{metric}'; accepted: {}",
            names.join(", ")
        ))
    }
}

/// One metric of one scenario, through the typed reports.
pub fn evaluate_metric(command: &str, query: &str, metric: &str) -> Result<f64, String> {
    check_metric(command, metric)?;
    let sc = Scenario::parse(query).map_err(|e| e.to_string())?;
    let v = match command {
        "collective" => CollectiveReport::new(&sc).map(|r| r.metric(metric)),
        _ => StepReport::new(&sc).map(|r| r.metric(metric)),
    }
    .map_err(|e| e.to_string())?;
    v.filter(|x| x.is_finite())
        .ok_or_else(|| format!("{metric} has no value for {query}"))
}

/// One GPU count of a sweep: the step's parts and rates (no verdict: it is per count).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepRow {
    /// GPUs.
    pub gpus: u32,
    /// Where the step's time goes, ms.
    #[serde(flatten)]
    pub times: StepMs,
    /// Samples/s, whole cluster.
    pub throughput: f64,
    /// Speedup against one GPU.
    pub speedup: f64,
    /// Speedup / GPUs.
    pub efficiency: f64,
    /// Amdahl's speedup at the fitted serial fraction.
    pub amdahl_speedup: f64,
    /// Model FLOPs utilisation.
    pub mfu: f64,
    /// Memory fits.
    pub fits: bool,
    /// The expected step with stragglers, ms.
    pub slowest_step_ms: f64,
    /// Effective training time ratio.
    pub ettr: f64,
    /// Useful samples/s after stragglers and failures.
    pub goodput: f64,
    /// Days to train the data budget.
    pub time_to_train_days: f64,
    /// Days to train with the step time alone (no stragglers, failures or batch limit).
    pub step_only_days: f64,
    /// GPU-hours of the run.
    pub gpu_hours: f64,
    /// Cost of the run.
    pub cost: f64,
}

/// A sweep: one row per valid GPU count, and why the others are not valid.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepTable {
    /// The inter-node network when the CLI compares several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inter: Option<&'static str>,
    /// The Amdahl serial fraction the scenario's own count implies (Karp–Flatt).
    pub serial_fraction: f64,
    /// Valid counts.
    pub points: Vec<SweepRow>,
    /// Counts that are not valid scenarios, with the reason.
    pub skipped: Vec<(u32, String)>,
}

/// One CSV cell of a sweep row.
type Cell = fn(&SweepRow) -> String;

/// The CSV columns of a sweep, in order.
const CSV_COLUMNS: &[(&str, Cell)] = &[
    ("gpus", |r| r.gpus.to_string()),
    ("step_ms", |r| format!("{:.4}", r.times.step_ms)),
    ("compute_ms", |r| format!("{:.4}", r.times.compute_ms)),
    ("comm_exposed_ms", |r| {
        format!("{:.4}", r.times.comm_exposed_ms)
    }),
    ("data_wait_ms", |r| format!("{:.4}", r.times.data_wait_ms)),
    ("serial_ms", |r| format!("{:.4}", r.times.serial_ms)),
    ("bubble_ms", |r| format!("{:.4}", r.times.bubble_ms)),
    ("throughput", |r| format!("{:.3}", r.throughput)),
    ("speedup", |r| format!("{:.4}", r.speedup)),
    ("efficiency", |r| format!("{:.4}", r.efficiency)),
    ("amdahl_speedup", |r| format!("{:.4}", r.amdahl_speedup)),
    ("mfu", |r| format!("{:.4}", r.mfu)),
    ("fits", |r| r.fits.to_string()),
    ("slowest_step_ms", |r| format!("{:.4}", r.slowest_step_ms)),
    ("ettr", |r| format!("{:.4}", r.ettr)),
    ("goodput", |r| format!("{:.3}", r.goodput)),
    ("time_to_train_days", |r| {
        format!("{:.4}", r.time_to_train_days)
    }),
    ("step_only_days", |r| format!("{:.4}", r.step_only_days)),
    ("gpu_hours", |r| format!("{:.1}", r.gpu_hours)),
    ("cost", |r| format!("{:.0}", r.cost)),
];

impl SweepTable {
    /// The table of evaluated points.
    pub fn new(sc: &Scenario, pts: &[SweepPoint]) -> SweepTable {
        let f = sweep::fitted_serial_fraction(sc, pts);
        let mut points = Vec::new();
        let mut skipped = Vec::new();
        for p in pts {
            match (&p.result, sc_at(sc, p.gpus)) {
                (Ok(r), Some(s)) => points.push(SweepRow::new(&s, r, f)),
                (Ok(_), None) => skipped.push((p.gpus, "does not resolve".to_string())),
                (Err(e), _) => skipped.push((p.gpus, e.clone())),
            }
        }
        SweepTable {
            inter: None,
            serial_fraction: f,
            points,
            skipped,
        }
    }

    /// The header line of the CSV (with a leading `inter` column when `with_inter`).
    pub fn csv_header(with_inter: bool) -> String {
        let cols: Vec<&str> = CSV_COLUMNS.iter().map(|(k, _)| *k).collect();
        let lead = if with_inter { "inter," } else { "" };
        format!("{lead}{}\n", cols.join(","))
    }

    /// The rows as CSV lines (prefixed by the network id when the table has one).
    pub fn csv_rows(&self) -> String {
        let mut out = String::new();
        for r in &self.points {
            if let Some(n) = self.inter {
                out.push_str(n);
                out.push(',');
            }
            let cells: Vec<String> = CSV_COLUMNS.iter().map(|(_, f)| f(r)).collect();
            out.push_str(&cells.join(","));
            out.push('\n');
        }
        out
    }

    /// The whole table as CSV.
    pub fn csv(&self) -> String {
        Self::csv_header(self.inter.is_some()) + &self.csv_rows()
    }
}

/// The resolved setup of the scenario at another GPU count.
fn sc_at(sc: &Scenario, gpus: u32) -> Option<Setup> {
    Scenario { gpus, ..sc.clone() }.setup().ok()
}

impl SweepRow {
    fn new(s: &Setup, r: &StepResult, serial_fraction: f64) -> SweepRow {
        let b = &r.breakdown;
        let gpus = s.gpus;
        let g = goodput::goodput(s, r);
        SweepRow {
            gpus,
            times: StepMs::of(b),
            throughput: r.throughput,
            speedup: r.speedup,
            efficiency: r.efficiency,
            amdahl_speedup: sweep::amdahl(serial_fraction, f64::from(gpus)),
            mfu: r.mfu,
            fits: r.memory.fits(),
            slowest_step_ms: (b.total() + g.straggler) * 1e3,
            ettr: g.reliability.ettr,
            goodput: g.goodput,
            time_to_train_days: g.days,
            step_only_days: g.budget_samples / r.throughput / 86400.0,
            gpu_hours: g.gpu_hours,
            cost: g.cost,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every number the reports serialise can be named by lessons and validation rows.
    #[test]
    fn every_numeric_field_is_a_metric() {
        let sc = Scenario::parse("gpus=16&model=gpt2-xl").unwrap();
        for (cmd, v) in [
            (
                "collective",
                serde_json::to_value(CollectiveReport::new(&sc).unwrap()).unwrap(),
            ),
            (
                "step",
                serde_json::to_value(StepReport::new(&sc).unwrap()).unwrap(),
            ),
        ] {
            let names = metric_names(cmd).unwrap();
            for (k, x) in v.as_object().unwrap() {
                if x.is_number() {
                    assert!(names.contains(&k.as_str()), "{cmd}: {k} is not a metric");
                }
            }
        }
    }

    #[test]
    fn a_misspelt_metric_is_named() {
        let e = check_metric("step", "step_time").unwrap_err();
        assert!(e.contains("step_time") && e.contains("step_ms"), "{e}");
        assert!(check_metric("stpe", "step_ms").is_err());
    }

    #[test]
    fn one_csv_for_cli_and_page() {
        let sc = Scenario::parse("gpus=64&model=gpt2-xl&inter=tcp25").unwrap();
        let t = SweepTable::new(&sc, &sweep::curve(&sc));
        let csv = t.csv();
        assert_eq!(csv.lines().count(), t.points.len() + 1);
        let cols = csv.lines().next().unwrap().split(',').count();
        assert!(csv.lines().all(|l| l.split(',').count() == cols));
    }
}
