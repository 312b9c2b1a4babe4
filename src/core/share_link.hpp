// Share links: the whole calculator state in a URL fragment of short readable keys,
// "v=1&preset=llama-3-8b&seq=8192&batch=4&w=q4_k_m", carrying only what differs from the
// preset (and from the default workload); a custom model carries all of its dims. Keys come
// from model_fields() and workload_fields(); "ui.*" keys are the app's view settings,
// passed through. Decoding treats the text as untrusted: unknown or repeated keys, bad
// numbers, absurd sizes and broken encoding are Issues naming the key, never a crash.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model.hpp"
#include "workload.hpp"

namespace llmsize::core {

inline constexpr int kShareLinkVersion = 1;        // bump with a migration in decode_link
inline constexpr size_t kMaxShareLinkBytes = 8192;  // longer fragments are refused
inline constexpr size_t kMaxUiValueBytes = 64;

struct ShareState {
  std::string preset;  // preset id; empty: a custom model carried in full
  ModelConfig model;
  Workload workload;
  // View settings, in order: "ui.tab" -> "training", and "lang" -> "zh" (the interface language).
  std::vector<std::pair<std::string, std::string>> ui;
  std::string file;  // a GGUF file's weights (file_summary, file_weights.hpp); empty: none
  i64 projector_bytes = -1;  // a multimodal projector file's bytes (key "mmproj"); -1: none
  bool operator==(const ShareState&) const;
};

// "v=1&…" without a leading '#'. Only fields that differ from the preset / defaults.
std::string encode_link(const ShareState& s);

// Accepts the fragment with or without its '#'. A link without "v" is read as version 1.
// Every problem is reported (not just the first); the state is returned only when the
// whole link is valid, including validate() of the model and workload.
Result<ShareState> decode_link(std::string_view fragment);

// A comparison of up to kMaxCompareCases states in one link: the first case is the link
// itself (its usual keys, so the link is that case's v=1 link plus the others), each further
// case k under the key "c<k>" (c2, c3, c4) whose value is that case's whole link, percent-
// encoded. A case's link cannot hold another comparison (its c-keys are unknown keys there).
// Issues of case k name its keys as "c<k>.<key>".
inline constexpr int kMaxCompareCases = 4;
std::string encode_compare_link(const std::vector<ShareState>& cases);
Result<std::vector<ShareState>> decode_compare_link(std::string_view fragment);

// The same state as a CLI command line ("llmsize estimate --preset … --seq 8192 …");
// custom models are only expressible through a config file, which the command names.
std::string cli_command(const ShareState& s);

}  // namespace llmsize::core
