// Private to the config.json importer (hf_config.cpp, hf_families.cpp): typed reads of one
// config object that remember which spelling supplied each canonical field, so issues name
// what the user wrote. A JSON null counts as absent (DeepSeek writes "q_lora_rank": null).
// It knows no family; hf_families.hpp says which keys each family reads. import_object is
// import_hf_config of a parsed config (the presets hold theirs inside a larger document).
#pragma once
#include <array>
#include <cassert>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hf_config.hpp"
#include "json_util.hpp"

namespace llmsize::core::hf {

using json_util::json;

// import_hf_config() of a config object already parsed (with its limits).
Result<ImportedConfig> import_object(const json& config, const ImportOptions& opt = {});

// The spellings of one field, most common first. Fixed capacity so that table rows can hold
// them by value (an initializer_list member would dangle once the row is copied).
class Names {
 public:
  constexpr Names() = default;
  constexpr Names(std::initializer_list<const char*> names) {
    assert(names.size() <= names_.size());
    for (const char* n : names) names_[size_++] = n;
  }
  constexpr const char* const* begin() const { return names_.data(); }
  constexpr const char* const* end() const { return names_.data() + size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const char* front() const { return names_[0]; }

 private:
  std::array<const char*, 6> names_{};
  std::size_t size_ = 0;
};

class Reader {
 public:
  Reader(const json& obj, std::string prefix) : obj_(obj), prefix_(std::move(prefix)) {}

  const json* find(const Names& keys, const char* canonical, std::string* used = nullptr) {
    for (const char* k : keys) seen_.insert(k);
    for (const char* k : keys) {
      auto it = obj_.find(k);
      if (it != obj_.end() && !it->is_null()) {
        const std::string full = prefix_ + k;
        if (canonical) src_[canonical] = full;
        if (used) *used = full;
        return &*it;
      }
    }
    return nullptr;
  }
  bool has(const char* key) {
    seen_.insert(key);
    auto it = obj_.find(key);
    return it != obj_.end() && !it->is_null();
  }
  std::optional<i64> opt_int(const char* canonical, const Names& keys) {
    std::string used;
    const json* v = find(keys, canonical, &used);
    if (!v) return std::nullopt;
    return json_util::to_int(*v, used, issues);
  }
  i64 integer(const char* canonical, const Names& keys, i64 def) { return opt_int(canonical, keys).value_or(def); }
  i64 required(const char* canonical, const Names& keys) {
    std::string used;
    const json* v = find(keys, canonical, &used);
    if (!v) {
      std::string names;
      for (const char* k : keys) names += std::string(names.empty() ? "" : ", ") + prefix_ + k;
      issues.push_back({prefix_ + keys.front(), "is required (read from any of: " + names + ")"});
      return 0;
    }
    return json_util::to_int(*v, used, issues).value_or(0);
  }
  bool boolean(const Names& keys, bool def) {
    std::string used;
    const json* v = find(keys, nullptr, &used);
    if (!v) return def;
    if (!v->is_boolean()) {
      issues.push_back({used, "must be true or false, got " + json_util::type_name(*v)});
      return def;
    }
    return v->get<bool>();
  }
  double number(const char* canonical, const Names& keys, double def) {
    std::string used;
    const json* v = find(keys, canonical, &used);
    if (!v) return def;
    return json_util::to_double(*v, used, issues).value_or(def);
  }
  std::string str(const Names& keys, std::string def) {
    std::string used;
    const json* v = find(keys, nullptr, &used);
    if (!v) return def;
    if (!v->is_string()) {
      issues.push_back({used, "must be a string, got " + json_util::type_name(*v)});
      return def;
    }
    return v->get<std::string>();
  }
  std::vector<i64> int_list(const char* canonical, const char* key) {
    std::vector<i64> out;
    std::string used;
    const json* v = find({key}, canonical, &used);
    if (!v) return out;
    if (!v->is_array()) {
      issues.push_back({used, "must be an array of integers, got " + json_util::type_name(*v)});
      return out;
    }
    for (const auto& e : *v) {
      if (auto x = json_util::to_int(e, used, issues)) out.push_back(*x);
      if (out.size() > 10000) break;
    }
    return out;
  }
  std::string key_for(const std::string& canonical) const {
    auto it = src_.find(canonical);
    return it != src_.end() ? it->second : prefix_ + canonical;
  }
  const std::string& prefix() const { return prefix_; }
  const json& object() const { return obj_; }
  // Keys of the object that no read asked for, in the object's order.
  std::vector<std::string> unread() const {
    std::vector<std::string> out;
    for (auto it = obj_.begin(); it != obj_.end(); ++it)
      if (!seen_.count(it.key())) out.push_back(it.key());
    return out;
  }

  std::vector<Issue> issues;
  std::vector<Issue> notes;  // named by the config key they concern, in each language

 private:
  const json& obj_;
  std::string prefix_;
  std::map<std::string, std::string> src_;
  std::set<std::string, std::less<>> seen_;  // every key a read asked for, found or not
};

// A recurrent state's dtype key (Qwen3.5's mamba_ssm_dtype, Nemotron-H's mamba_ssm_cache_dtype):
// one of torch's dtype names the engines take; absent: auto (left as it is). A non-string is
// named by str(), another name by one issue on the key.
inline void read_state_dtype(Reader& r, const char* key, MambaDtype& out) {
  const size_t before = r.issues.size();
  if (!r.has(key)) return;
  const std::string t = r.str({key}, "");
  if (r.issues.size() != before) return;
  if (t == "float32") out = MambaDtype::F32;
  else if (t == "bfloat16") out = MambaDtype::BF16;
  else if (t == "float16") out = MambaDtype::F16;
  else r.issues.push_back({r.prefix() + key, "\"" + t.substr(0, 40) + "\" is not supported (only \"float32\", \"bfloat16\" or \"float16\")"});
}

// A per-layer list of layer kinds (layer_types and its spellings) as a block pattern: one
// character per layer, from the kind's name. nullopt: absent (nothing pushed), or refused (an
// issue naming the key and the kinds allowed).
struct KindChar {
  const char* name;
  char block;
};
inline std::optional<std::string> layer_kinds(Reader& r, i64 n_layers, const Names& keys,
                                              std::initializer_list<KindChar> kinds) {
  std::string key;
  const json* v = r.find(keys, nullptr, &key);
  if (!v) return std::nullopt;
  std::string names;
  for (const KindChar& k : kinds) names += std::string(names.empty() ? "\"" : " or \"") + k.name + "\"";
  if (!v->is_array() || static_cast<i64>(v->size()) != n_layers) {
    r.issues.push_back({key, "must name " + names + " for each of the " + std::to_string(n_layers) + " layers"});
    return std::nullopt;
  }
  std::string pattern;
  for (const auto& e : *v) {
    const std::string t = e.is_string() ? e.get<std::string>() : json_util::type_name(e);
    const KindChar* hit = nullptr;
    for (const KindChar& k : kinds)
      if (t == k.name) hit = &k;
    if (!hit) {
      r.issues.push_back({key, "\"" + t.substr(0, 40) + "\" is not supported (only " + names + ")"});
      return std::nullopt;
    }
    pattern += hit->block;
  }
  return pattern;
}

}  // namespace llmsize::core::hf
