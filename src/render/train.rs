//! A training run at every GPU count: how long the data budget takes once stragglers, failures,
//! checkpoints and the critical batch are counted, what the run costs, and where its elapsed
//! time goes. The "time to train" chart and the breakdown chart draw these; what the page says
//! beside them (takeaway, hover readout, data table) is decided here.

use super::figure::Table;
use super::series::{gpus_text, group, parts, PARTS};
use crate::model::goodput;
use crate::model::report::SweepTable;
use crate::model::scenario::Scenario;
use crate::model::step::Breakdown;
use crate::model::sweep::SweepPoint;

/// The keys that describe the run rather than the step (stragglers, failures, checkpoints, the
/// data budget, the critical batch and the price). The step model does not read them, so the
/// page sweeps the step without them: changing a price or a failure rate re-sweeps nothing.
pub const RUN_KEYS: [&str; 11] = [
    "jitter",
    "slow_gpus",
    "slow_factor",
    "failure_rate",
    "ckpt_gbs",
    "restart_min",
    "ckpt_interval",
    "tokens",
    "samples",
    "batch_noise",
    "price",
];

/// The scenario with the run keys back at their defaults: what the step (and its sweep) depend
/// on.
pub fn step_scenario(sc: &Scenario) -> Scenario {
    let mut s = sc.clone();
    s.reset(&RUN_KEYS.join("+"));
    s
}

/// The parts of a run's elapsed time, in stacking order: the step's own parts, then what the
/// run adds.
pub const RUN_PARTS: [&str; 9] = [
    PARTS[0],
    PARTS[1],
    PARTS[2],
    PARTS[3],
    PARTS[4],
    "stragglers",
    "checkpoints",
    "failures: lost work",
    "restarts",
];

/// One GPU count of the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunPoint {
    /// GPUs.
    pub gpus: u32,
    /// The model fits in memory.
    pub fits: bool,
    /// The step's parts, seconds.
    pub breakdown: Breakdown,
    /// What waiting for the slowest GPU adds to each step, seconds.
    pub straggler: f64,
    /// Effective training time ratio: useful share of elapsed time.
    pub ettr: f64,
    /// Shares of elapsed time lost to checkpoint writes, redone work and restarts.
    pub lost: [f64; 3],
    /// Global batch, samples.
    pub batch: f64,
    /// Days if only the step time counted (`step_only_days` of the sweep).
    pub step_only_days: f64,
    /// Days with stragglers, failures and the critical batch (`time_to_train_days`).
    pub days: f64,
    /// GPU-hours.
    pub gpu_hours: f64,
    /// Energy, MWh.
    pub energy_mwh: f64,
    /// Cost at the example price.
    pub cost: f64,
}

impl RunPoint {
    /// How many more steps the run takes than budget / batch: 1 + B / B_noise (McCandlish et
    /// al. 2018).
    pub fn batch_factor(&self, critical_batch: f64) -> f64 {
        1.0 + self.batch / critical_batch.max(1.0)
    }

    /// What stragglers add to a step, as a share of the step.
    pub fn straggler_share(&self) -> f64 {
        self.straggler / self.breakdown.total().max(1e-12)
    }
}

/// The run over 1…65,536 GPUs.
#[derive(Clone, Debug, PartialEq)]
pub struct RunData {
    /// Valid counts.
    pub points: Vec<RunPoint>,
    /// The chosen count.
    pub chosen: u32,
    /// The data budget, samples.
    pub budget_samples: f64,
    /// Tokens per sample (transformers).
    pub tokens_per_sample: Option<f64>,
    /// The critical batch, samples.
    pub critical_batch: f64,
    /// Price per GPU-hour (an example).
    pub price: f64,
}

