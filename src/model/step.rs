//! One training step: compute, communication, data, serial work, pipeline bubble, memory.
//!
//! Placement follows Megatron-LM (Narayanan et al. 2021 §3): tensor-parallel ranks are adjacent
//! (inside a node), then pipeline stages, then data-parallel replicas. The model reads a resolved
//! [`Setup`]; the "what if" questions of the verdict change a [`Scenario`] and resolve it again.

use super::collective::{self, Algo, Cluster, Link, Op};
use super::goodput;
use super::hardware::{flash_rate_at, Gpu, Precision};
use super::scenario::{Attn, Scaling, Scenario, Setup};
use super::topology::{Placement, Routing, Topology};
use super::units::{days_text, GIB};
use super::workload::{Activations, Recompute, GEMM_FIXED_S};
use super::ModelError;

/// PyTorch DDP's default gradient bucket, 25 MiB (Li et al., "PyTorch Distributed", VLDB 2020,
/// §4.2 `bucket_cap_mb`): gradients are all-reduced bucket by bucket as the backward pass fills
/// them.
const BUCKET_BYTES: f64 = 25.0 * 1024.0 * 1024.0;

/// Parameters per sharded-gradient bucket: Megatron-Core sizes its buckets at
/// max(40M, 1M × data-parallel size) parameters so that each rank's chunk "remain[s]
/// bandwidth-bound rather than latency-bound" (`megatron/core/distributed/
/// distributed_data_parallel.py`, `bucket_size`); a 25 MiB bucket cut into a thousand ranks'
/// shards would be latency-bound.
fn shard_bucket_params(dp: u32) -> f64 {
    40e6_f64.max(1e6 * f64::from(dp))
}

/// Per-step host work that no GPU count shrinks: Python loop, optimizer kernel launches, loss
/// scaling checks, host synchronisation. **Assumption**: 2 ms on a PyTorch training loop.
const STEP_OVERHEAD_S: f64 = 2e-3;

/// Fraction of the driver's total GPU memory (nvidia-smi's figure,
/// [`crate::model::hardware::Gpu::mem_bytes`]) usable by tensors: the CUDA context, NCCL
/// buffers and allocator fragmentation take the rest. **Assumption**: 90 %. (What CUDA itself
/// reports is a little less than nvidia-smi's total, e.g. 79.1 against 79.6 GiB on an H100 in
/// PyTorch's out-of-memory messages; that is inside the 10 % left.)
const USABLE_MEMORY: f64 = 0.90;

/// Mixed-precision Adam keeps 16 bytes per parameter: 2 (16-bit weights), 2 (16-bit grads) and
/// 12 (fp32 master weights, momentum, variance) — Rajbhandari et al. 2020 (ZeRO) §3.1. Pure
/// fp32 training: 4 + 4 + 8 = 16 as well.
const WEIGHT_BYTES_16: f64 = 2.0;
const OPTIMIZER_BYTES_MIXED: f64 = 12.0;

/// Bytes the optimizer step reads and writes per parameter it updates (Adam: read weight,
/// grad, m, v; write weight, m, v, 16-bit copy ≈ 30 bytes), at HBM speed.
const OPTIMIZER_TRAFFIC_BYTES: f64 = 30.0;

/// The serial part of a step on `gpu`: the optimizer step over the `params` it updates,
/// streaming through memory ([`Gpu::stream_bw`]), and the per-step host overhead, seconds.
fn serial_time(params: f64, gpu: &Gpu) -> f64 {
    params * OPTIMIZER_TRAFFIC_BYTES / gpu.stream_bw() + STEP_OVERHEAD_S
}

/// Compute slows while an NCCL kernel runs beside it: the collective occupies SMs (one per
/// channel) and HBM bandwidth. Lee et al., "Characterizing Compute-Communication Overlap in
/// GPU-Accelerated Distributed Deep Learning: Performance and Power Implications" (arXiv
/// 2507.03114, 2025, abstract), measure distributed training on current GPUs: compute that
/// overlaps communication runs 18.9 % slower on average than alone (40.0 % at most); the mean is
/// taken, as the time a GEMM loses while a collective runs beside it. (Single kernels
/// can lose more: a GEMM beside an all-gather on an A100 took 2.08 against 1.18 ms in
/// NVIDIA/nccl#1428, where NCCL's maintainer puts it down to memory bandwidth.)
const OVERLAP_SLOWDOWN: f64 = 0.189;

/// Share of a transformer layer's weights in Megatron's column-parallel GEMMs (QKV and the MLP's
/// first), whose backward collectives run beside a GEMM (`tp_async`): 7/12 for GPT-3's shape,
/// 0.65 for Llama's (GQA, SwiGLU); the lower is taken.
const COLUMN_PARALLEL_SHARE: f64 = 7.0 / 12.0;

/// Share of a micro-batch's compute that is the backward pass (2 of the 6·P·s FLOPs per token are
/// forward, 4 backward: Kaplan et al. 2020 §2.1).
const BACKWARD_SHARE: f64 = 2.0 / 3.0;

/// Where the time of one step goes, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Breakdown {
    /// GPU math (forward, backward, recomputation), including its slowdown while collectives
    /// overlap it.
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
    /// Tensor-parallel all-reduces (or reduce-scatter + all-gather with sequence parallelism).
    pub tp: f64,
    /// Pipeline point-to-point sends.
    pub pp: f64,
    /// Data-parallel gradient synchronisation (all-reduce or ZeRO collectives).
    pub dp: f64,
    /// Whether the data-parallel collectives cross nodes.
    pub dp_crosses_nodes: bool,
    /// Whether the pipeline's sends cross nodes.
    pub pp_crosses_nodes: bool,
    /// The tensor-parallel part left exposed (all of it unless it overlaps the GEMMs).
    pub tp_exposed: f64,
    /// The data-parallel sync's main collective, one unit of it, for asking which link bounds
    /// it (costed only when asked).
    pub dp_sync: Option<DpSync>,
}

/// The data-parallel sync's main collective: the all-reduce, or ZeRO's reduce-scatter, of one
/// bucket (or layer) of the gradients one GPU holds, on the replicas' cluster.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DpSync {
    /// The replicas' cluster (their NIC share).
    pub cluster: Cluster,
    /// All-reduce, or reduce-scatter under ZeRO.
    pub op: Op,
    /// The algorithm the scenario states (`auto` for ZeRO's reduce-scatter).
    pub algo: Algo,
    /// Gradient bytes of one unit the sync is cut into (a bucket, or a layer's).
    pub bytes: f64,
}

impl DpSync {
    /// The link that bounds the sync (`None` if it cannot be costed).
    pub fn bound(&self) -> Option<Link> {
        collective::cost(&self.cluster, self.op, self.algo, self.bytes)
            .ok()
            .map(|r| r.bottleneck)
    }
}

/// Memory per GPU, bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Memory {
    /// Model weights this GPU holds.
    pub weights: f64,
    /// Gradients this GPU holds.
    pub gradients: f64,
    /// Optimizer state this GPU holds.
    pub optimizer: f64,
    /// Activations kept for the backward pass.
    pub activations: f64,
    /// Working buffers alive at the peak and freed within the step: the loss's FP32 buffers on
    /// the last stage (or, if larger, a recomputed layer), and ZeRO-3's gathered units.
    pub buffers: f64,
    /// Usable capacity.
    pub capacity: f64,
}

impl Memory {
    /// Total bytes.
    pub fn total(&self) -> f64 {
        self.weights + self.gradients + self.optimizer + self.activations + self.buffers
    }

    /// Does it fit?
    pub fn fits(&self) -> bool {
        self.total() <= self.capacity
    }
}

/// The model's answer for one scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct StepResult {
    /// Where the step's time goes.
    pub breakdown: Breakdown,
    /// Communication before overlap.
    pub comm: CommParts,
    /// Memory per GPU.
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

/// How the setup keeps its activations.
fn activations(s: &Setup) -> Activations {
    Activations {
        recompute: s.tech.recompute,
        eager: s.attn == Attn::Eager,
        tp: s.tp,
        sp: s.sp,
    }
}

/// Exposed time of communication that becomes ready piece by piece during a compute window.
/// `units` equal pieces of `total` seconds become ready evenly over `window` seconds (the last at
/// its end) and queue on the link in order: the last piece always waits after the window, and
/// when the link is slower than the compute the queue grows, so the exposed time is
/// max(one piece, total − (units−1)/units · window).
pub fn exposed_after(total: f64, window: f64, units: f64) -> f64 {
    if total <= 0.0 {
        return 0.0;
    }
    let k = units.max(1.0);
    (total / k).max(total - (k - 1.0) / k * window)
}

/// [`exposed_after`] for communication cut by model chunk: `chunks` equal shares of `total`,
/// each in `units / chunks` pieces that become ready evenly over `window` (the chunk's own pass
/// over one micro-batch), one chunk's window ending every `gap` seconds, and all of them queueing
/// on the link in order. The exposed time is the worst, over the pieces, of the link time queued
/// up to a piece less the compute left after it, found at the first or the last chunk: the last
/// chunk's own share as [`exposed_after`] gives it, plus, for the last, the other v − 1 shares
/// less the v − 1 gaps. With one chunk it is [`exposed_after`].
///
/// Mirrored in time it serves a gather too: a chunk's weights are needed as its window starts,
/// and the link gathers them in the same order from the start of the step.
pub fn exposed_over_chunks(total: f64, window: f64, units: f64, chunks: f64, gap: f64) -> f64 {
    let v = chunks.max(1.0);
    let one = exposed_after(total / v, window, units / v);
    one.max(one + (v - 1.0) * (total / v - gap))
}

