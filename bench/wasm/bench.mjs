// WASM GEMM benchmark under Node, one process, one thread: our kernels (SIMD128 build and,
// where the engine validates it, the relaxed-SIMD FMA build; B packed per call and
// pre-packed) beside XNNPACK (@tensorflow/tfjs-backend-wasm, SIMD build, which packs B once
// per tensor) and onnxruntime-web (B as an input, and B as an initializer it pre-packs).
// Medians of interleaved rounds; GFLOP/s, and GB/s of B for M = 1.
// Usage: node --experimental-wasm-relaxed-simd bench.mjs BUILD_DIR [--quick | --all] [--reps N]
//        [--ghz G] [--shape MxKxN] [--only name,name]
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import * as tf from '@tensorflow/tfjs-core';
import * as tfwasm from '@tensorflow/tfjs-backend-wasm';

import { matmulModel } from './onnx_model.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const valued = new Set(['--reps', '--ghz', '--shape', '--only']);
const buildDir = path.resolve(args.find((a, i) => !a.startsWith('--') && !valued.has(args[i - 1])) ?? '.');
const quick = args.includes('--quick');
const all = args.includes('--all');
const reps = Number(opt('--reps', 5));
const ghz = Number(opt('--ghz', 3.4));
const only = opt('--only', '')?.split(',').filter(Boolean) ?? [];
const minRound = 0.05;  // seconds of calls per implementation per round

// Same shapes as the native benchmark (bench/gemm_bench.cpp): square, then M×K×N projections.
function shapes() {
  const custom = opt('--shape');
  if (custom) return custom.split(',').map((s) => s.split('x').map(Number));
  const s = [64, 128, 256, 512, 1024].map((n) => [n, n, n]);
  let kn = [[768, 768], [768, 3072], [3072, 768], [4096, 4096], [4096, 11008], [11008, 4096]];
  if (all) kn = [768, 3072, 4096, 11008].flatMap((k) => [768, 3072, 4096, 11008].map((n) => [k, n]));
  if (quick) kn = [[768, 3072], [4096, 4096]];
  for (const m of [1, 16, 128, 512]) for (const [k, n] of kn) s.push([m, k, n]);
  return s;
}

async function loadOurs(name) {
  const js = path.join(buildDir, `${name}.js`);
  const wasmBinary = readFileSync(path.join(buildDir, `${name}.wasm`));
  if (!WebAssembly.validate(wasmBinary)) return null;  // e.g. relaxed SIMD without the flag
  const mod = await require(js)({ wasmBinary });
  return { mod, kernel: mod.UTF8ToString(mod._bench_kernel_name()) };
}

function randomFloats(n, seed) {
  const v = new Float32Array(n);
  let s = (seed * 2654435761 + 1) >>> 0;
  for (let i = 0; i < n; ++i) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    v[i] = (s >>> 8) / (1 << 24) - 0.5;
  }
  return v;
}

// Each implementation: setup(shape) → { run(), result() → Float32Array, free() }.
function ourImpls(label, ours) {
  const { mod } = ours;
  const heapCopy = (arr) => {
    const p = mod._malloc(arr.length * 4);
    mod.HEAPF32.set(arr, p >> 2);
    return p;
  };
  const make = (packed) => ({
    name: `${label} ${packed ? 'pre-packed' : 'per-call'}`,
    setup([M, K, N], A, B) {
      const a = heapCopy(A), b = heapCopy(B), c = mod._malloc(M * N * 4);
      const pb = packed ? mod._bench_pack_b(K, N, b) : 0;
      return {
        run: (iters) => packed ? mod._bench_sgemm_packed(M, a, pb, c, iters)
                               : mod._bench_sgemm(M, N, K, a, b, c, iters),
        result: () => mod.HEAPF32.slice(c >> 2, (c >> 2) + M * N),
        free: () => { if (pb) mod._bench_free_packed(pb); mod._free(a); mod._free(b); mod._free(c); },
      };
    },
  });
  return [make(false), make(true)];
}

function xnnpackImpl() {
  return {
    name: 'XNNPACK (tfjs-wasm)',
    setup([M, K, N], A, B) {
      const a = tf.tensor2d(A, [M, K]), b = tf.tensor2d(B, [K, N]);
      let last = null;
      return {
        run: (iters) => {
          for (let i = 0; i < iters; ++i) {
            if (last) last.dispose();
            last = tf.matMul(a, b);  // synchronous in the wasm backend
          }
        },
        result: () => last.dataSync(),
        free: () => { if (last) last.dispose(); a.dispose(); b.dispose(); },
      };
    },
  };
}

function ortImpl(bConstant) {
  return {
    name: `ORT-web ${bConstant ? '(B initializer)' : '(B input)'}`,
    async setup([M, K, N], A, B) {
      const session = await ort.InferenceSession.create(matmulModel(M, K, N, bConstant ? B : null),
                                                        { executionProviders: ['wasm'] });
      const feeds = { A: new ort.Tensor('float32', A, [M, K]) };
      if (!bConstant) feeds.B = new ort.Tensor('float32', B, [K, N]);
      let out = null;
      return {
        run: async (iters) => { for (let i = 0; i < iters; ++i) out = await session.run(feeds); },
        result: () => out.C.data,
        free: () => session.release(),
      };
    },
  };
}

