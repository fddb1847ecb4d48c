//! The one table of scenario keys.
//!
//! Every key of the `key=value&…` format is one [`Key`] row in [`KEYS`]: its name, what it
//! accepts, its default as users read it, its unit, a sentence of documentation, which commands
//! it applies to, and the [`Scenario`] field it writes. Parsing, error messages, resetting, the
//! canonical string, the CLI's usage, the controls' limits and the README's key table are all
//! driven from here. Adding a key is one row (plus its field and its use in the model).

use super::collective::{Algo, Op};
use super::hardware::{self, Fabric, Gpu, Network, Precision};
use super::scenario::{Attn, Model, Scaling, Scenario};
use super::topology::{Attach, Placement, Routing};
use super::units::{format_bytes, format_count, parse_bytes, parse_count, thousands, MAX_BYTES};
use super::workload::{self, Recompute};

/// Largest GPU count the model accepts (the sweep's range).
pub const MAX_GPUS: u32 = 65_536;

/// What a key accepts; drives parsing, the error text and the controls' limits.
#[derive(Clone, Copy, Debug)]
pub enum Accepts {
    /// A whole number in `lo..=hi`; `steps` are the values a select offers (empty: a number
    /// field).
    Whole {
        /// Smallest.
        lo: u64,
        /// Largest.
        hi: u64,
        /// Values a select offers.
        steps: &'static [u64],
    },
    /// A real number in `lo..=hi`.
    Number {
        /// Smallest.
        lo: f64,
        /// Largest.
        hi: f64,
    },
    /// A byte size (`4096`, `64MiB`, `1GB`) in `lo..=hi`.
    Size {
        /// Smallest.
        lo: f64,
        /// Largest.
        hi: f64,
    },
    /// A count with an optional K, M, B or T suffix (`15T`) in `lo..=hi`.
    Count {
        /// Smallest.
        lo: f64,
        /// Largest.
        hi: f64,
    },
    /// One of a list of ids.
    OneOf(fn() -> Vec<&'static str>),
}

/// A limit as written in the key table: plain up to 10⁴, in exponent form above.
fn compact(x: f64) -> String {
    if x.abs() < 1e4 {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

impl Accepts {
    /// The accepted values in words, as the README and the errors state them.
    pub fn describe(&self) -> String {
        match self {
            Accepts::Whole { lo, hi, .. } => format!("{}…{}", thousands(*lo), thousands(*hi)),
            Accepts::Number { lo, hi } => format!("{lo}…{}", compact(*hi)),
            Accepts::Size { .. } => "1 … 1TiB, as `4096`, `64MiB`, `1GiB`, `1GB`".to_string(),
            Accepts::Count { lo, hi } => format!("{lo:e}…{hi:e}, as `15T`, `2B`, `1.2e9`"),
            Accepts::OneOf(ids) => ids().join(", "),
        }
    }
}

/// The commands a key applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applies {
    /// `collective` and `step`.
    Both,
    /// `collective` only.
    Collective,
    /// `step` (and `sweep`) only.
    Step,
}

/// One scenario key.
#[derive(Clone, Copy)]
pub struct Key {
    /// The key as written in the scenario string.
    pub name: &'static str,
    /// What it accepts.
    pub accepts: Accepts,
    /// The default, in words (a value, or how it is derived from other keys).
    pub default: &'static str,
    /// Unit of the value, empty when it has none.
    pub unit: &'static str,
    /// One sentence for the README, the CLI usage and the controls' help.
    pub doc: &'static str,
    /// Which commands read it.
    pub applies: Applies,
    /// Whether the canonical string always carries it (the headline keys), or only when it
    /// differs from the default.
    pub always: bool,
    /// The field of [`Scenario`] it writes.
    pub field: fn(&mut Scenario) -> &mut dyn Field,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key").field("name", &self.name).finish()
    }
}

/// A scenario field as the table sees it: set from text, shown as text, put back to unset.
pub trait Field {
    /// Parses `v` into the field; the error says what was wrong (the caller names the key).
    fn set_text(&mut self, v: &str, accepts: &Accepts) -> Result<(), String>;
    /// The value in scenario syntax, `None` when unset (derived from other keys).
    fn text(&self) -> Option<String>;
    /// Puts an optional field back to unset; `false` for a field that always has a value.
    fn unset(&mut self) -> bool;
}

/// A value a key can hold.
trait Value: Sized {
    fn parse(v: &str, accepts: &Accepts) -> Result<Self, String>;
    fn show(&self) -> String;
}

fn whole(v: &str, accepts: &Accepts) -> Result<u64, String> {
    let (lo, hi) = match accepts {
        Accepts::Whole { lo, hi, .. } => (*lo, *hi),
        _ => (0, u64::MAX),
    };
    let range = accepts.describe();
    let n: u64 = v.parse().map_err(|_| {
        // Digits too many for any count are a number out of range, not a malformed one.
        if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
            format!("{v} is out of range; accepted: {range}")
        } else {
            format!("'{v}' is not a whole number; accepted: {range}")
        }
    })?;
    if n < lo || n > hi {
        return Err(format!("{n} is out of range; accepted: {range}"));
    }
    Ok(n)
}

