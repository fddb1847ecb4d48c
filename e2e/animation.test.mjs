// The all-reduce animation: play, pause, step; rounds advance and pixels change; reduced motion
// means no autoplay; large clusters play in aggregate; the step timeline draws; full screen of
// the whole panel; pause after each round and the speed in the link; several servers with the
// network between them; the timeline's bars as a data table.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { start, openPage, inkedPixels, shots, axe } from './harness.mjs';

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

test('two servers of H100 all-reduce 1 GiB by NVLSTree, played with servers as units', async () => {
  // A switch in each server and a tree between them: the GPU-by-GPU drawing has one switch.
  const { page, context, problems } = await openPage(env, 'gpus=16&per_node=8&gpu=h100&inter=ib-ndr&model=llama3-8b&zero=3');
  await page.locator('[data-testid=anim-canvas]').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => /NVSwitch/.test(document.querySelector('[data-testid=anim-caption]')?.textContent || ''));
  assert.match(await page.locator('[data-testid=anim-caption]').textContent(), /2 nodes of 8 GPUs, shown as units/);
  const a = await canvasData(page, 'anim-canvas');
  await page.waitForTimeout(500);
  assert.notEqual(await canvasData(page, 'anim-canvas'), a, 'it plays');
  await page.locator('.animation').screenshot({ path: path.join(shots, 'animation-nvlstree.png') });
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

const TWO_SERVERS = 'gpus=16&per_node=8&gpu=h100&inter=ib-ndr&algo=ring&model=llama3-8b&zero=3';
const EIGHT_SERVERS = 'gpus=32&per_node=4&gpu=h100&inter=ib-ndr&algo=ring&model=llama3-8b&zero=3';

/** Pixels of the animation canvas in the network's vermillion (213, 94, 0), give or take. */
const networkPixels = (page) => page.evaluate(() => {
  const c = document.querySelector('[data-testid=anim-canvas]');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - 213) < 20 && Math.abs(d[i + 1] - 94) < 25 && d[i + 2] < 40) n++;
  }
  return n;
});

/** The element's box lies inside the viewport. */
async function onScreen(page, testid) {
  const box = await page.locator(`[data-testid=${testid}]`).boundingBox();
  const vp = page.viewportSize();
  return box && box.width > 0 && box.x >= 0 && box.y >= 0 && box.x + box.width <= vp.width + 1 && box.y + box.height <= vp.height + 1;
}

for (const [width, height] of [[1280, 800], [1920, 1080]]) {
  test(`full screen at ${width}×${height} shows the round counter, caption and controls, large`, async () => {
    const { page, context, problems } = await openPage(env, TWO_SERVERS, { viewport: { width, height } });
    await page.locator('[data-testid=anim-canvas]').scrollIntoViewIfNeeded();
    await page.locator('[data-testid=anim-fullscreen]').click();
    await page.waitForFunction(() => document.fullscreenElement?.dataset.testid === 'anim-panel');
    // The button follows the fullscreenchange event, which comes after the switch.
    await page.waitForFunction(() => document.querySelector('[data-testid=anim-fullscreen]').textContent === 'Exit full screen');
    assert.equal(await page.locator('[data-testid=anim-fullscreen]').getAttribute('aria-pressed'), 'true');
    await page.waitForTimeout(600);
    for (const id of ['anim-round', 'anim-caption', 'anim-network', 'anim-play', 'anim-back', 'anim-step', 'anim-speed', 'anim-pause-rounds', 'anim-fullscreen', 'anim-canvas']) {
      assert.ok(await onScreen(page, id), `${id} is on screen`);
    }
    const size = (id) => page.evaluate((id) => parseFloat(getComputedStyle(document.querySelector(`[data-testid=${id}]`)).fontSize), id);
    assert.ok(await size('anim-round') >= 24, `round counter ${await size('anim-round')} px`);
    assert.ok(await size('anim-caption') >= 20, `caption ${await size('anim-caption')} px`);
    assert.ok(await size('anim-play') >= 18, `buttons ${await size('anim-play')} px`);
    const canvas = await page.locator('[data-testid=anim-canvas]').boundingBox();
    assert.ok(canvas.height >= height * 0.45 && canvas.width >= width * 0.9, `canvas ${canvas.width}×${canvas.height}`);
    assert.match(await page.locator('[data-testid=anim-caption]').textContent(), /^Round \d+ of 30: /);
    await page.locator('[data-testid=anim-play]').click(); // pause, for a still
    await page.screenshot({ path: path.join(shots, `animation-fullscreen-${width}.png`) });
    await page.locator('[data-testid=anim-fullscreen]').click();
    await page.waitForFunction(() => document.fullscreenElement === null);
    await page.waitForFunction(() => document.querySelector('[data-testid=anim-fullscreen]').textContent === 'Full screen');
    assert.deepEqual(problems.console, []);
    await context.close();
  });
}

