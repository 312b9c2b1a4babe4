// Generated documentation of input limits (see limits.hpp).
#include "limits.hpp"

#include "gguf.hpp"
#include "hf_config.hpp"
#include "safetensors.hpp"
#include "model_fields.hpp"
#include "share_link.hpp"
#include "text_value.hpp"
#include "workload.hpp"

namespace llmsize::core {

std::string limits_markdown(Lang l) {
  auto row = [l](Str r, std::vector<RowArg> v = {}) { return row_text(r, v, l); };
  auto n = [](i64 x) { return std::to_string(x); };
  std::string o;
  o += row(Str::lim_title) + "\n\n";
  o += row(Str::lim_intro) + "\n\n";
  o += row(Str::lim_untrusted) + "\n\n";
  o += row(Str::lim_table_input) + "\n|---|---|\n";
  o += row(Str::lim_config_size, {n(kMaxConfigBytes)}) + "\n";
  o += row(Str::lim_config_nesting, {n(kMaxConfigDepth)}) + "\n";
  o += row(Str::lim_config_keys) + "\n";
  o += row(Str::lim_link, {n(kMaxShareLinkBytes)}) + "\n";
  o += row(Str::lim_link_name) + "\n";
  o += row(Str::lim_link_ui, {n(kMaxUiValueBytes)}) + "\n";
  o += row(Str::lim_gguf_header, {n(kGgufMaxHeaderBytes)}) + "\n";
  o += row(Str::lim_gguf_counts, {n(kGgufMaxTensors), n(kGgufMaxKeys), n(kGgufMaxString), n(kGgufMaxArray)}) +
       row(Str::lim_gguf_nesting, {n(kGgufMaxNesting)}) + "\n";  // one table row (row_text fills four values)
  o += row(Str::lim_gguf_tensors, {n(kGgufMaxName), n(kGgufMaxDims)}) + "\n";
  o += row(Str::lim_st_header, {n(kSafetensorsMaxHeader), n(kSafetensorsMaxTensors)}) + "\n";
  o += row(Str::lim_st_index, {n(kSafetensorsMaxShards)}) + "\n\n";
  o += row(Str::lim_config_fields) + "\n\n";
  o += row(Str::lim_config_spellings) + "\n\n";
  o += row(Str::lim_table_field) + "\n|---|---|\n";
  for (const auto& f : field_limits())
    if (f.in_config) o += row(Str::lim_config_field, {std::string(f.field), n(f.min), n(f.max)}) + "\n";
  const RealLimit& rot = *find_real_limit("partial_rotary_factor");
  o += "\n" + row(Str::lim_config_also, {format_real(rot.min), format_real(rot.max)}) + "\n\n";
  o += row(Str::lim_model_fields) + "\n\n";
  o += row(Str::lim_table_model) + "\n|---|---|---|\n";
  for (const auto& f : model_fields()) {
    const FieldText* t = field_text("model", f.key, l);
    o += "| `" + std::string(f.key) + "` | " + std::string(t ? t->label : f.label) + " | " + allowed_text(f, l) + " |\n";
  }
  o += "\n" + row(Str::lim_workload_fields) + "\n\n";
  o += row(Str::lim_table_workload) + "\n|---|---|---|---|\n";
  for (const auto& f : workload_fields()) {
    const FieldText* t = field_text("workload", f.key, l);
    o += "| `" + std::string(f.key) + "` | `" + std::string(f.flag) + "` | " + std::string(t ? t->label : f.label) + " | " +
         allowed_text(f, l) + " |\n";
  }
  return o;
}

}  // namespace llmsize::core