macro_rules! whole_value {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn parse(v: &str, accepts: &Accepts) -> Result<Self, String> {
                // The table bounds every whole key below the type's maximum.
                whole(v, accepts).and_then(|n| <$t>::try_from(n).map_err(|_| format!("{n} is too large")))
            }
            fn show(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
whole_value!(u8, u32, u64);

impl Value for f64 {
    fn parse(v: &str, accepts: &Accepts) -> Result<Self, String> {
        let range = accepts.describe();
        match accepts {
            Accepts::Size { lo, hi } => {
                let b = parse_bytes(v)
                    .ok_or_else(|| format!("'{v}' is not a size; accepted: {range}"))?;
                if b < *lo || b > *hi {
                    return Err(format!("'{v}' is out of range; accepted: {range}"));
                }
                Ok(b)
            }
            Accepts::Count { lo, hi } => {
                let x = parse_count(v)
                    .ok_or_else(|| format!("'{v}' is not a count; accepted: {range}"))?;
                if x < *lo || x > *hi {
                    return Err(format!("'{v}' is out of range; accepted: {range}"));
                }
                Ok(x)
            }
            Accepts::Number { lo, hi } => {
                let x: f64 = v
                    .parse()
                    .map_err(|_| format!("'{v}' is not a number; accepted: {range}"))?;
                if !x.is_finite() || x < *lo || x > *hi {
                    return Err(format!("'{v}' is out of range; accepted: {range}"));
                }
                Ok(x)
            }
            _ => Err(format!("'{v}': accepted: {range}")),
        }
    }
    fn show(&self) -> String {
        format!("{self}")
    }
}

/// A value chosen from a list of ids.
pub trait Named: Copy + 'static {
    /// Every choice, in the order the UI lists them.
    fn all() -> Vec<Self>;
    /// The scenario id.
    fn id(&self) -> &'static str;
}

/// The ids of a [`Named`] type, for [`Accepts::OneOf`].
pub fn ids<T: Named>() -> Vec<&'static str> {
    T::all().iter().map(Named::id).collect()
}

macro_rules! named {
    ($t:ty, $all:expr, $id:expr) => {
        impl Named for $t {
            fn all() -> Vec<Self> {
                $all
            }
            fn id(&self) -> &'static str {
                $id(self)
            }
        }
        impl Value for $t {
            fn parse(v: &str, _: &Accepts) -> Result<Self, String> {
                <$t as Named>::all()
                    .into_iter()
                    .find(|x| x.id() == v)
                    .ok_or_else(|| format!("unknown '{v}'; accepted: {}", ids::<$t>().join(", ")))
            }
            fn show(&self) -> String {
                self.id().to_string()
            }
        }
    };
}
named!(Op, Op::ALL.to_vec(), |o: &Op| Op::id(*o));
named!(Algo, Algo::ALL.to_vec(), |a: &Algo| Algo::id(*a));
named!(Scaling, Scaling::ALL.to_vec(), |s: &Scaling| Scaling::id(
    *s
));
named!(Precision, Precision::ALL.to_vec(), |p: &Precision| {
    Precision::id(*p)
});
named!(Recompute, Recompute::ALL.to_vec(), |r: &Recompute| {
    Recompute::id(*r)
});
named!(Attn, Attn::ALL.to_vec(), |a: &Attn| Attn::id(*a));
named!(&'static Gpu, hardware::GPUS.iter().collect(), |g: &&Gpu| g
    .id);
