//! One training step: compute, communication, data, serial work, pipeline bubble, memory.
//!
//! Placement follows Megatron-LM (Narayanan et al. 2021 §3): tensor-parallel ranks are adjacent
//! (inside a node), then pipeline stages, then data-parallel replicas.

use super::collective::{self, Algo, Cluster, Op};
use super::scenario::{Scaling, Scenario};
use super::workload::Recompute;
use super::ModelError;

/// PyTorch DDP's default gradient bucket, 25 MiB (Li et al., "PyTorch Distributed", VLDB 2020):
/// the last bucket's all-reduce cannot overlap with any backward work.
const BUCKET_BYTES: f64 = 25.0 * 1024.0 * 1024.0;

/// Per-step host work that no GPU count shrinks: Python loop, optimizer kernel launches, loss
/// scaling checks, host synchronisation. **Assumption**: 2 ms on a PyTorch training loop.
const STEP_OVERHEAD_S: f64 = 2e-3;

/// Fraction of GPU memory usable by tensors: the CUDA context, NCCL buffers and allocator
/// fragmentation take the rest. **Assumption**: 90 %.
const USABLE_MEMORY: f64 = 0.90;

/// Mixed-precision Adam keeps 16 bytes per parameter: 2 (16-bit weights), 2 (16-bit grads) and
/// 12 (fp32 master weights, momentum, variance) — Rajbhandari et al. 2020 (ZeRO) §3.1. Pure
/// fp32 training: 4 + 4 + 8 = 16 as well.
const WEIGHT_BYTES_16: f64 = 2.0;
const OPTIMIZER_BYTES_MIXED: f64 = 12.0;

/// Bytes the optimizer step reads and writes per parameter it updates (Adam: read weight,
/// grad, m, v; write weight, m, v, 16-bit copy ≈ 30 bytes), at HBM speed.
const OPTIMIZER_TRAFFIC_BYTES: f64 = 30.0;

/// Where the time of one step goes, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Breakdown {
    /// GPU math (forward, backward, recomputation).
    pub compute: f64,
    /// Communication not hidden behind compute.
    pub comm_exposed: f64,
    /// Waiting for the input pipeline.
    pub data_wait: f64,
    /// Serial work: optimizer step and per-step host overhead.
    pub serial: f64,
    /// Pipeline bubble.
    pub bubble: f64,
}

impl Breakdown {
    /// The step time.
    pub fn total(&self) -> f64 {
        self.compute + self.comm_exposed + self.data_wait + self.serial + self.bubble
    }
}

/// Communication parts, seconds (total, before overlap).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CommParts {
    /// Tensor-parallel all-reduces.
    pub tp: f64,
    /// Pipeline point-to-point sends.
    pub pp: f64,
    /// Data-parallel gradient synchronisation (all-reduce or ZeRO collectives).
    pub dp: f64,
    /// Whether the data-parallel collectives cross nodes.
    pub dp_crosses_nodes: bool,
}

/// Memory per GPU, bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Memory {
    pub weights: f64,
    pub gradients: f64,
    pub optimizer: f64,
    pub activations: f64,
    /// Usable capacity.
    pub capacity: f64,
}

impl Memory {
    /// Total bytes.
    pub fn total(&self) -> f64 {
        self.weights + self.gradients + self.optimizer + self.activations
    }

    /// Does it fit?
    pub fn fits(&self) -> bool {
        self.total() <= self.capacity
    }
}

/// The model's answer for one scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct StepResult {
    pub breakdown: Breakdown,
    pub comm: CommParts,
    pub memory: Memory,
    /// Samples per second, whole cluster.
    pub throughput: f64,
    /// Tokens per second, whole cluster (transformers).
    pub tokens_per_s: Option<f64>,
    /// Achieved TFLOP/s per GPU counting recomputation.
    pub tflops_per_gpu: f64,
    /// Model FLOPs utilisation (no recomputation) against dense peak, 0…1.
    pub mfu: f64,
    /// Speedup against one GPU (weak or strong baseline).
    pub speedup: f64,
    /// speedup / GPUs.
    pub efficiency: f64,
    /// Micro-batches per step per pipeline.
    pub micro_batches: u64,
    /// Time one micro-batch's forward+backward takes on one stage, seconds.
    pub micro_batch_time: f64,
}

