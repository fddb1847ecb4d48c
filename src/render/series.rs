//! The numbers behind the scaling charts and their plain-language takeaways.

use crate::model::hardware::Network;
use crate::model::scenario::{Scenario, MAX_GPUS};
use crate::model::step::Breakdown;
use crate::model::sweep::{self, amdahl};

/// One GPU count on the curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// GPUs.
    pub gpus: u32,
    /// Speedup against one GPU.
    pub speedup: f64,
    /// speedup / GPUs.
    pub efficiency: f64,
    /// Where the step's time goes, seconds.
    pub breakdown: Breakdown,
    /// Memory fits on each GPU.
    pub fits: bool,
}

/// A scenario's scaling curve.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingData {
    /// Valid points, by GPU count.
    pub points: Vec<Point>,
    /// Amdahl serial fraction fitted on the curve up to the chosen count.
    pub serial_fraction: f64,
    /// The chosen GPU count.
    pub chosen: u32,
    /// Weak scaling (the work grows with the GPUs) rather than strong.
    pub weak: bool,
    /// Strong scaling only: where the fixed batch leaves data-parallel replicas without work.
    pub idle: Option<Idle>,
}

/// Strong scaling past the batch: the global batch has fewer samples than there are
/// data-parallel replicas, so the model gives one sample to each of `batch` replicas and the
/// others idle (`Setup::dp_active`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Idle {
    /// The global batch, samples.
    pub batch: u64,
    /// The first GPU count of the curve where replicas idle.
    pub from: u32,
    /// At the chosen count: replicas with work, and replicas in all.
    pub chosen: (u32, u32),
}

/// Names of the breakdown parts, in stacking order.
pub const PARTS: [&str; 5] = [
    "compute",
    "exposed communication",
    "data wait",
    "serial",
    "pipeline bubble",
];

/// The parts of a breakdown in [`PARTS`] order.
pub fn parts(b: &Breakdown) -> [f64; 5] {
    [b.compute, b.comm_exposed, b.data_wait, b.serial, b.bubble]
}

/// The valid points of a sweep.
fn points(pts: &[sweep::SweepPoint]) -> Vec<Point> {
    pts.iter()
        .filter_map(|p| {
            p.result.as_ref().ok().map(|r| Point {
                gpus: p.gpus,
                speedup: r.speedup,
                efficiency: r.efficiency,
                breakdown: r.breakdown,
                fits: r.memory.fits(),
            })
        })
        .collect()
}

/// Sweeps the scenario over 1…65,536 GPUs (plus the chosen count).
pub fn scaling_data(sc: &Scenario) -> ScalingData {
    scaling_data_from(sc, &sweep::curve(sc))
}

/// The scaling curve of a sweep already made (`sweep::curve(sc)`).
pub fn scaling_data_from(sc: &Scenario, pts: &[sweep::SweepPoint]) -> ScalingData {
    let serial_fraction = sweep::fitted_serial_fraction(sc, pts);
    let weak = sc.scaling == crate::model::scenario::Scaling::Weak;
    ScalingData {
        points: points(pts),
        serial_fraction,
        chosen: sc.gpus,
        weak,
        idle: if weak { None } else { idle(sc, pts) },
    }
}

/// Where strong scaling runs out of samples for its replicas, if it does within the curve.
fn idle(sc: &Scenario, pts: &[sweep::SweepPoint]) -> Option<Idle> {
    let setup = |gpus: u32| Scenario { gpus, ..sc.clone() }.setup().ok();
    let (from, batch) = pts
        .iter()
        .filter(|p| p.result.is_ok())
        .filter_map(|p| setup(p.gpus))
        .find(|s| s.dp_active < s.dp)
        .map(|s| (s.gpus, s.batch))?;
    let chosen = setup(sc.gpus).map_or((0, 0), |s| (s.dp_active, s.dp));
    Some(Idle {
        batch,
        from,
        chosen,
    })
}