/// The run at each count of a sweep of the scenario's step (`pts`, from [`step_scenario`] or
/// the scenario itself: the step does not read the run keys).
pub fn run_data(sc: &Scenario, pts: &[SweepPoint]) -> RunData {
    let table = SweepTable::new(sc, pts);
    let mut data = RunData {
        points: Vec::new(),
        chosen: sc.gpus,
        budget_samples: 0.0,
        tokens_per_sample: None,
        critical_batch: 1.0,
        price: sc.ops.price,
    };
    for row in &table.points {
        let Some(r) = pts
            .iter()
            .find(|p| p.gpus == row.gpus)
            .and_then(|p| p.result.as_ref().ok())
        else {
            continue;
        };
        let Ok(s) = (Scenario {
            gpus: row.gpus,
            ..sc.clone()
        })
        .setup() else {
            continue;
        };
        let g = goodput::goodput(&s, r);
        let rel = g.reliability;
        data.budget_samples = g.budget_samples;
        data.tokens_per_sample = s.workload.sample_tokens();
        data.critical_batch = g.critical_batch;
        data.points.push(RunPoint {
            gpus: row.gpus,
            fits: row.fits,
            breakdown: r.breakdown,
            straggler: g.straggler,
            ettr: row.ettr,
            lost: [rel.lost_checkpoint, rel.lost_work, rel.lost_restart],
            batch: s.batch as f64,
            step_only_days: row.step_only_days,
            days: row.time_to_train_days,
            gpu_hours: row.gpu_hours,
            energy_mwh: g.energy_mwh,
            cost: row.cost,
        });
    }
    data
}

pub use crate::model::units::days_text;

/// Energy given in MWh: "39,938 MWh", "4.2 MWh", "310 kWh", "0.52 kWh".
pub fn energy_text(mwh: f64) -> String {
    if !mwh.is_finite() {
        "—".to_string()
    } else if mwh >= 10.0 {
        format!("{} MWh", group(mwh.round() as u32))
    } else if mwh >= 1.0 {
        format!("{mwh:.1} MWh")
    } else if mwh >= 0.001 {
        format!("{:.0} kWh", mwh * 1000.0)
    } else {
        format!("{:.2} kWh", mwh * 1000.0)
    }
}

/// Money in US dollars: "$512", "$70,054", "$31.2 M", "$1.4 B".
pub fn money(x: f64) -> String {
    if !x.is_finite() {
        "—".to_string()
    } else if x >= 1e9 {
        format!("${:.1} B", x / 1e9)
    } else if x >= 1e6 {
        format!("${:.1} M", x / 1e6)
    } else {
        format!("${}", group(x.round().max(0.0) as u32))
    }
}

