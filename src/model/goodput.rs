//! Goodput at scale: what a step-time model leaves out of a training run.
//!
//! - **Stragglers**: a synchronous step ends when the slowest GPU finishes. With per-GPU jitter
//!   (coefficient of variation `jitter`) the expected maximum of N normal step times is
//!   μ + σ·Φ⁻¹((N − 0.375)/(N + 0.25)) (Blom's 1958 approximation of normal order statistics;
//!   within 0.03 σ of the exact value from 8 to 16,384 GPUs); a share `slow_gpus` of GPUs running
//!   `slow_factor` times slower holds every step once one of them is in the job.
//! - **Failures**: the job fails when any GPU does (a series system; Kokolis et al., "Revisiting
//!   Reliability in Large-Scale ML Research Clusters", HPCA 2025): MTTF = 1 / (N · rate).
//!   Checkpoints every τ cost their write time δ; a failure loses half an interval on average
//!   plus the restart R: ETTR = (1 − (R + τ/2)/MTTF) / (1 + δ/τ) (the same paper's expected ETTR).
//!   τ defaults to the interval that maximises it, √(δ² + 2·δ·(MTTF − R)) − δ (Daly 2006's
//!   first-order optimum; Young 1974's √(2·δ·MTTF) when δ and R are small).
//! - **The batch-size limit**: beyond the critical batch B_noise a larger batch no longer cuts
//!   the steps in proportion: steps S = S_min·(1 + B_noise/B) for a budget of E_min samples,
//!   S_min = E_min/B_noise (McCandlish et al. 2018, "An Empirical Model of Large-Batch
//!   Training", eq. 2.11–2.12).

use super::scenario::Setup;
use super::step::StepResult;

/// Failures per 1,000 GPU-days: Llama 3 405B pre-training saw 419 unexpected interruptions in a
/// 54-day snapshot on up to 16,384 H100s (Dubey et al. 2024, "The Llama 3 Herd of Models"
/// §3.3.4): 419 / (54 × 16,384) = 0.47 per 1,000 GPU-days, one interruption every 3.1 hours.
pub const LLAMA3_FAILURES_PER_1000_GPU_DAYS: f64 = 0.47;

/// Checkpoint write bandwidth per node, GB/s: Meta's Llama 3 storage sustained 2 TB/s for the
/// 16K-GPU (2,048-node) cluster (Dubey et al. 2024 §3.3.1 "Storage"), about 1 GB/s per node.
pub const CHECKPOINT_GBS_PER_NODE: f64 = 1.0;

/// Minutes from a failure to training again (scheduling, loading the checkpoint, warm-up).
/// **Assumption**: 10 minutes; Kokolis et al. model it as a per-failure overhead u0 without a
/// general figure.
pub const RESTART_MINUTES: f64 = 10.0;

/// Default data budget for language models: 20 tokens per parameter, the compute-optimal ratio
/// of Hoffmann et al. 2022 ("Chinchilla").
pub const TOKENS_PER_PARAM: f64 = 20.0;

/// Default budget for image models: 90 epochs of ImageNet-1k's 1,281,167 training images
/// (Goyal et al. 2017, "Accurate, Large Minibatch SGD: Training ImageNet in 1 Hour").
pub const IMAGENET_90_EPOCHS: f64 = 90.0 * 1_281_167.0;

/// Critical batch in tokens for language models: Kaplan et al. 2020 eq. 5.3,
/// B_crit(L) = B* / L^(1/α_B), B* = 2·10⁸ tokens, α_B = 0.21: the gradient noise grows as the
/// loss falls (2.0 nats: 7.4 M tokens; 1.8 nats: 12 M).
pub fn kaplan_critical_tokens(loss_nats: f64) -> f64 {
    2e8 / loss_nats.powf(1.0 / 0.21)
}