named!(
    &'static Fabric,
    hardware::FABRICS.iter().collect(),
    |f: &&Fabric| f.id
);
named!(
    &'static Network,
    hardware::NETWORKS.iter().collect(),
    |n: &&Network| n.id
);
named!(Model, Model::choices(), |m: &Model| Model::id(m));
named!(Attach, Attach::ALL.to_vec(), |a: &Attach| Attach::id(*a));
named!(Placement, Placement::ALL.to_vec(), |p: &Placement| {
    Placement::id(*p)
});
named!(Routing, Routing::ALL.to_vec(), |r: &Routing| Routing::id(
    *r
));

/// A 0/1 switch.
impl Value for bool {
    fn parse(v: &str, _: &Accepts) -> Result<Self, String> {
        match v {
            "1" => Ok(true),
            "0" => Ok(false),
            _ => Err(format!("'{v}'; accepted: 0, 1")),
        }
    }
    fn show(&self) -> String {
        u8::from(*self).to_string()
    }
}

macro_rules! field {
    ($($t:ty),*) => {$(
        impl Field for $t {
            fn set_text(&mut self, v: &str, accepts: &Accepts) -> Result<(), String> {
                *self = <$t as Value>::parse(v, accepts)?;
                Ok(())
            }
            fn text(&self) -> Option<String> {
                Some(self.show())
            }
            fn unset(&mut self) -> bool {
                false
            }
        }
        impl Field for Option<$t> {
            fn set_text(&mut self, v: &str, accepts: &Accepts) -> Result<(), String> {
                *self = Some(<$t as Value>::parse(v, accepts)?);
                Ok(())
            }
            fn text(&self) -> Option<String> {
                self.as_ref().map(Value::show)
            }
            fn unset(&mut self) -> bool {
                *self = None;
                true
            }
        }
    )*};
}
field!(
    u8,
    u32,
    u64,
    f64,
    bool,
    Op,
    Algo,
    Scaling,
    Precision,
    Recompute,
    Attn,
    &'static Gpu,
    &'static Fabric,
    &'static Network,
    Model,
    Attach,
    Placement,
    Routing
);

/// Counts show with a decimal suffix (`15T`), so a count field is a newtype.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Count(pub f64);

impl Field for Option<Count> {
    fn set_text(&mut self, v: &str, accepts: &Accepts) -> Result<(), String> {
        *self = Some(Count(f64::parse(v, accepts)?));
        Ok(())
    }
    fn text(&self) -> Option<String> {
        self.map(|c| format_count(c.0))
    }
    fn unset(&mut self) -> bool {
        *self = None;
        true
    }
}

/// Byte sizes show in their binary form (`1GiB`), so the size field is a newtype.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bytes(pub f64);

impl Field for Bytes {
    fn set_text(&mut self, v: &str, accepts: &Accepts) -> Result<(), String> {
        self.0 = f64::parse(v, accepts)?;
        Ok(())
    }
    fn text(&self) -> Option<String> {
        Some(format_bytes(self.0))
    }
    fn unset(&mut self) -> bool {
        false
    }
}

const fn whole_in(lo: u64, hi: u64) -> Accepts {
    Accepts::Whole { lo, hi, steps: &[] }
}

/// GPUs per node a select offers: the common server sizes up to an NVL72 rack.
pub const PER_NODE_STEPS: &[u64] = &[1, 2, 4, 8, 16, 72];

