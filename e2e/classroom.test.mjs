// Lessons, embedding, exports and accessibility.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { start, openPage, shots, axe, pngStats } from './harness.mjs';

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
  // Step 2 compares with step 1's cluster: it is pinned as A, and the link carries it.
  await page.waitForSelector('[data-testid=compare-keys]', { state: 'attached' });
  assert.match(await page.locator('[data-testid=compare-keys]').textContent(), /A: .*inter=tcp100.*B: .*inter=ib-ndr/);
  // The link reopens the same step.
  const h = await page.evaluate(() => location.hash.slice(1));
  assert.match(h, /pin=/);
  const again = await openPage(env, h);
  assert.match(await again.page.locator('[data-testid=lesson-text]').textContent(), /InfiniBand/);
  await again.context.close();
  // Leaving the lesson ends the comparison it pinned.
  await page.locator('[data-testid=lesson-exit]').click();
  await page.waitForFunction(() => !location.hash.includes('pin=') && !document.querySelector('[data-testid=compare-keys]'));
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
    const { inked } = await pngStats(page, bytes);
    assert.ok(inked > 2000, `${id} is blank (${inked} inked pixels)`);
  }
  const [json] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=download-json]').click()]);
  const numbers = JSON.parse(readFileSync(await json.path(), 'utf8'));
  assert.ok(numbers.step_ms > 0 && numbers.efficiency > 0);
  await context.close();
});

