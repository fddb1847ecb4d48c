//! Reading an nccl-tests run (`all_reduce_perf`, `all_gather_perf`, `reduce_scatter_perf`,
//! `alltoall_perf`) and fitting the cluster it was measured on.
//!
//! The text tables vary between versions and launchers: a `root` column or none, `redop` or
//! none, lines prefixed by MPI (`[1,0]<stdout>:`), `N/A` cells, truncated tables. Data lines are
//! read from their type column onward, whatever comes before; header lines (`#`) give the ranks,
//! hosts and devices. A line that looks like data but cannot be read is reported by number.

use super::collective::Op;
use super::scenario::Calib;

/// Published runs shipped with the app (sources in `tests/data/nccl-tests/README.md`): name, text
/// and the scenario of the cluster it was measured on.
pub const SAMPLES: [(&str, &str, &str); 2] = [
    (
        "2 × 8 H100 (GCP A3 Mega)",
        include_str!("../../tests/data/nccl-tests/all_reduce_2x8_h100_a3mega.txt"),
        "gpus=16&per_node=8&gpu=h100&intra=nvlink4&inter=roce200&nics=8",
    ),
    (
        "8 × A100 in one node",
        include_str!("../../tests/data/nccl-tests/all_reduce_8_a100_mlengineering.txt"),
        "gpus=8&per_node=8&gpu=a100&intra=nvlink3",
    ),
];

/// One message size of the run (out-of-place columns).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Row {
    /// Message size, bytes.
    pub bytes: f64,
    /// Time, µs.
    pub time_us: f64,
    /// Algorithm bandwidth, GB/s.
    pub algbw_gbs: f64,
    /// Bus bandwidth, GB/s.
    pub busbw_gbs: f64,
}

/// What a pasted run says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Run {
    /// The collective, from the binary name or the header, when it says.
    pub op: Option<Op>,
    /// Whether it was `alltoall_perf` (not modelled: shown, not fitted).
    pub alltoall: bool,
    /// Rows read.
    pub rows: Vec<Row>,
    /// Ranks listed in the header.
    pub ranks: u32,
    /// Distinct hosts in the header.
    pub hosts: Vec<String>,
    /// Device names in the header.
    pub devices: Vec<String>,
    /// GPUs each host thread drives (`-g 8` on the command line, or `# nThread 1 nGpus 8` in the
    /// header), when the run says.
    pub gpus_per_thread: Option<u32>,
    /// Lines that looked like data but could not be read: (line number, why).
    pub problems: Vec<(usize, String)>,
    /// The collective was read from the table's columns, not named (older nccl-tests print no
    /// line with the binary's name): a `none` reduction with per-rank counts is an all-gather,
    /// a reduction with per-rank counts a reduce-scatter.
    pub op_from_columns: bool,
    /// Sizes whose `#wrong` cells (out of place and in place) count wrong values (nccl-tests
    /// checked the result and found it corrupted): (size in bytes, wrong values).
    pub wrong: Vec<(f64, f64)>,
    /// Where a second run begins in the text (line number), when the paste holds more than one
    /// (the same output pasted twice, or `-N` cycles): only the first run is read.
    pub next_run_at: Option<usize>,
    /// Runs the text holds (1 for one; counted by their restarts, not read).
    pub runs: u32,
}

impl Run {
    /// GPUs the run used: the ranks its header lists, else those its command drives with no
    /// rank listed (`-g 8`, `nGpus 8`: one process assumed, as a trimmed single-node table
    /// comes from). A `-g 8` run read as "not saying" was compared with whatever cluster the
    /// explorer had: 1,024 H100s for an 8-A100 node.
    pub fn gpus(&self) -> Option<u32> {
        (self.ranks > 0)
            .then_some(self.ranks)
            .or(self.gpus_per_thread)
    }

    /// GPUs per node the header implies (ranks over hosts), when it lists both; for one
    /// process with no rank listed, the GPUs it drives.
    pub fn per_node(&self) -> Option<u32> {
        if self.ranks == 0 && self.hosts.is_empty() {
            return self.gpus_per_thread;
        }
        let hosts = u32::try_from(self.hosts.len()).ok()?;
        (hosts > 0 && self.ranks >= hosts && self.ranks % hosts == 0).then(|| self.ranks / hosts)
    }

    /// What the comparison assumes that the run does not say, for scenario `sc`: a fit on the
    /// wrong GPU or count reads as a slow cluster, so it is said (a device the catalog does not
    /// know, by its name). `unsaid(key)` tells whether nobody gave the key; `whose` names where
    /// to give the run's own ("the scenario", "the explorer").
    pub fn assumed(
        &self,
        sc: &super::scenario::Scenario,
        unsaid: &dyn Fn(&str) -> bool,
        whose: &str,
    ) -> Option<String> {
        match self.devices.first().filter(|_| self.gpu_id().is_none()) {
            Some(d) if unsaid("gpu") => Some(format!(
                "the run's GPU, {d}, is not in the catalog, so gpu={} was assumed: give the nearest in {whose}",
                sc.gpu.id
            )),
            _ => {
                let (what, keys): (Vec<&str>, Vec<String>) = [
                    ("GPU", "gpu", sc.gpu.id.to_string()),
                    ("GPU count", "gpus", sc.gpus.to_string()),
                ]
                .into_iter()
                .filter(|(_, key, _)| unsaid(key))
                .map(|(what, key, value)| (what, format!("{key}={value}")))
                .unzip();
                (!keys.is_empty()).then(|| {
                    format!(
                        "the run does not say its {}, so {} {} assumed: give the run's own in {whose}",
                        what.join(" or "),
                        keys.join(" and "),
                        if keys.len() == 1 { "was" } else { "were" }
                    )
                })
            }
        }
    }

    /// How the collective was read where the run does not name it (`None` where it does).
    pub fn columns_note(&self) -> Option<String> {
        let op = self.op.filter(|_| self.op_from_columns)?;
        Some(format!(
            "read from its columns ({}, a count per rank); alltoall_perf prints the same columns as all_gather_perf, so paste its command line if it was that",
            if op == Op::AllGather { "no reduction" } else { "a reduction" }
        ))
    }

