//! Workloads: what one training sample costs in FLOPs, parameters and activation memory.

use super::hardware::Precision;

/// How a workload is described.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arch {
    /// A decoder/encoder transformer.
    Transformer {
        /// Layers.
        layers: u32,
        /// Hidden size.
        hidden: u32,
        /// Attention heads.
        heads: u32,
        /// Sequence length, tokens.
        seq: u32,
        /// Vocabulary size.
        vocab: u32,
    },
    /// Any model given by parameters and training FLOPs per sample (e.g. a CNN).
    Generic {
        /// Training FLOPs (forward + backward) per sample.
        flops_per_sample: f64,
        /// Activation bytes per sample kept for the backward pass (16-bit).
        act_bytes_per_sample: f64,
        /// Tokens a sample is, for a model given by its parameters (`seq`): its data budget and
        /// critical batch count them. `None` for images.
        tokens: Option<f64>,
    },
}

/// Activation recomputation (Korthikanti et al. 2022, "Reducing Activation Recomputation in
/// Large Transformer Models").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Recompute {
    /// Nothing is recomputed.
    None,
    /// Recompute only the attention core (softmax, dropout): cheap, saves the s² terms.
    Selective,
    /// PyTorch's selective checkpointing by operator, as torchtitan configures it
    /// (`selective_ac_option = "op"`; `_save_list` and the policy in `parallelize_llama.py`
    /// at the December 2024 benchmarks' commit 9dec370): the outputs of matmuls are kept except
    /// every second one, and so are the attention kernel's output and tensor parallelism's
    /// reduce-scatters; norms, activations and the skipped matmuls are recomputed. Transformer
    /// layers only.
    Ops,
    /// Recompute each layer's forward from its input.
    Full,
}

impl Recompute {
    /// All options.
    pub const ALL: [Recompute; 4] = [
        Recompute::None,
        Recompute::Selective,
        Recompute::Ops,
        Recompute::Full,
    ];

    /// Scenario id.
    pub fn id(self) -> &'static str {
        match self {
            Recompute::None => "none",
            Recompute::Selective => "selective",
            Recompute::Full => "full",
            Recompute::Ops => "ops",
        }
    }

    /// Parses a scenario id.
    pub fn from_id(s: &str) -> Option<Recompute> {
        Recompute::ALL.into_iter().find(|r| r.id() == s)
    }
}

/// How a step keeps its activations: what decides their bytes and the recomputed FLOPs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Activations {
    /// What is recomputed in the backward pass.
    pub recompute: Recompute,
    /// Eager attention (stores the score matrix) rather than FlashAttention.
    pub eager: bool,
    /// Tensor-parallel degree.
    pub tp: u32,
    /// Sequence parallelism.
    pub sp: bool,
}

impl Activations {
    /// Whether the backward pass runs the attention core's forward again: under full
    /// recomputation, and for eager attention under selective or op-level recomputation too.
    pub fn attention_recomputed(&self) -> bool {
        match self.recompute {
            Recompute::None => false,
            Recompute::Selective | Recompute::Ops => self.eager,
            Recompute::Full => true,
        }
    }

    /// Whether the s×s attention scores are kept for the backward pass.
    pub fn stores_scores(&self) -> bool {
        self.eager && self.recompute == Recompute::None
    }
}

/// A workload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Workload {
    /// Preset id, or `custom`.
    pub id: &'static str,
    /// Human name.
    pub name: &'static str,
    /// Parameters.
    pub params: f64,
    /// Shape.
    pub arch: Arch,
    /// Fraction of the GPU's achievable matmul rate this workload's kernels sustain over a whole
    /// training step (see the constants below for sources).
    pub kernel_efficiency: Efficiency,
    /// Micro-batch per GPU when the scenario gives none.
    pub default_micro: u32,
    /// Samples per second one node's input pipeline delivers when the scenario gives none.
    pub default_data_rate: f64,
    /// The input embedding is a table of its own, looked up rather than multiplied (Llama's
    /// untied embeddings; BERT, whose tied output head multiplies by it on the masked 15 % of
    /// tokens only, [`Workload::head_is_lookup_table`]): its V·h parameters cost no GEMM FLOPs
    /// as a table. Tied embeddings (GPT-2, GPT-3, Megatron's GPT) serve as the output
    /// projection and do.
    pub untied_embeddings: bool,
    /// Share of a sample's tokens the loss runs over: 1 for language models, 0.15 for BERT,
    /// whose masked-LM loss covers only the masked tokens (Devlin et al. 2019 §3.1).
    pub loss_token_share: f64,
    /// The output head multiplies by the input embedding table (BERT's masked-LM decoder reuses
    /// its weights), so its V·h weights are counted once, as the lookup table, not as a layer's.
    pub head_is_lookup_table: bool,
    /// The transformer layer's widths (the GEMM shapes and stored activations follow them).
    pub layout: Layout,
}

/// Transformer GEMMs (attention and MLP matmuls, counted by [`Workload::hardware_flops_per_sample`])
/// sustain this fraction of the GPU's MAMF rate inside a training step: shapes are not the
/// best-case ones and kernels interleave with others. The memory-bound rest of a layer is timed
/// separately ([`Workload::traffic_bytes_per_sample`]), and a GEMM's shallow reduction depth by
/// [`Workload::gemm_depth_factor`]. Calibrated once, by least squares over Megatron-LM's
/// weak-scaling table (Narayanan et al. 2021, Table 1: 1.7B–1T GPT models on 32–3072 A100s,
/// 137–163 TFLOP/s per GPU; `tests/data/calibration.csv`, the `megatron-*` rows, with the
/// micro-batches, interleaving and fp16 of the paper's reproduction script, whose code
/// predates Megatron's asynchronous tensor-parallel backward: `tp_async=0`): 0.74, the
/// least-squares optimum, sum of squared % errors 43 (40 while the memory-bound rest ran at an
/// assumed 0.8 of HBM's rate, not each GPU's measured share,
/// [`hbm_efficiency`](super::hardware::Gpu::hbm_efficiency); 33 before the pipeline bubble
/// counted the tensor-parallel wait in each slot; 0.72 before the loss was charged
/// Megatron's unfused passes, [`LOSS_TRAFFIC_BYTES_PER_LOGIT`], and eager attention the depth
/// law, [`Workload::attention_depth_factor`]); the same constant serves every transformer and
/// GPU.
pub const TRANSFORMER_KERNEL_EFFICIENCY: f64 = 0.74;