/// The model of one step, without the speedup (which needs a second evaluation).
fn step_core(sc: &Scenario, c: &Cluster) -> Result<StepResult, ModelError> {
    sc.validate()?;
    let w = sc.workload();
    let p = sc.precision();
    let gpu = c.gpu;
    let (tp, pp, dp) = (sc.tp, sc.pp, sc.dp());
    let micro = sc.micro();
    let batch = sc.batch();
    let m = batch / (u64::from(micro) * u64::from(dp));
    let mf = m as f64;
    let peak = gpu
        .peak_flops(p)
        .ok_or_else(|| ModelError::new("precision", "not supported by this GPU"))?;
    let recompute = sc.recompute();
    let hw_flops = w.hardware_flops_per_sample(recompute);
    let model_flops = w.model_flops_per_sample();
    let per_gpu_share = f64::from(tp * pp);
    let t_mb = sample_time(sc, tp, pp) * f64::from(micro);
    let compute = t_mb * mf;
    let bubble = t_mb * f64::from(pp - 1);

    // Tensor parallel: 4 all-reduces per layer per micro-batch (2 forward, 2 backward), 6 with
    // full recomputation (Narayanan et al. 2021 §3.2), never overlapped in this model.
    let layers_per_stage = f64::from(w.layers()) / f64::from(pp);
    let mut comm = CommParts::default();
    if tp > 1 {
        if let Some(bytes) = w.boundary_bytes(micro, p) {
            let tp_cluster = Cluster {
                gpus: tp,
                per_node: tp,
                ..*c
            };
            let ar = collective::cost(&tp_cluster, Op::AllReduce, Algo::Auto, bytes)?;
            let per_layer = if recompute == Recompute::Full {
                6.0
            } else {
                4.0
            };
            comm.tp = ar.time_s * per_layer * layers_per_stage * mf;
        }
    }
    // Pipeline: each micro-batch sends its activations forward and its gradients back across each
    // stage boundary, split over the tp ranks (Megatron's scatter/gather optimisation).
    let gpus_per_stage = tp;
    if pp > 1 {
        let bytes = w
            .boundary_bytes(micro, p)
            .unwrap_or(w.activation_bytes_per_sample(Recompute::Full, 1, 1.0 / 50.0))
            / f64::from(tp);
        let same_node = gpus_per_stage * 2 <= c.per_node;
        comm.pp = 2.0 * mf * collective::p2p_time(c, bytes, same_node);
    }
    // Data parallel: gradient bytes each GPU holds, synchronised over dp replicas that sit
    // tp·pp ranks apart. Replicas in one node share the node's NICs with the other groups.
    let grad_bytes = w.params / per_gpu_share * p.grad_bytes();
    let mp = tp * pp;
    let dp_per_node = (c.per_node / mp).max(1).min(dp);
    let groups_per_node = f64::from(c.per_node.min(c.gpus)) / f64::from(dp_per_node);
    if dp > 1 {
        let dp_cluster = Cluster {
            gpus: dp,
            per_node: dp_per_node,
            net_scale: c.net_scale / groups_per_node.max(1.0),
            ..*c
        };
        comm.dp_crosses_nodes = dp_cluster.nodes() > 1;
        let algo = sc.algo;
        let cost = |op: Op, bytes: f64| -> Result<f64, ModelError> {
            Ok(collective::cost(&dp_cluster, op, algo, bytes)?.time_s)
        };
        // ZeRO (Rajbhandari et al. 2020 §7): stages 1–2 reduce-scatter gradients and all-gather
        // updated weights (the volume of one all-reduce); stage 3 also all-gathers weights for
        // the forward and again for the backward pass (1.5×).
        let weight_bytes = w.params / per_gpu_share * p.grad_bytes();
        comm.dp = match sc.zero {
            0 => cost(Op::AllReduce, grad_bytes)?,
            1 | 2 => cost(Op::ReduceScatter, grad_bytes)? + cost(Op::AllGather, weight_bytes)?,
            _ => cost(Op::ReduceScatter, grad_bytes)? + 2.0 * cost(Op::AllGather, weight_bytes)?,
        };
    }
    // Overlap: gradient buckets are reduced while the last micro-batch's backward pass (⅔ of its
    // compute) still runs; ZeRO-3 prefetches weights during the forward pass too. The last
    // bucket is always exposed.
    let dp_exposed = if !sc.overlap || dp <= 1 {
        comm.dp
    } else {
        let window = if sc.zero >= 3 { t_mb } else { t_mb * 2.0 / 3.0 };
        let last_bucket = comm.dp * (BUCKET_BYTES / grad_bytes).min(1.0);
        (comm.dp - window).max(0.0).max(last_bucket)
    };
    let comm_exposed = comm.tp + comm.pp + dp_exposed;

    // Serial: the optimizer step over the parameters this GPU updates (sharded by ZeRO ≥ 1),
    // memory-bound, plus the per-step host overhead.
    let opt_params = w.params / per_gpu_share / if sc.zero >= 1 { f64::from(dp) } else { 1.0 };
    let serial = opt_params * OPTIMIZER_TRAFFIC_BYTES / (gpu.mem_bw_gbs * 1e9) + STEP_OVERHEAD_S;

    // Data: the node's loader must deliver its replicas' samples within the step; loading
    // overlaps the step, so only the excess waits.
    let replicas_per_node = f64::from(c.per_node.min(c.gpus)) / f64::from(mp).max(1.0);
    let samples_per_node = mf * f64::from(micro) * replicas_per_node.max(1.0 / f64::from(mp));
    let load = samples_per_node / sc.data_rate();
    let busy = compute + comm_exposed + serial + bubble;
    let data_wait = (load - busy).max(0.0);

    let breakdown = Breakdown {
        compute,
        comm_exposed,
        data_wait,
        serial,
        bubble,
    };
    let step = breakdown.total();
    let n = f64::from(c.gpus);
    let throughput = batch as f64 / step;
    let memory = memory(sc, c);
    Ok(StepResult {
        breakdown,
        comm,
        memory,
        throughput,
        tokens_per_s: w.tokens_per_sample().map(|t| t * throughput),
        tflops_per_gpu: hw_flops * throughput / n / 1e12,
        mfu: model_flops * throughput / n / peak,
        speedup: 1.0,
        efficiency: 1.0,
        micro_batches: m,
        micro_batch_time: t_mb,
    })
}

