// Animation speed benchmark (not a test): plays the all-reduce of 1,024 GPUs (aggregate view)
// and of 16 GPUs (every chunk drawn) in headless Chromium for a few seconds each and reports
// frames per second and the frame script time (the app's own measurement, window.__gslPerf).
// Run: node browser-bench/animation.mjs   (after ./scripts/test or trunk build --release)
import { start, openPage } from '../e2e/harness.mjs';

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p / 100 * s.length))] : NaN;
};

const env = await start();
for (const [name, hash] of [
  ['1,024 GPUs (aggregate, ring of 2,046 rounds)', 'gpus=1024&gpu=h100&inter=ib-ndr&algo=ring&model=llama3-8b&zero=3'],
  ['16 GPUs (every chunk), compared with 100 GbE', 'gpus=16&gpu=h100&inter=ib-ndr&algo=ring&model=llama3-8b&zero=3'],
]) {
  const { page, context } = await openPage(env, hash);
  if (name.includes('compared')) await page.locator('[data-testid=anim-compare]').selectOption('inter=tcp100');
  await page.locator('[data-testid=anim-canvas]').scrollIntoViewIfNeeded();
  await page.waitForTimeout(500);
  const r = await page.evaluate(async () => {
    window.__gslPerf['anim-frame'] = [];
    const gaps = [];
    let last = performance.now();
    await new Promise((done) => {
      const t0 = last;
      const loop = (t) => { gaps.push(t - last); last = t; if (t - t0 < 4000) requestAnimationFrame(loop); else done(); };
      requestAnimationFrame(loop);
    });
    return { gaps: gaps.slice(2), script: window.__gslPerf['anim-frame'] };
  });
  const fps = 1000 / (r.gaps.reduce((a, b) => a + b, 0) / r.gaps.length);
  console.log(`${name}: ${fps.toFixed(1)} fps; frame gap p50 ${pct(r.gaps, 50).toFixed(1)} ms, p95 ${pct(r.gaps, 95).toFixed(1)} ms; ` +
    `frame script p50 ${pct(r.script, 50).toFixed(2)} ms, p95 ${pct(r.script, 95).toFixed(2)} ms, max ${Math.max(...r.script).toFixed(2)} ms (n=${r.script.length})`);
  await context.close();
}
await env.close();