/// The depth scale of a GEMM's overhead: a GEMM of reduction depth K takes (1 + k0/K) times its
/// FLOPs at the best-shape rate, plus [`GEMM_FIXED_S`] (each thread block's start-up and tail
/// weigh more when its loop over K is short). Fitted on XLA's measured H100 matmul table (tensorflow/tensorflow@9bebee8e
/// `third_party/xla/xla/service/gpu/model/matmul_interpolator_data.h`, "sm_90", bf16, 27 shapes
/// with M 4K–16K tokens and N, K 1K–4K: k0 ≈ 130 with a 5 µs fixed time, RMS 1.6 %; e.g.
/// M = 4096, N = K = 1024 / 2048 / 4096: 49.7 / 73.1 / 79.5 % of peak); A100 GEMMs profiled in
/// Llama 3 layers (microsoft/vidur@7d47513 `data/profiling/compute/a100`, M 8K–32K) fit the
/// same k0 (130), though more loosely. Only the law's shape is taken: its level is the GPU's
/// MAMF × the transformer kernel share, calibrated (the XLA fit's own asymptote, 0.84 of peak,
/// is above the MAMF table's 0.80, a different harness). **Assumption**: the same on every GPU.
pub const GEMM_K0: f64 = 130.0;

/// A GEMM's fixed time, seconds: kernel start-up and tail, the second term of the XLA fit above.
pub const GEMM_FIXED_S: f64 = 5e-6;

/// A transformer layer's widths relative to h: its key/value projections (key/value heads over
/// attention heads, grouped-query attention) and its SwiGLU MLP's width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    /// Key/value heads over attention heads.
    pub kv_share: f64,
    /// The MLP's hidden width over h.
    pub mlp_width: f64,
}

impl Layout {
    /// Llama 3 8B: 8 key/value heads of 32, an MLP of 14,336 over 4,096 (Dubey et al. 2024,
    /// Table 3). **Assumption**: every transformer without a layout of its own (the custom
    /// models, GPT and BERT presets) is laid out so; its stored activations (34·s·h,
    /// [`Layout::stored_bytes_per_token`]) are Korthikanti et al.'s GPT layer's too.
    pub const LLAMA3_8B: Layout = Layout {
        kv_share: 0.25,
        mlp_width: 3.5,
    };
    /// Llama 3 70B: 8 key/value heads of 64, 28,672 over 8,192 (Table 3).
    pub const LLAMA3_70B: Layout = Layout {
        kv_share: 0.125,
        mlp_width: 3.5,
    };
    /// Llama 3 405B: 8 key/value heads of 128, 53,248 over 16,384 (Table 3).
    pub const LLAMA3_405B: Layout = Layout {
        kv_share: 0.0625,
        mlp_width: 3.25,
    };

    /// Bytes per token and unit of h a layer stores for its backward pass, 16-bit, without
    /// dropout: the two norms' inputs and outputs (8), q and the attention output (4), k and v
    /// (4·kv_share), the MLP's gate, up and their product (6·mlp_width). 34 for Llama 3 8B,
    /// which is also Korthikanti et al.'s count for a GPT layer (with its dropout masks and a
    /// 4h MLP); 31.75 for 405B.
    pub fn stored_bytes_per_token(&self) -> f64 {
        12.0 + 4.0 * self.kv_share + 6.0 * self.mlp_width
    }

    /// The layer's matmuls in forward order, each as (output width, input width) in units of
    /// h: q, k, v, the attention output, the MLP's gate and up projections and its down
    /// projection (torchtitan's Llama layer: `wq, wk, wv, wo, w1, w3, w2`).
    fn matmuls(&self) -> [(f64, f64); 7] {
        let (kv, mlp) = (self.kv_share, self.mlp_width);
        [
            (1.0, 1.0),
            (kv, 1.0),
            (kv, 1.0),
            (1.0, 1.0),
            (mlp, 1.0),
            (mlp, 1.0),
            (1.0, mlp),
        ]
    }

    /// The layer's GEMMs as Megatron-Core and Transformer Engine launch them: QKV fused, the
    /// attention output, the MLP's gate and up projections fused, its down projection; each as
    /// (output width, input width) in units of h, and whether tensor parallelism splits its
    /// input (row-parallel) rather than its output.
    fn fused_gemms(&self) -> [(f64, f64, bool); 4] {
        let (kv, mlp) = (self.kv_share, self.mlp_width);
        [
            (1.0 + 2.0 * kv, 1.0, false),
            (1.0, 1.0, true),
            (2.0 * mlp, 1.0, false),
            (1.0, mlp, true),
        ]
    }
}

/// Bytes per token and unit of h a layer keeps whole on every tensor-parallel rank without
/// sequence parallelism: Korthikanti et al. 2022's 10 for a GPT layer (its two layer norms'
/// inputs, the inputs of the QKV and first MLP matmuls, and two dropout masks). **Assumption**:
/// the same for every layout; a Llama layer, without dropout, keeps 8 (its norms' inputs and
/// outputs), so this overstates a Llama layer under tp without sp by 2·s·h a layer.
const WHOLE_WITHOUT_SP: f64 = 10.0;

/// Under [`Recompute::Ops`], the matmuls whose outputs are kept: the 1st, 3rd, 5th and 7th
/// (torchtitan's policy counts matmuls and recomputes every second one).
fn ops_kept(i: usize) -> bool {
    i % 2 == 0
}

/// Under [`Recompute::Ops`], the share of the dense layers' forward FLOPs that the backward pass
/// recomputes: the skipped matmuls' share of the layer's matmul FLOPs (4.75/13 for Llama 3 8B).
pub fn ops_recomputed_share(layout: &Layout) -> f64 {
    let flops = |(o, i): &(f64, f64)| o * i;
    let matmuls = layout.matmuls();
    let all: f64 = matmuls.iter().map(flops).sum();
    let skipped: f64 = matmuls
        .iter()
        .enumerate()
        .filter(|(i, _)| !ops_kept(*i))
        .map(|(_, m)| flops(m))
        .sum();
    skipped / all
}

