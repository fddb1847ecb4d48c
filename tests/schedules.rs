//! Every algorithm's schedule, executed on real numbers for 1…64 GPUs: each GPU must end with
//! exactly the element-wise sum (reduce-scatter: its own part; all-gather: everything), and the
//! rounds and time must be what the closed-form cost charges.
#![cfg(not(target_arch = "wasm32"))]

use gpu_scaling_lab::model::collective::{cost, Algo, Op};
use gpu_scaling_lab::model::scenario::Scenario;
use gpu_scaling_lab::model::schedule::Schedule;

fn input(n: u32, parts: u32) -> Vec<Vec<f64>> {
    // Distinct small integers: sums are exact in f64 and a missing or doubled term shows.
    (0..n)
        .map(|r| (0..parts).map(|p| f64::from(r * 97 + p * 13 + 1)).collect())
        .collect()
}

fn scenario(n: u32, per_node: u32, intra: &str) -> Scenario {
    // Whole nodes: a count that does not fill nodes of `per_node` runs as one node.
    let g = if n % per_node == 0 { per_node } else { n };
    let inter = if n > g { "ib-ndr" } else { "none" };
    // The mesh comes with its GPU.
    let gpu = if intra == "xgmi" { "mi300x" } else { "h100" };
    Scenario::parse(&format!(
        "gpus={n}&per_node={g}&gpu={gpu}&intra={intra}&inter={inter}&bytes=64MiB"
    ))
    .unwrap()
}

fn check(n: u32, per_node: u32, op: Op, algo: Algo, intra: &str, exact_time: bool) {
    let sc = scenario(n, per_node, intra);
    let c = sc.setup().unwrap().cluster();
    let bytes = 64.0 * 1048576.0;
    let label = format!("n={n} per_node={per_node} {} {}", op.id(), algo.id());
    let s = match Schedule::build(&c, op, algo, bytes) {
        Ok(s) => s,
        Err(e) => panic!("{label}: {e}"),
    };
    let x = input(n, s.parts);
    let out = s.execute(&x).unwrap_or_else(|e| panic!("{label}: {e}"));
    let full: u64 = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    for p in 0..s.parts as usize {
        let sum: f64 = x.iter().map(|row| row[p]).sum();
        for r in 0..n as usize {
            let must_hold = match op {
                Op::AllReduce => true,
                Op::ReduceScatter => s.owned[r] as usize == p,
                Op::AllGather => true,
            };
            if !must_hold {
                continue;
            }
            match op {
                Op::AllGather => {
                    let owner = s.owned.iter().position(|o| *o as usize == p).unwrap();
                    assert_eq!(out.value[r][p], x[owner][p], "{label}: rank {r} part {p}");
                }
                _ => {
                    assert_eq!(out.value[r][p], sum, "{label}: rank {r} part {p}");
                    assert_eq!(
                        out.has[r][p], full,
                        "{label}: rank {r} part {p} contributions"
                    );
                }
            }
        }
    }
    // Rounds and time match the closed-form cost.
    let closed = cost(&c, op, s.algo, bytes).unwrap();
    assert_eq!(s.rounds.len() as u64, closed.rounds, "{label}: rounds");
    let rel = (s.total_time() - closed.time_s).abs() / closed.time_s;
    if exact_time {
        assert!(
            rel < 1e-9,
            "{label}: schedule {} vs cost {}",
            s.total_time(),
            closed.time_s
        );
    } else {
        assert!(s.total_time() <= closed.time_s * (1.0 + 1e-9), "{label}");
    }
}

#[test]
fn ring_all_ops_1_to_64() {
    for n in 1..=64 {
        for op in Op::ALL {
            check(n, 8, op, Algo::Ring, "nvlink4", true);
            check(n, 1, op, Algo::Ring, "nvlink4", true);
        }
    }
}

