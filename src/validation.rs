//! The model against published measurements.
//!
//! Two sets of rows, compiled in from `tests/data/`: **calibration** rows, the only ones any
//! constant of the model was fitted on (each such constant names its rows in its comment), and
//! **held-out** rows, which no constant has seen: their error is the model's accuracy. Each row
//! has the published value, the band the source's own uncertainty allows, and its source; a row
//! the model misses stays, with `miss` saying why (the next thing to fix).

use crate::model::report::{check_metric, evaluate_metric};

/// The calibration rows.
pub const CALIBRATION_CSV: &str = include_str!("../tests/data/calibration.csv");
/// The held-out rows.
pub const HELD_OUT_CSV: &str = include_str!("../tests/data/held-out.csv");

/// Which set a row belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Set {
    /// Constants were fitted on it.
    Calibration,
    /// No constant has seen it.
    HeldOut,
}

impl Set {
    /// Name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Set::Calibration => "calibration",
            Set::HeldOut => "held-out",
        }
    }
}

/// What kind of figure a row checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// nccl-tests collectives: bus bandwidth or time.
    Collective,
    /// Training step: throughput, TFLOP/s, MFU.
    Step,
    /// Scaling efficiency.
    Efficiency,
    /// Memory per GPU.
    Memory,
    /// Failures, checkpoints and time to train.
    Goodput,
}

impl Group {
    /// Every group, in report order.
    pub const ALL: [Group; 5] = [
        Group::Collective,
        Group::Step,
        Group::Efficiency,
        Group::Memory,
        Group::Goodput,
    ];

    /// The id used in the CSV files.
    pub fn id(self) -> &'static str {
        match self {
            Group::Collective => "collective",
            Group::Step => "step",
            Group::Efficiency => "efficiency",
            Group::Memory => "memory",
            Group::Goodput => "goodput",
        }
    }

    fn from_id(s: &str) -> Option<Group> {
        Group::ALL.into_iter().find(|g| g.id() == s)
    }
}

/// One published measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Short id.
    pub id: String,
    /// Kind of figure.
    pub group: Group,
    /// Calibration or held-out.
    pub set: Set,
    /// `collective` or `step`.
    pub command: String,
    /// The scenario string of the measured configuration.
    pub query: String,
    /// The report metric compared.
    pub metric: String,
    /// The published value.
    pub published: f64,
    /// Lower end of the source's uncertainty.
    pub low: f64,
    /// Upper end.
    pub high: f64,
    /// Citation.
    pub source: String,
    /// Why the model misses this row, when it does.
    pub miss: Option<String>,
}

/// Splits one CSV line, honouring double quotes (sources have commas).
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            _ => {
                if let Some(last) = out.last_mut() {
                    last.push(ch);
                }
            }
        }
    }
    out
}

/// Parses one set's CSV: `id,group,command,query,metric,published,low,high,source,miss`.
pub fn parse(csv: &str, set: Set) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for (i, line) in csv.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let f = fields(line);
        let at = |what: &str| format!("{} line {}: {what}", set.name(), i + 1);
        if f.len() != 10 {
            return Err(at(&format!("expected 10 columns, found {}", f.len())));
        }
        let num = |j: usize| -> Result<f64, String> {
            f[j].trim()
                .parse::<f64>()
                .map_err(|_| at(&format!("'{}' is not a number", f[j])))
        };
        let group =
            Group::from_id(f[1].trim()).ok_or_else(|| at(&format!("unknown group '{}'", f[1])))?;
        check_metric(f[2].trim(), f[4].trim()).map_err(|e| at(&e))?;
        let (published, low, high) = (num(5)?, num(6)?, num(7)?);
        if !(low <= published && published <= high) {
            return Err(at("the published value lies outside its own band"));
        }
        rows.push(Row {
            id: f[0].trim().to_string(),
            group,
            set,
            command: f[2].trim().to_string(),
            query: f[3].trim().to_string(),
            metric: f[4].trim().to_string(),
            published,
            low,
            high,
            source: f[8].trim().to_string(),
            miss: Some(f[9].trim().to_string()).filter(|m| !m.is_empty()),
        });
    }
    Ok(rows)
}

/// Every shipped row, calibration first.
pub fn rows() -> Result<Vec<Row>, String> {
    let mut v = parse(CALIBRATION_CSV, Set::Calibration)?;
    v.extend(parse(HELD_OUT_CSV, Set::HeldOut)?);
    Ok(v)
}

/// A row with the model's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The row.
    pub row: Row,
    /// The model's value, or why it has none.
    pub model: Result<f64, String>,
}

