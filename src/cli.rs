//! The `scaling-lab` command line, as a library function so tests run exactly what users run.

use crate::model::keys;
use crate::model::nccl_tests;
use crate::model::report::{CollectiveReport, StepReport, SweepTable};
use crate::model::scenario::Scenario;
use crate::model::sweep;
use crate::render::measured::header_keys;
use crate::validation;

/// Usage text, with the key lists from the key table.
pub fn usage() -> String {
    format!(
        "usage: scaling-lab <collective|step|sweep|keys|validate> '<scenario>' [--csv] [--inter a,b,…]
       scaling-lab calibrate [FILE|-] ['<scenario>']   |   scaling-lab compare FILE '<scenario>'
  collective  time, algbw and busbw of one collective (keys: {})
  step        one training step (also: {})
  sweep       the step over GPU counts 1…65,536 (JSON, or CSV with --csv); with --inter, one curve
              per listed inter-node network (e.g. --inter tcp100,roce400,ib-ndr)
  keys        every scenario key as a Markdown table (values, default, unit, meaning)
  calibrate   read an nccl-tests run (all_reduce_perf, all_gather_perf, reduce_scatter_perf text
              output; - for standard input), fit latency and bandwidth, print the scenario that
              reproduces it (ranks, hosts and GPU come from its header where the scenario is silent)
  compare     the run against the model on a scenario, size by size
  validate    the model against every published measurement in tests/data (per row, then the
              error per group on held-out and calibration rows)
scenario: key=value&key=value, e.g. 'gpus=64&gpu=h100&inter=ib-ndr&model=llama3-8b'",
        keys::names_for(true).join(" "),
        keys::names_for(false)
            .into_iter()
            .filter(|k| !keys::names_for(true).contains(k))
            .collect::<Vec<_>>()
            .join(" ")
    )
}

/// What a run prints and its exit status.
#[derive(Debug, PartialEq)]
pub struct Output {
    /// Exit status: 0, or 2 for a bad command or scenario.
    pub status: i32,
    /// What goes to standard output.
    pub stdout: String,
    /// What goes to standard error.
    pub stderr: String,
}

fn fail(msg: impl Into<String>) -> Output {
    Output {
        status: 2,
        stdout: String::new(),
        stderr: msg.into(),
    }
}

/// Runs the command line (arguments without the program name).
pub fn run(args: &[String]) -> Output {
    let mut csv = false;
    let mut inters: Option<&str> = None;
    let mut pos = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--csv" => csv = true,
            "--inter" => match it.next() {
                Some(list) => inters = Some(list.as_str()),
                None => {
                    return fail(
                        "error: --inter needs a list of networks, e.g. --inter tcp100,ib-ndr",
                    )
                }
            },
            "-h" | "--help" | "help" => {
                return Output {
                    status: 0,
                    stdout: usage(),
                    stderr: String::new(),
                }
            }
            _ => pos.push(a.as_str()),
        }
    }
    if let Some(&cmd @ ("calibrate" | "compare")) = pos.first() {
        return match run_file_command(cmd, &pos[1..]) {
            Ok(stdout) => Output {
                status: 0,
                stdout,
                stderr: String::new(),
            },
            Err(e) => fail(format!("error: {e}")),
        };
    }
    let (cmd, q) = match pos.as_slice() {
        [cmd] => (*cmd, ""),
        [cmd, q] => (*cmd, *q),
        _ => {
            return fail(format!(
                "error: expected a command and one scenario\n{}",
                usage()
            ))
        }
    };
    if (csv || inters.is_some()) && cmd != "sweep" {
        return fail("error: --csv and --inter apply to sweep only");
    }
    let result = match cmd {
        "collective" => parse(q)
            .and_then(|sc| CollectiveReport::new(&sc).map_err(|e| e.to_string()))
            .map(|r| to_json(&r)),
        "step" => parse(q)
            .and_then(|sc| StepReport::new(&sc).map_err(|e| e.to_string()))
            .map(|r| to_json(&r)),
        "sweep" => sweep_command(q, inters, csv),
        "keys" => Ok(keys::markdown_table()),
        "validate" => validate_command(),
        other => Err(format!("unknown command '{other}'\n{}", usage())),
    };
    match result {
        Ok(stdout) => Output {
            status: 0,
            stdout,
            stderr: String::new(),
        },
        Err(e) => fail(format!("error: {e}")),
    }
}

fn parse(q: &str) -> Result<Scenario, String> {
    Scenario::parse(q).map_err(|e| e.to_string())
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    // The reports hold numbers and strings only; serialising them cannot fail.
    serde_json::to_string(v).unwrap_or_default()
}