/// Achievable fraction of HBM bandwidth for streaming kernels. **Assumption** 0.8 (STREAM-like
/// copies reach 80–90 % of the datasheet figure on A100/H100).
const HBM_EFFICIENCY: f64 = 0.8;

/// Compute time of one sample on one GPU holding 1/(tp·pp) of the model: its GEMM FLOPs at the
/// achievable matmul rate plus its memory-bound activation traffic at HBM speed.
pub fn sample_time(sc: &Scenario, tp: u32, pp: u32) -> f64 {
    let w = sc.workload();
    let gpu = sc.gpu;
    let peak = gpu.peak_flops(sc.precision()).unwrap_or(1.0);
    let rate = peak * gpu.matmul_efficiency * w.kernel_efficiency;
    let r = sc.recompute();
    let share = f64::from(tp * pp);
    let act_scale = if sc.precision().grad_bytes() == 4.0 {
        2.0
    } else {
        1.0
    };
    let traffic = w.traffic_bytes_per_sample(r, tp, 1.0 / f64::from(pp)) * act_scale;
    w.hardware_flops_per_sample(r) / share / rate
        + traffic / (gpu.mem_bw_gbs * 1e9 * HBM_EFFICIENCY)
}

/// Memory per GPU for a scenario.
pub fn memory(sc: &Scenario, c: &Cluster) -> Memory {
    let w = sc.workload();
    let p = sc.precision();
    let shard = f64::from(sc.tp * sc.pp);
    let dp = f64::from(sc.dp());
    let params = w.params / shard;
    let wbytes = if p.grad_bytes() == 4.0 {
        4.0
    } else {
        WEIGHT_BYTES_16
    };
    let obytes = if p.grad_bytes() == 4.0 {
        8.0
    } else {
        OPTIMIZER_BYTES_MIXED
    };
    let z = sc.zero;
    let weights = params * wbytes / if z >= 3 { dp } else { 1.0 };
    let gradients = params * p.grad_bytes() / if z >= 2 { dp } else { 1.0 };
    let optimizer = params * obytes / if z >= 1 { dp } else { 1.0 };
    // 1F1B keeps up to pp micro-batches of activations alive on the first stage.
    let in_flight = f64::from(sc.pp).min(sc.batch() as f64 / (f64::from(sc.micro()) * dp));
    let act_bytes = w.activation_bytes_per_sample(sc.recompute(), sc.tp, 1.0 / f64::from(sc.pp));
    let act_scale = if p.grad_bytes() == 4.0 { 2.0 } else { 1.0 };
    let activations = act_bytes * act_scale * f64::from(sc.micro()) * in_flight.max(1.0);
    Memory {
        weights,
        gradients,
        optimizer,
        activations,
        capacity: c.gpu.mem_bytes() * USABLE_MEMORY,
    }
}