/// Bytes per token and layer, 16-bit, that [`Recompute::Ops`] keeps on one GPU of a
/// tensor-parallel group of `t`: the kept matmul outputs, the attention output and the layer's
/// input (the checkpoint's argument). Column-parallel outputs (q, v, the gate) are split by t;
/// the down projection's matmul output is the row-parallel partial sum, whole on every GPU. With
/// sequence parallelism (torchtitan's tensor parallelism always has it: `wo` and `w2` are
/// `RowwiseParallel(output_layouts=Shard(1))`), the layer input is split and the two
/// reduce-scatters' outputs are kept too (`_save_list` has `reduce_scatter_tensor`).
/// 15.5·h at t = 1, 4.2·h for Llama 3 8B at t = 8.
fn ops_kept_bytes_per_token(layout: &Layout, h: f64, t: f64, sp: bool) -> f64 {
    let matmuls = layout.matmuls();
    let down = matmuls.len() - 1;
    let kept: f64 = matmuls
        .iter()
        .enumerate()
        .filter(|(i, _)| ops_kept(*i))
        .map(|(i, (o, _))| if i == down { *o } else { o / t })
        .sum();
    let sequence_split = sp && t > 1.0;
    let input = if sequence_split { 1.0 / t } else { 1.0 };
    let reduce_scatters = if sequence_split { 2.0 / t } else { 0.0 };
    let attention_out = 1.0 / t;
    2.0 * h * (kept + attention_out + input + reduce_scatters)
}

/// Passes over a layer's stored activations per training step: written in the forward pass,
/// written again by recomputation, read in the backward pass, and the activation gradients written
/// and read (Korthikanti et al. 2022 count the stored bytes; the pass count is ours).
const TRAFFIC_PASSES: f64 = 4.0;

/// HBM bytes the loss moves per logit, counted pass by pass on Megatron-LM's default unfused
/// vocabulary-parallel cross-entropy (NVIDIA/Megatron-LM@f2e5db402c
/// `megatron/core/tensor_parallel/cross_entropy.py`; `--cross-entropy-loss-fusion` is off by
/// default): forward, the cast to FP32 (read 2, write 4), the max (read 4), the in-place
/// subtraction, exponential and division (read 4, write 4 each) and the sum (read 4): 38;
/// backward, the in-place multiply by the loss gradient (8) and the cast back to 16 bits (read 4,
/// write 2): 14. PyTorch's `cross_entropy` on FP32 logits (torchtitan) counts 48 the same way
/// (`log_softmax` reads its input three times); fused kernels (NeMo 2's default) about 40.
/// **Assumption**: every framework moves the unfused 52.
pub const LOSS_TRAFFIC_BYTES_PER_LOGIT: f64 = 52.0;

/// What share of the achievable matmul rate a workload's kernels sustain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Efficiency {
    /// Transformer GEMMs: [`TRANSFORMER_KERNEL_EFFICIENCY`].
    Transformer,
    /// Convolutional networks: batch norm, activations and small convolutions are memory-bound,
    /// so the share of peak depends on how fast the math is — it differs by math type.
    Cnn {
        /// FP32 on CUDA cores.
        fp32: f64,
        /// TF32 tensor cores.
        tf32: f64,
        /// FP16/BF16 tensor cores (FP8 runs convolutions at this rate too).
        half: f64,
    },
}

impl Efficiency {
    /// The share for a precision.
    pub fn at(&self, p: Precision) -> f64 {
        match (self, p) {
            (Efficiency::Transformer, _) => TRANSFORMER_KERNEL_EFFICIENCY,
            (Efficiency::Cnn { fp32, .. }, Precision::Fp32) => *fp32,
            (Efficiency::Cnn { tf32, .. }, Precision::Tf32) => *tf32,
            (Efficiency::Cnn { half, .. }, _) => *half,
        }
    }
}

/// ResNet-50's convolutions are far from GEMM peak, and by how much depends on the math (He et al.
/// 2016 Table 1: 3.8 GMAC forward per 224² image, so 22.8 GFLOP per training image); its batch
/// norms, activations and residual adds are timed apart, as HBM traffic
/// ([`Workload::traffic_bytes_per_sample`]). Fitted, one row each, on NVIDIA DeepLearningExamples'
/// PyTorch ResNet-50 v1.5 table (calibration rows `rn50-a100-1gpu-tf32`, `rn50-a100-1gpu-amp`,
/// `rn50-v100-8gpu-fp32`), after each image's 168 MB (16-bit) or 336 MB (32-bit) of traffic at
/// the GPU's measured streaming rate ([`hbm_efficiency`](super::hardware::Gpu::hbm_efficiency)):
/// TF32 on A100 938 img/s = 0.20 of 156 × 0.87 (+1.8 %; 0.19 gives −2.3 %); mixed precision on
/// A100 2470 img/s = 0.28 of 312 × 0.87 (−0.8 %); FP32 on V100 CUDA cores 2855 img/s on 8 GPUs =
/// 0.77 of 15.7 × 0.80.
pub const RESNET50_KERNEL_EFFICIENCY: Efficiency = Efficiency::Cnn {
    fp32: 0.77,
    tf32: 0.20,
    half: 0.28,
};

/// Text data is pre-tokenised and memory-mapped (Megatron-LM's indexed datasets): the loader
/// delivers far more sequences than any node consumes. **Assumption**: 50,000 sequences/s/node.
const TEXT_DATA_RATE: f64 = 50_000.0;

/// ImageNet JPEG decode + augmentation per node. **Assumption**: 25,000 img/s with NVIDIA DALI's
/// GPU-assisted decoding on a DGX-class node (a CPU-only loader manages a few thousand). What is
/// published bounds it from below only: DeepLearningExamples' MXNet ResNet-50 v1.5 README
/// (`dali-gpu`, throughput with data and compute) trains 16,925 img/s on a DGX A100 and 10,723 on
/// a DGX-1 in mixed precision, so the pipeline delivers at least that much.
const IMAGE_DATA_RATE: f64 = 25_000.0;

