// Model panel: preset picker with search, config.json import (drop, paste, or a path
// natively), and every dimension of core::model_fields() editable with inline messages.
#include <algorithm>
#include <cctype>

#include "app/field_editor.hpp"
#include "app/panels.hpp"
#include "app/widgets.hpp"
#include "core/model_fields.hpp"
#include "core/params.hpp"
#include "core/report.hpp"

namespace llmsize::app {

namespace {

bool contains_ci(std::string_view hay, std::string_view needle) {
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != hay.end();
}

// Presentation only: which model fields sit under which heading. Fields not listed here
// land under More, so a field added to the core table always appears.
struct FieldGroup {
  Str title;
  std::vector<std::string_view> keys;
  bool open;
};
const std::vector<FieldGroup>& field_groups() {
  static const std::vector<FieldGroup> g = {
      {Str::grp_shape, {"fam", "L", "d", "H", "KV", "hd", "ff", "ffk", "act", "V", "P"}, true},
      {Str::grp_moe, {"E", "topk", "fe", "S", "fs", "sg", "fd", "mf", "mp", "rb", "rcb", "eb", "dl"}, false},
      {Str::grp_mla, {"mla", "qlr", "kvlr", "nope", "rope", "vhd", "mtp"}, false},
      {Str::grp_positions, {"pos", "rot", "rcp", "po", "sw", "swp", "chk"}, false},
      {Str::grp_vision, {"vis", "vL", "vd", "vff", "vH", "vp", "vimg", "vch", "vpj", "vpb", "vad", "vtp", "vmg", "vpos"}, false},
      {Str::grp_hybrid, {"fai", "lkh", "lvh", "lkd", "lvd", "lck", "lsd", "sink", "og", "ixh", "ixd", "ixk", "bp", "bpf", "scv", "scb", "mnh",
                                                   "mhd", "mst", "mng", "mck", "mch", "mcb", "mpb", "mgn", "msc", "sex", "sst", "sck", "sdr",
                                                   "scnb", "spb", "snm", "lkv", "lff", "ghd", "gkv", "keqv", "kvs", "dwm", "ple",
                                                   "plev"}, false},
      {Str::grp_norms, {"norm", "par", "nf", "ns", "nqk", "nqkf", "npre", "ne", "nfin"}, false},
      {Str::grp_biases, {"bqkv", "bo", "bff", "bh", "tie", "ep", "fqkv", "fgu"}, false},
  };
  return g;
}

void draw_preset_picker(App& app) {
  AppState& s = app.state;
  const auto& all = presets();
  ImGui::SetNextItemWidth(-FLT_MIN);
  const std::string hint = printf_text(T(Str::preset_search), static_cast<int>(all.size()));
  const bool typed = ImGui::InputTextWithHint("##search", hint.c_str(), &app.preset_filter);
  mark("preset.search");
  const float rows = s.embed ? 5.5f : 9.5f;
  if (ImGui::BeginListBox("##presets", ImVec2(-FLT_MIN, ImGui::GetTextLineHeightWithSpacing() * rows))) {
    // A changed search shows its matches from the first: the list's scroll would otherwise stay
    // where the whole list left it (at the chosen preset), past the first matches.
    if (typed) ImGui::SetScrollY(0.0f);
    std::vector<const core::Preset*> shown;
    for (const auto& p : all) {
      const std::string_view fam = core::family_id(p.config.family);
      if (app.preset_filter.empty() || contains_ci(p.name, app.preset_filter) || contains_ci(p.id, app.preset_filter) ||
          contains_ci(fam, app.preset_filter))
        shown.push_back(&p);
    }
    // Only the visible rows are laid out (and their parameters counted) each frame.
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(shown.size()));
    if (ImGui::IsWindowAppearing())
      for (size_t i = 0; i < shown.size(); ++i)
        if (shown[i]->id == s.preset_id) clipper.ForceDisplayRangeByIndices(static_cast<int>(i), static_cast<int>(i) + 1);
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const core::Preset& p = *shown[static_cast<size_t>(i)];
        const bool selected = p.id == s.preset_id;
        if (ImGui::Selectable(p.name.c_str(), selected)) load_preset(s, p.id);
        mark(("preset:" + p.id).c_str());
        if (i == 0) mark("preset.first");
        if (selected && ImGui::IsWindowAppearing()) ImGui::SetScrollHereY();
        if (ImGui::IsItemHovered()) {
          ImGui::BeginTooltip();
          ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
          ImGui::TextUnformatted(core::architecture_summary(p.config, ui_lang()).c_str());
          if (!p.source.empty()) ImGui::TextDisabled(T(Str::preset_tip_config), p.source.c_str());
          if (p.published_total > 0)
            ImGui::TextDisabled(T(Str::preset_tip_published), core::with_commas(p.published_total).c_str(),
                                p.published_source.c_str());
          else if (p.published_with_vision > 0)
            ImGui::TextDisabled(T(Str::preset_tip_published_vision), core::with_commas(p.published_with_vision).c_str(),
                                p.published_source.c_str());
          if (p.published_checkpoint > 0)
            ImGui::TextDisabled(T(Str::preset_tip_published_checkpoint), core::with_commas(p.published_checkpoint).c_str(),
                                p.checkpoint_source.c_str());
          ImGui::PopTextWrapPos();
          ImGui::EndTooltip();
        }
        auto counted = core::count_params(p.config);
        const std::string right = std::string(core::family_id(p.config.family)) + "  " +
                                  (counted ? core::short_count(counted->total) : std::string("?"));
        ImGui::SameLine(ImGui::GetContentRegionAvail().x + ImGui::GetCursorPosX() -
                        ImGui::CalcTextSize(right.c_str()).x - ImGui::GetStyle().ItemSpacing.x);
        ImGui::TextDisabled("%s", right.c_str());
      }
    }
    if (shown.empty()) ImGui::TextDisabled(T(Str::preset_none), app.preset_filter.c_str());
    ImGui::EndListBox();
  }
}

