// The cluster beyond one switch and the whole training run, as a reader meets them: the
// topology picture follows placement and oversubscription (and so do the results and the
// curves), the time-to-train chart draws its curves and marks the fastest and cheapest counts,
// the run's controls redraw only what they move, and both widgets embed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { start, openPage, inkedPixels, shots } from './harness.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

// 32 nodes behind top-of-rack leaves of 4 nodes at 3:1: the uplinks bound the all-reduce.
const fabric = 'gpus=256&per_node=8&gpu=h100&intra=nvlink4&inter=roce400&nics=8&model=llama3-8b&nic_attach=tor&oversub=3';
// A run whose time to train flattens and turns up.
const run = 'gpus=512&per_node=8&gpu=h100&inter=ib-ndr&model=llama3-8b&jitter=0.05';

const text = (page, id) => page.locator(`[data-testid="${id}"]`).textContent();
const attr = (page, id, name) => page.locator(`[data-testid="${id}"]`).getAttribute(name);
const pixels = (page, id) => page.evaluate((i) => document.querySelector(`[data-testid="${i}"]`).toDataURL(), id);

function seconds(s) {
  const m = s.trim().match(/^([\d.]+)\s*(s|ms|µs)$/);
  assert.ok(m, `not a duration: ${s}`);
  return Number(m[1]) * { s: 1, ms: 1e-3, 'µs': 1e-6 }[m[2]];
}

/** Sets a number or text field as a reader does: type, then leave the field. */
async function setField(page, id, value) {
  const f = page.locator(`[data-testid="${id}"]`);
  await f.fill(value);
  await f.dispatchEvent('change');
}

/** Waits until the canvas's pixels differ from `before` (it was redrawn with new data). */
async function redrawn(page, id, before) {
  await page.waitForFunction(([i, b]) => document.querySelector(`[data-testid="${i}"]`).toDataURL() !== b, [id, before]);
}

test('placement and oversubscription change the topology picture, the results and the curves', async () => {
  const { page, context, problems } = await openPage(env, fabric);
  await page.waitForTimeout(400);
  assert.ok(await inkedPixels(page, 'topology-canvas') > 5000, 'the topology is drawn');
  assert.equal(await attr(page, 'topology-canvas', 'role'), 'img');
  assert.equal(await attr(page, 'topology-canvas', 'data-bottleneck'), 'leaf-uplink');
  assert.equal(await attr(page, 'topology-canvas', 'data-leaf-groups'), '8');
  const label0 = await attr(page, 'topology-canvas', 'aria-label');
  assert.match(label0, /32 nodes of 8 GPUs sit packed in 8 leaf groups of 4 nodes/);
  assert.match(label0, /bound by the leaf uplinks 3:1/);
  // The data table lists every tier and marks the bottleneck.
  await page.locator('[data-testid=topology-table]').locator('xpath=ancestor::details').locator('summary').click();
  await page.locator('[data-testid=topology-table] tbody tr').first().waitFor();
  const rows = await page.locator('[data-testid=topology-table] tbody tr').allTextContents();
  assert.ok(rows.some((r) => r.startsWith('leaf-uplink') && r.endsWith('yes')), rows.join(' | '));
  await page.locator('.chart.topology').screenshot({ path: path.join(shots, 'topology-1280.png') });

  const before = {
    topo: await pixels(page, 'topology-canvas'),
    speedup: await pixels(page, 'chart-speedup'),
    ttt: await pixels(page, 'chart-time-to-train'),
    step: await text(page, 'step-time'),
    eff: await text(page, 'efficiency'),
  };
  await page.locator('[data-testid=placement]').selectOption('random');
  await page.waitForFunction(() => location.hash.includes('placement=random'));
  await page.waitForFunction((s) => document.querySelector('[data-testid=step-time]').textContent !== s, before.step);
  await redrawn(page, 'topology-canvas', before.topo);
  await redrawn(page, 'chart-speedup', before.speedup);
  await redrawn(page, 'chart-time-to-train', before.ttt);
  assert.equal(await attr(page, 'topology-canvas', 'data-leaf-groups'), '16', 'half of each leaf group');
  assert.match(await attr(page, 'topology-canvas', 'aria-label'), /scattered by a busy scheduler in 16 leaf groups/);
  await page.locator('.chart.topology').screenshot({ path: path.join(shots, 'topology-random-1280.png') });

  // Back to a non-blocking fabric: the uplinks stop bounding, the step gets faster.
  const random = {
    topo: await pixels(page, 'topology-canvas'),
    speedup: await pixels(page, 'chart-speedup'),
    step: await text(page, 'step-time'),
  };
  await setField(page, 'oversub', '1');
  await page.waitForFunction(() => !location.hash.includes('oversub='));
  await page.waitForFunction((s) => document.querySelector('[data-testid=step-time]').textContent !== s, random.step);
  await redrawn(page, 'topology-canvas', random.topo);
  await redrawn(page, 'chart-speedup', random.speedup);
  assert.ok(seconds(await text(page, 'step-time')) < seconds(random.step), 'a non-blocking fabric is faster');
  assert.match(await attr(page, 'topology-canvas', 'aria-label'), /leaf uplinks 1:1/);

  // An emptied field puts its key back to the default.
  await setField(page, 'oversub', '4');
  await page.waitForFunction(() => location.hash.includes('oversub=4'));
  await setField(page, 'oversub', '');
  await page.waitForFunction(() => !location.hash.includes('oversub='));
  assert.equal(await page.locator('[data-testid=oversub]').inputValue(), '1');
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.offOrigin, []);
  await context.close();
});

