// "How good is this model?" and "Explain my run" (issue 14): the validation page lists every
// row with the model's value, headline numbers link to their group's error, a pasted nccl-tests
// run is drawn against the model and explained, and its calibration changes the explorer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { start, openPage, inkedPixels, shots, axe } from './harness.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const data = (f) => readFileSync(path.join(root, 'tests', 'data', f), 'utf8');
/** Rows in a validation CSV: non-empty lines after the header. */
const csvRows = (f) => data(f).split('\n').slice(1).filter((l) => l.trim()).length;
const expectedRows = csvRows('calibration.csv') + csvRows('held-out.csv');
const sample = data('nccl-tests/all_reduce_2x8_h100_a3mega.txt');
const text = (page, id) => page.locator(`[data-testid="${id}"]`).first().textContent();

test('the validation page lists every row with the model\'s value, its group errors and the scatter', async () => {
  const { page, context, problems } = await openPage(env, 'page=validation');
  await page.waitForSelector('[data-testid=validation-row]');
  const rows = page.locator('[data-testid=validation-row]');
  assert.equal(await rows.count(), expectedRows, 'a validation row is missing from the page');
  // Every row has a model value computed now, and a scenario link that opens the explorer.
  const models = await page.locator('[data-testid=validation-model]').allTextContents();
  assert.equal(models.length, expectedRows);
  for (const m of models) assert.match(m, /\d/, `no model value: ${m}`);
  assert.equal(await page.locator('[data-testid=validation-group]').count(), 5);
  assert.match(await text(page, 'validation-group'), /mean absolute error [\d.]+\s%/);
  assert.ok(await page.locator('.vmiss').count() > 0, 'known misses show their reason');
  await page.waitForTimeout(300);
  assert.ok(await inkedPixels(page, 'chart-validation') > 5000, 'the scatter is blank');
  // HiDPI: the backing store follows devicePixelRatio.
  const dims = await page.evaluate(() => {
    const c = document.querySelector('[data-testid=chart-validation]');
    return { w: c.width, css: c.clientWidth, dpr: window.devicePixelRatio };
  });
  assert.equal(dims.w, Math.round(dims.css * dims.dpr));
  await page.screenshot({ path: path.join(shots, 'validation-1280.png') });
  await page.locator('.vtable').screenshot({ path: path.join(shots, 'validation-table-1280.png') });
  // A row's scenario opens the explorer with that scenario.
  const first = rows.first();
  await first.locator('a').first().click();
  await page.waitForSelector('[data-testid=step-time]', { state: 'visible' });
  await page.waitForFunction(() => !location.hash.includes('page=validation'));
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.offOrigin, []);
  await context.close();
});

test('on a phone the validation rows become cards and nothing overflows', async () => {
  const { page, context } = await openPage(env, 'page=validation', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
  await page.waitForSelector('[data-testid=validation-row]');
  assert.equal(await page.locator('[data-testid=validation-row]').count(), expectedRows);
  await page.waitForTimeout(300);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
  await page.screenshot({ path: path.join(shots, 'validation-390.png') });
  await page.locator('[data-testid=validation-row]').nth(20).scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(shots, 'validation-rows-390.png') });
  await context.close();
});

