//! What an animation canvas plays, behind one interface: a collective GPU by GPU in labelled
//! servers (from its explicit schedule, for clusters [`drawn_gpu_by_gpu`]) or nodes as units
//! (from the cost model's round groups, at any size). The panel's clock, round buttons, captions and comparison read only this.

use super::anim::{drawn_gpu_by_gpu, Aggregate, Animation};
use super::series::{duration, gpus_text};
use crate::model::collective::{cost, Algo, Cluster};
use crate::model::hardware;
use crate::model::scenario::{Scenario, Setup};
use crate::model::ModelError;

/// On-screen seconds the slower of the shown collectives takes at 1× speed.
pub const SCREEN_SECONDS: f64 = 8.0;

/// What one canvas plays.
#[derive(Clone, Debug, PartialEq)]
pub enum Playable {
    /// GPU by GPU (boxed: a schedule and its layout are much larger than an aggregate).
    Gpus(Box<Animation>),
    /// Nodes as units.
    Nodes(Aggregate),
}

impl Playable {
    /// The setup's collective, GPU by GPU when it is small enough to draw that way.
    pub fn build(setup: &Setup) -> Result<Playable, ModelError> {
        let c = setup.cluster();
        // NVLSTree runs a switch in every server, which the GPU-by-GPU drawing (one switch) does
        // not have: it plays with servers as units at any size.
        let nvls_tree = || {
            cost(&c, setup.op, setup.algo, setup.bytes).is_ok_and(|r| r.algorithm == Algo::NvlsTree)
        };
        if drawn_gpu_by_gpu(c.gpus, c.per_node) && !nvls_tree() {
            Animation::new(&c, setup.op, setup.algo, setup.bytes)
                .map(|a| Playable::Gpus(Box::new(a)))
        } else {
            Aggregate::new(&c, setup.op, setup.algo, setup.bytes).map(Playable::Nodes)
        }
    }

    /// Modelled time of the whole collective, seconds.
    pub fn total(&self) -> f64 {
        match self {
            Playable::Gpus(a) => a.playback.total,
            Playable::Nodes(a) => a.total,
        }
    }

    /// (round index, rounds) at model time `t`.
    pub fn round(&self, t: f64) -> (u64, u64) {
        match self {
            Playable::Gpus(a) => (a.playback.at(t).0 as u64, a.playback.rounds() as u64),
            Playable::Nodes(a) => {
                let f = a.frame(t);
                (f.round, f.rounds)
            }
        }
    }

    /// What happens in the round at `t`, in plain words.
    pub fn caption(&self, t: f64) -> String {
        match self {
            Playable::Gpus(a) => a.caption(a.playback.at(t).0),
            Playable::Nodes(a) => a.caption(t),
        }
    }

    /// The next round boundary after `t` (or the end).
    pub fn next_boundary(&self, t: f64) -> f64 {
        match self {
            Playable::Gpus(a) => a.playback.next_boundary(t),
            Playable::Nodes(a) => a.next_boundary(t),
        }
    }

    /// The round boundary before `t` (or the start).
    pub fn prev_boundary(&self, t: f64) -> f64 {
        match self {
            Playable::Gpus(a) => a.playback.prev_boundary(t),
            Playable::Nodes(a) => a.prev_boundary(t),
        }
    }

    /// When round `round` (0-based) starts and ends.
    fn round_span(&self, round: u64) -> (f64, f64) {
        match self {
            Playable::Gpus(a) => {
                let i = round as usize;
                let p = &a.playback;
                (
                    p.starts.get(i).copied().unwrap_or(p.total),
                    p.ends.get(i).copied().unwrap_or(p.total),
                )
            }
            Playable::Nodes(a) => (a.round_start(round).unwrap_or(a.total), a.round_end(round)),
        }
    }

    /// Where the clock stops when it pauses after each round: just short of round `round`'s
    /// end (a millionth of the round), so the frame still shows that round, its chunks arrived,
    /// and its caption; `None` for the last round, where the playback ends anyway.
    fn round_stop(&self, round: u64) -> Option<f64> {
        let (_, rounds) = self.round(0.0);
        if round + 1 >= rounds {
            return None;
        }
        let (start, end) = self.round_span(round);
        Some(end - (end - start).max(0.0) * 1e-6)
    }

