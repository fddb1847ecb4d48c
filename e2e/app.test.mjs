// The release build mounts, logs no error or warning and fetches nothing from outside its origin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { start, openPage, shots } from './harness.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('the app mounts with its title, no console error or warning, no off-origin request', async () => {
  const { page, context, problems } = await openPage(env);
  assert.equal(await page.locator('h1').textContent(), 'GPU Scaling Lab');
  await page.screenshot({ path: path.join(shots, 'mount-1280.png'), fullPage: true });
  assert.deepEqual(problems.console, []);
  // Chromium ignores `integrity` on a preload fetched as="fetch" (the wasm) and says so; the
  // rust link in index.html asks Trunk for none (data-integrity="none").
  assert.deepEqual(problems.warnings, []);
  assert.deepEqual(problems.offOrigin, []);
  await context.close();
});

test('the wasm was optimized by wasm-opt (custom name section stripped)', async () => {
  const { page, context } = await openPage(env);
  const size = await page.evaluate(async () => {
    const link = [...document.querySelectorAll('link[rel=preload], link[rel=modulepreload]')]
      .map((l) => l.href).find((h) => h.endsWith('.wasm'));
    const buf = await (await fetch(link)).arrayBuffer();
    const text = new TextDecoder('latin1').decode(new Uint8Array(buf));
    return { bytes: buf.byteLength, hasNameSection: text.includes('\u0004name') };
  });
  assert.ok(size.bytes > 1000);
  assert.equal(size.hasNameSection, false, 'release wasm still carries a name section: wasm-opt did not run');
  await context.close();
});
