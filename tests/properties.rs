//! Properties over thousands of random valid scenarios (proptest).
#![cfg(not(target_arch = "wasm32"))]

use gpu_scaling_lab::model::collective::{cost, Algo, Op};
use gpu_scaling_lab::model::hardware::{FABRICS, GPUS, NETWORKS};
use gpu_scaling_lab::model::scenario::{Model, Scaling, Scenario, Techniques};
use gpu_scaling_lab::model::step::{evaluate, evaluate_on, memory};
use gpu_scaling_lab::model::workload::PRESETS;
use proptest::prelude::*;

fn scenario() -> impl Strategy<Value = Scenario> {
    (
        (
            0..17u32, // log2 GPU count
            prop::sample::select(vec![1u32, 2, 4, 8]),
            0..GPUS.len(),
            0..FABRICS.len(),
            1..NETWORKS.len(),
            1..=8u32,
        ),
        (
            0..PRESETS.len(),
            prop::sample::select(vec![1u32, 2, 4, 8]),
            prop::sample::select(vec![1u32, 2, 4]),
            0..=3u8,
            any::<bool>(),
            any::<bool>(),
            1..=4u32,
        ),
    )
        .prop_map(
            |((e, per_node, g, f, net, nics), (w, tp, pp, zero, overlap, strong, micro))| {
                Scenario {
                    gpus: 1 << e.min(14),
                    per_node: Some(per_node),
                    gpu: &GPUS[g],
                    intra: Some(&FABRICS[f]),
                    inter: Some(&NETWORKS[net]),
                    nics: Some(nics),
                    model: Model::Preset(&PRESETS[w]),
                    tp: tp.min(per_node),
                    pp,
                    zero: Some(zero),
                    tech: Techniques {
                        overlap,
                        ..Techniques::default()
                    },
                    micro: Some(micro),
                    scaling: if strong {
                        Scaling::Strong
                    } else {
                        Scaling::Weak
                    },
                    ..Scenario::default()
                }
            },
        )
        .prop_filter("valid scenarios only", |s| s.validate().is_ok())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn outputs_are_finite_and_non_negative(sc in scenario()) {
        let r = evaluate(&sc).unwrap();
        let b = r.breakdown;
        for x in [b.compute, b.comm_exposed, b.data_wait, b.serial, b.bubble, r.throughput,
                  r.tflops_per_gpu, r.mfu, r.speedup, r.efficiency, r.memory.total()] {
            prop_assert!(x.is_finite() && x >= 0.0, "{x} in {}", sc.to_query());
        }
        prop_assert!(b.total() > 0.0);
    }

    #[test]
    fn more_bandwidth_never_slows_a_step(sc in scenario(), scale in 1.0f64..8.0) {
        let s = sc.setup().unwrap();
        let c = s.cluster();
        let base = evaluate_on(&s, &c).unwrap().breakdown.total();
        let net = evaluate_on(&s, &gpu_scaling_lab::model::collective::Cluster { net_scale: scale, ..c }).unwrap();
        let intra = evaluate_on(&s, &gpu_scaling_lab::model::collective::Cluster { intra_scale: scale, ..c }).unwrap();
        prop_assert!(net.breakdown.total() <= base * (1.0 + 1e-9), "{}", sc.to_query());
        prop_assert!(intra.breakdown.total() <= base * (1.0 + 1e-9), "{}", sc.to_query());
    }

    #[test]
    fn weak_scaling_efficiency_never_exceeds_one(sc in scenario()) {
        let sc = Scenario { scaling: Scaling::Weak, ..sc };
        let r = evaluate(&sc).unwrap();
        prop_assert!(r.efficiency <= 1.0 + 1e-9, "{} in {}", r.efficiency, sc.to_query());
    }

    #[test]
    fn a_model_that_does_not_fit_is_never_reported_as_fitting_when_split(sc in scenario()) {
        // Splitting moves weights between GPUs; the verdict must follow the bytes.
        let m = memory(&sc.setup().unwrap());
        prop_assert_eq!(m.fits(), m.total() <= m.capacity);
        let r = evaluate(&sc).unwrap();
        prop_assert_eq!(r.memory.fits(), m.fits());
        if !m.fits() {
            if let Some(fix) = gpu_scaling_lab::model::step::fit_fix(&sc) {
                // The advice names changes; applying them to the scenario as printed must fit.
                let mut s2 = sc.clone();
                for (k, v) in &fix.changes {
                    s2.set(k, v).unwrap();
                }
                prop_assert_eq!(&s2, &fix.scenario);
                prop_assert!(memory(&s2.setup().unwrap()).fits(), "{} for {}", fix, sc.to_query());
            }
        }
    }

    #[test]
    fn collectives_are_finite_for_any_count(n in 1u32..=65_536, bytes in 1.0f64..1e10, f in 0..FABRICS.len(), net in 1..NETWORKS.len()) {
        let per_node = 8u32.min(n);
        let n = if n > per_node { n / per_node * per_node } else { n };
        // NVLink and xGMI come with their GPU; any GPU sits on PCIe.
        let gpu = GPUS.iter().find(|g| g.default_intra == FABRICS[f].id).unwrap_or(Scenario::default().gpu);
        let sc = Scenario { gpus: n, per_node: Some(per_node), gpu, intra: Some(&FABRICS[f]), inter: Some(&NETWORKS[net]), ..Scenario::default() };
        let c = sc.setup().unwrap().cluster();
        for algo in [Algo::Auto, Algo::Ring, Algo::Tree, Algo::Rhd, Algo::Hier] {
            let r = cost(&c, Op::AllReduce, algo, bytes.floor()).unwrap();
            prop_assert!(r.time_s.is_finite() && r.time_s > 0.0);
            prop_assert!(r.busbw_gbs.is_finite() && r.busbw_gbs >= 0.0);
        }
    }
}

