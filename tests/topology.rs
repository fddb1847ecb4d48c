//! The fabric beyond one switch (issue 12): properties over random clusters and hand counts.
#![cfg(not(target_arch = "wasm32"))]

use gpu_scaling_lab::model::collective::{cost, Algo, Op};
use gpu_scaling_lab::model::report::{CollectiveReport, StepReport};
use gpu_scaling_lab::model::scenario::Scenario;
use proptest::prelude::*;

fn time(q: &str, algo: Algo) -> f64 {
    let c = Scenario::parse(q).unwrap().setup().unwrap().cluster();
    cost(&c, Op::AllReduce, algo, 256.0 * 1048576.0)
        .unwrap()
        .time_s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A non-blocking, packed fabric with adaptive routing costs what the two-tier model did
    /// (one leaf group as large as the job).
    #[test]
    fn non_blocking_packed_equals_two_tiers(e in 1u32..10, net in 0usize..3, a in 0usize..4) {
        let nets = ["ib-ndr", "roce400", "ib-hdr"];
        let algo = [Algo::Ring, Algo::Tree, Algo::Rhd, Algo::Hier][a];
        let gpus = 8u32 << e;
        let base = format!("gpus={gpus}&inter={}&routing=adaptive", nets[net]);
        let flat = time(&format!("{base}&leaf_nodes=4096"), algo);
        let tiers = time(&format!("{base}&leaf_nodes=32"), algo);
        prop_assert!((tiers - flat).abs() <= 1e-9 * flat, "{algo:?} {gpus}: {tiers} vs {flat}");
    }

    /// More oversubscription, more background load or worse placement is never faster.
    #[test]
    fn worse_fabrics_are_never_faster(
        e in 3u32..11, over in 1.0f64..8.0, more in 1.0f64..4.0, bg in 0.0f64..0.8,
        a in 0usize..4, ecmp in any::<bool>(), pod in any::<bool>()
    ) {
        let algo = [Algo::Ring, Algo::Tree, Algo::Rhd, Algo::Hier][a];
        let routing = if ecmp { "ecmp" } else { "adaptive" };
        let pods = if pod { "&pod_gpus=2048&pod_oversub=2" } else { "" };
        let q = |o: f64, b: f64, place: &str| format!(
            "gpus={}&inter=roce400&oversub={o}&bg_load={b}&placement={place}&routing={routing}{pods}",
            8u32 << e
        );
        let base = time(&q(over, bg, "packed"), algo);
        prop_assert!(time(&q(over * more, bg, "packed"), algo) >= base * (1.0 - 1e-9));
        prop_assert!(time(&q(over, (bg + 0.1).min(0.9), "packed"), algo) >= base * (1.0 - 1e-9));
        // Placement is ordered under adaptive routing. Under ECMP it need not be: a placement
        // that sends more flows across more uplinks can draw a busier busiest uplink (the
        // expected maximum of F flows on F links grows with F).
        if !ecmp {
            let random = time(&q(over, bg, "random"), algo);
            let spread = time(&q(over, bg, "spread"), algo);
            prop_assert!(random >= base * (1.0 - 1e-9));
            prop_assert!(spread >= random * (1.0 - 1e-9));
        }
    }
}

