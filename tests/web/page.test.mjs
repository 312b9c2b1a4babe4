// Browser tests of the calculator page: Debian's Chromium, headless, WebGL2 via SwiftShader.
// Run by tests/web/run.sh (LLMSIZE_WEB_DIR = the built web folder). Screenshots and
// measurements go to artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setUp, tearDown, openPage, frames, clickWidget, figures, screenshot, record, selectAll, ARTIFACTS } from './harness.mjs';

before(setUp);
after(tearDown);

test('the page loads without console errors and draws its first frame (time to first frame reported)', async () => {
  const { page, context, problems, responses } = await openPage();
  const firstFrameMs = await page.evaluate(() => window.llmsizeFirstFrameMs);
  const stats = await screenshot(page, 'web-default.png');
  assert.deepEqual(problems, []);
  assert.ok(stats.distinctColours > 200 && stats.nonBackground > 0.2, `canvas looks blank: ${JSON.stringify(stats)}`);
  const canvas = await page.evaluate(() => ({ w: Module.canvas.width, h: Module.canvas.height, cw: innerWidth, ch: innerHeight }));
  assert.equal(canvas.w, canvas.cw);
  assert.equal(canvas.h, canvas.ch);
  let transfer = 0;
  for (const r of responses) transfer += Number((await r.allHeaders())['content-length'] || 0);
  record('first_frame_ms', Math.round(firstFrameMs));
  // Where the time goes (performance marks from navigation start): the module's download, the runtime
  // ready (download and compile), main(), the WebGL context, init (fonts, presets), then the first
  // frame's GL objects (shaders, font texture), its UI (the first estimate) and its draw.
  const steps = await page.evaluate(() => {
    const out = {};
    for (const e of performance.getEntriesByType('resource'))
      if (e.name.endsWith('.wasm')) out.wasm_downloaded = Math.round(e.responseEnd);
    out.runtime_ready = Math.round(window.llmsizeRuntimeMs);
    for (const e of performance.getEntriesByType('mark')) out[e.name.replace('llmsize:', '')] = Math.round(e.startTime);
    return out;
  });
  record('first_frame_steps_ms', steps);
  record('transfer_bytes_gzip_served', transfer);
  // Generous bound: SwiftShader on a shared 2-core machine; the measured value is reported.
  assert.ok(firstFrameMs < 5000, `first frame after ${firstFrameMs} ms`);
  await context.close();
  // Issue 14's measure: four loads, each in a fresh browser context (an empty cache, as a first
  // visit), the time to the first frame of each and their median and largest.
  const loads = [Math.round(firstFrameMs)];
  for (let k = 1; k < 4; ++k) {
    const again = await openPage();
    loads.push(Math.round(await again.page.evaluate(() => window.llmsizeFirstFrameMs)));
    assert.deepEqual(again.problems, []);
    await again.context.close();
  }
  const sorted = [...loads].sort((a, b) => a - b);
  record('first_frame_ms_four_loads', loads);
  record('first_frame_ms_median_of_four', Math.round((sorted[1] + sorted[2]) / 2));
  record('first_frame_ms_largest_of_four', sorted[3]);
  assert.ok(sorted[3] < 5000, `first frames ${loads.join(', ')} ms`);
});

test('the canvas follows devicePixelRatio and the window size', async () => {
  const { page, context, problems } = await openPage({ width: 900, height: 640, dpr: 2 });
  await frames(page, 3);
  const c = await page.evaluate(() => ({ w: Module.canvas.width, h: Module.canvas.height }));
  assert.deepEqual(c, { w: 1800, h: 1280 });
  await page.setViewportSize({ width: 700, height: 500 });
  await page.waitForFunction(() => Module.canvas.width === 1400 && Module.canvas.height === 1000, null, { timeout: 10000 });
  const stats = await screenshot(page, 'web-hidpi.png');
  assert.ok(stats.nonBackground > 0.2);
  assert.deepEqual(problems, []);
  await context.close();
});

