//! The same scenario over many GPU counts (and interconnects), for the scaling curves, and the
//! Amdahl serial fraction that matches the curve.

use super::scenario::{Scenario, MAX_GPUS};
use super::step::{evaluate, StepResult};

/// One point of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepPoint {
    /// GPU count.
    pub gpus: u32,
    /// The model's answer, or why this count is not a valid scenario (e.g. fewer GPUs than
    /// tp×pp).
    pub result: Result<StepResult, String>,
}

/// GPU counts of a sweep: powers of two from 1 to `max`, plus `chosen`, sorted.
pub fn counts(chosen: u32, max: u32) -> Vec<u32> {
    let mut v: Vec<u32> = (0..=16).map(|e| 1u32 << e).filter(|n| *n <= max).collect();
    if !v.contains(&chosen) && chosen <= MAX_GPUS {
        v.push(chosen);
    }
    v.sort_unstable();
    v
}

/// Evaluates the scenario at each GPU count (other keys unchanged; a default batch follows the
/// data-parallel degree).
pub fn sweep(sc: &Scenario, gpus: &[u32]) -> Vec<SweepPoint> {
    gpus.iter()
        .map(|&n| {
            let s = Scenario {
                gpus: n,
                ..sc.clone()
            };
            SweepPoint {
                gpus: n,
                result: evaluate(&s).map_err(|e| e.to_string()),
            }
        })
        .collect()
}

/// The scenario over 1…65,536 GPUs plus its own count: the scaling curve.
pub fn curve(sc: &Scenario) -> Vec<SweepPoint> {
    sweep(sc, &counts(sc.gpus, MAX_GPUS))
}

/// The serial fraction f of Amdahl's law S(n) = 1 / (f + (1 − f)/n) that best fits the speedups,
/// by least squares on the Karp–Flatt form 1/S − 1/n = f·(1 − 1/n). Points with n = 1 carry no
/// information and are skipped; returns 0 when nothing is left.
pub fn serial_fraction(points: &[(u32, f64)]) -> f64 {
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for &(n, s) in points {
        if n <= 1 || s.is_nan() || s <= 0.0 || !s.is_finite() {
            continue;
        }
        let inv = 1.0 / f64::from(n);
        let x = 1.0 - inv;
        let y = 1.0 / s - inv;
        sxy += x * y;
        sxx += x * x;
    }
    if sxx == 0.0 {
        0.0
    } else {
        (sxy / sxx).clamp(0.0, 1.0)
    }
}

/// Amdahl's speedup for serial fraction `f` on `n` GPUs.
pub fn amdahl(f: f64, n: f64) -> f64 {
    1.0 / (f + (1.0 - f) / n)
}

/// The serial fraction fitted on the scenario's own curve up to its GPU count.
pub fn fitted_serial_fraction(sc: &Scenario, points: &[SweepPoint]) -> f64 {
    let pts: Vec<(u32, f64)> = points
        .iter()
        .filter(|p| p.gpus <= sc.gpus)
        .filter_map(|p| p.result.as_ref().ok().map(|r| (p.gpus, r.speedup)))
        .collect();
    serial_fraction(&pts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_a_known_serial_fraction() {
        let pts: Vec<(u32, f64)> = [1u32, 2, 4, 8, 64, 1024]
            .iter()
            .map(|&n| (n, amdahl(0.05, f64::from(n))))
            .collect();
        assert!((serial_fraction(&pts) - 0.05).abs() < 1e-12);
    }

    #[test]
    fn counts_include_the_chosen_one() {
        assert_eq!(counts(24, 64), vec![1, 2, 4, 8, 16, 24, 32, 64]);
    }
}