void draw_import(App& app) {
  AppState& s = app.state;
  ImGui::TextDisabled("%s", T(app.hooks.web ? Str::import_hint_web : Str::import_hint_native));
  if (app.hooks.pick_files) {  // read here, in the browser: a model file's header only, nothing uploaded
    if (ImGui::Button(TL(Str::import_pick, "pick"))) app.hooks.pick_files();
    mark("import.pick");
  }
  if (app.hooks.read_file) {
    ImGui::SetNextItemWidth(-ImGui::CalcTextSize(T(Str::import_open)).x - ImGui::GetStyle().FramePadding.x * 2 -
                            ImGui::GetStyle().ItemSpacing.x);
    const bool enter = ImGui::InputTextWithHint("##path", "path/to/config.json", &app.path_buffer,
                                                ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if ((ImGui::Button(TL(Str::import_open, "open")) || enter) && !app.path_buffer.empty()) open_path(app, app.path_buffer);
  }
  if (ImGui::TreeNode("paste", "%s", T(Str::import_paste))) {
    ImGui::InputTextMultiline("##paste", &app.paste_buffer, ImVec2(-FLT_MIN, ImGui::GetTextLineHeight() * 6));
    mark("import.paste");
    if (ImGui::Button(TL(Str::import_paste_button, "import")) && !app.paste_buffer.empty())
      import_text(app, app.paste_buffer, "pasted config");
    mark("import.button");
    ImGui::TreePop();
  }
  if (!s.import_notes.empty() && ImGui::TreeNode("import_notes", T(Str::import_notes), static_cast<int>(s.import_notes.size()))) {
    ImGui::PushTextWrapPos(0.0f);
    for (const auto& n : s.import_notes) ImGui::BulletText("%s", core::message_in(n, ui_lang()).c_str());
    ImGui::PopTextWrapPos();
    ImGui::TreePop();
  }
}

void draw_dimensions(App& app) {
  AppState& s = app.state;
  const std::vector<core::Issue> issues = core::validate(s.cfg);
  const auto& fields = core::model_fields();
  std::vector<bool> placed(fields.size(), false);
  auto draw_group = [&](Str title, const std::vector<size_t>& idx, bool open) {
    if (idx.empty()) return;
    bool has_issue = false;
    for (size_t i : idx)
      for (const auto& is : issues)
        has_issue |= field_named(fields[i], is.field);
    for (size_t i : idx) has_issue |= !s.edits[std::string(fields[i].key)].error.empty();
    if (has_issue) ImGui::SetNextItemOpen(true);
    const std::string id = std::string(core::key_name(title));
    if (!ImGui::CollapsingHeader(TL(title, id.c_str()), open ? ImGuiTreeNodeFlags_DefaultOpen : 0)) return;
    if (ImGui::BeginTable(id.c_str(), 2, ImGuiTableFlags_SizingStretchProp)) {
      ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthStretch, 0.45f);
      ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 0.55f);
      for (size_t i : idx) {
        const auto& f = fields[i];
        edit_field_row(f, s.cfg, s.edits[std::string(f.key)], issues);
        mark(("field:" + std::string(f.key)).c_str());
      }
      ImGui::EndTable();
    }
  };
  for (const auto& g : field_groups()) {
    std::vector<size_t> idx;
    for (auto k : g.keys)
      for (size_t i = 0; i < fields.size(); ++i)
        if (fields[i].key == k && !placed[i]) {
          idx.push_back(i);
          placed[i] = true;
        }
    draw_group(g.title, idx, g.open);
  }
  std::vector<size_t> rest;
  for (size_t i = 0; i < fields.size(); ++i)
    if (!placed[i]) rest.push_back(i);
  draw_group(Str::grp_more, rest, false);

  // Issues that name no field of the table (cross-field checks).
  for (const auto& is : issues) {
    bool known = false;
    for (const auto& f : fields) known |= field_named(f, is.field);
    if (!known) error_text(core::to_string(is, ui_lang()));
  }
}

}  // namespace

void draw_model_panel(App& app) {
  AppState& s = app.state;
  section(T(Str::model_preset));
  draw_preset_picker(app);
  if (!s.embed) {
    section(T(Str::model_import));
    draw_import(app);
  }
  section(T(Str::model_dimensions));
  if (model_edited(s)) {
    ImGui::TextDisabled("%s", T(s.preset_id.empty() ? Str::model_custom : Str::model_edited));
    if (!s.preset_id.empty()) {
      ImGui::SameLine();
      if (ImGui::SmallButton(TL(Str::model_reset, "reset"))) load_preset(s, std::string(s.preset_id));
    }
  }
  draw_dimensions(app);
}

}  // namespace llmsize::app
