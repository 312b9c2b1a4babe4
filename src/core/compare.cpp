// Configurations side by side (see compare.hpp).
#include "compare.hpp"

#include <algorithm>

#include "figures.hpp"
#include "file_weights.hpp"
#include "json_util.hpp"
#include "text_value.hpp"

namespace llmsize::core {

namespace {
constexpr std::string_view kFits = "fit.fits";
}  // namespace

Result<PreparedModel> prepare_case(const ShareState& s) {
  auto m = prepare(s.model);
  if (!m) return m.issues();
  PreparedModel pm = std::move(m).value();
  if (!s.file.empty()) attach_file_summary(pm, s.file);
  pm.projector_bytes = s.projector_bytes;
  return pm;
}

std::string case_title(const ShareState& s, Lang l) {
  const std::string name = s.model.name.empty() ? std::string(tr(Str::cmp_title_custom, l)) : s.model.name;
  const Workload defaults;
  std::string diff;
  for (const auto& f : workload_fields()) {
    const std::string v = f.get(s.workload);
    if (v != f.get(defaults)) diff += (diff.empty() ? "" : ", ") + std::string(f.key) + " " + v;
  }
  return diff.empty() ? name : name + " (" + diff + ")";
}

namespace {

std::string shown(const CompareRow& r, std::optional<double> v, ByteUnit unit, Lang l) {
  if (!v) return "–";
  if (r.key.rfind(kFits, 0) == 0) return tr(*v != 0 ? Str::cmp_yes : Str::cmp_no, l);
  switch (r.unit) {
    case Unit::Bytes: return format_bytes(static_cast<i64>(*v), unit);
    case Unit::Count:
    case Unit::Tokens: return with_commas(static_cast<i64>(*v));
    case Unit::TokensPerSecond: return *v > 0 ? fixed(*v, 1) + " tok/s" : "n/a";  // no bound given
    case Unit::Seconds: return fixed(*v, 2) + " s";
    case Unit::Flops: return format_real(*v);
  }
  return format_real(*v);
}

// The difference of `v` from the first case's value, where both are numbers and the first is not 0.
std::optional<double> relative(const CompareRow& r, size_t k) {
  if (k == 0 || r.key.rfind(kFits, 0) == 0 || !r.values[0] || !r.values[k] || *r.values[0] == 0) return std::nullopt;
  return *r.values[k] / *r.values[0] - 1.0;
}

}  // namespace

Comparison compare(const std::vector<ShareState>& cases, Lang l) {
  std::vector<Result<Estimate>> estimates;
  for (const ShareState& s : cases) {
    auto pm = prepare_case(s);
    estimates.push_back(pm ? estimate(*pm, s.workload) : Result<Estimate>(pm.issues()));
  }
  return compare(cases, estimates, l);
}

Comparison compare(const std::vector<ShareState>& cases, const std::vector<Result<Estimate>>& results, Lang l) {
  Comparison c;
  std::vector<const Estimate*> estimates;
  for (size_t k = 0; k < cases.size(); ++k) {
    c.titles.push_back(case_title(cases[k], l));
    const bool ok = k < results.size() && results[k];
    c.issues.push_back(ok ? std::vector<Issue>{} : k < results.size() ? results[k].issues()
                                                                       : std::vector<Issue>{issue_row("case", Str::cmp_not_estimated)});
    estimates.push_back(ok ? &*results[k] : nullptr);
  }
  // A figure's row: each case's value where the figure belongs to the case's mode.
  auto row_of = [&](const Figure& f) {
    CompareRow r{std::string(f.key), std::string(f.label), f.unit, {}, false};
    for (size_t k = 0; k < cases.size(); ++k) {
      const bool mine = estimates[k] && (!f.mode || *f.mode == cases[k].workload.mode);
      r.values.push_back(mine ? std::optional<double>(f.value(*estimates[k]).as_double()) : std::nullopt);
    }
    return r;
  };
  if (const Figure* f = find_figure("params.total")) c.rows.push_back(row_of(*f));
  CompareRow active{"params.active", "Active parameters per token", Unit::Count, {}, false};  // the JSON report's params.active
  for (size_t k = 0; k < cases.size(); ++k)
    active.values.push_back(estimates[k] ? std::optional<double>(static_cast<double>(estimates[k]->params.active)) : std::nullopt);
  c.rows.push_back(active);
  for (Mode m : {Mode::Inference, Mode::Training}) {
    if (std::none_of(cases.begin(), cases.end(), [&](const ShareState& s) { return s.workload.mode == m; })) continue;
    const ModeFigures& mf = mode_figures(m);
    c.rows.push_back(row_of(*mf.total));
    for (const auto& part : mf.parts) c.rows.push_back(row_of(*part.figure));
    CompareRow fits{std::string(kFits) + (m == Mode::Training ? ".training" : ""), "fits on the GPU", Unit::Count, {}, false};
    for (size_t k = 0; k < cases.size(); ++k)
      fits.values.push_back(estimates[k] && cases[k].workload.mode == m ? std::optional<double>(mf.fits(*estimates[k]) ? 1 : 0)
                                                                        : std::nullopt);
    c.rows.push_back(fits);
    c.rows.push_back(row_of(*mf.min_gpus));
    if (mf.max_context) c.rows.push_back(row_of(*mf.max_context));
    c.rows.push_back(row_of(*mf.rate));
  }
  // Differs: two of the cases that have the figure give it different values.
  for (CompareRow& r : c.rows) {
    std::optional<double> seen;
    for (const auto& v : r.values)
      if (v) {
        if (seen && *seen != *v) r.differs = true;
        seen = v;
      }
  }
  return c;
}

bool row_present(const CompareRow& r) {
  return std::any_of(r.values.begin(), r.values.end(), [&](const auto& v) { return v && (*v != 0 || r.key.rfind(kFits, 0) == 0); });
}

std::string compare_label(const CompareRow& r, Lang l) {
  if (r.key == "params.active") return tr(Str::cmp_row_active, l);
  if (r.key.rfind(kFits, 0) == 0) return tr(Str::cmp_row_fits, l);
  const FieldText* t = field_text("figure", r.key, l);
  return t ? std::string(t->label) : r.label;
}

std::string compare_cell(const CompareRow& r, size_t k, ByteUnit unit, Lang l) {
  if (k >= r.values.size()) return "–";
  std::string cell = shown(r, r.values[k], unit, l);
  if (auto d = relative(r, k); d && *d != 0) cell += " (" + std::string(*d > 0 ? "+" : "") + fixed(*d * 100, 1) + "%)";
  return cell;
}

std::string compare_text(const Comparison& c, ByteUnit unit, Lang l) {
  std::string o = printf_text(tr(Str::cmp_text_heading, l), std::to_string(c.titles.size()).c_str()) + "\n";
  for (size_t k = 0; k < c.titles.size(); ++k) {
    o += "  " + std::to_string(k + 1) + "  " + c.titles[k] + "\n";
    for (const Issue& i : c.issues[k]) o += "     " + printf_text(tr(Str::cmp_no_estimate_why, l), to_string(i, l).c_str()) + "\n";
  }
  o += "\n";
  constexpr size_t kLabel = 30, kColumn = 24;
  std::string head(kLabel + 2, ' ');
  for (size_t k = 0; k < c.titles.size(); ++k) {
    std::string h = std::to_string(k + 1);
    h.insert(0, kColumn > h.size() ? kColumn - h.size() : 0, ' ');
    head += h;
  }
  o += head + "\n";
  for (const CompareRow& r : c.rows) {
    if (!row_present(r)) continue;
    std::string line = (r.differs ? "* " : "  ") + compare_label(r, l);
    line = pad_right(line, std::max(display_width(line) + 1, kLabel + 2));
    for (size_t k = 0; k < r.values.size(); ++k) {
      const std::string cell = compare_cell(r, k, unit, l);
      line += pad_left(cell, std::max(kColumn, display_width(cell)));
    }
    o += line + "\n";
  }
  o += "\n" + printf_text(tr(Str::cmp_text_footer, l), "±%") + "\n";
  return o;
}

std::string compare_json(const Comparison& c) {
  using json_util::json;
  json j;
  j["cases"] = json::array();
  for (size_t k = 0; k < c.titles.size(); ++k) {
    json issues = json::array();
    for (const Issue& i : c.issues[k]) issues.push_back({{"field", i.field}, {"message", i.message}});
    j["cases"].push_back({{"title", c.titles[k]}, {"issues", issues}});
  }
  j["rows"] = json::array();
  for (const CompareRow& r : c.rows) {
    json values = json::array(), rel = json::array();
    for (size_t k = 0; k < r.values.size(); ++k) {
      values.push_back(r.values[k] ? json(*r.values[k]) : json(nullptr));
      const auto d = relative(r, k);
      rel.push_back(d ? json(*d) : json(nullptr));
    }
    j["rows"].push_back({{"key", r.key}, {"label", r.label}, {"values", values}, {"vs_first", rel}, {"differs", r.differs}});
  }
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace llmsize::core
