//! "Explain my run": a pasted nccl-tests run against the model, size by size, where it is
//! latency-bound and where bandwidth-bound, the gap put in plain words with named causes, and the
//! chart of measured and modelled bus bandwidth and time against message size. Pure: the page
//! shows the strings and hands a canvas.

use super::charts::{Style, PALETTE};
use super::figure::Table;
use super::plot::{decade_count, decade_label, err, short_number, DrawResult, Ink};
use super::series::duration;
use super::validation::op_name;
use crate::model::collective::{self, Link};
use crate::model::hardware::NetKind;
use crate::model::nccl_tests::{self, Calibration, Fit, Run};
use crate::model::scenario::{Calib, Scenario};
use crate::model::units::human_bytes;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Below this share of the model's plateau, the run is slower than the fabric should give.
pub const PLATEAU_LOW: f64 = 0.85;
/// Above this share, faster than the model expects.
pub const PLATEAU_HIGH: f64 = 1.15;
/// Small messages this many times slower than the model: a latency problem.
pub const LATENCY_SLOW: f64 = 1.5;
/// A drop in bus bandwidth larger than this share from one size to the next larger one.
pub const DIP: f64 = 0.03;

/// One message size, measured and modelled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SizePoint {
    /// Message size, bytes.
    pub bytes: f64,
    /// Measured time, µs (out-of-place).
    pub measured_us: f64,
    /// Measured bus bandwidth, GB/s.
    pub measured_busbw: f64,
    /// The model's time on the fabric as specified, µs.
    pub model_us: f64,
    /// The model's bus bandwidth on the fabric as specified, GB/s.
    pub model_busbw: f64,
    /// The model's time with the explorer's calibration, when it has one, µs.
    pub calibrated_us: Option<f64>,
    /// The model's bus bandwidth with the explorer's calibration, GB/s.
    pub calibrated_busbw: Option<f64>,
}

/// What makes the run differ from the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The header's rank count differs from the explorer's GPU count.
    Ranks,
    /// The bandwidth-bound plateau is below what the fabric should give.
    PlateauLow,
    /// The plateau is above what the model expects.
    PlateauHigh,
    /// The plateau is as modelled.
    PlateauMatches,
    /// PCIe GPUs share the host's bandwidth.
    HostBandwidth,
    /// Small messages are slower than modelled: latency.
    LatencySlow,
    /// Small messages are faster than modelled.
    LatencyFast,
    /// Small messages take the modelled time.
    LatencyMatches,
    /// Bus bandwidth falls from one size to the next: a protocol or algorithm switch.
    Dip,
}

impl Cause {
    /// Whether the finding is a problem to look into (not an agreement).
    pub fn is_gap(self) -> bool {
        !matches!(self, Cause::PlateauMatches | Cause::LatencyMatches)
    }
}

/// One named cause, in plain words.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// Which cause.
    pub cause: Cause,
    /// One sentence with the numbers.
    pub headline: String,
    /// What it means and what to check.
    pub detail: String,
}

/// A run explained against the explorer's cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct Explained {
    /// The collective's name ("all-reduce").
    pub op: &'static str,
    /// The cluster compared with, in words.
    pub cluster: String,
    /// Size by size.
    pub points: Vec<SizePoint>,
    /// The measured line t = α + β·S.
    pub fit: Fit,
    /// The model's line for the same sizes.
    pub model_fit: Option<Fit>,
    /// The size where the fitted line's latency equals its transfer time (α = β·S), bytes:
    /// latency-bound below, bandwidth-bound above.
    pub crossover: Option<f64>,
    /// The named causes, most important first.
    pub findings: Vec<Finding>,
    /// The calibration that makes the model follow the run, or why there is none.
    pub calibration: Result<Calibration, String>,
}

/// What the header says, one phrase each: "16 ranks", "2 hosts → 8 GPUs per node",
/// "NVIDIA H100 80GB HBM3 → H100", "all_reduce_perf".
pub fn inferred(run: &Run) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(line) = run.next_run_at {
        v.push(format!(
            "the first of {} runs pasted (the next starts at line {line} and is not read)",
            run.runs
        ));
    }
    if run.alltoall {
        v.push("alltoall_perf".to_string());
    } else if let Some(op) = run.op {
        v.push(match run.columns_note() {
            Some(note) => format!("{} ({note})", op_name(op)),
            None => op_name(op).to_string(),
        });
    }
    v.push(format!(
        "{} message size{}",
        run.rows.len(),
        if run.rows.len() == 1 { "" } else { "s" }
    ));
    if run.ranks > 0 {
        v.push(format!(
            "{} rank{}",
            run.ranks,
            if run.ranks == 1 { "" } else { "s" }
        ));
    } else if let Some(g) = run.gpus() {
        v.push(format!(
            "-g {g} with no rank listed → {g} GPU{} in one process",
            if g == 1 { "" } else { "s" }
        ));
    }
    if !run.hosts.is_empty() {
        let n = run.hosts.len();
        let hosts = format!("{n} host{}", if n == 1 { "" } else { "s" });
        v.push(match run.per_node() {
            Some(p) => format!("{hosts} → {p} GPUs per node"),
            None => hosts,
        });
    }
    if let Some(d) = run.devices.first() {
        v.push(match run.gpu_id() {
            Some(id) => format!("{d} → {}", id.to_ascii_uppercase()),
            None => format!("{d} (not in the catalog: pick the nearest GPU)"),
        });
    }
    v
}

/// The scenario keys the header tells (`gpus`, `per_node`, `gpu`), to set in the explorer.
pub fn header_keys(run: &Run) -> Vec<(&'static str, String)> {
    let mut v = Vec::new();
    if let Some(p) = run.per_node().filter(|p| (1..=72).contains(p)) {
        v.push(("per_node", p.to_string()));
    }
    if let Some(g) = run.gpus() {
        v.push(("gpus", g.to_string()));
    }
    if let Some(g) = run.gpu_id() {
        v.push(("gpu", g.to_string()));
    }
    v
}

