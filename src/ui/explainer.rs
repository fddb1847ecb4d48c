//! The explainer: a short narrative whose every paragraph can set the explorer to show what it
//! says, and a glossary reachable from every term as an accessible popover.

use super::state::Lab;
use leptos::prelude::*;

/// Glossary entries: (id, term, definition). Our own words. Every term the results show has one.
pub const GLOSSARY: &[(&str, &str, &str)] = &[
    ("all-reduce", "all-reduce", "A collective operation: every GPU contributes a vector (say, its gradients) and every GPU ends up with the element-wise sum of all of them."),
    ("gradient", "gradient", "The numbers that say how to nudge each model weight after a training step. Data-parallel GPUs must agree on them, so they add them up with an all-reduce."),
    ("bandwidth", "bandwidth", "How many bytes per second a link carries once data is flowing. Large messages take about size ÷ bandwidth."),
    ("latency", "latency", "The fixed delay before the first byte arrives, paid by every message and every round. Small messages are dominated by it."),
    ("algbw", "algbw", "Algorithm bandwidth, as nccl-tests reports it: the message size divided by the collective's time. It depends on the GPU count; busbw corrects for that."),
    ("busbw", "busbw", "Bus bandwidth, the figure nccl-tests reports: algorithm bandwidth (bytes ÷ time) scaled by 2(n−1)/n for an all-reduce, so it can be compared with a link's speed whatever the GPU count."),
    ("network-bound", "network-bound", "A step whose GPUs spend a large share of their time waiting for data to cross the network rather than computing."),
    ("nvlink", "NVLink", "NVIDIA's GPU-to-GPU link inside a server, hundreds of gigabytes per second per GPU; with an NVSwitch every GPU reaches every other at full speed."),
    ("infiniband", "InfiniBand", "A network for clusters with very low latency and remote direct memory access (RDMA); 400 Gb/s per port in its NDR generation."),
    ("pcie", "PCIe", "The general-purpose expansion bus of a computer. GPUs without NVLink exchange data over it, usually through the processor, at a few tens of GB/s."),
    ("protocol", "LL / LL128 / Simple", "NCCL's three ways to move a message. LL (low latency) sends a flag with every 4 bytes of data: the quickest start, but half of every line is flag, and an all-reduce gets about a quarter of the bandwidth. LL128 carries 120 bytes of data in every 128-byte line, close to full speed over NVLink. Simple sends large chunks with one flag each: full bandwidth, the highest latency. NCCL (RCCL on AMD GPUs, with its own tables) picks by message size, and so does the model."),
    ("step-time", "step time", "The time of one training step: every GPU computes on its share of the batch, then waits for whatever is not hidden behind that computation (gradient sync, input data, serial work, the pipeline bubble)."),
    ("speedup", "speedup", "How many times more training per second than one GPU of the same kind. Ideal is n× on n GPUs."),
    ("efficiency", "efficiency", "Speedup divided by the number of GPUs: the share of each added GPU's work you keep. 100 % is perfect scaling."),
    ("tokens-per-s", "tokens/s", "Throughput of a language-model run: how many tokens (pieces of words) the whole cluster trains on per second. Models that read images count samples/s instead."),
    ("mfu", "MFU", "Model FLOPs utilisation: the useful arithmetic of training (not counting recomputation) as a share of what the GPUs could do at their peak. Counted as PaLM and torchtitan count it: 6 FLOPs per parameter and token, plus attention over the whole score matrix; Megatron-LM since 2026 halves attention for the causal mask, which reads a few points lower at long sequences."),
    ("amdahl", "Amdahl's law", "If a share f of the work cannot be split, n workers are at most 1 ÷ (f + (1 − f) ÷ n) times faster: never more than 1 ÷ f."),
    ("data-parallel", "data parallelism", "Every GPU holds the whole model and learns from different examples; the gradients are averaged after each step."),
    ("zero", "ZeRO / FSDP", "Data parallelism that shards the weights, gradients and optimizer state across GPUs instead of copying them, trading memory for more communication."),
    ("zero-stages", "ZeRO stages 0–3", "Stage 0 is plain data parallelism: every GPU holds everything. Stage 1 shards the optimizer state across the data-parallel GPUs, stage 2 the gradients too, stage 3 (FSDP) the weights too, gathering each layer's weights just before it runs. Each stage saves memory and adds communication."),
    ("optimizer-state", "optimizer state", "What the optimizer keeps for every weight. Adam with mixed precision keeps two running averages and a 32-bit master copy: 12 bytes per parameter, more than the weights and gradients together."),
    ("activations", "activations", "The intermediate results of the forward pass that the backward pass needs. They grow with the micro-batch and the sequence length; recomputation trades them for extra compute."),
    ("recompute", "recomputation", "Dropping some activations after the forward pass and computing them again in the backward pass: less memory for more arithmetic. Selective recomputes only attention's core, op-level (torchtitan's) every second matrix multiply and the cheap operations between them, full each layer from its input — about a third more compute."),
    ("padding", "padding", "Sequences come in different lengths, but a batch is one rectangle, so the shorter ones are padded to the longest in the batch and the padding is computed like real tokens. Grouping sequences of similar length (BERT's loader bins them by 64 tokens) pads each batch to only a little more than its own length; packing several short sequences into one row removes padding altogether. The model times a padded run at its mean padded length (fill, a share of seq) and keeps the attention's square of the length with the spread (fill_rms); the memory is set by the longest batch."),
    ("working-buffers", "working buffers", "Memory a step takes and gives back within itself. The largest is often the loss: it is computed in 32-bit over the whole vocabulary, so a 128K-word vocabulary at 8K tokens needs about 12 GB per sample while its backward pass runs. Sharded weights gathered for the current layer (ZeRO-3, FSDP) are another."),
    ("ettr", "ETTR", "Effective training time ratio: the share of wall-clock time a large job spends making progress, after failures, restarts and lost work since the last checkpoint. Meta reported more than 90 % for Llama 3 on 16,384 GPUs."),
    ("goodput", "goodput", "The training that counts per unit of wall-clock time: throughput after the time lost to failures, restarts, work redone since the last checkpoint and checkpoint writes. Goodput divided by throughput is the ETTR."),
    ("mttf", "MTTF", "Mean time to failure: how long a job runs, on average, between interruptions. It shrinks with the job's size: Meta's Llama 3 run on 16,384 GPUs had 419 unexpected interruptions in 54 days, about one every three hours (Llama 3 paper, 2024)."),
    ("straggler", "straggler", "The slowest GPU of a step. In synchronous training everyone waits for it at the gradient exchange, so small random slowdowns per GPU add up to a longer step as the job grows."),
    ("checkpoint", "checkpoint", "A saved copy of the training state (weights, optimizer state), written every so often; after a failure the job restarts from the last one and redoes the work since."),
    ("placement", "placement", "Where the scheduler puts a job's servers: packed into as few leaf switches as possible, spread across them, or wherever servers are free. The more leaf groups a job spans, the more of its traffic crosses the uplinks and spines."),
    ("oversubscription", "oversubscription", "When a switch's links down to the servers add up to more bandwidth than its links up to the next tier: at 3:1, traffic leaving a leaf group gets a third of the servers' port speed when every server sends at once."),
    ("ecmp", "ECMP", "Equal-cost multi-path routing: each flow is hashed onto one of the equal paths through the spines. A few large flows can collide on one link while others stay idle; adaptive routing spreads traffic by load instead."),
    ("pipeline", "pipeline parallelism", "Consecutive layers live on different GPUs, like stations on an assembly line; micro-batches flow through, and the line's filling and draining leaves GPUs idle (the bubble)."),
];

