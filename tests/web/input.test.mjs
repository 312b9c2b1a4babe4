// Input paths of the page as a person uses them: pasting and dropping a config.json, typing
// a bad value into a field, tapping on a touch screen, copying the link to the clipboard,
// and following a link into an open page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { setUp, tearDown, openPage, frames, clickWidget, widgetCentre, figures, screenshot, selectAll, ARTIFACTS } from './harness.mjs';

before(setUp);
after(tearDown);

const CONFIG = fs.readFileSync('tests/core/configs/falcon-rw-1b.json', 'utf8');

// Pastes `text` as a person does (a clipboard paste event on the document), then lets the page draw.
async function paste(page, text) {
  await page.evaluate((t) => {
    const dt = new DataTransfer();
    dt.setData('text/plain', t);
    document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, text);
  await frames(page, 3);
}

test('pasting a config.json anywhere on the page imports it', async () => {
  const { page, context, problems } = await openPage();
  await paste(page, CONFIG);
  const f = await figures(page);
  assert.equal(f.model.family, 'falcon');
  assert.equal(f.model.name, 'pasted config');
  assert.deepEqual(await page.evaluate(() => Module.banners()), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('dropping a config.json file on the page imports it; a broken one is reported', async () => {
  const { page, context, problems } = await openPage();
  const drop = (name, text) => page.evaluate(([n, t]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], n, { type: 'application/json' }));
    document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [name, text]);
  await drop('falcon-rw-1b.json', CONFIG);
  await page.waitForFunction(() => JSON.parse(Module.figures()).model.name === 'falcon-rw-1b.json', null, { timeout: 10000 });
  await drop('broken.json', '{"model_type": "llama", "hidden_size": ');
  await page.waitForFunction(() => Module.banners().length > 0, null, { timeout: 10000 });
  assert.match((await page.evaluate(() => Module.banners()))[0], /broken\.json/);
  assert.equal((await figures(page)).model.name, 'falcon-rw-1b.json', 'the broken file left the model as it was');
  assert.deepEqual(problems, []);
  await context.close();
});

test('dropping a GGUF model file reads its header only, on this machine, and the model from it', async () => {
  const { page, context, problems } = await openPage({ hash: '#v=1&preset=llama-3-8b&ui.tab=memory' });
  await frames(page, 2);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  // Qwen2.5-0.5B's metadata as convert_hf_to_gguf.py writes it, general.file_type 7 (Q8_0), one f32
  // tensor, then 64 MiB standing in for the weights: the page must not read them.
  const read = await page.evaluate(() => {
    const enc = new TextEncoder();
    const b = [];
    const u32 = (v) => { for (let k = 0; k < 4; k++) b.push((v >>> (8 * k)) & 255); };
    const u64 = (v) => { u32(v % 4294967296); u32(Math.floor(v / 4294967296)); };
    const str = (s) => { const x = enc.encode(s); u64(x.length); b.push(...x); };
    const keys = [['qwen2.block_count', 24], ['qwen2.context_length', 32768], ['qwen2.embedding_length', 896],
      ['qwen2.feed_forward_length', 4864], ['qwen2.attention.head_count', 14], ['qwen2.attention.head_count_kv', 2],
      ['qwen2.vocab_size', 151936], ['general.file_type', 7]];
    b.push(...enc.encode('GGUF')); u32(3); u64(1); u64(keys.length + 1);
    str('general.architecture'); u32(8); str('qwen2');
    for (const [k, v] of keys) { str(k); u32(4); u32(v); }
    str('output_norm.weight'); u32(1); u64(896); u32(0); u64(0);
    while (b.length % 32) b.push(0);
    const file = new File([new Uint8Array(b), new Uint8Array(896 * 4), new Uint8Array(64 << 20)], 'qwen2.5-0.5b-q8_0.gguf');
    const dt = new DataTransfer();
    dt.items.add(file);
    document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    return file.size;
  });
  await page.waitForFunction(() => JSON.parse(Module.figures()).model.name === 'qwen2.5-0.5b-q8_0.gguf', null, { timeout: 20000 });
  const f = await figures(page);
  const want = await page.evaluate(() => Module.estimate({ preset: 'qwen2.5-0.5b' }, {}).params.total);
  assert.equal(f.params.total, want);
  const bytesRead = await page.evaluate(() => Module.modelFileRead());
  assert.ok(bytesRead > 0 && bytesRead < read / 8, `read ${bytesRead} of ${read} bytes`);
  assert.deepEqual(requests, [], 'nothing was fetched or sent');
  await frames(page, 3);
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.file') !== null), 'the file beside the estimate');
  await screenshot(page, 'web-gguf-drop.png');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a config.json and a .safetensors checkpoint dropped together: its header only is read, its bytes the weights', async () => {
  const { page, context, problems } = await openPage({ hash: '#v=1&preset=llama-3-8b&ui.tab=memory' });
  await frames(page, 2);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  // A small Llama (hidden 64, 2 layers, vocabulary 200,000, untied) and its bf16 checkpoint as transformers
  // names and shapes it ([out, in]); the checkpoint is dropped before its config: configs are read first.
  const read = await page.evaluate(() => {
    const config = { model_type: 'llama', hidden_size: 64, intermediate_size: 128, num_attention_heads: 4,
      num_key_value_heads: 2, num_hidden_layers: 2, vocab_size: 200000, max_position_embeddings: 512, tie_word_embeddings: false };
    const t = [['model.embed_tokens.weight', [200000, 64]], ['model.norm.weight', [64]], ['lm_head.weight', [200000, 64]]];
    for (let l = 0; l < 2; l++) {
      for (const [n, s] of [['input_layernorm.weight', [64]], ['self_attn.q_proj.weight', [64, 64]], ['self_attn.k_proj.weight', [32, 64]],
        ['self_attn.v_proj.weight', [32, 64]], ['self_attn.o_proj.weight', [64, 64]], ['post_attention_layernorm.weight', [64]],
        ['mlp.gate_proj.weight', [128, 64]], ['mlp.up_proj.weight', [128, 64]], ['mlp.down_proj.weight', [64, 128]]])
        t.push([`model.layers.${l}.${n}`, s]);
    }
    const header = {};
    let at = 0;
    for (const [n, s] of t) {
      const bytes = s.reduce((a, b) => a * b, 1) * 2;
      header[n] = { dtype: 'BF16', shape: s, data_offsets: [at, at + bytes] };
      at += bytes;
    }
    const json = new TextEncoder().encode(JSON.stringify(header));
    const len = new Uint8Array(8);
    new DataView(len.buffer).setUint32(0, json.length, true);
    const file = new File([len, json, new Uint8Array(at)], 'model.safetensors');
    const dt = new DataTransfer();
    dt.items.add(file);
    dt.items.add(new File([JSON.stringify(config)], 'config.json'));
    document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    return { size: file.size, data: at };
  });
  await page.waitForFunction(() => Module.modelFileRead() > 0, null, { timeout: 20000 });
  const f = await figures(page);
  assert.equal(f.model.name, 'config.json');
  assert.equal(f.inference.weights_bytes, read.data, 'the checkpoint\'s bytes are the weights');
  assert.equal(f.inference.weights_bytes, f.params.total * 2);
  const bytesRead = await page.evaluate(() => Module.modelFileRead());
  assert.ok(bytesRead > 0 && bytesRead < read.size / 8, `read ${bytesRead} of ${read.size} bytes`);
  assert.deepEqual(requests, [], 'nothing was fetched or sent');
  await frames(page, 3);
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.file') !== null), 'the checkpoint beside the estimate');
  await screenshot(page, 'web-safetensors-drop.png');
  // The link carries the checkpoint's bytes per tensor (not the file): a fresh page opened from it
  // gives the same figures without the file.
  const link = await page.evaluate(() => Module.currentLink());
  assert.match(link, /&file=st~0~/);
  assert.deepEqual(problems, []);
  await context.close();
  const b = await openPage({ hash: link });
  assert.deepEqual(await figures(b.page), f);
  assert.deepEqual(await b.page.evaluate(() => Module.banners()), []);
  assert.deepEqual(b.problems, []);
  await b.context.close();
});

test('the file picker opens a GGUF model file and a config.json, read here', async () => {
  const { page, context, problems } = await openPage({ hash: '#v=1&preset=llama-3-8b' });
  await frames(page, 2);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  // Gemma 3 1B's metadata (gemma3, no output.weight: the head is tied) and a config.json of
  // another model picked together: the config is read first, the model file then sets the model.
  const b = [];
  const u32 = (v) => { for (let k = 0; k < 4; k++) b.push((v >>> (8 * k)) & 255); };
  const u64 = (v) => { u32(v % 4294967296); u32(Math.floor(v / 4294967296)); };
  const str = (s) => { const x = Buffer.from(s, 'utf8'); u64(x.length); b.push(...x); };
  const keys = [['gemma3.block_count', 26], ['gemma3.context_length', 32768], ['gemma3.embedding_length', 1152],
    ['gemma3.feed_forward_length', 6912], ['gemma3.attention.head_count', 4], ['gemma3.attention.head_count_kv', 1],
    ['gemma3.attention.key_length', 256], ['gemma3.attention.sliding_window', 512], ['gemma3.vocab_size', 262144]];
  b.push(...Buffer.from('GGUF')); u32(3); u64(0); u64(keys.length + 1);
  str('general.architecture'); u32(8); str('gemma3');
  for (const [k, v] of keys) { str(k); u32(4); u32(v); }
  const chooser = page.waitForEvent('filechooser');
  await clickWidget(page, 'import.pick');
  await (await chooser).setFiles([
    { name: 'gemma-3-1b.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from(b) },
    { name: 'falcon-rw-1b.json', mimeType: 'application/json', buffer: fs.readFileSync('tests/core/configs/falcon-rw-1b.json') },
  ]);
  await page.waitForFunction(() => JSON.parse(Module.figures()).model.name === 'gemma-3-1b.gguf', null, { timeout: 20000 });
  const f = await figures(page);
  assert.equal(f.params.total, await page.evaluate(() => Module.estimate({ preset: 'gemma-3-1b' }, {}).params.total));
  assert.deepEqual(requests, [], 'nothing was fetched or sent');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the files of a split GGUF model dropped together are read as one model', async () => {
  const { page, context, problems } = await openPage({ hash: '#v=1&preset=llama-3-8b&ui.tab=memory' });
  await frames(page, 2);
  // Two files as gguf-split writes them: split.no / split.count (u16), split.tensors.count (i32);
  // the metadata in the first. Dropped in the wrong order, with 8 MiB standing in for the weights.
  const sizes = await page.evaluate(() => {
    const enc = new TextEncoder();
    const shard = (no) => {
      const b = [];
      const u16 = (v) => { b.push(v & 255, (v >>> 8) & 255); };
      const u32 = (v) => { for (let k = 0; k < 4; k++) b.push((v >>> (8 * k)) & 255); };
      const u64 = (v) => { u32(v % 4294967296); u32(Math.floor(v / 4294967296)); };
      const str = (s) => { const x = enc.encode(s); u64(x.length); b.push(...x); };
      const keys = [['qwen2.block_count', 24], ['qwen2.context_length', 32768], ['qwen2.embedding_length', 896],
        ['qwen2.feed_forward_length', 4864], ['qwen2.attention.head_count', 14], ['qwen2.attention.head_count_kv', 2],
        ['qwen2.vocab_size', 151936]];
      b.push(...enc.encode('GGUF')); u32(3); u64(1); u64(3 + (no === 0 ? keys.length + 1 : 0));
      if (no === 0) { str('general.architecture'); u32(8); str('qwen2'); for (const [k, v] of keys) { str(k); u32(4); u32(v); } }
      str('split.no'); u32(2); u16(no);
      str('split.count'); u32(2); u16(2);
      str('split.tensors.count'); u32(5); u32(2);
      str(no === 0 ? 'output_norm.weight' : 'token_embd.weight'); u32(1); u64(896); u32(0); u64(0);
      while (b.length % 32) b.push(0);
      return new File([new Uint8Array(b), new Uint8Array(896 * 4), new Uint8Array(8 << 20)], `qwen-0000${no + 1}-of-00002.gguf`);
    };
    const files = [shard(1), shard(0)];
    const dt = new DataTransfer();
    for (const f of files) dt.items.add(f);
    document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    return files.map((f) => f.size);
  });
  await page.waitForFunction(() => JSON.parse(Module.figures()).model.name === 'qwen-00001-of-00002.gguf', null, { timeout: 20000 });
  const f = await figures(page);
  assert.equal(f.params.total, await page.evaluate(() => Module.estimate({ preset: 'qwen2.5-0.5b' }, {}).params.total));
  const read = await page.evaluate(() => Module.modelFileRead());
  // One first read (4 MiB) of each file holds its header: nothing more is read.
  assert.ok(read > 0 && read <= 2 * (4 << 20) && read < sizes[0] + sizes[1], `read ${read} bytes of two files of ${sizes[0] + sizes[1]}`);
  assert.deepEqual(await page.evaluate(() => Module.banners()), [], 'both files read: no note left');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a config.json of an unsupported family can be read as a LLaMA-like decoder', async () => {
  const { page, context, problems } = await openPage();
  await page.evaluate((t) => Module.importText(t, 'olmo-1b.json'), fs.readFileSync('tests/core/configs/olmo-1b.json', 'utf8'));
  await frames(page, 2);
  assert.match((await page.evaluate(() => Module.banners())).join(' '), /olmo/);
  await screenshot(page, 'web-import-retry.png');
  await clickWidget(page, 'banner.retry');
  const f = await figures(page);
  assert.equal(f.model.name, 'olmo-1b.json');
  assert.deepEqual(await page.evaluate(() => Module.banners()), []);
  assert.deepEqual(problems, []);
  await context.close();
});


test('typing a value that breaks the model shows the reason inline and keeps the page alive', async () => {
  const { page, context, problems } = await openPage();
  await clickWidget(page, 'field:H');
  await selectAll(page);
  await page.keyboard.type('7');
  await frames(page, 3);
  const f = await figures(page);
  assert.match(f.issues || '', /num_attention_heads|heads/);
  const stats = await screenshot(page, 'web-validation.png');
  assert.ok(stats.nonBackground > 0.1, JSON.stringify(stats));
  assert.ok(await page.evaluate(() => Module.widgetRect('reset_preset') !== null), 'the way back is offered');
  await selectAll(page);
  await page.keyboard.type('32');
  await frames(page, 3);
  assert.equal((await figures(page)).issues, undefined, 'fixing the value clears the problem');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a tap on a touch screen picks a preset', async () => {
  const { page, context, problems } = await openPage({ touch: true, width: 1024, height: 768 });
  await frames(page, 2);
  const names = await page.evaluate(() => Module.widgetNames());
  const target = names.find((n) => n.startsWith('preset:') && n !== 'preset:llama-3-8b');
  const c = await widgetCentre(page, target);
  await page.touchscreen.tap(c.x, c.y);
  await frames(page, 4);
  const id = target.slice('preset:'.length);
  const want = await page.evaluate((i) => Module.estimate({ preset: i }, {}).params.total, id);
  assert.equal((await figures(page)).params.total, want);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Copy link puts the page address with the state on the clipboard', async () => {
  const { page, context, problems } = await openPage({ clipboard: true, hash: '#v=1&preset=gpt2&seq=512' });
  await clickWidget(page, 'copy_link');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const link = await page.evaluate(() => Module.currentLink());
  assert.ok(copied.endsWith(link), `${copied} ends with ${link}`);
  assert.ok(copied.startsWith('http://127.0.0.1:'));
  assert.deepEqual(problems, []);
  await context.close();
});

test('the Share tab copies the chosen engine\'s launch command, the one the JS API and the CLI give', async () => {
  const { page, context, problems } = await openPage({ clipboard: true, hash: '#v=1&preset=llama-3.1-8b&rt=vllm&seq=8192&util=0.95&ui.tab=share' });
  await frames(page, 3);
  assert.ok(await page.evaluate(() => Module.widgetRect('share.launch') !== null), 'the launch command is shown');
  await clickWidget(page, 'share.copy_launch');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, 'vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192 --dtype bfloat16 --gpu-memory-utilization 0.95');
  await screenshot(page, 'web-share-launch.png');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the Share tab downloads the figures as JSON (with every derivation) and as CSV, made in the page', async () => {
  const { page, context, problems } = await openPage({ hash: '#v=1&preset=llama-3-8b&seq=8192&batch=4&ui.tab=share' });
  await frames(page, 3);
  const save = async (widget) => {
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 15000 }), clickWidget(page, widget)]);
    return { name: download.suggestedFilename(), text: fs.readFileSync(await download.path(), 'utf8') };
  };
  const f = await figures(page);
  const json = await save('share.download_json');
  assert.equal(json.name, 'llmsize-figures.json');
  const j = JSON.parse(json.text);
  assert.equal(j.params.total, f.params.total);
  assert.equal(j.inference.kv_cache_bytes, 4294967296, 'the KV cache of 4 × 8192 tokens');
  assert.ok(j.explain.length > 10 && j.explain.every((x) => x.formula.length > 0), 'every derivation');
  const csv = await save('share.download_csv');
  assert.equal(csv.name, 'llmsize-figures.csv');
  assert.ok(csv.text.startsWith('key,label,unit,bound,value,formula,reference\r\n'));
  assert.ok(csv.text.includes('\r\ninference.kv_cache_bytes,KV cache,bytes,'), 'the KV cache row');
  assert.ok(csv.text.includes(',4294967296,'), 'its whole value');
  // The memory chart: the core's SVG, and the page's PNG of it (twice its size).
  const svg = await save('share.download_svg');
  assert.equal(svg.name, 'llmsize-memory.svg');
  assert.ok(svg.text.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="720" '));
  assert.ok(svg.text.includes('>KV cache</text>'));
  const [pngDownload] = await Promise.all([page.waitForEvent('download', { timeout: 15000 }), clickWidget(page, 'share.download_png')]);
  assert.equal(pngDownload.suggestedFilename(), 'llmsize-memory.png');
  const png = fs.readFileSync(await pngDownload.path());
  assert.deepEqual([...png.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'a PNG signature');
  assert.equal(png.readUInt32BE(16), 1440, 'twice the SVG\'s 720 px width');
  fs.writeFileSync(`${ARTIFACTS}/web-memory-chart.png`, png);
  assert.deepEqual(problems, []);
  await context.close();
});

