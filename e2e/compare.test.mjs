// Pin and compare (issue 15, point 11): an engineer pins a configuration as A, changes the network
// (B), and reads both side by side — numbers that match each scenario on its own page, the keys
// that differ, how much faster B is, A's dashed curve in the charts and its columns in the table;
// the link carries both (pin=), a reload restores them, Unpin and Back end the comparison.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { start, openPage, shots, axe } from './harness.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

const A = 'gpus=64&per_node=8&gpu=a100&intra=nvlink3&inter=tcp100&nics=1&model=llama3-8b&zero=3';
const B = A.replace('inter=tcp100', 'inter=ib-ndr');
const text = (page, sel) => page.locator(sel).first().textContent();
const field = (page, side, f) => text(page, `[data-testid=compare-${side}] [data-field=${f}] dd`);

function seconds(s) {
  const m = s.trim().match(/^([\d.]+)\s*(s|ms|µs)$/);
  assert.ok(m, `not a duration: ${s}`);
  return Number(m[1]) * { s: 1, ms: 1e-3, 'µs': 1e-6 }[m[2]];
}

/** The headline numbers of an unpinned page for one scenario, to check each side against. */
async function alone(q) {
  const { page, context } = await openPage(env, q);
  await page.waitForFunction(() => /s$/.test(document.querySelector('[data-testid=step-time]')?.textContent || ''));
  const out = {};
  for (const id of ['step-time', 'speedup', 'efficiency', 'mfu', 'throughput']) out[id] = (await text(page, `[data-testid=${id}]`)).trim();
  out.bottleneck = (await text(page, '[data-testid=bottleneck] strong')).trim();
  await context.close();
  return out;
}

/** The `pin=` value of the page's hash, decoded. */
const pinned = (page) => page.evaluate(() => {
  const v = location.hash.slice(1).split('&').find((p) => p.startsWith('pin='));
  return v === undefined ? null : decodeURIComponent(v.slice(4));
});

