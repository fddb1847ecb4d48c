//! The model against published measurements, through the same code the CLI runs.
//! `tests/data/public-cases.csv` is the project's shared sample (re-read from
//! `../shared/validation/` when present, so new shared rows are checked too);
//! `tests/data/extra-cases.csv` holds further published results, each with its source.
#![cfg(not(target_arch = "wasm32"))]

use gpu_scaling_lab::model::report::evaluate_metric;
use std::path::Path;

struct Case {
    id: String,
    command: String,
    query: String,
    metric: String,
    low: f64,
    high: f64,
}

/// Splits one CSV line, honouring double quotes (the `source` column has commas).
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            _ => out.last_mut().unwrap().push(ch),
        }
    }
    out
}

fn cases(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f = fields(l);
            Case {
                id: f[0].clone(),
                command: f[1].clone(),
                query: f[2].clone(),
                metric: f[3].clone(),
                low: f[4].parse().unwrap(),
                high: f[5].parse().unwrap(),
            }
        })
        .collect()
}

fn all_cases() -> Vec<Case> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut v = cases(&here.join("tests/data/public-cases.csv"));
    let shared = here.join("../shared/validation/public-cases.csv");
    if shared.exists() {
        for c in cases(&shared) {
            if !v.iter().any(|x| x.id == c.id) {
                v.push(c);
            }
        }
    }
    v.extend(cases(&here.join("tests/data/extra-cases.csv")));
    v
}

fn run(kind: &str) {
    let mut failures = Vec::new();
    let mut n = 0;
    for c in all_cases().into_iter().filter(|c| c.command == kind) {
        n += 1;
        let got = evaluate_metric(&c.command, &c.query, &c.metric)
            .unwrap_or_else(|e| panic!("{}: {e}", c.id));
        println!(
            "{:<28} {:>14} = {:>10.3}  band [{}, {}]",
            c.id, c.metric, got, c.low, c.high
        );
        if !(c.low..=c.high).contains(&got) {
            failures.push(format!(
                "{}: {} = {got} outside [{}, {}]",
                c.id, c.metric, c.low, c.high
            ));
        }
    }
    assert!(n > 0, "no {kind} cases found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn collective_cases_land_in_their_bands() {
    run("collective");
}

#[test]
fn step_cases_land_in_their_bands() {
    run("step");
}
