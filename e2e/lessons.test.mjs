// Lessons as a class uses them (issue 15, point 1): until a step is revealed, nothing on the
// page gives its answer away; the reveal marks the closest choice and keeps the score; each
// lesson ends with a summary; a link to a lesson or step that does not exist says so; focus
// follows the reader.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { start, openPage, shots, axe } from './harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

const phone = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const visible = (page, sel) => page.locator(sel).first().isVisible();
const activeId = (page) => page.evaluate(() => document.activeElement && document.activeElement.id);

/** Waits for focus to land on the element with this id (focus moves after the next frame). */
async function focusOn(page, id) {
  await page.waitForFunction((id) => document.activeElement && document.activeElement.id === id, id, { timeout: 5000 });
}

test('an unrevealed step hides every number that answers it; the reveal shows them', async () => {
  for (const [name, opts] of [['1280', { deviceScaleFactor: 2 }], ['390', phone]]) {
    const { page, context, problems } = await openPage(env, 'lesson=leaving-the-box&step=1', opts);
    await page.locator('[data-testid=lesson]').waitFor();
    // The scenario is the lesson's; the answers are not on screen.
    await page.waitForFunction(() => document.querySelector('[data-testid=inter]').value === 'tcp100');
    for (const id of ['step-time', 'speedup', 'memory', 'collective', 'bottleneck', 'chart-speedup', 'chart-breakdown', 'anim-canvas']) {
      assert.equal(await visible(page, `[data-testid=${id}]`), false, `${name}: ${id} is visible before the reveal`);
    }
    assert.equal(await page.locator('[data-testid=mask-note]').count(), 3);
    assert.match(await page.locator('[data-testid=mask-note]').first().textContent(), /Make your prediction first/);
    // No reveal without a prediction.
    assert.equal(await page.locator('[data-testid=lesson-reveal]').isDisabled(), true);
    await page.screenshot({ path: path.join(shots, `lesson-masked-${name}.png`), fullPage: name === '390' });
    await page.locator('[data-testid=lesson-choice]').nth(1).check();
    await page.locator('[data-testid=lesson-reveal]').click();
    await page.locator('[data-testid=lesson-answer]').waitFor();
    await focusOn(page, 'lesson-answer');
    for (const id of ['step-time', 'speedup', 'memory', 'collective', 'chart-speedup', 'anim-canvas']) {
      assert.equal(await visible(page, `[data-testid=${id}]`), true, `${name}: ${id} is still hidden after the reveal`);
    }
    assert.equal(await page.locator('[data-testid=mask-note]').count(), 0);
    // The closest choice is marked, and so is a prediction that was not.
    assert.equal(await page.locator('.choice.closest').count(), 1);
    assert.match(await page.locator('.choice.closest').textContent(), /closest/);
    assert.match(await page.locator('[data-testid=lesson-progress]').textContent(), /Closest predictions so far: [01] of 1/);
    await page.locator('.lessons').screenshot({ path: path.join(shots, `lesson-revealed-${name}.png`) });
    if (name === '390') {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 1, `the lesson scrolls sideways by ${overflow}px on a phone`);
    }
    assert.deepEqual(problems.console, []);
    await context.close();
  }
});