/// The model of one step, without the speedup (which needs a second evaluation), timed on `s`
/// with `memory` as its peak (a padded setup is timed at its mean length and peaks at its full
/// length: [`Setup::padded`]).
fn step_core(s: &Setup, c: &Cluster, memory: Memory) -> Result<StepResult, ModelError> {
    let w = &s.workload;
    let p = s.precision;
    let gpu = c.gpu;
    let (tp, pp, dp) = (s.tp, s.pp, s.dp);
    let micro = s.micro;
    let m = s.micro_batches;
    let mf = m as f64;
    let peak = gpu
        .peak_flops(p)
        .ok_or_else(|| ModelError::new("precision", "not supported by this GPU"))?;
    let acts = activations(s);
    let hw_flops = w.hardware_flops_per_sample(&acts);
    let model_flops = w.model_flops_per_sample();
    // The fullest stage sets the pipeline's pace and holds the most weights.
    let imbalance = s.stage_imbalance();
    let per_gpu_share = f64::from(tp * pp) / imbalance;
    let t_mb = micro_batch_time(s, tp, pp) * imbalance;
    let mut compute = t_mb * mf;

    // Tensor parallel: 4 all-reduces per layer per micro-batch (2 forward, 2 backward), 6 with
    // full recomputation (Narayanan et al. 2021 §3.2); with sequence parallelism each becomes a
    // reduce-scatter plus an all-gather of the same bytes (Korthikanti et al. 2022 §4.2.2), and
    // the backward gathers the two column-parallel GEMMs' inputs again for their weight
    // gradients, having kept only its shard (Megatron-LM `tensor_parallel/layers.py`,
    // `LinearWithGradAccumulationAndAsyncCommunication.backward`): two all-gathers more.
    // That backward runs the column-parallel GEMMs' collectives asynchronously (`tp_async`,
    // Megatron-LM since cf7efd4, 2021-08-30; Megatron-Core @d98e8a64 `layers.py` lines
    // 675–708, `async_op=True`): the input gradient's all-reduce (with sp: reduce-scatter)
    // beside the weight-gradient GEMM, and with sp the input's re-gather beside the
    // input-gradient GEMM. Those are 2 of the layer's backward all-reduces, or 2 all-gathers
    // and 2 reduce-scatters with sp; the rest wait.
    let layers_per_stage = f64::from(w.layers().div_ceil(pp));
    let mut comm = CommParts::default();
    let mut tp_beside = 0.0;
    if tp > 1 {
        if let Some(bytes) = w.boundary_bytes(micro, p) {
            let tp_cluster = Cluster {
                gpus: tp,
                per_node: tp,
                ..*c
            };
            let per_layer = if s.tech.recompute == Recompute::Full {
                6.0
            } else {
                4.0
            };
            let time = |op| collective::cost(&tp_cluster, op, Algo::Auto, bytes).map(|r| r.time_s);
            let (layer, beside) = if s.sp {
                let (rs, ag) = (time(Op::ReduceScatter)?, time(Op::AllGather)?);
                (rs * per_layer + ag * (per_layer + 2.0), 2.0 * (rs + ag))
            } else {
                let ar = time(Op::AllReduce)?;
                (ar * per_layer, 2.0 * ar)
            };
            let beside = if s.tech.tp_async { beside } else { 0.0 };
            comm.tp = layer * layers_per_stage * mf;
            tp_beside = beside * layers_per_stage * mf;
        }
    }
    // Pipeline: each micro-batch sends its activations forward and its gradients back across each
    // stage boundary (v times with v chunks per GPU), split over the tp ranks (Megatron's
    // scatter/gather optimisation).
    if pp > 1 {
        let bytes = w
            .boundary_bytes(micro, p)
            .unwrap_or(w.activation_bytes_per_sample(&acts, 1.0 / 50.0))
            / f64::from(tp);
        let same_node = tp * 2 <= c.per_node;
        comm.pp_crosses_nodes = !same_node;
        comm.pp = 2.0 * mf * f64::from(s.vpp) * collective::p2p_time(c, bytes, same_node);
    }
    // Data parallel: gradient bytes each GPU holds, synchronised over dp replicas that sit
    // tp·pp ranks apart. Replicas in one node share the node's NICs with the other groups.
    let grad_bytes = w.params / per_gpu_share * s.grad_bytes();
    let mp = tp * pp;
    let dp_per_node = (c.per_node / mp).max(1).min(dp);
    let groups_per_node = f64::from(c.node_gpus()) / f64::from(dp_per_node);
    let mut dp_exposed = 0.0;
    if dp > 1 {
        let dp_cluster = Cluster {
            gpus: dp,
            per_node: dp_per_node,
            net_scale: c.net_scale / groups_per_node.max(1.0),
            ..*c
        };
        comm.dp_crosses_nodes = dp_cluster.nodes() > 1;
        if s.algo != Algo::Auto && s.zero > 0 {
            // A stated all-reduce algorithm the replicas' cluster cannot run is refused, as
            // at ZeRO-0, though ZeRO's collectives leave it unused.
            collective::cost(&dp_cluster, Op::AllReduce, s.algo, grad_bytes)?;
        }
        // `algo` is the all-reduce's; ZeRO's reduce-scatters and gathers run as the tuner picks
        // (a stated tree, which has no reduce-scatter, used to refuse ZeRO-2).
        let algo_for = |op: Op| {
            if op == Op::AllReduce {
                s.algo
            } else {
                Algo::Auto
            }
        };
        let cost = |op: Op, bytes: f64| -> Result<f64, ModelError> {
            Ok(collective::cost(&dp_cluster, op, algo_for(op), bytes)?.time_s)
        };
        // Units the sync is cut into: DDP's 25 MiB buckets, Megatron-Core's sharded buckets for
        // ZeRO-1 (`shard_bucket_params`; DeepSpeed's default `reduce_bucket_size` of 5·10⁸
        // elements is larger still, and as bandwidth-bound), or one per layer for ZeRO-2/3,
        // which frameworks issue layer by layer.
        let layers = layers_per_stage;
        let units = match s.zero {
            0 => (grad_bytes / BUCKET_BYTES).ceil().max(1.0),
            1 => (w.params / per_gpu_share / shard_bucket_params(dp))
                .ceil()
                .max(1.0),
            _ => layers,
        };
        let op = if s.zero == 0 {
            Op::AllReduce
        } else {
            Op::ReduceScatter
        };
        comm.dp_sync = Some(DpSync {
            cluster: dp_cluster,
            op,
            algo: algo_for(op),
            bytes: grad_bytes / units,
        });
        let weight_bytes = w.params / per_gpu_share * p.grad_bytes();
        let bwd = t_mb * BACKWARD_SHARE;
        // Accumulated gradients are synchronised once, after the last micro-batch's backward
        // has filled them. With one chunk a stage, its buckets go as that backward fills them.
        // With v interleaved chunks each chunk goes on its own, all its buckets at once, when
        // its last backward is done (Megatron-Core `schedules.py`,
        // `forward_backward_pipelining_with_interleaving`, `backward_step_helper`: the chunk's
        // `grad_sync_func` once `is_last_microbatch_for_model_chunk`). The schedule runs the
        // backward in groups of p micro-batches, chunk v−1's p first (`get_model_chunk_id`), so
        // in the last group a chunk finishes every min(m, p) chunk passes and the syncs queue
        // behind the whole group, the first chunk's share always waiting after it.
        let v = f64::from(s.vpp);
        let group = mf.min(f64::from(pp));
        let by_chunk = |total: f64, units: f64, pass: f64| {
            let units = if s.vpp > 1 { v } else { units };
            exposed_over_chunks(total, pass / v, units, v, group * pass / v)
        };
        // ZeRO-1/2 all-gather the updated weights once per step: after the optimizer step,
        // waited for (DeepSpeed), or bucket by bucket while the next step's first forward pass
        // runs, each gather issued before its forward needs it (Megatron-Core's distributed
        // optimizer, `--overlap-param-gather`: "Overlap parameter all-gather with fprop",
        // Megatron Bridge's argument table); interleaved, a chunk's whole gather is issued while
        // the chunk before it runs its first micro-batches (`param_sync_func`, the same
        // schedule), its buckets in backward order, so its first layer waits for all of it: the
        // mirror of the gradients.
        let gather = |units: f64| -> Result<(f64, f64), ModelError> {
            if s.tech.gather_overlap {
                let ag = cost(Op::AllGather, weight_bytes / units)? * units;
                Ok((ag, by_chunk(ag, units, t_mb - bwd)))
            } else {
                let ag = cost(Op::AllGather, weight_bytes)?;
                Ok((ag, ag))
            }
        };
        let (total, exposed) = match s.zero {
            // DDP: one all-reduce per bucket, during the last micro-batch's backward pass
            // (accumulation steps skip the sync: `no_sync`).
            0 => {
                let total = cost(Op::AllReduce, grad_bytes / units)? * units;
                (total, by_chunk(total, units, bwd))
            }
            // ZeRO-1 (DeepSpeed; Megatron-Core's distributed optimizer): gradients
            // reduce-scattered in buckets during the last backward, then the weights gathered
            // in the same buckets.
            1 => {
                let rs = cost(Op::ReduceScatter, grad_bytes / units)? * units;
                let (ag, ag_exposed) = gather(units)?;
                (rs + ag, by_chunk(rs, units, bwd) + ag_exposed)
            }
            // ZeRO-2 (DeepSpeed): gradients are reduce-scattered into their partitions during
            // every micro-batch's backward pass (a partition holds only its shard), then the
            // weights gathered.
            2 => {
                let rs = cost(Op::ReduceScatter, grad_bytes / layers)? * layers;
                let (ag, ag_exposed) = gather(layers)?;
                (
                    rs * mf + ag,
                    exposed_after(rs, bwd, layers) * mf + ag_exposed,
                )
            }
            // ZeRO-3 / FSDP (Zhao et al., "PyTorch FSDP", VLDB 2023 §3.3): every micro-batch
            // all-gathers each layer's weights for its forward and again for its backward, and
            // reduce-scatters the layer's gradients; the next layer's gather is prefetched while
            // this one computes, so the micro-batch's own compute is the window.
            _ => {
                let ag = cost(Op::AllGather, weight_bytes / layers)? * layers;
                let rs = cost(Op::ReduceScatter, grad_bytes / layers)? * layers;
                let per_mb = 2.0 * ag + rs;
                (per_mb * mf, exposed_after(per_mb, t_mb, 3.0 * layers) * mf)
            }
        };
        comm.dp = total;
        dp_exposed = if s.tech.overlap { exposed } else { total };
        // While a collective runs beside compute, the compute slows (OVERLAP_SLOWDOWN).
        if s.tech.overlap {
            compute += (total - exposed).max(0.0) * OVERLAP_SLOWDOWN;
        }
    }
    // Tensor-parallel collectives either wait in line (the default) or, with Transformer Engine's
    // userbuffer overlap, run in pieces beside the GEMMs that produce and consume them (four
    // pieces a layer, one beside each tensor-parallel GEMM, however many collectives each
    // carries), paying the SM contention while they do.
    // Without it, the asynchronous backward collectives (`tp_async`) hide behind the GEMM each
    // runs beside: the column-parallel GEMMs' backward, both of its GEMMs with sp, the
    // weight-gradient half without. Those GEMMs hold 7/12 of a GPT layer's weights (QKV 3·h²
    // and the MLP's first 4·h², of 12·h²; 0.65 for Llama's GQA and SwiGLU: the lower is taken),
    // and a layer's backward GEMMs take 4 of its 6 FLOPs per weight and token.
    let (tp_exposed, tp_hidden) = if s.tech.tp_overlap && comm.tp > 0.0 {
        let pieces = 4.0 * layers_per_stage * mf;
        let exposed = exposed_after(comm.tp, t_mb * mf, pieces);
        (exposed, comm.tp - exposed)
    } else if tp_beside > 0.0 {
        let dense_bwd = t_mb * mf * BACKWARD_SHARE * w.layer_dense_flops_per_sample() / hw_flops;
        let (pieces, gemm_share) = if s.sp { (4.0, 1.0) } else { (2.0, 0.5) };
        let window = dense_bwd * COLUMN_PARALLEL_SHARE * gemm_share;
        let exposed = exposed_after(tp_beside, window, pieces * layers_per_stage * mf);
        (comm.tp - tp_beside + exposed, tp_beside - exposed)
    } else {
        (comm.tp, 0.0)
    };
    let tp_slowdown = tp_hidden * OVERLAP_SLOWDOWN;
    compute += tp_slowdown;
    comm.tp_exposed = tp_exposed;
    let comm_exposed = tp_exposed + comm.pp + dp_exposed;
    // Interleaved 1F1B (Narayanan et al. 2021 §2.2.2): with v model chunks per GPU the bubble
    // shrinks to (p−1)/v micro-batch times. With uneven stages the steady state runs at the
    // fullest stage's pace (m·t_max) and the fill and drain pass once through every stage
    // (p·t_mean): the bubble is p·t_mean − t_max. A stage's micro-batch time is all it does in
    // its slot (§2.2: (m + p − 1)·(t_f + t_b), each pass with its tensor-parallel collectives):
    // the compute, the tensor-parallel wait and the sends to the next stage.
    let slot = t_mb + (tp_slowdown + tp_exposed + comm.pp) / mf;
    let bubble = slot / imbalance * (f64::from(pp) - imbalance) / f64::from(s.vpp);

    // Serial: the optimizer step over the parameters this GPU updates (sharded by ZeRO ≥ 1),
    // memory-bound, plus the per-step host overhead.
    let opt_params = w.params / per_gpu_share / if s.zero >= 1 { f64::from(dp) } else { 1.0 };
    let serial = serial_time(opt_params, gpu);

    // Data: the node's loader must deliver its replicas' samples within the step; loading
    // overlaps the step, so only the excess waits.
    let replicas_per_node = f64::from(c.node_gpus()) / f64::from(mp).max(1.0);
    let samples_per_node = mf * f64::from(micro) * replicas_per_node.max(1.0 / f64::from(mp));
    let load = samples_per_node / s.data_rate;
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
    let throughput = s.batch as f64 / step;
    Ok(StepResult {
        breakdown,
        comm,
        memory,
        throughput,
        tokens_per_s: w.sample_tokens().map(|t| t * throughput),
        tflops_per_gpu: hw_flops * throughput / n / 1e12,
        mfu: model_flops * throughput / n / peak,
        speedup: 1.0,
        efficiency: 1.0,
        micro_batches: m,
        micro_batch_time: t_mb,
    })
}