test('choosing another preset with the mouse and keyboard changes the figures', async () => {
  const { page, context, problems } = await openPage();
  const before = await figures(page);
  await clickWidget(page, 'preset.search');
  await page.keyboard.type('mixtral 8x7');
  await frames(page, 3);
  await clickWidget(page, 'preset.first');
  const after = await figures(page);
  const expected = await page.evaluate(() => Module.estimate({ preset: 'mixtral-8x7b' }, {}));
  assert.equal(after.model.name, 'Mixtral 8x7B');
  assert.notEqual(after.params.total, before.params.total);
  assert.equal(after.params.total, expected.params.total);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a share link opened in a fresh page restores identical figures', async () => {
  const a = await openPage();
  await clickWidget(a.page, 'preset.search');
  await a.page.keyboard.type('qwen3');
  await frames(a.page, 3);
  await clickWidget(a.page, 'preset.first');
  const link = await a.page.evaluate(() => Module.currentLink());
  const figsA = await figures(a.page);
  const hash = await a.page.evaluate(() => location.hash);
  assert.match(link, /^#v=1&/);
  assert.equal(hash, link, 'the URL fragment follows the state');
  await a.context.close();

  const b = await openPage({ hash: link });
  const figsB = await figures(b.page);
  assert.deepEqual(figsB, figsA);
  assert.equal(await b.page.evaluate(() => Module.currentLink()), link);
  assert.deepEqual(await b.page.evaluate(() => Module.banners()), []);
  assert.deepEqual(b.problems, []);
  await b.context.close();
});

test('a comparison link opens on the Compare tab; a case added or removed is in the link', async () => {
  // The link `llmsize compare` reads: Llama 3 8B in bf16 and q4_k_m, Qwen2.5 7B on an RTX 4090.
  const link = '#v=1&preset=llama-3-8b&c2=v%3D1%26preset%3Dllama-3-8b%26w%3Dq4_k_m&c3=v%3D1%26preset%3Dqwen2.5-7b%26gpu%3Drtx-4090';
  const { page, context, problems } = await openPage({ hash: link, height: 1000 });
  await frames(page, 3);
  const names = await page.evaluate(() => Module.widgetNames());
  for (const n of ['compare.table', 'compare.bars', 'compare.edit.3', 'compare.remove.2'])
    assert.ok(names.includes(n), `${n} is drawn`);
  assert.equal(await page.evaluate(() => Module.currentLink()), link);
  assert.deepEqual(await page.evaluate(() => Module.banners()), []);
  const stats = await screenshot(page, 'web-compare.png');
  assert.ok(stats.distinctColours > 200 && stats.nonBackground > 0.2, JSON.stringify(stats));

  // A fourth case: a copy of case 1; then the Add button is disabled (four is the most).
  await clickWidget(page, 'compare.add');
  await frames(page, 2);
  const four = await page.evaluate(() => Module.currentLink());
  assert.equal(four, link + '&c4=v%3D1%26preset%3Dllama-3-8b');
  assert.equal(await page.evaluate(() => location.hash), four, 'the URL fragment follows the comparison');
  await clickWidget(page, 'compare.add');
  await frames(page, 2);
  assert.equal(await page.evaluate(() => Module.currentLink()), four);
  // Case 3 into the inputs: Qwen2.5 7B is the model; case 1 takes its column.
  await clickWidget(page, 'compare.edit.3');
  await frames(page, 2);
  assert.equal((await figures(page)).model.name, 'Qwen2.5 7B');
  assert.match(await page.evaluate(() => Module.currentLink()), /^#v=1&preset=qwen2.5-7b&gpu=rtx-4090&c2=.*&c3=v%3D1%26preset%3Dllama-3-8b&c4=/);
  await clickWidget(page, 'compare.remove.2');
  await frames(page, 2);
  assert.doesNotMatch(await page.evaluate(() => Module.currentLink()), /q4_k_m|c4=/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a bad link opens the default state with a message naming what was wrong', async () => {
  const def = await openPage();
  const defaults = await figures(def.page);
  await def.context.close();
  const { page, context, problems } = await openPage({ hash: '#v=1&preset=no-such-model&seq=12x' });
  const banners = await page.evaluate(() => Module.banners());
  assert.ok(banners.length >= 1, 'a message is shown');
  assert.match(banners.join(' '), /preset|no-such-model/);
  assert.deepEqual(await figures(page), defaults);
  const stats = await screenshot(page, 'web-bad-link.png');
  assert.ok(stats.nonBackground > 0.2);
  assert.ok(await page.evaluate(() => Module.widgetRect('banner') !== null), 'the message is drawn');
  assert.deepEqual(problems, []);
  await context.close();
  // Broken percent-encoding and an overlong link are refused the same way.
  for (const hash of ['#v=1&preset=%E0%A4%A', '#v=1&seq=' + '9'.repeat(9000)]) {
    const b = await openPage({ hash });
    assert.ok((await b.page.evaluate(() => Module.banners())).length >= 1, `a message for ${hash.slice(0, 40)}`);
    assert.deepEqual(await figures(b.page), defaults);
    assert.deepEqual(b.problems, []);
    await b.context.close();
  }
});

test('embed mode renders a compact calculator without chrome', async () => {
  const { page, context, problems } = await openPage({ query: '?embed=1', hash: '#v=1&preset=mixtral-8x7b', width: 760, height: 520 });
  const stats = await screenshot(page, 'web-embed.png');
  assert.ok(stats.nonBackground > 0.2, JSON.stringify(stats));
  const names = await page.evaluate(() => Module.widgetNames());
  assert.ok(!names.includes('copy_link'), 'no top bar in embed mode');
  assert.ok(names.includes('figure.total'), 'the figures are shown');
  assert.equal((await figures(page)).model.name, 'Mixtral 8x7B');
  assert.deepEqual(problems, []);
  await context.close();
});

test('embed mode shows a comparison link on its Compare tab', async () => {
  const link = '#v=1&preset=llama-3-8b&c2=v%3D1%26preset%3Dllama-3-8b%26w%3Dq4_k_m';
  const { page, context, problems } = await openPage({ query: '?embed=1', hash: link, width: 760, height: 520 });
  await frames(page, 3);
  const names = await page.evaluate(() => Module.widgetNames());
  assert.ok(names.includes('tab.compare') && names.includes('compare.table'), 'the comparison is shown');
  assert.ok(!names.includes('tab.share') && !names.includes('copy_link'), 'still no chrome in embed mode');
  assert.equal(await page.evaluate(() => Module.currentLink()), link);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the light theme renders', async () => {
  const { page, context, problems } = await openPage();
  await clickWidget(page, 'theme');
  const stats = await screenshot(page, 'web-light.png');
  assert.ok(stats.nonBackground > 0.2);
  assert.deepEqual(problems, []);
  await context.close();
});

test('every figure is recomputed each frame within the frame budget', async () => {
  // Each tab: the UI build (every figure recomputed by the core, the UI laid out) and the
  // whole frame (that plus WebGL submission; under SwiftShader the GPU work is CPU work).
  for (const tab of ['params', 'memory', 'scaling', 'gpus', 'throughput']) {
    const { page, context } = await openPage({ hash: `#v=1&preset=llama-3-8b&seq=8192&batch=4&ui.tab=${tab}` });
    await page.waitForTimeout(2000);
    const s = JSON.parse(await page.evaluate(() => Module.frameStats()));
    if (tab === 'memory') {
      // Every figure opens to its formula: open the KV cache row.
      await clickWidget(page, 'row:inference.kv_cache_bytes');
      assert.ok(await page.evaluate(() => Module.widgetRect('open:inference.kv_cache_bytes') !== null), 'the formula shows');
    }
    await page.screenshot({ path: `${ARTIFACTS}/web-tab-${tab}.png` });
    record(`frame_ms_${tab}`, { frame_median: s.frame.median_ms, frame_p95: s.frame.p95_ms,
      ui_median: s.ui.median_ms, ui_p95: s.ui.p95_ms });
    assert.ok(s.ui.frames > 10, 'frames keep coming');
    // Report-first: generous bounds that only a pathological regression would cross.
    assert.ok(s.ui.median_ms < 16, `${tab}: median UI build ${s.ui.median_ms} ms`);
    assert.ok(s.frame.median_ms < 100, `${tab}: median frame ${s.frame.median_ms} ms`);
    await context.close();
  }
});

test('the demo block runs to completion with progress and draws the heat map', async () => {
  const { page, context, problems } = await openPage({ hash: '#v=1&preset=qwen2.5-0.5b' });
  await clickWidget(page, 'tab.demo');
  await clickWidget(page, 'demo.run');
  const seen = [];
  const t0 = Date.now();
  for (;;) {
    const st = JSON.parse(await page.evaluate(() => Module.demoState()));
    seen.push(st.fraction);
    if (st.done || st.error || Date.now() - t0 > 180000) break;
    await page.waitForTimeout(100);
  }
  const st = JSON.parse(await page.evaluate(() => Module.demoState()));
  assert.equal(st.error, false);
  assert.equal(st.done, true, `demo stuck at ${JSON.stringify(st)}`);
  assert.ok(seen.some((f) => f > 0 && f < 1), 'progress was visible between start and end');
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i] >= seen[i - 1], 'progress never goes back');
  assert.ok(st.heat_positions > 0);
  // Chromium validates relaxed SIMD, so the page loaded the FMA build of the kernels.
  assert.equal(await page.evaluate(() => window.llmsizeModule), 'llmsize_app_relaxed.js');
  assert.equal(st.isa, 'wasm_relaxed');
  record('demo_wall_ms', Date.now() - t0);
  const s = JSON.parse(await page.evaluate(() => Module.frameStats()));
  record('frame_ms_median_during_demo', s.frame.median_ms);
  const r = await page.evaluate(() => Module.widgetRect('demo.progress'));
  await page.mouse.move(r.x + r.w / 2, r.y + r.h / 2);
  await page.mouse.wheel(0, 2000);  // scroll the demo panel down to the heat map
  const stats = await screenshot(page, 'web-demo.png');
  assert.ok(stats.distinctColours > 200);
  assert.ok(await page.evaluate(() => Module.widgetRect('demo.heatmap') !== null), 'the heat map is drawn');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the demo\'s training step runs after the decode and sets its counters beside the estimate', async () => {
  const { page, context, problems } = await openPage({ hash: '#v=1&preset=qwen2.5-0.5b' });
  await clickWidget(page, 'tab.demo');
  for (const [field, value] of [['demo.prompt', '16'], ['demo.tokens', '2'], ['demo.train_seq', '24']]) {
    await clickWidget(page, field);
    await selectAll(page);
    await page.keyboard.type(value);
    await page.keyboard.press('Enter');
    await frames(page, 2);
  }
  await clickWidget(page, 'demo.run');
  const t0 = Date.now();
  let st;
  for (;;) {
    st = JSON.parse(await page.evaluate(() => Module.demoState()));
    if (st.done || st.error || Date.now() - t0 > 180000) break;
    await page.waitForTimeout(100);
  }
  assert.equal(st.error, false);
  assert.equal(st.done, true, `demo stuck at ${JSON.stringify(st)}`);
  // Qwen2.5-0.5B's layer 0 at 24 tokens, fp32, LoRA r 8 on q and v: the saved set and AdamW's states to the byte.
  assert.ok(st.train_saved_measured > 0);
  assert.equal(st.train_saved_measured, st.train_saved_estimated);
  assert.equal(st.train_optimizer_measured, st.train_optimizer_estimated);
  assert.equal(st.train_loss_lowered, true);
  record('demo_train_wall_ms', Date.now() - t0);
  const r = await page.evaluate(() => Module.widgetRect('demo.progress'));
  await page.mouse.move(r.x + r.w / 2, r.y + r.h / 2);
  await page.mouse.wheel(0, 900);  // down to the training step's table
  await frames(page, 3);
  assert.ok(await page.evaluate(() => Module.widgetRect('demo.train') !== null), 'the training step\'s table is drawn');
  await screenshot(page, 'web-demo-train.png');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a hybrid model\'s demo runs one Gated DeltaNet and one full-attention layer, its state to the byte', async () => {
  const { page, context, problems } = await openPage({ hash: '#v=1&preset=qwen3.5-0.8b' });
  await clickWidget(page, 'tab.demo');
  await clickWidget(page, 'demo.run');
  const t0 = Date.now();
  let st;
  for (;;) {
    st = JSON.parse(await page.evaluate(() => Module.demoState()));
    if (st.done || st.error || Date.now() - t0 > 240000) break;
    await page.waitForTimeout(200);
  }
  assert.equal(st.error, false);
  assert.equal(st.done, true, `demo stuck at ${JSON.stringify(st)}`);
  assert.equal(st.block_layers, 2);
  assert.ok(st.state_measured > 0);
  assert.equal(st.state_measured, st.state_estimated);
  assert.ok(st.heat_positions > 0, 'the full-attention layer draws its heat map');
  // The DeltaNet layer's state norm: after each 64-token chunk of the 128-token prompt, then each of 32 tokens.
  assert.equal(st.state_trace_layer, 0);
  assert.equal(st.state_trace_points, 2 + 32);
  record('demo_hybrid_wall_ms', Date.now() - t0);
  const r = await page.evaluate(() => Module.widgetRect('demo.progress'));
  await page.mouse.move(r.x + r.w / 2, r.y + r.h / 2);
  await page.mouse.wheel(0, 600);  // scroll to the memory table
  await screenshot(page, 'web-demo-hybrid.png');
  await page.mouse.wheel(0, 3000);  // to the bottom: the heat map, then the state's norm
  await frames(page, 3);
  const tr = await page.evaluate(() => Module.widgetRect('demo.state_trace'));
  assert.ok(tr !== null, 'the state trace is drawn');
  await page.mouse.move(tr.x + tr.w * 0.9, tr.y + tr.h / 2);  // its tooltip names a position
  await frames(page, 3);
  await screenshot(page, 'web-demo-state-trace.png');
  assert.deepEqual(problems, []);
  await context.close();
});

test('?simd=128 loads the SIMD128 build, which computes the same figures', async () => {
  const a = await openPage({ hash: '#v=1&preset=deepseek-v3&w=q4_k_m' });
  const b = await openPage({ query: '?simd=128', hash: '#v=1&preset=deepseek-v3&w=q4_k_m' });
  assert.equal(await b.page.evaluate(() => window.llmsizeModule), 'llmsize_app.js');
  assert.equal(JSON.parse(await b.page.evaluate(() => Module.demoState())).isa, 'wasm_simd128');
  assert.deepEqual(await figures(b.page), await figures(a.page));
  assert.deepEqual(a.problems, []);
  assert.deepEqual(b.problems, []);
  await a.context.close();
  await b.context.close();
});

test('the embed example page shows the calculator in an iframe', async () => {
  const { page, context, problems } = await openPage({ file: 'embed-example.html', waitFirstFrame: false, height: 1000 });
  await page.waitForFunction(() => document.querySelector('iframe').contentWindow.llmsizeFirstFrameMs !== undefined,
    null, { timeout: 30000 });
  const frame = page.frames().find((f) => f.url().includes('embed=1'));
  assert.ok(frame, 'the iframe loads the page in embed mode');
  await frame.waitForFunction(() => JSON.parse(Module.figures()).model.name === 'Mixtral 8x7B', null, { timeout: 10000 });
  await page.waitForTimeout(300);
  await page.screenshot({ path: 'artifacts/web-embed-example.png', fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a training recipe on the Memory tab: the hf-peft peak, its moment and its live tensors', async () => {
  // Mistral-7B QLoRA as fms-acceleration's baseline-peft-bnb run at micro-batch 4 (its published peak
  // 20,669,338,112 B with the pad token's row; tests/calibration/training/hf_peft_test.cpp).
  const { page, context, problems } = await openPage({
    hash: '#v=1&preset=mistral-7b&mode=training&recipe=hf-peft&gpu=a100-80gb&seq=4096&batch=4&rc=full&lora=16&lt=q,k,v,o&dropout=1&prec=mixed&w=nf4-dq&ui.tab=memory' });
  await frames(page, 3);
  const f = await figures(page);
  assert.equal(f.training.recipe.name, 'hf-peft');
  assert.equal(f.training.peak_allocated_bytes, 20668229120);
  assert.match(f.training.recipe.phase, /^from the second step on, in the loss's forward/);
  const parts = f.training.recipe.parts;
  assert.equal(parts.reduce((a, p) => a + p.bytes, 0), f.training.peak_allocated_bytes, 'the parts sum to the peak');
  assert.equal(parts[0].label, 'Checkpointed layer inputs');
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.recipe') !== null), 'the recipe panel is on screen');
  await page.screenshot({ path: `${ARTIFACTS}/web-recipe-hf-peft.png` });
  assert.deepEqual(problems, []);
  await context.close();
});

// GPT-2 Medium in the layout of Megatron-LM's PP 4 run (tests/calibration/training/megatron_test.cpp).
const MEGATRON_PP4 = '#v=1&preset=gpt2-medium&mode=training&pp=4&gpus=4&batch=2&accum=4&seq=1024&dtype=fp16&flash=0&dropout=1&gpu=a100-80gb';

test('pipeline stages on the Memory tab: every stage\'s GPU beside the most loaded one', async () => {
  // GPT-2 Medium over 4 pipeline stages, 4 micro-batches of 2 (the layout of Megatron-LM's PP 4 run in
  // tests/calibration/training/megatron_test.cpp, with the unpadded vocabulary).
  const { page, context, problems } = await openPage({
    hash: `${MEGATRON_PP4}&ui.tab=memory` });
  await frames(page, 3);
  const f = await figures(page);
  const stages = f.training.stages;
  assert.deepEqual(stages.map((s) => s.params_gpu), [128089088, 75577344, 75577344, 127042560]);
  assert.deepEqual(stages.map((s) => s.inflight_microbatches), [4, 3, 2, 1]);
  assert.equal(Math.max(...stages.map((s) => s.total_bytes)), f.training.total_bytes, 'the most loaded stage is the total');
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.stages') !== null), 'the stages table is on screen');
  await page.screenshot({ path: `${ARTIFACTS}/web-training-stages.png` });
  assert.deepEqual(problems, []);
  await context.close();
});

test('the megatron recipe on the Memory tab: Megatron-LM\'s own parameters and peak on every pipeline stage', async () => {
  // The same layout with --recipe megatron: the recipe pads the vocabulary as Megatron-LM does, so
  // the stages hold the parameters its log prints (tests/calibration/training/megatron_test.cpp).
  const { page, context, problems } = await openPage({
    hash: `${MEGATRON_PP4}&recipe=megatron&ui.tab=memory` });
  await frames(page, 3);
  const f = await figures(page);
  assert.equal(f.training.recipe.name, 'megatron');
  const stages = f.training.stages;
  assert.deepEqual(stages.map((s) => s.params_gpu), [128137216, 75577344, 75577344, 127090688]);
  assert.equal(Math.max(...stages.map((s) => s.peak_allocated_bytes)), f.training.peak_allocated_bytes, 'the most loaded stage is the peak');
  const parts = f.training.recipe.parts.reduce((sum, p) => sum + p.bytes, 0);
  assert.equal(parts, f.training.peak_allocated_bytes, 'the parts sum to the peak');
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.recipe') !== null), 'the recipe panel is on screen');
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.stages') !== null), 'the stages table is on screen');
  await page.screenshot({ path: `${ARTIFACTS}/web-training-megatron.png` });
  assert.deepEqual(problems, []);
  await context.close();
});

test('with the vLLM runtime the Memory tab shows the lines vllm serve prints', async () => {
  // Qwen3-8B on one H100, util 0.95, max_model_len 8192: the published vLLM 0.19 start-up
  // (tests/calibration/vllm_test.cpp) reproduced line for line.
  const { page, context, problems } = await openPage({
    hash: '#v=1&preset=qwen3-8b&rt=vllm&util=0.95&seq=8192&ui.tab=memory' });
  await frames(page, 3);
  const f = await figures(page);
  assert.equal(f.engine.name, 'vllm');
  assert.equal(f.engine.kv_tokens, 418688);
  assert.equal(f.engine.log_lines[2], 'Available KV cache memory: 57.5 GiB');
  assert.equal(f.engine.log_lines[4], 'Maximum concurrency for 8,192 tokens per request: 51.11x');
  assert.equal(f.fit.max_sequences, 51, 'the fit is vLLM\'s concurrency');
  assert.ok(f.engine.terms.every((t) => t.formula.length > 0 && t.source.length > 0), 'every term has its formula and source');
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.vllm') !== null), 'the panel is on screen');
  await page.screenshot({ path: `${ARTIFACTS}/web-vllm.png` });
  assert.deepEqual(problems, []);
  await context.close();
});

test('with the Transformers runtime the Memory tab shows what max_memory_allocated() returns after generate()', async () => {
  // Qwen2.5-7B-Instruct, a prompt of 30,720 tokens and 2,048 new on one A100: the Qwen2.5 speed
  // benchmark's 19.97 GiB (tests/calibration/transformers_test.cpp), the prompt's peak.
  const { page, context, problems } = await openPage({
    hash: '#v=1&preset=qwen2.5-7b&rt=transformers&attn=flash_attention_2&seq=32768&mnt=2048&gpu=a100-80gb&ui.tab=memory' });
  await frames(page, 3);
  const f = await figures(page);
  assert.equal(f.engine.name, 'transformers');
  assert.equal(f.engine.prompt_tokens, 30720);
  assert.equal(f.engine.peak_phase, 'prefill');
  assert.equal(f.engine.peak_allocated_bytes, 21435722752);
  assert.equal(f.engine.log_lines[0], 'torch.cuda.max_memory_allocated(): 21435722752 (19.96 GiB)');
  assert.ok(f.engine.terms.every((t) => t.formula.length > 0 && t.source.length > 0), 'every term has its formula and source');
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.transformers') !== null), 'the panel is on screen');
  await page.screenshot({ path: `${ARTIFACTS}/web-transformers.png` });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a hybrid model under vLLM: the grown attention block and padded state pages, each term in the panel', async () => {
  // Qwen3.5-0.8B: Gated DeltaNet states of 1 MiB-scale pages in blocks of attention tokens (vllm_test.cpp has
  // the published Qwen3.5-27B lines).
  const { page, context, problems } = await openPage({
    hash: '#v=1&preset=qwen3.5-0.8b&rt=vllm&seq=32768&ui.tab=memory' });
  await frames(page, 3);
  const f = await figures(page);
  assert.equal(f.engine.name, 'vllm');
  assert.match(f.engine.log_lines[0], /^Setting attention block size to \d+ tokens to ensure that attention page size is >= mamba page size\.$/);
  assert.match(f.engine.log_lines[1], /^Padding mamba page size by \d+\.\d\d% /);
  assert.ok(f.engine.terms.some((t) => t.key === 'attn_block_size' && t.value === f.engine.block_size));
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.vllm') !== null), 'the panel is on screen');
  await page.screenshot({ path: `${ARTIFACTS}/web-vllm-hybrid.png` });
  assert.deepEqual(problems, []);
  await context.close();
});

test('llama.cpp without a GPU: the host is the device, checked against the memory given', async () => {
  // Qwen3-8B Q4_K_M on the CPU alone, 8,192 tokens, 6 GiB of host memory: every buffer is the host's.
  const { page, context, problems } = await openPage({
    hash: '#v=1&preset=qwen3-8b&rt=llamacpp&w=q4_k_m&seq=8192&lcnogpu=1&hostmem=6&hostbw=89.6&ui.tab=memory' });
  await frames(page, 3);
  const f = await figures(page);
  assert.equal(f.inference.capacity_bytes, 6 * 2 ** 30);
  // Decode reads every byte of a step from host memory, at the 89.6 GB/s given; no TFLOPS for a CPU.
  assert.equal(f.throughput.decode_host_bytes, f.throughput.decode_bytes_per_step);
  assert.ok(Math.abs(f.throughput.decode_tokens_per_s - 89.6e9 / f.throughput.decode_bytes_per_step) < 1e-9);
  assert.equal(f.throughput.prefill_seconds, 0);
  assert.equal(f.fit.inference_min_gpus, null);
  assert.equal(f.inference.total_bytes, f.inference.host_bytes);
  assert.equal(f.fit.inference_fits, true);
  assert.equal(f.fit.host_fits, true);
  assert.ok(f.fit.max_context > 8192 && f.fit.max_context < 40960, `max context ${f.fit.max_context}`);
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.llamacpp_host') !== null), 'the host line is on screen');
  await page.screenshot({ path: `${ARTIFACTS}/web-llamacpp-host.png` });
  assert.deepEqual(problems, []);
  await context.close();
  // The Throughput tab: the decode bound at the host's bandwidth; without --host-tflops no prefill time.
  const tp = await openPage({ hash: '#v=1&preset=qwen3-8b&rt=llamacpp&w=q4_k_m&seq=8192&lcnogpu=1&hostbw=89.6&ui.tab=throughput' });
  await frames(tp.page, 3);
  assert.ok(await tp.page.evaluate(() => Module.widgetRect('figure.throughput') !== null), 'the throughput figures are on screen');
  await tp.page.screenshot({ path: `${ARTIFACTS}/web-llamacpp-host-throughput.png` });
  assert.deepEqual(tp.problems, []);
  await tp.context.close();
});

test('llama.cpp on a DGX Spark: the GPU and the host draw on one memory', async () => {
  // Qwen3-8B Q4_K_M, 8,192 tokens, on unified memory with 12 GiB given: the device's and the host's buffers together.
  const { page, context, problems } = await openPage({
    hash: '#v=1&preset=qwen3-8b&rt=llamacpp&w=q4_k_m&seq=8192&gpu=dgx-spark&hostmem=12&ui.tab=memory' });
  await frames(page, 3);
  const f = await figures(page);
  assert.equal(f.inference.unified_bytes, f.inference.total_bytes + f.inference.host_bytes);
  assert.equal(f.fit.host_fits, f.inference.unified_bytes <= 12 * 2 ** 30);
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.llamacpp_unified') !== null), 'the unified line is on screen');
  await page.screenshot({ path: `${ARTIFACTS}/web-llamacpp-unified.png` });
  assert.deepEqual(problems, []);
  await context.close();
});

test('with the llama.cpp runtime the Memory tab shows the lines llama-server prints', async () => {
  // gpt-oss-20b, -c 131072, one slot, f16 cache: the published SWA cache line (768 cells, 18.00 MiB).
  const { page, context, problems } = await openPage({
    hash: '#v=1&preset=gpt-oss-20b&rt=llamacpp&kvt=fp16&seq=131072&np=1&hostmem=16&ui.tab=memory' });
  await frames(page, 3);
  const f = await figures(page);
  assert.equal(f.engine.name, 'llama.cpp');
  assert.equal(f.engine.swa_cells, 768);
  // Each cache: its "creating" line, its buffer on the device, its size line.
  assert.equal(f.engine.log_lines[3], 'llama_kv_cache_iswa: creating     SWA KV cache, size = 768 cells');
  assert.equal(f.engine.log_lines[4], 'llama_kv_cache:      CUDA0 KV buffer size =    18.00 MiB');
  assert.equal(f.engine.log_lines[5],
    'llama_kv_cache: size =   18.00 MiB (   768 cells,  12 layers,  1/1 seqs), K (f16):    9.00 MiB, V (f16):    9.00 MiB');
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.llamacpp') !== null), 'the panel is on screen');
  // The host's buffers (the mapped token embedding, the inputs, the logits) against the 16 GiB given.
  assert.ok(f.inference.host_bytes > 0 && f.inference.host_bytes < f.inference.host_capacity_bytes);
  assert.equal(f.inference.host_capacity_bytes, 16 * 2 ** 30);
  assert.equal(f.fit.host_fits, true);
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.llamacpp_host') !== null), 'the host line is on screen');
  await page.screenshot({ path: `${ARTIFACTS}/web-llamacpp.png` });
  assert.deepEqual(problems, []);
  await context.close();
});