/// Every key, in canonical order.
pub const KEYS: &[Key] = &[
    Key {
        name: "op",
        accepts: Accepts::OneOf(ids::<Op>),
        default: "allreduce",
        unit: "",
        doc: "the collective",
        applies: Applies::Collective,
        always: false,
        field: |s| &mut s.op,
    },
    Key {
        name: "gpus",
        accepts: whole_in(1, MAX_GPUS as u64),
        default: "8",
        unit: "GPUs",
        doc: "GPUs in the job; a multiple of `per_node` when larger than a node",
        applies: Applies::Both,
        always: true,
        field: |s| &mut s.gpus,
    },
    Key {
        name: "per_node",
        accepts: Accepts::Whole {
            lo: 1,
            hi: 72,
            steps: PER_NODE_STEPS,
        },
        default: "8 (a job smaller than a node uses part of one node)",
        unit: "GPUs",
        doc: "GPUs per node",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.per_node,
    },
    Key {
        name: "gpu",
        accepts: Accepts::OneOf(ids::<&'static Gpu>),
        default: "h100",
        unit: "",
        doc: "the accelerator",
        applies: Applies::Both,
        always: true,
        field: |s| &mut s.gpu,
    },
    Key {
        name: "intra",
        accepts: Accepts::OneOf(ids::<&'static Fabric>),
        default: "the GPU's usual fabric",
        unit: "",
        doc: "the fabric inside a node",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.intra,
    },
    Key {
        name: "p2p",
        accepts: Accepts::OneOf(|| vec!["0", "1"]),
        default: "1, except GeForce cards (0: NVIDIA's driver disables it)",
        unit: "",
        doc: "PCIe peer-to-peer between a node's GPUs (PCIe fabrics only); 0: NCCL relays through host memory (SHM), at 75 % of the PCIe rate and, across two CPU sockets, at most their link's 22 GB/s",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.p2p,
    },
    Key {
        name: "inter",
        accepts: Accepts::OneOf(ids::<&'static Network>),
        default: "`none` for one node, else the GPU generation's InfiniBand",
        unit: "",
        doc: "the network between nodes",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.inter,
    },
    Key {
        name: "nics",
        accepts: Accepts::Whole {
            lo: 1,
            hi: 8,
            steps: &[1, 2, 3, 4, 5, 6, 7, 8],
        },
        default: "one per GPU on RDMA, 1 on TCP",
        unit: "per node",
        doc: "network ports per node",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.nics,
    },
    Key {
        name: "algo",
        accepts: Accepts::OneOf(ids::<Algo>),
        default: "auto",
        unit: "",
        doc: "the all-reduce algorithm (`auto`: the fastest by the model's costs, with NCCL 2.29.7's latencies)",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.algo,
    },
    Key {
        name: "bytes",
        accepts: Accepts::Size {
            lo: 1.0,
            hi: MAX_BYTES,
        },
        default: "1GiB",
        unit: "bytes",
        doc: "message size of the collective",
        applies: Applies::Collective,
        always: false,
        field: |s| &mut s.bytes,
    },
    Key {
        name: "model",
        accepts: Accepts::OneOf(ids::<Model>),
        default: "llama3-8b",
        unit: "",
        doc: "the workload: a preset, or `custom` (shape keys below)",
        applies: Applies::Step,
        always: true,
        field: |s| &mut s.model,
    },
    Key {
        name: "params",
        accepts: Accepts::Number { lo: 1.0, hi: 1e14 },
        default: "—",
        unit: "parameters",
        doc: "a custom model by parameter count (with `flops`)",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.params,
    },
    Key {
        name: "flops",
        accepts: Accepts::Number { lo: 1.0, hi: 1e20 },
        default: "6 × params × seq (seq 2048 unless given)",
        unit: "FLOP/sample",
        doc: "a custom model's training FLOPs per sample",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.flops,
    },
    Key {
        name: "layers",
        accepts: whole_in(1, 1000),
        default: "the preset's (custom: 32)",
        unit: "",
        doc: "transformer layers; overrides the preset's",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.layers,
    },
    Key {
        name: "hidden",
        accepts: whole_in(1, 131_072),
        default: "the preset's (custom: 4096)",
        unit: "",
        doc: "transformer hidden size; overrides the preset's",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.hidden,
    },
    Key {
        name: "heads",
        accepts: whole_in(1, 1024),
        default: "the preset's (custom: 32)",
        unit: "",
        doc: "attention heads; overrides the preset's",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.heads,
    },
    Key {
        name: "seq",
        accepts: whole_in(1, 1_048_576),
        default: "the preset's (custom: 2048)",
        unit: "tokens",
        doc: "sequence length; overrides the preset's (with `params`: tokens a sample, for the default `flops`, tokens/s and the data budget)",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.seq,
    },
    Key {
        name: "vocab",
        accepts: whole_in(1, 1_000_000),
        default: "the preset's (custom: 50257)",
        unit: "tokens",
        doc: "vocabulary size; overrides the preset's",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.vocab,
    },
    Key {
        name: "untied",
        accepts: Accepts::OneOf(|| vec!["0", "1"]),
        default: "0 (tied, as GPT)",
        unit: "",
        doc: "model=custom: a separate input embedding (Llama; Megatron's --untie-embeddings-and-output-weights): V·h more parameters, looked up, not multiplied",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.untied,
    },
    Key {
        name: "fill",
        accepts: Accepts::Number { lo: 0.01, hi: 1.0 },
        default: "1",
        unit: "share of seq",
        doc: "mean length a micro-batch is padded to, as a share of seq: 1 for full-length or packed sequences; below 1 for variable-length data padded per batch (the full-length batch still sets the memory peak; tokens/s, MFU and a `tokens` budget count padded tokens at the mean length)",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.fill,
    },
    Key {
        name: "fill_rms",
        accepts: Accepts::Number { lo: 0.01, hi: 1.0 },
        default: "fill",
        unit: "share of seq",
        doc: "root-mean-square padded length, as a share of seq: with fill, how spread the batch lengths are (the attention's cost goes with the square)",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.fill_rms,
    },
    Key {
        name: "batch",
        accepts: whole_in(1, 1 << 24),
        default: "one micro-batch per replica (4·pp with a pipeline); strong scaling: the one-node batch",
        unit: "samples",
        doc: "global batch",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.batch,
    },
    Key {
        name: "micro",
        accepts: whole_in(1, 65_536),
        default: "per workload",
        unit: "samples",
        doc: "micro-batch per GPU",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.micro,
    },
    Key {
        name: "precision",
        accepts: Accepts::OneOf(ids::<Precision>),
        default: "bf16 (fp16 on V100)",
        unit: "",
        doc: "the training math",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.precision,
    },
    Key {
        name: "tp",
        accepts: Accepts::Whole {
            lo: 1,
            hi: 72,
            steps: PER_NODE_STEPS,
        },
        default: "1",
        unit: "GPUs",
        doc: "tensor-parallel degree (inside a node)",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.tp,
    },
    Key {
        name: "sp",
        accepts: Accepts::OneOf(|| vec!["0", "1"]),
        default: "1 when tp > 1",
        unit: "",
        doc: "Megatron sequence parallelism: reduce-scatter/all-gather instead of all-reduce, activations split by tp",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.sp,
    },
    Key {
        name: "tp_overlap",
        accepts: Accepts::OneOf(|| vec!["0", "1"]),
        default: "0",
        unit: "",
        doc: "1: tensor-parallel collectives overlap the GEMMs (Transformer Engine userbuffers, `tp_comm_overlap` in Megatron-Core/NeMo)",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.tech.tp_overlap,
    },
    Key {
        name: "tp_async",
        accepts: Accepts::OneOf(|| vec!["0", "1"]),
        default: "1",
        unit: "",
        doc: "1: in the backward pass, the tensor-parallel all-reduce (with sp: reduce-scatter) of each column-parallel GEMM's input gradient runs beside its weight-gradient GEMM, and with sp the input's re-gather beside the input-gradient GEMM (Megatron-LM since August 2021, Megatron-Core always); 0: they wait, as in Megatron-LM's 2021 SC21 code",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.tech.tp_async,
    },
    Key {
        name: "grad_fp32",
        accepts: Accepts::OneOf(|| vec!["0", "1"]),
        default: "0",
        unit: "",
        doc: "1: gradients are accumulated and reduced in FP32 under 16-bit training, twice the data-parallel reduction's bytes and the gradients' memory (Megatron-LM forces it for bf16; NeMo's and Megatron-Bridge's bf16-mixed recipes set `grad_reduce_in_fp32`)",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.tech.grad_fp32,
    },
    Key {
        name: "pp",
        accepts: whole_in(1, 1000),
        default: "1",
        unit: "stages",
        doc: "pipeline-parallel stages",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.pp,
    },
    Key {
        name: "vpp",
        accepts: whole_in(1, 64),
        default: "1",
        unit: "chunks per GPU",
        doc: "interleaved 1F1B: model chunks per pipeline GPU (the bubble shrinks by this factor); needs at least pp micro-batches a step (strong scaling runs the plain schedule where a replica has fewer); pp×vpp chunks hold a layer each, or the embedding or the output layer alone (at most layers + 2)",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.vpp,
    },
    Key {
        name: "zero",
        accepts: Accepts::Whole {
            lo: 0,
            hi: 3,
            steps: &[0, 1, 2, 3],
        },
        default: "the least sharding that fits: 0, else 1, 2, 3 (with a pipeline 0, else 1)",
        unit: "",
        doc: "ZeRO / FSDP stage: 1 shards optimizer state, 2 gradients too, 3 weights too",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.zero,
    },
    Key {
        name: "attn",
        accepts: Accepts::OneOf(ids::<Attn>),
        default: "flash where the GPU runs FlashAttention-2 (Ampere and newer), else eager",
        unit: "",
        doc: "attention kernel: `flash` (FlashAttention-2) never stores the score matrix, `flash1` (FlashAttention 1 or its Triton port) neither but runs at under half the speed, `cudnn` (cuDNN's fused attention, Transformer Engine's pick on Hopper, where its speed is measured: h100, h200) neither and runs 1.59x faster, `eager` stores it",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.attn,
    },
    Key {
        name: "recompute",
        accepts: Accepts::OneOf(ids::<Recompute>),
        default: "none",
        unit: "",
        doc: "activation recomputation: `selective` recomputes the attention core (Megatron), `ops` every second matmul and the cheap ops between them (torchtitan's op-level policy), `full` each layer's forward",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.tech.recompute,
    },
    Key {
        name: "overlap",
        accepts: Accepts::OneOf(|| vec!["0", "1"]),
        default: "1",
        unit: "",
        doc: "1: the gradient sync overlaps the backward pass; 0: it runs after it",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.tech.overlap,
    },
    Key {
        name: "gather_overlap",
        accepts: Accepts::OneOf(|| vec!["0", "1"]),
        default: "0",
        unit: "",
        doc: "ZeRO-1/2 only. 1: the updated weights are all-gathered layer by layer while the next forward pass runs (Megatron-Core's distributed optimizer, `--overlap-param-gather`); 0: after the optimizer step, exposed (DeepSpeed)",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.tech.gather_overlap,
    },
    Key {
        name: "scaling",
        accepts: Accepts::OneOf(ids::<Scaling>),
        default: "weak",
        unit: "",
        doc: "`weak`: same per-GPU batch; `strong`: same global batch",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.scaling,
    },
    Key {
        name: "jitter",
        accepts: Accepts::Number { lo: 0.0, hi: 1.0 },
        default: "0",
        unit: "CV",
        doc: "step-time jitter of one GPU (coefficient of variation): the slowest of N sets the step",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.ops.jitter,
    },
    Key {
        name: "slow_gpus",
        accepts: Accepts::Number { lo: 0.0, hi: 1.0 },
        default: "0",
        unit: "share",
        doc: "share of GPUs that run slower (throttling, a bad node)",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.ops.slow_gpus,
    },
    Key {
        name: "slow_factor",
        accepts: Accepts::Number { lo: 1.0, hi: 10.0 },
        default: "1.5",
        unit: "×",
        doc: "how much slower those GPUs are",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.ops.slow_factor,
    },
    Key {
        name: "failure_rate",
        accepts: Accepts::Number { lo: 0.0, hi: 1000.0 },
        default: "0.47 (Llama 3 405B pre-training: 419 interruptions in 54 days on 16K GPUs)",
        unit: "per 1,000 GPU-days",
        doc: "job interruptions per GPU",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.ops.failure_rate,
    },
    Key {
        name: "ckpt_gbs",
        accepts: Accepts::Number { lo: 0.001, hi: 1000.0 },
        default: "1 (Llama 3's storage: 2 TB/s for 2,048 nodes)",
        unit: "GB/s per node",
        doc: "checkpoint write bandwidth",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.ops.ckpt_gbs,
    },
    Key {
        name: "restart_min",
        accepts: Accepts::Number { lo: 0.0, hi: 1440.0 },
        default: "10 (assumption)",
        unit: "minutes",
        doc: "from a failure to training again",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.ops.restart_min,
    },
    Key {
        name: "ckpt_interval",
        accepts: Accepts::Number { lo: 0.1, hi: 100000.0 },
        default: "the optimum √(δ² + 2·δ·(MTTF − restart)) − δ for write time δ (Daly)",
        unit: "minutes",
        doc: "time between checkpoints",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.ops.ckpt_interval,
    },
    Key {
        name: "tokens",
        accepts: Accepts::Count { lo: 1.0, hi: 1e16 },
        default: "20 per parameter (Chinchilla)",
        unit: "tokens",
        doc: "data budget of the training run (transformers, or a model by `params` without its own `flops`): the tokens a small batch would need; a larger batch needs more (McCandlish et al. 2018), which the time to train counts",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.tokens,
    },
    Key {
        name: "samples",
        accepts: Accepts::Count { lo: 1.0, hi: 1e16 },
        default: "tokens / seq; ResNet-50: 90 ImageNet epochs",
        unit: "samples",
        doc: "data budget in samples (overrides tokens)",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.samples,
    },
    Key {
        name: "batch_noise",
        accepts: Accepts::Count { lo: 1.0, hi: 1e12 },
        default: "Kaplan et al.'s critical batch at the loss the run ends with (Chinchilla's fit: 5M tokens for Llama 3 8B on 160B tokens, 12M for 405B on 15.6T); ResNet-50: 8,192",
        unit: "samples",
        doc: "critical batch: beyond it a bigger batch no longer cuts the steps in proportion",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.batch_noise,
    },
    Key {
        name: "price",
        accepts: Accepts::Number { lo: 0.0, hi: 1000.0 },
        default: "12.29 (example: AWS p5.48xlarge on demand, 2024, per GPU)",
        unit: "$ per GPU-hour",
        doc: "price for the cost of the run",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.ops.price,
    },
    Key {
        name: "nic_attach",
        accepts: Accepts::OneOf(ids::<Attach>),
        default: "rail",
        unit: "",
        doc: "rail-optimised (NIC i of every node on leaf i, DGX SuperPOD) or top-of-rack (a node's NICs on one leaf)",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.nic_attach,
    },
    Key {
        name: "leaf_nodes",
        accepts: whole_in(1, 4096),
        default: "32 with rail (a SuperPOD scalable unit), 4 with tor",
        unit: "nodes",
        doc: "nodes under one leaf group",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.leaf_nodes,
    },
    Key {
        name: "oversub",
        accepts: Accepts::Number { lo: 1.0, hi: 64.0 },
        default: "1",
        unit: ": 1",
        doc: "leaf → spine oversubscription (1 = non-blocking)",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.oversub,
    },
    Key {
        name: "pod_gpus",
        accepts: whole_in(1, MAX_GPUS as u64),
        default: "none (two tiers)",
        unit: "GPUs",
        doc: "GPUs per pod, for a third tier above the spines",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.pod_gpus,
    },
    Key {
        name: "pod_oversub",
        accepts: Accepts::Number { lo: 1.0, hi: 64.0 },
        default: "1",
        unit: ": 1",
        doc: "taper between pods (e.g. 7 in a large RoCE cluster)",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.pod_oversub,
    },
    Key {
        name: "placement",
        accepts: Accepts::OneOf(ids::<Placement>),
        default: "packed",
        unit: "",
        doc: "the job's nodes contiguous, one per leaf group, or scattered by a busy scheduler (half of each leaf group)",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.placement,
    },
    Key {
        name: "routing",
        accepts: Accepts::OneOf(ids::<Routing>),
        default: "adaptive on InfiniBand, ecmp on Ethernet",
        unit: "",
        doc: "static hashing of flows onto uplinks (collisions) or adaptive spreading",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.routing,
    },
    Key {
        name: "bg_load",
        accepts: Accepts::Number { lo: 0.0, hi: 0.9 },
        default: "0",
        unit: "share",
        doc: "share of uplink capacity other jobs use",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.bg_load,
    },
    Key {
        name: "calib_intra",
        accepts: Accepts::Number { lo: 0.01, hi: 10.0 },
        default: "1",
        unit: "×",
        doc: "calibration from a measured run: multiplier on the intra-node bandwidth (`scaling-lab calibrate`)",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.calib.intra,
    },
    Key {
        name: "calib_net",
        accepts: Accepts::Number { lo: 0.01, hi: 10.0 },
        default: "1",
        unit: "×",
        doc: "calibration: multiplier on the network path's bandwidth (NICs, or the GPUs' PCIe links where those bound it)",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.calib.net,
    },
    Key {
        name: "calib_lat",
        accepts: Accepts::Number { lo: 0.01, hi: 100.0 },
        default: "1",
        unit: "×",
        doc: "calibration: multiplier on every latency",
        applies: Applies::Both,
        always: false,
        field: |s| &mut s.calib.lat,
    },
    Key {
        name: "data_rate",
        accepts: Accepts::Number { lo: 1e-3, hi: 1e9 },
        default: "per workload",
        unit: "samples/s per node",
        doc: "what one node's input pipeline delivers",
        applies: Applies::Step,
        always: false,
        field: |s| &mut s.data_rate,
    },
];

/// Looks a key up by name.
pub fn key(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

/// The names of every key, comma-separated (for "unknown key" errors).
pub fn names() -> String {
    KEYS.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
}

/// The README's key table, generated from [`KEYS`] (a test keeps the README equal to it).
pub fn markdown_table() -> String {
    let mut out =
        String::from("| key | values | default | unit | what it sets |\n|---|---|---|---|---|\n");
    for k in KEYS {
        let values = match k.accepts {
            Accepts::OneOf(_) => k
                .accepts
                .describe()
                .split(", ")
                .map(|v| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(", "),
            _ => k.accepts.describe(),
        };
        let applies = match k.applies {
            Applies::Both => "",
            Applies::Collective => " (collective)",
            Applies::Step => "",
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {}{} |\n",
            k.name, values, k.default, k.unit, k.doc, applies
        ));
    }
    out
}

/// The key names that apply to a command (`collective` or `step`), for the usage text.
pub fn names_for(collective: bool) -> Vec<&'static str> {
    KEYS.iter()
        .filter(|k| match k.applies {
            Applies::Both => true,
            Applies::Collective => collective,
            Applies::Step => !collective,
        })
        .map(|k| k.name)
        .collect()
}

/// The preset workloads' ids and `custom`, for `model=`.
impl Model {
    fn choices() -> Vec<Model> {
        workload::PRESETS
            .iter()
            .map(Model::Preset)
            .chain(std::iter::once(Model::Custom))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table's default column cannot drift from the default scenario.
    #[test]
    fn the_default_column_states_the_default() {
        let d = Scenario::default();
        for k in KEYS {
            if let Some(v) = d.get(k.name) {
                assert!(
                    k.default.starts_with(&v),
                    "{}: table says {:?}, code {v}",
                    k.name,
                    k.default
                );
            }
        }
    }

    /// Every default parses under its own key (reset relies on it).
    #[test]
    fn every_default_value_parses() {
        let d = Scenario::default();
        for k in KEYS {
            if let Some(v) = d.get(k.name) {
                let mut s = Scenario::default();
                s.set(k.name, &v).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(s, d, "{}", k.name);
            }
        }
    }

    #[test]
    fn errors_state_the_accepted_values() {
        let mut s = Scenario::default();
        let e = s.set("gpus", "70000").unwrap_err();
        assert!(e.message.contains("65,536"), "{e}");
        let e = s.set("attn", "sparse").unwrap_err();
        assert!(e.message.contains("flash, flash1, cudnn, eager"), "{e}");
        let e = s.set("colour", "red").unwrap_err();
        assert!(e.message.contains("data_rate"), "{e}");
    }
}