/// A large count with a K/M/B/T suffix when that is exact to three decimals ("15T", "160B",
/// "1.2M"), else the plain number: what the `tokens` field shows (and parses back).
pub fn compact_count(x: f64) -> String {
    for (m, suffix) in [(1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")] {
        let v = x / m;
        if (1.0..1000.0).contains(&v) && ((v * 1000.0).round() - v * 1000.0).abs() < 1e-6 {
            return format!("{}{suffix}", (v * 1000.0).round() / 1000.0);
        }
    }
    format!("{x}")
}

/// A count in words with three significant figures: "160 billion", "1.28 million".
fn count_words(x: f64) -> String {
    for (m, word) in [
        (1e12, "trillion"),
        (1e9, "billion"),
        (1e6, "million"),
        (1e3, "thousand"),
    ] {
        if x >= m {
            let v = x / m;
            let digits = if v >= 100.0 {
                0
            } else if v >= 10.0 {
                1
            } else {
                2
            };
            let s = format!("{v:.digits$}");
            let s = if s.contains('.') {
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            } else {
                s
            };
            return format!("{s} {word}");
        }
    }
    format!("{}", x.round())
}

/// The columns of [`RunData::table`].
pub const RUN_COLUMNS: [&str; 12] = [
    "gpus",
    "ideal_days",
    "step_only_days",
    "time_to_train_days",
    "ettr",
    "straggler_ms",
    "batch",
    "steps_factor",
    "gpu_hours",
    "energy_mwh",
    "cost_example_usd",
    "fits",
];

/// The columns of [`TimeShares::table`].
pub const SHARES_COLUMNS: [&str; 12] = [
    "gpus",
    "compute_ms",
    "comm_exposed_ms",
    "data_wait_ms",
    "serial_ms",
    "bubble_ms",
    "straggler_ms",
    "checkpoint_ms",
    "lost_work_ms",
    "restart_ms",
    "elapsed_per_step_ms",
    "fits",
];

impl RunData {
    /// The data budget in words: "160 billion tokens" or "115 million samples".
    pub fn budget_text(&self) -> String {
        match self.tokens_per_sample {
            Some(t) => format!("{} tokens", count_words(self.budget_samples * t)),
            None => format!("{} samples", count_words(self.budget_samples)),
        }
    }

    /// Days at point `i` if every GPU kept the first count's speed (ideal scaling).
    pub fn ideal_days(&self, i: usize) -> f64 {
        match (self.points.first(), self.points.get(i)) {
            (Some(a), Some(p)) => a.step_only_days * f64::from(a.gpus) / f64::from(p.gpus),
            _ => f64::NAN,
        }
    }

    /// The index of the point where `key` is smallest, among counts that fit in memory.
    fn argmin(&self, key: impl Fn(&RunPoint) -> f64) -> Option<usize> {
        self.points
            .iter()
            .enumerate()
            .filter(|(_, p)| p.fits && key(p).is_finite())
            .min_by(|a, b| key(a.1).total_cmp(&key(b.1)))
            .map(|(i, _)| i)
    }

    /// The count that trains fastest (index).
    pub fn fastest(&self) -> Option<usize> {
        self.argmin(|p| p.days)
    }

    /// The count that trains cheapest (index).
    pub fn cheapest(&self) -> Option<usize> {
        self.argmin(|p| p.cost)
    }

    /// The point at the chosen count.
    pub fn chosen_point(&self) -> Option<&RunPoint> {
        self.points.iter().find(|p| p.gpus == self.chosen)
    }

    /// The chosen count where the model fits and so times the run (none where it does not:
    /// nothing is timed there, and the chart rings no count).
    pub fn timed_point(&self) -> Option<&RunPoint> {
        self.chosen_point().filter(|p| p.fits)
    }

    /// Why the run at `p` takes longer than its step time promises, as clauses: the critical
    /// batch, stragglers, failures and checkpoints (those that matter).
    fn reasons(&self, p: &RunPoint) -> Vec<String> {
        let mut out = Vec::new();
        let fb = p.batch_factor(self.critical_batch);
        if fb > 1.05 {
            out.push(format!(
                "the global batch of {} samples is {:.1}× the critical batch ({} samples), so the run needs {:.1}× the steps the budget divided by the batch would suggest",
                whole(p.batch),
                p.batch / self.critical_batch,
                whole(self.critical_batch),
                fb
            ));
        }
        if p.straggler_share() > 0.005 {
            out.push(format!(
                "waiting for the slowest GPU adds {:.0} % to every step",
                100.0 * p.straggler_share()
            ));
        }
        if p.ettr < 0.995 {
            out.push(format!(
                "failures, restarts and checkpoints leave {:.0} % of the time useful (ETTR)",
                100.0 * p.ettr
            ));
        }
        out
    }

    /// The chart's message: the fastest and cheapest counts, and why more GPUs stop helping.
    pub fn takeaway(&self) -> String {
        let Some(best) = self.fastest().map(|i| &self.points[i]) else {
            return "The model does not fit in memory at any GPU count shown, so no run is timed."
                .to_string();
        };
        let mut s = format!(
            "Training on {} takes {} at best, on {}; the step time alone would promise {}.",
            self.budget_text(),
            days_text(best.days),
            gpus_text(best.gpus),
            days_text(best.step_only_days)
        );
        let last = self.points.iter().rev().find(|p| p.fits).unwrap_or(best);
        if last.gpus > best.gpus {
            s.push_str(&format!(
                " Beyond that, more GPUs make it slower: {} on {}.",
                days_text(last.days),
                gpus_text(last.gpus)
            ));
        }
        let why = self.reasons(last);
        if !why.is_empty() {
            s.push_str(&format!(" At {} {}.", gpus_text(last.gpus), join(&why)));
        }
        if let Some(c) = self.cheapest().map(|i| &self.points[i]) {
            s.push_str(&format!(
                " The cheapest run is on {}: {} at an example price of ${:.2} per GPU-hour.",
                gpus_text(c.gpus),
                money(c.cost),
                self.price
            ));
        }
        s
    }

    /// What the chart shows at point `i`.
    pub fn readout(&self, i: usize) -> String {
        let Some(p) = self.points.get(i) else {
            return String::new();
        };
        let oom = if p.fits {
            ""
        } else {
            " — does not fit in memory"
        };
        format!(
            "{}: {} (step time alone {}, ideal {}); ETTR {:.1} %, stragglers +{:.0} %, {:.1}× the steps; {} at the example price{oom}",
            gpus_text(p.gpus),
            days_text(p.days),
            days_text(p.step_only_days),
            days_text(self.ideal_days(i)),
            100.0 * p.ettr,
            100.0 * p.straggler_share(),
            p.batch_factor(self.critical_batch),
            money(p.cost)
        )
    }

    /// The numbers behind the chart.
    pub fn table(&self) -> Table {
        Table {
            header: RUN_COLUMNS.iter().map(|h| h.to_string()).collect(),
            rows: self
                .points
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    vec![
                        p.gpus.to_string(),
                        format!("{:.4}", self.ideal_days(i)),
                        format!("{:.4}", p.step_only_days),
                        format!("{:.4}", p.days),
                        format!("{:.4}", p.ettr),
                        format!("{:.3}", p.straggler * 1e3),
                        format!("{}", p.batch),
                        format!("{:.3}", p.batch_factor(self.critical_batch)),
                        format!("{:.1}", p.gpu_hours),
                        format!("{:.3}", p.energy_mwh),
                        format!("{:.0}", p.cost),
                        p.fits.to_string(),
                    ]
                })
                .collect(),
        }
    }
}