/// Bytes per token and layer that FP8 training moves to quantize GEMM operands: Transformer
/// Engine casts every Linear input and every output gradient to FP8, with a transposed copy on
/// Hopper ("both `input` and `input^T` quantized versions are created", TE docs
/// `low_precision_training/introduction`); a layer's Linear inputs are ≈ 7·h values (QKV,
/// projection, and the MLP's h and 4·h) and its output gradients ≈ 9·h, each read in 16 bits and
/// written twice in 8: 16·h × 4 bytes.
const FP8_CAST_BYTES_PER_TOKEN_LAYER: f64 = 64.0;

/// Compute time of one sample on one GPU holding 1/(tp·pp) of the model: the dense GEMMs at the
/// achievable matmul rate of the training precision, the attention core at its kernel's rate in
/// 16 bits (FlashAttention-2's measured rate, or as GEMMs when eager), and the memory-bound rest
/// (activations, FP8 casts) at HBM speed.
pub fn sample_time(s: &Setup, tp: u32, pp: u32) -> f64 {
    let w = &s.workload;
    let gpu = s.gpu;
    let p = s.precision;
    let acts = Activations {
        tp,
        ..activations(s)
    };
    let share = f64::from(tp * pp);
    // Convolutions have no FP8 path: they run at the 16-bit rate.
    let gemm_p = if w.tokens_per_sample().is_none() {
        gpu.attention_precision(p)
    } else {
        p
    };
    let kernel = w.kernel_efficiency.at(p);
    let gemm_rate =
        gpu.peak_flops(gemm_p).unwrap_or(1.0) * gpu.matmul_efficiency_at(gemm_p) * kernel;
    let attn_p = gpu.attention_precision(p);
    let attn_peak = gpu.peak_flops(attn_p).unwrap_or(1.0);
    let attn_rate = match (
        acts.eager,
        gpu.flash_attention_efficiency,
        w.tokens_per_sample(),
    ) {
        (false, Some(fa), Some(seq)) => {
            let cudnn = match s.attn {
                Attn::Cudnn => gpu.cudnn_attention_speedup.unwrap_or(1.0),
                _ => 1.0,
            };
            attn_peak * fa * cudnn * flash_rate_at(seq, s.attn == Attn::Flash1)
        }
        _ => attn_peak * gpu.matmul_efficiency * kernel / w.attention_depth_factor(&acts),
    };
    let act_scale = p.activation_scale();
    let layer_share = 1.0 / f64::from(pp);
    // The loss runs on the last stage; like the output layer's FLOPs, it is shared over the
    // stages here (a stage's share of the layers; the fullest stage's is applied by the caller,
    // `Setup::stage_imbalance`).
    let mut traffic = (w.traffic_bytes_per_sample(&acts, 1.0) * act_scale
        + w.loss_traffic_bytes_per_sample(tp))
        * layer_share;
    if let (Precision::Fp8, Some(tokens), Some((_, hidden))) =
        (p, w.tokens_per_sample(), w.layers_and_hidden())
    {
        traffic += FP8_CAST_BYTES_PER_TOKEN_LAYER * hidden / f64::from(tp)
            * tokens
            * f64::from(w.layers())
            * layer_share;
    }
    let depth = w.gemm_depth_factor(
        tp,
        f64::from(s.micro) * w.tokens_per_sample().unwrap_or(0.0),
    );
    w.linear_flops_per_sample(&acts) / share / gemm_rate * depth
        + w.attention_flops_per_sample(&acts) / share / attn_rate
        + traffic / gpu.stream_bw()
}