    /// The catalog GPU the device name suggests.
    pub fn gpu_id(&self) -> Option<&'static str> {
        let d = self.devices.first()?.to_ascii_uppercase();
        [
            ("H200", "h200"),
            ("H100", "h100"),
            ("H800", "h100"),
            ("H20", "h100"),
            ("A100", "a100"),
            ("A800", "a100"),
            ("V100", "v100"),
            ("B200", "b200"),
            ("GB200", "b200"),
            ("MI300X", "mi300x"),
            ("4090", "rtx4090"),
        ]
        .into_iter()
        .find(|(k, _)| d.contains(k))
        .map(|(_, id)| id)
    }
}

const TYPES: [&str; 12] = [
    "float", "half", "bfloat16", "double", "int8", "uint8", "int32", "uint32", "int64", "uint64",
    "fp8_e4m3", "fp8_e5m2",
];
const REDOPS: [&str; 6] = ["sum", "prod", "max", "min", "avg", "none"];

/// Strips an MPI launcher's prefix (`[1,0]<stdout>:`, `0:`), returning the rest.
fn strip_prefix(line: &str) -> &str {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix('[') {
        if let Some(i) = rest.find("]<") {
            if let Some(j) = rest[i..].find(">:") {
                return &rest[i + j + 2..];
            }
        }
    }
    // `srun --label` style: "12: ..."
    if let Some((head, rest)) = t.split_once(':') {
        if !head.is_empty() && head.len() <= 5 && head.chars().all(|c| c.is_ascii_digit()) {
            return rest;
        }
    }
    t
}

fn number(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// A size as printed: digits, perhaps grouped with `_` (a trimmed table).
fn size(t: &str) -> Option<u64> {
    is_size(t)
        .then(|| t.replace('_', "").parse::<u64>().ok())
        .flatten()
}

/// Whether a word is written as a size (digits, perhaps grouped with `_`), whatever its value:
/// a data line's first word.
fn is_size(t: &str) -> bool {
    !t.starts_with('_')
        && t.chars().any(|c| c.is_ascii_digit())
        && t.chars().all(|c| c.is_ascii_digit() || c == '_')
}

/// What a data line's columns say of its collective: its reduction, and whether its count is
/// per rank (the size is a whole multiple of count × type size, above one).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Columns {
    reduces: Option<bool>,
    per_rank: bool,
    /// A count above zero (a `-b 8` run's first sizes have none per rank).
    counted: bool,
    /// A root rank (gather, broadcast, reduce), not the collectives' −1.
    rooted: bool,
}

/// Bytes of one value of an nccl-tests data type.
fn type_bytes(ty: &str) -> f64 {
    match ty {
        "double" | "int64" | "uint64" => 8.0,
        "float" | "int32" | "uint32" => 4.0,
        "half" | "bfloat16" => 2.0,
        _ => 1.0,
    }
}

/// Reads one data line: `size count type [redop] [root] time algbw busbw wrong [in-place…]`,
/// or a trimmed `size time algbw busbw`.
fn data_line(tokens: &[&str]) -> Result<(Row, f64, Columns), String> {
    let size = tokens
        .first()
        .and_then(|t| size(t))
        .ok_or("the size is out of range (above 2^64 bytes)")?;
    let ty = match tokens.iter().position(|t| TYPES.contains(t)) {
        Some(i) => i,
        // A trimmed table: size, then time, algbw, busbw.
        None if tokens.len() == 4 && tokens[1..].iter().all(|t| number(t).is_some()) => 0,
        None => return Err("no data type column (float, half, …)".into()),
    };
    let mut i = ty + 1;
    let mut columns = Columns::default();
    if ty > 0 {
        let values = tokens[ty - 1].parse::<f64>().ok().filter(|c| *c > 0.0);
        columns.counted = values.is_some();
        let ratio = values.map(|c| size as f64 / (c * type_bytes(tokens[ty])));
        columns.per_rank = ratio.is_some_and(|r| r > 1.5 && (r - r.round()).abs() < 1e-6);
    }
    if let Some(op) = tokens.get(i).filter(|t| REDOPS.contains(t)) {
        columns.reduces = Some(*op != "none");
        i += 1;
    }
    let rest = &tokens[i..];
    // A root column is an integer followed by four or eight measurement cells.
    let rest = match rest.len() {
        5 | 9 if rest[0].parse::<i64>().is_ok() => {
            columns.rooted = rest[0].parse::<i64>().is_ok_and(|r| r >= 0);
            &rest[1..]
        }
        _ => rest,
    };
    if rest.len() < 3 {
        return Err("the table is cut before time, algbw and busbw".into());
    }
    let cell = |k: usize, what: &str| {
        number(rest[k]).ok_or_else(|| format!("{what} '{}' is not a number", rest[k]))
    };
    let time_us = cell(0, "time")?;
    let algbw_gbs = cell(1, "algbw")?;
    let busbw_gbs = cell(2, "busbw")?;
    if time_us <= 0.0 {
        return Err("the time is not positive".into());
    }
    // The `#wrong` cells after each busbw (out of place, in place): counts, or `N/A` when the
    // run skipped the check. Releases before that column print an `error` column there, the
    // largest deviation as a float (`2e-07` on a correct run): only whole counts are read.
    let wrong = [3, 7]
        .iter()
        .filter_map(|&k| rest.get(k)?.parse::<u64>().ok())
        .sum::<u64>() as f64;
    Ok((
        Row {
            bytes: size as f64,
            time_us,
            algbw_gbs,
            busbw_gbs,
        },
        wrong,
        columns,
    ))
}

/// GPUs per thread an nccl-tests command line asks for: `-g N`, `-gN`, `--ngpus N` or
/// `--ngpus=N` after the `*_perf` binary (a launcher's own `-g` before it does not count).
fn command_gpus(line: &str) -> Option<u32> {
    let t: Vec<&str> = line.split_whitespace().collect();
    let binary = t.iter().position(|w| w.contains("_perf"))?;
    let args = &t[binary + 1..];
    args.iter().enumerate().find_map(|(k, w)| {
        let value = match *w {
            "-g" | "--ngpus" => args.get(k + 1).copied(),
            _ => w
                .strip_prefix("--ngpus=")
                .or_else(|| w.strip_prefix("-g").filter(|v| !v.is_empty())),
        }?;
        gpu_count(value)
    })
}