/// The lines that could not be read, as one message naming them; `None` when every line read.
pub fn problems_message(run: &Run) -> Option<String> {
    if run.problems.is_empty() {
        return None;
    }
    let shown: Vec<String> = run
        .problems
        .iter()
        .take(5)
        .map(|(n, why)| format!("line {n}: {why}"))
        .collect();
    let more = run.problems.len().saturating_sub(5);
    Some(format!(
        "{} line{} looked like table data but could not be read and {} left out — {}{}.",
        run.problems.len(),
        if run.problems.len() == 1 { "" } else { "s" },
        if run.problems.len() == 1 { "is" } else { "are" },
        shown.join("; "),
        if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        }
    ))
}

/// The explorer's scenario without its calibration: what the fabric should give.
pub fn uncalibrated(sc: &Scenario) -> Scenario {
    let mut base = sc.clone();
    base.calib = Calib::default();
    base
}

/// The cluster in words: "16 GPUs on 2 nodes (8 per node), NVLink 4 + NVSwitch (H100),
/// 200 GbE RoCE, 8 NICs per node".
fn cluster_words(sc: &Scenario) -> String {
    let Ok(s) = sc.setup() else {
        return String::new();
    };
    let nodes = s.nodes();
    if nodes > 1 {
        format!(
            "{} GPUs on {nodes} nodes ({} per node), {}, {}, {} NIC{} per node",
            s.gpus,
            s.per_node,
            s.intra.name,
            s.inter.name,
            s.nics,
            if s.nics == 1 { "" } else { "s" }
        )
    } else {
        format!("{} GPUs in one node, {}", s.gpus, s.intra.name)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}

/// GB/s with sensible digits.
/// A bandwidth in GB/s with as many decimals as it needs: "338 GB/s", "4.2 GB/s", "0.05 GB/s".
pub fn gbs(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.0} GB/s")
    } else if x >= 1.0 {
        format!("{x:.1} GB/s")
    } else if x >= 0.1 {
        format!("{x:.2} GB/s")
    } else {
        format!("{x:.3} GB/s")
    }
}

/// Compares a run with the explorer's scenario (its calibration set aside for the "model" line,
/// kept for the "calibrated" one), fits its line and names the causes of the gap.
pub fn explain(run: &Run, explorer: &Scenario) -> Result<Explained, String> {
    if run.alltoall {
        return Err("This is alltoall_perf: the page reads it, but the model has no all-to-all. Paste all_reduce_perf, all_gather_perf or reduce_scatter_perf.".into());
    }
    if run.rows.is_empty() {
        return Err("No table rows found. Paste the whole output of all_reduce_perf (or all_gather_perf, reduce_scatter_perf): the lines that start with a message size.".into());
    }
    let fit = nccl_tests::fit(&run.rows).ok_or(
        "One message size is not enough to fit a line: run nccl-tests over a range (-b 8 -e 8G -f 2).",
    )?;
    let base = uncalibrated(explorer);
    let model = nccl_tests::compare(run, &base)?;
    let calibrated = if explorer.calib.is_set() {
        Some(nccl_tests::compare(run, explorer)?)
    } else {
        None
    };
    let points: Vec<SizePoint> = model
        .iter()
        .enumerate()
        .map(|(i, c)| SizePoint {
            bytes: c.bytes,
            measured_us: c.measured_us,
            measured_busbw: c.measured_busbw,
            model_us: c.model_us,
            model_busbw: c.model_busbw,
            calibrated_us: calibrated
                .as_ref()
                .and_then(|v| v.get(i))
                .map(|c| c.model_us),
            calibrated_busbw: calibrated
                .as_ref()
                .and_then(|v| v.get(i))
                .map(|c| c.model_busbw),
        })
        .collect();
    let model_rows: Vec<nccl_tests::Row> = points
        .iter()
        .map(|p| nccl_tests::Row {
            bytes: p.bytes,
            time_us: p.model_us,
            algbw_gbs: 0.0,
            busbw_gbs: p.model_busbw,
        })
        .collect();
    let model_fit = nccl_tests::fit(&model_rows);
    let crossover = (fit.alpha_us > 0.0 && fit.beta_us_per_byte > 0.0)
        .then(|| fit.alpha_us / fit.beta_us_per_byte);
    let op = run.op.unwrap_or(base.op);
    let findings = findings(run, &base, &points, crossover);
    Ok(Explained {
        op: op_name(op),
        cluster: cluster_words(&base),
        points,
        fit,
        model_fit,
        crossover,
        findings,
        calibration: nccl_tests::calibrate(run, &base).map(|mut c| {
            // The explorer's GPU and count stand where the run does not say its own.
            let told = header_keys(run);
            let unsaid = |key: &str| !told.iter().any(|(k, _)| *k == key);
            c.warnings
                .extend(run.assumed(&base, &unsaid, "the explorer"));
            c
        }),
    })
}

