//! Criterion benchmarks of the cost model (run: `cargo bench --bench model`).
//! Goals: one all-reduce evaluation in microseconds; the sweep of 17 GPU counts × every
//! intra/inter pair × every algorithm well under 1 ms; the explorer's full recompute
//! (scaling curve + four comparison curves) within a frame.

#[path = "shared/sweep.rs"]
mod sweep;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use gpu_scaling_lab::model::collective::{cost, Algo, Op};
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

    let gpu_of = sweep::gpu_of_fabrics();
    c.bench_function(
        "sweep: 17 counts × 8 fabrics × 11 networks × 4 algorithms",
        |b| b.iter(|| black_box(sweep::run_sweep(black_box(&gpu_of)))),
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