/// Compute time of one micro-batch on one GPU holding 1/(tp·pp) of the model: its samples, and
/// each GEMM's fixed start-up and tail ([`GEMM_FIXED_S`]) for the layers the GPU holds.
/// Padded batches of spread lengths ([`Setup::padded`]) average two micro-batches, one of each
/// of their [`TwoLengths`](super::scenario::TwoLengths).
pub fn micro_batch_time(s: &Setup, tp: u32, pp: u32) -> f64 {
    let at = |s: &Setup| {
        sample_time(s, tp, pp) * f64::from(s.micro)
            + GEMM_FIXED_S * s.workload.gemms_per_micro_batch(&activations(s)) / f64::from(pp)
    };
    match s.spread {
        Some(l) => {
            (1.0 - l.long_weight) * at(&s.with_seq(l.short))
                + l.long_weight * at(&s.with_seq(l.long))
        }
        None => at(s),
    }
}

/// Memory per GPU.
pub fn memory(s: &Setup) -> Memory {
    at_zero(s, s.zero, working_memory(s))
}

/// The most sharding the model chooses by itself: ZeRO-1 with a pipeline, ZeRO-3 without (see
/// [`least_zero_that_fits`]).
fn most_zero_by_default(pp: u32) -> u8 {
    if pp > 1 {
        1
    } else {
        3
    }
}

/// The most sharding a fit fix asks for: as the default without a pipeline, ZeRO-2 with one.
/// The default stops at ZeRO-1 there (Megatron's distributed optimizer; DeepSpeed refuses
/// more), but PyTorch's FSDP shards the gradients under a pipeline, as Meta's 405B run did
/// (Dubey et al. 2024 §3.3.2).
fn most_zero_a_fix_asks(pp: u32) -> u8 {
    if pp > 1 {
        2
    } else {
        3
    }
}

/// The least ZeRO stage whose memory fits, or the most the layout takes (3, or 1 with a
/// pipeline) when none does. Activations and buffers do not
/// depend on the stage, so they are worked out once.
pub fn least_zero_that_fits(s: &Setup) -> u8 {
    let working = working_memory(s);
    // Pipelines shard the optimizer state only: DeepSpeed refuses ZeRO-2 and -3 with pipeline
    // parallelism (`deepspeed/runtime/pipe/engine.py`: "ZeRO-2 and ZeRO-3 are incompatible
    // with pipeline parallelism"), and Megatron-LM's distributed optimizer is ZeRO-1. ZeRO-3 would
    // gather every weight again for each micro-batch; a stated stage is still costed.
    let most = most_zero_by_default(s.pp);
    // A fixed range the compiler unrolls (a bound known only at run time cost the sweep 5 %).
    (0..=3)
        .find(|&z| z <= most && at_zero(s, z, working).fits())
        .unwrap_or(most)
}

/// Bytes per parameter of the weights and of the optimizer state: FP32 weights with two FP32
/// moments, or 16-bit weights with FP32 master weights and moments.
fn state_bytes_per_param(p: Precision) -> (f64, f64) {
    if p.is_fp32() {
        (4.0, 8.0)
    } else {
        (WEIGHT_BYTES_16, OPTIMIZER_BYTES_MIXED)
    }
}

/// Bytes one checkpoint of the whole job writes: the weights and the optimizer state, once.
/// Data-parallel replicas hold copies of the same state and write one between them (PyTorch's
/// distributed checkpoint deduplicates replicated tensors across ranks; Megatron's distributed
/// optimizer saves each shard once); gradients are not saved.
pub fn checkpoint_bytes(s: &Setup) -> f64 {
    let (wbytes, obytes) = state_bytes_per_param(s.precision);
    s.workload.params * (wbytes + obytes)
}

/// The training state at ZeRO stage `z`, and ZeRO-3's gathered units, on top of `working`
/// (activations, buffers).
fn at_zero(s: &Setup, z: u8, (activations, buffers): (f64, f64)) -> Memory {
    let w = &s.workload;
    let p = s.precision;
    // The fullest pipeline stage's share.
    let shard = f64::from(s.tp * s.pp) / s.stage_imbalance();
    let dp = f64::from(s.dp);
    let params = w.params / shard;
    let (wbytes, obytes) = state_bytes_per_param(p);
    // ZeRO-3 gathers one unit at a time and prefetches the next: two units' weights and one
    // unit's gradient exist whole (PyTorch FSDP docs, `forward_prefetch`/`backward_prefetch`;
    // FSDP2 prefetches one unit implicitly). A unit is a layer, or the embedding or output
    // layer (V·h/tp) where that is larger, whose neighbour is a layer: the largest unit's
    // weights and gradient with a layer's weights (torchtitan wraps the embedding, each block,
    // and the norm with the output layer as units: `parallelize_llama.py`, `apply_fsdp`).
    let gathered = if z >= 3 {
        let layer = params / f64::from(w.layers().div_ceil(s.pp));
        let output = w
            .vocab_and_hidden()
            .map_or(0.0, |(v, h)| v * h / f64::from(s.tp));
        let largest = layer.max(output);
        (largest + layer) * wbytes + largest * s.grad_bytes()
    } else {
        0.0
    };
    Memory {
        weights: params * wbytes / if z >= 3 { dp } else { 1.0 },
        gradients: params * s.grad_bytes() / if z >= 2 { dp } else { 1.0 },
        optimizer: params * obytes / if z >= 1 { dp } else { 1.0 },
        activations,
        buffers: buffers + gathered,
        capacity: s.gpu.mem_bytes() * USABLE_MEMORY,
    }
}

/// Activations and working buffers per GPU, bytes: the same at every ZeRO stage.
fn working_memory(s: &Setup) -> (f64, f64) {
    let w = &s.workload;
    let pp_f = f64::from(s.pp);
    // 1F1B keeps up to pp micro-batches of activations alive on the first stage; interleaving
    // adds (p−1)/(p·v) of a stage's worth more (Narayanan et al. 2021 §2.2.2).
    let interleave = if s.vpp > 1 {
        1.0 + (pp_f - 1.0) / (pp_f * f64::from(s.vpp))
    } else {
        1.0
    };
    let in_flight = (pp_f * interleave).min(s.micro_batches as f64).max(1.0);
    let acts = activations(s);
    let act_scale = s.precision.activation_scale();
    let micro = f64::from(s.micro);
    // One micro-batch's stored activations on one stage.
    let stage =
        w.activation_bytes_per_sample(&acts, s.stage_imbalance() / pp_f) * act_scale * micro;
    // Recomputing a layer (fully or by operator) brings back what it did not keep while the
    // layer's backward runs: one layer of one micro-batch (Korthikanti et al. 2022 §5).
    let working = match s.tech.recompute {
        Recompute::Full | Recompute::Ops => {
            let one = 1.0 / f64::from(w.layers());
            let whole = Activations {
                recompute: Recompute::None,
                ..acts
            };
            let again = w.activation_bytes_per_sample(&whole, one)
                - w.activation_bytes_per_sample(&acts, one);
            again.max(0.0) * act_scale * micro
        }
        Recompute::None | Recompute::Selective => 0.0,
    };
    let loss = w.loss_bytes_per_sample(s.tp) * micro;
    // Both ends of a pipeline peak as a backward pass starts. The first stage holds `in_flight`
    // micro-batches; the last holds the loss, whose buffers are freed before a recomputed layer
    // needs its working set, and one micro-batch, or interleaved (v−1)·p + 1 chunks of 1/v of
    // a stage: Megatron-Core's warm-up runs (p − rank − 1)·2 + (v − 1)·p chunks before the
    // steady state's one (`schedules.py`, `forward_backward_pipelining_with_interleaving`), the
    // first rank's (v·p + p − 1) chunks being `in_flight`. The fuller of the two is this step's
    // memory per GPU; with one stage they coincide.
    let v = f64::from(s.vpp);
    let last_in_flight = (((v - 1.0) * pp_f + 1.0) / v)
        .min(s.micro_batches as f64)
        .max(1.0);
    let first = (stage * in_flight, working);
    let last = (stage * last_in_flight, loss.max(working));
    if first.0 + first.1 > last.0 + last.1 {
        first
    } else {
        last
    }
}

/// Evaluates a scenario with its own speedup and efficiency.
pub fn evaluate(sc: &Scenario) -> Result<StepResult, ModelError> {
    let s = sc.setup()?;
    evaluate_setup(&s)
}

/// Evaluates a resolved setup on its own cluster.
pub fn evaluate_setup(s: &Setup) -> Result<StepResult, ModelError> {
    evaluate_on(s, &s.cluster())
}