/// A whole count with separators, in words beyond ten million: "8,192", "27 million".
fn whole(x: f64) -> String {
    if x >= 1e7 {
        count_words(x)
    } else {
        group(x.round().max(0.0) as u32)
    }
}

/// "a", "a and b", "a, b and c".
fn join(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [a] => a.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// One GPU count's elapsed time per training step, by part (seconds, [`RUN_PARTS`] order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SharePoint {
    /// GPUs.
    pub gpus: u32,
    /// The model fits in memory.
    pub fits: bool,
    /// Seconds of elapsed time per step: the step's parts, stragglers, then the time lost to
    /// checkpoints, redone work and restarts spread over the steps.
    pub parts: [f64; 9],
}

impl SharePoint {
    /// Elapsed time per step.
    pub fn total(&self) -> f64 {
        self.parts.iter().sum()
    }

    /// What the breakdown says first of the chosen count (a lesson's): its largest part other
    /// than compute (compute's share where none reaches 5 %), what stragglers and failures add,
    /// and how much longer stragglers make the step, the measure a step is timed by
    /// (`straggler_ms` over `step_ms`; a share of the elapsed time reads smaller).
    fn chosen_text(&self) -> String {
        let total = self.total().max(1e-12);
        let (i, v) = match self.largest_wait() {
            (i, v) if i == 0 || v < 0.05 * total => (0, self.parts[0]),
            wait => wait,
        };
        let mut s = format!(
            "At the chosen {}, {} {:.0} % of the time",
            gpus_text(self.gpus),
            takes(i),
            100.0 * v / total
        );
        let run: f64 = self.parts[5..].iter().sum();
        if run > 0.02 * total && i < 5 {
            s.push_str(&format!(
                "; stragglers, checkpoints, lost work and restarts together {:.0} %",
                100.0 * run / total
            ));
        }
        s.push_str(". ");
        let step: f64 = self.parts[..5].iter().sum();
        if self.parts[5] > 0.02 * total && step > 0.0 {
            s.push_str(&format!(
                "The slowest GPU makes each step {:.0} % longer than the average GPU's. ",
                100.0 * self.parts[5] / step
            ));
        }
        s
    }

    /// The largest part other than compute, as its [`RUN_PARTS`] index and seconds; (0, 0)
    /// when nothing but compute takes any time.
    fn largest_wait(&self) -> (usize, f64) {
        self.parts
            .iter()
            .enumerate()
            .skip(1)
            .fold((0, 0.0), |a, (i, v)| if *v > a.1 { (i, *v) } else { a })
    }
}

/// "data wait takes", "restarts take": a [`RUN_PARTS`] part as the subject of a share.
fn takes(i: usize) -> String {
    match i {
        5 => "waiting for stragglers takes".to_string(),
        6 => "checkpoints take".to_string(),
        7 => "work lost to failures takes".to_string(),
        8 => "restarts take".to_string(),
        _ => format!("{} takes", RUN_PARTS.get(i).unwrap_or(&"compute")),
    }
}

