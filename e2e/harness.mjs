// Shared e2e harness: serves dist/ on loopback, drives Debian's Chromium with playwright-core,
// records console errors and warnings and any request that leaves the page's origin. E2E_DIST
// names another build directory than dist/ (e.g. `trunk build --release --dist dist-mine`).
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

/**
 * A page that records console errors and page errors (`problems.console`), console warnings
 * (`problems.warnings`) and off-origin requests.
 */
export async function openPage(env, hash = '', options = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const page = await context.newPage();
  const problems = { console: [], warnings: [], offOrigin: [] };
  const origin = new URL(env.base).origin;
  page.on('console', (m) => {
    if (m.type() === 'error') problems.console.push(m.text());
    if (m.type() === 'warning') problems.warnings.push(m.text());
  });
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

/**
 * Decodes a PNG (a Buffer) in the page and measures it once: its size; `inked`, the pixels that
 * are not near-white; `top` and `bottom`, the pixels in the top and bottom 6 % bands that differ
 * from the band's own first pixel (a title, a caption); and `sharpness`, how much fine detail it holds —
 * the horizontal pixel-to-pixel change in its middle band divided by the same after halving and
 * re-enlarging it. A picture drawn at its size loses detail in the round trip; a 1× bitmap
 * enlarged has little to lose (measured on the charts: enlarged 1.20–1.22, drawn at 2× 1.43–1.51).
 */
export async function pngStats(page, bytes) {
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const W = img.width, H = img.height;
    const canvas = (w, h, src) => {
      const c = document.createElement('canvas');
      c.width = w; c.height = h;
      const ctx = c.getContext('2d');
      ctx.imageSmoothingQuality = 'high';
      ctx.drawImage(src, 0, 0, w, h);
      return c;
    };
    const full = canvas(W, H, img);
    const pixels = (c, y0, y1) => c.getContext('2d').getImageData(0, y0, W, y1 - y0).data;
    const all = pixels(full, 0, H);
    let inked = 0;
    for (let i = 0; i < all.length; i += 4) if (all[i] < 240 || all[i + 1] < 240 || all[i + 2] < 240) inked++;
    const differing = (y0, y1) => {
      const d = pixels(full, y0, y1);
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - d[0]) + Math.abs(d[i + 1] - d[1]) + Math.abs(d[i + 2] - d[2]) > 60) n++;
      return n;
    };
    const band = Math.round(H * 0.06);
    const energy = (c) => {
      const d = pixels(c, Math.round(H * 0.15), Math.round(H * 0.8));
      let e = 0;
      for (let i = 0; i + 4 < d.length; i += 4) e += Math.abs(d[i] - d[i + 4]) + Math.abs(d[i + 1] - d[i + 5]) + Math.abs(d[i + 2] - d[i + 6]);
      return e;
    };
    const back = canvas(W, H, canvas(Math.round(W / 2), Math.round(H / 2), img));
    return { w: W, h: H, inked, top: differing(0, band), bottom: differing(H - band, H), sharpness: energy(full) / energy(back) };
  }, bytes.toString('base64'));
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
