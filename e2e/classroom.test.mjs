// Lessons, embedding, exports and accessibility.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { start, openPage, shots } from './harness.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('a lesson walks from prediction to the model\'s answer', async () => {
  const { page, context, problems } = await openPage(env, '');
  await page.locator('[data-testid=lesson-start-leaving-the-box]').click();
  await page.waitForFunction(() => location.hash.includes('lesson=leaving-the-box') && location.hash.includes('inter=tcp100'));
  assert.match(await page.locator('[data-testid=lesson-text]').textContent(), /Ethernet/);
  // The explorer now shows the lesson's scenario.
  await page.waitForFunction(() => document.querySelector('[data-testid=inter]').value === 'tcp100');
  await page.locator('[data-testid=lesson-choice]').first().check();
  await page.locator('[data-testid=lesson-reveal]').click();
  const answer = await page.locator('[data-testid=lesson-answer]').textContent();
  assert.match(answer, /The model says 0\.\d+×/);
  await page.locator('.lessons').screenshot({ path: path.join(shots, 'lesson-revealed.png') });
  await page.locator('[data-testid=lesson-next]').click();
  await page.waitForFunction(() => location.hash.includes('step=2') && location.hash.includes('inter=ib-ndr'));
  await page.waitForFunction(() => !document.querySelector('[data-testid=lesson-answer]'));
  // The link reopens the same step.
  const h = await page.evaluate(() => location.hash.slice(1));
  const again = await openPage(env, h);
  assert.match(await again.page.locator('[data-testid=lesson-text]').textContent(), /InfiniBand/);
  await again.context.close();
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('embedded widgets post their height to the host page and work', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  const offOrigin = [];
  const origin = new URL(env.base).origin;
  page.on('request', (r) => { if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) offOrigin.push(r.url()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(env.base + 'public/embed.html');
  await page.waitForFunction(() => new Set(window.received.map((m) => m.widget)).size >= 5, null, { timeout: 20000 });
  const got = await page.evaluate(() => window.received);
  for (const w of ['speedup', 'calculator', 'animation', 'timeline', 'lesson']) {
    const m = got.find((x) => x.widget === w);
    assert.ok(m && m.height > 100, `${w} posted no sensible height: ${JSON.stringify(m)}`);
  }
  // The host resized the frame to the content.
  const frameHeight = await page.evaluate(() => document.getElementById('demo-speedup').getBoundingClientRect().height);
  const posted = got.filter((m) => m.widget === 'speedup').at(-1).height;
  assert.ok(Math.abs(frameHeight - posted) <= 2, `${frameHeight} vs ${posted}`);
  // The widget inside works: moving its slider changes its chart readout.
  const frame = page.frameLocator('#demo-speedup');
  const before = await frame.locator('[data-testid=chart-speedup-readout]').textContent();
  await frame.locator('[data-testid=gpus-slider]').focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(300);
  assert.notEqual(await frame.locator('[data-testid=chart-speedup-readout]').textContent(), before);
  await page.screenshot({ path: path.join(shots, 'embed-host.png'), fullPage: true });
  assert.deepEqual(errors, []);
  assert.deepEqual(offOrigin, [], 'no request leaves the origin, from the host or any widget');
  await context.close();
});

test('PNG export of a chart and of an animation frame is a real image', async () => {
  const { page, context } = await openPage(env, 'gpus=8&gpu=h100&algo=ring&model=llama3-8b&zero=3');
  await page.waitForTimeout(400);
  for (const id of ['chart-speedup-png', 'anim-png']) {
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator(`[data-testid=${id}]`).click()]);
    const file = await download.path();
    const bytes = readFileSync(file);
    assert.deepEqual([...bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], `${id} is not a PNG`);
    assert.ok(bytes.length > 5000, `${id} is nearly empty: ${bytes.length} bytes`);
    // Non-blank: decode it in the page and count non-background pixels.
    const inked = await page.evaluate(async (b64) => {
      const img = new Image();
      img.src = 'data:image/png;base64,' + b64;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width; c.height = img.height;
      const ctx = c.getContext('2d');
      ctx.drawImage(img, 0, 0);
      const d = ctx.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240) n++;
      return n;
    }, bytes.toString('base64'));
    assert.ok(inked > 2000, `${id} is blank (${inked} inked pixels)`);
  }
  const [json] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=download-json]').click()]);
  const numbers = JSON.parse(readFileSync(await json.path(), 'utf8'));
  assert.ok(numbers.step_ms > 0 && numbers.efficiency > 0);
  await context.close();
});

test('axe-core finds no serious or critical accessibility violation', async () => {
  const require = createRequire(import.meta.url);
  const axePath = require.resolve('axe-core/axe.min.js');
  for (const [hash, opts] of [['', {}], ['gpus=64&gpu=h100&inter=ib-ndr&model=resnet50', { colorScheme: 'dark' }], ['embed=calculator&gpus=16', {}]]) {
    const { page, context } = await openPage(env, hash, opts);
    await page.waitForTimeout(400);
    await page.addScriptTag({ path: axePath });
    const result = await page.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
    });
    const bad = result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(bad, [], `${hash || 'home'}: ${JSON.stringify(bad, null, 1)}`);
    await context.close();
  }
});

test('projector mode enlarges type and charts', async () => {
  const { page, context } = await openPage(env, 'gpus=64&gpu=h100&inter=ib-ndr');
  const before = await page.evaluate(() => parseFloat(getComputedStyle(document.querySelector('[data-testid=step-time]')).fontSize));
  await page.locator('[data-testid=projector]').check();
  await page.waitForFunction(() => document.querySelector('.page.projector'));
  const after = await page.evaluate(() => parseFloat(getComputedStyle(document.querySelector('[data-testid=step-time]')).fontSize));
  assert.ok(after > before * 1.3, `${before} → ${after}`);
  await page.screenshot({ path: path.join(shots, 'projector-1280.png') });
  await context.close();
});