/// Presets. Transformer shapes from the model papers: BERT-large (Devlin et al. 2019: 24 layers,
/// 1024 hidden, 16 heads, 340M), GPT-2 XL (Radford et al. 2019: 48 layers, 1600 hidden, 1.5B),
/// Llama 3 8B/70B/405B (Llama 3 paper, Table 3: 32/80/126 layers, 4096/8192/16384 hidden,
/// 32/64/128 heads, vocab 128K, 8K context), GPT-3 175B (Brown et al. 2020, Table 2.1: 96 layers,
/// 12288 hidden, 96 heads, 2048 context).
pub const PRESETS: [Workload; 7] = [
    Workload {
        id: "resnet50",
        name: "ResNet-50 (ImageNet)",
        params: 25.6e6,
        arch: Arch::Generic {
            flops_per_sample: 22.8e9,
            // 42 MB of 16-bit activations kept per 224² image: 20.9M values, counted from He et
            // al. 2016 Table 1's shapes (v1.5: the stride on the 3×3 convolution) as PyTorch keeps
            // them: each convolution's output (its batch norm's input) and each batch norm's
            // output (the in-place ReLU's, the next convolution's input), a downsample's
            // convolution output, the max-pool's output.
            act_bytes_per_sample: 42e6,
            tokens: None,
        },
        kernel_efficiency: RESNET50_KERNEL_EFFICIENCY,
        default_micro: 256,
        default_data_rate: IMAGE_DATA_RATE,
        untied_embeddings: false,
        loss_token_share: 1.0,
        head_is_lookup_table: false,
        layout: Layout::LLAMA3_8B,
    },
    Workload {
        id: "bert-large",
        name: "BERT-large (seq 512)",
        params: 340e6,
        arch: Arch::Transformer {
            layers: 24,
            hidden: 1024,
            heads: 16,
            seq: 512,
            vocab: 30522,
        },
        kernel_efficiency: Efficiency::Transformer,
        default_micro: 32,
        default_data_rate: TEXT_DATA_RATE,
        untied_embeddings: true,
        loss_token_share: 0.15,
        head_is_lookup_table: true,
        layout: Layout::LLAMA3_8B,
    },
    Workload {
        id: "gpt2-xl",
        name: "GPT-2 XL 1.5B",
        params: 1.56e9,
        arch: Arch::Transformer {
            layers: 48,
            hidden: 1600,
            heads: 25,
            seq: 1024,
            vocab: 50257,
        },
        kernel_efficiency: Efficiency::Transformer,
        default_micro: 8,
        default_data_rate: TEXT_DATA_RATE,
        untied_embeddings: false,
        loss_token_share: 1.0,
        head_is_lookup_table: false,
        layout: Layout::LLAMA3_8B,
    },
    Workload {
        id: "llama3-8b",
        name: "Llama 3 8B",
        params: 8.03e9,
        arch: Arch::Transformer {
            layers: 32,
            hidden: 4096,
            heads: 32,
            seq: 8192,
            vocab: 128256,
        },
        kernel_efficiency: Efficiency::Transformer,
        default_micro: 1,
        default_data_rate: TEXT_DATA_RATE,
        untied_embeddings: true,
        loss_token_share: 1.0,
        head_is_lookup_table: false,
        layout: Layout::LLAMA3_8B,
    },
    Workload {
        id: "llama3-70b",
        name: "Llama 3 70B",
        params: 70.6e9,
        arch: Arch::Transformer {
            layers: 80,
            hidden: 8192,
            heads: 64,
            seq: 8192,
            vocab: 128256,
        },
        kernel_efficiency: Efficiency::Transformer,
        default_micro: 1,
        default_data_rate: TEXT_DATA_RATE,
        untied_embeddings: true,
        loss_token_share: 1.0,
        head_is_lookup_table: false,
        layout: Layout::LLAMA3_70B,
    },
    Workload {
        id: "llama3-405b",
        name: "Llama 3 405B",
        params: 405.9e9,
        arch: Arch::Transformer {
            layers: 126,
            hidden: 16384,
            heads: 128,
            seq: 8192,
            vocab: 128256,
        },
        kernel_efficiency: Efficiency::Transformer,
        default_micro: 1,
        default_data_rate: TEXT_DATA_RATE,
        untied_embeddings: true,
        loss_token_share: 1.0,
        head_is_lookup_table: false,
        layout: Layout::LLAMA3_405B,
    },
    Workload {
        id: "gpt3-175b",
        name: "GPT-3 175B",
        params: 174.6e9,
        arch: Arch::Transformer {
            layers: 96,
            hidden: 12288,
            heads: 96,
            seq: 2048,
            vocab: 50257,
        },
        kernel_efficiency: Efficiency::Transformer,
        default_micro: 1,
        default_data_rate: TEXT_DATA_RATE,
        untied_embeddings: false,
        loss_token_share: 1.0,
        head_is_lookup_table: false,
        layout: Layout::LLAMA3_8B,
    },
];

/// Looks a preset up by id.
pub fn preset(id: &str) -> Option<&'static Workload> {
    PRESETS.iter().find(|w| w.id == id)
}

/// Ids accepted by `model=`.
pub fn ids() -> String {
    let mut v: Vec<&str> = PRESETS.iter().map(|w| w.id).collect();
    v.push("custom");
    v.join(", ")
}

/// A custom transformer. Parameters by Narayanan et al. 2021, eq. 2:
/// P = 12·l·h²·(1 + 13/(12h) + (V + s)/(12·l·h)).
pub fn custom_transformer(layers: u32, hidden: u32, heads: u32, seq: u32, vocab: u32) -> Workload {
    let (l, h, s, v) = (
        f64::from(layers),
        f64::from(hidden),
        f64::from(seq),
        f64::from(vocab),
    );
    let params = 12.0 * l * h * h * (1.0 + 13.0 / (12.0 * h) + (v + s) / (12.0 * l * h));
    Workload {
        id: "custom",
        name: "Custom transformer",
        params,
        arch: Arch::Transformer {
            layers,
            hidden,
            heads,
            seq,
            vocab,
        },
        kernel_efficiency: Efficiency::Transformer,
        default_micro: 1,
        default_data_rate: TEXT_DATA_RATE,
        untied_embeddings: false,
        loss_token_share: 1.0,
        head_is_lookup_table: false,
        layout: Layout::LLAMA3_8B,
    }
}

/// A custom model by parameters and training FLOPs per sample (dense-model kernels assumed), of
/// `tokens` a sample when it says.
pub fn custom_generic(params: f64, flops_per_sample: f64, tokens: Option<f64>) -> Workload {
    Workload {
        id: "custom",
        name: "Custom model",
        params,
        arch: Arch::Generic {
            flops_per_sample,
            // Assumption: activations comparable to 16-bit copies of the parameters per sample
            // are too model-specific to guess; count one parameter-sized buffer per sample / 64.
            act_bytes_per_sample: params * 2.0 / 64.0,
            tokens,
        },
        kernel_efficiency: Efficiency::Transformer,
        default_micro: 1,
        default_data_rate: TEXT_DATA_RATE,
        untied_embeddings: false,
        loss_token_share: 1.0,
        head_is_lookup_table: false,
        layout: Layout::LLAMA3_8B,
    }
}