/// The loss a language model of `params` parameters reaches on `tokens` tokens: Hoffmann et al.
/// 2022 ("Chinchilla") eq. 10, L(N, D) = E + A/N^α + B/D^β with E = 1.69, A = 406.4,
/// B = 410.7, α = 0.34, β = 0.28 (their §D.2 fit): Llama 3 8B on 160 B tokens 2.16 nats,
/// 405B on 15.6 T 1.82. **Assumption**: their loss (MassiveText) is read on Kaplan's scale
/// (WebText2); both are nats per token of English web text, with different tokenizers.
pub fn chinchilla_loss(params: f64, tokens: f64) -> f64 {
    1.69 + 406.4 / params.max(1.0).powf(0.34) + 410.7 / tokens.max(1.0).powf(0.28)
}

/// Critical batch for ResNet-50 on ImageNet, images: accuracy holds up to 8,192 and degrades
/// beyond (Goyal et al. 2017, Fig. 1).
const RESNET_CRITICAL_BATCH: f64 = 8192.0;

/// Energy overhead of a node beyond its GPUs: a DGX H100 draws 10.2 kW at most (NVIDIA DGX H100
/// datasheet) for 8 × 700 W of GPUs, 1.82×.
pub const NODE_POWER_FACTOR: f64 = 10.2 / (8.0 * 0.7);

/// Example price per GPU-hour, US$: AWS p5.48xlarge (8 × H100) on demand at $98.32 an hour
/// (2024 list price) = $12.29. An example only: prices vary by provider, commitment and date.
pub const EXAMPLE_PRICE_PER_GPU_HOUR: f64 = 98.32 / 8.0;

/// Φ⁻¹(p), the standard normal quantile (Acklam's rational approximation, without its
/// refinement step: absolute error below 10⁻⁴).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.38357751867269e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549671010862606,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [
        7.784695709041462e-3,
        3.224671290700398e-1,
        2.445134137142996,
        3.754408661907416,
    ];
    let p = p.clamp(1e-15, 1.0 - 1e-15);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// Expected maximum of n standard normal variables (Blom 1958): 0 for one.
pub fn expected_max_normal(n: f64) -> f64 {
    if n <= 1.0 {
        0.0
    } else {
        normal_quantile((n - 0.375) / (n + 0.25))
    }
}

/// Stragglers: how much the slowest GPU adds to a step, seconds.
pub fn straggler_seconds(compute: f64, gpus: u32, jitter: f64, slow_share: f64, slow: f64) -> f64 {
    let n = f64::from(gpus);
    let base = 1.0 + jitter * expected_max_normal(n);
    let slow_n = (slow_share * n).max(1.0);
    let slowest = slow.max(1.0) * (1.0 + jitter * expected_max_normal(slow_n));
    // Chance that at least one slow GPU is in the job.
    let p_slow = 1.0 - (1.0 - slow_share.clamp(0.0, 1.0)).powf(n);
    let expected = p_slow * base.max(slowest) + (1.0 - p_slow) * base;
    compute * (expected - 1.0)
}

/// Failures and checkpoints: the job's effective training time ratio and where the rest goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reliability {
    /// Mean time between job interruptions, hours.
    pub mttf_hours: f64,
    /// Checkpoint write time, minutes.
    pub checkpoint_minutes: f64,
    /// Interval between checkpoints, minutes.
    pub interval_minutes: f64,
    /// Useful share of elapsed time.
    pub ettr: f64,
    /// Shares of elapsed time lost to checkpoint writes, recomputing lost work, and restarts.
    pub lost_checkpoint: f64,
    /// Share lost redoing work since the last checkpoint.
    pub lost_work: f64,
    /// Share lost restarting.
    pub lost_restart: f64,
}

/// ETTR for an interval τ (hours): (1 − (R + τ/2)/M) / (1 + δ/τ), floored at 0.
pub fn ettr(mttf: f64, write: f64, restart: f64, tau: f64) -> f64 {
    ((1.0 - (restart + tau / 2.0) / mttf) / (1.0 + write / tau)).max(0.0)
}

