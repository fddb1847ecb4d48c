//! One chart's data and what the page says beside its drawing: the takeaway (the canvas's
//! accessible name), the readout at a hovered or focused point, and the data table with its CSV.
//! The UI picks the figure and shows the strings; everything a reader sees is decided here.

use super::series::{gpus_text, group, speedup_text, Point, ScalingData};
use super::train::{RunData, TimeShares, RUN_COLUMNS, SHARES_COLUMNS};
use crate::model::hardware::Network;
use crate::model::sweep::amdahl;

/// One network's speedup curve in the comparison chart.
pub type NetworkCurve = (&'static Network, Vec<Point>);

/// A chart and the data it draws.
#[derive(Clone, Copy, Debug)]
pub enum Figure<'a> {
    /// Speedup against GPUs: ideal, the model, Amdahl.
    Speedup(&'a ScalingData),
    /// Efficiency against GPUs.
    Efficiency(&'a ScalingData),
    /// Where a run's elapsed time goes (the step's parts, stragglers, failures), against GPUs.
    Breakdown(&'a TimeShares),
    /// The same job's speedup over other inter-node networks.
    Compare(&'a [NetworkCurve]),
    /// Days to train the data budget against GPUs: ideal, the step time alone, and with
    /// stragglers, failures and the critical batch.
    TimeToTrain(&'a RunData),
}

/// A data table: column names and rows of cells, as text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Column names (CSV style: `step_ms`).
    pub header: Vec<String>,
    /// One row per GPU count.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Column titles for a reader: `step_ms` → `step ms`.
    pub fn titles(&self) -> Vec<String> {
        self.header.iter().map(|h| h.replace('_', " ")).collect()
    }

    /// The table as CSV, one line per row, each ending in a newline.
    pub fn csv(&self) -> String {
        let mut s = self.header.join(",");
        s.push('\n');
        for r in &self.rows {
            s.push_str(&r.join(","));
            s.push('\n');
        }
        s
    }
}

impl Figure<'_> {
    /// Points along the x axis.
    pub fn len(&self) -> usize {
        match self {
            Figure::Compare(cs) => cs.first().map_or(0, |(_, p)| p.len()),
            Figure::Speedup(d) | Figure::Efficiency(d) => d.points.len(),
            Figure::Breakdown(d) => d.points.len(),
            Figure::TimeToTrain(d) => d.points.len(),
        }
    }

    /// No points at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The GPU count of point `i`.
    pub fn gpus(&self, i: usize) -> Option<u32> {
        match self {
            Figure::Compare(cs) => cs.first().and_then(|(_, p)| p.get(i)).map(|p| p.gpus),
            Figure::Speedup(d) | Figure::Efficiency(d) => d.points.get(i).map(|p| p.gpus),
            Figure::Breakdown(d) => d.points.get(i).map(|p| p.gpus),
            Figure::TimeToTrain(d) => d.points.get(i).map(|p| p.gpus),
        }
    }

    /// The point nearest to `gpus` on the chart's log₂ axis (where the mouse is).
    pub fn nearest(&self, gpus: f64) -> Option<usize> {
        let at = gpus.max(1.0).log2();
        (0..self.len())
            .filter_map(|i| self.gpus(i).map(|g| (i, (f64::from(g).log2() - at).abs())))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }

    /// The point an arrow key moves to from `current` (`delta` points on, clamped to the
    /// chart): with nothing selected, → starts at the first point and ← at the last.
    pub fn step(&self, current: Option<usize>, delta: i64) -> Option<usize> {
        let len = self.len() as i64;
        if len == 0 {
            return None;
        }
        let start = current
            .map(|i| i as i64)
            .unwrap_or(if delta > 0 { -1 } else { len });
        Some((start + delta).clamp(0, len - 1) as usize)
    }

    /// The chart's message in one or two sentences (its accessible name).
    pub fn takeaway(&self) -> String {
        match self {
            Figure::Speedup(d) => d.speedup_takeaway(),
            Figure::Efficiency(d) => d.efficiency_takeaway(),
            Figure::Breakdown(d) => d.takeaway(),
            Figure::Compare(cs) => compare_takeaway(cs),
            Figure::TimeToTrain(d) => d.takeaway(),
        }
    }

    /// What the chart shows at point `i` ("64 GPUs: 41.3× (ideal 64×, Amdahl 40.9×)");
    /// empty when there is no such point.
    pub fn readout(&self, i: usize) -> String {
        let (d, p) = match self {
            Figure::Compare(cs) => return compare_readout(cs, i),
            Figure::Breakdown(d) => return d.readout(i),
            Figure::TimeToTrain(d) => return d.readout(i),
            Figure::Speedup(d) | Figure::Efficiency(d) => match d.points.get(i) {
                Some(p) => (d, p),
                None => return String::new(),
            },
        };
        let head = gpus_text(p.gpus);
        let oom = if p.fits {
            ""
        } else {
            " — does not fit in memory"
        };
        match self {
            Figure::Speedup(_) => format!(
                "{head}: {} (ideal {}×, Amdahl {}){oom}",
                speedup_text(p.speedup),
                group(p.gpus),
                speedup_text(amdahl(d.serial_fraction, f64::from(p.gpus)))
            ),
            _ => format!("{head}: {:.1} % efficient{oom}", 100.0 * p.efficiency),
        }
    }

    /// The table's column titles for a reader, as [`Table::titles`] gives them, without
    /// formatting its rows (the page shows them while the table is closed).
    pub fn titles(&self) -> Vec<String> {
        let header = match self {
            Figure::Compare(cs) => compare_columns(cs),
            Figure::Speedup(_) | Figure::Efficiency(_) => {
                SCALING_COLUMNS.iter().map(|h| h.to_string()).collect()
            }
            Figure::Breakdown(_) => SHARES_COLUMNS.iter().map(|h| h.to_string()).collect(),
            Figure::TimeToTrain(_) => RUN_COLUMNS.iter().map(|h| h.to_string()).collect(),
        };
        Table {
            header,
            rows: Vec::new(),
        }
        .titles()
    }

    /// The numbers behind the chart.
    pub fn table(&self) -> Table {
        match self {
            Figure::Compare(cs) => compare_table(cs),
            Figure::Speedup(d) | Figure::Efficiency(d) => scaling_table(d),
            Figure::Breakdown(d) => d.table(),
            Figure::TimeToTrain(d) => d.table(),
        }
    }
}

/// The columns of the scaling curve's table.
const SCALING_COLUMNS: [&str; 11] = [
    "gpus",
    "speedup",
    "efficiency",
    "amdahl_speedup",
    "step_ms",
    "compute_ms",
    "comm_exposed_ms",
    "data_wait_ms",
    "serial_ms",
    "bubble_ms",
    "fits",
];

/// The scaling curve's table: speedup, efficiency, Amdahl and the breakdown in milliseconds.
fn scaling_table(d: &ScalingData) -> Table {
    let ms = |s: f64| format!("{:.4}", s * 1e3);
    Table {
        header: SCALING_COLUMNS.iter().map(|h| h.to_string()).collect(),
        rows: d
            .points
            .iter()
            .map(|p| {
                let b = &p.breakdown;
                vec![
                    p.gpus.to_string(),
                    format!("{:.4}", p.speedup),
                    format!("{:.4}", p.efficiency),
                    format!("{:.4}", amdahl(d.serial_fraction, f64::from(p.gpus))),
                    ms(b.total()),
                    ms(b.compute),
                    ms(b.comm_exposed),
                    ms(b.data_wait),
                    ms(b.serial),
                    ms(b.bubble),
                    p.fits.to_string(),
                ]
            })
            .collect(),
    }
}

/// The comparison's table: one speedup column per network (`ib-ndr_speedup`).
fn compare_table(cs: &[NetworkCurve]) -> Table {
    let header = compare_columns(cs);
    let rows = cs
        .first()
        .map(|(_, first)| {
            first
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let mut row = vec![p.gpus.to_string()];
                    row.extend(cs.iter().map(|(_, pts)| {
                        pts.get(i)
                            .map(|p| format!("{:.4}", p.speedup))
                            .unwrap_or_default()
                    }));
                    row
                })
                .collect()
        })
        .unwrap_or_default();
    Table { header, rows }
}

/// The comparison's columns: `gpus`, then `ib-ndr_speedup` for each network.
fn compare_columns(cs: &[NetworkCurve]) -> Vec<String> {
    let mut header = vec!["gpus".to_string()];
    header.extend(cs.iter().map(|(n, _)| format!("{}_speedup", n.id)));
    header
}

/// How far each network keeps half of the ideal speedup.
fn compare_takeaway(cs: &[NetworkCurve]) -> String {
    let parts: Vec<String> = cs
        .iter()
        .filter_map(|(n, pts)| {
            pts.iter().rev().find(|p| p.efficiency >= 0.5).map(|p| {
                format!(
                    "{} keeps half efficiency up to {}",
                    n.name,
                    gpus_text(p.gpus)
                )
            })
        })
        .collect();
    if parts.is_empty() {
        "No network keeps half efficiency beyond one GPU.".to_string()
    } else {
        parts.join("; ") + "."
    }
}

/// Every network's speedup at point `i`: "1,024 GPUs: tcp25 3.1×, ib-ndr 610.2×".
fn compare_readout(cs: &[NetworkCurve], i: usize) -> String {
    let n = cs.first().and_then(|(_, p)| p.get(i)).map(|p| p.gpus);
    let vals: Vec<String> = cs
        .iter()
        .filter_map(|(net, pts)| {
            pts.get(i)
                .map(|p| format!("{} {}", net.id, speedup_text(p.speedup)))
        })
        .collect();
    format!(
        "{}: {}",
        n.map(gpus_text).unwrap_or_default(),
        vals.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware;
    use crate::model::scenario::Scenario;
    use crate::render::series::{compare_data, scaling_data};

    fn curve(q: &str) -> ScalingData {
        scaling_data(&Scenario::parse(q).unwrap())
    }

    fn networks(ids: &[&str]) -> Vec<&'static Network> {
        ids.iter().filter_map(|id| hardware::network(id)).collect()
    }

    #[test]
    fn the_table_and_its_csv_hold_the_same_numbers() {
        let d = curve("gpus=64&gpu=a100&inter=tcp10&nics=1&model=gpt2-xl");
        let t = Figure::Speedup(&d).table();
        assert_eq!(t.rows.len(), d.points.len());
        assert!(t.rows.iter().all(|r| r.len() == t.header.len()));
        let csv = t.csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 1 + d.points.len());
        assert!(lines[0].starts_with("gpus,speedup,efficiency,amdahl_speedup,step_ms,"));
        assert_eq!(lines[1].split(',').collect::<Vec<_>>(), t.rows[0]);
        assert!(csv.ends_with('\n'));
        assert!(t.titles().contains(&"comm exposed ms".to_string()));
        // The step time column is the sum of its parts, in milliseconds.
        let p = &d.points[3];
        assert_eq!(t.rows[3][4], format!("{:.4}", p.breakdown.total() * 1e3));
    }

    #[test]
    fn a_closed_table_names_the_same_columns_as_the_open_one() {
        let sc = Scenario::parse("gpus=64&gpu=h100&model=llama3-8b&zero=3").unwrap();
        let d = scaling_data(&sc);
        let run = crate::render::train::run_data(&sc, &crate::model::sweep::curve(&sc));
        let shares = TimeShares::new(&run);
        let cs = compare_data(&sc, &networks(&["tcp25", "ib-ndr"]));
        for f in [
            Figure::Speedup(&d),
            Figure::Efficiency(&d),
            Figure::Breakdown(&shares),
            Figure::TimeToTrain(&run),
            Figure::Compare(&cs),
        ] {
            assert_eq!(f.titles(), f.table().titles());
        }
    }

    #[test]
    fn the_comparison_table_has_one_column_per_network() {
        let sc = Scenario::parse("gpus=64&gpu=h100&model=llama3-8b&zero=3").unwrap();
        let cs = compare_data(&sc, &networks(&["tcp25", "ib-ndr"]));
        let t = Figure::Compare(&cs).table();
        assert_eq!(t.header, ["gpus", "tcp25_speedup", "ib-ndr_speedup"]);
        assert_eq!(t.rows.len(), cs[0].1.len());
        assert_eq!(t.rows[0][0], "1");
        let csv = t.csv();
        assert!(csv.starts_with("gpus,tcp25_speedup,ib-ndr_speedup\n1,"));
        assert_eq!(csv.lines().count(), 1 + t.rows.len());
        // No networks chosen: a header alone.
        assert_eq!(Figure::Compare(&[]).table().csv(), "gpus\n");
    }

    #[test]
    fn the_comparison_says_how_far_each_network_keeps_half_efficiency() {
        let sc = Scenario::parse("gpus=64&gpu=h100&model=llama3-8b&zero=3").unwrap();
        let cs = compare_data(&sc, &networks(&["tcp25", "ib-ndr"]));
        let text = Figure::Compare(&cs).takeaway();
        for (n, pts) in &cs {
            let last = pts.iter().rev().find(|p| p.efficiency >= 0.5).unwrap();
            assert!(
                text.contains(&format!(
                    "{} keeps half efficiency up to {}",
                    n.name,
                    gpus_text(last.gpus)
                )),
                "{text}"
            );
        }
        assert!(text.ends_with('.'));
        // The faster network keeps half efficiency further out.
        let reach = |i: usize| {
            cs[i]
                .1
                .iter()
                .rev()
                .find(|p| p.efficiency >= 0.5)
                .unwrap()
                .gpus
        };
        assert!(reach(1) > reach(0), "{text}");
        assert_eq!(
            Figure::Compare(&[]).takeaway(),
            "No network keeps half efficiency beyond one GPU."
        );
    }

    #[test]
    fn the_comparison_readout_lists_every_network_at_one_count() {
        let sc = Scenario::parse("gpus=64&gpu=h100&model=llama3-8b&zero=3").unwrap();
        let cs = compare_data(&sc, &networks(&["tcp25", "ib-ndr"]));
        let f = Figure::Compare(&cs);
        let i = f.nearest(1024.0).unwrap();
        assert_eq!(f.gpus(i), Some(1024));
        let r = f.readout(i);
        assert!(r.starts_with("1,024 GPUs: tcp25 "), "{r}");
        assert!(r.contains(", ib-ndr "), "{r}");
        assert!(r.ends_with('×'), "{r}");
    }

    #[test]
    fn readouts_name_the_count_and_what_the_chart_shows() {
        let d = curve("gpus=64&gpu=a100&inter=tcp25&model=gpt2-xl");
        let i = Figure::Speedup(&d).nearest(64.0).unwrap();
        assert_eq!(d.points[i].gpus, 64);
        let s = Figure::Speedup(&d).readout(i);
        assert!(
            s.starts_with("64 GPUs: ") && s.contains("(ideal 64×, Amdahl "),
            "{s}"
        );
        let e = Figure::Efficiency(&d).readout(i);
        assert!(
            e.starts_with("64 GPUs: ") && e.ends_with(" % efficient"),
            "{e}"
        );
        let shares = TimeShares::new(&crate::render::train::run_data(
            &Scenario::parse("gpus=64&gpu=a100&inter=tcp25&model=gpt2-xl").unwrap(),
            &crate::model::sweep::curve(
                &Scenario::parse("gpus=64&gpu=a100&inter=tcp25&model=gpt2-xl").unwrap(),
            ),
        ));
        let b = Figure::Breakdown(&shares).readout(i);
        assert!(b.starts_with("64 GPUs: compute "), "{b}");
        assert_eq!(Figure::Speedup(&d).readout(999), "");
        // A count where the model does not fit says so.
        let big = curve("model=llama3-70b&gpu=h100&zero=3&gpus=64");
        let oom = Figure::Efficiency(&big).readout(0);
        assert!(oom.ends_with("does not fit in memory"), "{oom}");
    }

    #[test]
    fn the_mouse_picks_the_nearest_count_on_the_log_axis() {
        let d = curve("gpus=64&gpu=a100&inter=tcp25&model=gpt2-xl");
        let f = Figure::Efficiency(&d);
        let at = |g: f64| f.gpus(f.nearest(g).unwrap()).unwrap();
        assert_eq!(at(1.0), 1);
        assert_eq!(at(0.2), 1, "left of the axis is the first point");
        assert_eq!(at(90.0), 64, "log₂ 90 is nearer 64 than 128");
        assert_eq!(at(100.0), 128);
        assert_eq!(at(1e9), 65536);
    }

    #[test]
    fn arrow_keys_walk_the_points_and_stop_at_the_ends() {
        let d = curve("gpus=64&gpu=a100&inter=tcp25&model=gpt2-xl");
        let f = Figure::Speedup(&d);
        let last = f.len() - 1;
        assert_eq!(f.step(None, 1), Some(0));
        assert_eq!(f.step(None, -1), Some(last));
        assert_eq!(f.step(Some(3), 1), Some(4));
        assert_eq!(f.step(Some(0), -1), Some(0));
        assert_eq!(f.step(Some(last), 1), Some(last));
        assert_eq!(Figure::Compare(&[]).step(None, 1), None);
    }
}