impl Workload {
    /// Tokens per sample (transformers), else `None`.
    pub fn tokens_per_sample(&self) -> Option<f64> {
        match self.arch {
            Arch::Transformer { seq, .. } => Some(f64::from(seq)),
            Arch::Generic { .. } => None,
        }
    }

    /// The tokens a sample is, whatever the model's shape: a transformer's sequence, or what a
    /// model given by its parameters says (`seq`). Token budgets, tokens/s and the critical
    /// batch count these; the shape's own costs go with [`Workload::tokens_per_sample`].
    pub fn sample_tokens(&self) -> Option<f64> {
        match self.arch {
            Arch::Generic { tokens, .. } => tokens,
            Arch::Transformer { .. } => self.tokens_per_sample(),
        }
    }

    /// Model FLOPs per training sample, without recomputation: 6 per multiplied parameter and
    /// token (the lookup tables excluded, as Megatron-LM's `num_floating_point_operations` and
    /// torchtitan's `get_nparams_and_flops` count) plus attention 12·l·h·s² (PaLM, Chowdhery et
    /// al. 2022, appendix B — the MFU convention). Megatron-LM's count has halved the attention
    /// term for the causal mask since 20d66d5 (2026-01); its 2024 H100 table (the `mcore-*`
    /// rows, @f2e5db402c `training.py`) counted it whole, as here.
    pub fn model_flops_per_sample(&self) -> f64 {
        match self.arch {
            Arch::Transformer {
                layers,
                hidden,
                seq,
                ..
            } => {
                let s = f64::from(seq);
                self.dense_flops_once() + 12.0 * f64::from(layers) * f64::from(hidden) * s * s
            }
            Arch::Generic {
                flops_per_sample, ..
            } => flops_per_sample,
        }
    }

    /// Dense FLOPs per sample without recomputation: 6 per parameter and token (forward 2,
    /// backward 4; Kaplan et al. 2020 §2.1) over the parameters that are multiplied. A head tied
    /// to the lookup table multiplies by it only where the loss runs: BERT's masked-LM decoder on
    /// the masked tokens (DeepLearningExamples gathers them first: `sequence_output_is_dense`,
    /// its default).
    fn dense_flops_once(&self) -> f64 {
        match self.arch {
            Arch::Transformer {
                seq, vocab, hidden, ..
            } => {
                let head = if self.head_is_lookup_table {
                    f64::from(vocab) * f64::from(hidden) * self.loss_token_share
                } else {
                    0.0
                };
                6.0 * ((self.params - self.lookup_params()).max(0.0) + head) * f64::from(seq)
            }
            Arch::Generic {
                flops_per_sample, ..
            } => flops_per_sample,
        }
    }

    /// Parameters that only cost a table lookup per token: learned position embeddings (s·h,
    /// Narayanan et al.'s eq. 2) and, for untied models, the input embedding (V·h).
    pub fn lookup_params(&self) -> f64 {
        match self.arch {
            Arch::Transformer {
                hidden, seq, vocab, ..
            } => {
                let table = if self.untied_embeddings {
                    f64::from(vocab)
                } else {
                    f64::from(seq)
                };
                table * f64::from(hidden)
            }
            Arch::Generic { .. } => 0.0,
        }
    }

    /// Dense FLOPs the backward pass spends again per sample: a share of the transformer
    /// layers' forward, 2 per layer parameter and token — all of it with full recomputation,
    /// the skipped matmuls' share under [`Recompute::Ops`]. The output projection (V·h) is not
    /// inside a checkpointed layer and is not repeated (Megatron-LM's own FLOP count, Narayanan
    /// et al. 2021 appendix, repeats only the layers). Generic models repeat a third of their
    /// FLOPs under full recomputation and keep everything otherwise.
    fn recomputed_dense_flops(&self, r: Recompute) -> f64 {
        let share = match r {
            Recompute::Full => 1.0,
            Recompute::Ops => ops_recomputed_share(&self.layout),
            Recompute::None | Recompute::Selective => 0.0,
        };
        match self.arch {
            Arch::Transformer { seq, .. } => 2.0 * self.layer_params() * f64::from(seq) * share,
            Arch::Generic {
                flops_per_sample, ..
            } if r == Recompute::Full => flops_per_sample / 3.0,
            Arch::Generic { .. } => 0.0,
        }
    }

    /// FLOPs of the transformer layers' GEMMs per sample, once (6 per layer weight and token;
    /// the backward's share is 4 of the 6). 0 for a generic model.
    pub fn layer_dense_flops_per_sample(&self) -> f64 {
        match self.arch {
            Arch::Transformer { seq, .. } => 6.0 * self.layer_params() * f64::from(seq),
            Arch::Generic { .. } => 0.0,
        }
    }

    /// Parameters inside the transformer layers: neither a lookup table nor the output
    /// projection (V·h, unless tied to the lookup table, where it is out of the dense count
    /// already). 0 for a generic model.
    pub fn layer_params(&self) -> f64 {
        match self.arch {
            Arch::Transformer { hidden, vocab, .. } => {
                let output = if self.head_is_lookup_table {
                    0.0
                } else {
                    f64::from(vocab) * f64::from(hidden)
                };
                (self.params - self.lookup_params() - output).max(0.0)
            }
            Arch::Generic { .. } => 0.0,
        }
    }

    /// FLOPs of the dense layers (every GEMM but attention's own) per sample: the model's
    /// (6 per multiplied parameter and token, as in [`Workload::model_flops_per_sample`]) plus
    /// what recomputation repeats.
    pub fn linear_flops_per_sample(&self, a: &Activations) -> f64 {
        self.dense_flops_once() + self.recomputed_dense_flops(a.recompute)
    }

    /// FLOPs of the attention core (QKᵀ and the weighted sum) per sample as a kernel executes
    /// them. Eager attention computes every score: 12·l·h·s² forward and backward (PaLM's
    /// convention), plus the forward again (4·l·h·s²) when it is recomputed. FlashAttention skips
    /// the masked half of a causal matrix and recomputes the scores in its backward pass: forward
    /// 4·s²·h per layer, backward 2.5× that, halved for the causal mask (Dao 2023 §4.1), so
    /// 7·l·h·s², and 2·l·h·s² more under full recomputation.
    pub fn attention_flops_per_sample(&self, a: &Activations) -> f64 {
        match self.arch {
            Arch::Transformer {
                layers,
                hidden,
                seq,
                ..
            } => {
                let lhs2 = f64::from(layers) * f64::from(hidden) * f64::from(seq).powi(2);
                // Eager attention's batched matmuls and softmax are not kept by any policy but
                // `none`; FlashAttention's output is kept by `ops`.
                let recomputed = match a.recompute {
                    Recompute::None => 0.0,
                    Recompute::Selective | Recompute::Ops | Recompute::Full => 4.0,
                };
                if a.eager {
                    (12.0 + recomputed) * lhs2
                } else {
                    let full = if a.recompute == Recompute::Full {
                        2.0
                    } else {
                        0.0
                    };
                    (7.0 + full) * lhs2
                }
            }
            Arch::Generic { .. } => 0.0,
        }
    }