/// Evaluates a setup on a (possibly modified) cluster.
pub fn evaluate_on(s: &Setup, c: &Cluster) -> Result<StepResult, ModelError> {
    let padded = s.padded();
    let timed = padded.as_ref().unwrap_or(s);
    let mut r = step_core(timed, c, memory(s))?;
    let t1 = single_gpu_time(timed, &r);
    let n = f64::from(s.gpus);
    r.speedup = match s.scaling {
        // Same per-replica work on one GPU: compare throughputs.
        Scaling::Weak => {
            let samples = (r.micro_batches * u64::from(s.micro)) as f64;
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
fn single_gpu_time(s: &Setup, r: &StepResult) -> f64 {
    let w = &s.workload;
    let (samples, serial) = match s.scaling {
        Scaling::Weak => (
            (r.micro_batches * u64::from(s.micro)) as f64,
            r.breakdown.serial,
        ),
        Scaling::Strong => (s.batch as f64, serial_time(w.params, s.gpu)),
    };
    let compute = micro_batch_time(s, 1, 1) * samples / f64::from(s.micro);
    let load = samples / s.data_rate;
    (compute + serial).max(load)
}

/// Where a step mostly waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bottleneck {
    /// The GPUs compute most of the step: it scales well.
    Compute,
    /// The inter-node gradient sync.
    Network,
    /// The gradient sync inside a node (NVLink, xGMI or PCIe).
    IntraNode,
    /// Tensor-parallel collectives.
    TensorParallel,
    /// The pipeline bubble.
    Pipeline,
    /// The input pipeline.
    Data,
    /// Serial work (optimizer step, host overhead).
    Serial,
    /// The model does not fit.
    Memory,
    /// Data-parallel replicas without a sample (a strong-scaling batch smaller than the
    /// replica count).
    Idle,
    /// The slowest GPU holds every step (jitter, slow GPUs).
    Stragglers,
    /// Failures, restarts and checkpoints take the run's time.
    Failures,
}

impl Bottleneck {
    /// JSON id.
    pub fn id(self) -> &'static str {
        match self {
            Bottleneck::Compute => "compute",
            Bottleneck::Network => "network",
            Bottleneck::IntraNode => "intra-node",
            Bottleneck::TensorParallel => "tensor-parallel",
            Bottleneck::Pipeline => "pipeline",
            Bottleneck::Data => "data",
            Bottleneck::Serial => "serial",
            Bottleneck::Memory => "memory",
            Bottleneck::Idle => "idle",
            Bottleneck::Stragglers => "stragglers",
            Bottleneck::Failures => "failures",
        }
    }
}

impl serde::Serialize for Bottleneck {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.serialize_str(self.id())
    }
}

/// The one change that would help most, and the bottleneck in words.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The dominant wait.
    pub bottleneck: Bottleneck,
    /// Plain-language sentence.
    pub text: String,
    /// The advice, quantified.
    pub advice: String,
    /// The change that makes a scenario fit, when it does not.
    pub fix: Option<FitFix>,
}

impl Verdict {
    fn new(bottleneck: Bottleneck, text: String, advice: String) -> Verdict {
        Verdict {
            bottleneck,
            text,
            advice,
            fix: None,
        }
    }
}

/// Says where the step waits and which single change helps most, by re-running the model.
pub fn verdict(sc: &Scenario, r: &StepResult) -> Verdict {
    let b = &r.breakdown;
    let step = b.total();
    let pct = |x: f64| (100.0 * x / step).round();
    if !r.memory.fits() {
        return memory_verdict(sc, r);
    }
    let waits = [
        (Bottleneck::Network, b.comm_exposed),
        (Bottleneck::Data, b.data_wait),
        (Bottleneck::Serial, b.serial),
        (Bottleneck::Pipeline, b.bubble),
    ];
    let (kind, amount) =
        waits.into_iter().fold(
            (Bottleneck::Compute, 0.0),
            |a, w| if w.1 > a.1 { w } else { a },
        );
    let Ok(setup) = sc.setup() else {
        return Verdict::new(Bottleneck::Compute, String::new(), String::new());
    };
    let c = setup.cluster();
    let faster_on = |c2: &Cluster| -> f64 {
        evaluate_on(&setup, c2)
            .map(|r2| step / r2.breakdown.total())
            .unwrap_or(1.0)
    };
    if let Some(v) = run_verdict(sc, &setup, r, amount) {
        return v;
    }
    if amount < 0.1 * step {
        return Verdict::new(
            Bottleneck::Compute,
            format!(
                "The GPUs compute {:.0} % of the step: this scales well.",
                pct(b.compute)
            ),
            compute_advice(sc, &setup, step),
        );
    }
    match kind {
        Bottleneck::Network => {
            let mut v = comm_verdict(r, &setup, &c, pct, faster_on);
            // ZeRO-1/2 gather the updated weights after the step, waited for; ZeRO-3 prefetches
            // them behind the forward pass, and Megatron's distributed optimizer can overlap the
            // gather (gather_overlap=1). Where either is faster, the advice says so: the default
            // stage is the least sharding that fits, not the fastest.
            if matches!(v.bottleneck, Bottleneck::Network | Bottleneck::IntraNode)
                && matches!(setup.zero, 1 | 2)
                && !setup.tech.gather_overlap
            {
                let speed = |f: &dyn Fn(&mut Setup)| {
                    let mut s2 = setup.clone();
                    f(&mut s2);
                    (memory(&s2).fits())
                        .then(|| evaluate_on(&s2, &c).ok())
                        .flatten()
                        .map_or(0.0, |r2| step / r2.breakdown.total())
                };
                let overlap = speed(&|s2| s2.tech.gather_overlap = true);
                // ZeRO-3 only where the layout may take it (a pipeline may not).
                let zero3 = if most_zero_by_default(setup.pp) < 3 {
                    0.0
                } else {
                    speed(&|s2| s2.zero = 3)
                };
                let (best, how) = if zero3 > overlap {
                    (zero3, "ZeRO-3 (zero=3), which gathers each layer's weights ahead of its use")
                } else {
                    (overlap, "overlapping the weight gather with the next forward pass (gather_overlap=1)")
                };
                if best > 1.05 {
                    v.advice += &format!(
                        " ZeRO-{} gathers the updated weights after the step and waits: {how} → {best:.2}× faster.",
                        setup.zero
                    );
                }
            }
            // With a pipeline, twice the interleaved chunks start the gradient sync earlier
            // (each chunk's as its last backward ends) and shrink the bubble: where that fits
            // and is faster, the advice says so.
            if matches!(v.bottleneck, Bottleneck::Network | Bottleneck::IntraNode) && setup.pp > 1
            {
                let vpp = setup.vpp * 2;
                let faster =
                    with_vpp(sc, vpp).map_or(0.0, |r2| step / r2.breakdown.total());
                if faster > 1.05 {
                    v.advice += &format!(
                        " Interleaving {vpp} chunks a stage (vpp={vpp}) starts each chunk's gradient sync as its last backward ends and shrinks the bubble → {faster:.2}× faster."
                    );
                }
            }
            v
        }
        Bottleneck::Data => {
            let mut s2 = setup.clone();
            s2.data_rate *= 2.0;
            Verdict::new(
                Bottleneck::Data,
                format!(
                    "The GPUs starve: {:.0} % of the step waits for input data.",
                    pct(b.data_wait)
                ),
                format!(
                    "2× faster input pipeline (more loader workers, GPU decoding) → {:.2}× faster.",
                    evaluate_setup(&s2)
                        .map(|r2| step / r2.breakdown.total())
                        .unwrap_or(1.0)
                ),
            )
        }
        Bottleneck::Pipeline => Verdict::new(
            Bottleneck::Pipeline,
            format!(
                "{:.0} % of the step is pipeline bubble: stages wait for each other.",
                pct(b.bubble)
            ),
            bubble_advice(sc, &setup, r),
        ),
        _ => Verdict::new(
            Bottleneck::Serial,
            format!(
                "{:.0} % of the step is serial work (optimizer step, host overhead) that more GPUs do not shrink.",
                pct(b.serial)
            ),
            "A larger batch per step spreads the serial part (Amdahl's law).".to_string(),
        ),
    }
}

/// What helps a step that computes: the GPU's fastest math where it is not already used,
/// re-run by the model (FP8 on an H100 training in bf16, bf16 on an A100 in FP32 or TF32), else
/// faster GPUs alone (it said "lower precision" to a run already in the GPU's fastest).
fn compute_advice(sc: &Scenario, s: &Setup, step: f64) -> String {
    let peak = |p: Precision| s.gpu.peak_flops(p).unwrap_or(0.0);
    let faster = Precision::ALL
        .into_iter()
        .filter(|&p| peak(p) > peak(s.precision))
        .max_by(|&a, &b| peak(a).total_cmp(&peak(b)))
        .and_then(|p| {
            let lower = Scenario {
                precision: Some(p),
                ..sc.clone()
            };
            let t = evaluate(&lower).ok()?.breakdown.total();
            (step / t > 1.05).then_some((p, step / t))
        });
    match faster {
        Some((p, x)) => format!(
            "Faster math would help most: precision={} → {x:.2}× faster (or faster GPUs); the network is not the limit here.",
            p.id()
        ),
        None => "Faster GPUs would help most; the network is not the limit here.".to_string(),
    }
}

