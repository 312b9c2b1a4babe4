// The live part of api-example.html: calls the JS API and shows the answers. Everything is
// added as DOM nodes with textContent, never as HTML, so nothing the estimator returns (a
// model name from a config, say) can become markup. Sets window.llmsizeApiResult for the tests.
createLlmsize().then((llmsize) => {
  'use strict';
  const out = document.getElementById('out');
  const fmt = (n) => Number(n).toLocaleString('en-US');
  const gb = (b) => (b / 1e9).toFixed(2) + ' GB';
  const el = (tag, text, cls) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  };
  out.textContent = '';

  const presets = llmsize.presets();
  out.append(el('p', `llmsize ${llmsize.version()}: ${presets.length} presets.`));
  const table = el('table');
  const head = el('tr');
  for (const h of ['preset', 'parameters', 'active']) head.append(el('th', h));
  table.append(head);
  for (const p of presets.slice(0, 8)) {
    const row = el('tr');
    row.append(el('td', p.name), el('td', fmt(p.total), 'n'), el('td', fmt(p.active), 'n'));
    table.append(row);
  }
  out.append(table);

  const e = llmsize.estimate({ preset: 'llama-3-8b' }, { seq: 8192, batch: 4 });
  out.append(el('p', `Llama 3 8B, 8192 tokens × 4 sequences in bf16 on ${e.gpu.name}: ${fmt(e.params.total)} parameters; ` +
    `weights ${gb(e.inference.weights_bytes)}, KV cache ${gb(e.inference.kv_cache_bytes)}, ` +
    `${gb(e.inference.total_bytes)} per GPU at the prefill peak (${e.fit.inference_fits ? 'fits' : 'does not fit'}); ` +
    `decode at most ${e.throughput.decode_tokens_per_s.toFixed(0)} tokens/s.`));

  const result = { presets: presets.length, llama3_8b_total: e.params.total, kv_bytes: e.inference.kv_cache_bytes, decodedOk: true };
  const d = llmsize.decodeLink('#v=1&preset=mixtral-8x7b&seq=8192');
  const bad = llmsize.decodeLink('#v=1&seq=-3');
  result.decodedOk = !d.issues && Array.isArray(bad.issues);
  out.append(el('p', `decodeLink('#v=1&preset=mixtral-8x7b&seq=8192') → ${JSON.stringify(d).slice(0, 200)}…`));
  out.append(el('p', `decodeLink('#v=1&seq=-3') → ${JSON.stringify(bad)}`));
  window.llmsizeApiResult = result;
  window.llmsizeApiDone = true;
});