/// The named causes of the gap between a run and the model.
fn findings(
    run: &Run,
    base: &Scenario,
    points: &[SizePoint],
    crossover: Option<f64>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let Ok(s) = base.setup() else {
        return out;
    };
    let nodes = s.nodes();
    if let Some(n) = run.gpus().filter(|&n| n != s.gpus) {
        out.push(Finding {
            cause: Cause::Ranks,
            headline: format!(
                "The run has {n} ranks, the explorer {} GPUs: the model answers for {}.",
                s.gpus, s.gpus
            ),
            detail: "Set the GPU count below to the run's ranks to compare like with like.".into(),
        });
    }
    // The plateau: the largest sizes, where the fabric's bandwidth decides.
    let tail: Vec<&SizePoint> = points.iter().rev().take(3).collect();
    let measured = median(tail.iter().map(|p| p.measured_busbw).collect());
    let modelled = median(tail.iter().map(|p| p.model_busbw).collect());
    let ratio = if modelled > 0.0 {
        measured / modelled
    } else {
        1.0
    };
    // Which link the model says bounds the largest size decides what to check.
    let op = run.op.unwrap_or(s.op);
    let bound = points
        .last()
        .and_then(|p| collective::cost(&s.cluster(), op, s.algo, p.bytes).ok())
        .map(|c| c.bottleneck);
    let network = matches!(
        bound,
        Some(Link::Network | Link::HostPcie | Link::LeafUplink | Link::SpineUplink)
    );
    let pcie = bound == Some(Link::Pcie);
    if ratio < PLATEAU_LOW {
        let detail = if bound == Some(Link::HostPcie) {
            "The GPUs' own PCIe links into the NICs bound the run (GPUDirect RDMA): the node's NICs can carry more than its GPUs can feed them. Check that each GPU's link runs at its full width and generation (nvidia-smi -q, the GPU Link Info section), that each GPU and its NIC share a PCIe switch (nvidia-smi topo -m: PIX), and that GPUDirect RDMA is on (nvidia-peermem loaded, GDRDMA in the NCCL_DEBUG=INFO log)."
        } else if network && s.inter.kind == NetKind::Tcp {
            "The network between nodes bounds the run, and NCCL is on TCP sockets, which copy every byte through host memory: check that NCCL_SOCKET_IFNAME picks the fast interface, raise NCCL_NSOCKS_PERTHREAD and NCCL_SOCKET_NTHREADS, or use RDMA (RoCE or InfiniBand) if the NICs can."
        } else if network {
            "The network between nodes bounds the run. Check that every NIC is used (NCCL_DEBUG=INFO lists the NET/IB devices NCCL picked; NCCL_IB_HCA must not leave any out), that GPUDirect RDMA is on (nvidia-peermem loaded, GDRDMA in the log), that each port runs at its rated speed (ibstat, ethtool), and on RoCE that PFC/ECN congestion control is set up."
        } else if pcie {
            "The GPUs inside a node talk over PCIe, through the host (see the next point)."
        } else if s.intra.id == "xgmi" {
            "The GPUs' links inside a node bound the run. Check that every xGMI link is up (rocm-smi --showtopo), that peer-to-peer is not disabled (NCCL_P2P_DISABLE), and that RCCL uses all of the mesh's channels; one GPU throttled by power or heat slows the whole ring."
        } else {
            "The GPUs' links inside a node bound the run. Check that every NVLink is up (nvidia-smi nvlink --status), that the NVSwitch Fabric Manager is running, and that peer-to-peer is not disabled (NCCL_P2P_DISABLE, NCCL_P2P_LEVEL); one GPU throttled by power or heat slows the whole ring."
        };
        // A run that does not name its GPU is compared on the explorer's: a slower GPU's
        // fabric reads as a broken one (an 8-A100 run on the explorer's H100s was told to
        // check its NVLinks).
        let detail = if run.gpu_id().is_none() {
            format!(
                "The run does not name its GPU, so it is compared as {}: if its GPUs are another kind, set them first. {detail}",
                s.gpu.name
            )
        } else {
            detail.to_string()
        };
        out.push(Finding {
            cause: Cause::PlateauLow,
            headline: format!(
                "Plateau at {:.0}\u{a0}% of what this fabric should give: {} measured, {} modelled at the largest sizes.",
                100.0 * ratio,
                gbs(measured),
                gbs(modelled)
            ),
            detail,
        });
        if pcie && s.gpus > 2 {
            out.push(Finding {
                cause: Cause::HostBandwidth,
                headline: format!(
                    "On PCIe, {} GPUs share the host's bandwidth: more GPUs can be slower than fewer.",
                    s.gpus
                ),
                detail: "Traffic between PCIe GPUs crosses PCIe switches or the CPU's root complex, and the link between sockets on a two-socket host. Check nvidia-smi topo -m (PIX or PXB between GPUs is better than NODE or SYS), that ACS is off and the IOMMU in passthrough so peer-to-peer is allowed, and compare with a run on half the GPUs.".into(),
            });
        }
    } else if ratio > PLATEAU_HIGH {
        out.push(Finding {
            cause: Cause::PlateauHigh,
            headline: format!(
                "Plateau at {:.0}\u{a0}% of what the model expects: {} measured, {} modelled — faster than this fabric as set.",
                100.0 * ratio,
                gbs(measured),
                gbs(modelled)
            ),
            detail: "The cluster may have more or faster links than the controls say (NICs per node, network, fabric), or NCCL uses a reduction the model does not count here (in-switch or in-network reduction: NVLS, SHARP, CollNet). Applying the calibration makes the model follow your run either way.".into(),
        });
    } else {
        out.push(Finding {
            cause: Cause::PlateauMatches,
            headline: format!(
                "Plateau as expected: {} measured, {} modelled ({:.0}\u{a0}%).",
                gbs(measured),
                gbs(modelled),
                100.0 * ratio
            ),
            detail: "The bandwidth-bound sizes run as fast as this fabric should.".into(),
        });
    }
    // Small messages: the smallest size, when it is latency-bound.
    if let Some(p) = points
        .first()
        .filter(|p| crossover.is_none_or(|c| p.bytes < c) && p.model_us > 0.0)
    {
        let k = p.measured_us / p.model_us;
        let at = format!(
            "{} measured, {} modelled at {}",
            duration(p.measured_us * 1e-6),
            duration(p.model_us * 1e-6),
            human_bytes(p.bytes)
        );
        let finding = if k > LATENCY_SLOW {
            let detail = if let Some(n) = run.gpus_per_thread.filter(|n| *n > 1) {
                format!("This run drives {n} GPUs from each host thread (nccl-tests -g {n}): every collective starts with that thread launching its kernel on each of them in turn, a floor that training, with one process per GPU, does not pay. Run it with one GPU per process (mpirun -np <GPUs> all_reduce_perf -g 1) to see the collective's own latency.")
            } else if nodes > 1 {
                "Every step of the collective pays the transport's latency: a few µs per hop on RDMA, far more over TCP or a TCP offload. Check that NCCL uses the IB/RoCE transport (not NET/Socket), that the low-latency protocols are not disabled (NCCL_PROTO keeps LL and LL128), and that nothing else keeps the CPU busy; nccl-tests with -G 1 (CUDA graphs) removes the launch overhead.".into()
            } else {
                "Launch overhead and synchronisation dominate small messages. Check CPU power states and frequency scaling, that NCCL_PROTO keeps the low-latency LL protocol, and run nccl-tests with -G 1 (CUDA graphs) to see the collective's own time.".into()
            };
            Finding {
                cause: Cause::LatencySlow,
                headline: format!("Small messages {k:.1}× slower than expected: latency ({at})."),
                detail,
            }
        } else if k < 1.0 / LATENCY_SLOW {
            Finding {
                cause: Cause::LatencyFast,
                headline: format!("Small messages {:.1}× faster than the model expects ({at}).", 1.0 / k),
                detail: "The model's latencies are one NCCL release's tuner constants; a newer NCCL, CUDA graphs (-G 1) or in-switch reduction can beat them. The calibration scales the model's latencies to your run.".into(),
            }
        } else {
            Finding {
                cause: Cause::LatencyMatches,
                headline: format!("Small messages take the expected time ({at})."),
                detail: "Latency is as this fabric should give.".into(),
            }
        };
        out.push(finding);
    }
    // The largest fall of bus bandwidth from one size to the next, away from the smallest
    // sizes (where busbw is tiny and noisy).
    let floor = crossover.map_or(0.0, |c| c / 4.0);
    if let Some((a, b)) = points
        .windows(2)
        .filter(|w| w[0].bytes >= floor && w[1].bytes > w[0].bytes && w[0].measured_busbw > 0.0)
        .map(|w| (w[0], w[1]))
        .filter(|(a, b)| b.measured_busbw < a.measured_busbw * (1.0 - DIP))
        .max_by(|x, y| {
            let drop = |(a, b): &(SizePoint, SizePoint)| 1.0 - b.measured_busbw / a.measured_busbw;
            drop(x).total_cmp(&drop(y))
        })
    {
        out.push(Finding {
            cause: Cause::Dip,
            headline: format!(
                "Bus bandwidth falls from {} to {} between {} and {}.",
                gbs(a.measured_busbw),
                gbs(b.measured_busbw),
                human_bytes(a.bytes),
                human_bytes(b.bytes)
            ),
            detail: "NCCL's tuner switches protocol (LL, LL128, Simple), algorithm or channel count near this size; setting NCCL_PROTO or NCCL_ALGO around it shows which choice is faster.".into(),
        });
    }
    out
}

