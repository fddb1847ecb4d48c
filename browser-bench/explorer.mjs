// Explorer speed benchmark (not a test): builds nothing, serves dist/, drags the GPU slider and
// switches networks in headless Chromium with the explorer on screen (the slider at the top of
// the viewport, the speedup and efficiency charts below it; the charts further down are
// repainted once the controls rest), then reports
//   - a control change as the user feels it: main-thread time (script, layout, style, paint)
//     over the frames after each GPU-slider move, minus idle frames (Chrome Performance
//     metrics), in view and with the page scrolled to its top;
//   - p50/p95 of control change → model, results and the charts on screen redrawn (until the
//     reactive work it queued has run: script only), for GPU slider moves and network changes;
//   - each canvas's paint time, frame-to-frame gaps while dragging (rAF deltas), and long tasks
//     (> 50 ms) observed while dragging.
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
await page.evaluate(() => document.querySelector('[data-testid=gpus-slider]').scrollIntoView({ block: 'start' }));
await page.waitForTimeout(300);
await page.evaluate(() => {
  window.__longTasks = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push(e.duration); })
    .observe({ type: 'longtask', buffered: false });
  window.__frames = [];
  let last = performance.now();
  const loop = (t) => { window.__frames.push(t - last); last = t; requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
});

// One "control change → model, results and the charts on screen redrawn" sample: from the
// input event until the reactive work it queued (Leptos runs it in microtasks) has finished,
// i.e. the next macrotask.
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
// One sample: move the slider to exponent `e` (none when e < 0: the idle baseline) and wait two
// frames, in one call, so busy and idle samples carry the same benchmark overhead.
const step = (e) => page.evaluate((e) => new Promise((r) => {
  if (e >= 0) {
    const el = document.querySelector('[data-testid=gpus-slider]');
    el.value = String(e);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }
  requestAnimationFrame(() => requestAnimationFrame(r));
}), e);
const keys = ['TaskDuration', 'ScriptDuration', 'LayoutDuration', 'RecalcStyleDuration'];
const delta = (a, b) => Object.fromEntries(keys.map((k) => [k, (b[k] - a[k]) * 1000]));
const n = 34, rounds = 5;
// Rounds of n idle samples then n slider moves; per round, the busy minus the idle time per
// move. Reported: the median round, and the range (the machine's load moves single rounds).
async function felt() {
  const per = [];
  for (let r = 0; r < rounds; r++) {
    let m0 = await metrics();
    for (let i = 0; i < n; i++) await step(-1);
    const idle = delta(m0, await metrics());
    m0 = await metrics();
    for (let i = 0; i < n; i++) await step(i % 17);
    const busy = delta(m0, await metrics());
    per.push(Object.fromEntries(keys.map((k) => [k, (busy[k] - idle[k]) / n])));
    // Let the off-screen canvases catch up outside the next idle baseline (once per drag, not
    // per move).
    await page.waitForTimeout(400);
  }
  const med = (k) => pct(per.map((p) => p[k]), 50).toFixed(2);
  const range = (k) => `${Math.min(...per.map((p) => p[k])).toFixed(1)}–${Math.max(...per.map((p) => p[k])).toFixed(1)}`;
  return `task ${med('TaskDuration')} ms (rounds ${range('TaskDuration')}) = script ${med('ScriptDuration')} + layout ${med('LayoutDuration')} + style ${med('RecalcStyleDuration')} + the rest (paint, GC)`;
}
// The explorer on screen, then the page scrolled to its top, where every chart is off screen.
await page.waitForTimeout(300);
console.log(`control change as felt (main thread per GPU-slider move, minus idle frames; median of ${rounds} rounds of ${n}):`);
console.log(`  explorer in view: ${await felt()}`);
await page.evaluate(() => window.scrollTo(0, 0));
await page.waitForTimeout(300);
console.log(`  page at the top:  ${await felt()}`);

const perf = await page.evaluate(() => window.__gslPerf);
for (const [k, v] of Object.entries(perf)) console.log(`  ${k.padEnd(18)} ${fmt(v.slice(1))}`);
const frames = await page.evaluate(() => window.__frames.slice(5));
const longTasks = await page.evaluate(() => window.__longTasks);
console.log(`control change → model, results, charts on screen: ${fmt(total)}`);
console.log(`  of which GPU slider moves:               ${fmt(slider)}`);
console.log(`  of which network changes (4 curves too):  ${fmt(network)}`);
console.log(`frame gaps while changing:              ${fmt(frames)}`);
console.log(`long tasks > 50 ms while dragging:       ${longTasks.length}${longTasks.length ? ` (max ${Math.max(...longTasks).toFixed(1)} ms)` : ''}`);
await context.close();
await env.close();