/// A count of GPUs as a run writes it: a whole number above zero.
fn gpu_count(word: &str) -> Option<u32> {
    word.parse::<u32>().ok().filter(|n| *n > 0)
}

/// Parses the text output of an nccl-tests binary. Never panics; lines it cannot read are
/// listed in [`Run::problems`].
pub fn parse(text: &str) -> Run {
    let mut run = Run {
        runs: 1,
        ..Run::default()
    };
    // The first data line with a count's columns, for a run that does not name its collective.
    let mut seen: Option<Columns> = None;
    // Rank numbers the header listed, and the last size read (what starts another run is
    // below).
    let mut rank_ids: Vec<String> = Vec::new();
    let mut last_size: Option<f64> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = strip_prefix(raw).trim();
        if line.is_empty() {
            continue;
        }
        let (rank, size) = (rank_id(line), leading_size(line));
        // After a run's rows, its header's first line ("# nThread …") or a test command
        // begins another run; so do a rank listed again and a size smaller than the one before
        // (nccl-tests sizes never fall; they repeat where a count per rank rounds to 0 bytes, or
        // in a linear sweep's small steps).
        let header_again = last_size.is_some()
            && (line.starts_with("# nThread")
                || line.split_whitespace().any(|w| w.contains("_perf")));
        let restarts = header_again
            || rank.is_some_and(|id| rank_ids.iter().any(|r| r == id))
            || size.zip(last_size).is_some_and(|(s, last)| s < last);
        if restarts {
            run.runs += 1;
            run.next_run_at.get_or_insert(n + 1);
            // The rest of this run is not read; a rank line starts the next one's header.
            rank_ids.clear();
            last_size = None;
            continue;
        }
        if run.next_run_at.is_some() {
            // Past the first run: only its restarts are counted.
            rank_ids.extend(rank.map(str::to_string));
            last_size = size.or(last_size);
            continue;
        }
        let lower = line.to_ascii_lowercase();
        for (name, op) in [
            ("all_reduce", Some(Op::AllReduce)),
            ("allreduce", Some(Op::AllReduce)),
            ("all_gather", Some(Op::AllGather)),
            ("allgather", Some(Op::AllGather)),
            ("reduce_scatter", Some(Op::ReduceScatter)),
            ("reducescatter", Some(Op::ReduceScatter)),
            ("alltoall", None),
        ] {
            if run.op.is_none() && !run.alltoall && lower.contains(name) {
                run.op = op;
                run.alltoall = op.is_none();
            }
        }
        // The command line: "./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8" (`-g8`, `--ngpus=8`
        // too); only the test binary's own options count, and the header's nGpus wins.
        if run.gpus_per_thread.is_none() {
            if let Some(n) = command_gpus(line) {
                run.gpus_per_thread = Some(n);
            }
        }
        if let Some(h) = line.strip_prefix('#') {
            let t: Vec<&str> = h.split_whitespace().collect();
            // "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) …"
            if let Some(n) = t
                .iter()
                .position(|w| *w == "nGpus")
                .and_then(|k| t.get(k + 1))
                .and_then(|n| gpu_count(n))
            {
                run.gpus_per_thread = Some(n);
            }
            // "#  Rank  0 Group  0 Pid 123 on host1 device  0 [0x1b] NVIDIA H100 80GB HBM3"
            if t.first() == Some(&"Rank") {
                run.ranks += 1;
                rank_ids.extend(rank.map(str::to_string));
                if let Some(k) = t.iter().position(|w| *w == "on") {
                    if let Some(host) = t.get(k + 1) {
                        if !run.hosts.iter().any(|x| x == host) {
                            run.hosts.push((*host).to_string());
                        }
                    }
                }
                if let Some(k) = t.iter().position(|w| w.starts_with('[')) {
                    let name = t[k + 1..].join(" ");
                    if !name.is_empty() && !run.devices.contains(&name) {
                        run.devices.push(name);
                    }
                }
            }
            continue;
        }
        let tokens: Vec<&str> = line.split_whitespace().collect();
        // Data lines start with a size; anything else (banners, warnings) is not a table row.
        if tokens.first().is_some_and(|t| is_size(t)) && tokens.len() >= 3 {
            match data_line(&tokens) {
                Ok((r, wrong, c)) => {
                    if c.counted && seen.is_none() {
                        seen = Some(c);
                    }
                    if wrong > 0.0 {
                        run.wrong.push((r.bytes, wrong));
                    }
                    last_size = Some(r.bytes);
                    run.rows.push(r)
                }
                Err(e) => run.problems.push((n + 1, e)),
            }
        }
    }
    if run.op.is_none() && !run.alltoall {
        run.op = match seen {
            Some(Columns {
                reduces: Some(false),
                per_rank: true,
                rooted: false,
                ..
            }) => Some(Op::AllGather),
            Some(Columns {
                reduces: Some(true),
                per_rank: true,
                rooted: false,
                ..
            }) => Some(Op::ReduceScatter),
            _ => None,
        };
        run.op_from_columns = run.op.is_some();
    }
    run
}

/// The rank number of a header's rank line ("#  Rank  3 Group  0 Pid …" → "3").
fn rank_id(line: &str) -> Option<&str> {
    let mut t = line.strip_prefix('#')?.split_whitespace();
    (t.next() == Some("Rank")).then(|| t.next()).flatten()
}

/// The size a data line starts with, bytes.
fn leading_size(line: &str) -> Option<f64> {
    line.split_whitespace()
        .next()
        .and_then(size)
        .map(|b| b as f64)
}

/// What a paste of more than one run says: only the first is read.
fn run_count_note(runs: u32, line: usize) -> String {
    format!(
        "the paste holds {runs} runs (the second starts at line {line}: a header, a rank listed again or a size smaller than the one before); only the first is read"
    )
}

