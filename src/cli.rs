//! The `scaling-lab` command line, as a library function so tests run exactly what users run.

use crate::model::collective;
use crate::model::scenario::Scenario;
use crate::model::step::{self, StepResult};
use crate::model::sweep;
use serde_json::{json, Value};

/// Usage text.
pub const USAGE: &str = "usage: scaling-lab <collective|step|sweep> '<scenario>' [--csv] [--inter a,b,…]
  collective  time, algbw and busbw of one collective (keys: op gpus per_node gpu intra inter nics algo bytes)
  step        one training step (adds: model params flops layers hidden heads seq vocab batch micro
              precision tp pp zero recompute overlap scaling data_rate)
  sweep       the step over GPU counts 1…65,536 (JSON, or CSV with --csv); with --inter, one curve
              per listed inter-node network (e.g. --inter tcp100,roce400,ib-ndr)
scenario: key=value&key=value, e.g. 'gpus=64&gpu=h100&inter=ib-ndr&model=llama3-8b'";

/// What a run prints and its exit status.
#[derive(Debug, PartialEq)]
pub struct Output {
    pub status: i32,
    pub stdout: String,
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
                    stdout: USAGE.to_string(),
                    stderr: String::new(),
                }
            }
            _ => pos.push(a.as_str()),
        }
    }
    let (cmd, q) = match pos.as_slice() {
        [cmd] => (*cmd, ""),
        [cmd, q] => (*cmd, *q),
        _ => {
            return fail(format!(
                "error: expected a command and one scenario\n{USAGE}"
            ))
        }
    };
    if (csv || inters.is_some()) && cmd != "sweep" {
        return fail("error: --csv and --inter apply to sweep only");
    }
    let result = match cmd {
        "collective" | "step" => query(cmd, q).map(|v| v.to_string()),
        "sweep" => sweep_command(q, inters, csv),
        other => Err(format!("unknown command '{other}'\n{USAGE}")),
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

/// `sweep`: one curve, or one per network of `--inter`.
fn sweep_command(q: &str, inters: Option<&str>, csv: bool) -> Result<String, String> {
    let sc = Scenario::parse(q).map_err(|e| e.to_string())?;
    let scenarios: Vec<(Option<&str>, Scenario)> = match inters {
        None => vec![(None, sc)],
        Some(list) => list
            .split(',')
            .map(|id| {
                let mut s = sc.clone();
                s.set("inter", id.trim())
                    .and_then(|_| s.validate())
                    .map(|_| (Some(id.trim()), s))
                    .map_err(|e| format!("--inter: {e}"))
            })
            .collect::<Result<_, _>>()?,
    };
    let mut csv_out = String::new();
    let mut curves = Vec::new();
    for (id, s) in &scenarios {
        let pts = sweep::curve(s);
        if csv {
            let table = sweep_csv(&pts);
            let mut lines = table.lines();
            let head = lines.next().unwrap_or_default();
            if csv_out.is_empty() {
                csv_out = match id {
                    Some(_) => format!("inter,{head}\n"),
                    None => format!("{head}\n"),
                };
            }
            for l in lines {
                match id {
                    Some(n) => csv_out.push_str(&format!("{n},{l}\n")),
                    None => csv_out.push_str(&format!("{l}\n")),
                }
            }
        } else {
            let mut v = sweep_json(s, &pts);
            if let Some(n) = id {
                v["inter"] = json!(n);
            }
            curves.push(v);
        }
    }
    Ok(if csv {
        csv_out
    } else if inters.is_some() {
        json!({ "curves": curves }).to_string()
    } else {
        curves.pop().unwrap_or(Value::Null).to_string()
    })
}

/// Evaluates `collective` or `step` for a scenario string into the JSON the CLI prints.
pub fn query(cmd: &str, q: &str) -> Result<Value, String> {
    let sc = Scenario::parse(q).map_err(|e| e.to_string())?;
    match cmd {
        "collective" => {
            let c = sc.cluster();
            let r = collective::cost(&c, sc.op, sc.algo, sc.bytes).map_err(|e| e.to_string())?;
            Ok(json!({
                "op": r.op.id(),
                "algorithm": r.algorithm.id(),
                "protocol": r.protocol.id(),
                "gpus": c.gpus,
                "nodes": c.nodes(),
                "bytes": r.bytes,
                "time_us": r.time_s * 1e6,
                "algbw_gbs": r.algbw_gbs,
                "busbw_gbs": r.busbw_gbs,
                "bottleneck": r.bottleneck.id(),
                "rounds": r.rounds,
                "latency_share": r.latency_share,
            }))
        }
        "step" => {
            let r = step::evaluate(&sc).map_err(|e| e.to_string())?;
            let pts = sweep::sweep(&sc, &sweep::counts(sc.gpus, sc.gpus));
            let f = sweep::fitted_serial_fraction(&sc, &pts);
            Ok(step_json(&sc, &r, f))
        }
        other => Err(format!("unknown command '{other}'")),
    }
}

fn ms(x: f64) -> f64 {
    x * 1e3
}

/// The JSON of one step.
pub fn step_json(sc: &Scenario, r: &StepResult, serial_fraction: f64) -> Value {
    let b = &r.breakdown;
    let v = step::verdict(sc, r);
    json!({
        "gpus": sc.gpus,
        "dp": sc.dp(), "tp": sc.tp, "pp": sc.pp,
        "batch": sc.batch(), "micro": sc.micro(), "micro_batches": r.micro_batches,
        "precision": sc.precision().id(),
        "step_ms": ms(b.total()),
        "compute_ms": ms(b.compute),
        "comm_exposed_ms": ms(b.comm_exposed),
        "data_wait_ms": ms(b.data_wait),
        "serial_ms": ms(b.serial),
        "bubble_ms": ms(b.bubble),
        "comm_total_ms": { "tp": ms(r.comm.tp), "pp": ms(r.comm.pp), "dp": ms(r.comm.dp) },
        "throughput": r.throughput,
        "tokens_per_s": r.tokens_per_s,
        "tflops_per_gpu": r.tflops_per_gpu,
        "mfu": r.mfu,
        "speedup": r.speedup,
        "efficiency": r.efficiency,
        "serial_fraction": serial_fraction,
        "memory_gib_per_gpu": r.memory.total() / 1073741824.0,
        "memory_capacity_gib": r.memory.capacity / 1073741824.0,
        "fits": r.memory.fits(),
        "bottleneck": v.bottleneck,
        "verdict": v.text,
        "advice": v.advice,
    })
}

fn sweep_json(sc: &Scenario, pts: &[sweep::SweepPoint]) -> Value {
    let f = sweep::fitted_serial_fraction(sc, pts);
    let rows: Vec<Value> = pts
        .iter()
        .map(|p| match &p.result {
            Ok(r) => {
                let s = Scenario {
                    gpus: p.gpus,
                    ..sc.clone()
                };
                step_json(&s, r, f)
            }
            Err(e) => json!({ "gpus": p.gpus, "error": e }),
        })
        .collect();
    json!({ "serial_fraction": f, "points": rows })
}

fn sweep_csv(pts: &[sweep::SweepPoint]) -> String {
    let mut out = String::from(
        "gpus,step_ms,compute_ms,comm_exposed_ms,data_wait_ms,serial_ms,bubble_ms,throughput,speedup,efficiency,mfu,fits\n",
    );
    for p in pts {
        if let Ok(r) = &p.result {
            let b = &r.breakdown;
            out.push_str(&format!(
                "{},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.3},{:.4},{:.4},{:.4},{}\n",
                p.gpus,
                ms(b.total()),
                ms(b.compute),
                ms(b.comm_exposed),
                ms(b.data_wait),
                ms(b.serial),
                ms(b.bubble),
                r.throughput,
                r.speedup,
                r.efficiency,
                r.mfu,
                r.memory.fits()
            ));
        }
    }
    out
}
