// The page's first frame (issue 14): loads of the page in headless Chromium, each step from
// navigation start (the page's performance marks: the module downloaded, the runtime ready,
// main(), the WebGL context, init, the first frame's GL objects, UI and draw), beside two
// baselines loaded alternately in the same run from the same server: a page that only creates the
// WebGL2 context and draws one cleared frame (the browser's floor), and one that also downloads
// and compiles the page's module (the floor with our module's size).
// Usage: LLMSIZE_WEB_DIR=build/wasm-release/web node bench/first_frame.mjs [loads]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const loads = Number(process.argv[2] || 7);
const web = process.env.LLMSIZE_WEB_DIR || 'build/wasm-release/web';
// The baselines are pages beside the app's (same origin, same server): a copy of the folder.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'llmsize-ff-'));
for (const f of fs.readdirSync(web)) fs.copyFileSync(path.join(web, f), path.join(dir, f));
const clearFrame = `const c = document.getElementById('c');
c.width = innerWidth; c.height = innerHeight;
const gl = c.getContext('webgl2', { alpha: false, depth: false, stencil: false, antialias: false });
gl.clearColor(0.09, 0.1, 0.12, 1); gl.clear(gl.COLOR_BUFFER_BIT);
requestAnimationFrame(() => { window.llmsizeFirstFrameMs = performance.now(); });`;
fs.writeFileSync(path.join(dir, 'baseline-gl.html'), `<!doctype html><canvas id="c"></canvas><script src="baseline-gl.js"></script>`);
fs.writeFileSync(path.join(dir, 'baseline-gl.js'), clearFrame);
fs.writeFileSync(path.join(dir, 'baseline-module.html'), `<!doctype html><canvas id="c"></canvas><script src="baseline-module.js"></script>`);
fs.writeFileSync(path.join(dir, 'baseline-module.js'),
  `WebAssembly.compileStreaming(fetch('llmsize_app_relaxed.wasm')).then(() => { ${clearFrame} });`);
process.env.LLMSIZE_WEB_DIR = dir;
const { setUp, tearDown, openPage } = await import('../tests/web/harness.mjs');

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const steps = {};
const add = (k, v) => { if (Number.isFinite(v)) (steps[k] ||= []).push(v); };
await setUp();
try {
  for (let i = 0; i < loads + 1; ++i) {  // the first round warms the browser and is not counted
    for (const file of ['', 'baseline-gl.html', 'baseline-module.html']) {
      const { page, context } = await openPage({ file });
      const r = await page.evaluate(() => {
        const out = { first: window.llmsizeFirstFrameMs, runtime: window.llmsizeRuntimeMs };
        for (const e of performance.getEntriesByType('resource')) if (e.name.endsWith('.wasm')) out.wasm = e.responseEnd;
        for (const e of performance.getEntriesByType('mark')) out[e.name.replace('llmsize:', '')] = e.startTime;
        return out;
      });
      await context.close();
      if (i === 0) continue;
      if (file === '') for (const [k, v] of Object.entries(r)) add('page: ' + k, v);
      else add(file.replace('.html', '') + ': first frame', r.first);
    }
  }
} finally {
  await tearDown();
  fs.rmSync(dir, { recursive: true, force: true });
}
const order = ['page: wasm', 'page: runtime', 'page: main', 'page: context', 'page: initialised', 'page: frame0.gl_objects',
  'page: frame0.ui', 'page: frame0.drawn', 'page: first', 'baseline-gl: first frame', 'baseline-module: first frame'];
console.log(`median of ${loads} loads, ms from navigation start (the first load of the browser not counted)`);
for (const k of order) if (steps[k]) console.log(`${k.padEnd(30)} ${median(steps[k]).toFixed(0).padStart(6)}   (${Math.min(...steps[k]).toFixed(0)}–${Math.max(...steps[k]).toFixed(0)})`);
