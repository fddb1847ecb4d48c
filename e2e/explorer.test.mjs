// The explorer as a reader uses it: a shared link opens a view, controls change the numbers,
// the hash follows, every chart draws, a bad link shows a message and the page still works.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { start, openPage, inkedPixels, shots, axe } from './harness.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

const hash = 'gpus=64&per_node=8&gpu=a100&intra=nvlink3&inter=tcp100&nics=1&model=llama3-8b&zero=3';
const text = (page, id) => page.locator(`[data-testid="${id}"]`).textContent();
const charts = ['chart-speedup', 'chart-efficiency', 'chart-breakdown', 'chart-compare'];

/** The CLI's answer for the same scenario (the page must show the same model). */
function cli(q) {
  const bin = path.resolve('target/debug/scaling-lab');
  if (!existsSync(bin)) execFileSync('cargo', ['build', '--quiet', '--bin', 'scaling-lab']);
  return JSON.parse(execFileSync(bin, ['step', q]).toString());
}

function seconds(s) {
  const m = s.trim().match(/^([\d.]+)\s*(s|ms|µs)$/);
  assert.ok(m, `not a duration: ${s}`);
  return Number(m[1]) * { s: 1, ms: 1e-3, 'µs': 1e-6 }[m[2]];
}

test('a shared link opens the same view the CLI computes', async () => {
  const { page, context, problems } = await openPage(env, hash);
  await page.waitForFunction(() => document.querySelector('[data-testid=step-time]')?.textContent.includes('s'));
  const expected = cli(hash);
  const shown = seconds(await text(page, 'step-time'));
  assert.ok(Math.abs(shown - expected.step_ms / 1e3) / (expected.step_ms / 1e3) < 0.01, `${shown} vs ${expected.step_ms} ms`);
  assert.equal(await text(page, 'speedup'), `${expected.speedup.toFixed(1)}×`);
  assert.equal(await text(page, 'efficiency'), `${Math.round(100 * expected.efficiency)} %`);
  assert.match(await text(page, 'bottleneck'), /network|all-reduce|gradient sync/);
  assert.equal(await page.locator('[data-testid=gpu]').inputValue(), 'a100');
  // Llama 3 8B does not fit on the one GPU its speedup is measured against: the card says so.
  const speedupLabel = () => page.locator('.figures > div', { has: page.locator('[data-testid=speedup]') }).locator('dt').textContent();
  assert.match(await speedupLabel(), /vs 1 GPU \(if it fit\)/);
  // Beside the results on a wide screen, the phone's summary bar is not shown.
  assert.equal(await page.locator('[data-testid=mini-results]').isVisible(), false);
  assert.equal(await page.locator('[data-testid=inter]').inputValue(), 'tcp100');
  await page.waitForTimeout(300);
  for (const id of charts) {
    const n = await inkedPixels(page, id);
    assert.ok(n > 5000, `${id} drew only ${n} pixels`);
    const label = await page.locator(`[data-testid=${id}]`).getAttribute('aria-label');
    assert.ok(label && label.length > 30, `${id} has no takeaway: ${label}`);
    assert.equal(await page.locator(`[data-testid=${id}]`).getAttribute('role'), 'img');
  }
  await page.screenshot({ path: path.join(shots, 'explorer-1280.png'), fullPage: true });
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.offOrigin, []);
  await context.close();
});