test('following a link into an open page switches to its state', async () => {
  const { page, context, problems } = await openPage();
  await page.evaluate(() => { location.hash = '#v=1&preset=gemma-2-9b&batch=8'; });
  await page.waitForFunction(() => JSON.parse(Module.figures()).model.name.includes('Gemma'), null, { timeout: 10000 });
  assert.equal(await page.evaluate(() => Module.currentLink()), '#v=1&preset=gemma-2-9b&batch=8');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the mouse wheel scrolls a panel by a few lines per notch, in the direction of the wheel', async () => {
  const { page, context, problems } = await openPage();
  const before = await widgetCentre(page, 'field:L');
  const c = await widgetCentre(page, 'preset.search');
  await page.mouse.move(c.x, c.y + 300);  // over the dimensions of the Model panel
  await page.mouse.wheel(0, 100);          // one notch down (Chromium: 100 px)
  await frames(page, 4);
  const after = await widgetCentre(page, 'field:L');
  const moved = before.y - after.y;
  assert.ok(moved > 10 && moved < 200, `content moved up by ${moved} px for one notch`);
  assert.deepEqual(problems, []);
  await context.close();
});

// Opens the Memory tab's log box and pastes `text` into it.
async function pasteLog(page, text) {
  await clickWidget(page, 'memory.log_check');
  await clickWidget(page, 'memory.log_input');
  await paste(page, text);
}

