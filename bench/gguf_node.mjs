// Baseline for the header benchmark: @huggingface/gguf (npm) parses the same file under node
// (it reads the header in chunks from disk, like llmsize). Median of rounds in ms.
// Usage: node bench/gguf_node.mjs FILE [rounds]
import { gguf } from '@huggingface/gguf';

const [file, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg || 21);
const times = [];
for (let r = 0; r < rounds; ++r) {
  const t0 = performance.now();
  const out = await gguf(file, { allowLocalFile: true });
  times.push(performance.now() - t0);
  if (out.tensorInfos.length === 0) throw new Error('no tensors');
}
times.sort((a, b) => a - b);
console.log(`@huggingface/gguf under node (baseline: parse only)\t${times[Math.floor(rounds / 2)].toFixed(2)}`);