/// A straight line t = α + β·S fitted to a run: α the latency (µs), β the µs per byte.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Fit {
    /// Latency, µs.
    pub alpha_us: f64,
    /// Inverse bandwidth, µs per byte.
    pub beta_us_per_byte: f64,
    /// Rows kept after outliers were dropped.
    pub rows_used: usize,
}

impl Fit {
    /// The time the line predicts, µs.
    pub fn time_us(&self, bytes: f64) -> f64 {
        self.alpha_us + self.beta_us_per_byte * bytes
    }
}

/// Weighted least squares of t = α + β·S with weights 1/t² (each size's relative error counts
/// the same), refitted once without the points more than 3 median deviations off (robust to a
/// warm-up outlier or a noisy size). `None` with fewer than two sizes.
pub fn fit(rows: &[Row]) -> Option<Fit> {
    let solve = |pts: &[&Row]| -> Option<(f64, f64)> {
        let (mut sw, mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for r in pts {
            let w = 1.0 / (r.time_us * r.time_us);
            sw += w;
            sx += w * r.bytes;
            sy += w * r.time_us;
            sxx += w * r.bytes * r.bytes;
            sxy += w * r.bytes * r.time_us;
        }
        let det = sw * sxx - sx * sx;
        if pts.len() < 2 || det.abs() < f64::MIN_POSITIVE {
            return None;
        }
        let beta = (sw * sxy - sx * sy) / det;
        let alpha = (sy - beta * sx) / sw;
        Some((alpha.max(0.0), beta.max(0.0)))
    };
    let all: Vec<&Row> = rows.iter().collect();
    let (a, b) = solve(&all)?;
    let rel = |r: &Row| ((a + b * r.bytes) - r.time_us).abs() / r.time_us;
    let mut devs: Vec<f64> = all.iter().map(|r| rel(r)).collect();
    devs.sort_by(f64::total_cmp);
    let median = devs[devs.len() / 2].max(1e-3);
    let kept: Vec<&Row> = all
        .iter()
        .copied()
        .filter(|r| rel(r) <= 3.0 * median)
        .collect();
    let (alpha, beta) = if kept.len() >= 2 && kept.len() < all.len() {
        solve(&kept)?
    } else {
        (a, b)
    };
    Some(Fit {
        alpha_us: alpha,
        beta_us_per_byte: beta,
        rows_used: kept.len().max(2).min(all.len()),
    })
}

/// A measured run compared with the model, and the calibration that makes them agree.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Calibration {
    /// Rows read (out-of-place).
    pub rows: Vec<Row>,
    /// Ranks in the header (0 when it lists none).
    pub ranks: u32,
    /// Which tier bounds the run's bandwidth: `network` across nodes, else `intra`.
    pub tier: &'static str,
    /// The measured line.
    pub fit: Fit,
    /// The model's line for the same sizes before calibration.
    pub model_fit: Fit,
    /// Multiplier on that tier's bandwidth.
    pub bandwidth_factor: f64,
    /// Multiplier on latencies.
    pub latency_factor: f64,
    /// The scenario string that reproduces the run: the cluster with the fitted keys.
    pub scenario: String,
    /// Problems reading the text: (line, why).
    pub problems: Vec<(usize, String)>,
    /// What makes the fit doubtful: a factor at its limit (the model cannot follow the run with
    /// this cluster), or a scenario that contradicts the run's header.
    pub warnings: Vec<String>,
}

/// The model's times for the run's sizes on a scenario.
fn model_rows(sc: &super::scenario::Scenario, op: Op, sizes: &[f64]) -> Result<Vec<Row>, String> {
    let s = sc.setup().map_err(|e| e.to_string())?;
    let c = s.cluster();
    sizes
        .iter()
        .map(|&b| {
            let r = super::collective::cost(&c, op, s.algo, b).map_err(|e| e.to_string())?;
            Ok(Row {
                bytes: b,
                time_us: r.time_s * 1e6,
                algbw_gbs: r.algbw_gbs,
                busbw_gbs: r.busbw_gbs,
            })
        })
        .collect()
}

