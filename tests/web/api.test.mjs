// The JS API without the UI: the example page that documents it, and the module under node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { setUp, tearDown, openPage, WEB_DIR } from './harness.mjs';

before(setUp);
after(tearDown);

test('the JS API example page answers', async () => {
  const { page, context, problems } = await openPage({ file: 'api-example.html', waitFirstFrame: false });
  await page.waitForFunction(() => window.llmsizeApiDone === true, null, { timeout: 30000 });
  const out = await page.evaluate(() => window.llmsizeApiResult);
  assert.equal(out.presets > 30, true);
  assert.equal(out.llama3_8b_total, 8030261248);
  assert.equal(out.kv_bytes, 4294967296, 'KV cache of 4 × 8192 tokens, bf16: 2·32·8·128·2 bytes per token');
  assert.ok(out.decodedOk);
  await page.screenshot({ path: 'artifacts/web-api-example.png', fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('the API module runs under node with the same numbers', async () => {
  const require = createRequire(import.meta.url);
  const create = require(path.resolve(WEB_DIR, 'llmsize_api.js'));
  // Node 20 cannot fetch a file path: hand the module its .wasm bytes.
  const api = await create({ wasmBinary: fs.readFileSync(path.resolve(WEB_DIR, 'llmsize_api.wasm')) });
  const presets = api.presets();
  assert.ok(presets.length > 30);
  const e = api.estimate({ preset: 'llama-2-7b' }, {});
  assert.equal(e.params.total, 6738415616);
  const bad = api.estimate({ preset: 'nope' }, {});
  assert.ok(Array.isArray(bad.issues) && bad.issues[0].field === 'preset');
  const hf = api.estimate({ model_type: 'llama', hidden_size: 4096, intermediate_size: 11008, num_attention_heads: 32,
    num_hidden_layers: 32, vocab_size: 32000, max_position_embeddings: 4096 }, {});
  assert.equal(hf.params.total, 6738415616);
  // llama.cpp over two different cards, split 2:1: each device's layers and buffers come back.
  const two = api.estimate({ preset: 'qwen2.5-7b' },
    { rt: 'llamacpp', w: 'q4_k_m', pp: 2, gpus: 2, ts: '2,1', devs: 'rtx-4090,rtx-3060-12gb', seq: 32768 });
  assert.deepEqual(two.engine.devices.map((d) => [d.name, d.layers, d.output_layer]), [['CUDA0', 20, false], ['CUDA1', 8, true]]);
  const wrong = api.estimate({ preset: 'qwen2.5-7b' }, { rt: 'llamacpp', pp: 2, gpus: 2, devs: 'rtx-4090' });
  assert.match(wrong.issues, /^devs: lists 1 devices for 2 pipeline stages/);
  // vLLM over three pipeline stages: get_pp_indices' split, the fewest blocks of any stage.
  const pp = api.estimate({ preset: 'llama-3.1-8b' }, { rt: 'vllm', pp: 3, gpus: 3, seq: 8192, gpu: 'h100-sxm' });
  assert.deepEqual(pp.engine.stages.map((s) => s.layers), [11, 11, 10]);
  assert.equal(pp.engine.num_blocks, Math.min(...pp.engine.stages.map((s) => s.num_blocks)));
  assert.match(pp.engine.log_lines[0], /^Hidden layers were unevenly partitioned: \[11,11,10\]/);
  // SGLang's hybrid pool for Llama 4's chunked layers: the sliding pool at 0.8 of the full one.
  const scout = api.estimate({ preset: 'llama-4-scout' }, { rt: 'sglang', tp: 4, gpus: 4, seq: 8192, mfs: 0.85 });
  assert.equal(scout.engine.swa_pool.swa_layers, 36);
  assert.equal(scout.engine.swa_pool.swa_tokens, Math.floor(scout.engine.kv_tokens * 0.8));
  assert.ok(scout.engine.log_lines.some((l) => l.startsWith('SWAKVPool mem usage: ')));
});

test('the JS API gives the same report as the CLI for the same state', async () => {
  const require = createRequire(import.meta.url);
  const { execFileSync } = await import('node:child_process');
  const cli = path.resolve(WEB_DIR, '..', 'src', 'cli', 'llmsize.js');
  if (!fs.existsSync(cli)) throw new Error(`no WASM CLI at ${cli}`);
  const create = require(path.resolve(WEB_DIR, 'llmsize_api.js'));
  const api = await create({ wasmBinary: fs.readFileSync(path.resolve(WEB_DIR, 'llmsize_api.wasm')) });
  const fromApi = api.estimate({ preset: 'mixtral-8x7b' }, { seq: 8192, batch: 4, w: 'q4_k_m' });
  const cmd = api.cliCommand({ preset: 'mixtral-8x7b' }, { seq: 8192, batch: 4, w: 'q4_k_m' });
  assert.match(cmd, /--preset mixtral-8x7b/);
  const args = cmd.split(/\s+/).slice(1).concat(['--json']);
  const fromCli = JSON.parse(execFileSync('node', ['--no-experimental-fetch', cli, ...args], { encoding: 'utf8' }));
  assert.deepEqual(fromApi, fromCli);
  // The launch command: the same as `llmsize export` prints for the same state.
  const launch = api.launchCommand({ preset: 'mixtral-8x7b' }, { rt: 'vllm', seq: 8192, tp: 2, gpus: 2 }, null);
  assert.equal(launch.command, 'vllm serve mistralai/Mixtral-8x7B-v0.1 --max-model-len 8192 --dtype bfloat16 ' +
    '--gpu-memory-utilization 0.9 --tensor-parallel-size 2');
  const exported = JSON.parse(execFileSync('node', ['--no-experimental-fetch', cli, 'export', '--preset', 'mixtral-8x7b', '--runtime', 'vllm',
    '--seq', '8192', '--tp', '2', '--gpus', '2', '--json'], { encoding: 'utf8' }));
  assert.deepEqual(launch, exported);
  assert.equal(api.launchCommand({ preset: 'mixtral-8x7b' }, { rt: 'llamacpp', kvt: 'fp8' }, null).issues[0].field, 'kvt');
  // A training recipe's own command (Megatron-LM's pretrain_gpt.py, one flag a line), the same both ways.
  const megatron = api.launchCommand({ preset: 'gpt2-medium' }, { mode: 'training', recipe: 'megatron', gpus: 4, tp: 2, pp: 2, sp: 1,
    dtype: 'fp16', flash: 0, dropout: 1, seq: 1024, batch: 4, accum: 4, gpu: 'a100-80gb' }, null);
  assert.ok(megatron.command.startsWith('torchrun --nproc_per_node 4 pretrain_gpt.py \\\n  --tensor-model-parallel-size 2'), megatron.command);
  const megatronCli = JSON.parse(execFileSync('node', ['--no-experimental-fetch', cli, 'export', '--preset', 'gpt2-medium', '--mode', 'training',
    '--recipe', 'megatron', '--gpus', '4', '--tp', '2', '--pp', '2', '--seq-parallel', '1', '--dtype', 'fp16', '--flash', '0', '--dropout', '1',
    '--seq', '1024', '--batch', '4', '--grad-accum', '4', '--gpu', 'a100-80gb', '--json'], { encoding: 'utf8' }));
  assert.deepEqual(megatron, megatronCli);
  // Over FSDP, the hf-peft recipe's command reads a configuration file: its keys are flags marked in_config.
  const fsdp = api.launchCommand({ preset: 'mistral-7b' }, { mode: 'training', recipe: 'hf-peft', gpus: 2, zero: 'fsdp', dtype: 'bf16',
    prec: 'pure', lora: 0, ostate: 'bf16', rc: 'full', seq: 4096, batch: 2, gpu: 'a100-80gb' }, null);
  assert.ok(fsdp.command.startsWith('accelerate launch --config_file fsdp_config.yaml -m trl.scripts.sft \\\n'), fsdp.command);
  assert.equal(fsdp.config.name, 'fsdp_config.yaml');
  assert.deepEqual(fsdp.flags.filter((f) => f.in_config).map((f) => f.flag), ['fsdp_sharding_strategy', 'num_machines', 'num_processes']);
  // A comparison: the same as `llmsize compare --json` prints for its link, from the link or from the cases.
  const cases = [{ model: { preset: 'llama-3-8b' }, workload: {} }, { model: { preset: 'llama-3-8b' }, workload: { w: 'q4_k_m' } }];
  const compared = api.compare(cases);
  assert.equal(compared.link, '#v=1&preset=llama-3-8b&c2=v%3D1%26preset%3Dllama-3-8b%26w%3Dq4_k_m');
  const comparedCli = JSON.parse(execFileSync('node', ['--no-experimental-fetch', cli, 'compare', compared.link, '--json'], { encoding: 'utf8' }));
  assert.deepEqual({ ...compared, link: undefined }, { ...comparedCli, link: undefined });
  assert.deepEqual(api.compare(compared.link), compared);
  assert.ok(compared.rows.find((r) => r.key === 'inference.weights_bytes').differs);
  assert.equal(api.compare([cases[0], { model: { preset: 'llama-3-8b' }, workload: { seq: 0 } }]).issues[0].field, 'cases[1].seq');
  assert.equal(api.compare('#v=1&preset=gpt2&c3=v%3D1').issues[0].field, 'c2');
  assert.equal(api.compare([cases[0]]).issues[0].field, 'cases');
  const link = api.encodeLink({ preset: 'mixtral-8x7b' }, { seq: 8192, batch: 4, w: 'q4_k_m' });
  assert.deepEqual(api.decodeLink(link).workload, { seq: '8192', batch: '4', w: 'q4_k_m' });
});