    /// Hardware FLOPs per sample including recomputation (what Megatron-LM reports): the model
    /// FLOPs, the dense FLOPs recomputation repeats, and the attention core's forward
    /// (4·l·h·s², Korthikanti et al. 2022 §5) where it is recomputed: always under full
    /// recomputation, and for eager attention under selective or operator-level checkpointing.
    /// FlashAttention already recomputes its scores inside its backward kernel, so selective
    /// adds nothing to it.
    pub fn hardware_flops_per_sample(&self, a: &Activations) -> f64 {
        let core = match self.arch {
            Arch::Transformer {
                layers,
                hidden,
                seq,
                ..
            } if a.attention_recomputed() => {
                4.0 * f64::from(layers) * f64::from(hidden) * f64::from(seq).powi(2)
            }
            _ => 0.0,
        };
        self.model_flops_per_sample() + self.recomputed_dense_flops(a.recompute) + core
    }

    /// Activation bytes per sample and layer, per GPU, 16-bit (Korthikanti et al. 2022, eq. 2
    /// and 3): s·h·(10 + 24/t + 5·a·s/(h·t)) with tensor parallelism alone, s·h·(34 + 5·a·s/h)/t
    /// with sequence parallelism, which also splits the layer norms and dropouts. The 5·a·s/h
    /// term is the stored attention scores, softmax and dropout mask: FlashAttention (Dao et al.
    /// 2022) never stores them, nor does selective recomputation. The 34 is the layout's
    /// [`Layout::stored_bytes_per_token`] (Llama 3 8B's and a GPT layer's; 405B's
    /// grouped-query attention and narrower MLP store 31.75), of which [`WHOLE_WITHOUT_SP`]
    /// stay whole on every rank without sequence parallelism.
    fn layer_activation_bytes(&self, a: &Activations, scores: bool) -> f64 {
        match self.arch {
            Arch::Transformer {
                hidden, heads, seq, ..
            } => {
                let (s, h, n, t) = (
                    f64::from(seq),
                    f64::from(hidden),
                    f64::from(heads),
                    f64::from(a.tp),
                );
                let scores = if scores { 5.0 * n * s / h / t } else { 0.0 };
                let stored = self.layout.stored_bytes_per_token();
                let linear = if a.sp || a.tp == 1 {
                    stored / t
                } else {
                    WHOLE_WITHOUT_SP + (stored - WHOLE_WITHOUT_SP) / t
                };
                s * h * (linear + scores)
            }
            Arch::Generic { .. } => 0.0,
        }
    }

    /// Memory-bound bytes one sample moves through HBM in a training step on one GPU, for the
    /// layers it owns: `TRAFFIC_PASSES` passes over the layer activations, one more with full
    /// recomputation, and under [`Recompute::Ops`] the part of one that it does not keep.
    /// Eager attention moves its score matrix whether or not it is kept (a recomputation writes
    /// it again). A model given by its activation bytes ([`Arch::Generic`], ResNet-50's batch
    /// norms, activations and residual adds) makes the same passes over them, and under full
    /// recomputation writes again what it did not keep.
    pub fn traffic_bytes_per_sample(&self, a: &Activations, layer_share: f64) -> f64 {
        if let Arch::Generic { .. } = self.arch {
            let stored = self.activation_bytes_per_sample(
                &Activations {
                    recompute: Recompute::None,
                    ..*a
                },
                layer_share,
            );
            let kept = self.activation_bytes_per_sample(a, layer_share);
            return TRAFFIC_PASSES * stored + (stored - kept);
        }
        let layer = self.layer_activation_bytes(a, a.eager);
        let rewritten = match (a.recompute, self.arch) {
            (Recompute::Full, _) => 1.0,
            (Recompute::Ops, Arch::Transformer { hidden, seq, .. }) if layer > 0.0 => {
                let kept = f64::from(seq)
                    * ops_kept_bytes_per_token(
                        &self.layout,
                        f64::from(hidden),
                        f64::from(a.tp),
                        a.sp,
                    );
                (1.0 - kept / layer).max(0.0)
            }
            _ => 0.0,
        };
        (TRAFFIC_PASSES + rewritten) * layer * f64::from(self.layers()) * layer_share
    }

    /// Activation bytes per sample held for the backward pass on one GPU, for the layers it owns
    /// (`layer_share` = 1/pp): the layer activations above, only each layer's input (2·s·h,
    /// split by tp with sequence parallelism) with full recomputation, or what
    /// [`Recompute::Ops`] keeps.
    pub fn activation_bytes_per_sample(&self, a: &Activations, layer_share: f64) -> f64 {
        match self.arch {
            Arch::Transformer { hidden, seq, .. } => {
                let (s, h) = (f64::from(seq), f64::from(hidden));
                let per_layer = match a.recompute {
                    Recompute::Full => {
                        let split = if a.sp { f64::from(a.tp) } else { 1.0 };
                        s * h * 2.0 / split
                    }
                    Recompute::Ops => {
                        s * ops_kept_bytes_per_token(&self.layout, h, f64::from(a.tp), a.sp)
                    }
                    Recompute::None | Recompute::Selective => {
                        self.layer_activation_bytes(a, a.stores_scores())
                    }
                };
                per_layer * f64::from(self.layers()) * layer_share
            }
            Arch::Generic {
                act_bytes_per_sample,
                ..
            } => {
                let keep = if a.recompute == Recompute::Full {
                    0.25
                } else {
                    1.0
                };
                act_bytes_per_sample * keep * layer_share / f64::from(a.tp)
            }
        }
    }

