//! The scenario string: `key=value&key=value`, shared by the app's URL hash and the CLI.
//!
//! The keys themselves are rows of [`super::keys::KEYS`]; this module holds the typed
//! [`Scenario`] they write, parses and prints it through that table, and resolves it once into a
//! [`Setup`] — every default filled in, every cross-key rule checked — which is what the model
//! reads. Parsing is strict ([`Scenario::parse`]: the first problem is an error naming the key and
//! what is accepted); the app uses [`Scenario::parse_lenient`], which keeps the default for each
//! bad key and reports every problem, so the rest of the page keeps working.

use super::collective::{Algo, Cluster, Op};
use super::goodput::Operations;
use super::hardware::{self, Fabric, FabricKind, Gpu, NetKind, Network, Precision};
pub use super::keys::MAX_GPUS;
use super::keys::{self, Bytes, Count, KEYS};
use super::topology::{self, Attach, Placement, Routing, Topology};
use super::units::GIB;
use super::workload::{self, Arch, Recompute, Workload};
use super::ModelError;

/// Tokens per sample of a custom model that does not say (GPT-3's context, Brown et al. 2020).
const CUSTOM_SEQ: u32 = 2048;

/// Speedup baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scaling {
    /// One GPU runs the same per-replica batch; the global batch grows with the GPUs.
    Weak,
    /// One GPU runs the whole global batch (with gradient accumulation); the global batch stays.
    Strong,
}

impl Scaling {
    /// Both, in the order the UI lists them.
    pub const ALL: [Scaling; 2] = [Scaling::Weak, Scaling::Strong];

    /// Scenario id.
    pub fn id(self) -> &'static str {
        match self {
            Scaling::Weak => "weak",
            Scaling::Strong => "strong",
        }
    }
}

/// The attention kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Attn {
    /// FlashAttention (Dao et al. 2022): the s×s score matrix is never written to HBM; the
    /// backward pass recomputes it tile by tile.
    Flash,
    /// The first FlashAttention (Dao et al. 2022) or its Triton port: the same memory, less
    /// than half FlashAttention-2's speed (llm-foundry's `attn_impl` until 2024).
    Flash1,
    /// cuDNN's fused flash attention, which Transformer Engine picks over FlashAttention-2 on
    /// Hopper and newer GPUs (so Megatron-Core, NeMo and Megatron-Bridge run it there): the same
    /// memory, faster. Offered where its speed against FlashAttention-2 is published (Hopper).
    Cudnn,
    /// Eager attention: scores, softmax and dropout mask are stored for the backward pass
    /// (Korthikanti et al. 2022, eq. 1: the 5·a·s/h term).
    Eager,
}

impl Attn {
    /// Every kernel, default first.
    pub const ALL: [Attn; 4] = [Attn::Flash, Attn::Flash1, Attn::Cudnn, Attn::Eager];

    /// Scenario id.
    pub fn id(self) -> &'static str {
        match self {
            Attn::Flash => "flash",
            Attn::Flash1 => "flash1",
            Attn::Cudnn => "cudnn",
            Attn::Eager => "eager",
        }
    }
}

/// The workload key: a preset, or a custom model described by the shape keys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Model {
    /// One of [`workload::PRESETS`]; shape keys override its shape.
    Preset(&'static Workload),
    /// A transformer by `layers`, `hidden`, … or any model by `params` and `flops`.
    Custom,
}

impl Model {
    /// Scenario id.
    pub fn id(&self) -> &'static str {
        match self {
            Model::Preset(w) => w.id,
            Model::Custom => "custom",
        }
    }
}

/// What the training framework does, as the user set it: the same in a [`Scenario`] and its
/// [`Setup`] (no default depends on other keys).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Techniques {
    /// Activation recomputation.
    pub recompute: Recompute,
    /// Gradient sync overlapped with the backward pass.
    pub overlap: bool,
    /// ZeRO-1/2: the updated weights are all-gathered layer by layer during the next step's
    /// forward pass (Megatron-Core's distributed optimizer) instead of after the step.
    pub gather_overlap: bool,
    /// Tensor-parallel collectives overlapped with the GEMMs.
    pub tp_overlap: bool,
    /// The backward's tensor-parallel collectives of the column-parallel GEMMs run beside the
    /// next GEMM (Megatron-LM's asynchronous backward, see `step`).
    pub tp_async: bool,
    /// Gradients accumulated and reduced in FP32 (see [`Setup::grad_bytes`]).
    pub grad_fp32: bool,
}

impl Default for Techniques {
    fn default() -> Self {
        Techniques {
            recompute: Recompute::None,
            overlap: true,
            gather_overlap: false,
            tp_overlap: false,
            tp_async: true,
            grad_fp32: false,
        }
    }
}

/// Multipliers fitted on a measured nccl-tests run (1: the fabric as catalogued).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calib {
    /// On the intra-node bandwidth.
    pub intra: f64,
    /// On the network bandwidth.
    pub net: f64,
    /// On every latency.
    pub lat: f64,
}

impl Default for Calib {
    fn default() -> Self {
        Calib {
            intra: 1.0,
            net: 1.0,
            lat: 1.0,
        }
    }
}

impl Calib {
    /// Whether any multiplier differs from 1.
    pub fn is_set(&self) -> bool {
        [self.intra, self.net, self.lat]
            .iter()
            .any(|k| (k - 1.0).abs() > 1e-9)
    }
}

