// A model file beside the estimate (see file_report.hpp).
#include "file_report.hpp"

#include <algorithm>

#include "json_util.hpp"

namespace llmsize::core {

// The file's bytes beside the estimate's weights for its format (the whole model, one copy),
// group by group: parameters that differ mean the file and the model read from it disagree.
namespace {
// The workload format's weights: kept beside the file's where those are the estimate's weights.
const WeightsReport& format_weights(const Estimate& e) { return e.format_weights ? *e.format_weights : e.inference.weights; }
// Whether the file's bytes are the estimate's weights, or why not (the estimate's note).
std::string replaced_line(const Estimate& e, std::string_view field) {
  if (e.inference.weights.from_file) return "  these bytes are the estimate's weights (inference.weights_bytes and every figure from it)\n";
  for (const Issue& n : e.notes)
    if (n.field == field) return "  " + n.message + "\n";
  return "";
}
}  // namespace

std::string gguf_estimate_text(const GgufHeader& h, std::string_view path, const Workload& w, const Estimate& e, ByteUnit unit) {
  const WeightsReport& fw = format_weights(e);
  const i64 file = h.tensor_bytes(), est = fw.total_bytes;
  const double diff = est > 0 ? static_cast<double>(file) / static_cast<double>(est) - 1.0 : 0.0;
  std::string o = "From the file (" + gguf_file_type_name(h) + ")\n";
  o += "  tensor bytes in the file     " + format_bytes(file, unit) + " (" + with_commas(file) + ")\n";
  o += "  estimated for " + std::string(to_string(w.weights));
  o.resize(std::max<size_t>(o.size() + 1, o.rfind('\n') + 32), ' ');
  o += format_bytes(est, unit) + " (" + with_commas(est) + "); the file holds " + (diff >= 0 ? "+" : "") + fixed(diff * 100, 2) +
       "%\n";
  o += replaced_line(e, "gguf");
  const GgufGroups g = gguf_groups(h);
  auto col = [](std::string s, size_t width) { return std::string(s.size() < width ? width - s.size() : 0, ' ') + s; };
  o += "  group          params (file)   params (model)    bytes (file)   bytes (estimated)\n";
  for (int k = 0; k < kGroupCount; ++k) {
    const i64 fp = g.params[static_cast<size_t>(k)], mp = e.params.by_group[static_cast<size_t>(k)];
    if (fp == 0 && mp == 0) continue;
    std::string line = "  " + std::string(to_string(static_cast<Group>(k)));
    line.resize(14, ' ');
    line += col(with_commas(fp), 15) + col(with_commas(mp), 17) + col(format_bytes(g.bytes[static_cast<size_t>(k)], unit), 16) +
            col(format_bytes(fw.bytes_by_group[static_cast<size_t>(k)], unit), 20);
    if (fp != mp) line += "  differs" + (g.first[static_cast<size_t>(k)].empty() ? std::string() : ", from " + g.first[static_cast<size_t>(k)]);
    o += line + "\n";
  }
  if (g.unmatched_count > 0) {
    o += "  not matched to a group: " + with_commas(g.unmatched_count) + " tensors, " + with_commas(g.unmatched_params) + " parameters:";
    for (const auto& n : g.unmatched) o += " " + n;
    o += g.unmatched_count > static_cast<i64>(g.unmatched.size()) ? " …\n" : "\n";
  }
  const std::string table = gguf_text(h, path);
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

std::string safetensors_text(const std::vector<SafetensorsHeader>& files, std::string_view path) {
  i64 tensors = 0, header = 0, file = 0;
  for (const auto& f : files) tensors += static_cast<i64>(f.tensors.size()), header += f.header_bytes, file += f.file_bytes;
  std::string o = std::string(path) + ": safetensors, " + with_commas(static_cast<i64>(files.size())) +
                  (files.size() == 1 ? " file" : " files") + "\n";
  o += "  headers " + with_commas(header) + " bytes read of " + format_bytes(file, ByteUnit::GB) + "; " + with_commas(tensors) +
       " tensors, " + with_commas(total_bytes(files)) + " bytes of data\n";
  o += "  dtype          tensors             bytes\n";
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
                                      const Estimate& e, ByteUnit unit) {
  const WeightsReport& fw = format_weights(e);
  const i64 file = total_bytes(files), est = fw.total_bytes;
  const double diff = est > 0 ? static_cast<double>(file) / static_cast<double>(est) - 1.0 : 0.0;
  std::string o = "From the checkpoint\n";
  o += "  tensor bytes in the files    " + format_bytes(file, unit) + " (" + with_commas(file) + ")\n";
  o += "  estimated for " + std::string(to_string(w.weights));
  o.resize(std::max<size_t>(o.size() + 1, o.rfind('\n') + 32), ' ');
  o += format_bytes(est, unit) + " (" + with_commas(est) + "); the files hold " + (diff >= 0 ? "+" : "") + fixed(diff * 100, 2) + "%\n";
  o += replaced_line(e, "safetensors");
  const SafetensorsGroups g = safetensors_groups(pointers_to(files), inv);
  auto col = [](std::string s, size_t width) { return std::string(s.size() < width ? width - s.size() : 0, ' ') + s; };
  o += "  group           bytes (files)   bytes (estimated)\n";
  for (int k = 0; k < kGroupCount; ++k) {
    const auto i = static_cast<size_t>(k);
    if (g.bytes[i] == 0 && fw.bytes_by_group[i] == 0) continue;
    std::string line = "  " + std::string(to_string(static_cast<Group>(k)));
    line.resize(14, ' ');
    o += line + col(format_bytes(g.bytes[i], unit), 16) + col(format_bytes(fw.bytes_by_group[i], unit), 20) + "\n";
  }
  for (const auto& d : g.differ) o += "  differs from the model: " + d + "\n";
  if (g.unmatched_count > 0) {
    o += "  not in the model: " + with_commas(g.unmatched_count) + " tensors, " + with_commas(g.unmatched_bytes) + " bytes:";
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

std::string projector_text(const GgufHeader& h, std::string_view path, ByteUnit unit) {
  const std::string type = h.string_of("clip.projector_type");
  return "Multimodal projector (" + std::string(path) + (type.empty() ? "" : ", " + gguf_printable(type)) + ")\n  " +
         with_commas(static_cast<i64>(h.tensors.size())) + " tensors, " + format_bytes(h.tensor_bytes(), unit) + " (" +
         with_commas(h.tensor_bytes()) + "): the vision encoder and projector, on the first GPU (inference.vision_weights_bytes)\n";
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