/** Pins the page's scenario as A and moves B to InfiniBand NDR. */
async function pinThenChangeNetwork(page) {
  assert.equal(await page.locator('[data-testid=compare]').count(), 0, 'nothing is compared before pinning');
  assert.equal(await page.locator('[data-testid=unpin]').count(), 0);
  await page.locator('[data-testid=pin]').click();
  await page.locator('[data-testid=compare-a]').waitFor();
  await page.waitForFunction(() => location.hash.includes('pin='));
  await page.waitForTimeout(300);
  const sweeps = () => page.evaluate(() => ({
    live: (window.__gslPerf?.['model-curve'] || []).length,
    pinned: (window.__gslPerf?.['model-curve-pinned'] || []).length,
  }));
  const before = await sweeps();
  assert.equal(before.pinned, 1, 'pinning sweeps A once');
  await page.locator('[data-testid=inter]').selectOption('ib-ndr');
  await page.waitForFunction(() => /(^|&|#)inter=ib-ndr/.test(location.hash.replace(/pin=[^&]*/, '')));
  await page.waitForFunction(() => document.querySelector('[data-testid=compare-keys]')?.textContent.includes('ib-ndr'));
  await page.waitForTimeout(300);
  // Changing B sweeps B again, never A.
  const after = await sweeps();
  assert.ok(after.live > before.live, `B was swept again: ${JSON.stringify({ before, after })}`);
  assert.equal(after.pinned, before.pinned, 'A is not swept again when B changes');
}

test('pin, change the network: A and B side by side, each matching its own page, and the link carries both', async () => {
  const [soloA, soloB] = [await alone(A), await alone(B)];
  assert.notEqual(soloA['step-time'], soloB['step-time'], 'the two networks give different steps');
  const { page, context, problems } = await openPage(env, A);
  await pinThenChangeNetwork(page);

  // Each side shows what its scenario shows on its own page.
  for (const [side, solo] of [['a', soloA], ['b', soloB]]) {
    for (const f of ['step-time', 'speedup', 'efficiency', 'mfu', 'throughput']) {
      assert.equal((await field(page, side, f)).trim(), solo[f], `${side} ${f}`);
    }
    assert.equal((await field(page, side, 'bottleneck')).trim(), solo.bottleneck, `${side} bottleneck`);
    assert.match(await field(page, side, 'memory'), /^(fits|does not fit) \([\d.]+ of \d+ GiB\)$/);
    assert.equal((await field(page, side, 'gpus')).trim(), '64');
  }
  // B is the live scenario: the results above show B too.
  assert.equal((await text(page, '[data-testid=step-time]')).trim(), soloB['step-time']);
  assert.equal(await text(page, '[data-testid=compare-keys]'), 'A: inter=tcp100 · B: inter=ib-ndr');
  // The difference, from the two steps shown (rounded as shown, so within their rounding).
  const diff = await text(page, '[data-testid=compare-diff]');
  const m = diff.match(/^B is ([\d.]+)× faster per step than A \(/);
  assert.ok(m, diff);
  const ratio = seconds(soloA['step-time']) / seconds(soloB['step-time']);
  assert.ok(Math.abs(Number(m[1]) - ratio) / ratio < 0.03, `${m[1]} vs ${ratio}`);

  // The link: B's keys as before and A's whole query in pin=, percent-encoded.
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /pin=[^&]*%26[^&]*%3D/, 'A\'s & and = are encoded');
  assert.equal(await pinned(page), A);
  assert.ok(hash.replace(/pin=[^&]*&?/, '').includes('inter=ib-ndr'), hash);

  // The charts: A's dashed curve is drawn (the canvas differs from B's alone), named in the
  // takeaway, and A's columns are in the table.
  const { page: bPage, context: bContext } = await openPage(env, B);
  await bPage.waitForTimeout(400);
  await page.waitForTimeout(400);
  const png = (p) => p.evaluate(() => document.querySelector('[data-testid=chart-speedup]').toDataURL());
  assert.notEqual(await png(page), await png(bPage), 'the speedup chart draws A');
  await bContext.close();
  // Each chart speaks of A in its own measure: speedup, and efficiency.
  for (const [id, says] of [['chart-speedup', /The pinned scenario A \(dashed\) reaches [\d.]+× at its 64 GPUs/],
    ['chart-efficiency', /The pinned scenario A \(dashed\) is \d+ % efficient at its 64 GPUs/]]) {
    const label = await page.locator(`[data-testid=${id}]`).getAttribute('aria-label');
    assert.match(label, says, label);
  }
  const table = page.locator('[data-testid=chart-speedup-table]');
  const headers = await table.locator('th').allTextContents();
  assert.deepEqual(headers.slice(-4), ['A speedup', 'A efficiency', 'A step ms', 'A fits']);
  await page.locator('[data-testid=chart-speedup]').locator('xpath=ancestor::figure').locator('details summary').click();
  const row64 = table.locator('tr', { has: page.locator('td:first-child', { hasText: /^64$/ }) });
  // The rows are formatted once the table is open: wait for them.
  await row64.locator('td').first().waitFor();
  const cells = await row64.locator('td').allTextContents();
  assert.equal(cells.length, headers.length);
  assert.equal(Number(cells[headers.indexOf('speedup')]).toFixed(1) + '×', soloB.speedup);
  assert.equal(Number(cells[headers.indexOf('A speedup')]).toFixed(1) + '×', soloA.speedup);

  await page.locator('[data-testid=results]').or(page.locator('#results')).first().scrollIntoViewIfNeeded();
  await page.evaluate(() => document.getElementById('results').scrollIntoView());
  await page.screenshot({ path: path.join(shots, 'compare-1280.png') });
  await page.locator('[data-testid=chart-speedup]').locator('xpath=ancestor::figure').screenshot({ path: path.join(shots, 'compare-chart-1280.png') });

  // A reload restores both.
  await page.reload();
  await page.locator('[data-testid=compare-a]').waitFor();
  assert.equal((await field(page, 'a', 'step-time')).trim(), soloA['step-time']);
  assert.equal((await field(page, 'b', 'step-time')).trim(), soloB['step-time']);
  assert.equal(await text(page, '[data-testid=compare-keys]'), 'A: inter=tcp100 · B: inter=ib-ndr');
  assert.equal(await page.locator('[data-testid=inter]').inputValue(), 'ib-ndr');

  // Unpin ends it: the comparison and pin= go, B stays.
  await page.locator('[data-testid=unpin]').click();
  await page.waitForFunction(() => !location.hash.includes('pin='));
  assert.equal(await page.locator('[data-testid=compare]').count(), 0);
  assert.equal(await page.locator('[data-testid=unpin]').count(), 0);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'pin', 'the keyboard stays on the pin bar');
  assert.equal((await text(page, '[data-testid=step-time]')).trim(), soloB['step-time']);
  const label = await page.locator('[data-testid=chart-speedup]').getAttribute('aria-label');
  assert.ok(!label.includes('pinned'), label);
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.offOrigin, []);
  await context.close();
});