/// The waits of the run around the step: replicas without a sample when a tenth of the GPUs
/// or more idle (wasted GPUs, not time, so named first), else the slowest GPU or failures and
/// checkpoints when one takes more of the elapsed time than the step's own largest wait
/// (`step_wait` seconds) and at least a tenth of it. Shares of elapsed time: a run
/// spends `ettr` of it in steps, each `straggler` longer than the step as modelled.
fn run_verdict(sc: &Scenario, s: &Setup, r: &StepResult, step_wait: f64) -> Option<Verdict> {
    let step = r.breakdown.total();
    let g = goodput::goodput(s, r);
    let idle = 1.0 - f64::from(s.dp_active) / f64::from(s.dp);
    if idle >= 0.1 {
        let busy = s.dp_active * s.tp * s.pp;
        let keep_busy = format!(
            "A batch of {} samples or more keeps all {} busy.",
            u64::from(s.dp) * u64::from(s.micro),
            s.gpus
        );
        // The idle replicas still join the gradient sync (frameworks hand every rank a sample
        // or refuse; none drops ranks) and hold their shards of a ZeRO-sharded state, so the
        // busy GPUs alone are neither always as fast nor always able to hold it: asked.
        let alone = Scenario {
            gpus: busy,
            ..sc.clone()
        };
        let take = if busy == 1 { "GPU takes" } else { "GPUs take" };
        let advice = match evaluate(&alone) {
            Ok(r2) if !r2.memory.fits() => format!(
                "{busy} {} alone would need {:.0} GiB{} of {:.0} usable{}. {keep_busy}",
                if busy == 1 { "GPU" } else { "GPUs" },
                r2.memory.total() / GIB,
                if busy == 1 { "" } else { " a GPU" },
                r2.memory.capacity / GIB,
                if s.zero > 0 {
                    " (the idle replicas hold shards of the training state)"
                } else {
                    ""
                }
            ),
            Ok(r2) => {
                let t = r2.breakdown.total();
                let (x, ms) = (step / t, 1e3 * t);
                if x > 1.05 {
                    format!(
                        "{busy} {take} a {ms:.0} ms step, {x:.2}× faster: the idle replicas still join the gradient sync, over more of the network. {keep_busy}"
                    )
                } else if x < 0.95 {
                    format!(
                        "{busy} {take} a {ms:.0} ms step, {:.2}× slower. {keep_busy}",
                        1.0 / x
                    )
                } else {
                    format!("{busy} {take} about the same step. {keep_busy}")
                }
            }
            Err(_) => keep_busy,
        };
        return Some(Verdict::new(
            Bottleneck::Idle,
            format!(
                "{} % of the GPUs idle: the batch of {} has samples for {} of {} data-parallel replicas.",
                // Not "100 %" while one replica works.
                if idle > 0.995 {
                    format!("{:.1}", (1000.0 * idle).floor() / 10.0)
                } else {
                    format!("{:.0}", 100.0 * idle)
                },
                s.batch,
                s.dp_active,
                s.dp
            ),
            advice,
        ));
    }
    let rel = g.reliability;
    let slowest = step + g.straggler;
    let straggler_share = rel.ettr * g.straggler / slowest;
    let failure_share = 1.0 - rel.ettr;
    let step_share = rel.ettr * step_wait / slowest;
    if failure_share >= 0.1 && failure_share >= straggler_share && failure_share > step_share {
        return Some(failure_verdict(s, &rel));
    }
    if straggler_share >= 0.1 && straggler_share > step_share {
        // The step without the slow GPUs, or with half the jitter where none are slow.
        let calmer = if s.ops.slow_gpus > 0.0 && s.ops.slow_factor > 1.0 {
            let quiet =
                goodput::straggler_seconds(r.breakdown.compute, s.gpus, s.ops.jitter, 0.0, 1.0);
            format!(
                "Without the slow GPUs (drained or replaced) → {:.2}× faster steps.",
                slowest / (step + quiet)
            )
        } else {
            let half = goodput::straggler_seconds(
                r.breakdown.compute,
                s.gpus,
                s.ops.jitter / 2.0,
                0.0,
                1.0,
            );
            format!(
                "Half the jitter per GPU → {:.2}× faster steps; every GPU added makes the slowest of them slower.",
                slowest / (step + half)
            )
        };
        return Some(Verdict::new(
            Bottleneck::Stragglers,
            format!(
                "The slowest GPU sets every step: stragglers add {:.0} % to it ({:.0} ms on {:.0} ms).",
                100.0 * g.straggler / step,
                1e3 * g.straggler,
                1e3 * step
            ),
            calmer,
        ));
    }
    None
}

/// Failures and checkpoints take much of the run: how often, and what would help.
fn failure_verdict(s: &Setup, rel: &goodput::Reliability) -> Verdict {
    let mttf = rel.mttf_hours;
    let write_h = rel.checkpoint_minutes / 60.0;
    let restart_h = s.ops.restart_min / 60.0;
    // The run's reliability with its operations changed by `f` (the shared model, not a
    // formula of its own here).
    let with = |f: &dyn Fn(&mut goodput::Operations)| {
        let mut t = s.clone();
        f(&mut t.ops);
        goodput::reliability_of(&t)
    };
    // At the best checkpoint interval (none stated), with restarts `restart` times as long.
    let at_best = |restart: f64| {
        with(&|o| {
            o.ckpt_interval = None;
            o.restart_min *= restart;
        })
    };
    // Durations in words, from hours.
    let words = |hours: f64| days_text(hours / 24.0);
    let interval = words(rel.interval_minutes / 60.0);
    if rel.ettr > 0.0 && rel.lost_checkpoint > rel.lost_work + rel.lost_restart {
        // Slow storage: writing checkpoints, not what failures undo, takes the time. Its
        // remedy is priced at the interval the run checkpoints on (the stated one, else the
        // best), beside the best interval where one is stated: 2× ckpt_gbs promised ETTR 0.98
        // at the best interval to a run that stated one, and got 0.46.
        let doubled = with(&|o| o.ckpt_gbs *= 2.0).ettr;
        let against = if mttf.is_finite() {
            format!("against a failure every {}", words(mttf))
        } else {
            "and nothing fails (failure_rate=0)".to_string()
        };
        let best = s.ops.ckpt_interval.map(|_| {
            let best = at_best(1.0);
            let change = if mttf.is_finite() {
                format!(
                    "Checkpointing every {} (the best interval)",
                    words(best.interval_minutes / 60.0)
                )
            } else {
                "Leaving out ckpt_interval (nothing fails, so one checkpoint at the end)"
                    .to_string()
            };
            (change, best.ettr)
        });
        let advice = match best {
            Some((change, ettr)) if ettr > doubled => {
                format!("{change} → ETTR {ettr:.2} instead of {:.2}.", rel.ettr)
            }
            _ => format!(
                "2× checkpoint write bandwidth (ckpt_gbs) → ETTR {doubled:.2} instead of {:.2}.",
                rel.ettr
            ),
        };
        return Verdict::new(
            Bottleneck::Failures,
            format!(
                "Checkpoints take {:.0} % of the run's time: each write takes {}, every {interval}, {against}.",
                100.0 * rel.lost_checkpoint,
                words(write_h)
            ),
            advice,
        );
    }
    let every = words(mttf);
    let restart = words(restart_h);
    let text = if rel.ettr <= 0.0 && restart_h >= mttf {
        format!("The run never finishes: the job fails every {every}, sooner than it restarts ({restart}).")
    } else if rel.ettr <= 0.0 {
        format!(
            "The run never finishes: the job fails every {every}, before it can restart ({restart}) and redo the work since its last checkpoint (every {interval})."
        )
    } else {
        format!(
            "Failures take {:.0} % of the run's time: the job fails every {every}, then restarts and redoes the work since its last checkpoint (every {interval}).",
            100.0 * (1.0 - rel.ettr)
        )
    };
    let best = at_best(1.0);
    let advice = if s.ops.ckpt_interval.is_some() && best.ettr > rel.ettr + 0.02 {
        format!(
            "Checkpointing every {} (the best interval for this failure rate) → ETTR {:.2} instead of {:.2}.",
            words(best.interval_minutes / 60.0),
            best.ettr,
            rel.ettr
        )
    } else {
        let quick = at_best(0.5).ettr;
        let fewer = "fewer GPUs per job, or hardware that fails less, help most.";
        if quick > rel.ettr + 0.02 {
            format!("Half the restart time → ETTR {quick:.2}; {fewer}")
        } else {
            format!("Half the restart time leaves ETTR at {quick:.2}; {fewer}")
        }
    };
    Verdict::new(Bottleneck::Failures, text, advice)
}

/// What shrinks a pipeline bubble most: more model chunks per GPU (interleaving) at the same
/// batch where the layers allow, else more micro-batches, with what a larger batch does to the
/// time to train past the critical batch.
/// The scenario with `vpp` chunks a stage, evaluated, where the schedule runs them (strong
/// scaling falls back to one chunk below pp micro-batches) and it fits.
fn with_vpp(sc: &Scenario, vpp: u32) -> Option<StepResult> {
    Scenario { vpp, ..sc.clone() }
        .setup()
        .ok()
        .filter(|s2| s2.vpp == vpp && memory(s2).fits())
        .and_then(|s2| evaluate_setup(&s2).ok())
}

fn bubble_advice(sc: &Scenario, s: &Setup, r: &StepResult) -> String {
    let step = r.breakdown.total();
    let vpp = s.vpp * 2;
    let faster = with_vpp(sc, vpp).map(|r2| step / r2.breakdown.total());
    if let Some(x) = faster.filter(|&x| x > 1.02) {
        return format!(
            "Interleaving {vpp} smaller stages per GPU (vpp={vpp}) → {x:.2}× faster at the same batch."
        );
    }
    // Twice the micro-batches at the same micro-batch size (under strong scaling a larger
    // batch alone grows the micro-batch, and the bubble with it), where their activations
    // still fit: a stage holds up to pp micro-batches in flight.
    let (batch, micro) = (s.batch * 2, s.micro);
    let bigger = Scenario {
        batch: Some(batch),
        micro: Some(micro),
        ..sc.clone()
    };
    let change = format!("batch={batch} at micro={micro}");
    let Ok(s2) = bigger.setup() else {
        return "More micro-batches per step (a larger batch) shrink the bubble.".to_string();
    };
    let m2 = memory(&s2);
    if !m2.fits() {
        return format!(
            "More micro-batches per step would shrink the bubble, but {change} needs {:.0} GiB of {:.0} usable.",
            m2.total() / GIB,
            m2.capacity / GIB
        );
    }
    let Ok(r2) = evaluate_setup(&s2) else {
        return "More micro-batches per step (a larger batch) shrink the bubble.".to_string();
    };
    let more = r2.throughput / r.throughput;
    let days = goodput::goodput(&s2, &r2).days / goodput::goodput(s, r).days;
    if days > 1.02 {
        format!(
            "2× more micro-batches per step ({change}) → {more:.2}× more throughput, but {days:.2}× the time to train: past the critical batch each sample teaches less."
        )
    } else {
        format!("2× more micro-batches per step ({change}) → {more:.2}× more throughput.")
    }
}