    /// With pause-after-each-round on: where the clock, moving from `from` to `to`, stops at
    /// the end of a round (the first such stop after `from`), or `None` if it crosses none.
    /// From a stop the clock goes on into the next round.
    pub fn stop_between(&self, from: f64, to: f64) -> Option<f64> {
        let (mut r, _) = self.round(from);
        // Stopped just short of a round's end, the next stop is the next round's.
        let stop = loop {
            let s = self.round_stop(r)?;
            if s > from {
                break s;
            }
            r += 1;
        };
        (stop <= to).then_some(stop)
    }

    /// What crosses the network in the round at `t`, in words; empty on one server.
    pub fn network_summary(&self, t: f64) -> String {
        let t = t.min(self.total());
        match self {
            Playable::Gpus(a) => a.network_summary(a.playback.at(t).0),
            Playable::Nodes(a) => a.network_summary(t),
        }
    }

    /// The labels of the servers drawn as boxes ("Server 1", …).
    pub fn server_labels(&self) -> Vec<String> {
        match self {
            Playable::Gpus(a) => a.layout.server_labels(),
            Playable::Nodes(a) => {
                let shown = super::anim::NodeGrid::new(a.nodes).shown;
                (0..shown as usize).map(super::anim::server_label).collect()
            }
        }
    }

    /// The algorithm played (the cost model's pick when the scenario says `auto`).
    pub fn algorithm(&self) -> Algo {
        match self {
            Playable::Gpus(a) => a.schedule.algo,
            Playable::Nodes(a) => a.algo,
        }
    }

    /// The canvas's heading: "16 GPUs · InfiniBand NDR · ring · 1.2 ms".
    pub fn label(&self, c: &Cluster) -> String {
        format!(
            "{} · {} · {} · {}",
            gpus_text(c.gpus),
            if c.nodes() > 1 {
                c.inter.name
            } else {
                c.intra.name
            },
            self.algorithm().name(),
            duration(self.total())
        )
    }

    /// "Round 3 of 14" at model time `t` (the last round after the end).
    pub fn round_label(&self, t: f64) -> String {
        let (r, rs) = self.round(t.min(self.total()));
        format!("Round {} of {}", r + 1, rs.max(1))
    }

    /// "model time 1.2 ms of 3.4 ms".
    pub fn clock_label(&self, t: f64) -> String {
        format!(
            "model time {} of {}",
            duration(t.min(self.total())),
            duration(self.total())
        )
    }
}

/// One canvas's collective: the cluster it runs on and what is played, or why it cannot be.
#[derive(Clone, Debug, PartialEq)]
pub struct Show {
    /// The cluster.
    pub cluster: Cluster,
    /// The collective prepared for playback.
    pub playable: Result<Playable, ModelError>,
}

impl Show {
    /// The setup's collective.
    pub fn new(setup: &Setup) -> Show {
        Show {
            cluster: setup.cluster(),
            playable: Playable::build(setup),
        }
    }
}

/// The scenario's collective and, when one is chosen, the same collective on other hardware,
/// played on one time scale.
#[derive(Clone, Debug, PartialEq)]
pub struct Shows {
    /// The scenario's own.
    pub main: Show,
    /// The comparison, when one is chosen and its scenario is valid.
    pub compared: Option<Show>,
    /// Why the chosen comparison cannot be shown, when it cannot.
    pub compare_error: Option<String>,
}

impl Shows {
    /// The collectives for `sc`, and for `sc` changed by `compare` (a `key=value` from
    /// [`compare_options`]; empty for none).
    pub fn new(sc: &Scenario, compare: &str) -> Shows {
        let setup = sc.resolved();
        let compared = compare.split_once('=').map(|(k, v)| {
            let mut other = sc.clone();
            other.set(k, v)?;
            if k == "inter" && other.gpus <= setup.per_node {
                // A network only matters across nodes: compare on two nodes.
                other.gpus = setup.per_node * 2;
            }
            other.setup().map(|s| Show::new(&s))
        });
        let (compared, compare_error) = match compared {
            Some(Ok(show)) => (Some(show), None),
            Some(Err(e)) => (None, Some(e.to_string())),
            None => (None, None),
        };
        Shows {
            main: Show::new(&setup),
            compared,
            compare_error,
        }
    }