test('with A pinned, the JSON export carries A (its scenario and report) and print names it', async () => {
  const { page, context } = await openPage(env, A);
  await pinThenChangeNetwork(page);
  const [json] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=download-json]').click()]);
  const numbers = JSON.parse(readFileSync(await json.path(), 'utf8'));
  assert.match(numbers.scenario, /inter=ib-ndr/, 'B is the export');
  assert.match(numbers.pinned_a.scenario, /inter=tcp100/, 'A travels with it');
  assert.ok(numbers.pinned_a.report.step_ms > numbers.step_ms, 'A (TCP) is slower per step than B (InfiniBand)');
  // The speedup chart's PNG is redrawn with A's dashed curve, as on screen.
  const png = async () => {
    const [d] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=chart-speedup-png]').click()]);
    return readFileSync(await d.path());
  };
  const withA = await png();
  writeFileSync(path.join(shots, 'compare-export-speedup.png'), withA);
  await page.locator('[data-testid=unpin]').click();
  await page.locator('[data-testid=compare-a]').waitFor({ state: 'detached' });
  await page.waitForFunction(() => !location.hash.includes('pin='));
  const withoutA = await png();
  assert.ok(!withA.equals(withoutA), 'the PNG with A pinned differs from the one without');
  await page.goBack();
  await page.locator('[data-testid=compare-a]').waitFor();
  await page.emulateMedia({ media: 'print' });
  await page.locator('[data-testid=print-pinned]').waitFor({ state: 'attached' });
  assert.match(await text(page, '[data-testid=print-pinned]'), /A \(pinned\): .*inter=tcp100/);
  await page.emulateMedia({ media: 'screen' });
  await page.locator('[data-testid=print-pinned]').waitFor({ state: 'detached' }); // only while printing
  await context.close();
});

test('Back after pinning unpins; Forward pins again', async () => {
  const { page, context, problems } = await openPage(env, A);
  await page.waitForTimeout(300);
  const length0 = await page.evaluate(() => history.length);
  await page.locator('[data-testid=pin]').click();
  await page.waitForFunction(() => location.hash.includes('pin='));
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => history.length), length0 + 1, 'pinning adds one Back entry');
  await page.goBack();
  await page.waitForFunction(() => !location.hash.includes('pin='));
  await page.waitForFunction(() => !document.querySelector('[data-testid=compare]'));
  assert.equal(await page.locator('[data-testid=pin]').textContent(), 'Pin as A');
  await page.goForward();
  await page.locator('[data-testid=compare-a]').waitFor();
  assert.equal(await pinned(page), A);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('a bad pinned scenario is named like any link error', async () => {
  // A key A cannot have: A keeps its default for it and the banner names A's key.
  const { page, context, problems } = await openPage(env, `pin=${encodeURIComponent(A.replace('gpus=64', 'gpus=lots'))}&${B}`);
  await page.locator('[data-testid=compare-a]').waitFor();
  assert.match(await text(page, '[data-testid=error]'), /pin: gpus: /);
  await context.close();
  // A value that is not percent-encoding: nothing is pinned, and the banner says why.
  const broken = await openPage(env, `pin=gpus%3D8%2&${B}`);
  await broken.page.waitForSelector('[data-testid=error]');
  assert.match(await text(broken.page, '[data-testid=error]'), /pin: the pinned scenario A cannot be read: '%' at character 9/);
  assert.equal(await broken.page.locator('[data-testid=compare]').count(), 0);
  assert.deepEqual([...problems.console, ...broken.problems.console], []);
  await broken.context.close();
});

test('on a phone A and B stay side by side without overflow; axe-core finds nothing serious', async () => {
  const hash = `pin=${encodeURIComponent(A)}&${B}`;
  const { page, context, problems } = await openPage(env, hash, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await page.locator('[data-testid=compare-b]').waitFor();
  await page.waitForTimeout(300);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow}px on a phone`);
  const [a, b] = [await page.locator('[data-testid=compare-a]').boundingBox(), await page.locator('[data-testid=compare-b]').boundingBox()];
  assert.ok(Math.abs(a.y - b.y) < 2 && a.x + a.width <= b.x, `A and B side by side: ${JSON.stringify({ a, b })}`);
  assert.ok(b.x + b.width <= 390, `B ends at ${b.x + b.width}px`);
  // No card's content is wider than its card (a long bottleneck sentence wraps).
  const wide = await page.evaluate(() => [...document.querySelectorAll('.ab-card, .ab-keys, .ab-diff')]
    .filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.className));
  assert.deepEqual(wide, []);
  await page.locator('[data-testid=compare]').scrollIntoViewIfNeeded();
  await page.evaluate(() => document.querySelector('.pin-bar').scrollIntoView());
  await page.screenshot({ path: path.join(shots, 'compare-390.png') });
  const bad = await axe(page);
  assert.deepEqual(bad, [], JSON.stringify(bad, null, 1));
  // The efficiency chart on a phone: its legend above the plot, A's low curve uncovered.
  const fig = page.locator('[data-testid=chart-efficiency]').locator('xpath=ancestor::figure');
  await fig.scrollIntoViewIfNeeded();
  await page.waitForTimeout(400);
  await fig.screenshot({ path: path.join(shots, 'compare-efficiency-390.png') });
  await context.close();

  const wide1280 = await openPage(env, hash);
  await wide1280.page.locator('[data-testid=compare-b]').waitFor();
  const bad1280 = await axe(wide1280.page);
  assert.deepEqual(bad1280, [], JSON.stringify(bad1280, null, 1));
  assert.deepEqual([...problems.console, ...wide1280.problems.console], []);
  await wide1280.context.close();
});