    /// Bytes alive while the loss's backward pass runs, per sample on the last pipeline stage,
    /// split over tp by a vocabulary-parallel output layer: FP32 tensors of V per token the loss
    /// covers. torchtitan computes the loss in FP32 (`cross_entropy(pred.float(), labels)`,
    /// deleting the 16-bit logits first); `log_softmax` keeps its output for the backward pass
    /// (PyTorch `derivatives.yaml`: `_log_softmax_backward_data(grad, result, …)`), and
    /// `nll_loss`'s backward and then `log_softmax`'s each write a new s·V gradient: three
    /// tensors. With tensor parallelism torchtitan's loss is DTensor's `loss_parallel`, whose
    /// backward (`torch/distributed/tensor/parallel/loss.py`, `_nll_loss_and_log_softmax_backward`)
    /// returns `(grad_input + torch.exp(x)) * grad_output`: the saved log-softmax, the
    /// zero-filled gradient, its exponential and their sum alive at once, four. With a 128K
    /// vocabulary this is several layers' worth (Llama 3 8B at 8K tokens: 12.6 GB per sample).
    /// **Assumption**: every framework does so; Megatron's fused vocabulary-parallel loss
    /// computes the softmax and its gradient in place and keeps about a third of this.
    pub fn loss_bytes_per_sample(&self, tp: u32) -> f64 {
        let tensors = if tp > 1 { 4.0 } else { 3.0 };
        tensors * 4.0 * self.logits_per_sample(tp)
    }

    /// Logits per sample on one GPU: V per token the loss covers, split over tp.
    fn logits_per_sample(&self, tp: u32) -> f64 {
        match self.arch {
            Arch::Transformer { seq, vocab, .. } => {
                f64::from(seq) * self.loss_token_share * f64::from(vocab) / f64::from(tp)
            }
            Arch::Generic { .. } => 0.0,
        }
    }

    /// Bytes the loss moves through HBM per sample on the last pipeline stage:
    /// [`LOSS_TRAFFIC_BYTES_PER_LOGIT`] per logit, split over tp (the output GEMM's own write
    /// and read of the 16-bit logits are inside its time). A memory-bound cost that a large
    /// vocabulary makes weigh on a small model (Megatron-Core's 1.7B at 131K: 28 GB per
    /// micro-batch).
    pub fn loss_traffic_bytes_per_sample(&self, tp: u32) -> f64 {
        LOSS_TRAFFIC_BYTES_PER_LOGIT * self.logits_per_sample(tp)
    }

    /// Bytes of activations one micro-batch sends across a tensor-parallel all-reduce or a
    /// pipeline boundary: micro·s·h 16-bit values (Narayanan et al. 2021 §3.2). `None` for
    /// non-transformers.
    pub fn boundary_bytes(&self, micro: u32, precision: Precision) -> Option<f64> {
        let elem = precision.grad_bytes();
        match self.arch {
            Arch::Transformer { hidden, seq, .. } => {
                Some(f64::from(micro) * f64::from(seq) * f64::from(hidden) * elem)
            }
            Arch::Generic { .. } => None,
        }
    }

    /// Vocabulary and hidden size of a transformer.
    pub fn vocab_and_hidden(&self) -> Option<(f64, f64)> {
        match self.arch {
            Arch::Transformer { vocab, hidden, .. } => Some((f64::from(vocab), f64::from(hidden))),
            Arch::Generic { .. } => None,
        }
    }

    /// Layers and hidden size of a transformer.
    pub fn layers_and_hidden(&self) -> Option<(u32, f64)> {
        match self.arch {
            Arch::Transformer { layers, hidden, .. } => Some((layers, f64::from(hidden))),
            Arch::Generic { .. } => None,
        }
    }

    /// How much longer a transformer layer's GEMMs take than at the GPU's best-shape rate, from
    /// their reduction depths K: (1 + k0/K) times ([`GEMM_K0`]), averaged over the layer's
    /// GEMMs ([`Layout`]'s fused GEMMs) weighted by their FLOPs, forward (K = the input width, split
    /// by `tp` for the row-parallel attention output and MLP down projection), input gradient
    /// (K = the output width, split by `tp` for the column-parallel QKV and gate/up) and weight
    /// gradient (K = the micro-batch's `tokens`). 1 for a model that is not a transformer.
    pub fn gemm_depth_factor(&self, tp: u32, tokens: f64) -> f64 {
        let Arch::Transformer { hidden, .. } = self.arch else {
            return 1.0;
        };
        let (h, t) = (f64::from(hidden), f64::from(tp));
        let slower = |k: f64| 1.0 + GEMM_K0 / k;
        let (mut time, mut flops) = (0.0, 0.0);
        for (o, w, row_parallel) in self.layout.fused_gemms() {
            let (k_forward, k_input_grad) = if row_parallel {
                (w * h / t, o * h)
            } else {
                (w * h, o * h / t)
            };
            let f = o * w;
            time += f * (slower(k_forward) + slower(k_input_grad) + slower(tokens));
            flops += 3.0 * f;
        }
        time / flops
    }

    /// How much longer eager attention's batched matmuls take than at the best-shape rate, by
    /// the same depth law ([`GEMM_K0`]): per head the forward's Q·Kᵀ reduces over the head
    /// dimension d and P·V over the sequence s; the backward's dO·Vᵀ over d, and dV, dQ and dK
    /// over s. Six GEMMs of equal FLOPs, two of depth d (three of eight when the forward is
    /// recomputed): BERT-large (d = 64, s = 512) runs them 1.8× slower than a deep GEMM.
    /// **Assumption**: the law holds below the fit's K ≥ 256. 1 for a model that is not a
    /// transformer.
    pub fn attention_depth_factor(&self, a: &Activations) -> f64 {
        let Arch::Transformer {
            hidden, heads, seq, ..
        } = self.arch
        else {
            return 1.0;
        };
        let slower = |k: f64| 1.0 + GEMM_K0 / k;
        let d = f64::from(hidden) / f64::from(heads.max(1));
        let again = if a.attention_recomputed() { 1.0 } else { 0.0 };
        ((2.0 + again) * slower(d) + (4.0 + again) * slower(f64::from(seq))) / (6.0 + 2.0 * again)
    }

    /// GEMM launches in one micro-batch's forward and backward passes: per layer the four
    /// forward GEMMs of [`Layout`]'s fused GEMMs and eager attention's two batched matmuls, each
    /// with an input- and a weight-gradient GEMM behind it (12 and 6), and the four forward GEMMs
    /// again under full recomputation; and the output layer's three. 0 for a model that is not a
    /// transformer.
    pub fn gemms_per_micro_batch(&self, a: &Activations) -> f64 {
        match self.arch {
            Arch::Transformer { layers, .. } => {
                let again = if a.recompute == Recompute::Full {
                    4.0
                } else {
                    0.0
                };
                let scores = if a.eager { 6.0 } else { 0.0 };
                (12.0 + again + scores) * f64::from(layers) + 3.0
            }
            Arch::Generic { .. } => 0.0,
        }
    }