/// The verdict of a scenario that does not fit, with the change that makes it fit.
fn memory_verdict(sc: &Scenario, r: &StepResult) -> Verdict {
    let fix = fit_fix(sc);
    Verdict {
        bottleneck: Bottleneck::Memory,
        text: format!(
            "The model does not fit: {:.0} GiB per GPU needed, {:.0} GiB usable.",
            r.memory.total() / GIB,
            r.memory.capacity / GIB
        ),
        advice: fix.as_ref().map(|f| f.to_string()).unwrap_or_else(|| {
            "Nothing up to 65,536 GPUs fits; use GPUs with more memory.".to_string()
        }),
        fix,
    }
}

/// Which communication the step waits on, and what doubling its bandwidth would give.
fn comm_verdict(
    r: &StepResult,
    s: &Setup,
    c: &Cluster,
    pct: impl Fn(f64) -> f64,
    faster_on: impl Fn(&Cluster) -> f64,
) -> Verdict {
    let parts = r.comm;
    // What waits, part by part: tensor-parallel and data-parallel time as exposed, not as issued.
    let tp = parts.tp_exposed;
    let dp = r.breakdown.comm_exposed - tp - parts.pp;
    // The part's own share, and all communication's where the other parts add to it.
    let all = pct(r.breakdown.comm_exposed);
    let waits = |part: f64, on: &str| {
        let own = pct(part);
        if all - own >= 5.0 {
            format!("{own:.0} % of the step waits on {on} ({all:.0} % on communication in all).")
        } else {
            format!("{own:.0} % of the step waits on {on}.")
        }
    };
    let intra2 = Cluster {
        intra_scale: c.intra_scale * 2.0,
        ..*c
    };
    let net2 = Cluster {
        net_scale: c.net_scale * 2.0,
        ..*c
    };
    if tp >= parts.pp && tp >= dp {
        Verdict::new(
            Bottleneck::TensorParallel,
            waits(tp, "tensor-parallel collectives inside the node"),
            format!(
                "2× intra-node bandwidth → {:.2}× faster; or a smaller tp.",
                faster_on(&intra2)
            ),
        )
    } else if parts.pp >= dp {
        let (more, bandwidth) = if parts.pp_crosses_nodes {
            ("NIC", faster_on(&net2))
        } else {
            ("intra-node", faster_on(&intra2))
        };
        Verdict::new(
            Bottleneck::Pipeline,
            waits(parts.pp, "activations sent between pipeline stages"),
            format!(
                "2× {more} bandwidth → {bandwidth:.2}× faster; or fewer stages (a smaller pp)."
            ),
        )
    } else {
        // A sync of many small messages over many ranks waits on latency, not bandwidth: the
        // advice names the lever that moves the step.
        let half_latency = faster_on(&Cluster {
            lat_scale: c.lat_scale * 0.5,
            ..*c
        });
        let (bottleneck, text, more, bandwidth) = if parts.dp_crosses_nodes {
            (
                Bottleneck::Network,
                "the inter-node gradient sync",
                "NIC",
                faster_on(&net2),
            )
        } else {
            (
                Bottleneck::IntraNode,
                "the gradient sync inside the node",
                "intra-node",
                faster_on(&intra2),
            )
        };
        // The link that bounds the sync as the collective card and the topology view name it:
        // the GPUs' own PCIe links where the node's NICs are faster than those can feed them,
        // or the uplinks above the leaf switches.
        let bound = if parts.dp_crosses_nodes {
            parts.dp_sync.and_then(|d| d.bound())
        } else {
            None
        };
        // What twice the bandwidth of that link gives, and the fabric's own levers when the
        // uplinks bound it; a sync is latency-bound only when half the latency beats twice
        // every link's bandwidth (two links that nearly tie each give little alone).
        let doubled = match bound {
            Some(Link::HostPcie) => faster_on(&Cluster {
                host_bw: c.host_bw * 2.0,
                ..*c
            }),
            Some(Link::NvLink | Link::Pcie | Link::Switch) => faster_on(&intra2),
            _ => bandwidth,
        };
        let levers = match bound {
            Some(tier @ (Link::LeafUplink | Link::SpineUplink)) => {
                uplink_levers(tier, c, &faster_on)
            }
            _ => Vec::new(),
        };
        let every = faster_on(&Cluster {
            intra_scale: c.intra_scale * 2.0,
            net_scale: c.net_scale * 2.0,
            host_bw: c.host_bw * 2.0,
            ..*c
        });
        let best = levers.iter().map(|l| l.1).fold(every, f64::max);
        // Where no single link's doubling comes near doubling them all, say so.
        let tie = if every > 1.1 * doubled.max(bandwidth) {
            format!(" The links nearly tie: twice every link's bandwidth → {every:.2}×.")
        } else {
            String::new()
        };
        let advice = if half_latency > best {
            format!(
                "It is latency-bound: half the latency → {half_latency:.2}× faster, twice every link's bandwidth only {every:.2}×; fewer, larger messages (bigger buckets, fewer data-parallel ranks) help."
            )
        } else {
            match bound {
                Some(Link::HostPcie) => {
                    let fewer = if s.tech.grad_fp32 {
                        "fewer bytes (bf16 gradients: grad_fp32=0)"
                    } else {
                        "fewer bytes"
                    };
                    format!(
                        "The GPUs' own PCIe links, not the NICs, bound the sync: twice their bandwidth → {doubled:.2}× faster (2× NIC bandwidth {bandwidth:.2}×, half the latency {half_latency:.2}×); {fewer} or GPUs on a newer PCIe generation help."
                    )
                }
                Some(tier @ (Link::LeafUplink | Link::SpineUplink)) => {
                    let name = if tier == Link::LeafUplink {
                        "leaf switches' uplinks"
                    } else {
                        "pods' uplinks"
                    };
                    let levers: String = levers.iter().map(|(t, f)| format!("; {t} → {f:.2}×")).collect();
                    format!(
                        "The {name} bound the sync: 2× NIC bandwidth (their ports' too) gives {bandwidth:.2}×{levers}."
                    )
                }
                // A sync across nodes whose rounds inside the node are the slower.
                Some(Link::NvLink | Link::Pcie | Link::Switch) => format!(
                    "The links inside each node, not the NICs, bound the sync: 2× intra-node bandwidth → {doubled:.2}× faster, 2× {more} bandwidth {bandwidth:.2}×.{tie}"
                ),
                _ => format!("2× {more} bandwidth → {bandwidth:.2}× faster.{tie}"),
            }
        };
        Verdict::new(bottleneck, waits(dp, text), advice)
    }
}

