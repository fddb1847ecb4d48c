//! The scenario string: `key=value&key=value`, shared by the app's URL hash and the CLI.
//!
//! Parsing is strict ([`Scenario::parse`]): the first problem is an error naming the key and what
//! is accepted. The app uses [`Scenario::parse_lenient`], which keeps the default for each bad key
//! and reports every problem, so the rest of the page keeps working.

use super::collective::{Algo, Cluster, Op};
use super::hardware::{self, Fabric, Gpu, NetKind, Network, Precision};
use super::units::{format_bytes, parse_bytes};
use super::workload::{self, Recompute, Workload};
use super::ModelError;

/// Speedup baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scaling {
    /// One GPU runs the same per-replica batch; the global batch grows with the GPUs.
    Weak,
    /// One GPU runs the whole global batch (with gradient accumulation).
    Strong,
}

impl Scaling {
    /// Scenario id.
    pub fn id(self) -> &'static str {
        match self {
            Scaling::Weak => "weak",
            Scaling::Strong => "strong",
        }
    }
}

/// Largest GPU count the model accepts (the sweep's range).
pub const MAX_GPUS: u32 = 65_536;

/// Every key, in canonical order.
pub const KEYS: [&str; 27] = [
    "op",
    "gpus",
    "per_node",
    "gpu",
    "intra",
    "inter",
    "nics",
    "algo",
    "bytes",
    "model",
    "params",
    "flops",
    "layers",
    "hidden",
    "heads",
    "seq",
    "vocab",
    "batch",
    "micro",
    "precision",
    "tp",
    "pp",
    "zero",
    "recompute",
    "overlap",
    "scaling",
    "data_rate",
];

/// A parsed scenario. Fields that default from others are `Option`s; the accessors resolve them.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub op: Op,
    pub gpus: u32,
    pub per_node: Option<u32>,
    pub gpu: &'static Gpu,
    pub intra: Option<&'static Fabric>,
    pub inter: Option<&'static Network>,
    pub nics: Option<u32>,
    pub algo: Algo,
    pub bytes: f64,
    /// Preset id or `custom`.
    pub model: &'static str,
    pub params: Option<f64>,
    pub flops: Option<f64>,
    pub layers: Option<u32>,
    pub hidden: Option<u32>,
    pub heads: Option<u32>,
    pub seq: Option<u32>,
    pub vocab: Option<u32>,
    pub batch: Option<u64>,
    pub micro: Option<u32>,
    pub precision: Option<Precision>,
    pub tp: u32,
    pub pp: u32,
    pub zero: u8,
    pub recompute: Option<Recompute>,
    pub overlap: bool,
    pub scaling: Scaling,
    pub data_rate: Option<f64>,
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
            nics: None,
            algo: Algo::Auto,
            bytes: 1073741824.0,
            model: "llama3-8b",
            params: None,
            flops: None,
            layers: None,
            hidden: None,
            heads: None,
            seq: None,
            vocab: None,
            batch: None,
            micro: None,
            precision: None,
            tp: 1,
            pp: 1,
            zero: 0,
            recompute: None,
            overlap: true,
            scaling: Scaling::Weak,
            data_rate: None,
        }
    }
}

fn ids<T>(items: &[T], id: impl Fn(&T) -> &'static str) -> String {
    items.iter().map(id).collect::<Vec<_>>().join(", ")
}

fn int(key: &str, v: &str, lo: u64, hi: u64) -> Result<u64, ModelError> {
    let n: u64 = v.parse().map_err(|_| {
        ModelError::new(
            key,
            format!("'{v}' is not a whole number; accepted: {lo}…{hi}"),
        )
    })?;
    if n < lo || n > hi {
        return Err(ModelError::new(
            key,
            format!("{n} is out of range; accepted: {lo}…{hi}"),
        ));
    }
    Ok(n)
}

fn small(key: &str, v: &str, lo: u32, hi: u32) -> Result<u32, ModelError> {
    // Bounded by `hi`, so the narrowing cannot fail.
    int(key, v, u64::from(lo), u64::from(hi)).map(|n| n as u32)
}