/// Evaluates a scenario with its own speedup and efficiency.
pub fn evaluate(sc: &Scenario) -> Result<StepResult, ModelError> {
    evaluate_on(sc, &sc.cluster())
}

/// Evaluates a scenario on a (possibly modified) cluster.
pub fn evaluate_on(sc: &Scenario, c: &Cluster) -> Result<StepResult, ModelError> {
    let mut r = step_core(sc, c)?;
    let t1 = single_gpu_time(sc, &r)?;
    let n = f64::from(sc.gpus);
    r.speedup = match sc.scaling {
        // Same per-replica work on one GPU: compare throughputs.
        Scaling::Weak => {
            let samples = (r.micro_batches * u64::from(sc.micro())) as f64;
            r.throughput / (samples / t1)
        }
        // The whole global batch on one GPU, accumulated.
        Scaling::Strong => t1 / r.breakdown.total(),
    };
    r.efficiency = r.speedup / n;
    Ok(r)
}

/// Time one GPU needs for the baseline batch, with no communication, bubble or data wait.
/// Weak scaling: the same samples as one replica, with this configuration's own serial work
/// (so sharding the optimizer with ZeRO is not counted as a super-linear gain). Strong scaling:
/// the whole global batch and the whole optimizer step on one GPU.
fn single_gpu_time(sc: &Scenario, r: &StepResult) -> Result<f64, ModelError> {
    let w = sc.workload();
    let (samples, serial) = match sc.scaling {
        Scaling::Weak => (
            (r.micro_batches * u64::from(sc.micro())) as f64,
            r.breakdown.serial,
        ),
        Scaling::Strong => (
            sc.batch() as f64,
            w.params * OPTIMIZER_TRAFFIC_BYTES / (sc.gpu.mem_bw_gbs * 1e9) + STEP_OVERHEAD_S,
        ),
    };
    let compute = sample_time(sc, 1, 1) * samples;
    let load = samples / sc.data_rate();
    Ok((compute + serial).max(load))
}