/// What the fabric's own levers give when the switches' uplinks above the nodes bound the sync:
/// a non-blocking tier, the job packed into fewer leaf groups, adaptive routing, each only where
/// it is not the scenario already and moves the step (by 1 % or more).
fn uplink_levers(
    tier: Link,
    c: &Cluster,
    faster_on: &impl Fn(&Cluster) -> f64,
) -> Vec<(String, f64)> {
    let mut levers = Vec::new();
    let mut lever = |text: String, topo: Topology| {
        let f = faster_on(&Cluster { topo, ..*c });
        if f >= 1.01 {
            levers.push((text, f));
        }
    };
    let mut topo = c.topo;
    let (key, oversub) = if tier == Link::LeafUplink {
        ("oversub", &mut topo.oversub)
    } else {
        ("pod_oversub", &mut topo.pod_oversub)
    };
    if *oversub > 1.0 {
        *oversub = 1.0;
        lever(format!("a non-blocking tier ({key}=1)"), topo);
    }
    if c.topo.placement != Placement::Packed {
        lever(
            "the job packed into fewer leaf groups (placement=packed)".to_string(),
            Topology {
                placement: Placement::Packed,
                ..c.topo
            },
        );
    }
    if c.topo.routing != Routing::Adaptive {
        lever(
            "adaptive routing (routing=adaptive)".to_string(),
            Topology {
                routing: Routing::Adaptive,
                ..c.topo
            },
        );
    }
    levers
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

/// The least disruptive change that makes the scenario fit: a smaller stated micro-batch (the
/// global batch kept), sharding more (ZeRO), recomputing activations, splitting the model (tp
/// inside a node, then pp), and finally more GPUs: the model split over them, everything
/// sharded, or both. `None` when nothing up to 65,536 GPUs fits.
pub fn fit_fix(sc: &Scenario) -> Option<FitFix> {
    let fits = |f: &FitFix| f.scenario.setup().is_ok_and(|x| memory(&x).fits());
    let Ok(base) = sc.setup() else {
        return None;
    };
    let full = Recompute::Full;
    let layers = base.workload.layers();
    // The scenario with change `f`, and the keys it changes. A layout change keeps the stated
    // interleaving where its stages have the layers for it, else runs the plain schedule, and
    // keeps a stated global batch where the layout can run it, else takes the layout's own:
    // either is named among the changes, so that the advice applied as printed is the
    // scenario tested (it dropped a stated batch unseen: 2,048 became 64 and idled 88 % of
    // the GPUs).
    let with = |f: &dyn Fn(&mut Scenario), mut changes: Vec<(&'static str, String)>| {
        let mut s = sc.clone();
        f(&mut s);
        // The plain schedule where the stages have too few layers to interleave, or (before
        // the batch is given up) too few micro-batches for it.
        if s.vpp > 1 && (s.pp == 1 || s.setup().is_err()) {
            s.vpp = 1;
            changes.push(("vpp", "1".into()));
        }
        if sc.batch.is_some() && s.setup().is_err() {
            s.batch = None;
            if let Ok(x) = s.setup() {
                changes.push(("batch", x.batch.to_string()));
            }
        }
        FitFix {
            scenario: s,
            changes,
        }
    };
    let mut tries: Vec<FitFix> = Vec::new();
    // The micro-batch (stated or the model's default) is the first thing to make smaller:
    // fewer activations at once, the same global batch in more micro-batches.
    let at_micro = |m: u32, s: &mut Scenario| {
        s.micro = Some(m);
        s.batch = Some(base.batch);
    };
    let micro_changes = |m: u32| {
        let mut changes = vec![("micro", m.to_string())];
        if sc.batch.is_none() {
            changes.push(("batch", base.batch.to_string()));
        }
        changes
    };
    let mut micro = base.micro / 2;
    while micro >= 1 {
        tries.push(with(&|s| at_micro(micro, s), micro_changes(micro)));
        micro /= 2;
    }
    // Sharding before recomputing: ZeRO-2 fits Meta's published 405B layout (16,384 GPUs, tp 8,
    // pp 16 × 8 chunks over RoCE) at 7.5 s a step where full recomputation takes 9.0 s.
    let most = most_zero_a_fix_asks(base.pp);
    for z in base.zero + 1..=most {
        tries.push(with(&|s| s.zero = Some(z), vec![("zero", z.to_string())]));
    }
    // Operator-level checkpointing costs less compute than full recomputation: try it first.
    let ops = Recompute::Ops;
    let transformer = base.workload.tokens_per_sample().is_some();
    if transformer && !matches!(base.tech.recompute, Recompute::Ops | Recompute::Full) {
        tries.push(with(
            &|s| s.tech.recompute = ops,
            vec![("recompute", "ops".into())],
        ));
    }
    if base.tech.recompute != full {
        tries.push(with(
            &|s| s.tech.recompute = full,
            vec![("recompute", "full".into())],
        ));
        if most > base.zero {
            tries.push(with(
                &|s| {
                    s.zero = Some(most);
                    s.tech.recompute = full;
                },
                vec![("zero", most.to_string()), ("recompute", "full".into())],
            ));
        }
    }
    // One sample a micro-batch with full recomputation (and the state sharded as far as the
    // layout takes it) on these GPUs, before splitting the model or asking for more: GPT-2 XL
    // fits one V100 so, where "gpus=2 and pp=2" was advised.
    if base.micro > 1 {
        let mut changes = micro_changes(1);
        if base.tech.recompute != full {
            changes.push(("recompute", "full".into()));
        }
        tries.push(with(
            &|s| {
                at_micro(1, s);
                s.tech.recompute = full;
            },
            changes.clone(),
        ));
        if most > base.zero {
            changes.push(("zero", most.to_string()));
            tries.push(with(
                &|s| {
                    at_micro(1, s);
                    s.tech.recompute = full;
                    s.zero = Some(most);
                },
                changes,
            ));
        }
    }
    let mut tp = base.tp * 2;
    while tp <= base.per_node && base.per_node % tp == 0 {
        tries.push(with(
            &|s| {
                s.tp = tp;
                s.tech.recompute = full;
            },
            vec![("tp", tp.to_string()), ("recompute", "full".into())],
        ));
        tp *= 2;
    }
    let mut pp = base.pp * 2;
    while pp <= layers && pp * base.tp <= base.gpus {
        tries.push(with(
            &|s| {
                s.pp = pp;
                s.tech.recompute = full;
            },
            vec![("pp", pp.to_string()), ("recompute", "full".into())],
        ));
        pp *= 2;
    }
    if let Some(fix) = tries.into_iter().find(fits) {
        return Some(fix);
    }
    // More GPUs help only when something is split or sharded across them: the model split
    // over all of them (tensor parallelism across a node, pipeline stages across nodes, as
    // Megatron runs a model too large for one node), else the state sharded (ZeRO-3, or ZeRO-1
    // then 2 with a pipeline).
    // The node as stated (a one-GPU job's resolved node is that GPU), and the widest tensor
    // parallelism inside it that splits the heads.
    let node = sc.node_size();
    let widest_tp = (0..=node.ilog2())
        .rev()
        .map(|e| 1u32 << e)
        .find(|&t| node % t == 0 && base.workload.splits_over(t))
        .unwrap_or(1);
    // A stated micro-batch as it is, then one sample (where more GPUs alone do not make room
    // for it: "nothing up to 65,536 GPUs fits" was said of models that fit at micro=1).
    let micros: Vec<Option<u32>> = if base.micro > 1 {
        vec![None, Some(1)]
    } else {
        vec![None]
    };
    // Over `gpus`, split tp × pp, with the state sharded at stage `zero` where one is given, at
    // micro-batch `micro` where one is given.
    let split = |gpus: u32, tp: u32, pp: u32, zero: Option<u8>, micro: Option<u32>| {
        let mut changes = vec![("gpus", gpus.to_string())];
        for (key, now, then) in [("tp", base.tp, tp), ("pp", base.pp, pp)] {
            if now != then {
                changes.push((key, then.to_string()));
            }
        }
        if let Some(z) = zero.filter(|&z| sc.zero != Some(z)) {
            changes.push(("zero", z.to_string()));
        }
        if base.tech.recompute != full {
            changes.push(("recompute", "full".into()));
        }
        if let Some(m) = micro {
            changes.push(("micro", m.to_string()));
        }
        with(
            &|s| {
                s.gpus = gpus;
                s.tp = tp;
                s.pp = pp;
                s.zero = zero.or(s.zero);
                s.tech.recompute = full;
                s.micro = micro.or(s.micro);
            },
            changes,
        )
    };
    // The stages a sharded layout tries: from the default's ceiling to a fix's (ZeRO-1 then
    // ZeRO-2 with a pipeline, ZeRO-3 without), never below a stated stage (a stated ZeRO-3 with
    // a pipeline stays).
    let stated = sc.zero.unwrap_or(0);
    let stages = |pp: u32| {
        let lo = most_zero_by_default(pp).max(stated);
        lo..=most_zero_a_fix_asks(pp).max(lo)
    };
    let mut gpus = base.gpus * 2;
    while gpus <= super::scenario::MAX_GPUS {
        let tp = widest_tp.min(gpus);
        let pp = gpus / tp;
        // (tp, pp, zero): the split over all of them; the layout as it stands, sharded; both,
        // the split as deep as the layers allow (a power of two) and the state sharded over the
        // replicas that leaves. Tried in order, up to the first that fits.
        let mut layouts = vec![(tp, pp, None)];
        for (tp, pp) in [(base.tp, base.pp), (tp, 1 << pp.min(layers).ilog2())] {
            layouts.extend(stages(pp).map(|z| (tp, pp, Some(z))));
        }
        for &micro in &micros {
            if let Some(fix) = layouts
                .iter()
                .filter(|&&(_, pp, _)| pp <= layers)
                .map(|&(tp, pp, zero)| split(gpus, tp, pp, zero, micro))
                .find(fits)
            {
                return Some(fix);
            }
        }
        gpus *= 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ZeRO default prices the state per stage on top of activations worked out once: the same
    /// stage as evaluating the memory at every stage, for pipelines, interleaving and recomputation.
    #[test]
    fn the_zero_default_is_the_least_stage_that_fits() {
        for q in [
            "gpus=8",
            "model=llama3-70b&gpus=64&tp=8",
            "model=llama3-70b&gpus=256&tp=8&pp=4&vpp=2&micro=1",
            "model=llama3-405b&gpus=1024&tp=8&pp=16&recompute=full",
            "model=gpt2-xl&gpus=4&per_node=4&gpu=rtx4090",
            "model=llama3-8b&gpus=8&recompute=ops&micro=4",
            // A pipeline that ZeRO-1 does not fit: its default stays at 1.
            "model=llama3-405b&gpus=16384&tp=8&pp=16&batch=2048",
        ] {
            let s = crate::model::scenario::Scenario::parse(q)
                .unwrap()
                .setup()
                .unwrap();
            // Pipelines shard no further than ZeRO-1.
            let most = if s.pp > 1 { 1 } else { 3 };
            let direct = (0..=most)
                .find(|&z| {
                    let mut t = s.clone();
                    t.zero = z;
                    memory(&t).fits()
                })
                .unwrap_or(most);
            assert_eq!(s.zero, direct, "{q}");
        }
    }
}
