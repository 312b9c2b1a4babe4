// Share-link encoding and strict decoding (see share_link.hpp).
#include "share_link.hpp"

#include <algorithm>
#include <set>

#include "file_weights.hpp"
#include "model_fields.hpp"
#include "params.hpp"
#include "presets.hpp"
#include "text_value.hpp"

namespace llmsize::core {

bool ShareState::operator==(const ShareState& o) const {
  if (preset != o.preset || !(model == o.model) || ui != o.ui || file != o.file || projector_bytes != o.projector_bytes) return false;
  for (const auto& f : workload_fields())
    if (f.get(workload) != f.get(o.workload)) return false;
  return true;
}

namespace {

bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '.' || c == '~' || c == ',';
}

std::string pct_encode(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (unreserved(c)) out += static_cast<char>(c);
    else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> pct_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// UTF-8 without control characters (overlong forms are not checked: names are only shown).
bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) return false;
      ++i;
      continue;
    }
    const size_t n = (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 0;
    if (n == 0 || i + n >= s.size()) return false;
    for (size_t k = 1; k <= n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    i += n + 1;
  }
  return true;
}

void append(std::string& out, std::string_view key, std::string_view value) {
  if (!out.empty()) out += '&';
  out += key;
  out += '=';
  out += pct_encode(value);
}

}  // namespace

std::string encode_link(const ShareState& s) {
  std::string out = "v=" + std::to_string(kShareLinkVersion);
  ModelConfig base;  // a custom model: compare against nothing, carry every field
  bool have_base = false;
  if (!s.preset.empty()) {
    if (auto p = find_preset(s.preset)) {
      base = p->config;
      have_base = true;
    }
    append(out, "preset", s.preset);
  }
  if (!have_base || s.model.name != base.name) append(out, "name", s.model.name);
  for (const auto& f : model_fields()) {
    const std::string v = f.get(s.model);
    if (!have_base || v != f.get(base)) append(out, f.key, v);
  }
  const Workload defaults;
  for (const auto& f : workload_fields()) {
    const std::string v = f.get(s.workload);
    if (v != f.get(defaults)) append(out, f.key, v);
  }
  if (!s.file.empty()) append(out, "file", s.file);
  if (s.projector_bytes >= 0) append(out, "mmproj", std::to_string(s.projector_bytes));
  for (const auto& [k, v] : s.ui) append(out, k, v);
  return out;
}

Result<ShareState> decode_link(std::string_view text) {
  if (!text.empty() && text.front() == '#') text.remove_prefix(1);
  if (text.size() > kMaxShareLinkBytes)
    return issue_row("link", Str::issue_link_long, std::to_string(text.size()), std::to_string(kMaxShareLinkBytes));
  // Split into decoded pairs first; refuse broken encoding, empty and repeated keys.
  std::vector<Issue> issues;
  std::vector<std::pair<std::string, std::string>> pairs;
  std::set<std::string> seen;
  while (!text.empty()) {
    const size_t amp = text.find('&');
    const std::string_view item = text.substr(0, amp);
    text = amp == std::string_view::npos ? std::string_view() : text.substr(amp + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string_view raw_key = item.substr(0, eq);
    auto key = pct_decode(raw_key);
    auto value = pct_decode(eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1));
    // The key as it can be named in a message: "link" when it is empty or not printable.
    std::string shown = key ? key->substr(0, 40) : std::string(raw_key.substr(0, 40));
    if (shown.empty() || !valid_utf8(shown)) shown = "link";
    if (!key || !value || !valid_utf8(*key) || !valid_utf8(*value)) {
      issues.push_back({shown, "is not validly percent-encoded UTF-8"});
      continue;
    }
    if (key->empty()) {
      issues.push_back({"link", "has an empty key (expected key=value)"});
      continue;
    }
    if (eq == std::string_view::npos) {
      issues.push_back({shown, "has no value (expected key=value)"});
      continue;
    }
    if (!seen.insert(*key).second) {
      issues.push_back({shown, "appears more than once"});
      continue;
    }
    pairs.emplace_back(std::move(*key), std::move(*value));
  }

  ShareState s;
  int version = kShareLinkVersion;
  for (const auto& [k, v] : pairs) {
    if (k == "v") {
      auto n = parse_int(v);
      if (!n || *n < 1) issues.push_back({"v", "must be a link version, got \"" + v.substr(0, 40) + "\""});
      else if (*n > kShareLinkVersion)
        issues.push_back({"v", "this link is from a newer llmsize (version " + v.substr(0, 12) +
                                   "); this page reads versions up to " + std::to_string(kShareLinkVersion)});
      else version = static_cast<int>(*n);
    } else if (k == "preset") {
      auto p = find_preset(v);
      if (!p) issues.push_back({"preset", p.issues()[0].message});
      else {
        s.preset = v;
        s.model = p->config;
      }
    }
  }
  (void)version;  // version 1 is the only one so far: nothing to migrate

  for (const auto& [k, v] : pairs) {
    if (k == "v" || k == "preset") continue;
    if (k == "name") {
      if (v.size() > 120) issues.push_back({"name", "must be at most 120 bytes"});
      else s.model.name = v;
    } else if (k == "mmproj") {
      const auto n = parse_int(v);
      if (!n || *n < 0 || *n > (i64{1} << 44))
        issues.push_back({"mmproj", "must be the projector's bytes, an integer in [0, 2^44], got \"" + v.substr(0, 40) + "\""});
      else s.projector_bytes = *n;
    } else if (k == "file") {
      if (v.size() > kMaxFileSummaryBytes) issues.push_back({"file", "must be at most " + std::to_string(kMaxFileSummaryBytes) + " bytes"});
      else s.file = v;
    } else if (k.rfind("ui.", 0) == 0 || k == "lang") {  // view settings (lang: the interface language)
      bool ok = k.size() <= 32 && v.size() <= kMaxUiValueBytes;
      for (char c : k + v) ok = ok && c > 0x20 && c < 0x7f;
      if (!ok) issues.push_back({k.substr(0, 32), "must be short printable ASCII"});
      else s.ui.emplace_back(k, v);
    } else if (const ModelField* mf = find_model_field(k)) {
      if (auto i = mf->set(s.model, v)) issues.push_back(*i);
    } else if (const WorkloadField* wf = find_field(k)) {
      if (auto i = wf->set(s.workload, v)) issues.push_back(*i);
    } else {
      issues.push_back({k.substr(0, 40), "is not a known key"});
    }
  }
  if (!issues.empty()) return issues;

  // Whole-state checks, reported under the link's keys (model issues carry canonical names).
  std::vector<Issue> model_issues = validate(s.model);
  if (model_issues.empty())
    if (auto counted = count_params(s.model); !counted) model_issues = counted.issues();
  for (auto issue : model_issues) {
    for (const auto& f : model_fields())
      if (f.canonical == issue.field) issue.field = std::string(f.key);
    issues.push_back(issue);
  }
  for (const auto& issue : validate(s.workload)) issues.push_back(issue);
  if (!issues.empty()) return issues;
  // A model file's types per tensor: they must describe this model's tensors.
  if (!s.file.empty()) {
    auto inv = build_inventory(s.model);
    if (!inv) return inv.issues();
    if (auto f = file_weights_from_summary(s.file, *inv); !f) return f.issues();
  }
  return s;
}