/// Where a run's elapsed time goes at each count: the breakdown chart.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeShares {
    /// Valid counts.
    pub points: Vec<SharePoint>,
    /// The chosen count (the chart marks it and its takeaway starts there).
    pub chosen: u32,
}

impl SharePoint {
    /// The elapsed time per step of a run point: the slowest GPU's step over the ETTR, the lost
    /// shares of it named.
    pub fn new(p: &RunPoint) -> SharePoint {
        let step = parts(&p.breakdown);
        let slowest = p.breakdown.total() + p.straggler;
        let elapsed = slowest / p.ettr.max(1e-3);
        SharePoint {
            gpus: p.gpus,
            fits: p.fits,
            parts: [
                step[0],
                step[1],
                step[2],
                step[3],
                step[4],
                p.straggler,
                elapsed * p.lost[0],
                elapsed * p.lost[1],
                elapsed * p.lost[2],
            ],
        }
    }
}

impl TimeShares {
    /// The shares of a run.
    pub fn new(run: &RunData) -> TimeShares {
        TimeShares {
            points: run.points.iter().map(SharePoint::new).collect(),
            chosen: run.chosen,
        }
    }

    /// The shares at the chosen count, if the sweep has it.
    pub fn chosen_point(&self) -> Option<&SharePoint> {
        self.points.iter().find(|p| p.gpus == self.chosen)
    }

    /// The breakdown chart's message: where the time goes at the chosen count (what a lesson's
    /// question is about), then what grows with the GPU count up to the largest, and what the
    /// run adds.
    pub fn takeaway(&self) -> String {
        let Some(last) = self.points.last() else {
            return String::new();
        };
        let chosen = self
            .chosen_point()
            .filter(|c| c.gpus != last.gpus)
            .map(SharePoint::chosen_text)
            .unwrap_or_default();
        let total = last.total().max(1e-12);
        let (i, v) = last.largest_wait();
        let mut s = chosen;
        s.push_str(&if i == 0 || v < 0.05 * total {
            format!("Compute dominates the time up to {}.", gpus_text(last.gpus))
        } else {
            format!(
                "At {}, {} {:.0} % of the time.",
                gpus_text(last.gpus),
                takes(i),
                100.0 * v / total
            )
        });
        let run: f64 = last.parts[5..].iter().sum();
        if run > 0.02 * total {
            s.push_str(&format!(
                " Stragglers, checkpoints, lost work and restarts together take {:.0} %.",
                100.0 * run / total
            ));
        }
        s
    }

    /// The shares at point `i`: "64 GPUs: compute 80 %, exposed communication 15 %, …".
    pub fn readout(&self, i: usize) -> String {
        let Some(p) = self.points.get(i) else {
            return String::new();
        };
        let t = p.total().max(1e-12);
        let s: Vec<String> = RUN_PARTS
            .iter()
            .zip(p.parts)
            .filter(|(_, v)| *v / t > 0.005)
            .map(|(n, v)| format!("{n} {:.0} %", 100.0 * v / t))
            .collect();
        let oom = if p.fits {
            ""
        } else {
            " — does not fit in memory"
        };
        format!("{}: {}{oom}", gpus_text(p.gpus), s.join(", "))
    }

