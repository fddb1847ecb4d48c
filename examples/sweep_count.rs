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

#[path = "../benches/shared/sweep.rs"]
mod sweep;

use std::hint::black_box;

fn main() {
    let gpu_of = sweep::gpu_of_fabrics();
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100)
        .max(1);
    let start = std::time::Instant::now();
    let mut sum = 0.0;
    for _ in 0..n {
        sum += black_box(sweep::run_sweep(black_box(&gpu_of)));
    }
    let per = start.elapsed().as_secs_f64() * 1e3 / f64::from(n);
    println!("{n} sweeps, {per:.3} ms a sweep (checksum {sum:.6e})");
}