fn real(key: &str, v: &str, lo: f64, hi: f64) -> Result<f64, ModelError> {
    let x: f64 = v.parse().map_err(|_| {
        ModelError::new(key, format!("'{v}' is not a number; accepted: {lo}…{hi:e}"))
    })?;
    if !x.is_finite() || x < lo || x > hi {
        return Err(ModelError::new(
            key,
            format!("'{v}' is out of range; accepted: {lo}…{hi:e}"),
        ));
    }
    Ok(x)
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

    /// Lenient parse: a bad value keeps its default; every problem is returned.
    pub fn parse_lenient(s: &str) -> (Scenario, Vec<ModelError>) {
        let mut sc = Scenario::default();
        let mut errs = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        let body = s.trim().trim_start_matches(['#', '?']);
        for pair in body.split('&').filter(|p| !p.trim().is_empty()) {
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
                    sc.reset(&e.key);
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
        match k {
            "op" => {
                self.op = Op::from_id(v).ok_or_else(|| {
                    ModelError::new(
                        k,
                        format!("unknown '{v}'; accepted: {}", ids(&Op::ALL, |o| o.id())),
                    )
                })?
            }
            "gpus" => self.gpus = small(k, v, 1, MAX_GPUS)?,
            "per_node" => self.per_node = Some(small(k, v, 1, 72)?),
            "gpu" => {
                self.gpu = hardware::gpu(v).ok_or_else(|| {
                    ModelError::new(
                        k,
                        format!(
                            "unknown '{v}'; accepted: {}",
                            ids(&hardware::GPUS, |g| g.id)
                        ),
                    )
                })?
            }
            "intra" => {
                self.intra = Some(hardware::fabric(v).ok_or_else(|| {
                    ModelError::new(
                        k,
                        format!(
                            "unknown '{v}'; accepted: {}",
                            ids(&hardware::FABRICS, |f| f.id)
                        ),
                    )
                })?)
            }
            "inter" => {
                self.inter = Some(hardware::network(v).ok_or_else(|| {
                    ModelError::new(
                        k,
                        format!(
                            "unknown '{v}'; accepted: {}",
                            ids(&hardware::NETWORKS, |n| n.id)
                        ),
                    )
                })?)
            }
            "nics" => self.nics = Some(small(k, v, 1, 8)?),
            "algo" => {
                self.algo = Algo::from_id(v).ok_or_else(|| {
                    ModelError::new(
                        k,
                        format!("unknown '{v}'; accepted: {}", ids(&Algo::ALL, |a| a.id())),
                    )
                })?
            }
            "bytes" => {
                let b = parse_bytes(v).ok_or_else(|| {
                    ModelError::new(
                        k,
                        format!("'{v}' is not a size; accepted: a whole number of bytes or forms like 64MiB, 1GiB"),
                    )
                })?;
                if !(1.0..=1099511627776.0).contains(&b) {
                    return Err(ModelError::new(
                        k,
                        format!("'{v}' is out of range; accepted: 1 byte … 1TiB"),
                    ));
                }
                self.bytes = b;
            }
            "model" => {
                self.model = if v == "custom" {
                    "custom"
                } else {
                    workload::preset(v)
                        .ok_or_else(|| {
                            ModelError::new(
                                k,
                                format!("unknown '{v}'; accepted: {}", workload::ids()),
                            )
                        })?
                        .id
                }
            }
            "params" => self.params = Some(real(k, v, 1.0, 1e14)?),
            "flops" => self.flops = Some(real(k, v, 1.0, 1e20)?),
            "layers" => self.layers = Some(small(k, v, 1, 1000)?),
            "hidden" => self.hidden = Some(small(k, v, 1, 131_072)?),
            "heads" => self.heads = Some(small(k, v, 1, 1024)?),
            "seq" => self.seq = Some(small(k, v, 1, 1_048_576)?),
            "vocab" => self.vocab = Some(small(k, v, 1, 1_000_000)?),
            "batch" => self.batch = Some(int(k, v, 1, 1 << 24)?),
            "micro" => self.micro = Some(small(k, v, 1, 65_536)?),
            "precision" => {
                self.precision = Some(Precision::from_id(v).ok_or_else(|| {
                    ModelError::new(
                        k,
                        format!(
                            "unknown '{v}'; accepted: {}",
                            ids(&Precision::ALL, |p| p.id())
                        ),
                    )
                })?)
            }
            "tp" => self.tp = small(k, v, 1, 72)?,
            "pp" => self.pp = small(k, v, 1, 1000)?,
            "zero" => self.zero = small(k, v, 0, 3)? as u8,
            "recompute" => {
                self.recompute = Some(Recompute::from_id(v).ok_or_else(|| {
                    ModelError::new(k, format!("unknown '{v}'; accepted: none, selective, full"))
                })?)
            }
            "overlap" => {
                self.overlap = match v {
                    "1" => true,
                    "0" => false,
                    _ => return Err(ModelError::new(k, format!("'{v}'; accepted: 0, 1"))),
                }
            }
            "scaling" => {
                self.scaling = match v {
                    "weak" => Scaling::Weak,
                    "strong" => Scaling::Strong,
                    _ => {
                        return Err(ModelError::new(
                            k,
                            format!("unknown '{v}'; accepted: weak, strong"),
                        ))
                    }
                }
            }
            "data_rate" => self.data_rate = Some(real(k, v, 1e-3, 1e9)?),
            _ => {
                return Err(ModelError::new(
                    k,
                    format!("unknown key; accepted: {}", KEYS.join(", ")),
                ))
            }
        }
        Ok(())
    }

    /// Puts the keys named in `keys` (joined by `+`) back to their defaults.
    /// An empty value in the app's controls means "back to the default" too.
    pub fn reset(&mut self, keys: &str) {
        let d = Scenario::default();
        for k in keys.split('+') {
            match k {
                "op" => self.op = d.op,
                "gpu" => self.gpu = d.gpu,
                "bytes" => self.bytes = d.bytes,
                "zero" => self.zero = d.zero,
                "overlap" => self.overlap = d.overlap,
                "scaling" => self.scaling = d.scaling,
                "data_rate" => self.data_rate = d.data_rate,
                "gpus" => self.gpus = d.gpus,
                "per_node" => self.per_node = d.per_node,
                "intra" => self.intra = d.intra,
                "inter" => self.inter = d.inter,
                "nics" => self.nics = d.nics,
                "algo" => self.algo = d.algo,
                "model" => self.model = d.model,
                "params" => self.params = d.params,
                "flops" => self.flops = d.flops,
                "layers" => self.layers = d.layers,
                "hidden" => self.hidden = d.hidden,
                "heads" => self.heads = d.heads,
                "seq" => self.seq = d.seq,
                "vocab" => self.vocab = d.vocab,
                "batch" => self.batch = d.batch,
                "micro" => self.micro = d.micro,
                "precision" => self.precision = d.precision,
                "tp" => self.tp = d.tp,
                "pp" => self.pp = d.pp,
                "recompute" => self.recompute = d.recompute,
                _ => {}
            }
        }
    }

    /// GPUs per node, resolved: at most 8 by default, and a job smaller than a node uses part of
    /// one node.
    pub fn per_node(&self) -> u32 {
        self.per_node.unwrap_or(8).min(self.gpus).max(1)
    }

    /// Intra-node fabric, resolved from the GPU when not given.
    pub fn intra(&self) -> &'static Fabric {
        self.intra
            .or_else(|| hardware::fabric(self.gpu.default_intra))
            .unwrap_or(&hardware::FABRICS[0])
    }

    /// Inter-node network, resolved: `none` for one node, else the GPU generation's usual fabric.
    pub fn inter(&self) -> &'static Network {
        if let Some(n) = self.inter {
            return n;
        }
        let nodes = self.gpus.div_ceil(self.per_node());
        let id = if nodes <= 1 {
            "none"
        } else {
            match self.gpu.id {
                "v100" => "ib-edr",
                "a100" => "ib-hdr",
                "b200" => "ib-xdr",
                "mi300x" => "roce400",
                "rtx4090" => "tcp25",
                _ => "ib-ndr",
            }
        };
        hardware::network(id).unwrap_or(&hardware::NETWORKS[0])
    }

    /// NICs per node, resolved: one per GPU (up to 8) on RDMA fabrics, one on TCP.
    pub fn nics(&self) -> u32 {
        self.nics.unwrap_or(match self.inter().kind {
            NetKind::Rdma => self.per_node().min(8),
            _ => 1,
        })
    }

    /// The cluster the collectives run on.
    pub fn cluster(&self) -> Cluster {
        Cluster {
            gpus: self.gpus,
            per_node: self.per_node(),
            gpu: self.gpu,
            intra: self.intra(),
            inter: self.inter(),
            nics: self.nics(),
            net_scale: 1.0,
            intra_scale: 1.0,
        }
    }

    /// The workload, resolved.
    pub fn workload(&self) -> Workload {
        if self.model != "custom" {
            return workload::preset(self.model)
                .copied()
                .unwrap_or(workload::PRESETS[3]);
        }
        match (self.params, self.layers.or(self.hidden)) {
            (Some(p), None) => {
                let flops = self
                    .flops
                    .unwrap_or(6.0 * p * f64::from(self.seq.unwrap_or(1)));
                workload::custom_generic(p, flops)
            }
            _ => workload::custom_transformer(
                self.layers.unwrap_or(32),
                self.hidden.unwrap_or(4096),
                self.heads.unwrap_or(32),
                self.seq.unwrap_or(2048),
                self.vocab.unwrap_or(50257),
            ),
        }
    }

    /// Precision, resolved: bf16 where the GPU has it, else fp16.
    pub fn precision(&self) -> Precision {
        self.precision
            .unwrap_or(if self.gpu.peak_flops(Precision::Bf16).is_some() {
                Precision::Bf16
            } else {
                Precision::Fp16
            })
    }

    /// Recomputation, resolved: transformers recompute the attention core (selective, as
    /// FlashAttention does by construction), other models nothing.
    pub fn recompute(&self) -> Recompute {
        self.recompute.unwrap_or(match self.workload().arch {
            workload::Arch::Transformer { .. } => Recompute::Selective,
            workload::Arch::Generic { .. } => Recompute::None,
        })
    }

    /// Data-parallel replicas.
    pub fn dp(&self) -> u32 {
        (self.gpus / (self.tp * self.pp).max(1)).max(1)
    }

    /// Micro-batch per GPU, resolved from the workload.
    pub fn micro(&self) -> u32 {
        self.micro.unwrap_or(self.workload().default_micro)
    }

    /// Global batch, resolved: one micro-batch per replica, or 4·pp of them with a pipeline so
    /// its bubble stays moderate.
    pub fn batch(&self) -> u64 {
        let per_replica = if self.pp > 1 { 4 * self.pp } else { 1 };
        self.batch
            .unwrap_or(u64::from(self.micro()) * u64::from(self.dp()) * u64::from(per_replica))
    }

    /// Input-pipeline rate per node, samples/s.
    pub fn data_rate(&self) -> f64 {
        self.data_rate.unwrap_or(self.workload().default_data_rate)
    }

    /// Cross-key checks.
    pub fn validate(&self) -> Result<(), ModelError> {
        let pn = self.per_node();
        if self.gpus > pn && self.gpus % pn != 0 {
            return Err(ModelError::new(
                "gpus+per_node",
                format!(
                    "gpus={} is not a multiple of per_node={}; accepted: whole nodes (e.g. {} or {})",
                    self.gpus,
                    pn,
                    self.gpus / pn * pn,
                    (self.gpus / pn + 1) * pn
                ),
            ));
        }
        if self.inter.is_some_and(|n| n.kind == NetKind::None) && self.gpus > pn {
            return Err(ModelError::new(
                "inter",
                format!(
                    "inter=none allows one node only, but gpus={} over per_node={} is {} nodes; pick a network",
                    self.gpus,
                    pn,
                    self.gpus / pn
                ),
            ));
        }
        if self.gpu.peak_flops(self.precision()).is_none() {
            return Err(ModelError::new(
                "precision",
                format!(
                    "{} has no {} math; accepted: {}",
                    self.gpu.id,
                    self.precision().id(),
                    self.gpu.precision_ids().join(", ")
                ),
            ));
        }
        if self.model != "custom"
            && (self.params.is_some()
                || self.flops.is_some()
                || self.layers.is_some()
                || self.hidden.is_some()
                || self.heads.is_some()
                || self.seq.is_some()
                || self.vocab.is_some())
        {
            let key = [
                ("params", self.params.is_some()),
                ("flops", self.flops.is_some()),
                ("layers", self.layers.is_some()),
                ("hidden", self.hidden.is_some()),
                ("heads", self.heads.is_some()),
                ("seq", self.seq.is_some()),
                ("vocab", self.vocab.is_some()),
            ]
            .into_iter()
            .find(|(_, set)| *set)
            .map(|(k, _)| k)
            .unwrap_or("model");
            return Err(ModelError::new(
                key,
                format!("{key} applies to model=custom only (model={})", self.model),
            ));
        }
        if let (Some(h), Some(a)) = (self.hidden, self.heads) {
            if h % a != 0 {
                return Err(ModelError::new(
                    "hidden+heads",
                    format!("hidden={h} must be a multiple of heads={a}"),
                ));
            }
        }
        if self.tp > pn {
            return Err(ModelError::new(
                "tp",
                format!(
                    "tp={} is larger than a node (per_node={pn}); tensor parallelism needs the node's fast links",
                    self.tp
                ),
            ));
        }
        let w = self.workload();
        if self.pp > w.layers() {
            return Err(ModelError::new(
                "pp",
                format!("pp={} exceeds the model's {} layers", self.pp, w.layers()),
            ));
        }
        let mp = self.tp * self.pp;
        if self.gpus % mp != 0 {
            return Err(ModelError::new(
                "gpus+tp+pp",
                format!(
                    "gpus={} is not divisible by tp×pp = {}×{} = {mp}",
                    self.gpus, self.tp, self.pp
                ),
            ));
        }
        let step = u64::from(self.micro()) * u64::from(self.dp());
        if self.batch() % step != 0 {
            return Err(ModelError::new(
                "batch+micro",
                format!(
                    "batch={} is not a multiple of micro×dp = {}×{} = {step}",
                    self.batch(),
                    self.micro(),
                    self.dp()
                ),
            ));
        }
        Ok(())
    }

    /// The canonical scenario string: every key that was given, in [`KEYS`] order.
    pub fn to_query(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        let mut push = |k: &str, v: String| out.push(format!("{k}={v}"));
        push("op", self.op.id().into());
        push("gpus", self.gpus.to_string());
        if let Some(v) = self.per_node {
            push("per_node", v.to_string());
        }
        push("gpu", self.gpu.id.into());
        if let Some(v) = self.intra {
            push("intra", v.id.into());
        }
        if let Some(v) = self.inter {
            push("inter", v.id.into());
        }
        if let Some(v) = self.nics {
            push("nics", v.to_string());
        }
        push("algo", self.algo.id().into());
        push("bytes", format_bytes(self.bytes));
        push("model", self.model.into());
        let opt = |v: Option<f64>| v.map(|x| format!("{x}"));
        for (k, v) in [
            ("params", opt(self.params)),
            ("flops", opt(self.flops)),
            ("layers", self.layers.map(|x| x.to_string())),
            ("hidden", self.hidden.map(|x| x.to_string())),
            ("heads", self.heads.map(|x| x.to_string())),
            ("seq", self.seq.map(|x| x.to_string())),
            ("vocab", self.vocab.map(|x| x.to_string())),
            ("batch", self.batch.map(|x| x.to_string())),
            ("micro", self.micro.map(|x| x.to_string())),
            ("precision", self.precision.map(|x| x.id().to_string())),
        ] {
            if let Some(v) = v {
                push(k, v);
            }
        }
        push("tp", self.tp.to_string());
        push("pp", self.pp.to_string());
        push("zero", self.zero.to_string());
        if let Some(r) = self.recompute {
            push("recompute", r.id().into());
        }
        push("overlap", u8::from(self.overlap).to_string());
        push("scaling", self.scaling.id().into());
        if let Some(v) = self.data_rate {
            push("data_rate", format!("{v}"));
        }
        out.join("&")
    }
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
            ("gpus=8&tp=3", "gpus+tp+pp"),
            ("gpus", "gpus"),
            ("gpus=8&gpus=16", "gpus"),
            ("layers=4", "layers"),
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
        let s = Scenario::parse("gpus=32&gpu=a100").unwrap();
        assert_eq!(s.intra().id, "nvlink3");
        assert_eq!(s.inter().id, "ib-hdr");
        assert_eq!(s.nics(), 8);
        let one = Scenario::parse("gpus=1").unwrap();
        assert_eq!(one.per_node(), 1);
        assert_eq!(one.inter().id, "none");
    }
}