/// A parsed scenario: what the user gave, one field per key of [`KEYS`]. Fields whose default
/// depends on other keys are `Option`s; [`Scenario::setup`] resolves them.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The collective of the `collective` command and the collective card.
    pub op: Op,
    /// GPUs in the job.
    pub gpus: u32,
    /// GPUs per node.
    pub per_node: Option<u32>,
    /// The accelerator.
    pub gpu: &'static Gpu,
    /// The fabric inside a node.
    pub intra: Option<&'static Fabric>,
    /// The network between nodes.
    pub inter: Option<&'static Network>,
    /// PCIe peer-to-peer between the GPUs of a node; `None`: the stock driver's.
    pub p2p: Option<bool>,
    /// NICs per node.
    pub nics: Option<u32>,
    /// The collective algorithm (`auto`: NCCL's choice).
    pub algo: Algo,
    /// Message size of the collective.
    pub bytes: Bytes,
    /// The workload.
    pub model: Model,
    /// A custom model's parameter count.
    pub params: Option<f64>,
    /// A custom model's training FLOPs per sample.
    pub flops: Option<f64>,
    /// Transformer layers (overrides the preset's).
    pub layers: Option<u32>,
    /// Transformer hidden size (overrides the preset's).
    pub hidden: Option<u32>,
    /// Attention heads (overrides the preset's).
    pub heads: Option<u32>,
    /// Sequence length (overrides the preset's).
    pub seq: Option<u32>,
    /// Vocabulary (overrides the preset's).
    pub vocab: Option<u32>,
    /// A custom transformer's input embedding and output layer are separate matrices.
    pub untied: Option<bool>,
    /// Global batch, samples.
    pub batch: Option<u64>,
    /// Micro-batch per GPU, samples.
    pub micro: Option<u32>,
    /// Training math.
    pub precision: Option<Precision>,
    /// Tensor-parallel degree.
    pub tp: u32,
    /// Sequence parallelism with tensor parallelism.
    pub sp: Option<bool>,
    /// What the training framework does: recomputation and overlaps.
    pub tech: Techniques,
    /// Pipeline stages.
    pub pp: u32,
    /// Interleaved pipeline: model chunks per pipeline GPU.
    pub vpp: u32,
    /// ZeRO / FSDP stage.
    pub zero: Option<u8>,
    /// Attention kernel.
    pub attn: Option<Attn>,
    /// Speedup baseline.
    pub scaling: Scaling,
    /// Input-pipeline samples/s per node.
    pub data_rate: Option<f64>,
    /// Mean length a micro-batch is padded to, as a share of `seq`.
    pub fill: f64,
    /// Root-mean-square padded length, as a share of `seq` (default: `fill`, every batch alike).
    pub fill_rms: Option<f64>,
    /// Stragglers, failures, checkpoints and price.
    pub ops: Operations,
    /// Data budget, tokens.
    pub tokens: Option<Count>,
    /// Data budget, samples.
    pub samples: Option<Count>,
    /// Critical batch, samples.
    pub batch_noise: Option<Count>,
    /// Multipliers fitted on a measured run.
    pub calib: Calib,
    /// Where a node's NICs attach.
    pub nic_attach: Attach,
    /// Nodes per leaf group.
    pub leaf_nodes: Option<u32>,
    /// Leaf → spine oversubscription.
    pub oversub: f64,
    /// GPUs per pod (none: no pod tier).
    pub pod_gpus: Option<u32>,
    /// Oversubscription above the pods.
    pub pod_oversub: f64,
    /// Where the job's nodes sit.
    pub placement: Placement,
    /// Routing over the uplinks.
    pub routing: Option<Routing>,
    /// Share of uplink capacity other jobs use.
    pub bg_load: f64,
}

/// The default workload: Llama 3 8B, a model people train today. With ZeRO resolved to FSDP when
/// the training state does not fit one GPU (as torchtitan trains it), it fits on 8 H100s and shows
/// the story: near-linear inside a node, then the network and the fixed per-step work take over.
fn default_model() -> Model {
    Model::Preset(&workload::PRESETS[3])
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            op: Op::AllReduce,
            gpus: 8,
            per_node: None,
            gpu: &hardware::GPUS[2],
            intra: None,
            inter: None,
            p2p: None,
            nics: None,
            algo: Algo::Auto,
            bytes: Bytes(GIB),
            model: default_model(),
            params: None,
            flops: None,
            layers: None,
            hidden: None,
            heads: None,
            seq: None,
            vocab: None,
            untied: None,
            batch: None,
            micro: None,
            precision: None,
            tp: 1,
            sp: None,
            tech: Techniques::default(),
            pp: 1,
            vpp: 1,
            zero: None,
            attn: None,
            scaling: Scaling::Weak,
            data_rate: None,
            fill: 1.0,
            fill_rms: None,
            ops: Operations::default(),
            tokens: None,
            samples: None,
            batch_noise: None,
            calib: Calib::default(),
            nic_attach: Attach::Rail,
            leaf_nodes: None,
            oversub: 1.0,
            pod_gpus: None,
            pod_oversub: 1.0,
            placement: Placement::Packed,
            routing: None,
            bg_load: 0.0,
        }
    }
}

/// Two sequence lengths in [1, seq] and the weight of the longer, with a given mean and variance:
/// a spread of padded batch lengths as two batches (exact for a cost linear and quadratic in the
/// length). Symmetric about the mean when that fits inside [1, seq], else one length at the bound
/// and the other where the variance puts it ((mean − short)·(long − mean) = variance).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoLengths {
    /// The shorter length, tokens.
    pub short: f64,
    /// The longer length, tokens.
    pub long: f64,
    /// The longer length's share of batches.
    pub long_weight: f64,
}

