// The calculator's state and the operations a user performs on it (pick a preset, import a
// config.json, edit a field, open a link), as plain data and free functions so that tests
// drive them without a window. Every figure is computed by the core from this state; nothing
// here is a formula.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/lang.hpp"
#include "core/gguf.hpp"
#include "core/safetensors.hpp"
#include "core/estimate.hpp"
#include "core/format.hpp"
#include "core/launch.hpp"
#include "core/model.hpp"
#include "core/presets.hpp"
#include "core/share_link.hpp"
#include "core/workload.hpp"

namespace llmsize::app {

struct Banner {
  std::string text;  // in the language shown when it was made
  bool error = true;
  // An unsupported model_type: the config's text, offered again with the generic
  // LLaMA-like reading (core::ImportOptions::generic_fallback) when the user asks.
  std::string retry_text, retry_name;
  // "Read file k of n" of a split model or a sharded checkpoint: replaced as the files arrive.
  bool progress = false;
  // The text in any language, so that the banner follows a language switch; null: `text` as it is.
  std::function<std::string(core::Lang)> text_in{};
  core::Lang text_lang = core::Lang::En;  // the language of `text`
};
// A banner whose text is `text_in` in the language shown now, and in the one shown later.
Banner make_banner(std::function<std::string(core::Lang)> text_in, bool error, bool progress = false);
// The banner's text in `lang`.
std::string banner_text(const Banner& b, core::Lang lang);

// Text being typed into one field, kept while it does not parse, with the reason.
struct FieldEdit {
  std::string text;
  std::string error;
};

// Result tabs; the share link names them ("ui.tab"). Compare is drawn before Share.
enum class ResultTab : int { Params, Memory, Scaling, Gpus, Throughput, Demo, Share, Compare };
inline constexpr int kResultTabCount = 8;
const char* tab_id(ResultTab t);  // "params", "memory", …

struct AppState {
  core::ModelConfig cfg;
  core::Workload work;
  std::string preset_id;     // preset the model started from; "" for an imported config
  std::string model_name;    // preset name or imported file name
  std::vector<core::Issue> import_notes;  // assumptions the importer made
  core::ByteUnit unit = core::ByteUnit::GB;
  bool dark = true;
  bool embed = false;
  // The interface language: the link's "lang", else the system's or the browser's, else
  // English; the top bar switches it.
  core::Lang lang = core::Lang::En;
  ResultTab tab = ResultTab::Params;
  bool workload_panel = false;  // the input column shows Workload instead of Model
  bool tab_from_link = false;   // select `tab` once (a link or a test opened it)
  std::vector<Banner> banners;  // problems with a link or an import, shown until dismissed
  std::map<std::string, FieldEdit, std::less<>> edits;  // by field key (model and workload keys are distinct)
  // A GGUF model file the model was read from (its header only): its bytes are the weights (where
  // its tensors match the model) and stand beside the estimate in the Memory tab until another
  // model is chosen. The serial changes with every file read or dropped.
  std::optional<core::GgufHeader> model_file;
  // The file's types (GGUF) or bytes and dtypes (safetensors) per tensor as a share link carries
  // them (core::file_summary): from the file read here, or from a link opened without it. Empty:
  // no file, or one a link cannot carry.
  std::string model_file_summary;
  core::i64 model_file_serial = 0;
  // Shards of a split model read so far (gguf-split files: one model, several files), until all
  // of them are: then merged into model_file. With the bytes read for them.
  std::vector<core::GgufHeader> model_file_shards;
  core::i64 model_file_shards_read = 0;
  // A multimodal projector (an mmproj file read here, or a link's "mmproj"): its bytes are the
  // vision encoder; -1: none. Kept while model files come and go; another preset or config drops it.
  core::i64 projector_bytes = -1;
  std::string projector_name;
  std::string model_file_name;
  core::i64 model_file_read = 0;  // bytes of the file read to get its header
  // A safetensors checkpoint read for its headers (one .safetensors file, or every shard of
  // model-0000k-of-0000N.safetensors): its bytes stand beside the estimate, matched to the model
  // (which a config.json gives: the format carries no architecture). A link does not carry it.
  std::vector<core::SafetensorsHeader> model_safetensors;
  std::vector<std::pair<core::i64, core::SafetensorsHeader>> safetensors_shards;  // shard number → header, until all are read
  core::i64 safetensors_shards_read = 0;  // bytes read for them
  // A comparison (core::compare): cases 2… as they were when added (their links' states, without
  // view settings); case 1 is the configuration above, which the inputs keep editing. Empty: none.
  // A link carries them (core::encode_compare_link); another preset or config keeps them.
  std::vector<core::ShareState> compare;
};

// A GGUF file's first `head` bytes (the file is `file_bytes` long): the model from its metadata,
// the weight format from its file type, the file kept beside the estimate. Returns 0 when done
// (read, or refused with a banner naming the problem), else the bytes to read before calling again.
core::i64 import_model_file(AppState& s, std::string_view head, core::i64 file_bytes, std::string_view name);

// The same for a .safetensors file (import_model_file dispatches on the name): its header beside
// the model; the shards of model-0000k-of-0000N.safetensors are kept until all N are read.
core::i64 import_safetensors_file(AppState& s, std::string_view head, core::i64 file_bytes, std::string_view name);

// Compiled-in presets, parsed once.
const std::vector<core::Preset>& presets();
const core::Preset* find_preset(std::string_view id);

// The state a fresh page opens with (LLaMA-3-8B when present, else the first preset).
AppState default_state();

// Replaces the model by a preset; false (state unchanged) when the id is unknown.
bool load_preset(AppState& s, std::string_view id);

// Imports a Hugging Face config.json; on failure the state is unchanged and a banner names
// what was wrong. `name` is the file name shown in the header.
bool import_config(AppState& s, std::string_view json_text, std::string_view name, bool generic = false);

// True when the model differs from the preset it started from (the link then carries dims).
bool model_edited(const AppState& s);

// The share-link state of the app: preset (unless the model was edited or imported), model,
// workload, and the view settings as "ui.*" keys (byte unit, result tab).
core::ShareState share_state(const AppState& s);
std::string link_of(const AppState& s);       // "#v=1&…"
std::string cli_of(const AppState& s);        // "llmsize estimate --preset … --seq …"
// The chosen engine's launch command (core::launch_command), naming the GGUF file read for
// llama-server, or the preset's repository for vLLM and SGLang.
core::Result<core::LaunchCommand> launch_of(const AppState& s);
// The figures as the page's test hooks and the download read them (core::estimate_report), and
// as CSV (core::estimate_csv; the issues' JSON when the state has none), with the files' bytes.
std::string figures_csv(const AppState& s);
// The memory chart of the current state as SVG (core::memory_chart_svg, in the state's unit).
std::string chart_svg(const AppState& s);
// The model prepared with the files read for it attached (their bytes the weights where its
// tensors match), as the app, the figures and the download estimate it.
core::Result<core::PreparedModel> prepared_of(const AppState& s);

// Compare. Every case of the comparison, case 1 (the state) first, without view settings.
std::vector<core::ShareState> compare_cases(const AppState& s);
// Adds a copy of the current configuration as the last case; false (nothing changes) when the
// comparison already has core::kMaxCompareCases cases.
bool add_compare_case(AppState& s);
// Drops case `number` (2…); false when there is no such case.
bool remove_compare_case(AppState& s, size_t number);
// Case `number` (2…) becomes the one the inputs edit, and the current configuration takes its
// place in the comparison; false when there is no such case.
bool edit_compare_case(AppState& s, size_t number);
// The tab a state opens on when its link names none: Compare for a comparison, else Parameters.
ResultTab default_tab(const AppState& s);

// Opens a share link (a comparison's too). A bad link leaves the default state and a banner naming every problem.
bool open_link(AppState& s, std::string_view fragment);

// The figures of the current state as JSON: core::estimate_report(), the CLI's --json
// report (the page's and the desktop app's test hooks read it; with_explain: every derivation).
std::string figures_json(const AppState& s, bool with_explain = false);

}  // namespace llmsize::app