/// A term with its definition one click (or Enter) away; Escape closes it.
#[component]
pub fn Term(
    /// Glossary id.
    id: &'static str,
    /// The words shown in the text.
    children: Children,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let def = GLOSSARY
        .iter()
        .find(|g| g.0 == id)
        .map(|g| g.2)
        .unwrap_or("");
    let tip = format!("tip-{id}-{}", next_id());
    let pop = NodeRef::<leptos::html::Span>::new();
    // Once open, the popover is shifted to stay inside the viewport (a term near the right
    // edge, a phone), and opens upwards when there is no room below.
    Effect::new(move |_| {
        if open.get() {
            request_animation_frame(move || {
                if let Some(el) = pop.get_untracked() {
                    keep_in_viewport(&el);
                }
            });
        }
    });
    view! {
        <span class="term">
            <button type="button" class="term-button" aria-expanded=move || open.get().to_string()
                aria-controls=tip.clone()
                on:click=move |_| open.update(|o| *o = !*o)
                on:keydown=move |ev| if ev.key() == "Escape" { open.set(false) }
                on:blur=move |_| open.set(false)>
                {children()}
            </button>
            <span id=tip class="popover" role="tooltip" node_ref=pop hidden=move || !open.get()>{def}</span>
        </span>
    }
}