impl Explained {
    /// The fitted line in words, with the calibration that follows from it.
    pub fn fit_text(&self) -> String {
        let bw = if self.fit.beta_us_per_byte > 0.0 {
            gbs(1e-3 / self.fit.beta_us_per_byte)
        } else {
            "unbounded".into()
        };
        let mut s = format!(
            "Fitted line t = α + S/B over {} sizes: latency α = {}, bandwidth B = {} (algorithm bandwidth).",
            self.fit.rows_used,
            duration(self.fit.alpha_us * 1e-6),
            bw
        );
        if let Some(c) = self.crossover {
            s.push_str(&format!(
                " Below {} a message is latency-bound, above it bandwidth-bound.",
                human_bytes(c)
            ));
        }
        s
    }

    /// What applying the calibration does, in words.
    pub fn calibration_text(&self) -> String {
        match &self.calibration {
            Ok(c) => format!(
                "To follow this run, the model's {} bandwidth is multiplied by {} and every latency by {}. Applying it sets {}={} and calib_lat={} in the explorer: the step, the sweep and the animation then use your measured fabric, and the link keeps it.",
                if c.tier == "network" { "network" } else { "in-node fabric" },
                c.bandwidth_factor,
                c.latency_factor,
                if c.tier == "network" { "calib_net" } else { "calib_intra" },
                c.bandwidth_factor,
                c.latency_factor
            ) + if c.tier == "network" {
                // The plateau moves less than the factor where the node's own links carry part
                // of the time.
                " Only the network's share of the time scales, so the factor can be larger than the plateau's gap."
            } else {
                ""
            } + &c
                .warnings
                .iter()
                .map(|w| format!(" Beware: {w}."))
                .collect::<String>(),
            Err(e) => format!("No calibration: {e}."),
        }
    }

    /// The calibration's scenario keys (`calib_net`, `calib_intra`, `calib_lat`) and values.
    pub fn calibration_keys(&self) -> Vec<(&'static str, String)> {
        let Ok(c) = &self.calibration else {
            return Vec::new();
        };
        let Ok(sc) = Scenario::parse(&c.scenario) else {
            return Vec::new();
        };
        ["calib_intra", "calib_net", "calib_lat"]
            .into_iter()
            .map(|k| (k, sc.get(k).unwrap_or_else(|| "1".to_string())))
            .collect()
    }

    /// The chart's message (its accessible name): the cluster and the findings' headlines.
    pub fn takeaway(&self) -> String {
        let mut s = format!(
            "Measured and modelled {} over {} message sizes on {}.",
            self.op,
            self.points.len(),
            self.cluster
        );
        for f in &self.findings {
            s.push(' ');
            s.push_str(&f.headline);
        }
        s
    }

    /// The chart's numbers as a table.
    pub fn table(&self) -> Table {
        let calibrated = self.points.iter().any(|p| p.calibrated_us.is_some());
        let mut header: Vec<String> = [
            "bytes",
            "measured_us",
            "model_us",
            "measured_busbw_gbs",
            "model_busbw_gbs",
        ]
        .iter()
        .map(|h| h.to_string())
        .collect();
        if calibrated {
            header.push("calibrated_us".into());
            header.push("calibrated_busbw_gbs".into());
        }
        let rows = self
            .points
            .iter()
            .map(|p| {
                let mut r = vec![
                    format!("{}", p.bytes),
                    format!("{:.1}", p.measured_us),
                    format!("{:.1}", p.model_us),
                    format!("{:.2}", p.measured_busbw),
                    format!("{:.2}", p.model_busbw),
                ];
                if calibrated {
                    r.push(p.calibrated_us.map_or(String::new(), |v| format!("{v:.1}")));
                    r.push(
                        p.calibrated_busbw
                            .map_or(String::new(), |v| format!("{v:.2}")),
                    );
                }
                r
            })
            .collect();
        Table { header, rows }
    }
}