#[test]
fn rhd_allreduce_1_to_64_and_pow2_scatter_gather() {
    for n in 1..=64 {
        check(n, 8, Op::AllReduce, Algo::Rhd, "nvlink4", true);
        // An xGMI mesh joins at most 8 GPUs: beyond, whole nodes of 4.
        if n <= 8 || n % 4 == 0 {
            check(n, 4, Op::AllReduce, Algo::Rhd, "xgmi", true);
        }
        if n.is_power_of_two() {
            check(n, 8, Op::ReduceScatter, Algo::Rhd, "nvlink4", true);
            check(n, 8, Op::AllGather, Algo::Rhd, "nvlink4", true);
        }
    }
}

#[test]
fn tree_1_to_64() {
    for n in 1..=64 {
        // A pipelined tree moves in lock-step ticks charged at the busiest stage: the explicit
        // rounds are timed by the tick, and no round moves more than the tick charges.
        check(n, 8, Op::AllReduce, Algo::Tree, "nvlink4", true);
        // Trees over nodes with chains inside: one, two and four GPUs per node.
        for per_node in [1, 2, 4] {
            check(n, per_node, Op::AllReduce, Algo::Tree, "nvlink4", true);
        }
    }
}

#[test]
fn tree_rounds_never_exceed_their_charge() {
    use gpu_scaling_lab::model::schedule::group_of;
    for (n, per_node) in [
        (2, 8),
        (3, 8),
        (7, 8),
        (8, 8),
        (16, 8),
        (33, 8),
        (64, 8),
        (64, 4),
        (12, 2),
        (9, 1),
    ] {
        let c = scenario(n, per_node, "nvlink4").setup().unwrap().cluster();
        let s = Schedule::build(&c, Op::AllReduce, Algo::Tree, 64.0 * 1048576.0).unwrap();
        for r in &s.rounds {
            let g = group_of(&r.transfers, s.per_node, None, s.part_bytes, false);
            let t = gpu_scaling_lab::model::collective::round_time(&c, s.algo, s.protocol, &g);
            // The transfer of every round fits in its tick (the tree's latency is charged along
            // its depth, not per round's own link).
            assert!(t.transfer <= r.time.transfer * (1.0 + 1e-9), "n={n}");
        }
    }
}

#[test]
fn hier_1_to_64_whole_nodes() {
    for per_node in [1, 2, 4, 8] {
        for n in (per_node..=64).step_by(per_node as usize) {
            check(n, per_node, Op::AllReduce, Algo::Hier, "nvlink4", true);
        }
    }
    for n in 1..=8 {
        check(n, 8, Op::AllReduce, Algo::Hier, "pcie4", true);
    }
}

#[test]
fn nvls_inside_one_switch() {
    for n in 1..=8 {
        check(n, 8, Op::AllReduce, Algo::Nvls, "nvlink4", true);
    }
}

#[test]
fn auto_schedules_are_what_auto_costs() {
    for n in [1, 2, 5, 8, 16, 24, 64] {
        for bytes in [4096.0, 1048576.0, 1073741824.0] {
            let c = scenario(n, 8, "nvlink4").setup().unwrap().cluster();
            let closed = cost(&c, Op::AllReduce, Algo::Auto, bytes).unwrap();
            if closed.algorithm == Algo::NvlsTree {
                // Drawn with servers as units, from the round groups: no explicit schedule.
                assert!(Schedule::build(&c, Op::AllReduce, Algo::Auto, bytes).is_err());
                continue;
            }
            let s = Schedule::build(&c, Op::AllReduce, Algo::Auto, bytes).unwrap();
            assert_eq!(s.algo, closed.algorithm);
            assert!((s.total_time() - closed.time_s).abs() / closed.time_s < 1e-9);
        }
    }
}

