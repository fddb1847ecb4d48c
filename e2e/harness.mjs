// Shared e2e harness: serves dist/ on loopback, drives Debian's Chromium with playwright-core,
// records console errors and any request that leaves the page's origin. E2E_DIST names another
// build directory than dist/ (e.g. `trunk build --release --dist dist-mine`).
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const shots = path.join(root, 'target', 'e2e-screenshots');
mkdirSync(shots, { recursive: true });

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function waitForServer(port) {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise((resolve) => {
      const c = net.connect(port, '127.0.0.1', () => { c.end(); resolve(true); });
      c.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server on ${port} did not start`);
}

/** Starts the static server and the browser. Returns { base, browser, close }. */
export async function start() {
  const port = await freePort();
  const server = spawn('python3', ['-m', 'http.server', '--bind', '127.0.0.1', '--directory',
    path.resolve(root, process.env.E2E_DIST || 'dist'), String(port)], { stdio: 'ignore' });
  await waitForServer(port);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  const base = `http://127.0.0.1:${port}/`;
  return {
    base,
    browser,
    async close() { await browser.close(); server.kill(); },
  };
}

/** A page that records console errors, page errors and off-origin requests. */
export async function openPage(env, hash = '', options = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const page = await context.newPage();
  const problems = { console: [], offOrigin: [] };
  const origin = new URL(env.base).origin;
  page.on('console', (m) => { if (m.type() === 'error') problems.console.push(m.text()); });
  page.on('pageerror', (e) => problems.console.push(String(e)));
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')) problems.offOrigin.push(u);
  });
  await page.goto(env.base + (hash ? `#${hash}` : ''));
  await page.waitForSelector('[data-testid="app"]', { state: 'attached', timeout: 20000 });
  return { page, context, problems };
}

/** Counts non-transparent pixels of a canvas in the page. */
export async function inkedPixels(page, testid) {
  return page.evaluate((id) => {
    const c = document.querySelector(`[data-testid="${id}"]`);
    if (!c || !c.width || !c.height) return 0;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
    return n;
  }, testid);
}

/** The page's serious and critical axe-core violations (id, impact, the first three targets). */
export async function axe(page) {
  const require = createRequire(import.meta.url);
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