/// How a legend entry is drawn beside its label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// A solid line.
    Solid,
    /// A dashed line.
    Dashed,
    /// A dotted line.
    Dotted,
    /// A shaded area.
    Area,
}

impl Mark {
    /// CSS class suffix.
    pub fn id(self) -> &'static str {
        match self {
            Mark::Solid => "solid",
            Mark::Dashed => "dashed",
            Mark::Dotted => "dotted",
            Mark::Area => "area",
        }
    }
}

/// One entry of the chart's legend (drawn by the page beside the canvas, so it never covers
/// the curves on a narrow screen).
#[derive(Clone, Debug, PartialEq)]
pub struct LegendItem {
    /// What it names.
    pub label: &'static str,
    /// Its colour as CSS.
    pub css: String,
    /// How it is drawn.
    pub mark: Mark,
}

impl Explained {
    /// The legend, in the chart's colours for a light or dark background.
    pub fn legend(&self, dark: bool) -> Vec<LegendItem> {
        let c = colours(&Style {
            scale: 1.0,
            dark,
            projector: false,
        });
        let rgb = |c: RGBColor| format!("rgb({},{},{})", c.0, c.1, c.2);
        let rgba = |c: RGBAColor| format!("rgba({},{},{},{:.2})", c.0, c.1, c.2, c.3);
        let mut v = vec![
            LegendItem {
                label: "measured",
                css: rgb(c.measured),
                mark: Mark::Solid,
            },
            LegendItem {
                label: "model, fabric as set",
                css: rgb(c.model),
                mark: Mark::Dashed,
            },
        ];
        if self.points.iter().any(|p| p.calibrated_us.is_some()) {
            v.push(LegendItem {
                label: "model, calibrated",
                css: rgb(c.calibrated),
                mark: Mark::Dotted,
            });
        }
        if self.crossover.is_some() {
            v.push(LegendItem {
                label: "latency-bound sizes",
                css: rgba(c.latency),
                mark: Mark::Area,
            });
            v.push(LegendItem {
                label: "bandwidth-bound sizes",
                css: rgba(c.bandwidth),
                mark: Mark::Area,
            });
        }
        v
    }
}

/// A size axis label: x is log₂ bytes.
fn size_label(x: &f64) -> String {
    if (x - x.round()).abs() > 1e-6 || *x < 0.0 {
        return String::new();
    }
    human_bytes(2f64.powf(x.round()))
}

/// Colours of the chart: measured (ink), model, calibrated, and the two regions.
struct Colours {
    measured: RGBColor,
    model: RGBColor,
    calibrated: RGBColor,
    latency: RGBAColor,
    bandwidth: RGBAColor,
}

fn colours(st: &Style) -> Colours {
    let tint = if st.dark { 0.11 } else { 0.13 };
    Colours {
        measured: st.fg(),
        model: if st.dark {
            RGBColor(240, 150, 60)
        } else {
            PALETTE[4]
        },
        calibrated: if st.dark { PALETTE[2] } else { PALETTE[5] },
        latency: PALETTE[1].mix(tint),
        bandwidth: PALETTE[2].mix(tint),
    }
}

