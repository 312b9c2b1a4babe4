// A naive scalar model of the same maths as the reference decoder, for the tests only:
// straight loops in double, whole sequences recomputed from position 0 (no KV cache, no
// tiling, no absorbed MLA, no expert grouping), weights looked up by checkpoint name rather
// than through the decoder's role binding. Written separately from src/ref on purpose.
#pragma once
#include <cstdint>
#include <vector>

#include "ref/decoder.hpp"

namespace llmsize::test {

// Hidden states (b, T, d) at positions 0..T-1 through every layer the decoder built.
// per_layer: Gemma 4's per-layer inputs (b, T, built layers, ple_dim), empty for other models.
std::vector<double> naive_layers(const ref::Decoder& dec, const std::vector<float>& x, std::int64_t T,
                                 const std::vector<float>& per_layer = {});

// Token ids (b, T) through embeddings, layers, final norm and head: logits (b, v) of the
// last position of each sequence.
std::vector<double> naive_logits(const ref::Decoder& dec, const std::vector<std::int32_t>& tokens,
                                 std::int64_t T);

// Deterministic test inputs: uniform in [-1, 1) from a seed.
std::vector<float> random_floats(std::int64_t n, std::uint64_t seed);

// Largest |a - ref| divided by the root mean square of ref.
double max_rel_error(const std::vector<float>& a, const std::vector<double>& ref);

}  // namespace llmsize::test