/// Fits the run's cluster: starting from `base` (the cluster it ran on: the caller puts in what
/// the header gives, [`crate::render::measured::header_keys`]), scales the bounding tier's bandwidth
/// until the model meets the run's largest size (or, for a run of small sizes only, the slope of
/// its α–β line) and the latencies until the lines' intercepts agree (three fixed-point passes:
/// protocol and algorithm choices move with the factors).
pub fn calibrate(run: &Run, base: &super::scenario::Scenario) -> Result<Calibration, String> {
    if run.alltoall {
        return Err("alltoall is not modelled: paste all_reduce_perf, all_gather_perf or reduce_scatter_perf".into());
    }
    let rows = run.rows.clone();
    let measured = fit(&rows).ok_or("need at least two message sizes to fit")?;
    let mut sc = base.clone();
    sc.op = run.op.unwrap_or(sc.op);
    sc.calib = Calib::default();
    let setup = sc.setup().map_err(|e| e.to_string())?;
    if setup.gpus < 2 {
        return Err(format!(
            "gpus={}: a collective on one GPU moves nothing between GPUs; give the run's GPU count (gpus=…)",
            setup.gpus
        ));
    }
    // The tier to scale: the one that bounds the model at the run's largest size (across nodes
    // the network, unless the node's own fabric or switch bounds it there, as under NVLSTree).
    let network = setup.nodes() > 1
        && rows
            .iter()
            .map(|r| r.bytes)
            .max_by(f64::total_cmp)
            .and_then(|b| super::collective::cost(&setup.cluster(), sc.op, setup.algo, b).ok())
            .is_none_or(|r| {
                !matches!(
                    r.bottleneck,
                    super::collective::Link::NvLink
                        | super::collective::Link::Switch
                        | super::collective::Link::Pcie
                )
            });
    let sizes: Vec<f64> = rows.iter().map(|r| r.bytes).collect();
    let model_fit = fit(&model_rows(&sc, sc.op, &sizes)?).ok_or("the model gave no line")?;
    let (mut bw, mut lat) = (1.0, 1.0);
    // The bandwidth is matched where it shows: on the run's three largest sizes whose time is
    // mostly transfer (the middle of the three gaps, so one noisy size does not set it), else,
    // for a run of small sizes only, on the lines' slopes. A slope fitted across the sizes where
    // the library changes algorithm (a ring, then a tree or NVLSTree) follows neither, and once
    // took a plateau the model already met within 9 % to a factor of 1.85. The factor is found
    // by bisection: the model's time falls as it rises only until another tier (the NVSwitch
    // under NVLSTree) bounds it, where a ratio applied pass after pass would compound.
    let mut big: Vec<&Row> = rows
        .iter()
        .filter(|r| measured.alpha_us < 0.5 * r.time_us)
        .collect();
    big.sort_by(|a, b| b.bytes.total_cmp(&a.bytes));
    big.truncate(3);
    let big_sizes: Vec<f64> = big.iter().map(|r| r.bytes).collect();
    let set = |sc: &mut super::scenario::Scenario, bw: f64| {
        if network {
            sc.calib.net = bw;
        } else {
            sc.calib.intra = bw;
        }
    };
    // ln(model time / run time) on those sizes, the middle one, with the factor at `bw`.
    let gap = |sc: &super::scenario::Scenario, bw: f64| -> Result<f64, String> {
        let mut sc = sc.clone();
        set(&mut sc, bw);
        let mut logs: Vec<f64> = model_rows(&sc, sc.op, &big_sizes)?
            .iter()
            .zip(&big)
            .map(|(m, r)| (m.time_us / r.time_us).ln())
            .collect();
        logs.sort_by(f64::total_cmp);
        Ok(match logs.len() {
            2 => 0.5 * (logs[0] + logs[1]),
            n => logs[n / 2],
        })
    };
    for _ in 0..3 {
        let f = fit(&model_rows(&sc, sc.op, &sizes)?).ok_or("the model gave no line")?;
        if big.is_empty() {
            if f.beta_us_per_byte > 0.0 && measured.beta_us_per_byte > 0.0 {
                bw *= f.beta_us_per_byte / measured.beta_us_per_byte;
            }
        } else {
            let (mut lo, mut hi) = (0.01_f64, 10.0_f64);
            bw = if gap(&sc, hi)? > 0.0 {
                hi
            } else if gap(&sc, lo)? < 0.0 {
                lo
            } else {
                for _ in 0..30 {
                    let mid = (lo * hi).sqrt();
                    if gap(&sc, mid)? > 0.0 {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                (lo * hi).sqrt()
            };
        }
        if f.alpha_us > 0.0 && measured.alpha_us > 0.0 {
            lat *= measured.alpha_us / f.alpha_us;
        }
        bw = bw.clamp(0.01, 10.0);
        lat = lat.clamp(0.01, 100.0);
        set(&mut sc, bw);
        sc.calib.lat = lat;
    }
    let round = |x: f64| (x * 1000.0).round() / 1000.0;
    let key = if network { "calib_net" } else { "calib_intra" };
    let mut warnings = Vec::new();
    if bw <= 0.01 || bw >= 10.0 {
        warnings.push(format!(
            "{key} reached its limit ({}): the run is {} than this cluster can be scaled to; check the network, NICs and fabric the scenario says",
            round(bw),
            if bw >= 10.0 { "much faster" } else { "much slower" }
        ));
    }
    if lat <= 0.01 || lat >= 100.0 {
        warnings.push(format!("calib_lat reached its limit ({})", round(lat)));
    }
    if measured.beta_us_per_byte <= 0.0 {
        warnings.push(
            "the times do not grow with the message size: the run gives no bandwidth to fit (were the sizes warm-up or cached?)"
                .to_string(),
        );
    }
    if let Some(note) = run.columns_note() {
        warnings.push(format!(
            "the run does not name its binary: {}, {note}",
            sc.op.id()
        ));
    }
    if !run.wrong.is_empty() {
        warnings.push(format!(
            "{} of the run's sizes report wrong values (#wrong): nccl-tests found the results corrupted, so the run is no sound measurement",
            run.wrong.len()
        ));
    }
    if let Some(n) = run.gpus().filter(|&n| n != setup.gpus) {
        warnings.push(format!(
            "the run {}, the scenario gpus={}: the fit is for the scenario's cluster",
            if run.ranks > 0 {
                format!("has {n} ranks")
            } else {
                format!("drives {n} GPUs (-g {n}, one process)")
            },
            setup.gpus
        ));
    }
    if let Some(pn) = run
        .per_node()
        .filter(|&pn| pn != setup.per_node && run.gpus() == Some(setup.gpus))
    {
        warnings.push(format!(
            "the run has {pn} ranks a host, the scenario per_node={}",
            setup.per_node
        ));
    }
    if let Some(g) = run.gpus_per_thread.filter(|&g| g > 1 && lat > 1.0) {
        warnings.push(format!(
            "the run drives {g} GPUs from each host thread (-g {g}): its small messages carry that thread's launches, one GPU after another, which training (a process per GPU) does not pay, so calib_lat={} overstates the collective's latency; run it with -g 1 and a process per GPU",
            round(lat)
        ));
    }
    if let Some(line) = run.next_run_at {
        warnings.push(run_count_note(run.runs, line));
    }
    // Sizes above zero given on more than one line (a linear sweep's small steps): each line is
    // fitted as its own measurement.
    let mut sizes: Vec<f64> = sizes.into_iter().filter(|&b| b > 0.0).collect();
    sizes.sort_by(f64::total_cmp);
    let repeated = sizes
        .chunk_by(|a, b| a == b)
        .filter(|c| c.len() > 1)
        .count();
    if repeated > 0 {
        warnings.push(format!(
            "{repeated} size{} appear{} on more than one line: each line is fitted as its own measurement",
            if repeated == 1 { "" } else { "s" },
            if repeated == 1 { "s" } else { "" }
        ));
    }
    sc.set(key, &round(bw).to_string())
        .map_err(|e| e.to_string())?;
    sc.set("calib_lat", &round(lat).to_string())
        .map_err(|e| e.to_string())?;
    Ok(Calibration {
        rows,
        ranks: run.gpus().unwrap_or(0),
        tier: if network { "network" } else { "intra" },
        fit: measured,
        model_fit,
        bandwidth_factor: round(bw),
        latency_factor: round(lat),
        scenario: sc.to_query(),
        problems: run.problems.clone(),
        warnings,
    })
}

/// Measured against modelled, size by size.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Comparison {
    /// Message size, bytes.
    pub bytes: f64,
    /// Measured time, µs.
    pub measured_us: f64,
    /// Modelled time, µs.
    pub model_us: f64,
    /// Measured bus bandwidth, GB/s.
    pub measured_busbw: f64,
    /// Modelled bus bandwidth, GB/s.
    pub model_busbw: f64,
}

/// The run against the model on `sc`, size by size.
pub fn compare(run: &Run, sc: &super::scenario::Scenario) -> Result<Vec<Comparison>, String> {
    let op = run.op.unwrap_or(sc.op);
    let sizes: Vec<f64> = run.rows.iter().map(|r| r.bytes).collect();
    let model = model_rows(sc, op, &sizes)?;
    Ok(run
        .rows
        .iter()
        .zip(model)
        .map(|(m, x)| Comparison {
            bytes: m.bytes,
            measured_us: m.time_us,
            model_us: x.time_us,
            measured_busbw: m.busbw_gbs,
            model_busbw: x.busbw_gbs,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Older nccl-tests print no line naming the binary: the columns tell an all-gather (no
    /// reduction, a count per rank) and a reduce-scatter (a reduction, a count per rank) from an
    /// all-reduce (a count for the whole buffer).
    #[test]
    fn the_columns_tell_the_collective() {
        let table = |redop: &str, count: u32| {
            format!(
                "#  Rank  0 Group  0 Pid 1 on h1 device  0 [0x1b] NVIDIA A100\n\
                 1048576 {count} float {redop} -1 250.0 4.19 3.15 0 249.0 4.21 3.16 0\n\
                 4194304 {} float {redop} -1 900.0 4.66 3.50 0 899.0 4.67 3.50 0\n",
                count * 4
            )
        };
        let gather = parse(&table("none", 65536));
        assert_eq!(
            (gather.op, gather.op_from_columns),
            (Some(Op::AllGather), true)
        );
        let scatter = parse(&table("sum", 65536));
        assert_eq!(scatter.op, Some(Op::ReduceScatter));
        let reduce = parse(&table("sum", 262144));
        assert_eq!((reduce.op, reduce.op_from_columns), (None, false));
        // A `-b 8` run's first sizes count nothing per rank: the first counted line decides.
        let empty = "0 0 float none -1 20.0 0.00 0.00 0 20.0 0.00 0.00 0\n";
        let gather = parse(&format!("{empty}{}", table("none", 65536)));
        assert_eq!(gather.op, Some(Op::AllGather));
        // A root rank is a gather or broadcast, not an all-gather.
        let rooted = parse(&table("none", 65536).replace(" -1 ", " 0 "));
        assert_eq!(rooted.op, None);
        // Releases before `#wrong` print a float error there: not a count of wrong values.
        let old =
            parse("1048576 262144 float sum 89.15 11.76 21.56 2e-07 88.14 11.90 21.81 2e-07\n");
        assert_eq!(old.rows.len(), 1);
        assert!(old.wrong.is_empty());
        // A named binary wins over the columns.
        let named = parse(&format!("# all_reduce_perf\n{}", table("none", 65536)));
        assert_eq!(
            (named.op, named.op_from_columns),
            (Some(Op::AllReduce), false)
        );
    }

    /// A size too large for 64 bits is a line that could not be read, named (it vanished);
    /// a table pasted twice is said to repeat its sizes.
    #[test]
    fn an_unreadable_size_is_named_and_repeated_sizes_are_warned() {
        let line = "1048576 262144 float sum -1 250.0 4.19 3.15 0 249.0 4.21 3.16 0\n4194304 1048576 float sum -1 900.0 4.66 3.50 0 899.0 4.67 3.50 0\n";
        let run = parse(&format!(
            "99999999999999999999999 1 float sum -1 5.0 1 1 0 5 1 1 0\n{line}"
        ));
        assert_eq!(run.rows.len(), 2);
        assert_eq!(run.problems.len(), 1);
        assert!(
            run.problems[0].1.contains("out of range"),
            "{:?}",
            run.problems
        );
        let sc = super::super::scenario::Scenario::parse("gpus=8").unwrap();
        // Twice or three times, the same run: the first is read, and the paste's runs counted.
        for times in [2, 3] {
            let run = parse(&line.repeat(times));
            assert_eq!(run.rows.len(), 2);
            assert_eq!((run.runs, run.next_run_at), (times as u32, Some(3)));
            let pasted = calibrate(&run, &sc).unwrap();
            assert!(
                pasted
                    .warnings
                    .iter()
                    .any(|w| w.contains(&format!("the paste holds {times} runs"))),
                "{:?}",
                pasted.warnings
            );
        }
        // An all-gather from a small -b repeats size 0 (a count per rank rounds to nothing):
        // one run, read whole; sizes grouped with `_` are read as sizes; a second run's header
        // lines before its ranks belong to it, not to the first.
        let zeros = "0 0 float none -1 5.0 0.00 0.00 0 5.0 0.00 0.00 0\n".repeat(2) + line;
        let ag = parse(&zeros);
        assert_eq!((ag.rows.len(), ag.runs), (4, 1));
        let grouped = "1_048_576 262_144 float sum -1 250.0 4.19 3.15 0 249.0 4.21 3.16 0\n\
                       4_194_304 1_048_576 float sum -1 900.0 4.66 3.50 0 899.0 4.67 3.50 0\n";
        assert_eq!(parse(&grouped.repeat(2)).runs, 2);
        let second = format!("{line}# nThread 1 nGpus 8 minBytes 8\n{line}");
        let first = parse(&second);
        assert_eq!(
            (first.runs, first.gpus_per_thread, first.rows.len()),
            (2, None, 2)
        );
        // A header pasted twice lists its ranks twice: they are the same ranks, in another run.
        let header = "#  Rank  0 Group  0 Pid 1 on h1 device  0 [0x1b] NVIDIA A100
                      #  Rank  1 Group  0 Pid 2 on h2 device  0 [0x1b] NVIDIA A100
";
        let twice = parse(&format!("{header}{line}").repeat(2));
        assert_eq!(
            (twice.ranks, twice.hosts.len(), twice.rows.len()),
            (2, 2, 2)
        );
        assert_eq!(twice.runs, 2);
        // A -g run's count is its GPUs, not ranks it lists.
        let eight = "# nThread 1 nGpus 8\n".to_string() + line;
        let other = calibrate(
            &parse(&eight),
            &super::super::scenario::Scenario::parse("gpus=16").unwrap(),
        )
        .unwrap();
        assert!(
            other
                .warnings
                .iter()
                .any(|w| w.contains("the run drives 8 GPUs (-g 8, one process)")),
            "{:?}",
            other.warnings
        );
        assert!(calibrate(&parse(line), &sc).unwrap().warnings.is_empty());
    }

    #[test]
    fn reads_published_runs() {
        let run = parse(SAMPLES[0].1);
        assert_eq!(run.ranks, 16);
        assert_eq!(run.hosts.len(), 2);
        assert_eq!(run.per_node(), Some(8));
        assert_eq!(run.gpu_id(), Some("h100"));
        assert_eq!(run.rows.len(), 31);
        assert_eq!(run.rows[30].busbw_gbs, 338.82);
        assert!(run.problems.is_empty(), "{:?}", run.problems);
        let trimmed = parse(SAMPLES[1].1);
        assert_eq!(trimmed.op, Some(Op::AllReduce));
        assert_eq!(trimmed.rows.len(), 20);
        assert_eq!(trimmed.rows[15].bytes, 1073741824.0);
        assert_eq!(trimmed.rows[15].time_us, 8203.9);
        assert!(trimmed.problems.is_empty(), "{:?}", trimmed.problems);
    }

    #[test]
    fn reads_launcher_prefixes_and_missing_columns() {
        let text = "[1,0]<stdout>:#  Rank  0 Group  0 Pid  1 on node-a device  0 [0x07] NVIDIA H100 80GB HBM3\n\
                    [1,0]<stdout>:#  Rank  1 Group  0 Pid  2 on node-b device  0 [0x07] NVIDIA H100 80GB HBM3\n\
                    [1,0]<stdout>:     1048576        262144     float     sum      -1    50.00   20.97   20.97      0    49.00   21.40   21.40      0\n\
                    [1,0]<stdout>:     2097152        524288     float     sum    90.00   23.30   23.30      0\n\
                    4194304 1048576 float sum -1 N/A N/A N/A N/A\n\
                    8388608 2097152 float sum -1 300.0\n";
        let run = parse(text);
        assert_eq!(run.ranks, 2);
        assert_eq!(run.per_node(), Some(1));
        assert_eq!(run.rows.len(), 2);
        assert_eq!(run.rows[1].time_us, 90.0);
        assert_eq!(run.problems.len(), 2, "{:?}", run.problems);
        assert_eq!(run.problems[0].0, 5);
    }

    #[test]
    fn fit_recovers_alpha_and_beta_from_noisy_data() {
        let (alpha, beta) = (12.0, 1.0 / 180_000.0);
        let mut seed = 7u64;
        let rows: Vec<Row> = (3..33)
            .map(|e| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let noise = 1.0 + ((seed >> 33) as f64 / (1u64 << 31) as f64 - 0.5) * 0.04;
                let s = f64::from(1u32 << (e % 31)) * if e > 30 { 4.0 } else { 1.0 };
                let t = (alpha + beta * s) * noise;
                Row {
                    bytes: s,
                    time_us: t,
                    algbw_gbs: s / t / 1e3,
                    busbw_gbs: 0.0,
                }
            })
            .collect();
        let f = fit(&rows).unwrap();
        assert!((f.alpha_us - alpha).abs() / alpha < 0.02, "{f:?}");
        assert!((f.beta_us_per_byte - beta).abs() / beta < 0.02, "{f:?}");
    }

    /// A run 10 % slower or faster than the model on two nodes of H100, whose largest sizes the
    /// model runs by NVLSTree, bound by the switch that calib_net does not scale: the calibrated
    /// model meets the run there. Scaling by the gap pass after pass compounded it (0.754 for a
    /// run 10 % slower, and the model still 9 % fast); and one noisy size (the largest, tripled)
    /// does not set the factor (it gave 0.164).
    #[test]
    fn calibration_meets_the_largest_sizes_whatever_bounds_them() {
        use super::super::scenario::Scenario;
        let q = "gpus=16&per_node=8&gpu=h100&intra=nvlink4&inter=ib-ndr&nics=8";
        let base = Scenario::parse(q).unwrap();
        let sizes: Vec<f64> = (3..=33).map(|e| f64::from(1u32 << (e - 3)) * 8.0).collect();
        let own = model_rows(&base, Op::AllReduce, &sizes).unwrap();
        let largest = |cal: &Calibration| {
            let sc = Scenario::parse(&cal.scenario).unwrap();
            model_rows(&sc, Op::AllReduce, &sizes[sizes.len() - 3..]).unwrap()
        };
        for scale in [1.1, 0.9] {
            let mut run = parse(include_str!(
                "../../tests/data/nccl-tests/all_reduce_2x8_h100_a3mega.txt"
            ));
            run.rows = own
                .iter()
                .map(|r| Row {
                    time_us: r.time_us * scale,
                    ..*r
                })
                .collect();
            let cal = calibrate(&run, &base).unwrap();
            for (m, r) in largest(&cal).iter().zip(&run.rows[sizes.len() - 3..]) {
                let err = (m.time_us / r.time_us - 1.0).abs();
                assert!(
                    err < 0.03,
                    "x{scale}: {} against {} us ({})",
                    m.time_us,
                    r.time_us,
                    cal.scenario
                );
            }
        }
        let mut run = parse(include_str!(
            "../../tests/data/nccl-tests/all_reduce_2x8_h100_a3mega.txt"
        ));
        let clean = calibrate(&run, &base).unwrap().bandwidth_factor;
        run.rows.last_mut().unwrap().time_us *= 3.0;
        let noisy = calibrate(&run, &base).unwrap().bandwidth_factor;
        assert!((noisy / clean - 1.0).abs() < 0.1, "{noisy} against {clean}");
    }

    #[test]
    fn calibrated_scenario_reproduces_the_plateau() {
        for (name, text, q) in SAMPLES {
            let run = parse(text);
            let base = super::super::scenario::Scenario::parse(q).unwrap();
            let cal = calibrate(&run, &base).unwrap_or_else(|e| panic!("{name}: {e}"));
            let sc = super::super::scenario::Scenario::parse(&cal.scenario).unwrap();
            let cmp = compare(&run, &sc).unwrap();
            let last = cmp.last().unwrap();
            let err = (last.model_busbw - last.measured_busbw).abs() / last.measured_busbw;
            assert!(
                err < 0.05,
                "{name}: plateau {} vs {}",
                last.model_busbw,
                last.measured_busbw
            );
        }
    }

    /// A factor at its limit, or a scenario that contradicts the header, is said, not silently
    /// fitted: the published 2×8 H100 run against a 100 Gb/s TCP cluster wants more than 10×.
    #[test]
    fn a_calibration_says_when_it_cannot_follow_the_run() {
        use super::super::scenario::Scenario;
        let text = include_str!("../../tests/data/nccl-tests/all_reduce_2x8_h100_a3mega.txt");
        let run = parse(text);
        let on = |q: &str| calibrate(&run, &Scenario::parse(q).unwrap()).unwrap();
        let clean = on("gpus=16&per_node=8&gpu=h100");
        assert!(clean.warnings.is_empty(), "{:?}", clean.warnings);
        let tcp = on("gpus=16&per_node=8&gpu=h100&inter=tcp100");
        assert_eq!(tcp.bandwidth_factor, 10.0);
        assert!(tcp.warnings[0].starts_with("calib_net reached its limit"));
        let one_node = on("gpus=8&gpu=h100");
        assert!(one_node.warnings.iter().any(|w| w.contains("16 ranks")));
    }

    /// A node whose GPUs' PCIe links carry less than its NICs (one H100 with eight NDR NICs): a
    /// run at 60 % of the model's plateau calibrates to 0.6. The calibration used to scale the
    /// NICs only, below the cap, and came back as 1 with the model unchanged.
    #[test]
    fn calibration_follows_a_run_bound_by_the_gpus_pcie_links() {
        use super::super::collective::{cost, Algo, Link};
        use super::super::scenario::Scenario;
        let base = Scenario::parse("gpus=2&per_node=1&gpu=h100&inter=ib-ndr&nics=8").unwrap();
        let slow = Scenario::parse(&format!("{}&calib_net=0.6", base.to_query())).unwrap();
        let sizes: Vec<f64> = (10..31).map(|e| f64::from(1u32 << e)).collect();
        let mut run = parse("");
        run.op = Some(Op::AllReduce);
        run.rows = model_rows(&slow, Op::AllReduce, &sizes).unwrap();
        let cal = calibrate(&run, &base).unwrap();
        assert!(
            (cal.bandwidth_factor - 0.6).abs() < 0.02,
            "{}",
            cal.bandwidth_factor
        );
        let c = base.setup().unwrap().cluster();
        let cost = cost(&c, Op::AllReduce, Algo::Auto, 1e9).unwrap();
        assert_eq!(cost.bottleneck, Link::HostPcie);
    }

    #[test]
    fn no_input_panics() {
        let mut seed = 1u64;
        let sample = SAMPLES[1].1;
        let lines: Vec<&str> = sample.lines().collect();
        for i in 0..100_000u64 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let text: String = match i % 4 {
                // Random bytes as text.
                0 => (0..(seed % 200))
                    .map(|k| char::from(((seed >> (k % 56)) as u8 % 95) + 32))
                    .collect(),
                // A truncated run.
                1 => sample.chars().take(seed as usize % sample.len()).collect(),
                // Shuffled lines.
                2 => {
                    let mut l = lines.clone();
                    let n = l.len();
                    l.swap(seed as usize % n, (seed >> 20) as usize % n);
                    l.join("\n")
                }
                // A line with random cells.
                _ => format!(
                    "{} {} float sum -1 {} {} {} 0",
                    seed % 1_000_000,
                    seed % 77,
                    (seed % 1000) as f64 / 7.0,
                    if seed % 3 == 0 { "N/A" } else { "1e400" },
                    (seed % 13) as f64 - 6.0
                ),
            };
            let run = parse(&text);
            let _ = fit(&run.rows);
        }
    }

    #[test]
    fn the_gpus_each_thread_drives_come_from_the_header_or_the_command_line() {
        let header = parse("# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n");
        assert_eq!(header.gpus_per_thread, Some(8));
        let command = parse("$ ./build/all_reduce_perf -b 32k -e 16G -f 2 -g 4 -n 50\n");
        assert_eq!(command.gpus_per_thread, Some(4));
        assert_eq!(parse("# nThread 1\n").gpus_per_thread, None);
        for (line, n) in [
            ("./all_reduce_perf -b 8 -e 8G -g8", Some(8)),
            ("./all_reduce_perf -b 8 --ngpus=2", Some(2)),
            ("mpirun -np 16 ./all_reduce_perf -b 8 -e 8G -g 1", Some(1)),
            ("srun -g 4 ./all_reduce_perf -b 8", None),
            ("./all_reduce_perf -b 8 -g $N", None),
            ("./all_reduce_perf -b 8 -g", None),
            ("./all_reduce_perf -b 8 -g 0", None),
        ] {
            assert_eq!(parse(line).gpus_per_thread, n, "{line}");
        }
        // The header wins over a command line that comes after it.
        let both = parse("# nThread 1 nGpus 8\n./all_reduce_perf -g 2\n");
        assert_eq!(both.gpus_per_thread, Some(8));
    }
}
