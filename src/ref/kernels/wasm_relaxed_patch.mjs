// Rewrites clang 14's pre-standard relaxed-SIMD `f32x4.fma` (0xfd 0xaf 0x01) in a linked
// .wasm into the standard `f32x4.relaxed_madd` (0xfd 0x85 0x02, same length), which today's
// engines validate. Instruction offsets come from llvm-objdump, never from a byte search.
// The kernels push operands as (x, y, acc), so relaxed_madd computes x·y + acc.
// Usage: node wasm_relaxed_patch.mjs <llvm-objdump> <file.wasm>
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const [objdump, file] = process.argv.slice(2);
const bytes = readFileSync(file);

function leb(at) {  // unsigned LEB128 → [value, length]
  let v = 0, shift = 0, n = 0, b;
  do { b = bytes[at + n++]; v += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
  return [v, n];
}

let codeStart = -1;
for (let off = 8; off < bytes.length;) {
  const id = bytes[off++];
  const [size, n] = leb(off);
  off += n;
  if (id === 10) { codeStart = off; break; }
  off += size;
}
if (codeStart < 0) throw new Error(`${file}: no code section`);

const listing = execFileSync(objdump, ['-d', file], { maxBuffer: 1 << 30 }).toString();
let patched = 0;
for (const m of listing.matchAll(/^\s*([0-9a-f]+):\s+fd af 01\s+f32x4\.fma\b/gm)) {
  const at = codeStart + parseInt(m[1], 16);
  if (bytes[at] !== 0xfd || bytes[at + 1] !== 0xaf || bytes[at + 2] !== 0x01) {
    throw new Error(`${file}: offset ${at} is not f32x4.fma`);
  }
  bytes[at + 1] = 0x85;
  bytes[at + 2] = 0x02;
  ++patched;
}
if (/f32x4\.fms|f64x2\.fm[as]|relaxed|laneselect|\.fmin|\.fmax/.test(listing.replace(/f32x4\.fma\b/g, ''))) {
  console.warn(`${file}: other pre-standard relaxed-SIMD opcodes left unpatched`);
}
// A module linked for relaxed SIMD without a single FMA did not get the relaxed kernel (link
// order, dead stripping): fail the build rather than ship a mislabelled module.
if (patched === 0) throw new Error(`${file}: no f32x4.fma found; the relaxed-SIMD kernel is not in this module`);
writeFileSync(file, bytes);
console.log(`${file}: ${patched} f32x4.fma -> f32x4.relaxed_madd`);