impl TwoLengths {
    /// `None` when the lengths do not spread (or the mean sits on a bound).
    pub fn new(mean: f64, variance: f64, seq: f64) -> Option<TwoLengths> {
        if variance <= 0.0 || mean <= 1.0 || mean >= seq {
            return None;
        }
        let sd = variance.sqrt();
        let (short, long) = if mean - sd >= 1.0 && mean + sd <= seq {
            (mean - sd, mean + sd)
        } else if mean + sd > seq {
            ((mean - variance / (seq - mean)).max(1.0), seq)
        } else {
            (1.0, (mean + variance / (mean - 1.0)).min(seq))
        };
        Some(TwoLengths {
            short,
            long,
            long_weight: (mean - short) / (long - short),
        })
    }
}

/// Everything the model reads, resolved once from a [`Scenario`]: no `Option`s, every cross-key
/// rule checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    /// The collective.
    pub op: Op,
    /// GPUs in the job.
    pub gpus: u32,
    /// GPUs per node (a job smaller than a node uses part of one).
    pub per_node: u32,
    /// The accelerator.
    pub gpu: &'static Gpu,
    /// The fabric inside a node.
    pub intra: &'static Fabric,
    /// The network between nodes.
    pub inter: &'static Network,
    /// PCIe peer-to-peer between the GPUs of a node (else NCCL relays through host memory).
    pub p2p: bool,
    /// NICs per node.
    pub nics: u32,
    /// The collective algorithm.
    pub algo: Algo,
    /// Message size of the collective, bytes.
    pub bytes: f64,
    /// The workload with every shape override applied.
    pub workload: Workload,
    /// Training math.
    pub precision: Precision,
    /// Tensor-parallel degree.
    pub tp: u32,
    /// Sequence parallelism.
    pub sp: bool,
    /// What the training framework does (see [`Setup::grad_bytes`] for `grad_fp32`).
    pub tech: Techniques,
    /// Pipeline stages.
    pub pp: u32,
    /// Model chunks per pipeline GPU (interleaved 1F1B).
    pub vpp: u32,
    /// Data-parallel replicas.
    pub dp: u32,
    /// Replicas that have samples to work on (fewer than `dp` when a strong-scaling batch is
    /// smaller than the replica count: the rest idle).
    pub dp_active: u32,
    /// ZeRO / FSDP stage.
    pub zero: u8,
    /// Attention kernel.
    pub attn: Attn,
    /// Speedup baseline.
    pub scaling: Scaling,
    /// Micro-batch per GPU, samples.
    pub micro: u32,
    /// Global batch, samples.
    pub batch: u64,
    /// Micro-batches per step per pipeline.
    pub micro_batches: u64,
    /// Input-pipeline samples/s per node.
    pub data_rate: f64,
    /// Mean padded length of a micro-batch as a share of the sequence length (1: every batch is
    /// full length).
    pub fill: f64,
    /// Root-mean-square padded length as a share of the sequence length (≥ `fill`).
    pub fill_rms: f64,
    /// Two padded lengths standing for the spread of batch lengths: set by [`Setup::padded`] on
    /// the setup it times (`None` otherwise).
    pub spread: Option<TwoLengths>,
    /// Stragglers, failures, checkpoints and price.
    pub ops: Operations,
    /// Data budget in tokens, when given.
    pub tokens: Option<f64>,
    /// Data budget in samples, when given.
    pub samples: Option<f64>,
    /// Critical batch, when given.
    pub batch_noise: Option<f64>,
    /// Multipliers fitted on a measured run.
    pub calib: Calib,
    /// The fabric beyond the node.
    pub topo: Topology,
}

impl Setup {
    /// The fullest pipeline stage's share of the layers against an even split, ≥ 1. Stages
    /// hold whole layers, so when pp does not divide the layers one stage holds ⌈layers/pp⌉ of
    /// them (the best split a framework can make, interleaved or not), and the pipeline runs at
    /// that stage's pace and peaks at its memory.
    pub fn stage_imbalance(&self) -> f64 {
        let (layers, pp) = (self.workload.layers(), self.pp);
        f64::from(layers.div_ceil(pp) * pp) / f64::from(layers)
    }

    /// The setup whose step is timed when batches are padded to a mean of `fill` × seq tokens
    /// (variable-length data padded per batch): every per-token cost — the GEMMs, the activation
    /// traffic, tensor- and pipeline-parallel messages — runs at the mean padded length, and the
    /// compute at two lengths ([`TwoLengths`], from `fill_rms`) whose weighted average keeps the
    /// mean square of the length, which the attention goes with, as well as the mean; the memory
    /// peak stays the full-length batch's. `None` when every batch is full length.
    pub fn padded(&self) -> Option<Setup> {
        match self.workload.arch {
            Arch::Transformer { seq, .. } if self.fill < 1.0 => {
                let full = f64::from(seq);
                let mean = full * self.fill;
                let mut s = self.with_seq(mean);
                let variance = full * full * (self.fill_rms.powi(2) - self.fill.powi(2));
                s.spread = TwoLengths::new(mean, variance, full);
                Some(s)
            }
            _ => None,
        }
    }

    /// Bytes per gradient value, accumulated and reduced: FP32 with `grad_fp32` (Megatron-LM's
    /// `--accumulate-allreduce-grads-in-fp32`, which it forces for bf16: "bfloat16 requires
    /// gradient accumulation and all-reduce to be done in fp32", `arguments.py`), else the
    /// training precision's.
    pub fn grad_bytes(&self) -> f64 {
        if self.tech.grad_fp32 {
            4.0
        } else {
            self.precision.grad_bytes()
        }
    }

    /// This setup with its transformer's sequence length set to `tokens` (rounded, at least 1).
    pub fn with_seq(&self, tokens: f64) -> Setup {
        let mut s = self.clone();
        if let Arch::Transformer { seq, .. } = &mut s.workload.arch {
            *seq = (tokens.round() as u32).max(1);
        }
        s
    }