    /// The playable shows: the main one first.
    pub fn playables(&self) -> impl Iterator<Item = &Playable> {
        std::iter::once(&self.main)
            .chain(self.compared.as_ref())
            .filter_map(|s| s.playable.as_ref().ok())
    }

    /// Model time of the longest playable show: where the shared clock stops (0 when none).
    pub fn longest(&self) -> f64 {
        self.playables().map(Playable::total).fold(0.0, f64::max)
    }
}

/// Advances the shared clock by `dt` screen seconds at `speed`×, so that `longest` model seconds
/// last [`SCREEN_SECONDS`] at 1×. Returns the new model time and whether it reached the end.
pub fn advance(t: f64, dt: f64, longest: f64, speed: f64) -> (f64, bool) {
    let rate = longest / SCREEN_SECONDS * speed;
    let next = t + dt * rate;
    if next >= longest {
        (longest, true)
    } else {
        (next, false)
    }
}

/// The comparison choices as (`key=value`, words): nothing, the other inter-node networks, and
/// the intra-node fabrics.
pub fn compare_options(gpu: &hardware::Gpu) -> Vec<(String, String)> {
    let mut v = vec![(String::new(), "nothing".to_string())];
    for n in hardware::NETWORKS.iter().skip(1) {
        v.push((
            format!("inter={}", n.id),
            format!("between nodes: {}", n.name),
        ));
    }
    // Inside the node, only the links this GPU can have.
    for f in hardware::FABRICS.iter().filter(|f| gpu.can_use(f)) {
        v.push((
            format!("intra={}", f.id),
            format!("inside nodes: {}", f.name),
        ));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::collective::Op;

    fn shows(q: &str, compare: &str) -> Shows {
        Shows::new(&Scenario::parse(q).unwrap(), compare)
    }

    #[test]
    fn small_clusters_play_gpu_by_gpu_and_large_ones_as_nodes() {
        let small = shows("gpus=16&per_node=8&gpu=h100&inter=ib-ndr&algo=ring", "");
        assert!(matches!(small.main.playable, Ok(Playable::Gpus(_))));
        let big = shows("gpus=1024&gpu=h100&inter=ib-ndr&algo=ring", "");
        assert!(matches!(big.main.playable, Ok(Playable::Nodes(_))));
        assert!(big.compared.is_none());
    }

    #[test]
    fn both_views_answer_the_same_questions() {
        for q in [
            "gpus=8&gpu=h100&algo=ring",
            "gpus=1024&gpu=h100&inter=ib-ndr&algo=ring",
        ] {
            let s = shows(q, "");
            let p = s.main.playable.as_ref().unwrap();
            let total = p.total();
            assert!(total > 0.0, "{q}");
            assert_eq!(s.longest(), total);
            // Stepping forward from the start lands on round 2, and back again on round 1.
            let next = p.next_boundary(0.0);
            assert!(next > 0.0 && next < total, "{q}");
            assert_eq!(p.round(next).0, 1, "{q}");
            assert_eq!(p.round(p.prev_boundary(next)).0, 0, "{q}");
            assert!(p.round_label(0.0).starts_with("Round 1 of "), "{q}");
            // Past the end the labels stay on the last round and the total.
            let (last, rounds) = p.round(total * 2.0);
            assert_eq!(last + 1, rounds, "{q}");
            assert_eq!(
                p.clock_label(total * 2.0),
                format!("model time {} of {}", duration(total), duration(total))
            );
            assert!(p.caption(0.0).starts_with("Round 1 of "), "{q}");
            assert_eq!(p.algorithm(), Algo::Ring, "{q}");
        }
    }

    /// NVLSTree has a switch in every server, which the GPU-by-GPU drawing has not: even two
    /// servers play as units, timed tick by tick as the cost model times them.
    #[test]
    fn nvls_tree_plays_with_servers_as_units_at_the_cost_models_time() {
        let q = "gpus=16&per_node=8&gpu=h100&inter=ib-ndr&bytes=1GiB";
        let s = shows(q, "");
        let Ok(Playable::Nodes(a)) = &s.main.playable else {
            panic!("{q}: {:?}", s.main.playable)
        };
        assert_eq!(a.algo, Algo::NvlsTree);
        let c = s.main.cluster;
        let closed = cost(&c, Op::AllReduce, Algo::Auto, 1073741824.0).unwrap();
        let last = a.segments.last().unwrap();
        let end = last.start + last.each.total() * last.count as f64;
        assert!((end - closed.time_s).abs() < 1e-9 * closed.time_s);
        assert_eq!(a.rounds, closed.rounds);
        assert!(s
            .main
            .playable
            .as_ref()
            .unwrap()
            .caption(0.0)
            .contains("NVSwitch"));
    }

    #[test]
    fn the_aggregate_caption_names_nodes_as_units() {
        let s = shows("gpus=1024&gpu=h100&inter=ib-ndr&algo=ring", "");
        let p = s.main.playable.unwrap();
        assert_eq!(p.round_label(0.0), "Round 1 of 2046");
        assert!(p.caption(0.0).contains("128 nodes of 8 GPUs"));
        assert!(p.label(&s.main.cluster).starts_with("1,024 GPUs · "));
    }

    #[test]
    fn the_label_names_the_network_across_nodes_and_the_fabric_inside_one() {
        let one = shows("gpus=8&per_node=8&gpu=h100&intra=nvlink4&algo=ring", "");
        let p = one.main.playable.as_ref().unwrap();
        let c = &one.main.cluster;
        assert_eq!(
            p.label(c),
            format!("8 GPUs · {} · ring · {}", c.intra.name, duration(p.total()))
        );
        let two = shows("gpus=16&per_node=8&gpu=h100&inter=ib-ndr&algo=ring", "");
        let c = &two.main.cluster;
        assert!(two.main.playable.unwrap().label(c).contains(c.inter.name));
    }

    #[test]
    fn a_network_is_compared_across_two_nodes_even_for_a_one_node_scenario() {
        let s = shows("gpus=8&per_node=8&gpu=h100&algo=ring", "inter=tcp100");
        let other = s.compared.as_ref().expect("a valid comparison");
        assert_eq!(other.cluster.gpus, 16);
        assert_eq!(other.cluster.inter.id, "tcp100");
        assert!(other.playable.is_ok());
    }

    #[test]
    fn a_slower_network_sets_the_shared_time_scale() {
        let s = shows(
            "gpus=16&per_node=8&gpu=h100&inter=ib-ndr&algo=ring",
            "inter=tcp100",
        );
        let main = s.main.playable.as_ref().unwrap().total();
        let other = s
            .compared
            .as_ref()
            .unwrap()
            .playable
            .as_ref()
            .unwrap()
            .total();
        assert!(other > main);
        assert_eq!(s.longest(), other);
        assert_eq!(s.playables().count(), 2);
    }

    #[test]
    fn a_bad_comparison_is_left_out() {
        assert!(shows("gpus=8&gpu=h100", "inter=banana").compared.is_none());
        assert!(shows("gpus=8&gpu=h100", "nonsense").compared.is_none());
    }

    #[test]
    fn the_clock_plays_the_longest_show_in_eight_seconds_and_stops_at_its_end() {
        let longest = 2e-3;
        let (t, ended) = advance(0.0, 1.0, longest, 1.0);
        assert!((t - longest / SCREEN_SECONDS).abs() < 1e-15 && !ended);
        let (t2, _) = advance(0.0, 1.0, longest, 2.0);
        assert!(
            (t2 - 2.0 * t).abs() < 1e-15,
            "twice the speed, twice the model time"
        );
        assert_eq!(advance(longest * 0.99, 1.0, longest, 1.0), (longest, true));
    }

    #[test]
    fn pausing_after_each_round_stops_just_short_of_each_round_end_then_goes_on() {
        for q in [
            "gpus=8&gpu=h100&algo=ring",
            "gpus=16&per_node=8&gpu=h100&inter=ib-ndr&algo=ring",
            "gpus=1024&gpu=h100&inter=ib-ndr&algo=ring",
        ] {
            let s = shows(q, "");
            let p = s.main.playable.as_ref().unwrap();
            let total = p.total();
            // A long frame from the start stops at the end of round 1: the frame still shows
            // round 1, its chunks arrived.
            let stop = p.stop_between(0.0, total).expect("a stop");
            assert_eq!(p.round(stop).0, 0, "{q}");
            let end = p.next_boundary(0.0);
            assert!(
                stop < end && end - stop < 1e-5 * end,
                "{q}: {stop} vs {end}"
            );
            // A frame that ends before the round does passes no stop.
            assert_eq!(p.stop_between(0.0, stop * 0.5), None, "{q}");
            // From the stop the clock goes on, and stops again at the end of round 2.
            let again = p.stop_between(stop, total).expect("a second stop");
            assert_eq!(p.round(again).0, 1, "{q}");
            // The last round ends with the playback, not with a stop.
            let (_, rounds) = p.round(0.0);
            let mut t = 0.0;
            let mut stops = 0;
            while let Some(next) = p.stop_between(t, total) {
                t = next;
                stops += 1;
                if stops > 5000 {
                    break;
                }
            }
            assert_eq!(stops, rounds - 1, "{q}");
        }
    }

    #[test]
    fn several_servers_say_what_crosses_the_network_and_one_server_says_nothing() {
        let two = shows("gpus=16&per_node=8&gpu=h100&inter=ib-ndr&algo=ring", "");
        let p = two.main.playable.as_ref().unwrap();
        assert_eq!(p.server_labels(), ["Server 1", "Server 2"]);
        // Round by round, from one stop after a round to the next.
        let mut said = vec![p.network_summary(0.0)];
        let mut t = 0.0;
        while let Some(next) = p.stop_between(t, p.total()) {
            t = next;
            said.push(p.network_summary(t));
        }
        assert_eq!(said.len(), 30);
        assert!(
            said.iter().any(|s| s.contains("Server 1 → Server 2")),
            "{said:?}"
        );
        let one = shows("gpus=8&per_node=8&gpu=h100&algo=ring", "");
        assert_eq!(one.main.playable.as_ref().unwrap().network_summary(0.0), "");
        // Thirty-two GPUs in eight servers of four: GPU by GPU, in eight labelled boxes.
        let eight = shows("gpus=32&per_node=4&gpu=h100&inter=ib-ndr&algo=ring", "");
        let p = eight.main.playable.as_ref().unwrap();
        assert!(matches!(p, Playable::Gpus(_)));
        assert_eq!(p.server_labels().len(), 8);
    }

    /// Every offered comparison can be shown for the GPU it is offered on (H100 was offered
    /// xGMI and older NVLinks, which drew nothing or kept the previous comparison).
    #[test]
    fn compare_options_start_with_nothing_and_are_valid_keys() {
        for gpu in hardware::GPUS.iter() {
            let opts = compare_options(gpu);
            assert_eq!(opts[0], (String::new(), "nothing".to_string()));
            assert!(opts.len() > 3);
            let sc = Scenario::parse(&format!("gpus=16&per_node=8&gpu={}", gpu.id)).unwrap();
            for (kv, words) in &opts[1..] {
                let s = Shows::new(&sc, kv);
                assert!(
                    s.compared.is_some(),
                    "{} {kv}: {:?}",
                    gpu.id,
                    s.compare_error
                );
                assert!(
                    words.starts_with("between nodes: ") || words.starts_with("inside nodes: ")
                );
            }
        }
        let h100 = Scenario::parse("gpus=16&per_node=8&gpu=h100").unwrap();
        let refused = Shows::new(&h100, "intra=xgmi");
        assert!(refused.compared.is_none() && refused.compare_error.is_some());
    }
}