    /// Whether tensor parallelism of `tp` ranks splits the model: each rank computes whole
    /// attention heads (Megatron-LM: `num_attention_heads` divisible by the tensor-parallel size).
    pub fn splits_over(&self, tp: u32) -> bool {
        match self.arch {
            Arch::Transformer { heads, .. } => tp > 0 && heads % tp == 0,
            Arch::Generic { .. } => tp == 1,
        }
    }

    /// Number of layers (for splitting by pipeline stages); generic models count as 50.
    pub fn layers(&self) -> u32 {
        match self.arch {
            Arch::Transformer { layers, .. } => layers,
            Arch::Generic { .. } => 50,
        }
    }

    /// The most pipeline model chunks (stages × virtual stages) the model splits into: one a
    /// layer, and a transformer's embedding and its output layer with the loss each alone in a
    /// chunk of their own, as Llama 3 405B ran (126 layers in 16 × 8 chunks: "the first model
    /// chunk on the first stage has only the embedding, and the last model chunk on the last
    /// stage has only output projection and loss calculation", Dubey et al. 2024 §3.3.2;
    /// Megatron-LM's `--account-for-embedding-in-pipeline-split` and
    /// `--account-for-loss-in-pipeline-split` count them so).
    pub fn most_pipeline_chunks(&self) -> u32 {
        match self.arch {
            Arch::Transformer { layers, .. } => layers + 2,
            Arch::Generic { .. } => self.layers(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A layer stores what its own widths make it keep: Llama 3 8B's 34·h a token (Korthikanti
    /// et al.'s count for a GPT layer too), 70B's 33.5·h and 405B's 31.75·h; each preset
    /// carries its layout, and shape keys keep it.
    #[test]
    fn each_llama_preset_stores_its_own_layer() {
        let per_token = |id: &str| preset(id).map(|w| w.layout.stored_bytes_per_token());
        assert_eq!(per_token("llama3-8b"), Some(34.0));
        assert_eq!(per_token("llama3-70b"), Some(33.5));
        assert_eq!(per_token("llama3-405b"), Some(31.75));
        assert_eq!(per_token("gpt3-175b"), Some(34.0));
        let w = preset("llama3-405b").unwrap();
        let a = Activations {
            recompute: Recompute::None,
            eager: false,
            tp: 8,
            sp: true,
        };
        let (s, h) = (8192.0, 16384.0);
        let layer = w.activation_bytes_per_sample(&a, 1.0) / f64::from(w.layers());
        assert!(
            (layer / (31.75 * s * h / 8.0) - 1.0).abs() < 1e-12,
            "{layer}"
        );
        // Operator-level checkpointing keeps 405B's narrower v and gate outputs: 14.625·h at t = 1.
        let kept = ops_kept_bytes_per_token(&w.layout, 1.0, 1.0, false);
        assert!((kept - 14.625).abs() < 1e-12, "{kept}");
        assert!(
            (ops_kept_bytes_per_token(&Layout::LLAMA3_8B, 1.0, 1.0, false) - 15.5).abs() < 1e-12
        );
        // Shape keys change the shape, not the layer's proportions.
        let longer = crate::model::scenario::Scenario::parse("model=llama3-405b&seq=4096&gpus=8")
            .and_then(|sc| sc.setup())
            .unwrap();
        assert_eq!(longer.workload.layout, Layout::LLAMA3_405B);
    }

    /// ResNet-50's batch norms, ReLUs and residual adds are timed at HBM speed, apart from its
    /// convolutions: four passes over the 42 MB it keeps per image in 16 bits, and full
    /// recomputation writes again the three quarters it dropped. (They were folded into one
    /// share of peak per math type, which put one V100 in mixed precision 24 % under its
    /// published rate.)
    #[test]
    fn a_cnns_memory_bound_layers_move_bytes() {
        let rn50 = PRESETS.iter().find(|w| w.id == "resnet50").expect("preset");
        let acts = |recompute| Activations {
            recompute,
            eager: false,
            tp: 1,
            sp: false,
        };
        let kept = rn50.traffic_bytes_per_sample(&acts(Recompute::None), 1.0);
        assert!((kept - 4.0 * 42e6).abs() < 1.0, "{kept}");
        let full = rn50.traffic_bytes_per_sample(&acts(Recompute::Full), 1.0);
        assert!((full - kept - 0.75 * 42e6).abs() < 1.0, "{full}");
    }

    #[test]
    fn custom_gpt3_shape_has_175b_parameters() {
        let w = custom_transformer(96, 12288, 96, 2048, 50257);
        assert!((w.params / 1e9 - 174.6).abs() < 1.0, "{}", w.params);
    }

    #[test]
    fn megatron_1t_parameter_count() {
        // Narayanan et al. 2021 Table 1: 128 layers, 25600 hidden → 1008 B parameters.
        let w = custom_transformer(128, 25600, 160, 2048, 51200);
        assert!((w.params / 1e9 - 1008.0).abs() < 5.0, "{}", w.params);
    }

    #[test]
    fn recomputation_costs_flops() {
        let w = preset("gpt3-175b").unwrap();
        let a = |recompute| Activations {
            recompute,
            eager: true,
            tp: 1,
            sp: false,
        };
        let none = w.hardware_flops_per_sample(&a(Recompute::None));
        let sel = w.hardware_flops_per_sample(&a(Recompute::Selective));
        let full = w.hardware_flops_per_sample(&a(Recompute::Full));
        let ops = w.hardware_flops_per_sample(&a(Recompute::Ops));
        assert!(none < sel && sel < ops && ops < full);
        // Full recomputation repeats the layers' forward and attention's core, as Megatron-LM
        // counts it: 2 FLOPs per layer parameter and token and 4·l·h·s², not the output layer.
        let (l, h, s, v) = (96.0, 12288.0, 2048.0, 50257.0);
        let layers = w.params - w.lookup_params() - v * h;
        let again = 2.0 * layers * s + 4.0 * l * h * s * s;
        assert!(((full - none) / again - 1.0).abs() < 1e-12);
    }
}