    /// The cluster the collectives run on.
    pub fn cluster(&self) -> Cluster {
        Cluster {
            gpus: self.gpus,
            per_node: self.per_node,
            gpu: self.gpu,
            intra: self.intra,
            inter: self.inter,
            p2p: self.p2p,
            nics: self.nics,
            net_scale: 1.0,
            net_calib: self.calib.net,
            host_bw: self.gpu.host_link_bw(),
            intra_scale: self.calib.intra,
            lat_scale: self.calib.lat,
            topo: self.topo,
        }
    }

    /// Nodes the job spans.
    pub fn nodes(&self) -> u32 {
        self.gpus.div_ceil(self.per_node)
    }
}

impl Scenario {
    /// Strict parse: the first problem is an error.
    pub fn parse(s: &str) -> Result<Scenario, ModelError> {
        let (sc, errs) = Scenario::parse_lenient(s);
        match errs.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(sc),
        }
    }

    /// The `key=value` pairs of a scenario string as the parser reads them: a leading `#` or
    /// `?` (a pasted link) dropped, empty pairs skipped.
    pub fn pairs(s: &str) -> impl Iterator<Item = &str> {
        s.trim()
            .trim_start_matches(['#', '?'])
            .split('&')
            .filter(|p| !p.trim().is_empty())
    }

    /// The keys a scenario string names (whatever their values).
    pub fn stated_keys(s: &str) -> impl Iterator<Item = &str> {
        Scenario::pairs(s).filter_map(|pair| pair.split_once('=').map(|(k, _)| k.trim()))
    }

    /// Lenient parse: a bad value keeps its default; every problem is returned.
    pub fn parse_lenient(s: &str) -> (Scenario, Vec<ModelError>) {
        let mut sc = Scenario::default();
        let mut errs = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        for pair in Scenario::pairs(s) {
            let Some((k, v)) = pair.split_once('=') else {
                errs.push(ModelError::new(
                    pair.trim(),
                    "expected key=value (for example gpus=64)",
                ));
                continue;
            };
            let (k, v) = (k.trim(), v.trim());
            if seen.iter().any(|x| x == k) {
                errs.push(ModelError::new(k, "given twice; give each key once"));
                continue;
            }
            seen.push(k.to_string());
            if let Err(e) = sc.set(k, v) {
                errs.push(e);
            }
        }
        // Cross-key checks: on failure fall back to defaults for the keys named, so the lenient
        // result is always valid.
        loop {
            match sc.validate() {
                Ok(()) => break,
                Err(e) => {
                    let before = sc.clone();
                    sc.reset(dropped(&e.key).unwrap_or(&e.key));
                    errs.push(e);
                    if sc == before {
                        // Nothing left to reset: fall back to the default scenario entirely.
                        sc = Scenario::default();
                        break;
                    }
                }
            }
        }
        (sc, errs)
    }

    /// Sets one key from its text value.
    pub fn set(&mut self, k: &str, v: &str) -> Result<(), ModelError> {
        let key = keys::key(k).ok_or_else(|| {
            ModelError::new(k, format!("unknown key; accepted: {}", keys::names()))
        })?;
        (key.field)(self)
            .set_text(v, &key.accepts)
            .map_err(|m| ModelError::new(k, m))
    }

    /// The value of one key in scenario syntax, `None` when it is unset (derived).
    pub fn get(&self, k: &str) -> Option<String> {
        let key = keys::key(k)?;
        (key.field)(&mut self.clone()).text()
    }

    /// Puts the keys named in `keys` (joined by `+`) back to their defaults.
    /// An empty value in the app's controls means "back to the default" too.
    pub fn reset(&mut self, names: &str) {
        let d = Scenario::default();
        for k in names.split('+') {
            if let Some(key) = keys::key(k) {
                match d.get(k) {
                    // The default's own text always parses.
                    Some(t) => {
                        let _ = (key.field)(self).set_text(&t, &key.accepts);
                    }
                    None => {
                        (key.field)(self).unset();
                    }
                }
            }
        }
    }

    /// The setup of a scenario the lenient parse produced (always valid), falling back to the
    /// default scenario's for one that is not.
    pub fn resolved(&self) -> Setup {
        self.setup()
            .or_else(|_| Scenario::default().setup())
            .expect("the default scenario resolves (tested by empty_string_gives_defaults)")
    }

    /// Cross-key checks.
    pub fn validate(&self) -> Result<(), ModelError> {
        self.setup().map(|_| ())
    }

    /// Validates the scenario after the keys in `changed` were set. A choice another change
    /// leaves without meaning is dropped, as the app drops its control, rather than refusing the
    /// change: PCIe peer-to-peer when the node is no longer PCIe, an NVLink or xGMI generation
    /// when the GPU changes (the new GPU's own link follows), a token budget when the model has
    /// no tokens, a tensor parallelism the new model (heads, or no transformer at all) or node size
    /// does not allow, a node larger than the new link connects, and a weight-gather overlap
    /// that ZeRO-0 has nothing for.
    pub fn validate_after(&mut self, changed: &[&str]) -> Result<(), ModelError> {
        loop {
            match self.validate() {
                Err(e) => {
                    let Some(key) = dropped(&e.key).filter(|key| !changed.contains(key)) else {
                        return Err(e);
                    };
                    if self.get(key).is_none() {
                        return Err(e);
                    }
                    self.reset(key);
                }
                Ok(()) => return Ok(()),
            }
        }
    }

    /// The canonical scenario string: in [`KEYS`] order, every key that was given and differs
    /// from the default, and the headline keys always.
    pub fn to_query(&self) -> String {
        let d = Scenario::default();
        let mut me = self.clone();
        let mut out: Vec<String> = Vec::new();
        for k in KEYS {
            let Some(v) = (k.field)(&mut me).text() else {
                continue;
            };
            if k.always || d.get(k.name).as_deref() != Some(v.as_str()) {
                out.push(format!("{}={v}", k.name));
            }
        }
        out.join("&")
    }

    /// GPUs per node as given (8 when not), before a small job is fitted into one node.
    pub fn node_size(&self) -> u32 {
        self.per_node.unwrap_or(8)
    }

    /// The workload with the shape keys applied. Shape keys override a preset's shape: its
    /// parameter count is scaled by the ratio of Narayanan et al.'s eq. 2 for the new and the old
    /// shape, so a preset keeps its published count (SwiGLU, GQA) and responds to the change.
    fn workload(&self) -> Result<Workload, ModelError> {
        let shape_keys = [
            ("layers", self.layers),
            ("hidden", self.hidden),
            ("heads", self.heads),
            ("seq", self.seq),
            ("vocab", self.vocab),
        ];
        let given = shape_keys
            .iter()
            .find(|(_, v)| v.is_some())
            .map(|(k, _)| *k);
        let beyond_seq = shape_keys
            .iter()
            .find(|(k, v)| *k != "seq" && v.is_some())
            .map(|(k, _)| *k);
        match self.model {
            Model::Preset(w) if self.untied.is_some() => Err(ModelError::new(
                "untied",
                format!(
                    "untied describes a model=custom transformer; model={} is as published",
                    w.id
                ),
            )),
            Model::Custom if self.untied.is_some() && self.params.is_some() => {
                Err(ModelError::new(
                    "untied",
                    "untied describes a transformer by its shape, not by params",
                ))
            }
            Model::Preset(w) => {
                for (k, v) in [("params", self.params), ("flops", self.flops)] {
                    if v.is_some() {
                        return Err(ModelError::new(
                            k,
                            format!("{k} describes a model=custom; model={} has its own", w.id),
                        ));
                    }
                }
                match (w.arch, given) {
                    (_, None) => Ok(*w),
                    (Arch::Generic { .. }, Some(k)) => Err(ModelError::new(
                        k,
                        format!("{k} applies to transformers; model={} is not one", w.id),
                    )),
                    (
                        Arch::Transformer {
                            layers,
                            hidden,
                            heads,
                            seq,
                            vocab,
                        },
                        Some(_),
                    ) => {
                        let new = workload::custom_transformer(
                            self.layers.unwrap_or(layers),
                            self.hidden.unwrap_or(hidden),
                            self.heads.unwrap_or(heads),
                            self.seq.unwrap_or(seq),
                            self.vocab.unwrap_or(vocab),
                        );
                        let old = workload::custom_transformer(layers, hidden, heads, seq, vocab);
                        Ok(Workload {
                            id: w.id,
                            name: w.name,
                            params: w.params * new.params / old.params,
                            arch: new.arch,
                            ..*w
                        })
                    }
                }
            }
            // A model by params may still say how many tokens a sample is: 6 FLOPs per
            // parameter and token (Kaplan et al. 2020) make its default FLOPs.
            Model::Custom => match (self.params, beyond_seq) {
                (Some(p), None) => {
                    let tokens = f64::from(self.seq.unwrap_or(CUSTOM_SEQ));
                    // Stated FLOPs without a stated seq say nothing of tokens.
                    let counted = (self.flops.is_none() || self.seq.is_some()).then_some(tokens);
                    Ok(workload::custom_generic(
                        p,
                        self.flops.unwrap_or(6.0 * p * tokens),
                        counted,
                    ))
                }
                (Some(_), Some(k)) => Err(ModelError::new(
                    &format!("params+{k}"),
                    "describe a custom model either by params (and flops) or by its shape",
                )),
                (None, _) => {
                    if self.flops.is_some() {
                        return Err(ModelError::new("flops", "flops needs params"));
                    }
                    let mut w = workload::custom_transformer(
                        self.layers.unwrap_or(32),
                        self.hidden.unwrap_or(4096),
                        self.heads.unwrap_or(32),
                        self.seq.unwrap_or(CUSTOM_SEQ),
                        self.vocab.unwrap_or(50257),
                    );
                    if self.untied == Some(true) {
                        // The input embedding becomes its own V·h table, looked up, not
                        // multiplied ([`Workload::lookup_params`]).
                        if let Some((vocab, hidden)) = w.vocab_and_hidden() {
                            w.params += vocab * hidden;
                        }
                        w.untied_embeddings = true;
                    }
                    Ok(w)
                }
            },
        }
    }

    /// Resolves every default and checks every cross-key rule: the one place the model's inputs
    /// are decided.
    pub fn setup(&self) -> Result<Setup, ModelError> {
        let gpus = self.gpus;
        let pn = self.node_size().min(gpus).max(1);
        if gpus > pn && gpus % pn != 0 {
            return Err(ModelError::new("gpus+per_node", {
                // The whole-node counts either side, those the key accepts.
                let near: Vec<String> = [gpus / pn * pn, (gpus / pn + 1) * pn]
                    .into_iter()
                    .filter(|&n| n <= MAX_GPUS)
                    .map(|n| n.to_string())
                    .collect();
                format!(
                        "gpus={gpus} is not a multiple of per_node={pn}; accepted: whole nodes (e.g. {})",
                        near.join(" or ")
                    )
            }));
        }
        let nodes = gpus.div_ceil(pn);
        let inter = match self.inter {
            Some(n) if n.kind == NetKind::None && nodes > 1 => {
                return Err(ModelError::new(
                    "inter",
                    format!(
                        "inter=none allows one node only, but gpus={gpus} over per_node={pn} is {nodes} nodes; pick a network"
                    ),
                ))
            }
            Some(n) => n,
            None => default_network(self.gpu, nodes),
        };
        let intra = self
            .intra
            .or_else(|| hardware::fabric(self.gpu.default_intra))
            .unwrap_or(&hardware::FABRICS[0]);
        if !self.gpu.can_use(intra) {
            return Err(ModelError::new(
                "gpu+intra",
                format!(
                    "{} is not {}'s link; its GPU-to-GPU link is intra={} (or a PCIe generation)",
                    intra.name, self.gpu.name, self.gpu.default_intra
                ),
            ));
        }
        if pn > intra.max_gpus {
            return Err(ModelError::new(
                "per_node+intra",
                format!(
                    "{} connects at most {} GPUs; per_node={pn} is more",
                    intra.name, intra.max_gpus
                ),
            ));
        }
        if self.p2p.is_some() && intra.kind != FabricKind::Pcie {
            return Err(ModelError::new(
                "p2p",
                format!(
                    "p2p is a PCIe choice; over {} the GPUs always reach each other directly",
                    intra.name
                ),
            ));
        }
        let nics = self.nics.unwrap_or(default_nics(inter, pn));
        let precision =
            self.precision
                .unwrap_or(if self.gpu.peak_flops(Precision::Bf16).is_some() {
                    Precision::Bf16
                } else {
                    Precision::Fp16
                });
        if self.gpu.peak_flops(precision).is_none() {
            return Err(ModelError::new(
                "precision",
                format!(
                    "{} has no {} math; accepted: {}",
                    self.gpu.id,
                    precision.id(),
                    self.gpu.precision_ids().join(", ")
                ),
            ));
        }
        let workload = self.workload()?;
        if self.tech.recompute == Recompute::Ops && workload.tokens_per_sample().is_none() {
            return Err(ModelError::new(
                "recompute",
                format!(
                    "recompute=ops keeps every second matmul of a transformer layer; {} is not a transformer",
                    workload.id
                ),
            ));
        }
        let (tp, pp, vpp) = (self.tp, self.pp, self.vpp);
        if let Arch::Transformer { hidden, heads, .. } = workload.arch {
            if hidden % heads != 0 {
                return Err(ModelError::new(
                    "hidden+heads",
                    format!("hidden={hidden} must be a multiple of heads={heads}"),
                ));
            }
            if !workload.splits_over(tp) {
                return Err(ModelError::new(
                    "tp+heads",
                    format!("tp={tp} must divide the {heads} attention heads: each rank computes whole heads"),
                ));
            }
        }
        if tp > 1 && !matches!(workload.arch, Arch::Transformer { .. }) {
            return Err(ModelError::new(
                "tp+model",
                format!(
                    "tensor parallelism splits a transformer's layers by their attention heads; {} has none (use pp or data parallelism, or give model=custom layers, hidden and heads)",
                    workload.id
                ),
            ));
        }
        if tp > pn {
            return Err(ModelError::new(
                "tp",
                if gpus < self.node_size() {
                    format!("tp={tp} is more than the job's gpus={gpus}")
                } else {
                    format!(
                        "tp={tp} is larger than a node (per_node={pn}); tensor parallelism needs the node's fast links"
                    )
                },
            ));
        }
        if gpus > pn && pn % tp != 0 {
            return Err(ModelError::new(
                "tp+per_node",
                format!(
                    "tp={tp} does not divide per_node={pn}: a tensor-parallel group would span two nodes, and it needs the node's fast links"
                ),
            ));
        }
        if pp * vpp > workload.most_pipeline_chunks() {
            return Err(ModelError::new(
                if vpp > 1 { "pp+vpp" } else { "pp" },
                format!(
                    "pp×vpp = {pp}×{vpp} model chunks exceed the model's {} layers{}",
                    workload.layers(),
                    if workload.most_pipeline_chunks() > workload.layers() {
                        " and the two chunks of its embedding and output layer"
                    } else {
                        ""
                    }
                ),
            ));
        }
        if vpp > 1 && pp == 1 {
            return Err(ModelError::new(
                "vpp",
                "vpp interleaves pipeline stages; it needs pp > 1",
            ));
        }
        let attn = match (self.attn, self.gpu.flash_attention_efficiency) {
            (Some(Attn::Flash | Attn::Flash1), None) => {
                return Err(ModelError::new(
                    "attn",
                    format!(
                        "FlashAttention needs an Ampere or newer GPU; {} runs attn=eager",
                        self.gpu.id
                    ),
                ))
            }
            (Some(Attn::Cudnn), _) if self.gpu.cudnn_attention_speedup.is_none() => {
                return Err(ModelError::new(
                    "attn",
                    format!(
                        "cuDNN's fused attention has a published speed against FlashAttention-2 on Hopper only (h100, h200); {} runs attn=flash",
                        self.gpu.id
                    ),
                ))
            }
            (Some(a), _) => a,
            (None, Some(_)) => Attn::Flash,
            (None, None) => Attn::Eager,
        };
        if self.tokens.is_some() && workload.sample_tokens().is_none() {
            return Err(ModelError::new(
                "tokens",
                format!(
                    "model={} has no tokens to count; give its data budget as samples",
                    workload.id
                ),
            ));
        }
        if self.fill < 1.0 && workload.tokens_per_sample().is_none() {
            return Err(ModelError::new(
                "fill",
                format!("fill pads token sequences; model={} has none", workload.id),
            ));
        }
        if let Some(rms) = self.fill_rms {
            // Lengths in [0, seq] with mean fill·seq have a mean square of at most fill·seq².
            if rms < self.fill || rms * rms > self.fill {
                return Err(ModelError::new(
                    "fill_rms",
                    format!(
                        "fill_rms={rms} with fill={}: a root-mean-square length lies between the mean and √fill = {:.3} (lengths up to seq)",
                        self.fill,
                        self.fill.sqrt()
                    ),
                ));
            }
        }
        let mp = tp * pp;
        if gpus % mp != 0 {
            return Err(ModelError::new(
                "gpus+tp+pp",
                format!("gpus={gpus} is not divisible by tp×pp = {tp}×{pp} = {mp}"),
            ));
        }
        let dp = gpus / mp;
        let default_micro = workload.default_micro;
        let per_replica = u64::from(if pp > 1 { 4 * pp } else { 1 });
        let (micro, batch, dp_active) = match self.scaling {
            Scaling::Weak => {
                let micro = self.micro.unwrap_or(default_micro);
                let batch = self
                    .batch
                    .unwrap_or(u64::from(micro) * u64::from(dp) * per_replica);
                (micro, batch, dp)
            }
            Scaling::Strong => {
                // The global batch is fixed (default: what one full node runs); more replicas
                // share it with smaller micro-batches, down to one sample each; replicas beyond
                // that have nothing to do.
                let node_replicas = u64::from((self.node_size() / mp).max(1));
                let batch = self.batch.unwrap_or(
                    u64::from(self.micro.unwrap_or(default_micro)) * node_replicas * per_replica,
                );
                let dp_active = u32::try_from(batch.min(u64::from(dp))).unwrap_or(dp);
                let per_replica_samples = batch / u64::from(dp_active);
                // A stated micro-batch shrinks too once a replica has fewer samples.
                let most = per_replica_samples.max(1);
                let micro = u32::try_from(match self.micro {
                    Some(m) => u64::from(m).min(most),
                    None => (per_replica_samples / per_replica).clamp(1, u64::from(default_micro)),
                })
                .unwrap_or(1);
                (micro, batch, dp_active)
            }
        };
        let step_samples = u64::from(micro) * u64::from(dp_active);
        if self.scaling == Scaling::Weak && batch % step_samples != 0 {
            return Err(ModelError::new(
                "batch+micro",
                format!(
                    "batch={batch} is not a multiple of micro×dp = {micro}×{dp} = {step_samples}"
                ),
            ));
        }
        let micro_batches = batch.div_ceil(step_samples).max(1);
        // Interleaving needs a group of at least pp micro-batches in flight (Megatron-Core
        // `schedules.py`: `microbatch_group_size_per_vp_stage` must lie in [pp, M]); fewer would
        // leave a chunk's stage waiting on the previous stage's same micro-batch. A stated batch
        // that gives fewer is refused; strong scaling, which shares a fixed batch over more
        // replicas, runs the plain schedule once it does, as a user of Megatron must.
        let vpp = if vpp > 1 && micro_batches < u64::from(pp) {
            if self.scaling == Scaling::Weak {
                return Err(ModelError::new(
                    "vpp",
                    format!(
                        "interleaving (vpp={vpp}) needs at least pp={pp} micro-batches a step; this batch gives {micro_batches}"
                    ),
                ));
            }
            1
        } else {
            vpp
        };
        let mut setup = Setup {
            op: self.op,
            gpus,
            per_node: pn,
            gpu: self.gpu,
            intra,
            inter,
            p2p: self.p2p.unwrap_or(self.gpu.p2p),
            nics,
            algo: self.algo,
            bytes: self.bytes.0,
            workload,
            precision,
            tp,
            sp: self.sp.unwrap_or(tp > 1),
            tech: self.tech,
            pp,
            vpp,
            dp,
            dp_active,
            zero: self.zero.unwrap_or(0),
            attn,
            scaling: self.scaling,
            micro,
            batch,
            micro_batches,
            data_rate: self.data_rate.unwrap_or(workload.default_data_rate),
            fill: self.fill,
            fill_rms: self.fill_rms.unwrap_or(self.fill),
            spread: None,
            ops: self.ops,
            tokens: self.tokens.map(|c| c.0),
            samples: self.samples.map(|c| c.0),
            batch_noise: self.batch_noise.map(|c| c.0),
            calib: self.calib,
            topo: Topology {
                attach: self.nic_attach,
                leaf_nodes: self.leaf_nodes.unwrap_or(match self.nic_attach {
                    Attach::Rail => topology::SUPERPOD_SU_NODES,
                    Attach::Tor => topology::TOR_NODES,
                }),
                oversub: self.oversub,
                pod_nodes: self.pod_gpus.map(|g| g / pn).unwrap_or(0),
                pod_oversub: self.pod_oversub,
                placement: self.placement,
                // InfiniBand fabrics route adaptively (NVIDIA DGX SuperPOD reference
                // architecture); Ethernet hashes flows (ECMP) unless told otherwise.
                routing: self.routing.unwrap_or(if inter.id.starts_with("ib-") {
                    Routing::Adaptive
                } else {
                    Routing::Ecmp
                }),
                bg_load: self.bg_load,
            },
        };
        if self.pod_gpus.is_some()
            && setup.nodes() > 1
            && setup.topo.pod_nodes <= setup.topo.leaf_nodes
        {
            return Err(ModelError::new(
                "pod_gpus",
                format!(
                    "a pod groups leaf groups: pod_gpus={} must exceed a leaf group of {} nodes × {pn} GPUs",
                    self.pod_gpus.unwrap_or(0),
                    setup.topo.leaf_nodes
                ),
            ));
        }
        // ZeRO's default follows what frameworks do: plain data parallelism while the training
        // state fits, else the least sharding that fits — Megatron's distributed optimizer
        // (stage 1) first, FSDP (stage 3) when nothing less will do; a pipeline stops at
        // stage 1 (`step::least_zero_that_fits`).
        // Overlapping the weight gather is Megatron's distributed optimizer's (ZeRO-1/2;
        // Megatron-LM's `arguments.py`: "--overlap-param-gather only supported with distributed
        // optimizer, megatron fsdp, or dist_muon"):
        // it asks for at least stage 1, and a stated ZeRO-0, which gathers nothing, refuses it.
        // (ZeRO-3 gathers each layer ahead of its use whatever the key says.)
        match self.zero {
            None => {
                let least = super::step::least_zero_that_fits(&setup);
                setup.zero = if self.tech.gather_overlap {
                    least.max(1)
                } else {
                    least
                };
            }
            Some(0) if self.tech.gather_overlap => {
                return Err(ModelError::new(
                    "gather_overlap+zero",
                    "gather_overlap overlaps the weight gather of ZeRO-1/2 (Megatron's distributed optimizer); zero=0 gathers nothing",
                ));
            }
            Some(_) => {}
        }
        Ok(setup)
    }
}