/// The one change that would help most, and the bottleneck in words.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// Short id of the dominant wait: `compute`, `network`, `nvlink`, `tensor-parallel`,
    /// `pipeline`, `data`, `serial`, `memory`.
    pub bottleneck: &'static str,
    /// Plain-language sentence.
    pub text: String,
    /// The advice, quantified.
    pub advice: String,
}

/// Says where the step waits and which single change helps most, by re-running the model.
pub fn verdict(sc: &Scenario, r: &StepResult) -> Verdict {
    let b = &r.breakdown;
    let step = b.total();
    let pct = |x: f64| (100.0 * x / step).round();
    if !r.memory.fits() {
        let gib = |x: f64| x / 1073741824.0;
        return Verdict {
            bottleneck: "memory",
            text: format!(
                "The model does not fit: {:.0} GiB per GPU needed, {:.0} GiB usable.",
                gib(r.memory.total()),
                gib(r.memory.capacity)
            ),
            advice: fit_fix(sc).map(|f| f.to_string()).unwrap_or_else(|| {
                "Nothing up to 65,536 GPUs fits; use GPUs with more memory.".to_string()
            }),
        };
    }
    let waits = [
        ("comm", b.comm_exposed),
        ("data", b.data_wait),
        ("serial", b.serial),
        ("bubble", b.bubble),
    ];
    let (kind, amount) = waits
        .into_iter()
        .fold(("compute", 0.0), |a, w| if w.1 > a.1 { w } else { a });
    let c = sc.cluster();
    let faster = |sc2: &Scenario, c2: &Cluster| -> f64 {
        evaluate_on(sc2, c2)
            .map(|r2| step / r2.breakdown.total())
            .unwrap_or(1.0)
    };
    if amount < 0.1 * step {
        return Verdict {
            bottleneck: "compute",
            text: format!(
                "The GPUs compute {:.0} % of the step: this scales well.",
                pct(b.compute)
            ),
            advice:
                "Faster GPUs or lower precision would help most; the network is not the limit here."
                    .to_string(),
        };
    }
    match kind {
        "comm" => {
            let parts = r.comm;
            if parts.tp >= parts.pp && parts.tp >= b.comm_exposed - parts.tp - parts.pp {
                let c2 = Cluster {
                    intra_scale: 2.0,
                    ..c
                };
                Verdict {
                    bottleneck: "tensor-parallel",
                    text: format!(
                        "{:.0} % of the step waits on tensor-parallel all-reduces inside the node.",
                        pct(b.comm_exposed)
                    ),
                    advice: format!(
                        "2× intra-node bandwidth → {:.2}× faster; or a smaller tp.",
                        faster(sc, &c2)
                    ),
                }
            } else if r.comm.dp_crosses_nodes {
                let c2 = Cluster {
                    net_scale: 2.0,
                    ..c
                };
                Verdict {
                    bottleneck: "network",
                    text: format!(
                        "{:.0} % of the step waits on the inter-node gradient all-reduce.",
                        pct(b.comm_exposed)
                    ),
                    advice: format!("2× NIC bandwidth → {:.2}× faster.", faster(sc, &c2)),
                }
            } else {
                let c2 = Cluster {
                    intra_scale: 2.0,
                    ..c
                };
                Verdict {
                    bottleneck: "nvlink",
                    text: format!(
                        "{:.0} % of the step waits on the gradient all-reduce inside the node.",
                        pct(b.comm_exposed)
                    ),
                    advice: format!(
                        "2× intra-node bandwidth → {:.2}× faster.",
                        faster(sc, &c2)
                    ),
                }
            }
        }
        "data" => {
            let sc2 = Scenario {
                data_rate: Some(sc.data_rate() * 2.0),
                ..sc.clone()
            };
            Verdict {
                bottleneck: "data",
                text: format!(
                    "The GPUs starve: {:.0} % of the step waits for input data.",
                    pct(b.data_wait)
                ),
                advice: format!(
                    "2× faster input pipeline (more loader workers, GPU decoding) → {:.2}× faster.",
                    faster(&sc2, &c)
                ),
            }
        }
        "bubble" => {
            let sc2 = Scenario {
                batch: Some(sc.batch() * 2),
                ..sc.clone()
            };
            Verdict {
                bottleneck: "pipeline",
                text: format!(
                    "{:.0} % of the step is pipeline bubble: stages wait for each other.",
                    pct(b.bubble)
                ),
                advice: format!(
                    "2× more micro-batches per step → {:.2}× more throughput.",
                    evaluate(&sc2)
                        .map(|r2| r2.throughput / r.throughput)
                        .unwrap_or(1.0)
                ),
            }
        }
        _ => Verdict {
            bottleneck: "serial",
            text: format!(
                "{:.0} % of the step is serial work (optimizer step, host overhead) that more GPUs do not shrink.",
                pct(b.serial)
            ),
            advice: "A larger batch per step spreads the serial part (Amdahl's law).".to_string(),
        },
    }
}

