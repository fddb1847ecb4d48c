//! The benchmark sweep, shared by `benches/model.rs` (criterion) and `examples/sweep_count.rs`
//! (a plain loop, for counting its instructions): 17 GPU counts × 8 fabrics × 11 networks × 4
//! algorithms, one all-reduce of 1 GiB each.

use gpu_scaling_lab::model::collective::{cost, Algo, Op};
use gpu_scaling_lab::model::hardware::{Gpu, FABRICS, GPUS, NETWORKS};
use gpu_scaling_lab::model::scenario::Scenario;

/// The GPU each fabric is swept with: NVLink and xGMI come with their GPU; any GPU sits on PCIe.
pub fn gpu_of_fabrics() -> Vec<&'static Gpu> {
    let h100 = Scenario::default().gpu;
    FABRICS
        .iter()
        .map(|f| {
            if h100.can_use(f) {
                h100
            } else {
                GPUS.iter().find(|g| g.can_use(f)).unwrap_or(h100)
            }
        })
        .collect()
}

/// One sweep, with `gpu_of` from [`gpu_of_fabrics`]; the summed times. Not inlined, so that
/// callgrind can count it alone (`--toggle-collect='*run_sweep*'`).
#[inline(never)]
pub fn run_sweep(gpu_of: &[&'static Gpu]) -> f64 {
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
                let cl = sc.setup().unwrap().cluster();
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
