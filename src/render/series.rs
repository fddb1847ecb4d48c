//! The numbers behind the scaling charts and their plain-language takeaways.

use crate::model::hardware::Network;
use crate::model::scenario::{Scenario, Setup, MAX_GPUS};
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
    /// The Amdahl serial fraction the chosen count's speedup implies (Karp–Flatt).
    pub serial_fraction: f64,
    /// The chosen GPU count.
    pub chosen: u32,
    /// Weak scaling (the work grows with the GPUs) rather than strong.
    pub weak: bool,
    /// Strong scaling only: where the fixed batch leaves data-parallel replicas without work.
    pub idle: Option<Idle>,
    /// Strong scaling with interleaving only: the first GPU count where a replica has fewer
    /// micro-batches than stages, so the plain 1F1B schedule runs.
    pub plain_from: Option<u32>,
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
    // Strong scaling's notes read the valid counts' resolved setups: resolved once, for both.
    let setups: Vec<Setup> = if weak {
        Vec::new()
    } else {
        pts.iter()
            .filter(|p| p.result.is_ok())
            .filter_map(|p| {
                Scenario {
                    gpus: p.gpus,
                    ..sc.clone()
                }
                .setup()
                .ok()
            })
            .collect()
    };
    ScalingData {
        points: points(pts),
        serial_fraction,
        chosen: sc.gpus,
        weak,
        idle: idle(sc, &setups),
        plain_from: setups.iter().find(|s| s.vpp < sc.vpp).map(|s| s.gpus),
    }
}