test('axe-core finds no serious or critical accessibility violation', async () => {
  for (const [hash, opts] of [['', {}], ['gpus=64&gpu=h100&inter=ib-ndr&model=resnet50', { colorScheme: 'dark' }], ['embed=calculator&gpus=16', {}]]) {
    const { page, context } = await openPage(env, hash, opts);
    await page.waitForTimeout(400);
    const bad = await axe(page);
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

// Presenter layout (issue 15, point 2): the lesson and the one chart its step is about fill
// the screen, with projector mode's scaling; the controls, the other panels and the toolbar
// step aside; a visible button (or Escape) leaves it.
const sizes = [
  ['1280', { viewport: { width: 1280, height: 800 } }],
  ['1920', { viewport: { width: 1920, height: 1080 } }],
  ['390', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true }],
];

const visible = (page, sel) => page.locator(sel).first().isVisible();

/** The chart panels a reader can see (their canvases' test ids). */
const shownCharts = (page) => page.evaluate(() => [...document.querySelectorAll('.charts canvas')]
  .filter((c) => c.getBoundingClientRect().width > 0).map((c) => c.dataset.testid));

test('presenter layout: the lesson and its chart fill the screen, at three screen sizes', async () => {
  for (const [name, opts] of sizes) {
    const { page, context, problems } = await openPage(env, 'lesson=leaving-the-box&step=1', opts);
    await page.locator('[data-testid=lesson]').waitFor();
    const buttonBefore = await page.evaluate(() => parseFloat(getComputedStyle(document.querySelector('[data-testid=lesson-next]')).fontSize));
    // The entry sits beside the projector toggle.
    const toggles = await page.locator('.toolbar .toggle').allTextContents();
    assert.deepEqual(toggles.map((t) => t.trim()), ['Projector mode', 'Presenter layout']);
    await page.locator('[data-testid=presenter]').check();
    await page.waitForFunction(() => location.hash.includes('presenter=1') && location.hash.includes('projector=1'));
    await page.locator('[data-testid=presenter-exit]').waitFor();
    assert.ok(await page.locator('[data-testid=presenter-exit]').isVisible());
    for (const sel of ['.toolbar', '.masthead', '[data-testid=gpus-slider]', '.results', '.animation', '.explainer', '.glossary', 'footer']) {
      assert.equal(await visible(page, sel), false, `${name}: ${sel} is visible in the presenter layout`);
    }
    // Masked until the prediction: the chart's place says so.
    assert.ok(await page.locator('.charts [data-testid=mask-note]').isVisible(), `${name}: the chart is masked`);
    await page.screenshot({ path: path.join(shots, `presenter-masked-${name}.png`) });
    await page.locator('[data-testid=lesson-choice]').nth(2).check();
    await page.locator('[data-testid=lesson-reveal]').click();
    await page.locator('[data-testid=lesson-answer]').waitFor();
    await page.waitForTimeout(400);
    assert.deepEqual(await shownCharts(page), ['chart-speedup'], `${name}: one chart, the speedup`);
    // Projector scaling: larger buttons, radios and chart labels.
    const buttonAfter = await page.evaluate(() => parseFloat(getComputedStyle(document.querySelector('[data-testid=lesson-next]')).fontSize));
    assert.ok(buttonAfter >= buttonBefore * 1.15, `${name}: buttons ${buttonBefore} → ${buttonAfter} px`);
    const radio = await page.locator('[data-testid=lesson-choice]').first().boundingBox();
    assert.ok(radio.width >= 18, `${name}: radio ${radio.width} px`);
    const lesson = await page.locator('.lessons').boundingBox();
    const chart = await page.locator('[data-testid=chart-speedup]').boundingBox();
    const vw = opts.viewport.width, vh = opts.viewport.height;
    if (name !== '390') {
      // Side by side, the chart the larger, both within the screen's height.
      assert.ok(chart.x > lesson.x + lesson.width - 1, `${name}: the chart is beside the lesson`);
      assert.ok(chart.width > vw * 0.5, `${name}: the chart is ${chart.width} px of ${vw}`);
      assert.ok(chart.height > vh * 0.5, `${name}: the chart is ${chart.height} px high of ${vh}`);
      assert.ok(chart.y + chart.height <= vh, `${name}: the chart ends below the screen`);
      const scroll = await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
      assert.ok(scroll <= 1, `${name}: the page scrolls by ${scroll}px`);
    } else {
      assert.ok(chart.width > vw * 0.8, `${name}: the chart is ${chart.width} px of ${vw}`);
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${name}: scrolls sideways by ${overflow}px`);
    await page.screenshot({ path: path.join(shots, `presenter-revealed-${name}.png`) });
    // The next step is about the other networks: the chart follows it.
    await page.locator('[data-testid=lesson-next]').click();
    await page.waitForFunction(() => location.hash.includes('step=2'));
    await page.locator('[data-testid=lesson-choice]').first().check();
    await page.locator('[data-testid=lesson-reveal]').click();
    await page.locator('[data-testid=lesson-answer]').waitFor();
    await page.waitForTimeout(400);
    // It compares with step 1's cluster, pinned as A: the cards show A beside B.
    assert.deepEqual(await shownCharts(page), [], `${name}: step 2 shows the cards, no chart`);
    assert.ok(await page.locator('[data-testid=compare-diff]').isVisible(), `${name}: A and B side by side`);
    if (name === '1280') await page.screenshot({ path: path.join(shots, `presenter-step2-${name}.png`) });
    // Leaving: everything is back, and projector mode is off again as it was.
    await page.locator('[data-testid=presenter-exit]').click();
    await page.waitForFunction(() => !location.hash.includes('presenter') && !location.hash.includes('projector'));
    assert.ok(await page.locator('.toolbar').isVisible());
    assert.ok((await shownCharts(page)).length >= 5, `${name}: the charts are back`);
    assert.equal(await page.locator('[data-testid=presenter]').isChecked(), false);
    assert.deepEqual(problems.console, []);
    await context.close();
  }
});

test('presenter layout from a link, the speedup chart by default, Escape leaves it', async () => {
  const { page, context, problems } = await openPage(env, 'presenter=1&gpus=64&gpu=h100&inter=ib-ndr&model=llama3-8b');
  await page.locator('[data-testid=presenter-exit]').waitFor();
  await page.waitForTimeout(400);
  assert.deepEqual(await shownCharts(page), ['chart-speedup']);
  assert.ok(await page.locator('[data-testid=lesson-start-leaving-the-box]').isVisible(), 'the lesson list is the lesson panel');
  assert.equal(await page.locator('[data-testid=presenter]').isVisible(), false, 'the toolbar is hidden');
  await page.screenshot({ path: path.join(shots, 'presenter-no-lesson-1280.png') });
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !location.hash.includes('presenter'));
  assert.ok(await page.locator('.toolbar').isVisible());
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('projector mode: result cards keep their values inside, buttons and radios grow', async () => {
  for (const [name, opts] of [sizes[0], sizes[2]]) {
    const { page, context } = await openPage(env, 'projector=1&lesson=leaving-the-box&step=1&gpus=512&gpu=h100&inter=ib-ndr&model=llama3-70b&tp=8&pp=4', opts);
    await page.locator('[data-testid=lesson-choice]').first().check();
    await page.locator('[data-testid=lesson-reveal]').click();
    await page.locator('[data-testid=lesson-answer]').waitFor();
    await page.waitForTimeout(300);
    const spills = await page.evaluate(() => [...document.querySelectorAll('.figures dd')]
      .filter((d) => d.getBoundingClientRect().width > 0 && d.scrollWidth > d.clientWidth + 1)
      .map((d) => `${d.dataset.testid}: ${d.textContent}`));
    assert.deepEqual(spills, [], `${name}: values overflow their cards`);
    const radio = await page.locator('[data-testid=lesson-choice]').first().boundingBox();
    assert.ok(radio.width >= 18, `${name}: radio ${radio.width} px`);
    await page.locator('.results').screenshot({ path: path.join(shots, `projector-cards-${name}.png`) });
    await context.close();
  }
});

test('axe-core: the presenter layout, masked and revealed', async () => {
  const { page, context } = await openPage(env, 'presenter=1&lesson=leaving-the-box&step=2');
  await page.locator('[data-testid=lesson]').waitFor();
  const check = async (what) => {
    const bad = await axe(page);
    assert.deepEqual(bad, [], `${what}: ${JSON.stringify(bad, null, 1)}`);
  };
  await check('presenter, masked');
  await page.locator('[data-testid=lesson-choice]').first().check();
  await page.locator('[data-testid=lesson-reveal]').click();
  await page.locator('[data-testid=lesson-answer]').waitFor();
  await page.waitForTimeout(300);
  await check('presenter, revealed');
  await context.close();
});

test('the run card and the controls link their terms to the glossary', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=512&per_node=8&gpu=h100&inter=roce400&nics=8&model=llama3-8b&oversub=2&placement=random&routing=ecmp');
  await page.waitForTimeout(300);
  const glossary = Object.fromEntries(await page.evaluate(() => [...document.querySelectorAll('.glossary dl > div')]
    .map((d) => [d.querySelector('dt').textContent, d.querySelector('dd').textContent])));
  for (const t of ['ETTR', 'goodput', 'MTTF', 'straggler', 'checkpoint', 'placement', 'oversubscription', 'ECMP', 'ZeRO stages 0–3']) {
    assert.ok(glossary[t], `no glossary entry for ${t}`);
  }
  const open = async (scope, words, entry) => {
    const button = page.locator(`${scope} .term-button`, { hasText: words }).first();
    await button.scrollIntoViewIfNeeded();
    await button.click();
    const tip = page.locator(`#${await button.getAttribute('aria-controls')}`);
    assert.ok(await tip.isVisible(), `${words}: the definition opens`);
    assert.equal(await tip.textContent(), glossary[entry], `${words} opens the ${entry} entry`);
    await page.keyboard.press('Escape');
  };
  await open('[data-testid=run]', 'ETTR', 'ETTR');
  await open('[data-testid=run]', 'MTTF', 'MTTF');
  await open('[data-testid=run]', 'goodput', 'goodput');
  await open('[data-testid=run]', 'Slowest GPU', 'straggler');
  await open('.controls', 'ZeRO-1, 2, 3', 'ZeRO stages 0–3');
  await open('.controls', 'placement', 'placement');
  await open('.controls', 'oversubscription', 'oversubscription');
  await open('.controls', 'ECMP', 'ECMP');
  await page.locator('.controls .term-button', { hasText: 'ECMP' }).click();
  await page.screenshot({ path: path.join(shots, 'controls-glossary-ecmp.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('projector mode at 1280×720: the animation fits the screen below its controls', async () => {
  const { page, context, problems } = await openPage(env, 'projector=1&gpus=64&per_node=8&gpu=h100&inter=tcp100&nics=1&model=llama3-8b&zero=3',
    { viewport: { width: 1280, height: 720 } });
  await page.locator('[data-testid=anim-canvas]').waitFor();
  await page.evaluate(() => document.querySelector('[data-testid=anim-panel]').scrollIntoView({ block: 'start' }));
  await page.waitForTimeout(400);
  const box = await page.locator('[data-testid=anim-canvas]').boundingBox();
  assert.ok(box.height >= 280, `the canvas is ${box.height} px high`);
  assert.ok(box.y + box.height <= 720, `the canvas ends at ${box.y + box.height} px, below the 720 px screen`);
  await page.screenshot({ path: path.join(shots, 'projector-anim-1280x720.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('presenter: the topology\'s leaf-switch labels keep projector-sized type', async () => {
  for (const [name, viewport] of [['1920', { width: 1920, height: 1080 }], ['1280', { width: 1280, height: 720 }]]) {
    for (const lesson of ['placement', 'routing']) {
      const { page, context, problems } = await openPage(env, `presenter=1&lesson=${lesson}`, { viewport });
      await page.locator('[data-testid=lesson-choice]').first().check();
      await page.locator('[data-testid=lesson-reveal]').click();
      await page.locator('[data-testid=lesson-answer]').waitFor();
      const canvas = page.locator('[data-testid=topology-canvas]');
      await page.waitForFunction(() => document.querySelector('[data-testid=topology-canvas]').hasAttribute('data-least-type'));
      await page.waitForTimeout(300);
      // Projector type is 11 px × 1.4; the labels were squeezed to 7 px to fit their boxes.
      const least = Number(await canvas.getAttribute('data-least-type'));
      assert.ok(least >= 10.5, `${name} ${lesson}: a label drawn at ${least} px`);
      await page.screenshot({ path: path.join(shots, `presenter-${lesson}-${name}.png`) });
      assert.deepEqual(problems.console, []);
      await context.close();
    }
  }
});

test('presenter: a lesson about one collective shows its card and that all-reduce playing, on one screen', async () => {
  for (const [name, viewport] of [['1920', { width: 1920, height: 1080 }], ['1280', { width: 1280, height: 720 }]]) {
    const { page, context, problems } = await openPage(env, 'presenter=1&lesson=latency-bandwidth&step=2', { viewport });
    await page.locator('[data-testid=lesson-choice]').first().check();
    await page.locator('[data-testid=lesson-reveal]').click();
    await page.locator('[data-testid=lesson-answer]').waitFor();
    await page.waitForTimeout(400);
    assert.ok(await visible(page, '[data-testid=collective]'), `${name}: the collective card`);
    assert.ok(await visible(page, '[data-testid=anim-canvas]'), `${name}: the animation (the pane was two lines of text)`);
    assert.equal(await visible(page, '[data-testid=timeline-canvas]'), false, `${name}: the step's timeline stays aside`);
    assert.equal(await visible(page, '[data-testid=chart-speedup]'), false, `${name}: no chart`);
    // Card and animation fit the screen without scrolling the pane.
    const bottom = await page.locator('[data-testid=anim-canvas]').evaluate((c) => c.getBoundingClientRect().bottom);
    assert.ok(bottom <= viewport.height, `${name}: the animation ends at ${bottom}px, below the screen`);
    // It plays (on its own, or at Play): the rounds advance.
    const round = () => page.locator('[data-testid=anim-round]').textContent();
    const before = await round();
    if ((await page.locator('[data-testid=anim-play]').textContent()).trim() === 'Play') {
      await page.locator('[data-testid=anim-play]').click();
    }
    await page.waitForFunction((b) => document.querySelector('[data-testid=anim-round]').textContent !== b, before);
    await page.screenshot({ path: path.join(shots, `presenter-collective-${name}.png`) });
    assert.deepEqual(problems.console, []);
    await context.close();
  }
});

// Presenter at a projector's sizes (review 11): on every lesson step, revealing the answer
// keeps the step's heading, scene, question, choices, answer and Previous/Next/Exit on the
// screen without scrolling; the question sits inside its box; the pane beside it (chart,
// cards, animation) is not cut at the bottom.
const lessonFile = JSON.parse(readFileSync(new URL('../content/lessons.json', import.meta.url), 'utf8'));

/** Where the presenter's step and its pane stand, once revealed. */
const presenterFit = (page) => page.evaluate(() => {
  const pane = document.querySelector('.page.presenter > .lessons');
  const side = document.querySelector('.page.presenter > .layout');
  const paneBox = pane.getBoundingClientRect();
  const out = [];
  const seen = (sel, what) => {
    const all = [...document.querySelectorAll(sel)].filter((e) => e.getBoundingClientRect().width > 0);
    if (!all.length) out.push(`${what} is not shown`);
    for (const e of all) {
      const r = e.getBoundingClientRect();
      if (r.top < paneBox.top - 1 || r.bottom > Math.min(paneBox.bottom, innerHeight) + 1) {
        out.push(`${what} at ${Math.round(r.top)}–${Math.round(r.bottom)} px, the pane shows ${Math.round(paneBox.top)}–${Math.round(paneBox.bottom)}`);
      }
    }
  };
  seen('.lesson h3', 'the heading');
  seen('[data-testid=lesson-text]', 'the scene');
  seen('.predict legend', 'the question');
  seen('[data-testid=lesson-choice]', 'a choice');
  seen('[data-testid=lesson-answer]', 'the answer');
  seen('.lesson-nav button:not([data-testid=lesson-handout])', 'a navigation button');
  // The question inside its box: the border used to run through a question of two lines.
  const legend = document.querySelector('.predict legend').getBoundingClientRect();
  const box = document.querySelector('.predict').getBoundingClientRect();
  // A legend on the border starts where the box does, the border drawn through its middle.
  if (legend.top < box.top + 1) out.push('the question sits on its box\'s border, which runs through its words');
  return {
    problems: out,
    paneScroll: pane.scrollTop,
    sideCut: side.scrollHeight - side.clientHeight,
    pageScroll: document.documentElement.scrollHeight - innerHeight,
    root: parseFloat(getComputedStyle(document.documentElement).fontSize),
  };
});

test('presenter at 1280×720 and 1920×1080: every revealed step fits its pane without scrolling', async () => {
  for (const [name, viewport] of [['1280x720', { width: 1280, height: 720 }], ['1920x1080', { width: 1920, height: 1080 }]]) {
    const bad = [];
    for (const lesson of lessonFile.lessons) {
      const { page, context, problems } = await openPage(env, `presenter=1&lesson=${lesson.id}&step=1`, { viewport });
      await page.locator('[data-testid=lesson]').waitFor();
      for (let k = 1; k <= lesson.steps.length; k++) {
        await page.waitForFunction((k) => location.hash.includes(`step=${k}&`) && !document.querySelector('[data-testid=lesson-answer]'), k);
        // Before the reveal the way on is in sight too.
        const reveal = await page.locator('[data-testid=lesson-reveal]').boundingBox();
        if (reveal.y + reveal.height > viewport.height) bad.push(`${name} ${lesson.id} ${k}: the reveal button is below the screen`);
        await page.locator('[data-testid=lesson-choice]').first().check();
        await page.locator('[data-testid=lesson-reveal]').click();
        await page.locator('[data-testid=lesson-answer]').waitFor();
        await page.waitForTimeout(400);
        const fit = await presenterFit(page);
        const where = `${name} ${lesson.id} step ${k}`;
        bad.push(...fit.problems.map((p) => `${where}: ${p}`));
        if (fit.paneScroll > 0) bad.push(`${where}: the reveal scrolled the lesson by ${fit.paneScroll} px`);
        if (fit.sideCut > 1) bad.push(`${where}: the ${lesson.steps[k - 1].chart || 'speedup'} pane is cut by ${fit.sideCut} px`);
        if (fit.pageScroll > 1) bad.push(`${where}: the page scrolls by ${fit.pageScroll} px`);
        if (lesson.id === 'leaving-the-box' && k === 2 || lesson.id === 'latency-bandwidth' && k === 2 || lesson.id === 'one-box') {
          await page.screenshot({ path: path.join(shots, `presenter-fit-${name}-${lesson.id}-${k}.png`) });
        }
        await page.locator('[data-testid=lesson-next]').click();
      }
      assert.deepEqual(problems.console, [], `${name} ${lesson.id}`);
      await context.close();
    }
    assert.deepEqual(bad, []);
  }
});

test('presenter type grows with the screen: larger at 1080p than at 720p, and the animation\'s labels at least 13 px', async () => {
  const roots = {};
  const leasts = {};
  for (const [name, viewport] of [['1280x720', { width: 1280, height: 720 }], ['1920x1080', { width: 1920, height: 1080 }]]) {
    const { page, context, problems } = await openPage(env, 'presenter=1&lesson=latency-bandwidth&step=2', { viewport });
    await page.locator('[data-testid=lesson-choice]').first().check();
    await page.locator('[data-testid=lesson-reveal]').click();
    await page.locator('[data-testid=lesson-answer]').waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid=anim-canvas]').hasAttribute('data-least-type'), null, { timeout: 5000 })
      .catch(() => {});
    await page.waitForTimeout(500);
    roots[name] = (await presenterFit(page)).root;
    // The GPUs' numbers and the "Server n" labels were drawn at 9 px at 1280.
    const least = Number(await page.locator('[data-testid=anim-canvas]').getAttribute('data-least-type') ?? 0);
    assert.ok(least >= 13, `${name}: the animation draws type at ${least || 'an unreported size of'} px`);
    leasts[name] = least;
    // The lesson's own words read at the room's distance.
    const text = await page.evaluate(() => parseFloat(getComputedStyle(document.querySelector('[data-testid=lesson-text]')).fontSize));
    assert.ok(text >= viewport.height / 45, `${name}: the scene is set at ${text} px on a ${viewport.height} px screen`);
    await page.screenshot({ path: path.join(shots, `presenter-type-${name}.png`) });
    assert.deepEqual(problems.console, []);
    await context.close();
  }
  // It was 20.8 px at both sizes: the 1080p screen showed the 720p layout's type in its top half.
  assert.ok(roots['1920x1080'] >= 1.35 * roots['1280x720'], JSON.stringify(roots));
  // The canvas grows with the page's type (27 px against 20.8 at 1080p: 1.3 times).
  assert.ok(leasts['1920x1080'] >= 1.25 * leasts['1280x720'], JSON.stringify(leasts));
});
