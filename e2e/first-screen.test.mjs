// What a reader meets first (issue 15, points 7, 8, 9, 12): the static first screen answers
// before any WebAssembly runs; glossary popovers stay on screen; a setup that does not fit
// looks infeasible and offers its fix as a button; a bad link's problems are seen at the top,
// once each; Back undoes discrete actions, not slider drags.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { start, openPage, shots } from './harness.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

const phone = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

function cliSweep(q, nets) {
  const bin = path.resolve('target/debug/scaling-lab');
  if (!existsSync(bin)) execFileSync('cargo', ['build', '--quiet', '--bin', 'scaling-lab']);
  const csv = execFileSync(bin, ['sweep', q, '--inter', nets, '--csv']).toString().trim().split('\n');
  const head = csv[0].split(',');
  return csv.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, i) => [head[i], v])));
}

test('without WebAssembly the first screen already answers, with the model\'s curve', async () => {
  for (const [name, opts] of [['1280', { deviceScaleFactor: 2 }], ['390', phone]]) {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 }, ...opts, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(env.base);
    assert.equal(await page.locator('h1').textContent(), 'GPU Scaling Lab');
    assert.match(await page.locator('#prerender .headline').textContent(), /Because the GPUs wait/);
    const svg = page.locator('#prerender svg');
    assert.ok(await svg.isVisible());
    const box = await svg.boundingBox();
    const vh = opts.viewport ? opts.viewport.height : 800;
    assert.ok(box.y + box.height <= vh, `${name}: the picture ends at ${box.y + box.height}, below the first screen (${vh})`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${name}: scrolls sideways by ${overflow}px`);
    await page.screenshot({ path: path.join(shots, `first-screen-static-${name}.png`) });
    await context.close();
  }
});

test('the pre-rendered curve carries the model\'s numbers, and the live app replaces it', async () => {
  const { page, context, problems } = await openPage(env, '');
  // The numbers drawn in index.html are the model's (regenerate them when the model moves).
  const html = await (await fetch(env.base)).text();
  const scenario = html.match(/data-scenario="([^"]+)"/)[1].replaceAll('&amp;', '&');
  const rows = cliSweep(scenario, 'tcp100,ib-hdr');
  for (const net of ['tcp100', 'ib-hdr']) {
    const drawn = html.match(new RegExp(`data-net="${net}" data-speedup="([^"]+)"`))[1].split(' ').map(Number);
    const model = rows.filter((r) => r.inter === net && Number(r.gpus) <= 64).map((r) => Number(r.speedup));
    assert.equal(drawn.length, model.length);
    drawn.forEach((v, i) => assert.ok(Math.abs(v - model[i]) / model[i] < 0.03, `${net} point ${i}: drawn ${v}, model ${model[i]}`));
  }
  // Mounted: the static screen is gone, and the live header keeps its answer, numbers and curve,
  // on the first screen.
  await page.waitForFunction(() => !document.getElementById('prerender'));
  assert.match(await page.locator('[data-testid=headline]').textContent(), /Because the GPUs wait.*\d+×.*\d+×/s);
  const curve = page.locator('.masthead .first-curve svg');
  assert.ok(await curve.isVisible());
  const box = await curve.boundingBox();
  assert.ok(box.y + box.height <= 800, `the live curve ends at ${box.y + box.height}, below the first screen`);
  assert.equal(await page.locator('h1').count(), 1);
  assert.equal(await page.locator('svg title#fc-title').count(), 1);
  assert.equal(await page.getByText('Loading the interactive explorer').count(), 0);
  await page.screenshot({ path: path.join(shots, 'first-screen-live-1280.png') });
  // The validation page is about the rows, not this answer.
  await page.locator('[data-testid=open-validation]').click();
  await page.waitForFunction(() => location.hash.includes('page=validation'));
  assert.equal(await curve.isVisible(), false);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('glossary popovers stay inside the viewport on a desktop and a phone', async () => {
  for (const [name, opts] of [['1280', {}], ['390', phone]]) {
    const { page, context } = await openPage(env, '', opts);
    const terms = page.locator('.explainer .term-button, .results .term-button');
    const n = await terms.count();
    assert.ok(n >= 18, `${n} terms`);
    // The results' own labels open their glossary entries too.
    for (const t of ['MFU', 'algbw', 'busbw', 'LL / LL128 / Simple']) {
      assert.equal(await page.locator('.results .term-button', { hasText: t }).count(), 1, `${t} in the results`);
    }
    for (let i = 0; i < n; i++) {
      await terms.nth(i).scrollIntoViewIfNeeded();
      await terms.nth(i).click();
      const tip = page.locator('.popover:not([hidden])');
      await tip.waitFor();
      await page.waitForTimeout(50);
      const r = await tip.boundingBox();
      const vw = await page.evaluate(() => document.documentElement.clientWidth);
      assert.ok(r.x >= 0 && r.x + r.width <= vw, `${name}: term ${i} popover spans ${r.x}–${r.x + r.width} of ${vw}`);
      if (i === n - 1 || i === 3 || i === n - 5) await page.screenshot({ path: path.join(shots, `glossary-popover-${name}-${i}.png`) });
      await page.keyboard.press('Escape');
    }
    // Every term the results use has an entry.
    const glossary = await page.locator('.glossary dt').allTextContents();
    for (const t of ['MFU', 'tokens/s', 'algbw', 'busbw', 'LL / LL128 / Simple', 'ZeRO stages 0–3', 'ETTR', 'step time', 'speedup', 'efficiency']) {
      assert.ok(glossary.includes(t), `no glossary entry for ${t}`);
    }
    await context.close();
  }
});

