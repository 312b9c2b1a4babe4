// A model file beside the estimate (see file_report.hpp).
#include "file_report.hpp"

#include <algorithm>

#include "format.hpp"
#include "json_util.hpp"

namespace llmsize::core {

// The file's bytes beside the estimate's weights for its format (the whole model, one copy),
// group by group: parameters that differ mean the file and the model read from it disagree.
namespace {
// The workload format's weights: kept beside the file's where those are the estimate's weights.
const WeightsReport& format_weights(const Estimate& e) { return e.format_weights ? *e.format_weights : e.inference.weights; }
// Whether the file's bytes are the estimate's weights, or why not (the estimate's note).
std::string replaced_line(const Estimate& e, std::string_view field, Lang l) {
  if (e.inference.weights.from_file) return "  " + std::string(tr(Str::cli_file_replaces, l)) + "\n";
  for (const Issue& n : e.notes)
    if (n.field == field) return "  " + message_in(n, l) + "\n";
  return "";
}
// A group's name in the language (lang/zh_fields.inc, "group").
std::string group_name(int k, Lang l) {
  const std::string_view key = to_string(static_cast<Group>(k));
  const FieldText* t = field_text("group", key, l);
  return std::string(t ? t->label : key);
}
// "  estimated for q4_k_m      1.23 GB (…); the file holds +0.12%" with the label padded to 31 columns.
std::string estimated_line(const Workload& w, i64 est, double diff, ByteUnit unit, Str holds, Lang l) {
  const std::string label = "  " + printf_text(tr(Str::cli_file_estimated_for, l), std::string(to_string(w.weights)).c_str());
  const std::string pct = (diff >= 0 ? "+" : "") + fixed(diff * 100, 2) + "%";
  return pad_right(label, std::max<size_t>(display_width(label) + 1, 31)) + format_bytes(est, unit) + " (" + with_commas(est) + ")" +
         printf_text(tr(holds, l), pct.c_str()) + "\n";
}
}  // namespace

std::string gguf_estimate_text(const GgufHeader& h, std::string_view path, const Workload& w, const Estimate& e, ByteUnit unit, Lang l) {
  const WeightsReport& fw = format_weights(e);
  const i64 file = h.tensor_bytes(), est = fw.total_bytes;
  const double diff = est > 0 ? static_cast<double>(file) / static_cast<double>(est) - 1.0 : 0.0;
  std::string o = printf_text(tr(Str::cli_file_from_file, l), gguf_file_type_name(h).c_str()) + "\n";
  const std::string in_file = "  " + std::string(tr(Str::cli_file_bytes_in_file, l));
  o += pad_right(in_file, std::max<size_t>(display_width(in_file) + 1, 31)) + format_bytes(file, unit) + " (" + with_commas(file) + ")\n";
  o += estimated_line(w, est, diff, unit, Str::cli_file_holds, l);
  o += replaced_line(e, "gguf", l);
  const GgufGroups g = gguf_groups(h);
  o += "  " + pad_right(tr(Str::cli_col_group, l), 12) + pad_left(tr(Str::cli_col_params_file, l), 16) + pad_left(tr(Str::cli_col_params_model, l), 17) +
       pad_left(tr(Str::cli_col_bytes_file, l), 16) + pad_left(tr(Str::cli_col_bytes_estimated, l), 20) + "\n";
  for (int k = 0; k < kGroupCount; ++k) {
    const i64 fp = g.params[static_cast<size_t>(k)], mp = e.params.by_group[static_cast<size_t>(k)];
    if (fp == 0 && mp == 0) continue;
    std::string line = pad_right("  " + group_name(k, l), 14);
    line += pad_left(with_commas(fp), 15) + pad_left(with_commas(mp), 17) + pad_left(format_bytes(g.bytes[static_cast<size_t>(k)], unit), 16) +
            pad_left(format_bytes(fw.bytes_by_group[static_cast<size_t>(k)], unit), 20);
    if (fp != mp)
      line += "  " + (g.first[static_cast<size_t>(k)].empty() ? std::string(tr(Str::cli_file_differs, l))
                                                               : printf_text(tr(Str::cli_file_differs_from, l), g.first[static_cast<size_t>(k)].c_str()));
    o += line + "\n";
  }
  if (g.unmatched_count > 0) {
    o += "  " + printf_text(tr(Str::cli_file_unmatched, l), with_commas(g.unmatched_count).c_str(), with_commas(g.unmatched_params).c_str());
    for (const auto& n : g.unmatched) o += " " + n;
    o += g.unmatched_count > static_cast<i64>(g.unmatched.size()) ? " …\n" : "\n";
  }
  const std::string table = gguf_text(h, path, l);
  o += table.substr(table.find('\n') + 1);
  return o;
}
std::string with_gguf_json(const std::string& estimate, const GgufHeader& h, const Estimate& e) {
  using json_util::json;
  auto j = json::parse(estimate, nullptr, false);
  auto f = json::parse(gguf_json(h), nullptr, false);
  if (j.is_discarded() || f.is_discarded()) return estimate;
  f["file_type"] = gguf_file_type_name(h);
  f["estimated_weights_bytes"] = format_weights(e).total_bytes;
  f["replaces_estimate"] = e.inference.weights.from_file;
  const GgufGroups g = gguf_groups(h);
  f["by_group"] = json::object();
  for (int k = 0; k < kGroupCount; ++k) {
    const auto i = static_cast<size_t>(k);
    f["by_group"][std::string(to_string(static_cast<Group>(k)))] = {
        {"params", g.params[i]}, {"bytes", g.bytes[i]}, {"model_params", e.params.by_group[i]},
        {"estimated_bytes", format_weights(e).bytes_by_group[i]}, {"first_tensor", g.first[i]}};
  }
  f["unmatched"] = {{"tensors", g.unmatched_count}, {"params", g.unmatched_params}, {"bytes", g.unmatched_bytes}, {"names", g.unmatched}};
  j["file"] = f;
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

namespace {
struct DtypeCount {
  std::string_view name;
  i64 tensors = 0, bytes = 0;
};
std::vector<DtypeCount> dtype_counts(const std::vector<SafetensorsHeader>& files) {
  std::vector<DtypeCount> out;
  for (const auto& f : files)
    for (const auto& t : f.tensors) {
      auto it = std::find_if(out.begin(), out.end(), [&](const DtypeCount& d) { return d.name == t.dtype->name; });
      if (it == out.end()) it = out.insert(out.end(), {t.dtype->name, 0, 0});
      ++it->tensors;
      it->bytes += t.bytes();
    }
  std::sort(out.begin(), out.end(), [](const DtypeCount& a, const DtypeCount& b) { return a.bytes > b.bytes; });
  return out;
}
i64 total_bytes(const std::vector<SafetensorsHeader>& files) {
  i64 sum = 0;
  for (const auto& f : files) sum += f.tensor_bytes();  // each ≤ its file
  return sum;
}
}  // namespace

std::string safetensors_text(const std::vector<SafetensorsHeader>& files, std::string_view path, Lang l) {
  i64 tensors = 0, header = 0, file = 0;
  for (const auto& f : files) tensors += static_cast<i64>(f.tensors.size()), header += f.header_bytes, file += f.file_bytes;
  std::string o = std::string(path) + ": " +
                  printf_text(tr(files.size() == 1 ? Str::cli_st_one_file : Str::cli_st_files, l), with_commas(static_cast<i64>(files.size())).c_str()) +
                  "\n";
  o += "  " + printf_text(tr(Str::cli_st_headers, l), with_commas(header).c_str(), format_bytes(file, ByteUnit::GB).c_str(),
                          with_commas(tensors).c_str(), with_commas(total_bytes(files)).c_str()) + "\n";
  o += "  " + pad_right("dtype", 12) + pad_left(tr(Str::cli_col_tensors, l), 10) + pad_left(tr(Str::cli_col_bytes, l), 18) + "\n";
  for (const auto& d : dtype_counts(files)) {
    std::string line = "  " + std::string(d.name);
    line.resize(14, ' ');
    const std::string a = with_commas(d.tensors), b = with_commas(d.bytes);
    o += line + std::string(a.size() < 8 ? 8 - a.size() : 0, ' ') + a + std::string(b.size() < 18 ? 18 - b.size() : 0, ' ') + b + "\n";
  }
  return o;
}

std::string safetensors_json(const std::vector<SafetensorsHeader>& files) {
  using json_util::json;
  json j;
  i64 tensors = 0, header = 0, file = 0;
  for (const auto& f : files) tensors += static_cast<i64>(f.tensors.size()), header += f.header_bytes, file += f.file_bytes;
  j["format"] = "safetensors";
  j["files"] = static_cast<i64>(files.size());
  j["header_bytes"] = header;
  j["file_bytes"] = file;
  j["tensors"] = tensors;
  j["weights_bytes"] = total_bytes(files);
  j["types"] = json::object();
  for (const auto& d : dtype_counts(files)) j["types"][std::string(d.name)] = {{"tensors", d.tensors}, {"bytes", d.bytes}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string safetensors_estimate_text(const std::vector<SafetensorsHeader>& files, const Inventory& inv, const Workload& w,
                                      const Estimate& e, ByteUnit unit, Lang l) {
  const WeightsReport& fw = format_weights(e);
  const i64 file = total_bytes(files), est = fw.total_bytes;
  const double diff = est > 0 ? static_cast<double>(file) / static_cast<double>(est) - 1.0 : 0.0;
  std::string o = std::string(tr(Str::cli_file_from_checkpoint, l)) + "\n";
  const std::string in_files = "  " + std::string(tr(Str::cli_file_bytes_in_files, l));
  o += pad_right(in_files, std::max<size_t>(display_width(in_files) + 1, 31)) + format_bytes(file, unit) + " (" + with_commas(file) + ")\n";
  o += estimated_line(w, est, diff, unit, Str::cli_files_hold, l);
  o += replaced_line(e, "safetensors", l);
  const SafetensorsGroups g = safetensors_groups(pointers_to(files), inv);
  o += "  " + pad_right(tr(Str::cli_col_group, l), 12) + pad_left(tr(Str::cli_col_bytes_files, l), 17) + pad_left(tr(Str::cli_col_bytes_estimated, l), 20) +
       "\n";
  for (int k = 0; k < kGroupCount; ++k) {
    const auto i = static_cast<size_t>(k);
    if (g.bytes[i] == 0 && fw.bytes_by_group[i] == 0) continue;
    o += pad_right("  " + group_name(k, l), 14) + pad_left(format_bytes(g.bytes[i], unit), 16) + pad_left(format_bytes(fw.bytes_by_group[i], unit), 20) + "\n";
  }
  for (const auto& d : g.differ) o += "  " + printf_text(tr(Str::cli_file_differs_model, l), d.c_str()) + "\n";
  if (g.unmatched_count > 0) {
    o += "  " + printf_text(tr(Str::cli_file_not_in_model, l), with_commas(g.unmatched_count).c_str(), with_commas(g.unmatched_bytes).c_str());
    for (const auto& n : g.unmatched) o += " " + n;
    o += g.unmatched_count > static_cast<i64>(g.unmatched.size()) ? " …\n" : "\n";
  }
  return o;
}

std::string with_safetensors_json(const std::string& estimate, const std::vector<SafetensorsHeader>& files, const Inventory& inv,
                                  const Estimate& e) {
  using json_util::json;
  auto j = json::parse(estimate, nullptr, false);
  auto f = json::parse(safetensors_json(files), nullptr, false);
  if (j.is_discarded() || f.is_discarded()) return estimate;
  const SafetensorsGroups g = safetensors_groups(pointers_to(files), inv);
  f["estimated_weights_bytes"] = format_weights(e).total_bytes;
  f["replaces_estimate"] = e.inference.weights.from_file;
  f["by_group"] = json::object();
  for (int k = 0; k < kGroupCount; ++k) {
    const auto i = static_cast<size_t>(k);
    f["by_group"][std::string(to_string(static_cast<Group>(k)))] = {{"bytes", g.bytes[i]},
                                                                     {"estimated_bytes", format_weights(e).bytes_by_group[i]}};
  }
  f["unmatched"] = {{"tensors", g.unmatched_count}, {"bytes", g.unmatched_bytes}, {"names", g.unmatched}};
  f["differ"] = g.differ;
  j["file"] = f;
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

std::string projector_text(const GgufHeader& h, std::string_view path, ByteUnit unit, Lang l) {
  const std::string type = h.string_of("clip.projector_type");
  const std::string what = std::string(path) + (type.empty() ? "" : ", " + gguf_printable(type));
  return printf_text(tr(Str::cli_projector, l), what.c_str()) + "\n  " +
         printf_text(tr(Str::cli_projector_bytes, l), with_commas(static_cast<i64>(h.tensors.size())).c_str(),
                     format_bytes(h.tensor_bytes(), unit).c_str(), with_commas(h.tensor_bytes()).c_str()) +
         "\n";
}

std::string with_projector_json(const std::string& estimate, const GgufHeader& h, std::string_view path) {
  using json_util::json;
  auto j = json::parse(estimate, nullptr, false);
  if (j.is_discarded()) return estimate;
  j["projector"] = {{"name", std::string(path)}, {"projector_type", h.string_of("clip.projector_type")},
                    {"tensors", static_cast<i64>(h.tensors.size())}, {"bytes", h.tensor_bytes()},
                    {"header_bytes", h.data_offset}, {"file_bytes", h.file_bytes}};
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace llmsize::core
