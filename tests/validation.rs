//! The model against published measurements, through the same code the CLI runs.
//!
//! `tests/data/calibration.csv` holds the rows constants were fitted on; `tests/data/held-out.csv`
//! the rows no constant has seen. Every row must land in its band unless it is marked as a known
//! miss (with the reason); a marked row that starts landing in its band must be unmarked. Rows of
//! `../shared/validation/public-cases.csv` that are not in `tests/data` are checked as held-out
//! too, so new shared rows are judged at once. The README's accuracy table is this test's output.
#![cfg(not(target_arch = "wasm32"))]

use gpu_scaling_lab::validation::{self, Outcome, Row, Set};
use std::path::Path;

fn check(outcomes: &[Outcome]) -> Vec<String> {
    let mut problems = Vec::new();
    for o in outcomes {
        let r = &o.row;
        match (&o.model, o.inside(), &r.miss) {
            (Err(e), _, _) => problems.push(format!("{}: the model has no answer: {e}", r.id)),
            (Ok(m), false, None) => problems.push(format!(
                "{}: {} = {m:.4} outside [{}, {}] (published {})",
                r.id, r.metric, r.low, r.high, r.published
            )),
            (Ok(m), true, Some(_)) => problems.push(format!(
                "{}: marked as a known miss but {m:.4} lands in [{}, {}]: remove the mark",
                r.id, r.low, r.high
            )),
            _ => {}
        }
    }
    problems
}

#[test]
fn every_row_lands_in_its_band_or_is_a_marked_miss() {
    let rows = validation::rows().unwrap();
    assert!(rows.iter().filter(|r| r.set == Set::HeldOut).count() >= 30);
    let outcomes = validation::evaluate(&rows);
    let summary = validation::summarize(&outcomes);
    println!("{}", validation::markdown(&summary));
    let problems = check(&outcomes);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn readme_accuracy_table_is_the_test_s() {
    let outcomes = validation::evaluate(&validation::rows().unwrap());
    let table = validation::markdown(&validation::summarize(&outcomes));
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("<!-- validation:start")
        .expect("README has the validation:start marker");
    let body = &readme[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    let end = body
        .find("<!-- validation:end -->")
        .expect("validation:end marker");
    assert_eq!(
        body[..end].trim(),
        table.trim(),
        "README accuracy table drifted: paste the table `scaling-lab validate` prints"
    );
}

/// Rows of the shared sample that `tests/data` does not carry, judged as held-out.
#[test]
fn shared_public_cases_land_in_their_bands() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Ok(text) = std::fs::read_to_string(here.join("../shared/validation/public-cases.csv"))
    else {
        return;
    };
    let ours = validation::rows().unwrap();
    let mut rows: Vec<Row> = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        // id,command,query,metric,low,high,source → the tests/data layout.
        let (id, rest) = line.split_once(',').unwrap();
        let (command, rest) = rest.split_once(',').unwrap();
        let (query, rest) = rest.split_once(',').unwrap();
        let (metric, rest) = rest.split_once(',').unwrap();
        let (low, rest) = rest.split_once(',').unwrap();
        let (high, source) = rest.split_once(',').unwrap();
        if ours.iter().any(|r| r.id == id) {
            continue;
        }
        let (low, high): (f64, f64) = (low.parse().unwrap(), high.parse().unwrap());
        let csv = format!(
            "id,group,command,query,metric,published,low,high,source,miss\n{id},{command},{command},{query},{metric},{},{low},{high},{source},\n",
            (low + high) / 2.0
        );
        rows.extend(validation::parse(&csv, Set::HeldOut).unwrap());
    }
    let problems = check(&validation::evaluate(&rows));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
