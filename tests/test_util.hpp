// Helpers shared by the test suites: test data files (read natively and under node's
// NODERAWFS alike) and preset lookup that fails the test loudly.
#pragma once
#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "core/estimate.hpp"
#include "core/hf_config.hpp"
#include "core/presets.hpp"
#include "gguf_writer.hpp"

namespace llmsize::test {

inline std::string data_path(const std::string& rel) { return std::string(LLMSIZE_TEST_DATA_DIR) + "/" + rel; }

inline std::string read_text(const std::string& rel) {
  std::ifstream f(data_path(rel), std::ios::binary);
  REQUIRE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// An issue read in both languages: its English text is its message; its Chinese is another text,
// with CJK characters in it (a UTF-8 lead byte of U+3000…U+FFFF).
inline void check_in_both(const core::Issue& is) {
  INFO(is.field << ": " << is.message);
  REQUIRE(static_cast<bool>(is.text));
  CHECK(core::message_in(is, core::Lang::En) == is.message);
  const std::string zh = core::message_in(is, core::Lang::Zh);
  INFO(zh);
  CHECK(zh != is.message);
  bool cjk = false;
  for (unsigned char c : zh) cjk = cjk || (c >= 0xE3 && c <= 0xEF);
  CHECK(cjk);
}

inline core::Preset preset(const std::string& id) {
  auto p = core::find_preset(id);
  INFO(id << ": " << (p ? "" : core::join(p.issues())));
  REQUIRE(p.ok());
  return p.value();
}

// The parameter report of `c`, failing the test loudly.
inline core::ParamReport param_report(const core::ModelConfig& c) {
  auto r = core::count_params(c);
  INFO(core::join(r.issues()));
  REQUIRE(r.ok());
  return r.value();
}

// The core's per-layer plan of `c`, failing the test loudly.
inline core::LayerPlan plan_of(const core::ModelConfig& c, core::KvDtype t = core::KvDtype::BF16, core::i64 tp = 1) {
  auto p = core::layer_plan(c, t, tp);
  INFO(c.name << ": " << (p ? "" : core::join(p.issues())));
  REQUIRE(p.ok());
  return p.value();
}

inline core::ModelConfig import_file(const std::string& rel, bool generic = false) {
  core::ImportOptions opt;
  opt.generic_fallback = generic;
  auto r = core::import_hf_config(read_text(rel), opt);
  INFO(rel << ": " << (r ? "" : core::join(r.issues())));
  REQUIRE(r.ok());
  return r->config;
}

// estimate() that fails the test (with the issues) instead of returning an error.
inline core::Estimate run(const core::ModelConfig& c, const core::Workload& w) {
  auto e = core::estimate(c, w);
  INFO(core::join(e.issues()));
  REQUIRE(e.ok());
  return std::move(e).value();
}

// A workload from share-link keys and values, e.g. with({{"seq", "8192"}, {"w", "q4_k_m"}}).
inline core::Workload with(std::initializer_list<std::pair<const char*, const char*>> kv) {
  core::Workload w;
  for (auto [k, v] : kv) {
    const core::WorkloadField* f = core::find_field(k);
    INFO(k);
    REQUIRE(f != nullptr);
    auto issue = f->set(w, v);
    INFO(k << "=" << v << ": " << (issue ? issue->message : ""));
    REQUIRE_FALSE(issue);
  }
  return w;
}


}  // namespace llmsize::test
