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

/// The serial fraction f of Amdahl's law S(n) = 1 / (f + (1 − f)/n) that a speedup `s` on `n`
/// GPUs implies: the Karp–Flatt metric (1/S − 1/n) / (1 − 1/n) (Karp & Flatt 1990). 0 on one
/// GPU, where there is nothing to tell.
pub fn karp_flatt(n: u32, s: f64) -> f64 {
    if n <= 1 || !(s.is_finite() && s > 0.0) {
        return 0.0;
    }
    let inv = 1.0 / f64::from(n);
    ((1.0 / s - inv) / (1.0 - inv)).clamp(0.0, 1.0)
}

/// Amdahl's speedup for serial fraction `f` on `n` GPUs.
pub fn amdahl(f: f64, n: f64) -> f64 {
    1.0 / (f + (1.0 - f) / n)
}

/// The serial fraction of the Amdahl curve through the scenario's own count: the curve then
/// gives the speedup printed beside it there. (A least-squares fit over every count up to it
/// was pulled by the small counts: 0.1 % at 4,096 GPUs, whose Amdahl speedup, 757×, was a
/// quarter of the 3,305× beside it.)
pub fn fitted_serial_fraction(sc: &Scenario, points: &[SweepPoint]) -> f64 {
    points
        .iter()
        .find(|p| p.gpus == sc.gpus)
        .and_then(|p| p.result.as_ref().ok())
        .map_or(0.0, |r| karp_flatt(sc.gpus, r.speedup))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_a_known_serial_fraction() {
        for n in [2u32, 8, 64, 1024] {
            assert!((karp_flatt(n, amdahl(0.05, f64::from(n))) - 0.05).abs() < 1e-12);
        }
        assert_eq!(karp_flatt(1, 1.0), 0.0);
    }

    /// The Amdahl curve passes through the chosen count's speedup.
    #[test]
    fn the_amdahl_curve_goes_through_the_chosen_count() {
        for q in [
            "model=llama3-8b&zero=3&gpus=4096",
            "model=gpt2-xl&gpus=1024&scaling=strong&batch=1024&micro=1",
        ] {
            let sc = Scenario::parse(q).unwrap();
            let pts = curve(&sc);
            let f = fitted_serial_fraction(&sc, &pts);
            let at = pts.iter().find(|p| p.gpus == sc.gpus).unwrap();
            let s = at.result.as_ref().unwrap().speedup;
            assert!((amdahl(f, f64::from(sc.gpus)) - s).abs() < 1e-6 * s, "{q}");
        }
    }

    #[test]
    fn counts_include_the_chosen_one() {
        assert_eq!(counts(24, 64), vec![1, 2, 4, 8, 16, 24, 32, 64]);
    }
}
