// Explorer speed benchmark (not a test): builds nothing, serves dist/, drags the GPU slider and
// switches networks in headless Chromium, then reports p50/p95 of
//   - control change → model, results and every chart redrawn (until the reactive work it queued
//     has run), for GPU slider moves and for network changes separately,
//   - frame-to-frame gaps while dragging (rAF deltas),
//   - long tasks (> 50 ms) observed while dragging.
// Run: node browser-bench/explorer.mjs   (after ./scripts/test or trunk build --release)
import { start, openPage } from '../e2e/harness.mjs';

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p / 100 * s.length))] : NaN;
};
const fmt = (xs) => `p50 ${pct(xs, 50).toFixed(2)} ms, p95 ${pct(xs, 95).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms (n=${xs.length})`;

const env = await start();
const { page, context } = await openPage(env, 'gpus=64&per_node=8&gpu=a100&intra=nvlink3&inter=tcp100&nics=1&model=llama3-8b&zero=3');
await page.waitForTimeout(500);
await page.evaluate(() => {
  window.__longTasks = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push(e.duration); })
    .observe({ type: 'longtask', buffered: false });
  window.__frames = [];
  let last = performance.now();
  const loop = (t) => { window.__frames.push(t - last); last = t; requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
});

// One "control change → all charts redrawn" sample: from the input event until the reactive
// work it queued (model, results, four charts; Leptos runs it in microtasks) has finished, i.e.
// the next macrotask.
async function change(action) {
  return page.evaluate(async (action) => {
    const t0 = performance.now();
    const el = document.querySelector(action.sel);
    el.value = action.value;
    el.dispatchEvent(new Event(action.event, { bubbles: true }));
    await new Promise((r) => setTimeout(r, 0));
    return { total: performance.now() - t0 };
  }, action);
}

const total = [], chartSum = [], slider = [], network = [];
for (let round = 0; round < 6; round++) {
  for (let e = 0; e <= 16; e++) {
    const r = await change({ sel: '[data-testid=gpus-slider]', value: String(e), event: 'input' });
    total.push(r.total);
    slider.push(r.total);
  }
  for (const net of ['tcp10', 'ib-ndr', 'roce400', 'tcp100']) {
    const r = await change({ sel: '[data-testid=inter]', value: net, event: 'change' });
    total.push(r.total);
    network.push(r.total);
  }
}
// What the user feels: main-thread time of a change including style, layout and paint (Chrome's
// Performance metrics), over the frames that follow each change, minus an idle baseline of as
// many frames.
const cdp = await context.newCDPSession(page);
await cdp.send('Performance.enable');
const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
const frames2 = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const keys = ['TaskDuration', 'ScriptDuration', 'LayoutDuration', 'RecalcStyleDuration'];
const delta = (a, b) => Object.fromEntries(keys.map((k) => [k, (b[k] - a[k]) * 1000]));
const n = 40;
let m0 = await metrics();
for (let i = 0; i < n; i++) await frames2();
const idle = delta(m0, await metrics());
m0 = await metrics();
for (let i = 0; i < n; i++) {
  const e = i % 17;
  await page.evaluate((e) => {
    const el = document.querySelector('[data-testid=gpus-slider]');
    el.value = String(e);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, e);
  await frames2();
}
const busy = delta(m0, await metrics());
const per = (k) => ((busy[k] - idle[k]) / n).toFixed(2);
console.log(`control change as felt (main thread, minus idle frames): task ${per('TaskDuration')} ms = script ${per('ScriptDuration')} + layout ${per('LayoutDuration')} + style ${per('RecalcStyleDuration')} + the rest (paint, GC) per GPU-slider change (n=${n})`);

const perf = await page.evaluate(() => window.__gslPerf);
for (const [k, v] of Object.entries(perf)) console.log(`  ${k.padEnd(18)} ${fmt(v.slice(1))}`);
const frames = await page.evaluate(() => window.__frames.slice(5));
const longTasks = await page.evaluate(() => window.__longTasks);
console.log(`control change → model + all charts done: ${fmt(total)}`);
console.log(`  of which GPU slider moves:               ${fmt(slider)}`);
console.log(`  of which network changes (4 curves too):  ${fmt(network)}`);
console.log(`frame gaps while changing:              ${fmt(frames)}`);
console.log(`long tasks > 50 ms while dragging:       ${longTasks.length}${longTasks.length ? ` (max ${Math.max(...longTasks).toFixed(1)} ms)` : ''}`);
await context.close();
await env.close();