const median = (v) => {
  const s = [...v].sort((x, y) => x - y), n = s.length;
  return n % 2 ? s[(n - 1) / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
};

function maxRelDiff(x, ref) {
  let num = 0, den = 0;
  for (let i = 0; i < ref.length; ++i) {
    num = Math.max(num, Math.abs(x[i] - ref[i]));
    den = Math.max(den, Math.abs(ref[i]));
  }
  return den > 0 ? num / den : num;
}

async function main() {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  tfwasm.setWasmPaths(path.join(here, 'node_modules/@tensorflow/tfjs-backend-wasm/dist') + '/');
  await tf.setBackend('wasm');
  await tf.ready();

  const simd = await loadOurs('gemm_bench_wasm');
  const relaxed = await loadOurs('gemm_bench_wasm_relaxed');
  let impls = [...ourImpls('ours simd128', simd)];
  if (relaxed) impls.push(...ourImpls('ours relaxed', relaxed));
  impls.push(xnnpackImpl(), ortImpl(false), ortImpl(true));
  if (only.length) impls = impls.filter((im) => only.some((o) => im.name.includes(o)));

  const peakAssumed = ghz * 16;  // 2 × 128-bit mul + 2 × 128-bit add per cycle (4 lanes each)
  const peakLoop = (mod) => {  // best of several calls: V8 tiers the loop up between calls
    let best = 0;
    for (let i = 0; i < 30; ++i) best = Math.max(best, mod._bench_peak_gflops(2_000_000));
    return best;
  };
  const peak128 = peakLoop(simd.mod);
  const peakRelaxed = relaxed ? peakLoop(relaxed.mod) : 0;
  console.log('# WASM GEMM benchmark, Node ' + process.versions.node + ' (V8 ' + process.versions.v8 +
              '), single thread, fp32 row-major\n');
  console.log(`- ours: ${simd.kernel}` + (relaxed ? `, and ${relaxed.kernel} (relaxed-SIMD build)`
                                                  : ' (relaxed-SIMD build not validated by this engine: run node with --experimental-wasm-relaxed-simd)'));
  console.log(`- XNNPACK: @tensorflow/tfjs-backend-wasm ${tfwasm.version_wasm}, SIMD build, ` +
              `WASM_HAS_MULTITHREAD_SUPPORT=false; ORT: onnxruntime-web ${ort.env.versions?.web ?? ''}, numThreads=1`);
  console.log(`- peak: ${peakAssumed.toFixed(1)} GFLOP/s assumed = ${ghz} GHz × 16 flop/cycle ` +
              `(2 mul + 2 add pipes × 4 lanes); register-only loops reach ${peak128.toFixed(1)} (mul+add)` +
              (relaxed ? ` and ${peakRelaxed.toFixed(1)} (relaxed FMA)` : ''));
  console.log(`- each cell: median of ${reps} interleaved rounds; M = 1 rows in GB/s of B read`);
  console.log(`- load average at start: ${os.loadavg()[0].toFixed(2)} (1 min), on ${os.cpus().length} CPUs: ` +
              'other work slows every column alike, ratios hold better than absolute numbers\n');
  const cols = impls.map((im) => im.name);
  const xi = cols.indexOf('XNNPACK (tfjs-wasm)');
  // Ratios: the better of per-call and pre-packed for each of our builds, over XNNPACK.
  const builds = ['ours simd128', 'ours relaxed'].filter((b) => cols.some((c) => c.startsWith(b)));
  console.log(`| M×K×N | ${cols.join(' | ')} |` +
              (xi >= 0 ? builds.map((b) => ` ${b.slice(5)} / XNNPACK |`).join('') + ' best ours % peak |' : ''));
  console.log(`|---|${cols.map(() => '---:').join('|')}|` + (xi >= 0 ? '---:|'.repeat(builds.length + 1) : ''));

  for (const shape of shapes()) {
    const [M, K, N] = shape;
    const A = randomFloats(M * K, 1), B = randomFloats(K * N, 2);
    const live = [];
    for (const im of impls) live.push(await im.setup(shape, A, B));
    const flops = 2 * M * K * N, bytes = 4 * K * N;
    const iters = [];
    for (const l of live) {  // warm-up, then size each round to ≥ minRound seconds
      await l.run(1);
      const t0 = performance.now();
      await l.run(1);
      const t = (performance.now() - t0) / 1e3;
      iters.push(Math.max(1, Math.ceil(minRound / Math.max(t, 1e-6))));
    }
    const times = live.map(() => []);
    for (let r = 0; r < reps; ++r) {
      for (let j = 0; j < live.length; ++j) {
        const i = (j + r) % live.length;
        const t0 = performance.now();
        await live[i].run(iters[i]);
        times[i].push((performance.now() - t0) / 1e3 / iters[i]);
      }
    }
    const rates = times.map((t) => (M === 1 ? bytes : flops) / median(t) / 1e9);
    const unit = M === 1 ? ' GB/s' : '';
    let row = `| ${M}×${K}×${N} | ${rates.map((r) => r.toFixed(1) + unit).join(' | ')} |`;
    if (xi >= 0) {
      for (const b of builds) {
        const best = Math.max(...rates.filter((_, i) => cols[i].startsWith(b)));
        row += ` ${(best / rates[xi]).toFixed(2)}× |`;
      }
      const bestTime = Math.min(...times.filter((_, i) => cols[i].startsWith('ours')).map(median));
      row += ` ${(100 * flops / bestTime / 1e9 / peakAssumed).toFixed(0)}% |`;
      const ref = live[xi].result();
      const bad = live.map((l, i) => [cols[i], maxRelDiff(l.result(), ref)]).filter(([, d]) => d > 1e-4);
      if (bad.length) row += ` MISMATCH ${bad.map(([n, d]) => `${n} ${d.toExponential(1)}`).join(', ')}`;
    }
    console.log(row);
    for (const l of live) l.free();
  }
}

await main();