/// Refusals whose cause is one key another change left without meaning: (error key, the key
/// to drop). A link's lenient parse drops that key alone, not every key the error names.
const DROPPED: [(&str, &str); 8] = [
    ("p2p", "p2p"),
    ("gather_overlap+zero", "gather_overlap"),
    ("gpu+intra", "intra"),
    ("per_node+intra", "per_node"),
    ("tokens", "tokens"),
    ("tp+heads", "tp"),
    ("tp+model", "tp"),
    ("tp+per_node", "tp"),
];

/// The key a refusal with error key `err` drops ([`DROPPED`]), if it is one of those.
fn dropped(err: &str) -> Option<&'static str> {
    DROPPED.iter().find(|(e, _)| *e == err).map(|(_, key)| *key)
}

/// NICs per node when the scenario gives none: one per GPU up to eight on RDMA (DGX-style
/// nodes), one over TCP or with no network.
pub fn default_nics(inter: &Network, per_node: u32) -> u32 {
    match inter.kind {
        NetKind::Rdma => per_node.min(8),
        _ => 1,
    }
}

/// The network a cluster of these GPUs usually has: none for one node, else the InfiniBand of its
/// generation (RoCE for MI300X, 25 GbE for consumer cards).
fn default_network(gpu: &Gpu, nodes: u32) -> &'static Network {
    let id = if nodes <= 1 {
        "none"
    } else {
        match gpu.id {
            "v100" => "ib-edr",
            "a100" => "ib-hdr",
            // DGX B200: eight ConnectX-7 at 400 Gb/s on PCIe Gen5 (XDR needs ConnectX-8).
            "b200" => "ib-ndr",
            "mi300x" => "roce400",
            "rtx4090" => "tcp25",
            _ => "ib-ndr",
        }
    };
    hardware::network(id).unwrap_or(&hardware::NETWORKS[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_string_gives_defaults() {
        assert_eq!(Scenario::parse("").unwrap(), Scenario::default());
        assert_eq!(Scenario::parse("#").unwrap(), Scenario::default());
    }

    #[test]
    fn round_trips_through_the_canonical_string() {
        let s = Scenario::parse(
            "gpus=64&per_node=8&gpu=a100&intra=nvlink3&inter=ib-hdr&nics=4&algo=ring&bytes=64MiB&model=gpt3-175b&tp=8&pp=4&zero=1&precision=bf16",
        )
        .unwrap();
        assert_eq!(Scenario::parse(&s.to_query()).unwrap(), s);
        assert!(s.to_query().contains("bytes=64MiB"));
    }

    #[test]
    fn errors_name_the_key() {
        let cases = [
            ("gpus=0", "gpus"),
            ("gpus=-4", "gpus"),
            ("gpus=abc", "gpus"),
            ("gpus=NaN", "gpus"),
            ("gpus=99999999999999999999", "gpus"),
            ("gpus=12&per_node=8", "gpus+per_node"),
            ("colour=red", "colour"),
            ("gpu=tpu", "gpu"),
            ("intra=carrier-pigeon", "intra"),
            ("bytes=lots", "bytes"),
            ("bytes=0", "bytes"),
            ("data_rate=inf", "data_rate"),
            ("gpus=16&inter=none", "inter"),
            ("gpu=v100&precision=bf16", "precision"),
            ("tp=16", "tp"),
            ("gpus=8&tp=2&pp=3", "gpus+tp+pp"),
            ("gpus=8&tp=3", "tp+heads"),
            ("gpus=1024&pod_gpus=64", "pod_gpus"),
            ("gpus=8&pp=4&vpp=2&batch=2", "vpp"),
            ("gpus", "gpus"),
            ("gpus=8&gpus=16", "gpus"),
            ("model=resnet50&layers=4", "layers"),
            ("params=1e9", "params"),
            ("gpus=16&pp=2&vpp=40", "pp+vpp"),
            ("vpp=2", "vpp"),
        ];
        for (q, key) in cases {
            let e = Scenario::parse(q).expect_err(q);
            assert_eq!(e.key, key, "{q}: {e}");
            assert!(!e.message.is_empty());
        }
    }

    #[test]
    fn lenient_parse_keeps_going() {
        let (s, errs) = Scenario::parse_lenient("gpus=64&gpu=banana&inter=ib-ndr");
        assert_eq!(s.gpus, 64);
        assert_eq!(s.gpu.id, "h100");
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].key, "gpu");
        assert!(s.validate().is_ok());
    }

    #[test]
    fn defaults_follow_the_hardware() {
        let s = Scenario::parse("gpus=32&gpu=a100")
            .unwrap()
            .setup()
            .unwrap();
        assert_eq!(s.intra.id, "nvlink3");
        assert_eq!(s.inter.id, "ib-hdr");
        assert_eq!(s.nics, 8);
        let one = Scenario::parse("gpus=1").unwrap().setup().unwrap();
        assert_eq!(one.per_node, 1);
        assert_eq!(one.inter.id, "none");
    }
}
