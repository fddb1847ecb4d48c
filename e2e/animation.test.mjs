// The all-reduce animation: play, pause, step; rounds advance and pixels change; reduced motion
// means no autoplay; large clusters play in aggregate; the step timeline draws.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { start, openPage, inkedPixels, shots } from './harness.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

const round = (page) => page.locator('[data-testid=anim-round]').textContent();
const canvasData = (page, id) => page.evaluate((id) => document.querySelector(`[data-testid=${id}]`).toDataURL(), id);

test('play, pause and step move through the rounds', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=8&gpu=h100&algo=ring&model=llama3-8b&zero=3');
  await page.locator('[data-testid=anim-canvas]').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => /Round \d+ of 14/.test(document.querySelector('[data-testid=anim-round]').textContent));
  // Autoplay: the round advances by itself.
  await page.waitForFunction(() => !document.querySelector('[data-testid=anim-round]').textContent.startsWith('Round 1 '), null, { timeout: 10000 });
  await page.locator('[data-testid=anim-play]').click(); // pause
  assert.equal(await page.locator('[data-testid=anim-play]').textContent(), 'Play');
  const paused = await round(page);
  const pixelsPaused = await canvasData(page, 'anim-canvas');
  await page.waitForTimeout(400);
  assert.equal(await round(page), paused, 'paused: the round stays');
  const n = (s) => Number(s.match(/Round (\d+)/)[1]);
  await page.locator('[data-testid=anim-step]').click();
  await page.waitForFunction((want) => document.querySelector('[data-testid=anim-round]').textContent.startsWith(`Round ${want} `), Math.min(14, n(paused) + 1));
  assert.notEqual(await canvasData(page, 'anim-canvas'), pixelsPaused, 'the canvas changed');
  await page.locator('[data-testid=anim-back]').click();
  await page.waitForFunction((p) => Number(document.querySelector('[data-testid=anim-round]').textContent.match(/Round (\d+)/)[1]) <= p, n(paused));
  assert.match(await page.locator('[data-testid=anim-caption]').textContent(), /^Round \d+ of 14: /);
  assert.ok(await inkedPixels(page, 'timeline-canvas') > 5000, 'the timeline drew');
  await page.locator('.animation').screenshot({ path: path.join(shots, 'animation-8gpu.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('comparing two interconnects shows the slower one behind', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=16&per_node=8&gpu=h100&inter=ib-ndr&algo=ring&model=llama3-8b&zero=3');
  await page.locator('[data-testid=anim-compare]').selectOption('inter=tcp100');
  await page.locator('[data-testid=anim-canvas]').scrollIntoViewIfNeeded();
  await page.waitForTimeout(1500);
  assert.ok(await inkedPixels(page, 'anim-canvas-compare') > 5000);
  await page.locator('.animation').screenshot({ path: path.join(shots, 'animation-compare.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('1,024 GPUs play in aggregate', async () => {
  // A ring over 1,024 GPUs: 2,046 rounds, drawn as 128 nodes.
  const { page, context, problems } = await openPage(env, 'gpus=1024&gpu=h100&inter=ib-ndr&algo=ring&model=llama3-8b&zero=3');
  await page.locator('[data-testid=anim-canvas]').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => / of 2046$/.test(document.querySelector('[data-testid=anim-round]').textContent));
  const a = await canvasData(page, 'anim-canvas');
  await page.waitForTimeout(500);
  assert.notEqual(await canvasData(page, 'anim-canvas'), a, 'the aggregate view moves');
  assert.match(await page.locator('[data-testid=anim-caption]').textContent(), /128 nodes of 8 GPUs/);
  await page.locator('.animation').screenshot({ path: path.join(shots, 'animation-1024gpu.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('with reduced motion nothing plays by itself, stepping shows stills', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=8&gpu=h100&algo=ring', { reducedMotion: 'reduce' });
  await page.locator('[data-testid=anim-canvas]').scrollIntoViewIfNeeded();
  await page.waitForTimeout(800);
  assert.equal(await round(page), 'Round 1 of 14');
  assert.equal(await page.locator('[data-testid=anim-play]').textContent(), 'Play');
  await page.locator('[data-testid=anim-step]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=anim-round]').textContent === 'Round 2 of 14');
  await page.waitForTimeout(500);
  assert.equal(await round(page), 'Round 2 of 14', 'still: no autoplay after a step');
  assert.deepEqual(problems.console, []);
  await context.close();
});