/// Young's optimal checkpoint interval √(2·δ·M), hours (Young 1974).
pub fn young_interval(mttf: f64, write: f64) -> f64 {
    (2.0 * write * mttf).sqrt()
}

/// The interval that maximises [`ettr`]: setting its derivative to zero gives
/// τ² / 2 + δ·τ − δ·(M − R) = 0, so τ = √(δ² + 2·δ·(M − R)) − δ — Daly's first-order optimum
/// √(2·δ·M) − δ (Daly 2006) with the restart time taken out of the time between failures.
pub fn optimal_interval(mttf: f64, write: f64, restart: f64) -> f64 {
    let m = (mttf - restart).max(write);
    (write * write + 2.0 * write * m).sqrt() - write
}

/// Reliability of a job: `gpus` failing at `rate` per 1,000 GPU-days, checkpointing `bytes` at
/// `write_gbs` in total, restarting in `restart_min` minutes, every `interval_min` minutes (or
/// Young's optimum).
pub fn reliability(
    gpus: u32,
    rate: f64,
    bytes: f64,
    write_gbs: f64,
    restart_min: f64,
    interval_min: Option<f64>,
) -> Reliability {
    let per_hour = f64::from(gpus) * rate / 1000.0 / 24.0;
    let mttf = if per_hour > 0.0 {
        1.0 / per_hour
    } else {
        f64::INFINITY
    };
    let write = bytes / (write_gbs.max(1e-9) * 1e9) / 3600.0;
    let restart = restart_min / 60.0;
    let tau = interval_min
        .map(|m| m / 60.0)
        .unwrap_or_else(|| optimal_interval(mttf, write, restart))
        .max(1e-6);
    let e = if mttf.is_finite() {
        ettr(mttf, write, restart, tau)
    } else {
        1.0 / (1.0 + write / tau)
    };
    // With no failures nothing needs a checkpoint but the end of the run, unless an interval
    // is stated: those checkpoints are still written (it read ETTR 1 for 88-second writes every
    // 6 seconds, and 0.06 at one failure per 10 million GPU-days).
    let (e, tau) = if mttf.is_finite() || interval_min.is_some() {
        (e, tau)
    } else {
        (1.0, f64::INFINITY)
    };
    let lost_checkpoint = if tau.is_finite() {
        (write / tau) / (1.0 + write / tau)
    } else {
        0.0
    };
    let (lost_work, lost_restart) = if mttf.is_finite() {
        (
            tau / 2.0 / mttf / (1.0 + write / tau),
            restart / mttf / (1.0 + write / tau),
        )
    } else {
        (0.0, 0.0)
    };
    // The shares and the ETTR make up the elapsed time; where failures come faster than a
    // restart and half an interval the ETTR is floored at 0 and the losses fill all of it.
    let lost = lost_checkpoint + lost_work + lost_restart;
    let scale = if lost > 0.0 { (1.0 - e) / lost } else { 1.0 };
    let (lost_checkpoint, lost_work, lost_restart) = (
        lost_checkpoint * scale,
        lost_work * scale,
        lost_restart * scale,
    );
    Reliability {
        mttf_hours: mttf,
        checkpoint_minutes: write * 60.0,
        interval_minutes: tau * 60.0,
        ettr: e,
        lost_checkpoint,
        lost_work,
        lost_restart,
    }
}

/// The run as a whole.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Goodput {
    /// Expected time the slowest GPU adds to each step, seconds.
    pub straggler: f64,
    /// Failures and checkpoints.
    pub reliability: Reliability,
    /// Useful samples/s after stragglers and failures.
    pub goodput: f64,
    /// Critical batch, samples.
    pub critical_batch: f64,
    /// Data budget, samples (at small batch).
    pub budget_samples: f64,
    /// Steps to train at this batch.
    pub steps: f64,
    /// Days to train.
    pub days: f64,
    /// GPU-hours.
    pub gpu_hours: f64,
    /// Energy, MWh (GPUs at TDP times the node overhead).
    pub energy_mwh: f64,
    /// Cost at the price per GPU-hour.
    pub cost: f64,
}