test('a vLLM start-up log pasted into the Memory tab is checked against the model', async () => {
  // The published vLLM 0.19 start-up of Llama-3.1-8B (tests/fuzz/corpus/engine_log/): pasted into the
  // box it is typed there (not imported as a config); the check reads its settings and sets each
  // figure beside llmsize's. The JS API's checkLog gives the same comparison.
  const LOG = fs.readFileSync('tests/fuzz/corpus/engine_log/vllm-0.19-llama-3.1-8b.log', 'utf8');
  const { page, context, problems } = await openPage({ hash: '#v=1&preset=llama-3.1-8b&ui.tab=memory', height: 1400 });
  await pasteLog(page, LOG);
  assert.equal((await figures(page)).model.name, 'Llama 3.1 8B', 'the log was typed into the box, not imported');
  await clickWidget(page, 'memory.log_button');
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.log_rows') !== null), 'the comparison is drawn');
  await screenshot(page, 'web-check-log.png');
  const c = await page.evaluate((text) => Module.checkLog(text, { preset: 'llama-3.1-8b' }, {}), LOG);
  assert.equal(c.engine, 'vLLM');
  assert.equal(c.version, '0.19.0');
  assert.deepEqual(c.settings, { seq: '8192', util: '0.95', pc: 'no' });  // 'enable_prefix_caching': False
  const row = (k) => c.rows.find((r) => r.key === k);
  assert.equal(row('weights_bytes').same_text, true);
  assert.equal(row('kv_tokens').logged, '476,016');
  assert.ok(Math.abs(row('kv_tokens').rel_diff) < 1e-4);
  const bad = await page.evaluate(() => Module.checkLog('not a log', { preset: 'llama-3.1-8b' }, {}));
  assert.equal(bad.issues[0].field, 'log');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a log of a checkpoint a preset is: the page offers that preset, checkLog picks it without a model', async () => {
  // The vLLM 0.19 start-up of Qwen/Qwen3-8B pasted while Llama 3.1 8B is open: the page says the
  // log ran preset qwen3-8b and a click opens it; the JS API given no model checks against it.
  const LOG = fs.readFileSync('tests/fuzz/corpus/engine_log/vllm-0.19-qwen3-8b.log', 'utf8');
  const { page, context, problems } = await openPage({ hash: '#v=1&preset=llama-3.1-8b&ui.tab=memory', height: 1400 });
  await pasteLog(page, LOG);
  await clickWidget(page, 'memory.log_button');
  await screenshot(page, 'web-check-log-other-model.png');
  await clickWidget(page, 'memory.log_use_preset');
  await page.waitForFunction(() => JSON.parse(Module.figures()).model.name === 'Qwen3 8B');
  assert.equal(await page.evaluate(() => Module.widgetRect('memory.log_use_preset')), null, 'offered only while another model is open');
  const c = await page.evaluate((text) => Module.checkLog(text, undefined, {}), LOG);
  assert.equal(c.preset, 'qwen3-8b');
  assert.equal(c.rows.find((r) => r.key === 'kv_tokens').logged, '418,688');
  const named = await page.evaluate((text) => Module.checkLog(text, { preset: 'qwen3-8b' }, {}), LOG);
  assert.equal(named.preset, undefined);
  assert.deepEqual(named.rows, c.rows);
  const none = await page.evaluate(() => Module.checkLog(
    "(APIServer pid=1) INFO 04-22 00:03:35 [entrypoints/utils.py:233] non-default args: {'model': 'someone/unknown-7b'}\n" +
    '(EngineCore pid=242) INFO 04-22 00:04:20 [v1/core/kv_cache_utils.py:1319] GPU KV cache size: 476,016 tokens\n', undefined, {}));
  assert.equal(none.issues[0].field, 'model');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a Megatron-LM training log pasted on the Memory tab in training mode is checked rank by rank', async () => {
  // GPT-345M over 4 pipeline stages (tests/fuzz/corpus/engine_log/megatron-gpt345m-pp4.log): the
  // box is on the Memory tab in training mode too; the check reads the run's arguments and sets each
  // rank's parameters and report_memory figures beside the megatron recipe's.
  const LOG = fs.readFileSync('tests/fuzz/corpus/engine_log/megatron-gpt345m-pp4.log', 'utf8');
  const { page, context, problems } = await openPage({ hash: '#v=1&preset=gpt2-medium&mode=training&ui.tab=memory', height: 1400 });
  await pasteLog(page, LOG);
  await clickWidget(page, 'memory.log_button');
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.log_rows') !== null), 'the comparison is drawn');
  await screenshot(page, 'web-check-log-megatron.png');
  const c = await page.evaluate((text) => Module.checkLog(text, { preset: 'gpt2-medium' }, {}), LOG);
  assert.equal(c.engine, 'Megatron-LM');
  assert.equal(c.settings.recipe, 'megatron');
  assert.equal(c.settings.pp, '4');
  const row = (k) => c.rows.find((r) => r.key === k);
  for (const s of [0, 1, 2, 3]) assert.equal(row(`params:0,${s}`).same_text, true, `stage ${s}'s parameters`);
  assert.ok(Math.abs(row('max_allocated:3').rel_diff) < 0.005, 'the loss stage within 0.5%');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a DeepSpeed-Chat step-1 log pasted on the Memory tab is checked beside the deepspeed recipe', async () => {
  // OPT-1.3b's published log (tests/fuzz/corpus/engine_log/dschat-opt-1.3b-step1.log): its cmd line
  // sets the run; the GPUs (16) are the page's, as the note says; rank 0's MaxMemAllocated stands
  // beside the recipe's peak (0.8% under, the calibration's stated miss).
  const LOG = fs.readFileSync('tests/fuzz/corpus/engine_log/dschat-opt-1.3b-step1.log', 'utf8');
  const { page, context, problems } = await openPage({ hash: '#v=1&preset=opt-1.3b&mode=training&gpus=16&gpu=v100-32gb&ui.tab=memory', height: 1400 });
  await pasteLog(page, LOG);
  await clickWidget(page, 'memory.log_button');
  assert.ok(await page.evaluate(() => Module.widgetRect('memory.log_rows') !== null), 'the comparison is drawn');
  await screenshot(page, 'web-check-log-deepspeed.png');
  const c = await page.evaluate((text) => Module.checkLog(text, { preset: 'opt-1.3b' }, { gpus: '16', gpu: 'v100-32gb' }), LOG);
  assert.equal(c.engine, 'DeepSpeed-Chat');
  assert.equal(c.settings.recipe, 'deepspeed');
  assert.equal(c.settings.zero, '2');
  const row = (k) => c.rows.find((r) => r.key === k);
  assert.equal(row('max_mem_allocated').llmsize, '22.76GB');
  assert.ok(Math.abs(row('max_mem_allocated').rel_diff) < 0.01, 'the peak within 1%');
  assert.deepEqual(problems, []);
  await context.close();
});
