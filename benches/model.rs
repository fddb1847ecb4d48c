//! Criterion benchmarks of the cost model (run: `cargo bench --bench model`).
//! Goals: one all-reduce evaluation in microseconds; the sweep of 17 GPU counts × every
//! intra/inter pair × every algorithm well under 1 ms; the explorer's full recompute
//! (scaling curve + four comparison curves) within a frame.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use gpu_scaling_lab::model::collective::{cost, Algo, Op};
use gpu_scaling_lab::model::hardware::{FABRICS, GPUS, NETWORKS};
use gpu_scaling_lab::model::scenario::Scenario;
use gpu_scaling_lab::render::series;

fn bench(c: &mut Criterion) {
    let cl = Scenario::parse("gpus=1024&gpu=h100&inter=ib-ndr")
        .unwrap()
        .setup()
        .unwrap()
        .cluster();
    c.bench_function("one all-reduce (auto, 1024 GPUs, 1 GiB)", |b| {
        b.iter(|| {
            cost(
                black_box(&cl),
                Op::AllReduce,
                Algo::Auto,
                black_box(1073741824.0),
            )
        })
    });

    let counts: Vec<u32> = (0..=16).map(|e| 1u32 << e).collect();
    let algos = [Algo::Ring, Algo::Tree, Algo::Rhd, Algo::Hier];
    // NVLink and xGMI come with their GPU; any GPU sits on PCIe.
    let gpu_of: Vec<_> = FABRICS
        .iter()
        .map(|f| {
            let h100 = Scenario::default().gpu;
            if h100.can_use(f) {
                h100
            } else {
                GPUS.iter().find(|g| g.can_use(f)).unwrap_or(h100)
            }
        })
        .collect();
    c.bench_function(
        "sweep: 17 counts × 8 fabrics × 11 networks × 4 algorithms",
        |b| {
            b.iter(|| {
                let mut total = 0.0;
                for (f, gpu) in FABRICS.iter().zip(&gpu_of) {
                    for n in NETWORKS.iter().skip(1) {
                        for &g in &counts {
                            let sc = Scenario {
                                gpus: g,
                                gpu,
                                intra: Some(f),
                                inter: Some(n),
                                ..Scenario::default()
                            };
                            let cl = sc.setup().unwrap().cluster();
                            for a in algos {
                                if let Ok(r) = cost(&cl, Op::AllReduce, a, 1073741824.0) {
                                    total += r.time_s;
                                }
                            }
                        }
                    }
                }
                black_box(total)
            })
        },
    );

    let sc =
        Scenario::parse("gpus=64&gpu=a100&inter=tcp100&nics=1&model=llama3-8b&zero=3").unwrap();
    let nets: Vec<_> = ["tcp25", "roce100", "ib-ndr", "ib-xdr"]
        .iter()
        .filter_map(|id| gpu_scaling_lab::model::hardware::network(id))
        .collect();
    c.bench_function("explorer recompute: curve + 4 comparison curves", |b| {
        b.iter(|| {
            let d = series::scaling_data(black_box(&sc));
            let cmp = series::compare_data(&sc, &nets);
            black_box((d, cmp))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