std::string encode_compare_link(const std::vector<ShareState>& cases) {
  if (cases.empty()) return "v=" + std::to_string(kShareLinkVersion);
  std::string out = encode_link(cases.front());
  for (size_t k = 1; k < cases.size(); ++k) append(out, "c" + std::to_string(k + 1), encode_link(cases[k]));
  return out;
}

Result<std::vector<ShareState>> decode_compare_link(std::string_view text) {
  if (!text.empty() && text.front() == '#') text.remove_prefix(1);
  if (text.size() > kMaxShareLinkBytes * kMaxCompareCases)
    return issue_row("link", Str::issue_compare_link_long, std::to_string(text.size()), std::to_string(kMaxShareLinkBytes * kMaxCompareCases));
  // The further cases' keys out of the first case's link.
  std::string first;
  std::vector<std::pair<int, std::string>> others;  // case number, its link
  std::vector<Issue> issues;
  for (std::string_view rest = text; !rest.empty();) {
    const size_t amp = rest.find('&');
    const std::string_view item = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    if (key.size() == 2 && key[0] == 'c' && key[1] >= '2' && key[1] <= '0' + kMaxCompareCases) {
      auto link = pct_decode(eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1));
      const int k = key[1] - '0';
      if (!link || link->empty()) issues.push_back({std::string(key), "must be a case's link, percent-encoded"});
      else if (std::any_of(others.begin(), others.end(), [&](const auto& o) { return o.first == k; }))
        issues.push_back({std::string(key), "appears more than once"});
      else others.emplace_back(k, std::move(*link));
    } else if (!item.empty()) {
      first += (first.empty() ? "" : "&") + std::string(item);
    }
  }
  std::sort(others.begin(), others.end());
  for (size_t i = 0; i < others.size(); ++i)
    if (others[i].first != static_cast<int>(i) + 2)
      issues.push_back({"c" + std::to_string(i + 2), "is missing: the cases are numbered c2, c3, … without gaps"});
  if (!issues.empty()) return issues;
  std::vector<ShareState> cases;
  auto one = [&](std::string_view link, const std::string& prefix) {
    auto r = decode_link(link);
    if (!r) {
      for (Issue i : r.issues()) {
        i.field = prefix + i.field;
        issues.push_back(std::move(i));
      }
      return;
    }
    cases.push_back(std::move(r).value());
  };
  one(first, "");
  for (const auto& [k, link] : others) one(link, "c" + std::to_string(k) + ".");
  if (!issues.empty()) return issues;
  return cases;
}

std::string cli_command(const ShareState& s) {
  std::string out = "llmsize estimate ";
  out += s.preset.empty() ? "--config config.json" : "--preset " + s.preset;
  const Workload defaults;
  for (const auto& f : workload_fields()) {
    const std::string v = f.get(s.workload);
    if (v != f.get(defaults)) out += " " + std::string(f.flag) + " " + v;
  }
  return out;
}

}  // namespace llmsize::core