test('a headline number carries its group\'s expected error and links to it', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=64&gpu=h100&inter=ib-ndr&model=llama3-8b');
  const badge = page.locator('[data-testid=expected-error][data-group=step]').first();
  assert.match(await badge.textContent(), /^±\d+\s%$/);
  assert.match(await badge.getAttribute('title'), /held-out/);
  assert.equal(await page.locator('[data-testid=expected-error][data-group=collective]').count(), 1);
  assert.equal(await page.locator('[data-testid=expected-error][data-group=memory]').count(), 1);
  await page.locator('.results').screenshot({ path: path.join(shots, 'results-expected-error-1280.png') });
  await badge.click();
  await page.waitForFunction(() => location.hash.includes('page=validation') && location.hash.includes('group=step'));
  await page.waitForSelector('#validation-group-step.focused');
  // Back returns to the explorer; the link opens the group again.
  await page.goBack();
  await page.waitForSelector('[data-testid=step-time]', { state: 'visible' });
  assert.equal(await page.locator('[data-testid=validation]').count(), 0);
  await badge.click();
  await page.waitForSelector('#validation-group-step.focused');
  // The scenario stays in the link; Back to the explorer keeps it.
  assert.match(await page.evaluate(() => location.hash), /inter=ib-ndr/);
  await page.locator('[data-testid=validation-back]').click();
  await page.waitForSelector('[data-testid=step-time]', { state: 'visible' });
  await page.waitForFunction(() => !location.hash.includes('page=') && location.hash.includes('inter=ib-ndr'));
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('the validation page embeds as a widget', async () => {
  const { page, context, problems } = await openPage(env, 'embed=validation');
  // Its rows are folded until asked for (the embed test measures the folded height).
  await page.waitForSelector('[data-testid=validation-rows] > summary');
  await page.locator('[data-testid=validation-rows] > summary').click();
  await page.waitForSelector('[data-testid=validation-row]');
  assert.equal(await page.locator('[data-testid=validation-row]').count(), expectedRows);
  assert.equal(await page.locator('[data-testid=validation-back]').count(), 0);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('paste a run: the header is read, the chart and the explanation appear, the calibration changes the explorer', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=64&per_node=8&gpu=a100&intra=nvlink3&inter=tcp100&nics=1&model=llama3-8b&zero=3');
  const box = page.locator('[data-testid=paste-nccl]');
  await box.scrollIntoViewIfNeeded();
  assert.equal(await page.locator('[data-testid=chart-measured]').isVisible(), false, 'no chart before a run');
  await box.fill(sample);
  await page.waitForSelector('[data-testid=chart-measured]', { state: 'visible' });
  assert.match(await text(page, 'explain-inferred'), /16 ranks.*2 hosts → 8 GPUs per node.*H100/);
  // What the header says went into the explorer's controls; the fabric is the reader's to set.
  await page.waitForFunction(() => document.querySelector('[data-testid=gpus]').value === '16');
  assert.equal(await page.locator('[data-testid=gpu]').inputValue(), 'h100');
  await page.locator('[data-testid=explain-intra]').selectOption('nvlink4');
  await page.locator('[data-testid=explain-inter]').selectOption('roce200');
  await page.locator('[data-testid=explain-nics]').selectOption('8');
  await page.waitForFunction(() => document.querySelector('[data-testid=inter]').value === 'roce200'
    && document.querySelector('[data-testid=nics]').value === '8');
  await page.waitForTimeout(400);
  assert.ok(await inkedPixels(page, 'chart-measured') > 10000, 'the measured chart is blank');
  const label = await page.locator('[data-testid=chart-measured]').getAttribute('aria-label');
  assert.match(label, /16 GPUs on 2 nodes/);
  const findings = await page.locator('[data-testid=explain-finding]').allTextContents();
  assert.ok(findings.some((f) => /Small messages [\d.]+× slower than expected: latency/.test(f)), findings.join('\n'));
  // 339 GB/s over 8 × 200 GbE: the two-node tree's rate, not the ring's NIC-bound one.
  assert.ok(findings.some((f) => /^Plateau as expected: /.test(f)), findings.join('\n'));
  assert.match(await text(page, 'explain-fit'), /latency-bound/);
  await page.locator('#explain').screenshot({ path: path.join(shots, 'explain-1280.png') });
  // Apply: the calibration goes into the link, and the explorer's numbers move.
  const collective = await text(page, 'collective');
  await page.locator('[data-testid=apply-calibration]').click();
  await page.waitForFunction(() => location.hash.includes('calib_net=') && location.hash.includes('calib_lat='));
  await page.waitForFunction((b) => document.querySelector('[data-testid=collective]').textContent !== b, collective);
  assert.equal(await page.locator('[data-testid=apply-calibration]').isDisabled(), true);
  assert.match(await text(page, 'calibration-status'), /now use your measured fabric/);
  assert.match(await text(page, 'chart-measured-legend'), /model, calibrated/);
  // The shared link reopens the calibrated explorer (the fit, not the pasted text).
  const h = await page.evaluate(() => location.hash.slice(1));
  const again = await openPage(env, h);
  assert.equal(await text(again.page, 'collective'), await text(page, 'collective'));
  await again.context.close();
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.offOrigin, []);
  await context.close();
});

test('a pasted run changes the explorer\'s cluster out loud, and its calibration can go onto the reader\'s own plan', async () => {
  const plan = 'gpus=1024&per_node=8&gpu=h100&inter=ib-ndr&model=llama3-70b&recompute=full';
  const { page, context, problems } = await openPage(env, plan, { viewport: { width: 1440, height: 900 } });
  const box = page.locator('[data-testid=paste-nccl]');
  await box.scrollIntoViewIfNeeded();
  await box.fill(sample);
  await page.waitForSelector('[data-testid=chart-measured]', { state: 'visible' });
  await page.waitForFunction(() => document.querySelector('[data-testid=gpus]').value === '16');
  // The comparison is on the run's 16 ranks, and the page says the explorer's count changed.
  assert.match(await text(page, 'explain-plan-note'), /GPUs 1,024 → 16/);
  assert.match(await text(page, 'explain-back-to-plan'), /1,024 GPUs/);
  assert.match(await text(page, 'apply-calibration-plan'), /Apply it to my plan \(1,024 GPUs\)/);
  assert.match(await text(page, 'apply-calibration'), /run's cluster \(16 GPUs\)/);
  await page.locator('#explain').screenshot({ path: path.join(shots, 'explain-plan-1440.png') });
  await page.locator('[data-testid=apply-calibration-plan]').click();
  // The plan is back, calibrated; nothing else of it changed.
  await page.waitForFunction(() => document.querySelector('[data-testid=gpus]').value === '1024');
  await page.waitForFunction(() => location.hash.includes('calib_'));
  const hash = await page.evaluate(() => location.hash.slice(1));
  for (const kv of plan.split('&')) assert.ok(hash.split('&').includes(kv), `${kv} lost from ${hash}`);
  assert.match(await text(page, 'explain-plan-back'), /Your plan is back in the explorer \(1,024 GPUs\), calibrated with calib_/);
  assert.equal(await page.locator('[data-testid=explain-plan-note]').count(), 0);
  assert.equal(await page.locator('[data-testid=infeasible]').count(), 0, 'the plan fits, as before the paste');
  // "Go back" without a calibration: the plan as it was.
  const again = await openPage(env, plan);
  const box2 = again.page.locator('[data-testid=paste-nccl]');
  await box2.scrollIntoViewIfNeeded();
  await box2.fill(sample);
  await again.page.locator('[data-testid=explain-back-to-plan]').click();
  await again.page.waitForFunction((p) => {
    const h = location.hash.slice(1).split('&');
    return p.split('&').every((kv) => h.includes(kv)) && !h.some((kv) => kv.startsWith('calib_'));
  }, plan);
  await again.context.close();
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('a calibration measured on other hardware is not offered to the plan, and Clear goes back to the plan', async () => {
  const plan = 'gpus=1024&per_node=8&gpu=h100&inter=ib-ndr&model=llama3-70b&recompute=full';
  const { page, context, problems } = await openPage(env, plan, { viewport: { width: 1440, height: 900 } });
  const box = page.locator('[data-testid=paste-nccl]');
  await box.scrollIntoViewIfNeeded();
  // One A100 node driven by -g 8: its count is read (8), its GPU is not named.
  await box.fill(data('nccl-tests/all_reduce_8_a100_mlengineering.txt'));
  await page.waitForSelector('[data-testid=chart-measured]', { state: 'visible' });
  await page.waitForFunction(() => document.querySelector('[data-testid=gpus]').value === '8');
  assert.match(await text(page, 'explain-inferred'), /-g 8 with no rank listed → 8 GPUs in one process/);
  assert.match(await text(page, 'explain-calibration'), /so gpu=h100 was assumed/);
  // The reader says the run's GPU: its NVLink 3 calibration no longer fits the H100 plan.
  await page.locator('[data-testid=explain-gpu]').selectOption('a100');
  await page.waitForSelector('[data-testid=apply-plan-differs]');
  assert.match(await text(page, 'apply-plan-differs'), /Your plan \(1,024 GPUs\) has NVIDIA H100 SXM 80 GB where the run has NVIDIA A100 SXM 80 GB/);
  assert.equal(await page.locator('[data-testid=apply-calibration-plan]').count(), 0);
  // Clear takes the explorer back to the plan; no note of the run's cluster is left.
  await page.locator('[data-testid=nccl-clear]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=gpus]').value === '1024');
  assert.equal(await page.locator('[data-testid=explain-plan-note]').count(), 0);
  assert.equal(await page.locator('[data-testid=gpu]').inputValue(), 'h100');
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('an example button, unreadable lines named by number, and a narrow screen', async () => {
  const { page, context, problems } = await openPage(env, '', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
  await page.locator('[data-testid=nccl-example-1]').click();
  await page.waitForSelector('[data-testid=chart-measured]', { state: 'visible' });
  assert.match(await text(page, 'explain-inferred'), /20 message sizes/);
  await page.waitForFunction(() => document.querySelector('[data-testid=intra]').value === 'nvlink3');
  await page.waitForTimeout(400);
  assert.ok(await inkedPixels(page, 'chart-measured') > 10000);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
  await page.locator('#explain').screenshot({ path: path.join(shots, 'explain-390.png') });
  // Broken lines are named, the rest still read; garbage is a message, not a crash.
  const box = page.locator('[data-testid=paste-nccl]');
  await box.fill(`${data('nccl-tests/all_reduce_8_a100_mlengineering.txt').trimEnd()}\n  34_359_738_368  N/A  N/A  N/A\n`);
  await page.waitForSelector('[data-testid=explain-problems]');
  assert.match(await text(page, 'explain-problems'), /line 25/);
  await box.fill('\u0000\u0001 random bytes ][ 12 float 1e999 -- \n'.repeat(50));
  await page.waitForSelector('[data-testid=explain-error]');
  assert.equal(await page.locator('[data-testid=chart-measured]').isVisible(), false);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('axe-core: the validation page and the explained run have no serious violation', async () => {
  for (const [hash, opts] of [['page=validation', {}], ['page=validation', { colorScheme: 'dark' }]]) {
    const { page, context } = await openPage(env, hash, opts);
    await page.waitForSelector('[data-testid=validation-row]');
    const bad = await axe(page);
    assert.deepEqual(bad, [], `${hash}: ${JSON.stringify(bad, null, 1)}`);
    await context.close();
  }
  for (const opts of [{}, { colorScheme: 'dark' }]) {
    const { page, context } = await openPage(env, 'gpus=16&per_node=8&gpu=h100&intra=nvlink4&inter=roce200&nics=8', opts);
    await page.locator('[data-testid=nccl-example-0]').click();
    await page.waitForSelector('[data-testid=chart-measured]', { state: 'visible' });
    await page.locator('[data-testid=apply-calibration]').click();
    await page.waitForTimeout(300);
    const bad = await axe(page);
    assert.deepEqual(bad, [], JSON.stringify(bad, null, 1));
    if (opts.colorScheme === 'dark') await page.locator('#explain').screenshot({ path: path.join(shots, 'explain-dark-1280.png') });
    await context.close();
  }
});