/// Moves an open popover so that it lies inside the viewport, with an 8 px margin.
fn keep_in_viewport(el: &web_sys::HtmlElement) {
    let _ = el.remove_attribute("style");
    let vw = document()
        .document_element()
        .map(|d| f64::from(d.client_width()))
        .unwrap_or(0.0);
    let vh = window()
        .inner_height()
        .ok()
        .and_then(|h| h.as_f64())
        .unwrap_or(0.0);
    let r = el.get_bounding_client_rect();
    let margin = 8.0;
    let shift = if r.right() > vw - margin {
        (vw - margin - r.right()).max(margin - r.left())
    } else if r.left() < margin {
        margin - r.left()
    } else {
        0.0
    };
    let mut style = String::new();
    if shift != 0.0 {
        style.push_str(&format!("left: {shift:.0}px;"));
    }
    // No room below but room above: open upwards.
    if r.bottom() > vh - margin && r.top() - r.height() - 40.0 > margin {
        style.push_str("top: auto; bottom: 1.6em;");
    }
    if !style.is_empty() {
        let _ = el.set_attribute("style", &style);
    }
}

fn next_id() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// A "show me" button that loads a scenario into the explorer and scrolls to a widget.
#[component]
fn ShowMe(scenario: &'static str, target: &'static str, label: &'static str) -> impl IntoView {
    let lab = expect_context::<Lab>();
    view! {
        <button type="button" class="show-me" on:click=move |_| {
            lab.load(scenario);
            if let Some(el) = document().get_element_by_id(target) {
                el.scroll_into_view();
            }
        }>{label}</button>
    }
}

