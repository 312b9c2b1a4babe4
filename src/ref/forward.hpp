// Forward passes of a Decoder: programs over hidden states (the built layers only) or over
// token ids (embedding → layers → final norm → LM head, logits of each sequence's last
// position), plus whole-call wrappers that copy in, run to the end and copy out. Every
// call appends n tokens per sequence to the KV cache at position dec.pos.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "program.hpp"

namespace llmsize::ref {

// n tokens per sequence fit: 1 ≤ n ≤ max_tokens and pos + n ≤ context.
std::optional<core::Issue> check_call(const Decoder& dec, i64 n);

// Layers over dec.ws.x, which the caller fills with (b·n, d) rows (row = seq·n + t).
core::Result<Program> hidden_program(Decoder& dec, i64 n);

// Token ids in dec.ws.tokens ((b, n) int32, < vocab) to logits in dec.ws.logits ((b, v)).
core::Result<Program> tokens_program(Decoder& dec, i64 n);

// Whole-call wrappers. x: (b·n, d) → (b·n, d); tokens: (b, n) → logits (b, v).
// per_layer: (b·n, built layers, ple_dim) per-layer inputs (Gemma 4; HF's per_layer_inputs), empty otherwise.
core::Result<std::vector<float>> forward_hidden(Decoder& dec, const std::vector<float>& x, i64 n,
                                                const std::vector<float>& per_layer = {});
core::Result<std::vector<float>> forward_tokens(Decoder& dec, const std::vector<std::int32_t>& tokens, i64 n);

// Forgets every cached position (the next call starts at position 0).
void reset_cache(Decoder& dec);

}  // namespace llmsize::ref
