// GPU catalog loading from the embedded presets/gpus.json (see gpus.hpp).
#include "gpus.hpp"

#include <cmath>

#include "embedded.hpp"
#include "json_util.hpp"

namespace llmsize::core {

i64 Gpu::usable_bytes() const {
  return static_cast<i64>(std::floor(static_cast<double>(total_bytes()) * usable_fraction));
}

namespace {
constexpr std::string_view kCatalogPath = "gpus.json";

Result<Gpu> parse_gpu(const json_util::json& j, const std::string& what) {
  std::vector<Issue> issues;
  Gpu g;
  auto text = [&](const char* k, std::string& dst, bool required) {
    auto it = j.find(k);
    if (it != j.end() && it->is_string()) dst = it->get<std::string>();
    else if (required) issues.push_back({what, std::string("needs a string \"") + k + "\""});
  };
  auto real = [&](const char* k, double& dst, double lo, double hi, bool required) {
    auto it = j.find(k);
    if (it == j.end()) {
      if (required) issues.push_back({what, std::string("needs a number \"") + k + "\""});
      return;
    }
    auto v = json_util::to_double(*it, what + "." + k, issues);
    if (!v) return;
    if (!(*v >= lo && *v <= hi)) {
      issues.push_back({what + "." + k, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]"});
      return;
    }
    dst = *v;
  };
  text("id", g.id, true);
  text("name", g.name, true);
  text("vendor", g.vendor, true);
  text("source", g.source, true);
  text("note", g.note, false);
  double gib = 0;
  real("memory_gib", gib, 1, 1 << 20, true);
  real("bandwidth_gbs", g.bandwidth_gbs, 1, 1e6, true);
  real("bf16_tflops", g.bf16_tflops, 0, 1e6, true);
  real("fp8_tflops", g.fp8_tflops, 0, 1e6, true);
  real("usable_fraction", g.usable_fraction, 0.01, 1.0, false);
  if (auto it = j.find("unified"); it != j.end() && it->is_boolean()) g.unified = it->get<bool>();
  if (auto it = j.find("nvlink"); it != j.end() && it->is_boolean()) g.nvlink = it->get<bool>();
  double cuda_total = 0;
  real("cuda_total_bytes", cuda_total, 0, 1e15, false);
  if (cuda_total > 0) text("cuda_total_source", g.cuda_total_source, true);
  double smi = 0;
  real("smi_total_mib", smi, 0, 1e9, false);
  if (smi > 0) text("smi_total_source", g.smi_total_source, true);
  g.smi_total_mib = static_cast<i64>(smi);
  double sms = 0;
  real("sm_count", sms, 0, 1e5, false);
  real("cuda_cc", g.cuda_cc, 0, 100, false);
  g.sm_count = static_cast<i64>(sms);
  if (!issues.empty()) return issues;
  g.cuda_total_bytes = static_cast<i64>(cuda_total);
  g.memory_bytes = static_cast<i64>(std::llround(gib * 1073741824.0));  // binary: GiB × 2^30
  if (g.cuda_total_bytes > g.memory_bytes || static_cast<double>(g.cuda_total_bytes) != cuda_total)
    return Issue{what + ".cuda_total_bytes", "must be a whole number of bytes, at most memory_gib × 2^30"};
  return g;
}
}  // namespace

Result<std::vector<Gpu>> load_gpus() {
  for (const auto& f : embedded_files()) {
    if (f.path != kCatalogPath) continue;
    const std::string what = "presets/" + std::string(f.path);
    auto doc = json_util::parse(f.content, what, 1 << 20, 16);
    if (!doc) return doc.issues();
    auto list = doc->find("gpus");
    if (list == doc->end() || !list->is_array()) return Issue{what, "needs a \"gpus\" array"};
    std::vector<Gpu> out;
    std::vector<Issue> issues;
    for (const auto& entry : *list) {
      auto g = parse_gpu(entry, what + " [" + std::to_string(out.size() + issues.size()) + "]");
      if (!g) issues.insert(issues.end(), g.issues().begin(), g.issues().end());
      else out.push_back(std::move(g).value());
    }
    for (size_t i = 0; i < out.size(); ++i)
      for (size_t k = 0; k < i; ++k)
        if (out[i].id == out[k].id) issues.push_back({what, "duplicate id \"" + out[i].id + "\""});
    if (!issues.empty()) return issues;
    return out;
  }
  return Issue{"presets/gpus.json", "is missing from the embedded presets"};
}

const std::vector<Gpu>& gpu_catalog() {
  static const std::vector<Gpu> catalog = [] {
    auto r = load_gpus();
    return r ? r.value() : std::vector<Gpu>{};
  }();
  return catalog;
}

const Gpu* find_gpu(std::string_view id) {
  for (const auto& g : gpu_catalog())
    if (g.id == id) return &g;
  return nullptr;
}

}  // namespace llmsize::core