/// Where strong scaling runs out of samples for its replicas, if it does within the curve
/// (`setups`: the curve's counts).
fn idle(sc: &Scenario, setups: &[Setup]) -> Option<Idle> {
    let (from, batch) = setups
        .iter()
        .find(|s| s.dp_active < s.dp)
        .map(|s| (s.gpus, s.batch))?;
    let chosen = sc.setup().map_or((0, 0), |s| (s.dp_active, s.dp));
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
            "At {} the model predicts a {} speedup ({:.0} % of ideal).",
            gpus_text(p.gpus),
            speedup_text(p.speedup),
            100.0 * p.efficiency
        );
        if let Some(n) = self.first_below(0.5) {
            s.push_str(&format!(
                " Efficiency falls below 50 % at {}.",
                gpus_text(n)
            ));
        } else {
            s.push_str(" Efficiency stays above 50 % up to 65,536 GPUs.");
        }
        s.push_str(&format!(
            " The matching Amdahl curve has a serial fraction of {}.",
            share_text(self.serial_fraction)
        ));
        if let Some(idle) = self.idle {
            let (active, replicas) = idle.chosen;
            if active < replicas {
                s.push_str(&format!(
                    " Strong scaling keeps the global batch at {} samples: at {} only {} of the {} data-parallel replicas get a sample, and the extra GPUs idle.",
                    group_u64(idle.batch),
                    gpus_text(self.chosen),
                    group(active),
                    group(replicas)
                ));
            } else {
                s.push_str(&format!(
                    " Strong scaling keeps the global batch at {} samples: from {} on there are more replicas than samples, and the extra GPUs idle.",
                    group_u64(idle.batch),
                    gpus_text(idle.from)
                ));
            }
        }
        if let Some(n) = self.plain_from {
            s.push_str(&format!(
                " From {} on a replica has fewer micro-batches than pipeline stages: interleaving needs at least as many, so the plain 1F1B schedule runs.",
                gpus_text(n)
            ));
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
                "Efficiency drops below 90 % at {} and stays above 50 %.",
                gpus_text(a)
            ),
            (Some(a), Some(b)) if a == b => format!(
                "Efficiency falls from above 90 % to below 50 % at {}.",
                gpus_text(a)
            ),
            (Some(a), Some(b)) => format!(
                "Efficiency drops below 90 % at {} and below 50 % at {}.",
                gpus_text(a),
                gpus_text(b)
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

/// A GPU count with its noun: "1 GPU", "1,024 GPUs".
pub fn gpus_text(n: u32) -> String {
    if n == 1 {
        "1 GPU".to_string()
    } else {
        format!("{} GPUs", group(n))
    }
}

/// A speedup: "7.9×", "15.1×", and whole from 100 on ("1,000×", "18,156×").
pub fn speedup_text(x: f64) -> String {
    if x >= 100.0 {
        format!("{}×", group_u64(x.round() as u64))
    } else {
        format!("{x:.1}×")
    }
}

/// A share given as a fraction, as a percentage to two significant digits: "22 %", "7.5 %",
/// "0.041 %".
pub fn share_text(f: f64) -> String {
    let p = 100.0 * f;
    if p >= 10.0 || p == 0.0 {
        format!("{p:.0} %")
    } else {
        let decimals = (1 - p.log10().floor() as i32).max(0) as usize;
        format!("{p:.decimals$} %")
    }
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

/// Pin and compare (issue 15): a pinned scenario A beside the live scenario B. Everything here
/// is pure so it is tested natively; the page keeps A in a signal and reads these.
pub mod pin {
    use super::{duration, gpus_text, speedup_text, ScalingData};
    use crate::model::scenario::Scenario;
    use crate::model::step::StepResult;
    use crate::model::ModelError;
    use crate::render::figure::Table;

    /// The characters of a scenario query that would mix with the hash's own keys, as
    /// RFC 3986 percent-encodes them: `%` first (so a literal `%` survives), then the pair and
    /// key separators and the fragment mark.
    const RESERVED: [(char, &str); 4] = [('%', "%25"), ('&', "%26"), ('=', "%3D"), ('#', "%23")];

    /// A's scenario query as one hash value (`pin=gpus%3D64%26inter%3Dtcp100`): `%`, `&`, `=` and
    /// `#` percent-encoded, everything else as it is, so the link stays readable.
    pub fn encode(query: &str) -> String {
        let mut out = String::with_capacity(query.len() + 16);
        for c in query.chars() {
            match RESERVED.iter().find(|(r, _)| *r == c) {
                Some((_, e)) => out.push_str(e),
                None => out.push(c),
            }
        }
        out
    }

    /// The scenario query from a `pin=` value: every `%XX` decoded (a browser or a hand may
    /// encode more than [`encode`] does). A `%` not followed by two hex digits, or bytes that
    /// are not UTF-8, is an error naming what is wrong.
    pub fn decode(value: &str) -> Result<String, String> {
        let bytes = value.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => out.push(b),
                    None => {
                        return Err(format!(
                            "'%' at character {} is not followed by two hex digits (write a literal % as %25)",
                            i + 1
                        ))
                    }
                }
                i += 3;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        String::from_utf8(out).map_err(|_| "the decoded scenario is not UTF-8 text".to_string())
    }

    /// The pinned scenario A from its decoded `pin=` query, leniently as the page reads B: a bad
    /// key keeps its default and is named as A's (`pin: gpus: …`).
    pub fn scenario(query: &str) -> (Scenario, Vec<ModelError>) {
        let (a, errs) = Scenario::parse_lenient(query);
        let errs = errs
            .into_iter()
            .map(|e| ModelError::new(&format!("pin: {}", e.key), e.message))
            .collect();
        (a, errs)
    }

    /// One key whose value differs between A and B.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct KeyDiff {
        /// The scenario key (`inter`).
        pub key: String,
        /// A's value (the default's text when A does not give it).
        pub a: String,
        /// B's value.
        pub b: String,
    }

    /// The keys whose values differ between A and B, in the scenario format's key order.
    pub fn differing_keys(a: &Scenario, b: &Scenario) -> Vec<KeyDiff> {
        let (qa, qb) = (a.to_query(), b.to_query());
        let pairs = |q: &str| -> Vec<(String, String)> {
            q.split('&')
                .filter_map(|p| p.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let (pa, pb) = (pairs(&qa), pairs(&qb));
        let value = |pairs: &[(String, String)], sc: &Scenario, k: &str| {
            pairs
                .iter()
                .find(|(x, _)| x == k)
                .map(|(_, v)| v.clone())
                .or_else(|| sc.get(k))
                // A key with no text of its own (chosen by the model when not given).
                .unwrap_or_else(|| "(default)".to_string())
        };
        // Keys in the order A's query gives them, then B's own.
        let mut keys: Vec<&str> = pa.iter().map(|(k, _)| k.as_str()).collect();
        for (k, _) in &pb {
            if !keys.contains(&k.as_str()) {
                keys.push(k);
            }
        }
        let mut diffs: Vec<KeyDiff> = keys
            .iter()
            .filter_map(|&k| {
                let (va, vb) = (value(&pa, a, k), value(&pb, b, k));
                (va != vb).then(|| KeyDiff {
                    key: k.to_string(),
                    a: va,
                    b: vb,
                })
            })
            .collect();
        // What the model chose where neither states it, when that differs (a network change
        // brings its own NIC count: 8 on RDMA, 1 over TCP).
        if let (Ok(sa), Ok(sb)) = (a.setup(), b.setup()) {
            let chosen = |s: &crate::model::scenario::Setup| {
                [
                    ("nics", s.nics.to_string()),
                    ("zero", s.zero.to_string()),
                    ("micro", s.micro.to_string()),
                    ("batch", s.batch.to_string()),
                    ("precision", s.precision.id().to_string()),
                ]
            };
            for ((key, va), (_, vb)) in chosen(&sa).into_iter().zip(chosen(&sb)) {
                if va != vb && !keys.contains(&key) {
                    diffs.push(KeyDiff {
                        key: key.to_string(),
                        a: format!("{va} (auto)"),
                        b: format!("{vb} (auto)"),
                    });
                }
            }
        }
        diffs
    }

    /// The differences as one line: "A: inter=tcp100 · B: inter=ib-ndr".
    pub fn keys_text(diffs: &[KeyDiff]) -> String {
        if diffs.is_empty() {
            return "A and B are the same scenario: change a control to compare.".to_string();
        }
        let side = |f: fn(&KeyDiff) -> &str| {
            diffs
                .iter()
                .map(|d| format!("{}={}", d.key, f(d)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!("A: {} · B: {}", side(|d| &d.a), side(|d| &d.b))
    }

    /// `x` against `y` as "1.32×" (two decimals below 10, one above).
    fn times(r: f64) -> String {
        if r >= 10.0 {
            format!("{r:.1}×")
        } else {
            format!("{r:.2}×")
        }
    }

    /// How B's step and throughput compare with A's: "B is 1.32× faster per step than A
    /// (0.85 s against 1.12 s)." When the throughput ratio differs from the step's (the GPU
    /// count or the batch differs), a second sentence gives it.
    pub fn difference(a: &StepResult, b: &StepResult) -> String {
        let (ta, tb) = (a.breakdown.total(), b.breakdown.total());
        if !(ta > 0.0 && tb > 0.0) {
            return String::new();
        }
        let per_step = if (ta / tb - 1.0).abs() < 0.005 {
            format!("B and A take the same time per step ({}).", duration(tb))
        } else if tb < ta {
            format!(
                "B is {} faster per step than A ({} against {}).",
                times(ta / tb),
                duration(tb),
                duration(ta)
            )
        } else {
            format!(
                "B is {} slower per step than A ({} against {}).",
                times(tb / ta),
                duration(tb),
                duration(ta)
            )
        };
        let (ra, rb) = (a.throughput, b.throughput);
        let through = rb / ra;
        if ra > 0.0 && ((through * tb / ta) - 1.0).abs() > 0.01 {
            format!(
                "{per_step} B processes {} A's samples per second.",
                times(through)
            )
        } else {
            per_step
        }
    }

    /// The columns A adds to the scaling table.
    const COLUMNS: [&str; 4] = ["A_speedup", "A_efficiency", "A_step_ms", "A_fits"];

    /// B's scaling-table titles with A's columns after them ("A speedup", …).
    pub fn titles(mut b: Vec<String>) -> Vec<String> {
        b.extend(COLUMNS.iter().map(|c| c.replace('_', " ")));
        b
    }

    /// B's scaling table (first column `gpus`) with A's speedup, efficiency, step time and fit
    /// beside each count; a count only one of them has gets empty cells for the other.
    pub fn table(b: Table, a: &ScalingData) -> Table {
        let b_width = b.header.len();
        let a_cells = |gpus: u32| -> Vec<String> {
            match a.points.iter().find(|p| p.gpus == gpus) {
                Some(p) => vec![
                    format!("{:.4}", p.speedup),
                    format!("{:.4}", p.efficiency),
                    format!("{:.4}", p.breakdown.total() * 1e3),
                    p.fits.to_string(),
                ],
                None => vec![String::new(); COLUMNS.len()],
            }
        };
        let mut rows: Vec<(u32, Vec<String>)> = b
            .rows
            .into_iter()
            .map(|mut r| {
                let gpus = r.first().and_then(|g| g.parse().ok()).unwrap_or(0);
                r.extend(a_cells(gpus));
                (gpus, r)
            })
            .collect();
        for p in &a.points {
            if !rows.iter().any(|(g, _)| *g == p.gpus) {
                let mut r = vec![String::new(); b_width];
                if let Some(first) = r.first_mut() {
                    *first = p.gpus.to_string();
                }
                r.extend(a_cells(p.gpus));
                rows.push((p.gpus, r));
            }
        }
        rows.sort_by_key(|(g, _)| *g);
        let mut header = b.header;
        header.extend(COLUMNS.iter().map(|c| c.to_string()));
        Table {
            header,
            rows: rows.into_iter().map(|(_, r)| r).collect(),
        }
    }

    /// What a hovered count adds for A: " · A (pinned): 20.1×" on the speedup chart,
    /// " · A (pinned): 31.4 % efficient" on the efficiency chart; empty when A has no such count.
    pub fn readout(a: &ScalingData, gpus: u32, speedup: bool) -> String {
        a.points
            .iter()
            .find(|p| p.gpus == gpus)
            .map(|p| {
                if speedup {
                    format!(" · A (pinned): {:.1}×", p.speedup)
                } else {
                    format!(" · A (pinned): {:.1} % efficient", 100.0 * p.efficiency)
                }
            })
            .unwrap_or_default()
    }

    /// The sentence A adds to a chart's takeaway.
    pub fn takeaway(a: &ScalingData) -> String {
        match a.chosen_point() {
            Some(p) => format!(
                " The pinned scenario A (dashed) reaches {} at its {} ({:.0} % of ideal).",
                speedup_text(p.speedup),
                gpus_text(p.gpus),
                100.0 * p.efficiency
            ),
            None => " The pinned scenario A (dashed) has no valid point at its GPU count.".into(),
        }
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

    // Pin and compare (issue 15).

    fn sc(q: &str) -> Scenario {
        Scenario::parse(q).unwrap()
    }

    #[test]
    fn a_pinned_query_survives_the_hash_as_one_value() {
        let q = "gpus=64&per_node=8&gpu=h100&inter=tcp100&model=llama3-8b&bytes=4KiB";
        let v = pin::encode(q);
        assert!(
            !v.contains('&') && !v.contains('=') && !v.contains('#'),
            "{v}"
        );
        assert_eq!(
            v,
            "gpus%3D64%26per_node%3D8%26gpu%3Dh100%26inter%3Dtcp100%26model%3Dllama3-8b%26bytes%3D4KiB"
        );
        assert_eq!(pin::decode(&v).unwrap(), q);
        // A literal % and a fragment mark round-trip too; lower-case hex and over-encoding
        // (a browser may encode more) decode.
        for q in ["a=50%&b=#1", "", "x=é"] {
            assert_eq!(pin::decode(&pin::encode(q)).unwrap(), q);
        }
        assert_eq!(
            pin::decode("gpus%3d8%26inter%3Dtcp%31").unwrap(),
            "gpus=8&inter=tcp1"
        );
        // A whole scenario's canonical query comes back as the same scenario.
        let a = sc(q);
        let back = pin::decode(&pin::encode(&a.to_query())).unwrap();
        assert_eq!(Scenario::parse(&back).unwrap(), a);
    }

    #[test]
    fn a_link_with_both_gives_back_both() {
        // As the page writes its hash (Route::prefix, then B's query) and reads it back
        // (Route::parse: split on '&', the first '=' ends the key).
        let a = sc(
            "gpus=64&per_node=8&gpu=a100&intra=nvlink3&inter=tcp100&nics=1&model=llama3-8b&zero=3",
        );
        let b = sc("gpus=128&per_node=8&gpu=h100&inter=ib-ndr&model=llama3-8b");
        let hash = format!(
            "theme=dark&pin={}&{}",
            pin::encode(&a.to_query()),
            b.to_query()
        );
        let mut pinned = None;
        let mut rest = Vec::new();
        for pair in hash.split('&') {
            match pair.split_once('=') {
                Some(("pin", v)) => pinned = Some(pin::decode(v).unwrap()),
                Some(("theme", _)) => {}
                _ => rest.push(pair),
            }
        }
        let (back_a, errs) = pin::scenario(&pinned.unwrap());
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(back_a, a);
        assert_eq!(Scenario::parse(&rest.join("&")).unwrap(), b);
        // A bad key inside A is named as A's, and A keeps the default for it.
        let (bad, errs) = pin::scenario("gpus=lots&inter=tcp100");
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].key, "pin: gpus");
        assert_eq!(bad.gpus, Scenario::default().gpus);
        assert_eq!(bad.get("inter").as_deref(), Some("tcp100"));
    }

    #[test]
    fn a_broken_pin_value_is_an_error_that_says_what_is_wrong() {
        let e = pin::decode("gpus%3D8%2").unwrap_err();
        assert!(e.contains("character 9") && e.contains("%25"), "{e}");
        assert!(pin::decode("gpus%G1").is_err());
        assert!(pin::decode("%FF%FE").unwrap_err().contains("UTF-8"));
    }

    #[test]
    fn the_differing_keys_name_both_values() {
        let a = sc("gpus=64&gpu=h100&inter=tcp100&model=llama3-8b");
        let b = sc("gpus=64&gpu=h100&inter=ib-ndr&model=llama3-8b");
        let d = pin::differing_keys(&a, &b);
        // The network brings its own NIC count, which the model chose on both sides: named.
        assert_eq!(
            d,
            vec![
                pin::KeyDiff {
                    key: "inter".into(),
                    a: "tcp100".into(),
                    b: "ib-ndr".into()
                },
                pin::KeyDiff {
                    key: "nics".into(),
                    a: "1 (auto)".into(),
                    b: "8 (auto)".into()
                }
            ]
        );
        assert_eq!(
            pin::keys_text(&d),
            "A: inter=tcp100, nics=1 (auto) · B: inter=ib-ndr, nics=8 (auto)"
        );
        // A key one side leaves at its default shows the default's value.
        let b2 = sc("gpus=64&gpu=h100&inter=tcp100&model=llama3-8b&zero=3");
        let d2 = pin::differing_keys(&a, &b2);
        assert_eq!(d2.len(), 1, "{d2:?}");
        assert_eq!(d2[0].key, "zero");
        assert_eq!(d2[0].b, "3");
        assert_eq!(
            d2[0].a, "(default)",
            "ZeRO is chosen by the model when not given"
        );
        assert!(pin::differing_keys(&a, &a).is_empty());
        assert!(pin::keys_text(&[]).starts_with("A and B are the same scenario"));
    }

    #[test]
    fn the_difference_says_which_is_faster_and_by_how_much() {
        let eval = |q: &str| crate::model::step::evaluate(&sc(q)).unwrap();
        let a = eval("gpus=64&gpu=a100&inter=tcp100&nics=1&model=llama3-8b&zero=3");
        let b = eval("gpus=64&gpu=a100&inter=ib-ndr&nics=1&model=llama3-8b&zero=3");
        let ratio = a.breakdown.total() / b.breakdown.total();
        assert!(ratio > 1.05, "InfiniBand beats 100 GbE TCP here: {ratio}");
        let t = pin::difference(&a, &b);
        assert!(
            t.starts_with(&format!("B is {ratio:.2}× faster per step than A (")),
            "{t}"
        );
        // Same batch, same count: the throughput says nothing more.
        assert!(!t.contains("samples per second"), "{t}");
        let back = pin::difference(&b, &a);
        assert!(
            back.starts_with(&format!("B is {ratio:.2}× slower per step")),
            "{back}"
        );
        assert!(pin::difference(&a, &a).starts_with("B and A take the same time per step"));
        // Weak scaling on twice the GPUs: the batch doubles, so throughput gets its own ratio.
        let c = eval("gpus=128&gpu=a100&inter=tcp100&nics=1&model=llama3-8b&zero=3");
        assert!(pin::difference(&a, &c).contains("A's samples per second"));
    }

    #[test]
    fn the_table_holds_both_curves_row_by_row() {
        let b = scaling_data(&sc("gpus=96&gpu=a100&inter=ib-ndr&model=gpt2-xl"));
        let a = scaling_data(&sc("gpus=48&gpu=a100&inter=tcp100&model=gpt2-xl"));
        let bt = crate::render::figure::Figure::Speedup(&b).table();
        let btitles = crate::render::figure::Figure::Speedup(&b).titles();
        let t = pin::table(bt.clone(), &a);
        // The closed table's header names the same columns as the open one.
        assert_eq!(pin::titles(btitles), t.titles());
        assert!(t.csv().starts_with("gpus,speedup,"));
        assert!(t.header.ends_with(&[
            "A_speedup".to_string(),
            "A_efficiency".into(),
            "A_step_ms".into(),
            "A_fits".into()
        ]));
        assert!(t.rows.iter().all(|r| r.len() == t.header.len()));
        // Every count of either curve, once, in order: A's 48 is a row of its own.
        assert_eq!(t.rows.len(), b.points.len() + 1);
        let gpus: Vec<u32> = t.rows.iter().map(|r| r[0].parse().unwrap()).collect();
        assert!(gpus.windows(2).all(|w| w[0] < w[1]), "{gpus:?}");
        let w = bt.header.len();
        let row = |g: u32| t.rows.iter().find(|r| r[0] == g.to_string()).unwrap();
        assert_eq!(row(48)[1], "", "B has no point at 48");
        let a48 = a.points.iter().find(|p| p.gpus == 48).unwrap();
        assert_eq!(row(48)[w], format!("{:.4}", a48.speedup));
        assert_eq!(row(96)[w], "", "A has no point at 96");
        assert_eq!(
            row(96)[1],
            format!("{:.4}", b.chosen_point().unwrap().speedup)
        );
        // At a shared count beyond one node both sides hold their own numbers.
        let (a16, b16) = (&a.points[4], &b.points[4]);
        assert_eq!((a16.gpus, b16.gpus), (16, 16));
        assert_eq!(row(16)[1], format!("{:.4}", b16.speedup));
        assert_eq!(row(16)[w], format!("{:.4}", a16.speedup));
        assert_eq!(
            row(16)[w + 2],
            format!("{:.4}", a16.breakdown.total() * 1e3)
        );
        assert_ne!(
            row(16)[1],
            row(16)[w],
            "the networks differ across two nodes"
        );
    }

    #[test]
    fn strong_scaling_says_where_interleaving_stops() {
        let d = scaling_data(&sc(
            "scaling=strong&model=llama3-70b&tp=8&pp=4&vpp=2&gpus=32",
        ));
        assert_eq!(d.plain_from, Some(256));
        assert!(d
            .speedup_takeaway()
            .contains("From 256 GPUs on a replica has fewer micro-batches than pipeline stages"));
        let weak = scaling_data(&sc("model=llama3-70b&tp=8&pp=4&vpp=2&gpus=32"));
        assert_eq!(weak.plain_from, None);
    }

    #[test]
    fn hovering_and_the_takeaway_speak_of_a_too() {
        let a = scaling_data(&sc("gpus=64&gpu=a100&inter=tcp100&model=gpt2-xl"));
        let p = a.chosen_point().unwrap();
        assert_eq!(
            pin::readout(&a, 64, true),
            format!(" · A (pinned): {:.1}×", p.speedup)
        );
        assert!(pin::readout(&a, 64, false).ends_with(" % efficient"));
        assert_eq!(pin::readout(&a, 48, true), "");
        let t = pin::takeaway(&a);
        assert!(
            t.contains("pinned scenario A (dashed)") && t.contains("at its 64 GPUs"),
            "{t}"
        );
    }
}