/// The narrative, one idea per paragraph, each tied to a widget.
#[component]
pub fn Explainer() -> impl IntoView {
    view! {
        <section class="explainer" aria-labelledby="why">
            <h2 id="why">"Why more GPUs don't simply mean faster training"</h2>
            <div class="story">
                <article>
                    <h3>"One GPU is not enough"</h3>
                    <p>"Training a large language model means trillions upon trillions of multiplications. One GPU would need years, so the work is shared: in "
                        <Term id="data-parallel">"data parallelism"</Term>
                        " every GPU learns from its own examples and the GPUs then combine what they learned, a list of "
                        <Term id="gradient">"gradients"</Term> " as long as the model."</p>
                    <ShowMe scenario="gpus=8&per_node=8&gpu=h100&intra=nvlink4&model=llama3-8b&zero=3" target="results" label="Show 8 GPUs in one server" />
                </article>
                <article>
                    <h3>"Combining: the all-reduce"</h3>
                    <p>"Combining means an " <Term id="all-reduce">"all-reduce"</Term>
                        ": every GPU ends with the sum of everyone's gradients. In a ring, each GPU passes a slice to its neighbour, who adds its own and passes it on, until every slice has visited every GPU. The animation below plays these rounds, each as long as the model says."</p>
                    <ShowMe scenario="gpus=8&per_node=8&gpu=h100&intra=nvlink4&algo=ring&bytes=256MiB&model=llama3-8b&zero=3" target="animation" label="Play a ring all-reduce" />
                </article>
                <article>
                    <h3>"The network is a conveyor belt"</h3>
                    <p>"Inside a server, " <Term id="nvlink">"NVLink"</Term> " carries hundreds of gigabytes per second. Between servers, data crosses the network — "
                        <Term id="infiniband">"InfiniBand"</Term> " or Ethernet — often ten to a hundred times slower. When the belt is slow, GPUs finish their arithmetic and wait: the job is "
                        <Term id="network-bound">"network-bound"</Term> "."</p>
                    <ShowMe scenario="gpus=64&per_node=8&gpu=a100&intra=nvlink3&inter=tcp100&nics=1&model=llama3-8b&zero=3" target="results" label="Show a cloud cluster on 100 GbE" />
                </article>
                <article>
                    <h3>"Latency and bandwidth"</h3>
                    <p>"Every message pays a fixed " <Term id="latency">"latency"</Term> " before its bytes flow at the link's "
                        <Term id="bandwidth">"bandwidth"</Term>
                        ". Tiny messages are all latency, so what counts is how many hops the algorithm takes; huge ones are all bandwidth. Engineers compare clusters by "
                        <Term id="busbw">"busbw"</Term> "."</p>
                    <ShowMe scenario="gpus=1024&per_node=8&gpu=h100&inter=ib-ndr&bytes=4KiB&model=bert-large" target="animation" label="A 4 KiB all-reduce on 1,024 GPUs" />
                </article>
                <article>
                    <h3>"Amdahl's law"</h3>
                    <p>"Some work in each step cannot be shared: the optimizer update, the framework's bookkeeping. "
                        <Term id="amdahl">"Amdahl's law"</Term>
                        " says that even a small unshared part caps the speedup. The speedup chart draws the Amdahl curve that matches the model."</p>
                    <ShowMe scenario="gpus=1024&per_node=8&gpu=a100&inter=ib-hdr&model=gpt2-xl&scaling=strong&batch=1024&micro=1" target="charts" label="Strong scaling to 1,024 GPUs" />
                </article>
                <article>
                    <h3>"Starving GPUs"</h3>
                    <p>"A GPU can only learn from data that is ready. Images must be read and decoded first; when the input pipeline is slower than the GPUs, they idle, and no network upgrade helps."</p>
                    <ShowMe scenario="gpus=64&per_node=8&gpu=h100&inter=ib-ndr&model=resnet50&precision=bf16" target="results" label="ResNet-50 on 64 H100s" />
                </article>
                <article>
                    <h3>"The memory wall"</h3>
                    <p>"A 70-billion-parameter model needs more than a terabyte of memory to train: weights, gradients, optimizer state and activations. It must be split — "
                        <Term id="zero">"ZeRO / FSDP"</Term> " shards the state, tensor parallelism splits each layer, "
                        <Term id="pipeline">"pipeline parallelism"</Term>
                        " splits the layers — and every split adds communication. "
                        <Term id="mfu">"MFU"</Term> " tells how much of the GPUs' peak survives."</p>
                    <ShowMe scenario="gpus=8&per_node=8&gpu=h100&model=llama3-70b" target="results" label="Llama 3 70B on 8 GPUs" />
                </article>
            </div>
        </section>
    }
}

/// The glossary as a list.
#[component]
pub fn Glossary() -> impl IntoView {
    view! {
        <section class="glossary" aria-labelledby="glossary-title">
            <h2 id="glossary-title">"Glossary"</h2>
            <dl>
                {GLOSSARY.iter().map(|(id, term, def)| view! {
                    <div id=format!("def-{id}")><dt>{*term}</dt><dd>{*def}</dd></div>
                }).collect_view()}
            </dl>
        </section>
    }
}
