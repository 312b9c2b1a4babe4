// An independent parser reads the same GGUF files as llmsize (issue 12): @huggingface/gguf (npm)
// and `llmsize gguf FILE --json` must agree on the version, the data section's offset, every
// metadata value, every tensor's name, shape, type and offset, the parameter count, and each
// tensor's bytes by the package's own block table (GGML_QUANT_SIZES, from gguf-py's constants).
// Usage: node gguf_cross_check.mjs <gguf_fixtures executable> <llmsize executable>
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import assert from "node:assert/strict";
import { gguf } from "@huggingface/gguf";

const [fixtures, llmsize] = process.argv.slice(2);
assert.ok(fixtures && llmsize, "usage: node gguf_cross_check.mjs <gguf_fixtures> <llmsize>");

// The package exports its block table from a build chunk only, not from its entry point (its
// cli.mjs runs when imported: only the chunks are loaded).
const dist = dirname(createRequire(import.meta.url).resolve("@huggingface/gguf"));
let sizes = null;
for (const f of readdirSync(dist).filter((f) => f.startsWith("chunk-") && f.endsWith(".mjs"))) {
  const m = await import(pathToFileURL(join(dist, f)).href).catch(() => ({}));
  if (m.GGML_QUANT_SIZES) sizes = m.GGML_QUANT_SIZES;
}
assert.ok(sizes, "@huggingface/gguf: GGML_QUANT_SIZES not found in " + dist);

// Where the package's table (gguf-py's constants.py) and ggml disagree, llmsize follows ggml,
// whose type_traits size the tensors llama.cpp loads: q8_1 (never stored by llama-quantize) is
//   static_assert(sizeof(block_q8_1) == 2*sizeof(ggml_half) + QK8_1, "wrong q8_1 block size/padding");
// in ggml/src/ggml-common.h, 36 bytes per 32 values, where constants.py has (32, 4 + 4 + 32).
const ggmlBlockBytes = { 9: { block: 32, ggml: 36, package: 40 } };

const kinds = ["u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"];
const dir = mkdtempSync(join(tmpdir(), "llmsize-gguf-"));
let checked = 0;
try {
  execFileSync(fixtures, [dir]);
  const files = readdirSync(dir).filter((f) => f.endsWith(".gguf")).sort();
  assert.ok(files.length >= 4, "fixtures written: " + files);
  for (const name of files) {
    const path = join(dir, name);
    const ours = JSON.parse(execFileSync(llmsize, ["gguf", path, "--json"], { encoding: "utf8" }));
    const theirs = await gguf(path, { allowLocalFile: true, typedMetadata: true, computeParametersCount: true });
    const at = (what) => `${name}: ${what}`;
    assert.equal(ours.version, theirs.typedMetadata.version.value, at("version"));
    assert.equal(BigInt(ours.header_bytes), theirs.tensorDataOffset, at("data offset"));
    assert.equal(ours.params, theirs.parameterCount, at("parameters"));
    // Metadata: every key of the file in both, with the same value (arrays: kind and length).
    const keys = Object.keys(theirs.typedMetadata).filter((k) => !["version", "tensor_count", "kv_count"].includes(k));
    assert.deepEqual(Object.keys(ours.metadata).sort(), keys.sort(), at("metadata keys"));
    for (const k of keys) {
      const t = theirs.typedMetadata[k], o = ours.metadata[k];
      if (kinds[t.type] === "array") {
        assert.deepEqual(o, { array: kinds[t.subType], length: t.value.length }, at(k));
      } else if (kinds[t.type] === "f32" || kinds[t.type] === "f64") {
        assert.equal(o, Number(t.value), at(k));
      } else if (typeof t.value === "bigint") {
        assert.equal(BigInt(o), t.value, at(k));
      } else {
        assert.equal(o, t.value, at(k));
      }
    }
    // The tensor table, and each tensor's bytes by the package's bits per weight.
    assert.equal(ours.tensor_list.length, theirs.tensorInfos.length, at("tensor count"));
    let bytes = 0;
    theirs.tensorInfos.forEach((t, i) => {
      const o = ours.tensor_list[i];
      assert.equal(o.name, t.name, at(`tensor ${i} name`));
      assert.deepEqual(o.ne.map(BigInt), t.shape, at(`${t.name} shape`));
      assert.equal(o.type_id, t.dtype, at(`${t.name} type`));
      assert.equal(BigInt(o.offset), t.offset, at(`${t.name} offset`));
      const n = t.shape.reduce((a, b) => a * b, 1n);
      assert.ok(sizes[t.dtype] !== undefined, at(`${t.name}: type ${t.dtype} not in the package's table`));
      let expected = (Number(n) * sizes[t.dtype]) / 8;
      if (ggmlBlockBytes[t.dtype]) {  // the package's figure stays as recorded, llmsize's is ggml's
        const { block, ggml, package: theirsBytes } = ggmlBlockBytes[t.dtype];
        assert.equal(expected, (Number(n) / block) * theirsBytes, at(`${t.name}: the package's block size changed`));
        expected = (Number(n) / block) * ggml;
      }
      assert.equal(o.bytes, expected, at(`${t.name} bytes (${o.type})`));
      bytes += expected;
      checked++;
    });
    assert.equal(ours.weights_bytes, bytes, at("weights bytes"));
  }
  console.log(`gguf cross-check: ${files.length} files, ${checked} tensors identical in llmsize and @huggingface/gguf`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