test('pause after each round stops at a round boundary; speed and pause live in the link', async () => {
  const { page, context, problems } = await openPage(env, `${TWO_SERVERS}&speed=0.5`);
  // The link's speed is the select's.
  assert.equal(await page.locator('[data-testid=anim-speed]').inputValue(), '0.5');
  await page.locator('[data-testid=anim-canvas]').scrollIntoViewIfNeeded();
  await page.locator('[data-testid=anim-pause-rounds]').check();
  await page.waitForFunction(() => location.hash.includes('pause=round'));
  assert.match(await page.evaluate(() => location.hash), /speed=0\.5/);
  // Playback stops by itself at the end of a round: Play is offered, the round stays.
  await page.waitForFunction(() => document.querySelector('[data-testid=anim-panel]').dataset.held === 'round-end', null, { timeout: 10000 });
  assert.equal(await page.locator('[data-testid=anim-play]').textContent(), 'Play');
  const held = await round(page);
  const n = Number(held.match(/Round (\d+)/)[1]);
  assert.ok(n < 30, held);
  await page.waitForTimeout(700);
  assert.equal(await round(page), held, 'stopped: the round stays');
  await page.locator('.animation').screenshot({ path: path.join(shots, 'animation-pause-round.png') });
  // Play goes on with the next round, and stops at its end.
  await page.locator('[data-testid=anim-play]').click();
  await page.waitForFunction((want) => {
    const panel = document.querySelector('[data-testid=anim-panel]');
    return panel.dataset.held === 'round-end' && document.querySelector('[data-testid=anim-round]').textContent === want;
  }, `Round ${n + 1} of 30`, { timeout: 10000 });
  assert.match(await page.locator('[data-testid=anim-caption]').textContent(), new RegExp(`^Round ${n + 1} of 30: `));
  // Another speed goes into the link too.
  await page.locator('[data-testid=anim-speed]').selectOption('2');
  await page.waitForFunction(() => /speed=2(&|$)/.test(location.hash));
  // A link with both opens with both set.
  const again = await openPage(env, `${TWO_SERVERS}&speed=2&pause=round`);
  assert.equal(await again.page.locator('[data-testid=anim-speed]').inputValue(), '2');
  assert.ok(await again.page.locator('[data-testid=anim-pause-rounds]').isChecked());
  assert.deepEqual(again.problems.console, []);
  await again.context.close();
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('several servers: labelled boxes, and packets crossing the network between them', async () => {
  for (const [hash, viewport, servers, name] of [
    [TWO_SERVERS, { width: 1280, height: 800 }, 2, 'animation-2-servers-1280.png'],
    [TWO_SERVERS, { width: 390, height: 844 }, 2, 'animation-2-servers-390.png'],
    [EIGHT_SERVERS, { width: 1280, height: 800 }, 8, 'animation-8-servers-1280.png'],
    [EIGHT_SERVERS, { width: 390, height: 844 }, 8, 'animation-8-servers-390.png'],
    [`${EIGHT_SERVERS}&projector=1`, { width: 1280, height: 800 }, 8, 'animation-8-servers-projector.png'],
  ]) {
    const { page, context, problems } = await openPage(env, hash, { viewport });
    const canvas = page.locator('[data-testid=anim-canvas]');
    await canvas.scrollIntoViewIfNeeded();
    const want = Array.from({ length: servers }, (_, i) => `Server ${i + 1}`).join(', ');
    await page.waitForFunction((want) => document.querySelector('[data-testid=anim-canvas]').dataset.servers === want, want);
    assert.match(await canvas.getAttribute('aria-label'), new RegExp(`${servers} boxes, Server 1 to Server ${servers}, joined by a network switch`));
    // Mid-round, a ring over servers always has packets on the network: stop somewhere inside a round.
    await page.waitForTimeout(900);
    await page.locator('[data-testid=anim-play]').click();
    await page.waitForTimeout(100);
    const says = await page.locator('[data-testid=anim-network]').textContent();
    const size = '\\d+(\\.\\d)? [KMG]?i?B';
    const crossing = servers === 2
      ? `Server 1 → Server 2, Server 2 → Server 1, ${size} each\\.`
      : `every server sends ${size} to the next, Server 1 → 2 → 3 → 4 → 5 → 6 → 7 → 8 → 1\\.`;
    assert.match(says, new RegExp(`^Round \\d+ over the network: ${crossing}$`), says);
    assert.ok(await networkPixels(page) > 300, `network drawn in vermillion: ${await networkPixels(page)}`);
    // The page does not scroll sideways on a phone.
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1));
    await page.locator('[data-testid=anim-panel]').screenshot({ path: path.join(shots, name) });
    assert.deepEqual(problems.console, [], hash);
    await context.close();
  }
});