/// A change that makes a scenario fit in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct FitFix {
    /// The scenario with the change applied.
    pub scenario: Scenario,
    /// The keys changed and their new values, in scenario syntax.
    pub changes: Vec<(&'static str, String)>,
}

impl std::fmt::Display for FitFix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .changes
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        write!(f, "{} fits.", parts.join(" and "))
    }
}

/// The least disruptive change that makes the scenario fit: sharding more (ZeRO), recomputing
/// activations, splitting the model (tp inside a node, then pp), and finally more GPUs with
/// everything sharded. `None` when nothing up to 65,536 GPUs fits.
pub fn fit_fix(sc: &Scenario) -> Option<FitFix> {
    let fits = |s: &Scenario| s.validate().is_ok() && memory(s, &s.cluster()).fits();
    let full = Some(Recompute::Full);
    let mut tries: Vec<(Scenario, Vec<(&'static str, String)>)> = Vec::new();
    for z in sc.zero + 1..=3 {
        tries.push((
            Scenario {
                zero: z,
                ..sc.clone()
            },
            vec![("zero", z.to_string())],
        ));
    }
    if sc.recompute() != Recompute::Full {
        tries.push((
            Scenario {
                recompute: full,
                ..sc.clone()
            },
            vec![("recompute", "full".into())],
        ));
        tries.push((
            Scenario {
                zero: 3,
                recompute: full,
                ..sc.clone()
            },
            vec![("zero", "3".into()), ("recompute", "full".into())],
        ));
    }
    let mut tp = sc.tp * 2;
    while tp <= sc.per_node() {
        tries.push((
            Scenario {
                tp,
                batch: None,
                recompute: full,
                ..sc.clone()
            },
            vec![("tp", tp.to_string()), ("recompute", "full".into())],
        ));
        tp *= 2;
    }
    let mut pp = sc.pp * 2;
    while pp <= sc.workload().layers() && pp * sc.tp <= sc.gpus {
        tries.push((
            Scenario {
                pp,
                batch: None,
                recompute: full,
                ..sc.clone()
            },
            vec![("pp", pp.to_string()), ("recompute", "full".into())],
        ));
        pp *= 2;
    }
    if let Some((s, changes)) = tries.into_iter().find(|(s, _)| fits(s)) {
        return Some(FitFix {
            scenario: s,
            changes,
        });
    }
    // More GPUs help only when something is sharded across replicas.
    let mut gpus = sc.gpus * 2;
    while gpus <= super::scenario::MAX_GPUS {
        let s = Scenario {
            gpus,
            zero: 3,
            recompute: full,
            batch: None,
            ..sc.clone()
        };
        if fits(&s) {
            return Some(FitFix {
                scenario: s,
                changes: vec![
                    ("gpus", gpus.to_string()),
                    ("zero", "3".into()),
                    ("recompute", "full".into()),
                ],
            });
        }
        gpus *= 2;
    }
    None
}