    /// The numbers behind the chart: milliseconds of elapsed time per step, by part.
    pub fn table(&self) -> Table {
        Table {
            header: SHARES_COLUMNS.iter().map(|h| h.to_string()).collect(),
            rows: self
                .points
                .iter()
                .map(|p| {
                    let mut row = vec![p.gpus.to_string()];
                    row.extend(p.parts.iter().map(|v| format!("{:.4}", v * 1e3)));
                    row.push(format!("{:.4}", p.total() * 1e3));
                    row.push(p.fits.to_string());
                    row
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::report::StepReport;
    use crate::model::step;
    use crate::model::sweep;

    fn run(q: &str) -> RunData {
        let sc = Scenario::parse(q).unwrap();
        run_data(&sc, &sweep::curve(&step_scenario(&sc)))
    }

    #[test]
    fn the_step_does_not_read_the_run_keys() {
        let q = "gpus=512&gpu=h100&inter=ib-ndr&model=llama3-8b&jitter=0.1&slow_gpus=0.01&failure_rate=5&ckpt_gbs=0.1&restart_min=30&tokens=2T&batch_noise=1000&price=2";
        let sc = Scenario::parse(q).unwrap();
        let plain = step_scenario(&sc);
        assert_eq!(
            plain,
            Scenario::parse("gpus=512&gpu=h100&inter=ib-ndr&model=llama3-8b").unwrap()
        );
        assert_eq!(step::evaluate(&sc), step::evaluate(&plain));
    }

    #[test]
    fn each_point_agrees_with_the_step_report() {
        let q = "gpus=1024&gpu=h100&inter=ib-ndr&model=llama3-8b&jitter=0.05&tokens=15T";
        let d = run(q);
        let p = d.chosen_point().unwrap();
        let r = StepReport::new(&Scenario::parse(q).unwrap()).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(
            close(p.days, r.time_to_train_days),
            "{} {}",
            p.days,
            r.time_to_train_days
        );
        assert!(close(p.cost, r.cost));
        assert!(close(p.ettr, r.ettr));
        assert!(close(p.straggler * 1e3, r.straggler_ms));
        assert!(close(p.lost[1], r.lost.work));
        assert!(close(d.budget_samples, r.budget_samples));
        assert!(close(d.critical_batch, r.critical_batch));
        assert_eq!(d.budget_text(), "15 trillion tokens");
    }

    #[test]
    fn time_to_train_flattens_and_turns_up_and_the_markers_say_where() {
        let d = run("gpus=512&gpu=h100&inter=ib-ndr&model=llama3-8b&jitter=0.05");
        let best = d.fastest().unwrap();
        let cheap = d.cheapest().unwrap();
        let last = d.points.len() - 1;
        assert!(
            best > 0 && best < last,
            "the fastest count is inside the range"
        );
        assert!(
            d.points[last].days > d.points[best].days,
            "more GPUs end slower"
        );
        assert!(d
            .points
            .iter()
            .all(|p| !p.fits || p.days >= d.points[best].days));
        assert!(
            d.points[cheap].fits
                && d.points
                    .iter()
                    .all(|p| !p.fits || p.cost >= d.points[cheap].cost)
        );
        // Never below the step time alone.
        for p in &d.points {
            assert!(p.days >= p.step_only_days * 0.999, "{}", p.gpus);
        }
        // Ideal scaling starts from the first count's step time.
        assert_eq!(d.ideal_days(0), d.points[0].step_only_days);
        assert!(
            (d.ideal_days(last) * f64::from(d.points[last].gpus) - d.points[0].step_only_days)
                .abs()
                < 1e-6
        );
        let t = d.takeaway();
        let b = &d.points[best];
        assert!(t.contains(&format!("on {}", gpus_text(b.gpus))), "{t}");
        assert!(t.contains("Beyond that, more GPUs make it slower"), "{t}");
        assert!(t.contains("critical batch"), "{t}");
        assert!(t.contains("slowest GPU"), "{t}");
        assert!(t.contains("ETTR"), "{t}");
        assert!(
            t.contains("cheapest run is on") && t.contains("example price of $12.29"),
            "{t}"
        );
    }

    #[test]
    fn the_readout_and_table_name_the_parts() {
        let d = run("gpus=64&gpu=a100&inter=tcp100&nics=1&model=llama3-8b&zero=3&jitter=0.02");
        let i = d.points.iter().position(|p| p.gpus == 64).unwrap();
        let r = d.readout(i);
        assert!(r.starts_with("64 GPUs: "), "{r}");
        assert!(
            r.contains("ETTR") && r.contains("stragglers +") && r.contains("example price"),
            "{r}"
        );
        assert_eq!(d.readout(999), "");
        assert!(
            d.readout(0).ends_with("does not fit in memory"),
            "8B does not fit one A100"
        );
        let t = d.table();
        assert_eq!(t.rows.len(), d.points.len());
        assert!(t.rows.iter().all(|r| r.len() == t.header.len()));
        assert!(t
            .csv()
            .starts_with("gpus,ideal_days,step_only_days,time_to_train_days,"));
        assert_eq!(t.rows[i][3], format!("{:.4}", d.points[i].days));
    }

    #[test]
    fn elapsed_time_splits_into_the_step_stragglers_and_failures() {
        let d = run("gpus=16384&gpu=h100&inter=ib-ndr&model=llama3-70b&tp=8&pp=4&jitter=0.05&failure_rate=2");
        let s = TimeShares::new(&d);
        let p = s.points.iter().find(|p| p.gpus == 16384).unwrap();
        let rp = d.chosen_point().unwrap();
        // The useful part of elapsed time is the ETTR.
        let useful: f64 = p.parts[..6].iter().sum();
        assert!((useful / p.total() - rp.ettr).abs() < 1e-9);
        assert!(p.parts[5] > 0.0 && p.parts[6] > 0.0 && p.parts[7] > 0.0 && p.parts[8] > 0.0);
        let text = s.takeaway();
        assert!(
            text.contains("Stragglers, checkpoints, lost work and restarts together take"),
            "{text}"
        );
        let i = s.points.iter().position(|p| p.gpus == 16384).unwrap();
        let r = s.readout(i);
        assert!(
            r.starts_with("16,384 GPUs: compute ")
                && r.contains("stragglers")
                && r.contains("failures: lost work"),
            "{r}"
        );
        let t = s.table();
        assert_eq!(t.header.len(), 12);
        assert!(t.rows.iter().all(|r| r.len() == 12));
        // With no failures and no jitter the run adds nothing.
        let quiet = TimeShares::new(&run("gpus=64&gpu=h100&model=llama3-8b&failure_rate=0"));
        assert!(quiet
            .points
            .iter()
            .all(|p| p.parts[5..].iter().all(|v| *v == 0.0)));
        assert!(!quiet.takeaway().contains("Stragglers"));
    }

    #[test]
    fn the_breakdown_speaks_of_the_chosen_count_first() {
        // A lesson's question is about its own count, not the sweep's largest.
        let starving = TimeShares::new(&run(
            "gpus=64&per_node=8&gpu=h100&inter=ib-ndr&model=resnet50&precision=bf16",
        ));
        assert_eq!(starving.chosen_point().map(|p| p.gpus), Some(64));
        let text = starving.takeaway();
        assert!(
            text.starts_with("At the chosen 64 GPUs, data wait takes "),
            "{text}"
        );
        assert!(text.contains(" At 65,536 GPUs, "), "{text}");
        // Stragglers: also how much longer they make the step, the measure a step is timed by.
        let d = run("model=gpt2-xl&gpus=4096&inter=ib-ndr&jitter=0.05");
        let text = TimeShares::new(&d).takeaway();
        let rp = d.chosen_point().unwrap();
        let longer = format!(
            "The slowest GPU makes each step {:.0} % longer than the average GPU's.",
            100.0 * rp.straggler / rp.breakdown.total()
        );
        assert!(
            text.starts_with("At the chosen 4,096 GPUs, waiting for stragglers takes "),
            "{text}"
        );
        assert!(text.contains(&longer), "{text} lacks {longer}");
        // At the largest count there is nothing to add before it.
        let last = TimeShares::new(&run("gpus=65536&gpu=h100&model=llama3-8b&inter=ib-ndr"));
        assert!(
            last.takeaway().starts_with("At 65,536 GPUs") || last.takeaway().starts_with("Compute")
        );
    }

    #[test]
    fn numbers_read_as_words() {
        assert_eq!(days_text(3.21), "3.2 days");
        assert_eq!(days_text(557.8), "558 days");
        assert_eq!(days_text(0.4), "9.6 hours");
        assert_eq!(days_text(0.0115), "17 minutes");
        // A decimal below ten: not "1 minutes" for 1.46.
        assert_eq!(days_text(1.46 / 1440.0), "1.5 minutes");
        assert_eq!(days_text(6.0 / 86400.0), "6.0 seconds");
        assert_eq!(money(70054.4), "$70,054");
        assert_eq!(money(31_181_651.0), "$31.2 M");
        assert_eq!(compact_count(1.5e13), "15T");
        assert_eq!(compact_count(1.6e11), "160B");
        assert_eq!(compact_count(1.2e6), "1.2M");
        assert_eq!(compact_count(123.0), "123");
        assert_eq!(compact_count(1234567.0), "1234567");
        assert_eq!(count_words(1.6e11), "160 billion");
        assert_eq!(count_words(1.15e8), "115 million");
        assert_eq!(count_words(1.28117e6), "1.28 million");
        assert_eq!(join(&["a".into(), "b".into(), "c".into()]), "a, b and c");
    }
}
