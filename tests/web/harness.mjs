// Shared set-up of the browser tests: the static server on 127.0.0.1, Debian's Chromium
// driven by playwright-core with WebGL2 through SwiftShader (flags from TOOLCHAIN.md), and
// helpers that open the page, wait for frames, and click widgets where a person would (the
// app publishes widget rectangles through Module.widgetRect).
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { start } from './static_server.mjs';
import { imageStats } from './png.mjs';

export const WEB_DIR = process.env.LLMSIZE_WEB_DIR || 'build/app-wasm/web';
export const ARTIFACTS = process.env.LLMSIZE_ARTIFACTS || 'artifacts';
const CHROMIUM = process.env.LLMSIZE_CHROMIUM || '/usr/bin/chromium';
const FLAGS = ['--no-sandbox', '--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--disable-dev-shm-usage'];

let server = null, browser = null;

export async function setUp() {
  if (!fs.existsSync(path.join(WEB_DIR, 'index.html'))) throw new Error(`no built page in ${WEB_DIR} (set LLMSIZE_WEB_DIR)`);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  server = await start(WEB_DIR, 0);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}
export async function tearDown() {
  if (browser) await browser.close();
  if (server) await server.close();
}
export const baseUrl = () => `http://127.0.0.1:${server.port}/`;

// Opens `file` (default index.html) with `query` and `hash`; collects console errors, page
// errors, failed requests and any request that leaves 127.0.0.1.
// `init`: a function run in the page before any of its scripts (page.addInitScript).
// `locale`: the browser's language (navigator.language), e.g. 'zh-CN'. `block`: file names whose
// requests fail (a host that lacks them).
export async function openPage({ file = '', query = '', hash = '', width = 1280, height = 800, dpr = 1, waitFirstFrame = true,
  touch = false, clipboard = false, init = null, locale = 'en-US', block = [] } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: dpr, hasTouch: touch, locale });
  for (const name of block) await context.route('**/' + name, (r) => r.fulfill({ status: 404, body: 'not here' }));
  if (clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
  const page = await context.newPage();
  if (init) await page.addInitScript(init);
  const problems = [];
  const responses = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('requestfailed', (r) => problems.push('request failed: ' + r.url()));
  // blob: URLs of the page's own origin are made in the page (a download, the chart drawn for its PNG).
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(baseUrl()) && !u.startsWith('data:') && !u.startsWith('blob:' + baseUrl())) problems.push('external request: ' + u);
  });
  page.on('response', (r) => responses.push(r));
  const t0 = Date.now();
  await page.goto(baseUrl() + file + query + hash);
  if (waitFirstFrame) await page.waitForFunction(() => window.llmsizeFirstFrameMs !== undefined, null, { timeout: 30000 });
  return { page, context, problems, responses, wallMs: Date.now() - t0 };
}

// Waits until the app has drawn `n` more frames.
export async function frames(page, n = 3) {
  const start = await page.evaluate(() => JSON.parse(Module.frameStats()).ui.frames);
  await page.waitForFunction((s) => JSON.parse(Module.frameStats()).ui.frames >= s, start + n, { timeout: 20000 });
}

// Clicks the centre of a widget the app marked with mark(name) (canvas pixels → CSS pixels).
export async function clickWidget(page, name, opts = {}) {
  await frames(page, 2);
  const r = await page.evaluate((n) => Module.widgetRect(n), name);
  if (!r) throw new Error(`widget ${name} not on screen; visible: ` + (await page.evaluate(() => Module.widgetNames().join(', '))));
  const dpr = await page.evaluate(() => window.devicePixelRatio);
  await page.mouse.move((r.x + r.w / 2) / dpr, (r.y + r.h / 2) / dpr);
  await frames(page, 1);
  await page.mouse.down();
  await frames(page, 1);
  await page.mouse.up();
  await frames(page, 2);
  return r;
}

// Centre of a marked widget in CSS pixels.
export async function widgetCentre(page, name) {
  const r = await page.evaluate((n) => Module.widgetRect(n), name);
  if (!r) throw new Error(`widget ${name} not on screen`);
  const dpr = await page.evaluate(() => window.devicePixelRatio);
  return { x: (r.x + r.w / 2) / dpr, y: (r.y + r.h / 2) / dpr };
}

export async function figures(page) { return JSON.parse(await page.evaluate(() => Module.figures())); }

export async function screenshot(page, name) {
  await frames(page, 2);
  const png = await page.screenshot({ path: path.join(ARTIFACTS, name) });
  return imageStats(png);
}

// Appends one line of measurements to artifacts/web-metrics.json (read by the report).
export function record(key, value) {
  const file = path.join(ARTIFACTS, 'web-metrics.json');
  let all = {};
  try { all = JSON.parse(fs.readFileSync(file, 'utf8')); } catch { /* first write */ }
  all[key] = value;
  fs.writeFileSync(file, JSON.stringify(all, null, 2) + '\n');
  console.log(`# ${key}: ${JSON.stringify(value)}`);
}

// Ctrl+A held across frames, and the next keys typed only after it took effect: ImGui 1.86
// reads key state once a frame (a press and release between two frames is not seen), and within
// one frame it inserts queued characters before it handles shortcuts, so a character arriving
// with the Ctrl+A would be typed and then selected (CI saw "32" become "2" that way).
export async function selectAll(page) {
  await page.keyboard.down('Control');
  await page.keyboard.down('a');
  await frames(page, 2);
  await page.keyboard.up('a');
  await page.keyboard.up('Control');
  await frames(page, 2);
}