#[test]
fn small_messages_are_latency_bound_and_large_ones_bandwidth_bound() {
    let c = Scenario::parse("gpus=8&gpu=a100")
        .unwrap()
        .setup()
        .unwrap()
        .cluster();
    let small = cost(&c, Op::AllReduce, Algo::Ring, 4096.0).unwrap();
    let large = cost(&c, Op::AllReduce, Algo::Ring, 1073741824.0).unwrap();
    assert!(small.latency_share > 0.9, "{}", small.latency_share);
    assert!(large.latency_share < 0.05, "{}", large.latency_share);
    // nccl-tests on 8×A100 NVSwitch reach half their peak busbw around a few MB.
    let mid = cost(&c, Op::AllReduce, Algo::Ring, 4.0 * 1048576.0).unwrap();
    assert!(mid.busbw_gbs > 0.25 * large.busbw_gbs && mid.busbw_gbs < 0.9 * large.busbw_gbs);
}

#[test]
fn nvls_needs_an_nvswitch_that_reduces() {
    let c = Scenario::parse("gpus=8&gpu=a100")
        .unwrap()
        .setup()
        .unwrap()
        .cluster();
    let e = cost(&c, Op::AllReduce, Algo::Nvls, 1e9).unwrap_err();
    assert_eq!(e.key, "algo");
    assert!(e.message.contains("nvlink4"));
    let h = Scenario::parse("gpus=8&gpu=h100")
        .unwrap()
        .setup()
        .unwrap()
        .cluster();
    let nvls = cost(&h, Op::AllReduce, Algo::Nvls, 4294967296.0).unwrap();
    let ring = cost(&h, Op::AllReduce, Algo::Ring, 4294967296.0).unwrap();
    assert!(
        nvls.busbw_gbs > ring.busbw_gbs,
        "in-switch reduction beats the ring on H100"
    );
    assert!(
        nvls.busbw_gbs > 450.0,
        "NVLS busbw exceeds the 450 GB/s link rate"
    );
}

#[test]
fn slower_networks_cost_more_across_nodes() {
    let q = |net: &str| {
        let c = Scenario::parse(&format!("gpus=64&gpu=h100&inter={net}"))
            .unwrap()
            .setup()
            .unwrap()
            .cluster();
        cost(&c, Op::AllReduce, Algo::Ring, 1073741824.0)
            .unwrap()
            .time_s
    };
    assert!(q("tcp10") > q("tcp100"));
    assert!(q("tcp100") > q("ib-ndr"));
    assert!(q("ib-ndr") >= q("ib-xdr"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Any text as a scenario: a value or a named error, never a panic — through the same code
    /// the CLI and the page run.
    #[test]
    fn no_scenario_string_panics(
        pairs in prop::collection::vec(
            (
                prop::sample::select(vec![
                    "gpus", "per_node", "gpu", "intra", "inter", "nics", "algo", "bytes", "model",
                    "params", "flops", "layers", "hidden", "heads", "seq", "vocab", "batch", "micro",
                    "precision", "tp", "pp", "zero", "recompute", "overlap", "scaling", "data_rate",
                    "op", "bogus",
                ]),
                prop_oneof![
                    "[0-9]{1,7}",
                    "-?[0-9]{1,3}(\\.[0-9]{1,3})?",
                    prop::sample::select(vec![
                        "h100", "a100", "v100", "nvlink4", "pcie3", "ib-ndr", "tcp10", "none", "ring",
                        "tree", "rhd", "hier", "nvls", "auto", "custom", "llama3-70b", "resnet50",
                        "bf16", "fp8", "full", "strong", "1GiB", "64MiB", "NaN", "inf", "1e400", "",
                        "reducescatter", "allgather",
                    ]).prop_map(String::from),
                ],
            ),
            0..8,
        )
    ) {
        let q: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let q = q.join("&");
        let (lenient, _) = Scenario::parse_lenient(&q);
        prop_assert!(lenient.validate().is_ok(), "lenient result must be valid: {q}");
        for cmd in ["collective", "step"] {
            let out = gpu_scaling_lab::cli::run(&[cmd.to_string(), q.clone()]);
            prop_assert!(out.status == 0 || !out.stderr.is_empty());
        }
    }
}
