// The page from the keyboard: Tab from the top meets what the eye meets — the skip links, then
// the classroom tools beside the title, then the section links under the answer — and "Skip to
// the explorer" lands where the next Tab is the first control.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { start, openPage, shots } from './harness.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

/** The focused element's role and accessible name, as Playwright's ARIA snapshot says them. */
const focused = (page) => page.locator(':focus').ariaSnapshot();

/** Tabs `n` times from the top of the page (as from the address bar) and says each stop. */
async function tabStops(page, n) {
  await page.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
  const stops = [];
  for (let i = 0; i < n; i++) {
    await page.keyboard.press('Tab');
    // A stop's role and name, its first line ('- checkbox "Projector mode"'): a link's own
    // lines below it (its address) end that line in ':'.
    stops.push((await focused(page)).split('\n')[0].replace(/:$/, ''));
  }
  return stops;
}

test('Tab from the top meets the skip links, the toolbar beside the title, then the sections', async () => {
  const { page, context, problems } = await openPage(env);
  await page.waitForTimeout(300);
  const stops = await tabStops(page, 14);
  assert.deepEqual(stops, [
    '- link "Skip to the explorer"',
    '- link "Skip to results"',
    '- checkbox "Projector mode"',
    '- checkbox "Presenter layout"',
    '- button "Copy link to this view"',
    '- button "Numbers (JSON)"',
    '- button "Print"',
    '- link "Why"',
    '- link "Lessons"',
    '- link "Explorer"',
    '- link "Animation"',
    '- link "Glossary"',
    '- link "Explain my run"',
    '- link "How good is the model?"',
  ]);
  // The toolbar is where the eye meets it first: beside the title, above the section links.
  const top = async (sel) => (await page.locator(sel).boundingBox()).y;
  assert.ok(await top('.masthead .toolbar') < await top('.masthead .jump'), 'the toolbar sits above the section links');
  await page.locator('.masthead').screenshot({ path: path.join(shots, 'keyboard-masthead-1280.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('on a phone the toolbar comes under the title, in the same order as its tab stops', async () => {
  const { page, context, problems } = await openPage(env, '', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await page.waitForTimeout(300);
  const stops = await tabStops(page, 4);
  assert.deepEqual(stops.slice(2), ['- checkbox "Projector mode"', '- checkbox "Presenter layout"']);
  const box = async (sel) => page.locator(sel).boundingBox();
  const [tagline, toolbar, answer, jump] = await Promise.all(['.tagline', '.masthead .toolbar', '.masthead .first-answer', '.masthead .jump'].map(box));
  assert.ok(tagline.y < toolbar.y && toolbar.y < answer.y && answer.y < jump.y, 'title, toolbar, answer, sections from top to bottom');
  await page.screenshot({ path: path.join(shots, 'keyboard-masthead-390.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('"Skip to the explorer" lands before the controls', async () => {
  const { page, context, problems } = await openPage(env);
  await page.waitForTimeout(300);
  await tabStops(page, 1);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.id === 'explorer');
  await page.keyboard.press('Tab');
  const inControls = await page.evaluate(() => document.activeElement.closest('.controls') !== null);
  assert.ok(inControls, `the next stop is a control: ${await focused(page)}`);
  assert.ok(await page.locator(':focus').isVisible(), 'and in view');
  assert.deepEqual(problems.console, []);
  await context.close();
});