test('a setup that does not fit is greyed and its fix is one click away', async () => {
  for (const [name, opts] of [['1280', { deviceScaleFactor: 2 }], ['390', phone]]) {
    const { page, context, problems } = await openPage(env, 'gpus=8&per_node=8&gpu=h100&model=llama3-70b&zero=0', opts);
    const note = page.locator('[data-testid=infeasible]');
    await note.waitFor();
    assert.match(await note.textContent(), /Does not fit in memory — these numbers are what it would do if it fit/);
    const opacity = await page.evaluate(() => Number(getComputedStyle(document.querySelector('[data-testid=step-time]')).opacity));
    assert.ok(opacity < 0.8, `the headline numbers are greyed (${opacity})`);
    assert.equal(await page.locator('[data-testid=run-note]').textContent(), 'Nothing is timed until the model fits in memory.');
    assert.equal(await page.locator('[data-testid=time-to-train]').textContent(), '—');
    // Nothing timed means nothing timed: no elapsed-time bar under the run's cards, and no
    // "chosen" ring on the time-to-train chart (it was drawn at ~300 days).
    assert.equal(await page.locator('[data-testid=run-bar]').count(), 0, `${name}: the run bar shows timings`);
    assert.equal(await page.locator('[data-testid=chart-time-to-train]').getAttribute('data-chosen'), null,
      `${name}: the time-to-train chart marks a count that does not fit`);
    const fix = page.locator('[data-testid=apply-fix]');
    assert.match(await fix.textContent(), /^Apply: /);
    await page.locator('#results').scrollIntoViewIfNeeded();
    await page.locator('#results').screenshot({ path: path.join(shots, `infeasible-${name}.png`) });
    await fix.click();
    await note.waitFor({ state: 'detached' });
    assert.match(await page.locator('[data-testid=memory]').textContent(), /— fits/);
    await page.waitForFunction(() => location.hash.includes('tp=8'));
    // Fitted, the run is timed again: its bar and its ring are back.
    await page.locator('[data-testid=run-bar]').waitFor({ state: 'attached' });
    const gpus = await page.locator('[data-testid=gpus]').inputValue();
    assert.equal(await page.locator('[data-testid=chart-time-to-train]').getAttribute('data-chosen'), gpus);
    // The fix is a discrete action: Back returns to the setup that did not fit.
    await page.goBack();
    await note.waitFor();
    assert.deepEqual(problems.console, []);
    await context.close();
  }
});

test('a bad link\'s problems appear at the top, each once', async () => {
  for (const [name, opts] of [['1280', {}], ['390', phone]]) {
    const { page, context, problems } = await openPage(env, 'gpus=64&gpu=tpu9000&nics=99&gpu=a100&gpu=h100&theme=sepia', opts);
    const banner = page.locator('[data-testid=error]');
    await banner.waitFor();
    const box = await banner.boundingBox();
    assert.ok(box.y < (name === '390' ? 520 : 320), `${name}: the message is near the top (y = ${box.y})`);
    const text = await banner.textContent();
    assert.match(text, /gpu/);
    assert.match(text, /nics/);
    assert.match(text, /theme: 'sepia' is not a theme/);
    assert.equal((text.match(/given twice/g) || []).length, 1, 'the repeated message is shown once');
    assert.match(await page.locator('[data-testid=error-repeat]').first().textContent(), /×2/);
    await page.screenshot({ path: path.join(shots, `error-banner-${name}.png`) });
    assert.deepEqual(problems.console, []);
    await context.close();
  }
});

