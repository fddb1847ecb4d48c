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
    let pts = sweep::curve(sc);
    let serial_fraction = sweep::fitted_serial_fraction(sc, &pts);
    ScalingData {
        points: points(&pts),
        serial_fraction,
        chosen: sc.gpus,
        weak: sc.scaling == crate::model::scenario::Scaling::Weak,
    }
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
        let mut out: Vec<(u32, u32)> = Vec::new();
        for p in self.points.iter().filter(|p| !p.fits) {
            match out.last_mut() {
                Some(last) if self.next_after(last.1) == Some(p.gpus) => last.1 = p.gpus,
                _ => out.push((p.gpus, p.gpus)),
            }
        }
        out
    }

    fn next_after(&self, n: u32) -> Option<u32> {
        self.points.iter().map(|p| p.gpus).find(|g| *g > n)
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

    /// The breakdown chart's takeaway: what grows with the GPU count.
    pub fn breakdown_takeaway(&self) -> String {
        let Some(last) = self.points.last() else {
            return String::new();
        };
        let total = last.breakdown.total();
        let shares = parts(&last.breakdown);
        let (i, v) = shares
            .iter()
            .enumerate()
            .skip(1)
            .fold((0, 0.0), |a, (i, v)| if *v > a.1 { (i, *v) } else { a });
        if i == 0 || v < 0.05 * total {
            format!(
                "Compute dominates the step up to {} GPUs.",
                group(last.gpus)
            )
        } else {
            format!(
                "At {} GPUs, {} takes {:.0} % of the step.",
                group(last.gpus),
                PARTS[i],
                100.0 * v / total
            )
        }
    }
}

/// A count with thousands separators: 65536 → "65,536".
pub fn group(n: u32) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
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