test('the time-to-train chart draws its curves and marks the fastest and the cheapest counts', async () => {
  const { page, context, problems } = await openPage(env, run);
  await page.waitForTimeout(400);
  assert.ok(await inkedPixels(page, 'chart-time-to-train') > 5000);
  const fastest = Number(await attr(page, 'chart-time-to-train', 'data-fastest'));
  const cheapest = Number(await attr(page, 'chart-time-to-train', 'data-cheapest'));
  assert.ok(fastest > 512 && fastest < 65536, `fastest at ${fastest}`);
  assert.ok(cheapest >= 1 && cheapest < fastest, `cheapest at ${cheapest}`);
  const label = await attr(page, 'chart-time-to-train', 'aria-label');
  assert.match(label, new RegExp(`at best, on ${fastest.toLocaleString('en-US')} GPUs`));
  assert.match(label, /more GPUs make it slower/);
  assert.match(label, /critical batch/);
  assert.match(label, /slowest GPU/);
  assert.match(label, /ETTR/);
  assert.match(label, /cheapest run is on .* example price of \$12\.29 per GPU-hour/);
  const header = await page.locator('[data-testid=chart-time-to-train-table] thead').textContent();
  for (const h of ['ideal days', 'step only days', 'time to train days', 'cost example usd']) assert.ok(header.includes(h), header);
  // Keyboard readout.
  await page.locator('[data-testid=chart-time-to-train]').focus();
  await page.keyboard.press('End');
  assert.match(await text(page, 'chart-time-to-train-readout'), /^65,536 GPUs: .*ETTR \d+\.\d %/);
  // The run's own figures beside the step's, stragglers and failures in their own colours.
  assert.match(await text(page, 'ettr'), /^\d+\.\d %$/);
  assert.match(await text(page, 'cost'), /^\$/);
  assert.match(await attr(page, 'run-bar', 'aria-label'), /stragglers/);
  assert.match(await attr(page, 'chart-breakdown', 'aria-label'), /Stragglers, checkpoints, lost work and restarts together take/);
  await page.locator('[data-testid=chart-time-to-train]').locator('xpath=ancestor::figure').screenshot({ path: path.join(shots, 'time-to-train-1280.png') });
  await page.locator('[data-testid=run]').screenshot({ path: path.join(shots, 'run-1280.png') });

  // A run key redraws what it moves and nothing else: the speedup chart stays as it was.
  const speedup = await pixels(page, 'chart-speedup');
  const ttt = await pixels(page, 'chart-time-to-train');
  const perf = await page.evaluate(() => (window.__gslPerf?.['chart-speedup'] || []).length);
  await setField(page, 'jitter', '');
  await page.waitForFunction(() => !location.hash.includes('jitter='));
  await redrawn(page, 'chart-time-to-train', ttt);
  assert.equal(await page.locator('[data-testid=jitter]').inputValue(), '0');
  await page.waitForTimeout(200);
  assert.equal(await pixels(page, 'chart-speedup'), speedup);
  assert.equal(await page.evaluate(() => (window.__gslPerf?.['chart-speedup'] || []).length), perf, 'the speedup chart was not redrawn');
  await setField(page, 'tokens', '15T');
  await page.waitForFunction(() => /tokens=15(T|000000000000)(&|$)/.test(location.hash));
  assert.equal(await page.locator('[data-testid=tokens]').inputValue(), '15T');
  assert.match(await attr(page, 'chart-time-to-train', 'aria-label'), /15 trillion tokens/);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('strong scaling past the batch says the extra GPUs idle', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=1024&gpu=h100&inter=ib-ndr&model=llama3-8b&scaling=strong&batch=256');
  await page.waitForTimeout(300);
  assert.match(await attr(page, 'chart-speedup', 'aria-label'), /only 256 of the 1,024 data-parallel replicas get a sample, and the extra GPUs idle/);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('the fabric presets load their clusters', async () => {
  const { page, context, problems } = await openPage(env, fabric);
  await page.waitForTimeout(200);
  const options = await page.locator('[data-testid=preset] option').allTextContents();
  for (const p of ['DGX SuperPOD (rail, 1:1)', 'Top-of-rack, 3:1 Ethernet', 'Busy shared cluster']) assert.ok(options.includes(p), p);
  await page.locator('[data-testid=preset]').selectOption({ label: 'Busy shared cluster' });
  await page.waitForFunction(() => location.hash.includes('placement=random') && location.hash.includes('bg_load=0.4'));
  assert.equal(await page.locator('[data-testid=routing]').inputValue(), 'ecmp');
  assert.equal(await page.locator('[data-testid=bg-load]').inputValue(), '0.4');
  assert.match(await attr(page, 'topology-canvas', 'aria-label'), /other jobs using 40 % of the uplinks/);
  await page.locator('[data-testid=preset]').selectOption({ label: 'DGX SuperPOD (rail, 1:1)' });
  await page.waitForFunction(() => location.hash.includes('gpus=1024'));
  assert.equal(await page.locator('[data-testid=nic-attach]').inputValue(), 'rail');
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('on a phone the new panels fit and stay crisp', async () => {
  const { page, context, problems } = await openPage(env, `${fabric}&placement=random&jitter=0.05`, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
  await page.waitForTimeout(500);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `page scrolls sideways by ${overflow}px on a phone`);
  const dims = await page.evaluate(() => {
    const c = document.querySelector('[data-testid=topology-canvas]');
    return { w: c.width, cw: c.clientWidth };
  });
  assert.equal(dims.w, Math.round(dims.cw * 2), 'HiDPI backing store');
  assert.ok(await inkedPixels(page, 'topology-canvas') > 5000);
  assert.ok(await inkedPixels(page, 'chart-time-to-train') > 5000);
  await page.locator('.chart.topology').screenshot({ path: path.join(shots, 'topology-390.png') });
  await page.locator('[data-testid=chart-time-to-train]').locator('xpath=ancestor::figure').screenshot({ path: path.join(shots, 'time-to-train-390.png') });
  await page.locator('section.controls').screenshot({ path: path.join(shots, 'controls-390.png') });
  await page.screenshot({ path: path.join(shots, 'fabric-390.png'), fullPage: true });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('the topology and time-to-train widgets embed', async () => {
  for (const [widget, canvas, control] of [['topology', 'topology-canvas', 'placement'], ['time-to-train', 'chart-time-to-train', 'tokens']]) {
    const { page, context, problems } = await openPage(env, `embed=${widget}&${fabric}`, { viewport: { width: 720, height: 900 } });
    await page.waitForTimeout(400);
    assert.ok(await inkedPixels(page, canvas) > 5000, `${widget} draws`);
    assert.equal(await page.locator(`[data-testid=${control}]`).count(), 1, `${widget} has its compact control`);
    assert.equal(await page.locator('[data-testid=embed-error]').count(), 0);
    await page.screenshot({ path: path.join(shots, `embed-${widget}.png`), fullPage: true });
    assert.deepEqual(problems.console, []);
    await context.close();
  }
});

test('the full explorer at 1280×800', async () => {
  const { page, context, problems } = await openPage(env, `${fabric}&jitter=0.05`);
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(shots, 'fabric-1280.png'), fullPage: true });
  await page.locator('section.controls').screenshot({ path: path.join(shots, 'controls-1280.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});