test('moving the GPU slider and the network changes the hash, the numbers and the charts', async () => {
  const { page, context, problems } = await openPage(env, hash);
  await page.waitForTimeout(300);
  const before = { step: await text(page, 'step-time'), speedup: await text(page, 'speedup') };
  const pixelsBefore = await page.evaluate(() => document.querySelector('[data-testid=chart-efficiency]').toDataURL());
  await page.locator('[data-testid=gpus-slider]').focus();
  await page.keyboard.press('ArrowRight'); // 64 → 128
  await page.waitForFunction(() => location.hash.includes('gpus=128'));
  await page.waitForFunction((b) => document.querySelector('[data-testid=speedup]').textContent !== b, before.speedup);
  assert.equal(await page.locator('[data-testid=gpus]').inputValue(), '128');

  const stepAt128 = await text(page, 'step-time');
  await page.locator('[data-testid=inter]').selectOption('ib-ndr');
  await page.waitForFunction(() => location.hash.includes('inter=ib-ndr'));
  await page.waitForFunction((b) => document.querySelector('[data-testid=step-time]').textContent !== b, stepAt128);
  const after = { step: await text(page, 'step-time'), speedup: await text(page, 'speedup') };
  assert.notEqual(after.step, before.step);
  assert.ok(seconds(after.step) < seconds(before.step), 'InfiniBand is faster than 100 GbE TCP');
  await page.waitForTimeout(200);
  const pixelsAfter = await page.evaluate(() => document.querySelector('[data-testid=chart-efficiency]').toDataURL());
  assert.notEqual(pixelsAfter, pixelsBefore, 'the efficiency chart was redrawn');
  // The hash round-trips: reloading it shows the same numbers.
  const h = await page.evaluate(() => location.hash);
  const again = await openPage(env, h.slice(1));
  await again.page.waitForTimeout(200);
  assert.equal(await text(again.page, 'step-time'), after.step);
  await again.context.close();
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('an invalid link shows which key was wrong and the page still works', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=64&gpu=tpu9000&nics=99');
  const err = await text(page, 'error');
  await page.locator('.results').screenshot({ path: path.join(shots, 'explorer-error-results.png') });
  assert.match(err, /gpu/);
  assert.match(err, /nics/);
  assert.match(await text(page, 'step-time'), /s$/);
  await page.locator('[data-testid=model]').selectOption('gpt2-xl');
  await page.waitForFunction(() => location.hash.includes('model=gpt2-xl'));
  await page.waitForFunction(() => !document.querySelector('[data-testid=error]'));
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('the layout holds on a phone and the hover readout answers', async () => {
  const { page, context, problems } = await openPage(env, hash, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
  await page.waitForTimeout(400);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `page scrolls sideways by ${overflow}px on a phone`);
  // HiDPI: the backing store follows devicePixelRatio.
  const dims = await page.evaluate(() => {
    const c = document.querySelector('[data-testid=chart-speedup]');
    return { w: c.width, cw: c.clientWidth };
  });
  assert.equal(dims.w, Math.round(dims.cw * 2));
  assert.ok(await inkedPixels(page, 'chart-speedup') > 5000);
  await page.screenshot({ path: path.join(shots, 'explorer-390.png'), fullPage: true });
  // Keyboard readout on a chart: the first key shows the chosen count, Home the first.
  await page.locator('[data-testid=chart-speedup]').focus();
  await page.keyboard.press('ArrowRight');
  assert.match(await text(page, 'chart-speedup-readout'), /^64 GPUs: /);
  await page.keyboard.press('Home');
  assert.match(await text(page, 'chart-speedup-readout'), /^1 GPU: 1\.0×/);
  // The results sit a screen above the controls: a bar at the foot of the screen keeps the
  // headline numbers in view while a control changes them.
  const inter = page.locator('[data-testid=inter]');
  await inter.scrollIntoViewIfNeeded();
  const bar = page.locator('[data-testid=mini-results]');
  const inView = async () => bar.evaluate((b) => {
    const r = b.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0;
  });
  assert.ok(await inView(), 'the summary bar is on screen beside the controls');
  const before = await bar.textContent();
  assert.ok(before.includes((await text(page, 'step-time')).trim()), before);
  await inter.selectOption('ib-ndr');
  await page.waitForFunction((b) => document.querySelector('[data-testid=mini-results]').textContent !== b, before);
  assert.ok(await inView());
  await page.screenshot({ path: path.join(shots, 'explorer-390-controls.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('the comparison chart draws the networks the reader picks', async () => {
  const { page, context, problems } = await openPage(env, hash);
  await page.waitForTimeout(300);
  const header = () => page.locator('[data-testid=chart-compare-table] thead').textContent();
  assert.ok(!(await header()).includes('tcp10 speedup'));
  const before = await page.evaluate(() => document.querySelector('[data-testid=chart-compare]').toDataURL());
  await page.locator('[data-testid=compare-tcp10]').check();
  await page.waitForFunction(() => document.querySelector('[data-testid=chart-compare-table] thead').textContent.includes('tcp10'));
  await page.waitForTimeout(200);
  const h = await header();
  assert.ok(h.includes('tcp10 speedup'), h);
  assert.equal((h.match(/speedup/g) || []).length, 4, 'at most four networks');
  assert.notEqual(await page.evaluate(() => document.querySelector('[data-testid=chart-compare]').toDataURL()), before);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('the comparison starts with the reader\'s own network, follows it, and says when two curves coincide', async () => {
  // Two micro-batches a GPU: the backward is long enough to hide the sync on NDR and XDR alike.
  const { page, context, problems } = await openPage(env, 'gpus=1024&per_node=8&gpu=h100&inter=tcp100&model=llama3-70b&recompute=full&micro=2');
  const ticked = () => page.evaluate(() => [...document.querySelectorAll('.compare-choice input:checked')]
    .map((i) => i.dataset.testid.replace('compare-', '')));
  // 100 GbE TCP is the scenario's: it is drawn beside the others without re-ticking.
  await page.waitForFunction(() => document.querySelector('[data-testid=compare-tcp100]')?.checked);
  assert.deepEqual(await ticked(), ['tcp25', 'tcp100', 'roce100', 'ib-ndr']);
  // Until the reader ticks a box, a change of network brings the new one in.
  await page.locator('[data-testid=inter]').selectOption('roce400');
  await page.waitForFunction(() => document.querySelector('[data-testid=compare-roce400]').checked);
  assert.ok((await ticked()).length <= 4);
  // NDR and XDR give the same curve here: one would hide the other without a word.
  await page.locator('[data-testid=compare-ib-xdr]').check();
  await page.locator('[data-testid=compare-coincide]').waitFor();
  assert.match(await page.locator('[data-testid=compare-coincide]').textContent(), /InfiniBand NDR 400 Gb\/s and InfiniBand XDR 800 Gb\/s give the same curve here/);
  // Ticked by the reader, the set stays theirs when the network changes.
  const mine = await ticked();
  await page.locator('[data-testid=inter]').selectOption('tcp10');
  await page.waitForFunction(() => location.hash.includes('inter=tcp10'));
  assert.deepEqual(await ticked(), mine);
  await page.locator('[data-chart=chart-compare]').screenshot({ path: path.join(shots, 'compare-own-network.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('a misspelt page= is named like the other keys, and the explorer still opens', async () => {
  const { page, context, problems } = await openPage(env, 'page=validatoin&gpus=64');
  const banner = page.locator('[data-testid=error]');
  await banner.waitFor();
  assert.match(await banner.textContent(), /'validatoin' is not a page; accepted: validation/);
  assert.ok(await page.locator('[data-testid=gpus]').isVisible());
  assert.ok(!(await page.evaluate(() => location.hash)).includes('validatoin'), 'the misspelt key is not kept');
  // Typed into the address bar of an open page, too.
  await page.evaluate(() => { location.hash = 'page=valdation&gpus=64'; });
  await page.waitForFunction(() => document.querySelector('[data-testid=error]')?.textContent.includes("'valdation' is not a page"));
  // Each edit replaces the message rather than adding to it (the same typo twice was listed twice).
  await page.evaluate(() => { location.hash = 'page=valdation&gpus=64&x=1'; });
  await page.waitForTimeout(300);
  const said = await page.locator('[data-testid=error]').allTextContents();
  const count = said.join(' ').split("is not a page").length - 1;
  assert.equal(count, 1, said.join(' | '));
  assert.ok(!said.join(' ').includes("'validatoin'"), said.join(' | '));
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('with a pin, the efficiency chart speaks in efficiency; the batch field\'s hint fits it', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=1024&per_node=8&gpu=h100&inter=ib-ndr&model=llama3-8b', { viewport: { width: 1440, height: 900 } });
  await page.locator('[data-testid=pin]').click();
  await page.waitForFunction(() => location.hash.includes('pin='));
  const readout = await page.locator('[data-testid=chart-efficiency-readout]').textContent();
  assert.match(readout, /pinned scenario A \(dashed\) is \d+ % efficient at its 1,024 GPUs/);
  assert.doesNotMatch(readout, /reaches [\d,.]+×/);
  assert.match(await page.locator('[data-testid=chart-speedup-readout]').textContent(), /pinned scenario A \(dashed\) reaches/);
  // The placeholder of the global batch is read whole at 1440 px.
  const spill = await page.evaluate(() => {
    const el = document.querySelector('[data-testid=batch]');
    const cs = getComputedStyle(el);
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20; // the spin buttons
    return ctx.measureText(el.placeholder).width - room;
  });
  assert.ok(spill <= 0, `the placeholder is clipped by ${spill} px`);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('a chart\'s data table shows the same numbers as the CSV', async () => {
  const { page, context } = await openPage(env, hash);
  await page.waitForTimeout(300);
  await page.locator('[data-testid=chart-speedup-table]').locator('xpath=ancestor::details').locator('summary').click();
  // The rows are built when the table opens (after the toggle event reaches the app).
  await page.locator('[data-testid=chart-speedup-table] tbody tr').first().waitFor();
  const rows = await page.locator('[data-testid=chart-speedup-table] tbody tr').count();
  assert.equal(rows, 17, 'one row per GPU count');
  const first = await page.locator('[data-testid=chart-speedup-table] tbody tr').nth(6).locator('td').allTextContents();
  assert.equal(first[0], '64');
  const expected = cli(hash);
  assert.equal(Number(first[1]).toFixed(2), expected.speedup.toFixed(2));
  // Its scroll box is reachable by keyboard and named: axe finds nothing serious with every
  // chart's table open.
  for (const d of await page.locator('details.table').all()) {
    if (!(await d.evaluate((e) => e.open)) && await d.isVisible()) await d.locator('summary').click();
  }
  await page.waitForTimeout(200);
  assert.deepEqual(await axe(page), []);
  await context.close();
});

test('a link with a scenario opens at its results; a refused GPU count is named at its field and not kept', async () => {
  const { page, context, problems } = await openPage(env, hash);
  await page.waitForFunction(() => Math.abs(document.getElementById('results').getBoundingClientRect().top) < 5);
  await page.screenshot({ path: path.join(shots, 'explorer-opens-at-results-1280.png') });
  const before = await text(page, 'step-time');
  const field = page.locator('[data-testid=gpus]');
  await field.fill('100');
  await field.press('Tab');
  const problem = page.locator('[data-testid=problem-gpus]');
  await problem.waitFor();
  assert.match(await problem.textContent(), /gpus=100 is not a multiple of per_node=8/);
  assert.equal(await field.inputValue(), '64', 'the field shows the count the results are for');
  assert.equal(await text(page, 'step-time'), before);
  assert.match(await text(page, 'error'), /The previous value is kept/);
  await problem.locator('xpath=ancestor::fieldset').screenshot({ path: path.join(shots, 'explorer-refused-gpus.png') });
  await field.fill('128');
  await field.press('Tab');
  await page.waitForFunction(() => !document.querySelector('[data-testid=problem-gpus]'));
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('section links scroll without disturbing the scenario in the hash', async () => {
  const { page, context, problems } = await openPage(env, hash);
  await page.waitForTimeout(300);
  const before = await page.evaluate(() => location.hash);
  await page.locator('nav.jump a', { hasText: 'Animation' }).click();
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => location.hash), before);
  assert.equal(await page.locator('[data-testid=error]').count(), 0);
  const y = await page.evaluate(() => document.getElementById('animation').getBoundingClientRect().top);
  assert.ok(Math.abs(y) < 5, `the animation section is at the top (${y})`);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('PCIe peer-to-peer: shown for a PCIe box, off by default for GeForce cards, and turning it on speeds the all-reduce', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=8&per_node=8&gpu=rtx4090&intra=pcie5&model=gpt2-xl');
  const p2p = page.locator('[data-testid=p2p]');
  await p2p.waitFor();
  assert.match(await p2p.locator('option:checked').textContent(), /auto: off/);
  const busbw = async () => Number((await page.locator('[data-testid=collective]').textContent()).match(/busbw ([\d.]+) GB\/s/)[1]);
  const relayed = await busbw();
  await p2p.selectOption('1');
  await page.waitForFunction(() => location.hash.includes('p2p=1'));
  await page.waitForFunction((before) => {
    const m = document.querySelector('[data-testid=collective]').textContent.match(/busbw ([\d.]+) GB\/s/);
    return m && Number(m[1]) > before;
  }, relayed);
  assert.ok(await busbw() > relayed, 'peer-to-peer is faster than the host relay');
  // A GeForce card has no NVLink: its node is offered the PCIe generations only.
  const links = await page.locator('[data-testid=intra] option').evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(links, ['pcie3', 'pcie4', 'pcie5']);
  await context.close();
  // On NVLink the choice means nothing: a GPU whose node is NVLink drops it with its control,
  // and the old GPU's stated link, instead of refusing the change.
  const second = await openPage(env, 'gpus=8&per_node=8&gpu=rtx4090&model=gpt2-xl&p2p=0');
  await second.page.locator('[data-testid=p2p]').waitFor();
  await second.page.locator('[data-testid=gpu]').selectOption('h100');
  await second.page.waitForFunction(() => location.hash.includes('gpu=h100') && !location.hash.includes('p2p='));
  assert.equal(await second.page.locator('[data-testid=p2p]').count(), 0);
  assert.equal(await second.page.locator('[data-testid=error]').count(), 0);
  // From one NVLink generation to another, the new GPU's own link follows the stated one.
  const third = await openPage(env, 'gpus=8&per_node=8&gpu=h100&intra=nvlink4&model=gpt2-xl');
  await third.page.locator('[data-testid=gpu]').selectOption('a100');
  await third.page.waitForFunction(() => location.hash.includes('gpu=a100') && !location.hash.includes('intra=nvlink4'));
  assert.equal(await third.page.locator('[data-testid=intra]').inputValue(), 'nvlink3');
  assert.equal(await third.page.locator('[data-testid=error]').count(), 0);
  await third.context.close();
  assert.deepEqual(second.problems.console, []);
  await second.context.close();
  assert.deepEqual(problems.console, []);
});

test('padded batches: fill shortens the step, a wrong fill_rms is named, and cuDNN attention is offered on Hopper only', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=8&per_node=8&gpu=a100&model=bert-large&attn=eager&overlap=0');
  const seconds = async () => {
    const [, v, unit] = (await text(page, 'step-time')).match(/([\d.,]+)\s*(µs|ms|s)/);
    return Number(v.replace(/,/g, '')) * { 'µs': 1e-6, ms: 1e-3, s: 1 }[unit];
  };
  const set = async (id, value) => {
    const f = page.locator(`[data-testid="${id}"]`);
    await f.fill(value);
    await f.dispatchEvent('change');
  };
  await page.locator('[data-testid=fill]').waitFor();
  const full = await seconds();
  await set('fill', '0.545');
  await page.waitForFunction(() => location.hash.includes('fill=0.545'));
  await page.waitForFunction(async (before) => {
    const m = document.querySelector('[data-testid=step-time]').textContent.match(/([\d.,]+)\s*(µs|ms|s)/);
    return m && Number(m[1].replace(/,/g, '')) * { 'µs': 1e-6, ms: 1e-3, s: 1 }[m[2]] < before / 1.5;
  }, full);
  const padded = await seconds();
  assert.ok(full / padded > 1.7 && full / padded < 2.2, `${full} s → ${padded} s`);
  // A root-mean-square above √fill cannot be: the error names the key and the page goes on.
  await set('fill-rms', '0.9');
  await page.waitForFunction(() => document.querySelector('[data-testid=error]')?.textContent.includes('fill_rms'));
  await page.locator('[data-testid=fill]').locator('xpath=ancestor::fieldset').screenshot({ path: path.join(shots, 'explorer-fill-1280.png') });
  await set('fill-rms', '0.642');
  await page.waitForFunction(() => !document.querySelector('[data-testid=error]'));
  // The fields' glossary link says what padding is and what the two keys mean.
  await page.locator('.controls .term-button', { hasText: 'padding' }).click();
  const tip = page.locator('.popover:not([hidden])');
  await tip.waitFor();
  assert.match(await tip.textContent(), /fill_rms/);
  await page.keyboard.press('Escape');
  assert.ok(await seconds() > padded, 'spread lengths cost more than all at the mean');
  // cuDNN's attention: offered, refused on an A100 with a reason, accepted on an H100.
  const attn = page.locator('[data-testid=attn]');
  assert.ok((await attn.locator('option').allTextContents()).some((o) => /cuDNN/.test(o)));
  await attn.selectOption('cudnn');
  await page.waitForFunction(() => /Hopper/.test(document.querySelector('[data-testid=error]')?.textContent || ''));
  // Refused, the select shows what the model runs again, not the refused choice.
  assert.equal(await attn.inputValue(), 'eager');
  await page.locator('[data-testid=gpu]').selectOption('h100');
  await page.waitForFunction(() => location.hash.includes('gpu=h100') && !document.querySelector('[data-testid=error]'));
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('a custom transformer can untie its embeddings: more memory, the same FLOPs', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=8&model=custom&layers=24&hidden=2048&heads=16&seq=4096&vocab=131072');
  const box = page.locator('[data-testid=untied]');
  await box.waitFor();
  const memory = async () => Number((await text(page, 'memory')).match(/([\d.]+)\s*GiB/)[1]);
  const tied = await memory();
  await box.check();
  await page.waitForFunction(() => location.hash.includes('untied=1'));
  await page.waitForFunction((before) => {
    const m = document.querySelector('[data-testid=memory]').textContent.match(/([\d.]+)\s*GiB/);
    return m && Number(m[1]) > before;
  }, tied);
  assert.ok(await memory() > tied);
  await page.locator('[data-testid=untied]').locator('xpath=ancestor::fieldset').screenshot({ path: path.join(shots, 'explorer-untied-1280.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});

// Review 11: an emptied GPU count went back to 8 without a word, while other bad entries kept
// the previous value with a message; a field with a message did not point at it.
test('emptying a number field puts its default back and says so at the field; a refused one is marked invalid', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=64&gpu=h100&inter=ib-ndr&model=llama3-8b&micro=2&jitter=0.05');
  await page.waitForTimeout(300);
  const described = (testid) => page.evaluate((id) => {
    const el = document.querySelector(`[data-testid=${id}]`);
    const ids = (el.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
    return { invalid: el.getAttribute('aria-invalid'), value: el.value,
      text: ids.map((i) => document.getElementById(i)?.textContent || `(no #${i})`).join(' ') };
  }, testid);
  // Consistent across the number fields: empty is the default, named with its value.
  for (const [testid, key, was, back] of [['gpus', 'gpus', '64', '8'], ['micro', 'micro', '2', '1'], ['jitter', 'jitter', '0.05', '0']]) {
    const field = page.locator(`[data-testid=${testid}]`);
    assert.equal(await field.inputValue(), was);
    await field.fill('');
    await field.press('Tab');
    const note = page.locator(`[data-testid=note-${key}]`);
    await note.waitFor();
    assert.equal(await note.textContent(), `Empty: back to the default, ${back}.`);
    const d = await described(testid);
    assert.equal(d.invalid, null, `${testid}: a default is not an error`);
    assert.equal(d.text, `Empty: back to the default, ${back}.`, `${testid} points at its note`);
    if (testid === 'gpus') {
      assert.equal(d.value, '8', 'the field shows the count the results are for');
      await note.locator('xpath=ancestor::fieldset').screenshot({ path: path.join(shots, 'explorer-emptied-gpus.png') });
    }
  }
  // A refused entry: the previous value stays, the field is invalid and points at why.
  const gpus = page.locator('[data-testid=gpus]');
  await gpus.fill('100');
  await gpus.press('Tab');
  await page.locator('[data-testid=problem-gpus]').waitFor();
  const d = await described('gpus');
  assert.equal(d.invalid, 'true');
  assert.match(d.text, /gpus=100 is not a multiple of per_node=8/);
  assert.equal(d.value, '8');
  assert.equal(await page.locator('[data-testid=note-gpus]').count(), 0, 'the earlier note is gone');
  // Text the field cannot read as a number (its value is then empty) is refused too, not the
  // default.
  await gpus.fill('');
  await gpus.pressSequentially('1e');
  await gpus.press('Tab');
  await page.waitForFunction(() => /not a number/.test(document.querySelector('[data-testid=problem-gpus]')?.textContent));
  assert.deepEqual(await described('gpus'), { invalid: 'true', value: '8', text: 'what was typed is not a number' });
  // A valid entry clears both.
  await gpus.fill('16');
  await gpus.press('Tab');
  await page.waitForFunction(() => !document.querySelector('[data-testid=problem-gpus]'));
  assert.deepEqual(await described('gpus'), { invalid: null, value: '16', text: '' });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('the comparison\'s check boxes are named as the chart\'s legend names the networks', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=64&gpu=h100&inter=ib-ndr&model=llama3-8b');
  await page.locator('[data-testid=compare-ib-xdr]').waitFor({ state: 'attached' });
  for (const [id, name] of [['roce200', '200 GbE RoCE'], ['ib-xdr', 'InfiniBand XDR 800 Gb/s'], ['tcp100', '100 GbE, TCP']]) {
    const box = page.getByRole('checkbox', { name, exact: true });
    assert.equal(await box.count(), 1, `no check box named "${name}"`);
    assert.equal(await box.getAttribute('data-testid'), `compare-${id}`);
    assert.equal(await page.getByRole('checkbox', { name: id, exact: true }).count(), 0, `a check box is still named "${id}"`);
  }
  await page.locator('[data-chart=chart-compare]').screenshot({ path: path.join(shots, 'compare-named-networks.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});