test('Back undoes a preset, a lesson step, "show me" and a section jump; a slider drag adds nothing', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=64&per_node=8&gpu=a100&inter=tcp100&model=llama3-8b');
  await page.waitForTimeout(300);
  const first = await page.evaluate(() => location.hash);
  const length0 = await page.evaluate(() => history.length);
  // Slider drags replace the entry.
  await page.locator('[data-testid=gpus-slider]').focus();
  for (let i = 0; i < 3; i++) { await page.keyboard.press('ArrowRight'); await page.waitForTimeout(40); }
  await page.waitForFunction(() => location.hash.includes('gpus=512'));
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => history.length), length0, 'a slider drag adds no entry');
  const dragged = await page.evaluate(() => location.hash);
  // A preset adds one.
  await page.locator('[data-testid=preset]').selectOption({ index: 3 });
  await page.waitForFunction((h) => location.hash !== h, dragged);
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => history.length), length0 + 1);
  // "Show me" adds one.
  const preset = await page.evaluate(() => location.hash);
  await page.locator('.show-me').first().click();
  await page.waitForFunction((h) => location.hash !== h, preset);
  // A lesson step adds one.
  const shown = await page.evaluate(() => location.hash);
  await page.locator('[data-testid=lesson-start-leaving-the-box]').click();
  await page.waitForFunction(() => location.hash.includes('lesson=leaving-the-box'));
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => history.length), length0 + 3);
  // A section jump adds one, with the same address; Back scrolls back.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.locator('nav.jump a', { hasText: 'Animation' }).click();
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => history.length), length0 + 4);
  assert.ok(await page.evaluate(() => window.scrollY) > 300);
  await page.goBack();
  await page.waitForFunction(() => window.scrollY < 50);
  // Back through the lesson, "show me", the preset: each view returns.
  await page.goBack();
  await page.waitForFunction((h) => location.hash === h, shown);
  await page.locator('[data-testid=lesson-start-leaving-the-box]').waitFor();
  await page.goBack();
  await page.waitForFunction((h) => location.hash === h, preset);
  await page.waitForFunction(() => document.querySelector('[data-testid=model]').value === 'llama3-70b');
  await page.goBack();
  await page.waitForFunction((h) => location.hash === h, dragged);
  assert.equal(await page.locator('[data-testid=gpus]').inputValue(), '512');
  assert.notEqual(dragged, first);
  assert.deepEqual(problems.console, []);
  await context.close();
});

// Review 11: a select change or a typed GPU count replaced the entry, so Back left the app.
test('each select change and each GPU count entered is one Back entry; Back and Forward restore each view exactly', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=64&gpu=h100&inter=ib-ndr');
  await page.waitForTimeout(300);
  const length0 = await page.evaluate(() => history.length);
  const views = [await page.evaluate(() => location.hash)];
  const shown = () => page.evaluate(() => ({
    hash: location.hash,
    gpu: document.querySelector('[data-testid=gpu]').value,
    inter: document.querySelector('[data-testid=inter]').value,
    gpus: document.querySelector('[data-testid=gpus]').value,
    step: document.querySelector('[data-testid=step-time]').textContent,
  }));
  const states = [await shown()];
  const changed = async () => {
    await page.waitForFunction((h) => location.hash !== h, views.at(-1));
    await page.waitForTimeout(250);
    views.push(await page.evaluate(() => location.hash));
    states.push(await shown());
  };
  await page.locator('[data-testid=gpu]').selectOption('a100');
  await changed();
  await page.locator('[data-testid=inter]').selectOption('roce200');
  await changed();
  await page.locator('[data-testid=gpus]').fill('256');
  await page.locator('[data-testid=gpus]').press('Enter');
  await changed();
  assert.equal(await page.evaluate(() => history.length), length0 + 3, 'three changes, three entries');
  // Choosing what is already chosen adds nothing.
  await page.locator('[data-testid=gpu]').selectOption('a100');
  await page.waitForTimeout(250);
  assert.equal(await page.evaluate(() => history.length), length0 + 3);
  // Slider moves still replace the entry they are on.
  await page.locator('[data-testid=gpus-slider]').focus();
  await page.keyboard.press('ArrowRight');
  await changed();
  assert.equal(await page.evaluate(() => history.length), length0 + 3, 'a slider move adds no entry');
  assert.match(states.at(-1).hash, /gpus=512/);
  // Back: each earlier view, controls and numbers with it; the first is still the app's.
  for (const k of [2, 1, 0]) {
    await page.goBack();
    await page.waitForFunction((h) => location.hash === h, views[k]);
    await page.waitForFunction((want) => document.querySelector('[data-testid=gpus]').value === want.gpus
      && document.querySelector('[data-testid=step-time]').textContent === want.step, states[k]);
    assert.deepEqual(await shown(), states[k], `Back to view ${k}`);
  }
  // Forward: the same views again.
  for (const k of [1, 2]) {
    await page.goForward();
    await page.waitForFunction((h) => location.hash === h, views[k]);
    await page.waitForFunction((want) => document.querySelector('[data-testid=step-time]').textContent === want.step, states[k]);
    assert.deepEqual(await shown(), states[k], `Forward to view ${k}`);
  }
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('an embed never adds a Back-button entry', async () => {
  const { page, context, problems } = await openPage(env, 'embed=calculator&gpus=64&gpu=h100&inter=ib-ndr');
  await page.waitForTimeout(300);
  const length0 = await page.evaluate(() => history.length);
  await page.locator('[data-testid=gpus-slider]').focus();
  await page.keyboard.press('ArrowRight');
  await page.locator('[data-testid=model]').selectOption('gpt2-xl');
  await page.waitForFunction(() => location.hash.includes('model=gpt2-xl'));
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => history.length), length0);
  assert.deepEqual(problems.console, []);
  await context.close();
});