/// The critical batch of a workload, samples: `batch_noise` when given, else its source's.
/// A language model's is Kaplan's critical batch at the loss it ends its data budget with
/// ([`chinchilla_loss`]): larger models and longer runs reach lower losses and tolerate larger
/// batches (Meta trained Llama 3 405B at 16 M tokens a batch; the model gives 12 M at 15.6 T).
/// Tokens are counted as a sample carries them (its mean padded length), as the budget is.
/// **Assumption**: the end of the run's critical batch stands for the whole run; it is the
/// largest the run reaches (the loss only falls), so the steps it implies are the fewest.
pub fn critical_batch(s: &Setup) -> f64 {
    s.batch_noise
        .unwrap_or_else(|| match s.workload.sample_tokens() {
            Some(tokens) => {
                let per_sample = tokens * s.fill;
                let budget = budget_samples(s) * per_sample;
                kaplan_critical_tokens(chinchilla_loss(s.workload.params, budget)) / per_sample
            }
            None => RESNET_CRITICAL_BATCH,
        })
}

/// The data budget in samples: `samples`, or `tokens` over the sequence, or the workload's
/// default (20 tokens per parameter; 90 ImageNet epochs).
pub fn budget_samples(s: &Setup) -> f64 {
    // A token budget counts padded tokens, as tokens/s does: a sample is its mean padded length.
    let tokens = s.workload.sample_tokens().map(|t| t * s.fill);
    s.samples
        .or_else(|| Some(s.tokens? / tokens?))
        .unwrap_or_else(|| match tokens {
            Some(t) => TOKENS_PER_PARAM * s.workload.params / t,
            None => IMAGENET_90_EPOCHS,
        })
}

/// How the cluster runs: stragglers, failures, checkpoints and price — the same in a scenario and
/// its setup.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Operations {
    /// Step-time jitter of one GPU (coefficient of variation).
    pub jitter: f64,
    /// Share of GPUs that run slower.
    pub slow_gpus: f64,
    /// How much slower they are.
    pub slow_factor: f64,
    /// Interruptions per 1,000 GPU-days.
    pub failure_rate: f64,
    /// Checkpoint write bandwidth per node, GB/s.
    pub ckpt_gbs: f64,
    /// Restart time, minutes.
    pub restart_min: f64,
    /// Checkpoint interval, minutes (default: Young's optimum).
    pub ckpt_interval: Option<f64>,
    /// Price per GPU-hour.
    pub price: f64,
}

impl Default for Operations {
    fn default() -> Self {
        Operations {
            jitter: 0.0,
            slow_gpus: 0.0,
            slow_factor: 1.5,
            failure_rate: LLAMA3_FAILURES_PER_1000_GPU_DAYS,
            ckpt_gbs: CHECKPOINT_GBS_PER_NODE,
            restart_min: RESTART_MINUTES,
            ckpt_interval: None,
            price: EXAMPLE_PRICE_PER_GPU_HOUR,
        }
    }
}

impl Operations {
    /// [`straggler_seconds`] of a step computing `compute` seconds on `gpus` GPUs, with this
    /// jitter and these slow GPUs.
    pub fn straggler_seconds(&self, compute: f64, gpus: u32) -> f64 {
        straggler_seconds(compute, gpus, self.jitter, self.slow_gpus, self.slow_factor)
    }
}

/// [`reliability`] of a setup: its GPUs, failure rate, checkpoint size over every node's
/// storage bandwidth, restart time and checkpoint interval.
pub fn reliability_of(s: &Setup) -> Reliability {
    reliability(
        s.gpus,
        s.ops.failure_rate,
        super::step::checkpoint_bytes(s),
        s.ops.ckpt_gbs * f64::from(s.nodes()),
        s.ops.restart_min,
        s.ops.ckpt_interval,
    )
}

