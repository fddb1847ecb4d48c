// Embedding for docs-site maintainers (issue 15, point 10): theme= in the hash and embed.js
// following the host's theme toggle without reloading, heading=0, a narrow column, a misspelt
// widget name, and snippets that are full-width with allow="fullscreen".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { start, openPage, shots, axe } from './harness.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

// The colour a reader sees behind the text: the body's, else the root's.
const bg = (frameOrPage) => frameOrPage.evaluate(() => {
  const b = getComputedStyle(document.body).backgroundColor;
  return b && b !== 'rgba(0, 0, 0, 0)' ? b : getComputedStyle(document.documentElement).backgroundColor;
});
const isDark = (rgb) => { const [r, g, b] = rgb.match(/\d+/g).map(Number); return r + g + b < 200; };

async function host(viewport, deviceScaleFactor = 1) {
  const context = await env.browser.newContext({ viewport, deviceScaleFactor });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(env.base + 'public/embed.html');
  await page.waitForFunction(() => new Set(window.received.map((m) => m.widget)).size >= 5, null, { timeout: 20000 });
  return { page, context, errors };
}

test('every snippet on embed.html is full-width with allow="fullscreen"; so is every live widget', async () => {
  const { page, context, errors } = await host({ width: 1280, height: 800 }, 2);
  const snippets = await page.locator('pre code').allTextContents();
  const frames = snippets.filter((s) => s.includes('<iframe'));
  assert.ok(frames.length >= 4, `iframe snippets: ${frames.length}`);
  for (const s of frames) {
    assert.match(s, /allow="fullscreen"/, s);
    assert.match(s, /width: ?(100%|'100%')/, s);
  }
  for (const recipe of ['Plain HTML', 'mdBook', 'Docusaurus', 'MkDocs', 'embed.js']) {
    assert.equal(await page.locator('h2', { hasText: recipe }).count(), 1, `no ${recipe} recipe`);
  }
  // The live widgets, including the one embed.js made from a placeholder.
  const live = await page.evaluate(() => [...document.querySelectorAll('iframe')].map((f) => ({
    id: f.id, allow: f.getAttribute('allow'), w: f.getBoundingClientRect().width,
    parent: (() => { const p = f.parentElement; const cs = getComputedStyle(p); return p.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight); })(),
  })));
  assert.ok(live.some((f) => f.id === 'demo-host'), 'embed.js replaced the placeholder');
  for (const f of live) {
    assert.equal(f.allow, 'fullscreen', f.id);
    assert.ok(Math.abs(f.w - f.parent) <= 1, `${f.id} is ${f.w} of ${f.parent}`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('embed.js keeps a data-theme="host" widget in the host page\'s theme, without reloading it', async () => {
  for (const [name, viewport, dpr] of [['1280', { width: 1280, height: 800 }, 2], ['390', { width: 390, height: 844 }, 2]]) {
    const { page, context, errors } = await host(viewport, dpr);
    // embed.js makes lazy frames: this one loads when scrolled to.
    await page.locator('#demo-host').scrollIntoViewIfNeeded();
    await page.frameLocator('#demo-host').locator('[data-testid=app]').waitFor();
    const inner = page.frame({ url: /embed=timeline&theme=|embed=timeline&heading=0/ }) || page.frames().find((f) => f.url().includes('embed=timeline') && f.url().includes('heading=0'));
    assert.ok(inner, 'the host-themed frame');
    await inner.evaluate(() => { window.__notReloaded = true; });
    assert.equal(isDark(await bg(inner)), false);
    // heading=0: the widget's own heading is out of sight but still there for screen readers.
    const h = await inner.evaluate(() => { const e = document.querySelector('.embed h2'); const r = e.getBoundingClientRect(); return { w: r.width, text: e.textContent }; });
    assert.ok(h.w <= 1 && h.text.length > 5, JSON.stringify(h));
    await page.locator('#host-theme').click();
    await inner.waitForFunction(() => document.documentElement.getAttribute('data-theme') === 'dark');
    assert.ok(isDark(await bg(inner)), 'the widget turned dark');
    assert.equal(await inner.evaluate(() => window.__notReloaded), true, 'no reload');
    assert.match(inner.url(), /theme=dark/);
    await page.locator('#demo-host').scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, `embed-host-dark-${name}.png`) });
    await page.locator('#host-theme').click();
    await inner.waitForFunction(() => document.documentElement.getAttribute('data-theme') === 'light');
    assert.equal(isDark(await bg(inner)), false);
    // The narrow column: nothing in the widget scrolls sideways.
    await page.locator('#demo-narrow').scrollIntoViewIfNeeded();
    const narrow = page.frames().find((f) => f.url().includes('embed=calculator&heading=0'));
    await narrow.waitForSelector('[data-testid=step-time]');
    const over = await narrow.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(over <= 1, `${name}: the 360 px widget scrolls sideways by ${over}px`);
    // Its link sets parallelism the four controls do not show: the widget says so.
    assert.match(await narrow.locator('[data-testid=also-set]').textContent(), /tp=8 · pp=4 · zero=1/);
    await page.locator('#demo-narrow').scrollIntoViewIfNeeded();
    await page.waitForTimeout(200);
    await page.screenshot({ path: path.join(shots, `embed-narrow-${name}.png`) });
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('theme= in the hash forces light or dark, and follows a change of the hash', async () => {
  const { page, context, problems } = await openPage(env, 'embed=calculator&theme=dark&gpus=64&gpu=h100&inter=ib-ndr', { colorScheme: 'light', deviceScaleFactor: 2 });
  await page.waitForFunction(() => document.documentElement.getAttribute('data-theme') === 'dark');
  assert.ok(isDark(await bg(page)));
  await page.screenshot({ path: path.join(shots, 'embed-theme-dark.png') });
  await page.evaluate(() => { location.hash = location.hash.replace('theme=dark', 'theme=light'); });
  await page.waitForFunction(() => document.documentElement.getAttribute('data-theme') === 'light');
  assert.equal(isDark(await bg(page)), false);
  assert.deepEqual(problems.console, []);
  await context.close();
  // With a dark system and theme=light, the page is light; theme=auto (default) follows the system.
  const light = await openPage(env, 'embed=speedup&theme=light', { colorScheme: 'dark' });
  await light.page.waitForTimeout(200);
  assert.equal(isDark(await bg(light.page)), false);
  await light.context.close();
  const auto = await openPage(env, 'embed=speedup', { colorScheme: 'dark' });
  await auto.page.waitForTimeout(200);
  assert.ok(isDark(await bg(auto.page)));
  await auto.context.close();
});

test('a misspelt widget name is a named message with a suggestion', async () => {
  for (const [name, opts] of [['1280', {}], ['390', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 }]]) {
    const { page, context, problems } = await openPage(env, 'embed=spedup&gpus=64', opts);
    const msg = await page.locator('[data-testid=embed-error]').textContent();
    assert.match(msg, /no widget 'spedup'/);
    assert.match(msg, /Did you mean 'speedup'\?/);
    assert.match(msg, /calculator, speedup, animation, timeline, lesson/);
    await page.screenshot({ path: path.join(shots, `embed-typo-${name}.png`) });
    assert.deepEqual(problems.console, []);
    await context.close();
  }
});

test('axe-core: embeds in dark and light themes, with heading=0', async () => {
  for (const hash of ['embed=calculator&theme=dark&gpus=64', 'embed=lesson&theme=light&heading=0&lesson=leaving-the-box', 'embed=speedup&heading=0&theme=dark']) {
    const { page, context } = await openPage(env, hash);
    await page.waitForTimeout(400);
    const bad = await axe(page);
    assert.deepEqual(bad, [], `${hash}: ${JSON.stringify(bad, null, 1)}`);
    await context.close();
  }
});

test('the embedded validation widget is a summary and a chart; its rows open on request', async () => {
  const { page, context, problems } = await openPage(env, 'embed=validation', { viewport: { width: 700, height: 450 } });
  await page.waitForSelector('[data-testid=chart-validation]');
  const height = () => page.evaluate(() => document.documentElement.scrollHeight);
  const folded = await height();
  // Every row open made the iframe 30,000 px tall at this width.
  assert.ok(folded < 4000, `embedded validation is ${folded} px tall`);
  await page.screenshot({ path: path.join(shots, 'embed-validation-700.png'), fullPage: true });
  await page.locator('[data-testid=validation-rows] > summary').click();
  assert.ok(await page.locator('[data-testid=validation-table] tbody tr').first().isVisible());
  assert.ok(await height() > 3 * folded);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('embed.js names every widget and starts each near its height', async () => {
  const { readFileSync } = await import('node:fs');
  const js = readFileSync(path.resolve('public/embed.js'), 'utf8');
  const { page, context } = await openPage(env, 'embed=nope');
  const accepted = (await page.locator('[data-testid=embed-error]').textContent()).match(/Accepted: (.*)\./)[1]
    .split(',').map((w) => w.trim()).filter(Boolean);
  await context.close();
  assert.ok(accepted.length >= 8, accepted.join());
  const heights = Function(`return ${js.match(/var HEIGHTS = (\{[^}]*\})/)[1]}`)();
  const comment = js.slice(0, js.indexOf('*/'));
  for (const w of accepted) {
    assert.ok(heights[w] > 0, `embed.js has no height for ${w}`);
    assert.ok(comment.includes(w), `embed.js's comment does not name ${w}`);
  }
  // The heights are near what each new widget posts in a 700 px column.
  const far = [];
  for (const w of ['validation', 'topology', 'time-to-train']) {
    const frame = await openPage(env, `embed=${w}&gpus=512&gpu=h100&inter=roce400&oversub=3&model=llama3-8b`, { viewport: { width: 700, height: 900 } });
    await frame.page.waitForTimeout(800);
    const h = await frame.page.evaluate(() => Math.ceil(document.querySelector('[data-testid=app]').getBoundingClientRect().height));
    if (Math.abs(h - heights[w]) / h > 0.25) far.push(`${w}: embed.js starts at ${heights[w]} px, the widget is ${h} px`);
    await frame.context.close();
  }
  assert.deepEqual(far, []);
});

test('an embedded calculator whose model does not fit times nothing', async () => {
  const { page, context, problems } = await openPage(env, 'embed=calculator&theme=dark&heading=0&gpus=1024&gpu=h100&inter=tcp100&model=llama3-70b',
    { viewport: { width: 500, height: 900 } });
  await page.locator('[data-testid=run-note]').waitFor();
  assert.equal(await page.locator('[data-testid=run-note]').textContent(), 'Nothing is timed until the model fits in memory.');
  assert.equal(await page.locator('[data-testid=run-bar]').count(), 0);
  await page.screenshot({ path: path.join(shots, 'embed-calculator-unfit-dark-500.png'), fullPage: true });
  assert.deepEqual(problems.console, []);
  await context.close();
});

// Review 11: widgets in a 320 px column.
const narrow = { viewport: { width: 320, height: 900 }, deviceScaleFactor: 2 };

test('at 320 px: the validation scatter keeps its axis name inside, the speedup legend stays compact', async () => {
  const { page, context, problems } = await openPage(env, 'embed=validation', narrow);
  const scatter = page.locator('[data-testid=chart-validation]');
  await scatter.scrollIntoViewIfNeeded();
  await page.waitForTimeout(600);
  // Ink in the bottom band's last three CSS pixels: the x axis's name ran off the canvas there.
  const edge = await page.evaluate(() => {
    const c = document.querySelector('[data-testid=chart-validation]');
    const k = c.width / c.getBoundingClientRect().width;
    const band = Math.round(c.height * 0.12), cols = Math.round(3 * k);
    const d = c.getContext('2d').getImageData(c.width - cols, c.height - band, cols, band).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - d[0]) + Math.abs(d[i + 1] - d[1]) + Math.abs(d[i + 2] - d[2]) > 90) n++;
    return n;
  });
  assert.equal(edge, 0, `${edge} inked pixels at the scatter's right edge, by its axis name`);
  await scatter.screenshot({ path: path.join(shots, 'embed-validation-scatter-320.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
  const speedup = await openPage(env, 'embed=speedup&gpus=64&per_node=8&gpu=h100&inter=tcp100&nics=1&model=llama3-8b&zero=3', narrow);
  const canvas = speedup.page.locator('[data-testid=chart-speedup]');
  await speedup.page.waitForFunction(() => document.querySelector('[data-testid=chart-speedup]').hasAttribute('data-plot-top'));
  // Its five-entry legend, one entry a row, took two fifths of the chart.
  const top = Number(await canvas.getAttribute('data-plot-top'));
  assert.ok(top <= 0.25, `the plot starts ${Math.round(100 * top)} % down the chart`);
  await canvas.screenshot({ path: path.join(shots, 'embed-speedup-legend-320.png') });
  assert.deepEqual(speedup.problems.console, []);
  await speedup.context.close();
});

test('at 320 px the topology widget lists only the keys its controls do not show, in type of 10 px or more', async () => {
  const { page, context, problems } = await openPage(env, 'embed=topology&gpus=256&gpu=h100&inter=roce400&nic_attach=tor&oversub=3&bg_load=0.2', narrow);
  const canvas = page.locator('[data-testid=topology-canvas]');
  await canvas.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('[data-testid=topology-canvas]').hasAttribute('data-least-type'));
  // nic_attach and oversub have their own controls just below: only bg_load is set unseen.
  assert.equal(await page.locator('[data-testid=also-set]').textContent(), 'Also set by this widget: bg_load=0.2');
  const least = Number(await canvas.getAttribute('data-least-type'));
  assert.ok(least >= 10, `a label drawn at ${least} px`);
  await page.screenshot({ path: path.join(shots, 'embed-topology-320.png'), fullPage: true });
  assert.deepEqual(problems.console, []);
  await context.close();
  // The run widget likewise leaves out what its run fields show.
  const run = await openPage(env, 'embed=time-to-train&gpus=1024&gpu=h100&inter=ib-ndr&model=llama3-70b&tp=8&pp=4&price=2&jitter=0.05', narrow);
  assert.equal(await run.page.locator('[data-testid=also-set]').textContent(), 'Also set by this widget: tp=8 · pp=4');
  await run.context.close();
});

test('the timeline widget describes the step with the numbers the result cards give', async () => {
  // Its own sums of the drawn bars said "compute 248.7 ms of a 265.3 ms step, idle 13 %" beside
  // cards of 210.7 ms, 227.3 ms and 7 % (the drawing is the slowest GPU's); ResNet-50's idle
  // share was 54 % beside a card of 57 %.
  for (const scenario of ['gpus=4096&model=gpt2-xl&inter=ib-ndr&jitter=0.05', 'gpus=64&gpu=h100&model=resnet50',
    'gpus=512&per_node=8&gpu=h100&inter=ib-ndr&model=llama3-70b&tp=8&pp=4&zero=1']) {
    const full = await openPage(env, scenario);
    await full.page.locator('[data-testid=step-time]').waitFor();
    const cards = await full.page.evaluate(() => ({
      step: document.querySelector('[data-testid=step-time]').textContent,
      idle: document.querySelector('[data-testid=idle]').textContent.match(/(\d+) %/)[1],
      compute: [...document.querySelectorAll('.results > .legend li')].map((l) => l.textContent).find((t) => t.startsWith('compute')).match(/^compute (.+) \(/)[1],
    }));
    const own = await full.page.locator('[data-testid=timeline-canvas]').getAttribute('aria-label');
    await full.context.close();
    const { page, context, problems } = await openPage(env, `embed=timeline&${scenario}`, { viewport: { width: 800, height: 800 } });
    await page.waitForTimeout(300);
    const label = await page.locator('[data-testid=timeline-canvas]').getAttribute('aria-label');
    const said = `Step timeline: compute ${cards.compute} of a ${cards.step} step; the GPUs are idle ${cards.idle} % of the time.`;
    assert.ok(label.startsWith(said), `${scenario}: "${label}" against the cards' "${said}"`);
    assert.equal(own, label, `${scenario}: the same words in the full page`);
    if (scenario.includes('jitter')) assert.match(label, /Drawn as the slowest GPU runs it: [\d.]+ ms, the others waiting for it\.$/);
    assert.deepEqual(problems.console, []);
    await context.close();
  }
});
