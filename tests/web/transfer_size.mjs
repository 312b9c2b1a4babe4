// Measures what a first visit to the page transfers: every file the page loads, gzip-compressed
// at level 9 (as a static host serves them), against the 1.5 MB budget. Prints a table, writes
// artifacts/transfer-size.json, and exits 1 when over budget.
// Usage: node tests/web/transfer_size.mjs <built web folder>
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const dir = process.argv[2] || 'build/wasm-release/web';
const BUDGET = 1.5e6;
// The page loads one of the two app builds (relaxed SIMD where the browser has it): count the
// larger pair.
const pick = (name) => fs.statSync(path.join(dir, name + '.wasm')).size;
const app = pick('llmsize_app_relaxed') > pick('llmsize_app') ? 'llmsize_app_relaxed' : 'llmsize_app';
const files = ['index.html', 'llmsize.js', app + '.js', app + '.wasm'];
let raw = 0, gz = 0;
const rows = [];
for (const f of files) {
  const data = fs.readFileSync(path.join(dir, f));
  const z = zlib.gzipSync(data, { level: 9 }).length;
  raw += data.length;
  gz += z;
  rows.push({ file: f, bytes: data.length, gzip: z });
}
for (const r of rows) console.log(`${r.file.padEnd(20)} ${String(r.bytes).padStart(9)} B  gzip ${String(r.gzip).padStart(9)} B`);
console.log(`${'page total'.padEnd(20)} ${String(raw).padStart(9)} B  gzip ${String(gz).padStart(9)} B  (budget ${BUDGET} B)`);
// The Chinese page adds its glyphs (fetched only when Chinese is chosen): at most 1.5 MB gzip more.
const ZH_BUDGET = 1.5e6;
const zhFont = fs.readFileSync(path.join(dir, 'llmsize-zh.otf'));
const zhGz = zlib.gzipSync(zhFont, { level: 9 }).length;
console.log(`${'llmsize-zh.otf'.padEnd(20)} ${String(zhFont.length).padStart(9)} B  gzip ${String(zhGz).padStart(9)} B  (Chinese only; budget ${ZH_BUDGET} B)`);
const dirOut = process.env.LLMSIZE_ARTIFACTS || 'artifacts';
fs.mkdirSync(dirOut, { recursive: true });
fs.writeFileSync(path.join(dirOut, 'transfer-size.json'), JSON.stringify({ files: rows, raw, gzip: gz, budget: BUDGET, zh_font: { bytes: zhFont.length, gzip: zhGz, budget: ZH_BUDGET } }, null, 2) + '\n');
if (gz > BUDGET) {
  console.error(`transfer size ${gz} B is over the ${BUDGET} B budget`);
  process.exit(1);
}
if (zhGz > ZH_BUDGET) {
  console.error(`the Chinese glyphs, ${zhGz} B, are over their ${ZH_BUDGET} B budget`);
  process.exit(1);
}