/// The same curve for several inter-node networks (at most four are drawn), over powers of two
/// only: it does not depend on the chosen count, so moving the GPU slider leaves it as it is.
pub fn compare_data(
    sc: &Scenario,
    nets: &[&'static Network],
) -> Vec<(&'static Network, Vec<Point>)> {
    nets.iter()
        .take(4)
        .map(|n| {
            let s = Scenario {
                inter: Some(n),
                nics: sc.nics,
                ..sc.clone()
            };
            (*n, points(&sweep::sweep(&s, &sweep::counts(1, MAX_GPUS))))
        })
        .collect()
}

impl ScalingData {
    /// The point at the chosen GPU count.
    pub fn chosen_point(&self) -> Option<&Point> {
        self.points.iter().find(|p| p.gpus == self.chosen)
    }

    /// Amdahl's curve for the fitted serial fraction at each GPU count.
    pub fn amdahl_curve(&self) -> Vec<(u32, f64)> {
        self.points
            .iter()
            .map(|p| (p.gpus, amdahl(self.serial_fraction, f64::from(p.gpus))))
            .collect()
    }

    /// GPU count ranges where the model does not fit in memory, as (from, to) counts.
    pub fn out_of_memory_ranges(&self) -> Vec<(u32, u32)> {
        unfit_ranges(self.points.iter().map(|p| (p.gpus, p.fits)))
    }

    /// First GPU count where efficiency falls below `level`.
    pub fn first_below(&self, level: f64) -> Option<u32> {
        self.points
            .iter()
            .find(|p| p.efficiency < level)
            .map(|p| p.gpus)
    }

    /// The speedup chart's takeaway, for its aria-label.
    pub fn speedup_takeaway(&self) -> String {
        let Some(p) = self.chosen_point() else {
            return "No valid configuration at the chosen GPU count.".to_string();
        };
        let mut s = format!(
            "At {} GPUs the model predicts a {:.1}× speedup ({:.0} % of ideal).",
            group(p.gpus),
            p.speedup,
            100.0 * p.efficiency
        );
        if let Some(n) = self.first_below(0.5) {
            s.push_str(&format!(
                " Efficiency falls below 50 % at {} GPUs.",
                group(n)
            ));
        } else {
            s.push_str(" Efficiency stays above 50 % up to 65,536 GPUs.");
        }
        s.push_str(&format!(
            " The matching Amdahl curve has a serial fraction of {:.3} %.",
            100.0 * self.serial_fraction
        ));
        if let Some(idle) = self.idle {
            let (active, replicas) = idle.chosen;
            if active < replicas {
                s.push_str(&format!(
                    " Strong scaling keeps the global batch at {} samples: at {} GPUs only {} of the {} data-parallel replicas get a sample, and the extra GPUs idle.",
                    group_u64(idle.batch),
                    group(self.chosen),
                    group(active),
                    group(replicas)
                ));
            } else {
                s.push_str(&format!(
                    " Strong scaling keeps the global batch at {} samples: from {} GPUs on there are more replicas than samples, and the extra GPUs idle.",
                    group_u64(idle.batch),
                    group(idle.from)
                ));
            }
        }
        if self.weak {
            s.push_str(" Amdahl's law assumes a fixed amount of work; here each GPU brings its own batch (weak scaling, Gustafson's view), so the curve can outrun it beyond the chosen count.");
        }
        s
    }

    /// The efficiency chart's takeaway.
    pub fn efficiency_takeaway(&self) -> String {
        match (self.first_below(0.9), self.first_below(0.5)) {
            (None, _) => "Efficiency stays above 90 % at every GPU count shown.".to_string(),
            (Some(a), None) => format!(
                "Efficiency drops below 90 % at {} GPUs and stays above 50 %.",
                group(a)
            ),
            (Some(a), Some(b)) if a == b => format!(
                "Efficiency falls from above 90 % to below 50 % at {} GPUs.",
                group(a)
            ),
            (Some(a), Some(b)) => format!(
                "Efficiency drops below 90 % at {} GPUs and below 50 % at {} GPUs.",
                group(a),
                group(b)
            ),
        }
    }
}

/// Runs of neighbouring counts that do not fit in memory, as (from, to) counts, from
/// (count, fits) pairs in increasing count order.
pub fn unfit_ranges(points: impl Iterator<Item = (u32, bool)>) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    let mut prev_fit = true;
    for (gpus, fits) in points {
        if !fits {
            match out.last_mut() {
                Some(last) if !prev_fit => last.1 = gpus,
                _ => out.push((gpus, gpus)),
            }
        }
        prev_fit = fits;
    }
    out
}

/// A count with thousands separators: 65536 → "65,536".
pub fn group(n: u32) -> String {
    group_u64(u64::from(n))
}

/// [`group`] for larger counts (batches, samples).
pub fn group_u64(n: u64) -> String {
    crate::model::units::thousands(n)
}

/// A duration in a readable unit: "1.25 s", "3.4 ms", "12.0 µs".
pub fn duration(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_bound_cluster_shows_falling_efficiency() {
        let sc = Scenario::parse("gpus=64&gpu=a100&inter=tcp10&nics=1&model=gpt2-xl").unwrap();
        let d = scaling_data(&sc);
        assert_eq!(d.points.len(), 17);
        assert!(d.first_below(0.5).is_some());
        assert!(d.speedup_takeaway().contains("64 GPUs"));
        assert!(d.serial_fraction > 0.0);
    }

    #[test]
    fn strong_scaling_past_the_batch_says_the_extra_gpus_idle() {
        let q = "gpus=1024&gpu=h100&inter=ib-ndr&model=llama3-8b&scaling=strong&batch=256";
        let d = scaling_data(&Scenario::parse(q).unwrap());
        let idle = d.idle.unwrap();
        assert_eq!(idle.batch, 256);
        assert_eq!(idle.from, 512, "256 samples feed 256 replicas");
        assert_eq!(idle.chosen, (256, 1024));
        let t = d.speedup_takeaway();
        assert!(
            t.contains("only 256 of the 1,024 data-parallel replicas get a sample, and the extra GPUs idle"),
            "{t}"
        );
        // Below the batch's replicas nothing idles at the chosen count, but the curve says where.
        let d = scaling_data(&Scenario::parse(&q.replace("gpus=1024", "gpus=64")).unwrap());
        let t = d.speedup_takeaway();
        assert!(
            t.contains("from 512 GPUs on there are more replicas than samples"),
            "{t}"
        );
        // Weak scaling never idles.
        let d = scaling_data(&Scenario::parse("gpus=1024&gpu=h100&model=llama3-8b").unwrap());
        assert_eq!(d.idle, None);
        assert!(!d.speedup_takeaway().contains("idle"));
    }

    #[test]
    fn memory_ranges_merge_neighbours() {
        let sc = Scenario::parse("model=llama3-70b&gpu=h100&zero=3&gpus=64").unwrap();
        let d = scaling_data(&sc);
        let r = d.out_of_memory_ranges();
        assert_eq!(
            r.first().map(|x| x.0),
            Some(1),
            "70B does not fit on one GPU"
        );
        assert!(r.len() == 1, "{r:?}");
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(group(65536), "65,536");
        assert_eq!(group(512), "512");
        assert_eq!(group(1024), "1,024");
    }

    #[test]
    fn durations_pick_a_readable_unit() {
        assert_eq!(duration(1.25), "1.25 s");
        assert_eq!(duration(0.0034), "3.4 ms");
        assert_eq!(duration(12e-6), "12.0 µs");
    }
}