/// Two panels over message size (log₂ axis): bus bandwidth (linear) above, time (log) below;
/// measured, modelled and (when set) calibrated lines; the latency-bound sizes shaded apart from
/// the bandwidth-bound ones, split where the fitted line's α equals β·S.
pub fn draw_measured<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    e: &Explained,
    st: &Style,
) -> DrawResult<()> {
    root.fill(&st.bg()).map_err(err)?;
    let fg = st.fg();
    let c = colours(st);
    let xs: Vec<f64> = e
        .points
        .iter()
        .filter(|p| p.bytes > 0.0)
        .map(|p| p.bytes.log2())
        .collect();
    let (x0, x1) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(*x), b.max(*x))
        });
    let (x0, x1) = if x0.is_finite() && x1 > x0 {
        (x0 - 0.5, x1 + 0.5)
    } else {
        (0.0, 34.0)
    };
    let split = e.crossover.map(|b| b.log2().clamp(x0, x1));
    let (h, _) = (root.dim_in_pixel().1, ());
    let (top, bottom) = root.split_vertically(h / 2);
    let w = st.px(2.0);
    let font = ("sans-serif", st.font(12.0)).into_font().color(&fg);
    let desc = ("sans-serif", st.font(13.0)).into_font().color(&fg);

    // Bus bandwidth.
    let y_max = e
        .points
        .iter()
        .flat_map(|p| {
            [
                p.measured_busbw,
                p.model_busbw,
                p.calibrated_busbw.unwrap_or(0.0),
            ]
        })
        .fold(0.0f64, f64::max)
        .max(1.0)
        * 1.12;
    let mut chart = ChartBuilder::on(&top)
        .margin(st.px(10.0))
        .margin_bottom(st.px(4.0))
        .x_label_area_size(st.px(22.0))
        .y_label_area_size(st.px(52.0))
        .build_cartesian_2d(x0..x1, 0.0..y_max)
        .map_err(err)?;
    chart
        .configure_mesh()
        .y_desc("bus bandwidth, GB/s")
        .x_label_formatter(&size_label)
        .y_label_formatter(&|v| short_number(*v))
        .x_labels(8)
        .y_labels(5)
        .label_style(font.clone())
        .axis_desc_style(desc.clone())
        .axis_style(fg.stroke_width(st.px(1.0)))
        .bold_line_style(fg.mix(0.12))
        .light_line_style(fg.mix(0.0))
        .draw()
        .map_err(err)?;
    if let Some(sx) = split {
        chart
            .draw_series([
                Rectangle::new([(x0, 0.0), (sx, y_max)], c.latency.filled()),
                Rectangle::new([(sx, 0.0), (x1, y_max)], c.bandwidth.filled()),
            ])
            .map_err(err)?;
        // Each region named at the top, beside the split, where the curves leave room (the
        // bandwidth only nears the top at the largest sizes); left out when it does not fit.
        let small = ("sans-serif", st.font(11.0))
            .into_font()
            .color(&fg.mix(0.8));
        let pad = st.px(4.0) as i32;
        let wide = |t: &str| (st.font(11.0) * 0.56 * t.len() as f64).ceil() as i32;
        let (left, top_y) = chart.backend_coord(&(x0, y_max));
        let (mid, _) = chart.backend_coord(&(sx, y_max));
        let (right, _) = chart.backend_coord(&(x1, y_max));
        for (text, from, to, right_aligned) in [
            ("latency-bound", left, mid, true),
            ("bandwidth-bound", mid, right, false),
        ] {
            let w = wide(text);
            if to - from > w + 2 * pad {
                let x = if right_aligned {
                    to - pad - w
                } else {
                    from + pad
                };
                top.draw(&Text::new(text, (x, top_y + pad), small.clone()))
                    .map_err(err)?;
            }
        }
        chart
            .draw_series(DashedLineSeries::new(
                [(sx, 0.0), (sx, y_max)],
                st.px(4.0),
                st.px(3.0),
                fg.mix(0.5).stroke_width(st.px(1.0)),
            ))
            .map_err(err)?;
    }
    let series = |f: fn(&SizePoint) -> Option<f64>| -> Vec<(f64, f64)> {
        e.points
            .iter()
            .filter(|p| p.bytes > 0.0)
            .filter_map(|p| f(p).map(|v| (p.bytes.log2(), v)))
            .collect()
    };
    let measured_bw = series(|p| Some(p.measured_busbw));
    let model_bw = series(|p| Some(p.model_busbw));
    let calibrated_bw = series(|p| p.calibrated_busbw);
    let measured = c.measured;
    chart
        .draw_series(LineSeries::new(
            measured_bw.clone(),
            measured.stroke_width(w + st.px(0.5)),
        ))
        .map_err(err)?;
    chart
        .draw_series(
            measured_bw
                .iter()
                .map(|p| Circle::new(*p, st.px(2.5), measured.filled())),
        )
        .map_err(err)?;
    let model = c.model;
    chart
        .draw_series(DashedLineSeries::new(
            model_bw,
            st.px(6.0),
            st.px(4.0),
            model.stroke_width(w),
        ))
        .map_err(err)?;
    if !calibrated_bw.is_empty() {
        let cal = c.calibrated;
        chart
            .draw_series(DashedLineSeries::new(
                calibrated_bw,
                st.px(2.0),
                st.px(3.0),
                cal.stroke_width(w),
            ))
            .map_err(err)?;
    }

    // Time, log–log.
    let (t0, t1) = e
        .points
        .iter()
        .flat_map(|p| {
            [
                p.measured_us,
                p.model_us,
                p.calibrated_us.unwrap_or(p.model_us),
            ]
        })
        .filter(|t| *t > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(a, b), t| (a.min(t), b.max(t)));
    // Log₁₀ of the time.
    let (t0, t1) = if t0.is_finite() && t1 > t0 {
        ((t0 / 1.5).log10(), (t1 * 1.5).log10())
    } else {
        (0.0, 6.0)
    };
    let mut chart = ChartBuilder::on(&bottom)
        .margin(st.px(10.0))
        .margin_top(st.px(4.0))
        .x_label_area_size(st.px(40.0))
        .y_label_area_size(st.px(52.0))
        .build_cartesian_2d(x0..x1, t0..t1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("message size")
        .y_desc("time, µs")
        .x_label_formatter(&size_label)
        .y_label_formatter(&decade_label)
        .x_labels(8)
        .y_labels(decade_count(t0, t1))
        .label_style(font)
        .axis_desc_style(desc)
        .axis_style(fg.stroke_width(st.px(1.0)))
        .bold_line_style(fg.mix(0.12))
        .light_line_style(fg.mix(0.0))
        .draw()
        .map_err(err)?;
    if let Some(sx) = split {
        chart
            .draw_series([
                Rectangle::new([(x0, t0), (sx, t1)], c.latency.filled()),
                Rectangle::new([(sx, t0), (x1, t1)], c.bandwidth.filled()),
            ])
            .map_err(err)?;
    }
    let log_t = |v: Vec<(f64, f64)>| -> Vec<(f64, f64)> {
        v.into_iter().map(|(x, t)| (x, t.log10())).collect()
    };
    let measured_t = log_t(series(|p| Some(p.measured_us).filter(|t| *t > 0.0)));
    chart
        .draw_series(LineSeries::new(
            measured_t.clone(),
            measured.stroke_width(w + st.px(0.5)),
        ))
        .map_err(err)?;
    chart
        .draw_series(
            measured_t
                .iter()
                .map(|p| Circle::new(*p, st.px(2.5), measured.filled())),
        )
        .map_err(err)?;
    chart
        .draw_series(DashedLineSeries::new(
            log_t(series(|p| Some(p.model_us).filter(|t| *t > 0.0))),
            st.px(6.0),
            st.px(4.0),
            model.stroke_width(w),
        ))
        .map_err(err)?;
    let calibrated_t = log_t(series(|p| p.calibrated_us.filter(|t| *t > 0.0)));
    if !calibrated_t.is_empty() {
        chart
            .draw_series(DashedLineSeries::new(
                calibrated_t,
                st.px(2.0),
                st.px(3.0),
                c.calibrated.stroke_width(w),
            ))
            .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::plot::recorder::record;
    use super::*;
    use crate::model::nccl_tests::{parse, SAMPLES};

    fn sample(i: usize) -> (Run, Scenario) {
        let (_, text, q) = SAMPLES[i];
        (parse(text), Scenario::parse(q).unwrap())
    }

    fn causes(e: &Explained) -> Vec<Cause> {
        e.findings.iter().map(|f| f.cause).collect()
    }

    /// The finding of a cause (the test fails when there is none).
    fn finding(e: &Explained, cause: Cause) -> &Finding {
        e.findings.iter().find(|f| f.cause == cause).unwrap()
    }

    #[test]
    fn the_header_tells_ranks_hosts_and_gpu() {
        let (run, _) = sample(0);
        let said = inferred(&run).join("; ");
        assert!(said.contains("16 ranks"), "{said}");
        assert!(said.contains("2 hosts → 8 GPUs per node"), "{said}");
        assert!(said.contains("H100 80GB HBM3 → H100"), "{said}");
        assert!(!said.contains("runs pasted"), "{said}");
        // The same output pasted twice is one run of 16 ranks on 2 hosts (it read as 32 ranks
        // with 16 GPUs a node, every size twice, the charts drawn back from the largest size).
        let twice = parse(&SAMPLES[0].1.repeat(2));
        let said_twice = inferred(&twice).join("; ");
        assert!(
            said_twice.starts_with("the first of 2 runs pasted"),
            "{said_twice}"
        );
        assert!(said_twice.contains("16 ranks"), "{said_twice}");
        assert_eq!(header_keys(&twice), header_keys(&run));
        assert_eq!(twice.rows, run.rows);
        assert_eq!(
            header_keys(&run),
            vec![
                ("per_node", "8".to_string()),
                ("gpus", "16".to_string()),
                ("gpu", "h100".to_string())
            ]
        );
        // A trimmed table with no rank listed tells its count by -g 8 (one process): it was
        // read as saying nothing, and compared with the explorer's 1,024 GPUs.
        let (trimmed, _) = sample(1);
        assert_eq!(
            header_keys(&trimmed),
            vec![("per_node", "8".to_string()), ("gpus", "8".to_string())]
        );
        assert!(inferred(&trimmed)
            .join("; ")
            .contains("-g 8 with no rank listed"));
        // It does not say its GPU: the comparison on the explorer's says which it took.
        let h100 = Scenario::parse("gpus=8").unwrap();
        let e = explain(&trimmed, &h100).unwrap();
        assert!(
            e.calibration_text().contains("so gpu=h100 was assumed"),
            "{}",
            e.calibration_text()
        );
        // Its NVLink 3 plateau reads low on H100s: the finding says the GPU was not named
        // before it sends the reader to check NVLinks.
        assert!(
            finding(&e, Cause::PlateauLow)
                .detail
                .starts_with("The run does not name its GPU, so it is compared as NVIDIA H100"),
            "{}",
            finding(&e, Cause::PlateauLow).detail
        );
    }

    #[test]
    fn a_two_node_run_above_its_nics_rate_with_slow_small_messages() {
        let (run, sc) = sample(0);
        let e = explain(&run, &sc).unwrap();
        assert_eq!(e.points.len(), 31);
        let c = causes(&e);
        // GCP's A3 Mega moves 339 GB/s busbw, above the 8 × 200 GbE a ring would be bound by
        // (180 GB/s in the model): on two nodes the tree sends half as much over the network
        // (the model's tree: 311 GB/s at 8 GiB). Its TCP-offload transport pays ~124 µs per
        // small message where RDMA pays ~25.
        assert!(c.contains(&Cause::PlateauMatches), "{c:?}");
        assert!(c.contains(&Cause::LatencySlow), "{c:?}");
        let slow = finding(&e, Cause::LatencySlow);
        assert!(
            slow.headline.contains("× slower than expected: latency"),
            "{}",
            slow.headline
        );
        assert!(
            slow.detail.contains("NET/Socket"),
            "multi-node advice: {}",
            slow.detail
        );
        // The split between latency- and bandwidth-bound sizes is where α = β·S.
        let x = e.crossover.unwrap();
        assert!((e.fit.alpha_us - e.fit.beta_us_per_byte * x).abs() < 1e-6);
        assert!(x > 1e6 && x < 1e8, "{x}");
        assert!(e.fit_text().contains("latency-bound"));
        assert!(e.calibration_text().contains("calib_net="));
        let keys = e.calibration_keys();
        assert!(
            keys.iter().any(|(k, v)| *k == "calib_net" && v != "1"),
            "{keys:?}"
        );
        assert!(e.takeaway().contains("16 GPUs on 2 nodes"));
    }

    #[test]
    fn one_node_run_matches_its_plateau_and_names_its_dip() {
        let (run, sc) = sample(1);
        let e = explain(&run, &sc).unwrap();
        let c = causes(&e);
        assert!(c.contains(&Cause::PlateauMatches), "{c:?}");
        assert!(c.contains(&Cause::LatencySlow), "{c:?}");
        // The run is `all_reduce_perf … -g 8`: one thread launches on all eight GPUs, which is
        // what its small-message floor says.
        assert_eq!(run.gpus_per_thread, Some(8));
        let slow = finding(&e, Cause::LatencySlow);
        assert!(
            slow.detail.contains("-g 8") && slow.detail.contains("one process per GPU"),
            "{}",
            slow.detail
        );
        // 8 MiB → 16 MiB: 109.9 → 106.2 GB/s in the published run.
        let dip = finding(&e, Cause::Dip);
        assert!(
            dip.headline.contains("8 MiB and 16 MiB"),
            "{}",
            dip.headline
        );
        assert!(e.calibration_text().contains("calib_intra="));
    }

    /// A made-up run on `sc`: the model's times × `slower`, over 1 KiB … 1 GiB.
    fn slowed(sc: &Scenario, slower: f64) -> Run {
        let sizes: Vec<nccl_tests::Row> = (10..31)
            .map(|e| nccl_tests::Row {
                bytes: f64::from(1u32 << e),
                time_us: 1.0,
                algbw_gbs: 0.0,
                busbw_gbs: 0.0,
            })
            .collect();
        let model = nccl_tests::compare(
            &Run {
                rows: sizes,
                ..Run::default()
            },
            sc,
        )
        .unwrap();
        Run {
            rows: model
                .iter()
                .map(|c| nccl_tests::Row {
                    bytes: c.bytes,
                    time_us: c.model_us * slower,
                    algbw_gbs: 0.0,
                    busbw_gbs: c.model_busbw / slower,
                })
                .collect(),
            ..Run::default()
        }
    }

    #[test]
    fn a_slow_network_plateau_names_nics_and_gpudirect() {
        // Two nodes over 200 GbE RoCE (network-bound in the model) at a third of the speed.
        let sc = Scenario::parse(SAMPLES[0].2).unwrap();
        let e = explain(&slowed(&sc, 3.0), &sc).unwrap();
        let low = e
            .findings
            .iter()
            .find(|f| f.cause == Cause::PlateauLow)
            .unwrap();
        assert!(
            low.headline.starts_with("Plateau at 33\u{a0}%"),
            "{}",
            low.headline
        );
        assert!(low.detail.contains("every NIC") && low.detail.contains("GPUDirect RDMA"));
        // On TCP, the advice is the socket transport's.
        let tcp = Scenario::parse("gpus=16&per_node=8&gpu=a100&inter=tcp100&nics=1").unwrap();
        let e = explain(&slowed(&tcp, 2.0), &tcp).unwrap();
        let low = e
            .findings
            .iter()
            .find(|f| f.cause == Cause::PlateauLow)
            .unwrap();
        assert!(low.detail.contains("NCCL_SOCKET_IFNAME"), "{}", low.detail);
        // Inside one NVLink node, the advice is NVLink's.
        let (a100, _) = sample(1);
        let h100 = Scenario::parse("gpus=8&per_node=8&gpu=h100&intra=nvlink4").unwrap();
        let e = explain(&a100, &h100).unwrap();
        let low = e
            .findings
            .iter()
            .find(|f| f.cause == Cause::PlateauLow)
            .unwrap();
        assert!(low.detail.contains("nvlink --status"), "{}", low.detail);
    }

    #[test]
    fn pcie_gpus_are_told_about_host_bandwidth() {
        let sc = Scenario::parse("gpus=8&per_node=8&gpu=rtx4090&intra=pcie4").unwrap();
        let e = explain(&slowed(&sc, 3.0), &sc).unwrap();
        let c = causes(&e);
        assert!(
            c.contains(&Cause::PlateauLow) && c.contains(&Cause::HostBandwidth),
            "{c:?}"
        );
        // A run as fast as the model names no cause.
        let fine = explain(&slowed(&sc, 1.0), &sc).unwrap();
        assert!(
            fine.findings.iter().all(|f| !f.cause.is_gap()),
            "{:?}",
            causes(&fine)
        );
    }

    #[test]
    fn a_calibrated_explorer_adds_the_calibrated_line_which_meets_the_plateau() {
        let (run, sc) = sample(1);
        let e = explain(&run, &sc).unwrap();
        let mut calibrated = sc.clone();
        for (k, v) in e.calibration_keys() {
            calibrated.set(k, &v).unwrap();
        }
        assert!(calibrated.calib.is_set());
        let again = explain(&run, &calibrated).unwrap();
        assert!(again
            .legend(true)
            .iter()
            .any(|l| l.label == "model, calibrated"));
        assert!(!e
            .legend(false)
            .iter()
            .any(|l| l.label == "model, calibrated"));
        // The "model" line stays the fabric as specified; the calibrated one follows the run.
        assert_eq!(again.points[0].model_us, e.points[0].model_us);
        let last = again.points.last().unwrap();
        let cal = last.calibrated_busbw.unwrap();
        assert!((cal - last.measured_busbw).abs() / last.measured_busbw < 0.05);
        assert_eq!(again.table().header.len(), 7);
        assert_eq!(e.table().header.len(), 5);
        assert_eq!(e.table().rows.len(), e.points.len());
    }

    #[test]
    fn nothing_to_explain_is_a_message_not_a_crash() {
        let sc = Scenario::default();
        for text in [
            "",
            "hello",
            "# nThread 1 nGpus 8\n",
            "1024 256 float sum -1 N/A N/A N/A 0",
        ] {
            let run = parse(text);
            let e = explain(&run, &sc);
            assert!(e.is_err(), "{text:?}");
        }
        let one = parse("1048576 262144 float sum -1 50.0 20.97 20.97 0");
        assert!(explain(&one, &sc).unwrap_err().contains("One message size"));
        let a2a = parse("# alltoall_perf\n1048576 262144 float none -1 50.0 20.97 20.97 0\n2097152 524288 float none -1 90.0 23.3 23.3 0");
        assert!(explain(&a2a, &sc).unwrap_err().contains("alltoall"));
        let bad = parse(
            "1048576 262144 float sum -1 50.0 20.97 20.97 0\n2097152 524288 float sum -1 N/A\n",
        );
        let msg = problems_message(&bad).unwrap();
        assert!(msg.contains("line 2"), "{msg}");
    }

    #[test]
    fn the_chart_draws_both_panels_regions_and_legend() {
        let (run, sc) = sample(0);
        let e = explain(&run, &sc).unwrap();
        // 800 × 600 device pixels: a laptop's chart at scale 1, a phone's at scale 2.
        for (dark, scale) in [(false, 1.0), (true, 1.0), (false, 2.0)] {
            let st = Style {
                scale,
                dark,
                projector: false,
            };
            let log = record(|root| draw_measured(root, &e, &st));
            let named = |t: &str| log.texts.iter().any(|x| x == t);
            // Each region is named where its name fits beside the split, else left out (the
            // bandwidth-bound sizes of this run are 9 of the axis's 31 doublings).
            assert!(named("latency-bound"));
            assert_eq!(named("bandwidth-bound"), scale == 1.0);
            for t in ["bus bandwidth, GB/s", "time, µs", "message size"] {
                assert!(log.texts.iter().any(|x| x == t), "{t} missing");
            }
            let legend: Vec<&str> = e.legend(dark).iter().map(|l| l.label).collect();
            assert_eq!(
                legend,
                [
                    "measured",
                    "model, fabric as set",
                    "latency-bound sizes",
                    "bandwidth-bound sizes"
                ]
            );
            assert!(
                log.texts.iter().any(|x| x.ends_with("MiB")),
                "{:?}",
                log.texts
            );
            assert!(log.circles >= 2 * e.points.len());
        }
        assert_eq!(size_label(&20.0), "1 MiB");
        assert_eq!(size_label(&20.5), "");
    }
}