test('axe-core finds nothing serious in the animation panel with its new controls', async () => {
  for (const [hash, opts] of [[`${TWO_SERVERS}&pause=round&speed=0.5`, {}], [EIGHT_SERVERS, { colorScheme: 'dark', viewport: { width: 390, height: 844 } }]]) {
    const { page, context } = await openPage(env, hash, opts);
    await page.locator('[data-testid=anim-canvas]').scrollIntoViewIfNeeded();
    await page.waitForTimeout(400);
    assert.deepEqual(await axe(page), [], hash);
    if (opts.colorScheme === 'dark') await page.locator('[data-testid=anim-panel]').screenshot({ path: path.join(shots, 'animation-8-servers-390-dark.png') });
    await context.close();
  }
});

test('with stragglers the step timeline shows the slowest GPU computing longer and the others waiting', async () => {
  const base = 'gpus=64&gpu=h100&inter=ib-ndr&model=llama3-8b';
  const legend = async (page) => (await page.locator('.timeline + .legend').textContent());
  const { page, context, problems } = await openPage(env, `${base}&jitter=0.05&slow_gpus=0.01`);
  const canvas = page.locator('[data-testid=timeline-canvas]');
  await canvas.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('[data-testid=timeline-canvas]').width > 0);
  await page.waitForTimeout(400);
  assert.match(await legend(page), /waiting for the slowest GPU/);
  assert.match(await canvas.getAttribute('aria-label'), /Step timeline/);
  await page.locator('.timeline').screenshot({ path: path.join(shots, 'timeline-stragglers.png') });
  await page.locator('.timeline + .legend').screenshot({ path: path.join(shots, 'timeline-stragglers-legend.png') });
  // Without jitter or slow GPUs there is nothing to wait for: the entry goes.
  await page.evaluate((q) => { location.hash = q; }, base);
  await page.waitForFunction(() => !document.querySelector('.timeline + .legend').textContent.includes('slowest GPU'));
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('a pipeline draws its 1F1B schedule pass by pass, and says how to read it', async () => {
  const base = 'gpus=256&gpu=h100&inter=ib-ndr&model=llama3-70b&tp=8&pp=4&micro=1&batch=64';
  const note = (page) => page.locator('[data-testid=timeline-passes]');
  const { page, context, problems } = await openPage(env, `${base}&vpp=2`);
  const canvas = page.locator('[data-testid=timeline-canvas]');
  await canvas.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('[data-testid=timeline-canvas]').width > 0);
  await page.waitForFunction(() => {
    const n = document.querySelector('[data-testid=timeline-passes]');
    return n && !n.hidden && /interleaved 1F1B.*micro-batch.*model chunk/.test(n.textContent);
  });
  assert.ok(await note(page).isVisible());
  await page.waitForTimeout(400);
  assert.ok(await inkedPixels(page, 'timeline-canvas') > 5000, 'the timeline drew');
  await page.locator('.timeline').screenshot({ path: path.join(shots, 'timeline-interleaved.png') });
  // The plain schedule says so; without a pipeline the note goes.
  await page.evaluate((q) => { location.hash = q; }, base);
  await page.waitForFunction(() => /Megatron's 1F1B order/.test(document.querySelector('[data-testid=timeline-passes]').textContent));
  await page.locator('.timeline').screenshot({ path: path.join(shots, 'timeline-1f1b.png') });
  await page.evaluate(() => { location.hash = 'gpus=64&gpu=h100&inter=ib-ndr&model=llama3-8b'; });
  await page.waitForFunction(() => document.querySelector('[data-testid=timeline-passes]').hidden);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('the step timeline lists what it draws in a data table, opened from the keyboard', async () => {
  // 256 GPUs as tp=8 × pp=4 leave 8 data-parallel replicas: 64 sequences are 8 micro-batches,
  // each a forward and a backward on each of the 4 stages.
  const base = 'gpus=256&gpu=h100&inter=ib-ndr&model=llama3-70b&tp=8&pp=4&micro=1&batch=64';
  const { page, context, problems } = await openPage(env, base);
  const canvas = page.locator('[data-testid=timeline-canvas]');
  await canvas.scrollIntoViewIfNeeded();
  const rows = page.locator('[data-testid=timeline-table] tbody tr');
  assert.equal(await rows.count(), 0, 'closed, it makes no rows');
  await page.locator('[data-testid=timeline-table-details] summary').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=timeline-table] tbody tr').length > 0);
  const table = () => page.evaluate(() => {
    const t = document.querySelector('[data-testid=timeline-table]');
    return {
      head: [...t.querySelectorAll('thead th')].map((th) => th.textContent),
      rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.cells].map((td) => td.textContent)),
      drawn: Number(document.querySelector('[data-testid=timeline-canvas]').dataset.bars),
    };
  });
  let t = await table();
  assert.deepEqual(t.head, ['stage', 'bar', 'micro batch', 'start ms', 'end ms']);
  assert.equal(t.rows.length, t.drawn, 'a line for every bar drawn');
  const passes = t.rows.filter((r) => r[2] !== '');
  assert.equal(passes.length, 64, '8 micro-batches × forward and backward × 4 stages');
  assert.deepEqual(passes.filter((r) => r[0].startsWith('stage 1')).slice(0, 4).map((r) => r[1] + ' ' + r[2]),
    ['forward 1', 'forward 2', 'forward 3', 'forward 4'], 'stage 1 runs forwards 1-4 before its first backward (1F1B: p - 1 warm-up forwards, then one)');
  // The last bar ends where the step does: the result card's step time.
  const end = Math.max(...t.rows.map((r) => Number(r[4])));
  const said = end >= 1000 ? `${(end / 1000).toFixed(2)} s` : `${end.toFixed(1)} ms`;
  assert.equal(said, await page.locator('[data-testid=step-time]').textContent());
  await page.locator('[data-testid=timeline-table-details]').scrollIntoViewIfNeeded();
  await page.locator('.animation').screenshot({ path: path.join(shots, 'timeline-table.png') });
  assert.deepEqual(await axe(page), []);
  // A new scenario redraws the table with the drawing.
  await page.evaluate(() => { location.hash = 'gpus=64&gpu=h100&inter=ib-ndr&model=llama3-8b'; });
  await page.waitForFunction(() => document.querySelector('[data-testid=timeline-table] thead th').textContent === 'gpu');
  t = await table();
  assert.equal(t.rows.length, t.drawn);
  assert.equal(t.rows[0][0], 'GPU 1');
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('the comparison list offers only links the GPU can have, and NICs say what auto gives', async () => {
  const { page, context, problems } = await openPage(env, 'gpus=16&per_node=8&gpu=h100&inter=ib-ndr&model=llama3-8b');
  const values = await page.locator('[data-testid=anim-compare] option').evaluateAll((os) => os.map((o) => o.value));
  assert.ok(values.includes('intra=nvlink4') && values.includes('intra=pcie5'), values.join());
  assert.ok(!values.includes('intra=xgmi') && !values.includes('intra=nvlink3'), values.join());
  await page.locator('[data-testid=anim-compare]').selectOption('intra=pcie4');
  await page.waitForSelector('[data-testid=anim-canvas-compare]');
  assert.equal(await page.locator('[data-testid=anim-compare-problem]').count(), 0);
  // The NIC count the network brings is visible as auto: 8 on InfiniBand, 1 over TCP.
  assert.equal(await page.locator('[data-testid=nics] option:checked').textContent(), 'auto: 8');
  await page.locator('[data-testid=inter]').selectOption('tcp100');
  await page.waitForFunction(() => document.querySelector('[data-testid=nics] option:checked').textContent === 'auto: 1');
  assert.deepEqual(problems.console, []);
  await context.close();
});
