// Binds the decoder's weight tensors to their roles (LayerW, GlobalW). The inventory lists
// each layer's tensors in a fixed order with a Role each; norms carry no role of their own,
// so they are told apart by where they appear (see bind.cpp). An inventory shaped otherwise
// is reported as an Issue, never guessed at.
#pragma once
#include <optional>

#include "decoder.hpp"

namespace llmsize::ref {

// dec.weights holds the global tensors (when dec.opt.globals) then layers
// [first, first + count) in inventory order; fills dec.g and dec.layers.
std::optional<core::Issue> bind_weights(Decoder& dec, i64 first, i64 count);

}  // namespace llmsize::ref