/// Goodput and time to train of an evaluated step.
pub fn goodput(s: &Setup, r: &StepResult) -> Goodput {
    let step = r.breakdown.total();
    let straggler = s.ops.straggler_seconds(r.breakdown.compute, s.gpus);
    let rel = reliability_of(s);
    let batch = s.batch as f64;
    let b_noise = critical_batch(s);
    let budget = budget_samples(s);
    // McCandlish et al.: S = S_min (1 + B_noise / B), S_min = E_min / B_noise.
    let steps = budget / batch + budget / b_noise;
    let slowest = step + straggler;
    let goodput = batch / slowest * rel.ettr;
    // Where failures outpace progress (ETTR 0) the run never ends: no time, hours or cost.
    let seconds = if rel.ettr > 0.0 {
        steps * slowest / rel.ettr
    } else {
        f64::INFINITY
    };
    let gpu_hours = seconds / 3600.0 * f64::from(s.gpus);
    Goodput {
        straggler,
        reliability: rel,
        goodput,
        critical_batch: b_noise,
        budget_samples: budget,
        steps,
        days: seconds / 86400.0,
        gpu_hours,
        energy_mwh: gpu_hours * s.gpu.tdp_w * NODE_POWER_FACTOR / 1e6,
        cost: gpu_hours * s.ops.price,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small xorshift generator and Box–Muller normals, seeded: reproducible Monte-Carlo.
    struct Rng(u64);
    impl Rng {
        fn uniform(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            ((self.0 >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        }
        fn normal(&mut self) -> f64 {
            let (u, v) = (self.uniform(), self.uniform());
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        }
    }

    #[test]
    fn expected_maximum_matches_monte_carlo() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for n in [2usize, 8, 64, 1024, 8192] {
            let trials = 400_000 / n + 200;
            let mean: f64 = (0..trials)
                .map(|_| (0..n).map(|_| rng.normal()).fold(f64::MIN, f64::max))
                .sum::<f64>()
                / trials as f64;
            let blom = expected_max_normal(n as f64);
            // Blom's approximation is within 0.03 σ of the exact value; allow the sampling noise.
            assert!((blom - mean).abs() < 0.04, "n={n}: {blom} vs {mean}");
        }
    }

    #[test]
    fn quantile_is_the_inverse_normal() {
        assert!(normal_quantile(0.5).abs() < 1e-9);
        assert!((normal_quantile(0.975) - 1.959964).abs() < 1e-5);
        assert!((normal_quantile(0.001) + 3.090232).abs() < 1e-4);
    }

    #[test]
    fn the_default_interval_maximises_ettr() {
        let (m, d, r) = (3.0, 0.05, 0.2);
        let best = optimal_interval(m, d, r);
        // Young's approximation is close when the write is short.
        assert!((young_interval(m, d) - best).abs() / best < 0.2);
        let e = |t: f64| ettr(m, d, r, t);
        let grid_best = (1..2000)
            .map(|i| f64::from(i) * 0.002)
            .max_by(|a, b| e(*a).total_cmp(&e(*b)))
            .unwrap();
        assert!(e(best) >= e(grid_best), "{best} vs {grid_best}");
        assert!((best - grid_best).abs() < 0.002, "{best} vs {grid_best}");
    }

    #[test]
    fn no_jitter_no_straggler() {
        assert_eq!(straggler_seconds(1.0, 4096, 0.0, 0.0, 1.0), 0.0);
        assert!(straggler_seconds(1.0, 4096, 0.02, 0.0, 1.0) > 0.06);
        // One slow GPU in 10,000 at 1.5× holds a 16K-GPU step most of the time.
        assert!(straggler_seconds(1.0, 16384, 0.0, 1e-4, 1.5) > 0.3);
    }

    #[test]
    fn llama3_interruptions_every_three_hours() {
        let r = reliability(
            16384,
            LLAMA3_FAILURES_PER_1000_GPU_DAYS,
            0.0,
            1.0,
            0.0,
            None,
        );
        assert!((r.mttf_hours - 3.1).abs() < 0.1, "{}", r.mttf_hours);
    }
}