test('a lesson ends with a summary and the score, then the next lesson or the list', async () => {
  const { page, context, problems } = await openPage(env, '', { deviceScaleFactor: 2 });
  await page.locator('[data-testid=lesson-start-leaving-the-box]').click();
  await focusOn(page, 'lesson-heading');
  // Step 1: find the closest choice after revealing, so step 2 can be answered wrongly on purpose.
  await page.locator('[data-testid=lesson-choice]').first().check();
  await page.locator('[data-testid=lesson-reveal]').click();
  await page.locator('[data-testid=lesson-answer]').waitFor();
  const firstHit = await page.locator('.choice.closest input').first().isChecked();
  await page.locator('[data-testid=lesson-next]').click();
  await page.waitForFunction(() => location.hash.includes('step=2'));
  await focusOn(page, 'lesson-heading');
  assert.equal(await page.locator('[data-testid=mask-note]').count(), 3, 'the new step hides its answer again');
  await page.locator('[data-testid=lesson-choice]').first().check();
  await page.locator('[data-testid=lesson-reveal]').click();
  await page.locator('[data-testid=lesson-answer]').waitFor();
  const secondHit = await page.locator('.choice.closest input').first().isChecked();
  await page.locator('[data-testid=lesson-next]').click();
  const summary = page.locator('[data-testid=lesson-summary]');
  await summary.waitFor();
  await focusOn(page, 'lesson-summary-title');
  const hits = Number(firstHit) + Number(secondHit);
  assert.match(await summary.textContent(), new RegExp(`${hits} of 2 closest`));
  assert.equal(await summary.locator('li').count(), 2, 'one line per step');
  assert.match(await summary.locator('li').first().textContent(), /The model says/);
  assert.equal(await page.locator('[data-testid=mask-note]').count(), 0);
  await page.locator('.lessons').screenshot({ path: path.join(shots, 'lesson-summary-1280.png') });
  // Next lesson starts the following lesson at its first step.
  await page.locator('[data-testid=lesson-next-lesson]').click();
  await page.waitForFunction(() => location.hash.includes('step=1') && !location.hash.includes('leaving-the-box'));
  await focusOn(page, 'lesson-heading');
  // Exit goes back to the list, focus on its heading, nothing masked.
  await page.locator('[data-testid=lesson-exit]').click();
  await page.locator('[data-testid=lesson-start-leaving-the-box]').waitFor();
  await focusOn(page, 'lessons-title');
  await page.waitForFunction(() => !location.hash.includes('lesson='));
  assert.equal(await page.locator('[data-testid=mask-note]').count(), 0);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('a link to a lesson or a step that does not exist names the problem', async () => {
  const { page, context, problems } = await openPage(env, 'lesson=leaving-the-bx&step=1');
  const msg = await page.locator('[data-testid=lesson-error]').textContent();
  assert.match(msg, /no lesson 'leaving-the-bx'/);
  assert.match(msg, /Did you mean 'leaving-the-box'/);
  assert.ok(await page.locator('[data-testid=lesson-start-leaving-the-box]').isVisible(), 'the list is offered');
  assert.equal(await page.locator('[data-testid=mask-note]').count(), 0);
  await page.locator('.lessons').screenshot({ path: path.join(shots, 'lesson-unknown-id.png') });
  await context.close();

  const bad = await openPage(env, 'lesson=leaving-the-box&step=9', phone);
  assert.match(await bad.page.locator('[data-testid=lesson-error]').textContent(), /has 2 steps; this link asks for step 9/);
  await bad.page.locator('.lessons').screenshot({ path: path.join(shots, 'lesson-unknown-step-390.png') });
  await bad.page.getByRole('button', { name: 'Start this lesson at step 1' }).click();
  await bad.page.locator('[data-testid=lesson]').waitFor();
  assert.deepEqual([...problems.console, ...bad.problems.console], []);
  await bad.context.close();
});

test('axe-core: a masked lesson step, its revealed state and the summary', async () => {
  const { page, context } = await openPage(env, 'lesson=leaving-the-box&step=2');
  await page.locator('[data-testid=lesson]').waitFor();
  const check = async (what) => {
    const bad = await axe(page);
    assert.deepEqual(bad, [], `${what}: ${JSON.stringify(bad, null, 1)}`);
  };
  await check('masked step');
  await page.locator('[data-testid=lesson-choice]').first().check();
  await page.locator('[data-testid=lesson-reveal]').click();
  await page.locator('[data-testid=lesson-answer]').waitFor();
  await check('revealed step');
  await page.locator('[data-testid=lesson-next]').click();
  await page.locator('[data-testid=lesson-summary]').waitFor();
  await check('summary');
  await context.close();
});

// A lesson's printable handout (issue 15, point 5): the title, each step's question with its
// choices, lines to write on and its scenario, and the answer key — the model's numbers — on a
// page of its own.
test('a lesson prints as a handout with an answer key on its own page', async () => {
  const lessons = JSON.parse(readFileSync(path.join(root, 'content', 'lessons.json'), 'utf8')).lessons;
  const lesson = lessons.find((l) => l.id === 'memory-wall');
  assert.ok(lesson.steps.length >= 2);
  const { page, context, problems } = await openPage(env, 'lesson=memory-wall&step=1', { deviceScaleFactor: 2 });
  await page.locator('[data-testid=lesson]').waitFor();
  // Printing is the browser's dialog: record the calls instead of opening it.
  await page.evaluate(() => { window.__printed = 0; window.print = () => { window.__printed++; }; });
  // The model's answers as the page reveals them, to check the key against.
  const revealed = [];
  for (let k = 0; k < lesson.steps.length; k++) {
    await page.locator('[data-testid=lesson-choice]').first().check();
    await page.locator('[data-testid=lesson-reveal]').click();
    const answer = await page.locator('[data-testid=lesson-answer] strong').first().textContent();
    revealed.push(answer.match(/The model says (.*)\./)[1]);
    if (k + 1 < lesson.steps.length) {
      await page.locator('[data-testid=lesson-next]').click();
      await page.waitForFunction((n) => location.hash.includes(`step=${n}`), k + 2);
    }
  }
  await page.locator('[data-testid=lesson-handout]').click();
  const handout = page.locator('[data-testid=handout]');
  await handout.waitFor();
  await page.waitForFunction(() => window.__printed === 1);
  await focusOn(page, 'handout-title');
  // Shown alone: the explorer steps aside while the handout is open.
  assert.equal(await page.locator('[data-testid=app]').isVisible(), false);
  assert.equal(await page.locator('.toolbar').isVisible(), false);
  assert.equal(await handout.locator('h1').textContent(), lesson.title);
  const steps = handout.locator('[data-testid=handout-step]');
  assert.equal(await steps.count(), lesson.steps.length);
  for (let k = 0; k < lesson.steps.length; k++) {
    const s = lesson.steps[k];
    const step = steps.nth(k);
    assert.equal(await step.locator('[data-testid=handout-question]').textContent(), s.question);
    assert.equal(await step.locator('[data-testid=handout-choice]').count(), s.choices.length);
    assert.ok(await step.locator('[data-testid=handout-blank]').count() >= 2, 'lines to write on');
    const blank = await step.locator('[data-testid=handout-blank]').first().boundingBox();
    assert.ok(blank.width > 300 && blank.height > 20, `a line to write on: ${JSON.stringify(blank)}`);
    // The scenario table holds the keys the step sets.
    const table = await step.locator('[data-testid=handout-scenario]').textContent();
    for (const pair of s.scenario.split('&')) {
      const [key, value] = pair.split('=');
      assert.ok(table.includes(key) && table.includes(value), `step ${k + 1}: ${pair} missing from the table`);
    }
  }
  // The answer key gives the model's number for each step, the one the reveal showed.
  const key = handout.locator('[data-testid=handout-key-line]');
  assert.equal(await key.count(), lesson.steps.length);
  for (let k = 0; k < lesson.steps.length; k++) {
    assert.equal(await key.nth(k).locator('[data-testid=handout-key-answer]').textContent(), `The model says ${revealed[k]}.`);
    assert.match(await key.nth(k).textContent(), /Closest choice: /);
  }
  await page.screenshot({ path: path.join(shots, 'handout-screen-1280.png'), fullPage: true });
  // On paper: no buttons, and the key starts a new page.
  await page.emulateMedia({ media: 'print' });
  assert.equal(await page.locator('[data-testid=handout-print]').isVisible(), false);
  assert.equal(await page.locator('[data-testid=handout-key]').evaluate((el) => getComputedStyle(el).breakBefore), 'page');
  assert.equal(await steps.first().evaluate((el) => getComputedStyle(el).breakBefore), 'auto', 'the steps run on');
  await page.screenshot({ path: path.join(shots, 'handout-print-1280.png'), fullPage: true });
  const pdf = await page.pdf({ format: 'A4' });
  const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) || []).length;
  assert.ok(pages >= 2, `the handout prints on ${pages} page(s)`);
  // axe on the printed handout.
  const bad = await axe(page);
  assert.deepEqual(bad, [], JSON.stringify(bad, null, 1));
  await page.emulateMedia({ media: 'screen' });
  // Print again from the preview, then close it: the lesson is back, focus on its heading.
  await page.locator('[data-testid=handout-print]').click();
  await page.waitForFunction(() => window.__printed === 2);
  await page.locator('[data-testid=handout-close]').click();
  await page.locator('[data-testid=handout]').waitFor({ state: 'detached' });
  assert.ok(await page.locator('[data-testid=app]').isVisible());
  await focusOn(page, 'lesson-heading');
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('the handout on a phone fits the screen', async () => {
  const { page, context, problems } = await openPage(env, 'lesson=leaving-the-box&step=1', phone);
  await page.locator('[data-testid=lesson]').waitFor();
  await page.evaluate(() => { window.print = () => {}; });
  await page.locator('[data-testid=lesson-handout]').click();
  await page.locator('[data-testid=handout]').waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the handout scrolls sideways by ${overflow}px`);
  await page.screenshot({ path: path.join(shots, 'handout-390.png'), fullPage: true });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('after the reveal the explorer and the presenter\'s chart show the scenario the answer is about', async () => {
  for (const [name, viewport] of [['1920', { width: 1920, height: 1080 }], ['1280', { width: 1280, height: 720 }]]) {
    const { page, context, problems } = await openPage(env, 'presenter=1&lesson=one-box', { viewport });
    await page.locator('[data-testid=lesson]').waitFor();
    // The scene: one GPU.
    await page.waitForFunction(() => /(^|&)gpus=1(&|$)/.test(location.hash.slice(1)));
    await page.locator('[data-testid=lesson-choice]').nth(2).check();
    await page.locator('[data-testid=lesson-reveal]').click();
    await page.locator('[data-testid=lesson-answer]').waitFor();
    // The answer is about 8 GPUs: the chart the class sees marks 8, not the 1-GPU baseline.
    await page.waitForFunction(() => /(^|&)gpus=8(&|$)/.test(location.hash.slice(1)));
    await page.waitForFunction(() => /^At 8 GPUs/.test(document.querySelector('[data-testid=chart-speedup-readout]').textContent));
    assert.match(await page.locator('[data-testid=lesson-answer]').textContent(), /The model says 7\.\d+×/);
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, `presenter-one-box-revealed-${name}.png`) });
    assert.deepEqual(problems.console, []);
    await context.close();
  }
});

test('the memory wall says its second step moves to 64 GPUs', async () => {
  const { page, context, problems } = await openPage(env, 'lesson=memory-wall&step=2');
  await page.locator('[data-testid=lesson]').waitFor();
  assert.match(await page.locator('[data-testid=lesson-text]').textContent(), /8 servers, 64 GPUs/);
  assert.match(await page.locator('.predict legend').textContent(), /64 GPUs/);
  await page.waitForFunction(() => document.querySelector('[data-testid=gpus]').value === '64');
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('an embedded lesson points at no view it lacks, and its step link opens the app in a new tab', async () => {
  const { page, context, problems } = await openPage(env, 'embed=lesson&theme=dark&heading=0&lesson=bubble', { viewport: { width: 500, height: 900 } });
  await page.locator('[data-testid=lesson]').waitFor();
  await page.locator('[data-testid=lesson-choice]').nth(2).check();
  await page.locator('[data-testid=lesson-reveal]').click();
  const answer = await page.locator('[data-testid=lesson-answer]').textContent();
  assert.doesNotMatch(answer, /look at the gaps in the timeline/);
  assert.match(answer, /explorer's step timeline/);
  const link = page.locator('[data-testid=lesson-link]');
  const href = await link.getAttribute('href');
  assert.ok(href.startsWith(env.base), `absolute, to the app: ${href}`);
  assert.doesNotMatch(href, /embed=|heading=|theme=/);
  assert.match(href, /lesson=bubble&step=1/);
  assert.equal(await link.getAttribute('target'), '_blank');
  await page.screenshot({ path: path.join(shots, 'lesson-embed-bubble-revealed-500.png'), fullPage: true });
  // The link opens the lesson in the full app.
  const app = await openPage(env, href.slice(href.indexOf('#') + 1));
  await app.page.locator('[data-testid=lesson]').waitFor();
  assert.ok(await app.page.locator('.toolbar').isVisible());
  await app.context.close();
  // In the full page the link stays in the page.
  const full = await openPage(env, 'lesson=bubble');
  await full.page.locator('[data-testid=lesson]').waitFor();
  assert.match(await full.page.locator('[data-testid=lesson-link]').getAttribute('href'), /^#.*lesson=bubble/);
  assert.equal(await full.page.locator('[data-testid=lesson-link]').getAttribute('target'), null);
  await full.context.close();
  assert.deepEqual(problems.console, []);
  await context.close();
});

// Review 11: "Starving GPUs" and "Everyone waits for the slowest" ask about their own GPU
// count (64; 4,096), but the breakdown chart spoke of 65,536 GPUs and marked no count.
const lessonFile = JSON.parse(readFileSync(path.join(root, 'content/lessons.json'), 'utf8'));

/** One number per pixel column of the breakdown's plot (below its legend): what is drawn there. */
const plotColumns = (page) => page.evaluate(() => {
  const c = document.querySelector('[data-testid=chart-breakdown]');
  const top = Math.ceil(Number(c.dataset.plotTop || 0.25) * c.height);
  const d = c.getContext('2d').getImageData(0, top, c.width, c.height - top).data;
  const cols = new Array(c.width).fill(0);
  for (let i = 0; i < d.length; i += 4) {
    const x = (i / 4) % c.width;
    cols[x] = (cols[x] * 31 + d[i] * 7 + d[i + 1] * 3 + d[i + 2]) % 1000003;
  }
  return cols;
});

test('the breakdown chart marks a lesson\'s GPU count and speaks of it first', async () => {
  for (const id of ['starving', 'stragglers']) {
    const step = lessonFile.lessons.find((l) => l.id === id).steps[0];
    assert.equal(step.chart, 'breakdown', `${id} is about the breakdown chart`);
    const gpus = Number(step.scenario.match(/(?:^|&)gpus=(\d+)/)[1]);
    const { page, context, problems } = await openPage(env, `presenter=1&lesson=${id}`, { viewport: { width: 1280, height: 720 } });
    await page.locator('[data-testid=lesson-choice]').first().check();
    await page.locator('[data-testid=lesson-reveal]').click();
    await page.locator('[data-testid=lesson-answer]').waitFor();
    const chart = page.locator('[data-testid=chart-breakdown]');
    await chart.waitFor();
    await page.waitForTimeout(400);
    const caption = await chart.getAttribute('aria-label');
    // The chosen count first; the largest may follow.
    assert.match(caption, new RegExp(`^At the chosen ${gpus.toLocaleString('en-US')} GPUs, `), caption);
    assert.equal(await page.locator('[data-testid=chart-breakdown-readout]').textContent(), caption, 'the words under the chart say it too');
    // The answer's figure is in what it says of the chosen count (a share of the elapsed time
    // for the data wait; for stragglers, how much longer they make the step, as asked).
    const answer = (await page.locator('[data-testid=lesson-answer]').textContent()).match(/The model says ([\d.]+ %)/)[1];
    const chosen = caption.split(' At 65,536 GPUs')[0];
    assert.ok(chosen.includes(` ${answer} `), `${id}: "${chosen}" does not give the answer, ${answer}`);
    await page.screenshot({ path: path.join(shots, `breakdown-chosen-${id}-1280x720.png`) });
    assert.deepEqual(problems.console, []);
    await context.close();
  }
  // The mark itself: the same curves at 64 and at 128 GPUs differ only where the two marks are.
  const { page, context, problems } = await openPage(env, 'gpus=64&per_node=8&gpu=h100&inter=ib-ndr&model=resnet50&precision=bf16');
  const chart = page.locator('[data-testid=chart-breakdown]');
  await chart.scrollIntoViewIfNeeded();
  await page.waitForTimeout(500);
  const at64 = await plotColumns(page);
  await page.locator('[data-testid=gpus-slider]').focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => /^At the chosen 128 GPUs/.test(document.querySelector('[data-testid=chart-breakdown]').getAttribute('aria-label')));
  await chart.scrollIntoViewIfNeeded();
  await page.waitForTimeout(500);
  const at128 = await plotColumns(page);
  const moved = at64.map((v, x) => (v !== at128[x] ? x : -1)).filter((x) => x >= 0);
  assert.ok(moved.length > 0, 'no count is marked on the plot');
  assert.ok(moved.length < at64.length / 8, `${moved.length} of ${at64.length} columns changed: more than a mark`);
  await chart.screenshot({ path: path.join(shots, 'breakdown-chosen-128.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});
