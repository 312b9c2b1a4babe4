// The one model loader (see model_source.hpp).
#include "model_source.hpp"

#include "hf_config.hpp"
#include "presets.hpp"

namespace llmsize::core {

Result<LoadedModel> load_model(const ModelSource& src) {
  LoadedModel out;
  if (src.kind == ModelSource::Kind::Preset) {
    auto p = find_preset(src.text);
    if (!p) {
      // find_preset names the CLI flag; sources name their key (as share links do).
      std::vector<Issue> issues = p.issues();
      for (auto& i : issues)
        if (i.field == "--preset") i.field = "preset";
      return issues;
    }
    out.config = std::move(p.value().config);
    out.preset = std::string(src.text);
    return out;
  }
  ImportOptions opt;
  opt.generic_fallback = src.generic;
  auto imported = import_hf_config(src.text, opt);
  if (!imported) return imported.issues();
  out.config = std::move(imported.value().config);
  out.notes = std::move(imported.value().notes);
  return out;
}

}  // namespace llmsize::core
