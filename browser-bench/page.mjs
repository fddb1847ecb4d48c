// Page weight and first render (not a test): gzipped transfer of the release build, and the time
// from navigation until the live app has drawn its results, in headless Chromium on loopback.
// Run: node browser-bench/page.mjs   (after ./scripts/test or trunk build --release)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { start } from '../e2e/harness.mjs';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
let raw = 0, gz = 0;
const rows = [];
for (const f of readdirSync(dist)) {
  const p = path.join(dist, f);
  if (!statSync(p).isFile() || !/\.(wasm|js|css|html)$/.test(f)) continue;
  const b = readFileSync(p);
  const z = gzipSync(b, { level: 9 }).length;
  raw += b.length; gz += z;
  rows.push(`  ${f.padEnd(40)} ${(b.length / 1024).toFixed(1).padStart(8)} KiB  ${(z / 1024).toFixed(1).padStart(7)} KiB gzip`);
}
console.log(rows.join('\n'));
console.log(`transfer (wasm + js + css + html): ${(raw / 1024).toFixed(1)} KiB, ${(gz / 1024).toFixed(1)} KiB gzipped`);

const env = await start();
const times = [];
for (let i = 0; i < 7; i++) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  // Record when the live results first show a step time, from navigation start.
  await page.addInitScript(() => {
    new MutationObserver((_, obs) => {
      const el = document.querySelector('[data-testid=step-time]');
      if (el && /\d/.test(el.textContent)) {
        window.__firstRender = performance.now();
        obs.disconnect();
      }
    }).observe(document, { childList: true, subtree: true, characterData: true });
  });
  await page.goto(env.base);
  await page.waitForFunction(() => window.__firstRender !== undefined, null, { timeout: 20000 });
  times.push(await page.evaluate(() => window.__firstRender));
  await context.close();
}
await env.close();
times.sort((a, b) => a - b);
console.log(`first render (navigation → live results): median ${times[3].toFixed(0)} ms, min ${times[0].toFixed(0)} ms, max ${times[6].toFixed(0)} ms (n=7)`);
