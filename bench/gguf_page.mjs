// The page reads a many-GB model file's header (issue 12): the file is given to the page's file
// picker (as a person picks it; Chromium reads it from disk, nothing is uploaded), and the time
// from the picker's change event to the end of Module.readModelFile (File.slice reads, the
// parse, the model and weight format from the metadata) is measured in the page, beside the
// page's import of the same model's config.json text (the baseline, in the same run).
// Usage: LLMSIZE_WEB_DIR=build/wasm-release/web node bench/gguf_page.mjs FILE CONFIG_JSON [rounds]
import fs from 'node:fs';
import { setUp, tearDown, openPage, frames } from '../tests/web/harness.mjs';

const [file, config, roundsArg] = process.argv.slice(2);
if (!file || !config) { console.error('usage: node bench/gguf_page.mjs FILE CONFIG_JSON [rounds]'); process.exit(2); }
const rounds = Number(roundsArg || 7);
const configText = fs.readFileSync(config, 'utf8');
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

await setUp();
try {
  const { page, context } = await openPage();
  await page.evaluate(() => {
    const input = document.getElementById('llmsize-files');
    input.addEventListener('change', () => { window.benchChange = performance.now(); }, { capture: true });
    const read = Module.readModelFile;
    Module.readModelFile = (...a) => {
      const t = performance.now();
      const r = read(...a);
      window.benchRead = performance.now();
      window.benchCalls += window.benchRead - t;
      return r;
    };
  });
  const header = [], calls = [], config_ = [];
  let read = 0;
  for (let r = 0; r < rounds; ++r) {
    await page.evaluate(() => { window.benchCalls = 0; window.benchRead = undefined; });
    await page.setInputFiles('#llmsize-files', file);
    await page.waitForFunction(() => window.benchRead !== undefined && Module.modelFileRead() > 0, null, { timeout: 60000 });
    await frames(page, 2);  // any further round of reading has finished
    header.push(await page.evaluate(() => window.benchRead - window.benchChange));
    calls.push(await page.evaluate(() => window.benchCalls));
    read = await page.evaluate(() => Module.modelFileRead());
    config_.push(await page.evaluate((t) => { const t0 = performance.now(); Module.importText(t, 'config.json'); return performance.now() - t0; }, configText));
    await frames(page, 2);
  }
  console.log(`step\tms (median of ${rounds})`);
  console.log(`page: pick → header read, parsed, model set (${read} bytes read of ${fs.statSync(file).size})\t${median(header).toFixed(2)}`);
  console.log(`  of which Module.readModelFile (parse, model, estimate inputs)\t${median(calls).toFixed(2)}`);
  console.log(`  of which File.slice reads (the rest)\t${(median(header) - median(calls)).toFixed(2)}`);
  console.log(`page: config.json text imported (baseline: no file)\t${median(config_).toFixed(2)}`);
  await context.close();
} finally {
  await tearDown();
}
