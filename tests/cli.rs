//! The `scaling-lab` binary as a user runs it.
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_scaling-lab"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn collective_prints_one_json_object() {
    let (code, out, err) = run(&[
        "collective",
        "gpus=8&per_node=8&gpu=a100&intra=nvlink3&algo=ring&bytes=1GiB",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["algorithm"], "ring");
    let t = v["time_us"].as_f64().unwrap();
    assert!((7384.0..=9024.0).contains(&t), "{t}");
    assert!(v["busbw_gbs"].as_f64().unwrap() > 200.0);
    assert_eq!(v["bottleneck"], "nvlink");
    assert_eq!(v["latency_bound"], false);
    // A tiny all-reduce across servers waits on start-up times, whatever link bounds the rest.
    let (_, out, _) = run(&["collective", "gpus=64&bytes=4KiB"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["latency_share"].as_f64().unwrap() > 0.5);
    assert_eq!(v["latency_bound"], true);
}

#[test]
fn bad_input_exits_2_with_a_named_key_and_no_stdout() {
    for q in [
        "gpus=0",
        "gpus=12&per_node=8",
        "gpu=tpu",
        "bytes=NaN",
        "nonsense",
        "gpus=1e99",
    ] {
        for cmd in ["collective", "step", "sweep"] {
            let (code, out, err) = run(&[cmd, q]);
            assert_eq!(code, 2, "{cmd} {q}");
            assert!(out.is_empty(), "{cmd} {q}: {out}");
            assert!(err.starts_with("error: "), "{cmd} {q}: {err}");
        }
    }
    let (code, _, err) = run(&["collective", "gpu=tpu"]);
    assert_eq!(code, 2);
    assert!(err.contains("gpu") && err.contains("h100"), "{err}");
    let (code, _, _) = run(&["frobnicate", ""]);
    assert_eq!(code, 2);
}

#[test]
fn step_reports_every_field() {
    let (code, out, err) = run(&[
        "step",
        "model=llama3-8b&gpus=64&gpu=h100&inter=ib-ndr&zero=3",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for k in [
        "step_ms",
        "compute_ms",
        "comm_exposed_ms",
        "data_wait_ms",
        "serial_ms",
        "bubble_ms",
        "throughput",
        "tokens_per_s",
        "tflops_per_gpu",
        "mfu",
        "speedup",
        "efficiency",
        "serial_fraction",
        "memory_gib_per_gpu",
        "fits",
        "bottleneck",
        "advice",
    ] {
        assert!(!v[k].is_null(), "missing {k}");
    }
    let e = v["efficiency"].as_f64().unwrap();
    assert!(e > 0.0 && e <= 1.0);
}

#[test]
fn sweep_csv_has_a_row_per_power_of_two() {
    let (code, out, err) = run(&["sweep", "model=resnet50&gpu=a100&precision=tf32", "--csv"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("gpus,step_ms"));
    assert_eq!(lines.len(), 1 + 17, "{out}");
    assert!(lines.last().unwrap().starts_with("65536,"));
}

#[test]
fn sweep_compares_networks() {
    let (code, out, err) = run(&[
        "sweep",
        "model=llama3-8b&gpu=h100&zero=3",
        "--inter",
        "tcp100,ib-ndr",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let curves = v["curves"].as_array().unwrap();
    assert_eq!(curves.len(), 2);
    assert_eq!(curves[0]["inter"], "tcp100");
    // At 64 GPUs the slow network loses efficiency that InfiniBand keeps.
    let at = |c: &serde_json::Value| {
        c["points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["gpus"] == 64)
            .unwrap()["efficiency"]
            .as_f64()
            .unwrap()
    };
    assert!(at(&curves[0]) < 0.5 * at(&curves[1]));
    let (code, csv, _) = run(&[
        "sweep",
        "model=resnet50",
        "--inter",
        "tcp10,ib-hdr",
        "--csv",
    ]);
    assert_eq!(code, 0);
    assert!(csv.starts_with("inter,gpus,"));
    assert_eq!(csv.lines().count(), 1 + 2 * 17);
    let (code, out, err) = run(&["sweep", "", "--inter", "tcp10,warp-drive"]);
    assert_eq!(code, 2);
    assert!(
        out.is_empty() && err.contains("inter") && err.contains("warp-drive"),
        "{err}"
    );
}

#[test]
fn readme_key_table_is_the_code_s() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("<!-- keys:start")
        .expect("README has the keys:start marker");
    let body = &readme[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    let table = &body[..body.find("<!-- keys:end -->").expect("keys:end marker")];
    let (code, out, _) = run(&["keys"]);
    assert_eq!(code, 0);
    assert_eq!(
        table.trim(),
        out.trim(),
        "README key table drifted: regenerate it with `scaling-lab keys`"
    );
}

#[test]
fn calibrate_reads_a_published_run_and_prints_its_scenario() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/nccl-tests/all_reduce_2x8_h100_a3mega.txt"
    );
    let (code, out, err) = run(&["calibrate", file, "inter=roce200&nics=8"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ranks"], 16);
    assert_eq!(v["tier"], "network");
    let sc = v["scenario"].as_str().unwrap();
    assert!(sc.contains("gpus=16") && sc.contains("calib_net="), "{sc}");
    // The fitted scenario answers for any size and count.
    let bigger = sc.replace("gpus=16", "gpus=64");
    let (code, _, err) = run(&["collective", &format!("{bigger}&bytes=64MiB")]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(&["compare", file, sc]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 31);
    let (code, out, err) = run(&["calibrate", "/nonexistent/run.txt"]);
    assert_eq!(code, 2);
    assert!(
        out.is_empty() && err.contains("/nonexistent/run.txt"),
        "{err}"
    );
}
