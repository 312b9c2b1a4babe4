// A model file beside the estimate (see file_report.hpp).
#include "file_report.hpp"

#include <algorithm>

#include "json_util.hpp"

namespace llmsize::core {

// The file's bytes beside the estimate's weights for its format (the whole model, one copy),
// group by group: parameters that differ mean the file and the model read from it disagree.
std::string gguf_estimate_text(const GgufHeader& h, std::string_view path, const Workload& w, const Estimate& e, ByteUnit unit) {
  const i64 file = h.tensor_bytes(), est = e.inference.weights.total_bytes;
  const double diff = est > 0 ? static_cast<double>(file) / static_cast<double>(est) - 1.0 : 0.0;
  std::string o = "From the file (" + gguf_file_type_name(h) + ")\n";
  o += "  tensor bytes in the file     " + format_bytes(file, unit) + " (" + with_commas(file) + ")\n";
  o += "  estimated for " + std::string(to_string(w.weights));
  o.resize(std::max<size_t>(o.size() + 1, o.rfind('\n') + 32), ' ');
  o += format_bytes(est, unit) + " (" + with_commas(est) + "); the file holds " + (diff >= 0 ? "+" : "") + fixed(diff * 100, 2) +
       "%\n";
  const GgufGroups g = gguf_groups(h);
  auto col = [](std::string s, size_t width) { return std::string(s.size() < width ? width - s.size() : 0, ' ') + s; };
  o += "  group          params (file)   params (model)    bytes (file)   bytes (estimated)\n";
  for (int k = 0; k < kGroupCount; ++k) {
    const i64 fp = g.params[static_cast<size_t>(k)], mp = e.params.by_group[static_cast<size_t>(k)];
    if (fp == 0 && mp == 0) continue;
    std::string line = "  " + std::string(to_string(static_cast<Group>(k)));
    line.resize(14, ' ');
    line += col(with_commas(fp), 15) + col(with_commas(mp), 17) + col(format_bytes(g.bytes[static_cast<size_t>(k)], unit), 16) +
            col(format_bytes(e.inference.weights.bytes_by_group[static_cast<size_t>(k)], unit), 20);
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
  f["estimated_weights_bytes"] = e.inference.weights.total_bytes;
  const GgufGroups g = gguf_groups(h);
  f["by_group"] = json::object();
  for (int k = 0; k < kGroupCount; ++k) {
    const auto i = static_cast<size_t>(k);
    f["by_group"][std::string(to_string(static_cast<Group>(k)))] = {
        {"params", g.params[i]}, {"bytes", g.bytes[i]}, {"model_params", e.params.by_group[i]},
        {"estimated_bytes", e.inference.weights.bytes_by_group[i]}, {"first_tensor", g.first[i]}};
  }
  f["unmatched"] = {{"tensors", g.unmatched_count}, {"params", g.unmatched_params}, {"bytes", g.unmatched_bytes}, {"names", g.unmatched}};
  j["file"] = f;
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace llmsize::core