/// `sweep`: one curve, or one per network of `--inter`.
fn sweep_command(q: &str, inters: Option<&str>, csv: bool) -> Result<String, String> {
    // The sweep runs every count; without a stated one, the chosen count is the smallest power
    // of two the layout allows (tp=8&pp=4 needs 32: the default 8 was refused).
    let stated = Scenario::stated_keys(q).any(|k| k == "gpus");
    let sc = match Scenario::parse(q) {
        Err(e) if !stated && e.key.split('+').any(|k| k == "gpus") => (0..=16)
            .find_map(|k| Scenario::parse(&format!("{q}&gpus={}", 1u32 << k)).ok())
            .ok_or_else(|| e.to_string())?,
        other => other.map_err(|e| e.to_string())?,
    };
    let scenarios: Vec<(Option<&'static str>, Scenario)> = match inters {
        None => vec![(None, sc)],
        Some(list) => list
            .split(',')
            .map(|id| {
                let mut s = sc.clone();
                s.set("inter", id.trim())
                    .and_then(|_| s.validate())
                    .map(|_| (s.get("inter").and_then(|n| keys_id(&n)), s))
                    .map_err(|e| format!("--inter: {e}"))
            })
            .collect::<Result<_, _>>()?,
    };
    let tables: Vec<SweepTable> = scenarios
        .iter()
        .map(|(id, s)| SweepTable {
            inter: *id,
            ..SweepTable::new(s, &sweep::curve(s))
        })
        .collect();
    Ok(if csv {
        let mut out = SweepTable::csv_header(inters.is_some());
        for t in &tables {
            out.push_str(&t.csv_rows());
        }
        out
    } else if inters.is_some() {
        format!("{{\"curves\":{}}}", to_json(&tables))
    } else {
        tables.first().map(to_json).unwrap_or_default()
    })
}

/// Reads a run from a file, or from standard input for `-`.
fn read_run(path: &str) -> Result<String, String> {
    if path == "-" {
        // A terminal would wait for a run nobody is typing.
        if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            return Err(format!(
                "standard input is a terminal: give the nccl-tests output as a file, or pipe it in\n{}",
                usage()
            ));
        }
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| format!("standard input: {e}"))?;
        Ok(text)
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
    }
}

/// `calibrate [FILE|-] ['scenario']` and `compare FILE 'scenario'`.
fn run_file_command(cmd: &str, args: &[&str]) -> Result<String, String> {
    let (path, q) = match args {
        [] => ("-", ""),
        [p] => (*p, ""),
        [p, q] => (*p, *q),
        _ => return Err(format!("{cmd} takes a file and one scenario\n{}", usage())),
    };
    let run = nccl_tests::parse(&read_run(path)?);
    if run.rows.is_empty() {
        let why = run
            .problems
            .first()
            .map(|(l, e)| format!(" (line {l}: {e})"))
            .unwrap_or_default();
        return Err(format!("no nccl-tests table rows found in {path}{why}"));
    }
    let mut sc = parse(q)?;
    // What the header says (ranks, GPUs per node, GPU), where the scenario does not.
    let stated: Vec<&str> = Scenario::stated_keys(q).collect();
    let told = header_keys(&run);
    for (key, value) in &told {
        if !stated.contains(key) {
            sc.set(key, value).map_err(|e| e.to_string())?;
        }
    }
    sc.validate().map_err(|e| {
        // A refusal of values the header gave, not the user: say where they came from.
        let from_header: Vec<String> = told
            .iter()
            .filter(|(k, _)| !stated.contains(k) && e.key.split('+').any(|x| x == *k))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if from_header.is_empty() {
            e.to_string()
        } else {
            format!(
                "{e} ({} read from the run's header: {}; give the keys in the scenario to override)",
                from_header.join(" and "),
                crate::render::measured::inferred(&run).join(", ")
            )
        }
    })?;
    // What neither the header nor the scenario says is the default's.
    let unsaid = |key: &str| !stated.contains(&key) && !told.iter().any(|(k, _)| *k == key);
    let mut assumed: Vec<String> = run
        .assumed(&sc, &unsaid, "the scenario")
        .into_iter()
        .collect();
    // A stated collective the run contradicts: the run's is fitted.
    if let Some(op) = run.op.filter(|&op| stated.contains(&"op") && op != sc.op) {
        assumed.push(format!(
            "the run measures {}, the scenario says op={}: the run's collective is the one fitted",
            op.id(),
            sc.op.id()
        ));
    }
    match cmd {
        "calibrate" => nccl_tests::calibrate(&run, &sc).map(|mut c| {
            c.warnings.extend(assumed);
            to_json(&c)
        }),
        _ => nccl_tests::compare(&run, &sc).map(|c| to_json(&c)),
    }
}

/// `validate`: one line per row, then the summary table the README carries.
fn validate_command() -> Result<String, String> {
    let outcomes = validation::evaluate(&validation::rows()?);
    let mut out = String::new();
    for o in &outcomes {
        let r = &o.row;
        let model = match &o.model {
            Ok(m) => format!("{m:>12.4}"),
            Err(e) => format!("error: {e}"),
        };
        let verdict = match (o.inside(), &r.miss) {
            (true, _) => "ok".to_string(),
            (false, Some(why)) => format!("known miss: {why}"),
            (false, None) => "MISS".to_string(),
        };
        out.push_str(&format!(
            "{:<11} {:<32} {:>16} published {:>12.4} [{:.4}, {:.4}] model {model} {:+6.1} % {verdict}\n",
            r.set.name(),
            r.id,
            r.metric,
            r.published,
            r.low,
            r.high,
            100.0 * o.error().unwrap_or(f64::NAN),
        ));
    }
    out.push('\n');
    out.push_str(&validation::markdown(&validation::summarize(&outcomes)));
    Ok(out)
}

/// The static id of a network named in `--inter`.
fn keys_id(id: &str) -> Option<&'static str> {
    crate::model::hardware::network(id).map(|n| n.id)
}