impl Outcome {
    /// Relative error (model − published) / published; `None` without a model value.
    pub fn error(&self) -> Option<f64> {
        self.model
            .as_ref()
            .ok()
            .map(|m| (m - self.row.published) / self.row.published)
    }

    /// Whether the model lands inside the band.
    pub fn inside(&self) -> bool {
        self.model
            .as_ref()
            .is_ok_and(|m| (self.row.low..=self.row.high).contains(m))
    }
}

/// Runs the model on each row.
pub fn evaluate(rows: &[Row]) -> Vec<Outcome> {
    rows.iter()
        .map(|r| Outcome {
            row: r.clone(),
            model: evaluate_metric(&r.command, &r.query, &r.metric),
        })
        .collect()
}

/// Errors of one group in one set.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The group.
    pub group: Group,
    /// The set.
    pub set: Set,
    /// Rows.
    pub rows: usize,
    /// Rows inside their band.
    pub inside: usize,
    /// Mean absolute relative error.
    pub mean_abs: f64,
    /// Geometric-mean error: exp(mean |ln(model/published)|) − 1.
    pub geomean: f64,
    /// The mean signed error when every row errs the same way (the model reads low, or high,
    /// on all of them), else `None`.
    pub lean: Option<f64>,
    /// The worst row and its relative error.
    pub worst: Option<(String, f64)>,
}

/// Per group and set, the errors.
pub fn summarize(outcomes: &[Outcome]) -> Vec<Summary> {
    let mut out = Vec::new();
    for set in [Set::HeldOut, Set::Calibration] {
        for group in Group::ALL {
            let these: Vec<&Outcome> = outcomes
                .iter()
                .filter(|o| o.row.set == set && o.row.group == group)
                .collect();
            if these.is_empty() {
                continue;
            }
            let errs: Vec<(String, f64, f64)> = these
                .iter()
                .filter_map(|o| {
                    let m = o.model.as_ref().ok()?;
                    Some((
                        o.row.id.clone(),
                        o.error()?,
                        (m / o.row.published).ln().abs(),
                    ))
                })
                .collect();
            let n = errs.len().max(1) as f64;
            out.push(Summary {
                group,
                set,
                rows: these.len(),
                inside: these.iter().filter(|o| o.inside()).count(),
                mean_abs: errs.iter().map(|e| e.1.abs()).sum::<f64>() / n,
                geomean: (errs.iter().map(|e| e.2).sum::<f64>() / n).exp() - 1.0,
                lean: (errs.len() > 1
                    && (errs.iter().all(|e| e.1 < 0.0) || errs.iter().all(|e| e.1 > 0.0)))
                .then(|| errs.iter().map(|e| e.1).sum::<f64>() / n),
                worst: errs
                    .iter()
                    .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
                    .map(|e| (e.0.clone(), e.1)),
            });
        }
    }
    out
}

/// The summary as the README's Markdown table.
pub fn markdown(summaries: &[Summary]) -> String {
    let mut s = String::from(
        "| set | group | rows | inside band | mean abs. error | geomean error | worst |\n|---|---|---|---|---|---|---|\n",
    );
    for x in summaries {
        let worst = x
            .worst
            .as_ref()
            .map(|(id, e)| format!("{id} ({:+.0} %)", 100.0 * e))
            .unwrap_or_default();
        s.push_str(&format!(
            "| {} | {} | {} | {} | {:.1} % | {:.1} % | {} |\n",
            x.set.name(),
            x.group.id(),
            x.rows,
            x.inside,
            100.0 * x.mean_abs,
            100.0 * x.geomean,
            worst
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_keep_quoted_commas() {
        assert_eq!(fields("a,\"b, c\",d"), vec!["a", "b, c", "d"]);
    }

    #[test]
    fn a_bad_row_is_named() {
        let head = "id,group,command,query,metric,published,low,high,source,miss\n";
        let bad_metric = format!("{head}x,step,step,gpus=8,step_time,1,0,2,src,\n");
        assert!(parse(&bad_metric, Set::HeldOut)
            .unwrap_err()
            .contains("no metric 'step_time'"));
        let outside = format!("{head}x,step,step,gpus=8,step_ms,5,0,2,src,\n");
        assert!(parse(&outside, Set::HeldOut)
            .unwrap_err()
            .contains("outside"));
        let short = format!("{head}x,step\n");
        assert!(parse(&short, Set::HeldOut)
            .unwrap_err()
            .contains("10 columns"));
    }

    #[test]
    fn shipped_rows_parse_with_unique_ids() {
        let rows = rows().unwrap();
        let mut ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        ids.sort_unstable();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n, "duplicate ids");
    }
}
