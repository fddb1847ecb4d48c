//! The benchmark sweep (17 GPU counts × 8 fabrics × 11 networks × 4 algorithms, one all-reduce
//! of 1 GiB each, as `benches/model.rs`) in a plain loop, for counting its instructions, which do
//! not swing with the machine as its time does:
//!
//! ```sh
//! cargo build --profile bench --example sweep_count
//! valgrind --tool=callgrind --toggle-collect='*run_sweep*' target/release/examples/sweep_count 5
//! ```
//!
//! (instructions collected ÷ 5 = one sweep). Run alone it prints the time per sweep.

use gpu_scaling_lab::model::collective::{cost, Algo, Op};
use gpu_scaling_lab::model::hardware::{Gpu, FABRICS, GPUS, NETWORKS};
use gpu_scaling_lab::model::scenario::Scenario;
use std::hint::black_box;

/// One sweep; the GPU that goes with each fabric in `gpu_of`. Returns the summed times.
#[inline(never)]
fn run_sweep(gpu_of: &[&'static Gpu]) -> f64 {
    let mut total = 0.0;
    for (f, gpu) in FABRICS.iter().zip(gpu_of) {
        for n in NETWORKS.iter().skip(1) {
            for g in (0..=16).map(|e| 1u32 << e) {
                let sc = Scenario {
                    gpus: g,
                    gpu,
                    intra: Some(f),
                    inter: Some(n),
                    ..Scenario::default()
                };
                let Ok(setup) = sc.setup() else { continue };
                let cl = setup.cluster();
                for a in [Algo::Ring, Algo::Tree, Algo::Rhd, Algo::Hier] {
                    if let Ok(r) = cost(&cl, Op::AllReduce, a, 1073741824.0) {
                        total += r.time_s;
                    }
                }
            }
        }
    }
    total
}

fn main() {
    // NVLink and xGMI come with their GPU; any GPU sits on PCIe.
    let h100 = Scenario::default().gpu;
    let gpu_of: Vec<&'static Gpu> = FABRICS
        .iter()
        .map(|f| {
            if h100.can_use(f) {
                h100
            } else {
                GPUS.iter().find(|g| g.can_use(f)).unwrap_or(h100)
            }
        })
        .collect();
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100)
        .max(1);
    let start = std::time::Instant::now();
    let mut sum = 0.0;
    for _ in 0..n {
        sum += black_box(run_sweep(black_box(&gpu_of)));
    }
    let per = start.elapsed().as_secs_f64() * 1e3 / f64::from(n);
    println!("{n} sweeps, {per:.3} ms a sweep (checksum {sum:.6e})");
}