#[test]
fn bytes_moved_equal_the_textbook_volume() {
    // A ring all-reduce moves 2(n−1)/n·S out of every GPU (Thakur et al. 2005).
    for n in [2u32, 3, 8, 17] {
        let c = scenario(n, 8, "nvlink4").setup().unwrap().cluster();
        let bytes = 1048576.0 * f64::from(n);
        let s = Schedule::build(&c, Op::AllReduce, Algo::Ring, bytes).unwrap();
        let sent: f64 = s
            .rounds
            .iter()
            .flat_map(|r| r.transfers.iter())
            .filter(|t| t.src == 0)
            .map(|t| f64::from(t.count) * s.part_bytes)
            .sum();
        let expected = 2.0 * f64::from(n - 1) / f64::from(n) * bytes;
        assert!(
            (sent - expected).abs() < 1e-6,
            "n={n}: {sent} vs {expected}"
        );
    }
}

#[test]
fn a_broken_schedule_is_caught() {
    // Executing must fail, not pass silently, when a schedule adds a contribution twice or
    // leaves a GPU without the full sum.
    let c = scenario(4, 8, "nvlink4").setup().unwrap().cluster();
    let mut s = Schedule::build(&c, Op::AllReduce, Algo::Ring, 4096.0).unwrap();
    let first = s.rounds[0].clone();
    s.rounds.insert(1, first);
    assert!(
        s.execute(&input(4, s.parts)).is_err(),
        "a repeated reduce round must be rejected"
    );

    let mut short = Schedule::build(&c, Op::AllReduce, Algo::Ring, 4096.0).unwrap();
    short.rounds.pop();
    let out = short.execute(&input(4, short.parts)).unwrap();
    assert!(out.has.iter().any(|row| row.iter().any(|m| *m != 0b1111)));
}

/// The animation's contribution counts are the counts of the sets the schedule builds, round by
/// round (checked against the sets themselves, replayed here the plain way: copy every buffer,
/// then let each transfer read the copy).
#[test]
fn contribution_counts_follow_the_sets() {
    for (n, per_node, algo, intra) in [
        (8, 8, Algo::Ring, "nvlink4"),
        (16, 8, Algo::Tree, "nvlink4"),
        (12, 4, Algo::Tree, "nvlink4"),
        (8, 8, Algo::Rhd, "nvlink4"),
        (16, 4, Algo::Hier, "nvlink4"),
        (8, 8, Algo::Nvls, "nvlink4"),
    ] {
        let c = scenario(n, per_node, intra).setup().unwrap().cluster();
        let s = Schedule::build(&c, Op::AllReduce, algo, 64.0 * 1048576.0).unwrap();
        let counts = s.contributions();
        let ranks = s.ranks() as usize;
        let parts = s.parts as usize;
        let mut has: Vec<Vec<u64>> = (0..ranks)
            .map(|r| vec![if r < n as usize { 1u64 << r } else { 0 }; parts])
            .collect();
        let level = |has: &Vec<Vec<u64>>, r: usize| {
            has[r]
                .iter()
                .map(|m| f64::from(m.count_ones()))
                .sum::<f64>()
                / (f64::from(n) * parts as f64)
        };
        assert_eq!(counts.levels.len(), s.rounds.len() + 1);
        for (i, round) in s.rounds.iter().enumerate() {
            for r in 0..n as usize {
                assert!(
                    (counts.levels[i][r] - level(&has, r)).abs() < 1e-12,
                    "{algo:?} {i} {r}"
                );
            }
            let before = has.clone();
            for (j, t) in round.transfers.iter().enumerate() {
                let carried: u32 = (t.part..t.part + t.count)
                    .map(|p| before[t.src as usize][p as usize].count_ones())
                    .sum();
                assert_eq!(counts.sent[i][j], carried, "{algo:?} round {i}");
                for p in t.part as usize..(t.part + t.count) as usize {
                    let v = before[t.src as usize][p];
                    let d = &mut has[t.dst as usize][p];
                    *d = if t.reduce { *d | v } else { v };
                }
            }
        }
        let last = s.rounds.len();
        for r in 0..n as usize {
            assert!(
                (counts.levels[last][r] - 1.0).abs() < 1e-12,
                "{algo:?}: GPU {r} ends whole"
            );
        }
    }
}