/// Hand count, ring: 64 nodes packed in leaf groups of 32 — one node's traffic crosses each
/// group's uplinks per round, so at 4:1 the uplinks (32 × 8 NICs / 4 = 64 ports) still carry it
/// at full speed, while one node per group (spread) needs 8 NICs' worth on 2 ports: 4× the time.
#[test]
fn ring_crossings_by_hand() {
    let r = |place: &str| {
        CollectiveReport::new(
            &Scenario::parse(&format!(
                "gpus=512&inter=ib-ndr&algo=ring&bytes=4GiB&oversub=4&placement={place}"
            ))
            .unwrap(),
        )
        .unwrap()
    };
    let packed = r("packed");
    let spread = r("spread");
    let leaf = |c: &CollectiveReport| {
        c.tiers
            .iter()
            .find(|t| t.tier == "leaf-uplink")
            .map(|t| t.bytes)
            .unwrap_or(0.0)
    };
    let nic = |c: &CollectiveReport| c.tiers.iter().find(|t| t.tier == "nic").unwrap().bytes;
    // One node's worth crosses a group's uplinks in each direction.
    assert!((leaf(&packed) - nic(&packed)).abs() < 1e-6 * nic(&packed));
    assert_ne!(packed.bottleneck, "leaf-uplink");
    assert_eq!(spread.bottleneck, "leaf-uplink");
    let ratio = spread.time_us / packed.time_us;
    assert!((3.0..4.2).contains(&ratio), "{ratio}");
}

/// Hand count, recursive halving-doubling: its far rounds send every node's data across, so
/// oversubscription hurts it much more than the ring.
#[test]
fn halving_doubling_crosses_everything_in_its_far_rounds() {
    let q = "gpus=1024&inter=ib-ndr&bytes=1GiB&oversub=4";
    let ring =
        time(&format!("{q}&algo=ring"), Algo::Ring) / time("gpus=1024&inter=ib-ndr", Algo::Ring);
    let rhd = time(&format!("{q}&algo=rhd"), Algo::Rhd) / time("gpus=1024&inter=ib-ndr", Algo::Rhd);
    assert!(rhd > 1.5 * ring, "rhd slowed {rhd}, ring {ring}");
}

/// ECMP collisions: with eight large flows per node on few uplinks, the busiest one carries
/// more than its share.
#[test]
fn ecmp_collisions_cost_more_than_adaptive_routing() {
    let q = "gpus=2048&inter=roce400&placement=spread&algo=ring&bytes=4GiB&oversub=2";
    let ecmp = time(&format!("{q}&routing=ecmp"), Algo::Ring);
    let adaptive = time(&format!("{q}&routing=adaptive"), Algo::Ring);
    assert!(ecmp > 1.1 * adaptive, "{ecmp} vs {adaptive}");
}

/// Placement moves the speedup curve: the same job scattered on an oversubscribed fabric trains
/// slower.
#[test]
fn placement_moves_the_step() {
    let q = "model=llama3-8b&gpus=4096&zero=1&inter=roce400&oversub=3";
    let packed =
        StepReport::new(&Scenario::parse(&format!("{q}&placement=packed")).unwrap()).unwrap();
    let spread =
        StepReport::new(&Scenario::parse(&format!("{q}&placement=spread")).unwrap()).unwrap();
    assert!(
        spread.times.step_ms > packed.times.step_ms * 1.02,
        "{} vs {}",
        spread.times.step_ms,
        packed.times.step_ms
    );
}

/// NCCL's tree over nodes is in order (node m talks to m ± 1, m ± 2, … by its lowest set bit),
/// so a packed leaf group keeps almost all of a tree's traffic inside: 4:1 uplinks cost a tree
/// over 64 nodes next to nothing. (With the heap-ordered tree the model had, every node of a
/// group sent over the uplinks, and 4:1 doubled the time.)
#[test]
fn a_packed_tree_barely_touches_the_uplinks() {
    let t = |o: u32| {
        time(
            &format!("gpus=512&inter=ib-ndr&oversub={o}&bytes=16MiB"),
            Algo::Tree,
        )
    };
    let (open, tapered) = (t(1), t(4));
    assert!(tapered <= open * 1.10, "{tapered} vs {open}");
    // Spread one node a group, every send leaves its group: the taper costs.
    let s = |o: u32| {
        time(
            &format!("gpus=512&inter=ib-ndr&oversub={o}&placement=spread"),
            Algo::Tree,
        )
    };
    assert!(s(4) > s(1) * 1.5, "{} vs {}", s(4), s(1));
}
