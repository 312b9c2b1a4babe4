// Results › Memory (stacked bar by component on the chosen GPU, headline figures, every
// figure expandable to its formula) and Results › Scaling (memory per GPU against context
// length and batch, with GPU capacity lines), and Results › Compare (the same figures, bars and
// curves for up to four configurations at once). Each point of a curve is one estimate() call.
#include <algorithm>
#include <cmath>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "app/figures.hpp"
#include "app/field_editor.hpp"
#include "app/panels.hpp"
#include "app/plot.hpp"
#include "app/widgets.hpp"
#include "core/compare.hpp"
#include "core/file_report.hpp"
#include "core/figures.hpp"

namespace llmsize::app {

namespace {

core::ByteUnit g_unit = core::ByteUnit::GB;  // plot formatters are plain function pointers
std::string fmt_bytes_axis(double v) {
  const bool whole = std::fabs(v - std::round(v)) < 1e-9;
  return core::fixed(v, whole ? 0 : std::fabs(v) >= 10 ? 1 : 2);
}
std::string fmt_bytes_plain(double v) { return core::fixed(v, v >= 100 ? 0 : v >= 10 ? 1 : 2) + " " + core::unit_label(g_unit); }
std::string fmt_tokens(double v) {
  if (v >= 1048576) return core::fixed(v / 1048576, 0) + "M";
  if (v >= 1024) return core::fixed(v / 1024, 0) + "K";
  return core::fixed(v, 0);
}
std::string fmt_int(double v) { return core::fixed(v, 0); }

double to_display(core::i64 bytes, core::ByteUnit u) { return core::to_unit(bytes, u); }

// An engine's terms, each opening to its formula and source on hover.
// A model file's size in words: a header is megabytes, a model file gigabytes.
std::string file_size(core::i64 b) {
  const double x = static_cast<double>(b);
  return x >= 1e9 ? core::fixed(x / 1e9, 2) + " GB" : x >= 1e6 ? core::fixed(x / 1e6, 1) + " MB" : core::with_commas(b) + " bytes";
}

// A report's lines, in the small font (the GGUF file and the safetensors checkpoint beside the estimate).
void draw_report(const App& app, const std::string& text) {
  ImGui::PushFont(app.fonts.small);
  for (size_t at = 0; at < text.size();) {
    const size_t nl = text.find('\n', at);
    const std::string line = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    ImGui::TextUnformatted(line.c_str());
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  ImGui::PopFont();
}

void draw_terms(const std::vector<core::EngineTerm>& terms, core::ByteUnit u, const char* id, const char* title) {
  if (!ImGui::TreeNode(id, "%s", title)) return;
  if (ImGui::BeginTable(id, 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    for (const auto& t : terms) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Selectable(core::term_label(t, ui_lang()).c_str(), false, ImGuiSelectableFlags_SpanAllColumns);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n\n%s", t.formula.c_str(), t.source.c_str());
      ImGui::TableNextColumn();
      const std::string value = t.bytes ? core::format_bytes(static_cast<core::i64>(t.value), u)
                                : t.key == "max_concurrency" ? core::fixed(t.value, 2) + "x"
                                : t.key == "mem_fraction_static" ? core::fixed(t.value, 3)
                                                                  : core::with_commas(static_cast<core::i64>(t.value));
      ImGui::TextUnformatted(value.c_str());
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", t.bound == "exact" ? T(Str::bound_exact) : t.bound == "estimate" ? T(Str::bound_estimate) : t.bound.c_str());
    }
    ImGui::EndTable();
  }
  ImGui::TreePop();
}

// "Check a start-up log": a pasted vLLM, SGLang or llama.cpp log, its settings applied to this model, each
// of the engine's figures beside llmsize's (core::check_log, as `llmsize check-log`).
void draw_log_check(App& app) {
  AppState& s = app.state;
  const bool open = ImGui::TreeNode("log_check", "%s", T(Str::log_check));
  mark("memory.log_check");
  if (!open) return;
  ImGui::TextDisabled("%s", T(Str::log_paste_hint));
  ImGui::InputTextMultiline("##log", &app.log_buffer, ImVec2(-FLT_MIN, ImGui::GetTextLineHeight() * 6));
  mark("memory.log_input");
  if (ImGui::Button(TL(Str::log_check_button, "check")) && !app.log_buffer.empty()) {
    auto log = core::parse_engine_log(app.log_buffer);
    app.log.reset();
    app.log_error.clear();
    app.log_preset.clear();
    if (log) {
      app.log = std::move(log).value();
      if (auto p = core::find_preset_by_hub(app.log->model)) app.log_preset = p->id;
    } else {
      app.log_error = core::join(log.issues(), "; ", ui_lang());
    }
  }
  mark("memory.log_button");
  if (!app.log_error.empty()) ImGui::TextColored(error_colour(), "%s", app.log_error.c_str());
  // The log names a checkpoint a preset is, and this model is another: offer that preset.
  if (app.log && !app.log_preset.empty() && app.log_preset != s.preset_id) {
    ImGui::TextColored(error_colour(), "%s", printf_text(T(Str::log_other_model), app.log->model.c_str(), app.log_preset.c_str()).c_str());
    if (ImGui::Button(TL(Str::log_use_preset, "use_preset"))) load_preset(s, app.log_preset);
    mark("memory.log_use_preset");
  }
  if (app.log) {
    auto c = core::check_log(*app.log, s.cfg, s.work);
    if (!c) {
      ImGui::TextColored(error_colour(), "%s", core::join(c.issues(), "; ", ui_lang()).c_str());
    } else {
      std::string settings;
      for (const auto& [k, v] : c->log.settings) settings += (settings.empty() ? "" : ", ") + k + " " + v;
      ImGui::TextWrapped("%s", (std::string(core::to_string(c->log.engine)) + (c->log.version.empty() ? "" : " " + c->log.version) +
                                (c->log.model.empty() ? "" : " · " + c->log.model) + (settings.empty() ? "" : " · " + settings))
                                   .c_str());
      ImGui::PushTextWrapPos(0.0f);  // notes run to a sentence or two: wrapped at the panel's edge
      for (const auto& n : c->notes) ImGui::TextDisabled("%s", core::message_in(n, ui_lang()).c_str());
      ImGui::PopTextWrapPos();
      if (ImGui::BeginTable("log_rows", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn(T(Str::col_figure));
        ImGui::TableSetupColumn(T(Str::log_col_log));
        ImGui::TableSetupColumn("llmsize");
        ImGui::TableSetupColumn(T(Str::log_col_difference));
        ImGui::TableHeadersRow();
        for (const auto& r : c->rows) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(r.label_in(ui_lang()).c_str());
          ImGui::TableNextColumn();
          ImGui::TextWrapped("%s", r.logged.c_str());
          ImGui::TableNextColumn();
          ImGui::TextWrapped("%s", r.ours.c_str());
          ImGui::TableNextColumn();
          if (r.same_text) ImGui::TextColored(ok_colour(), "%s", T(Str::log_same));
          else ImGui::TextUnformatted(((r.rel_diff >= 0 ? "+" : "") + core::fixed(r.rel_diff * 100, 2) + "%").c_str());
        }
        ImGui::EndTable();
      }
      mark("memory.log_rows");
      if (ImGui::Button(TL(Str::log_use_settings, "use"))) s.work = c->workload;
    }
  }
  ImGui::TreePop();
}

core::i64 bytes_of(const core::Figure* f, const core::Estimate& e) { return f->value(e).whole; }

}  // namespace

void draw_memory_results(App& app, const core::Estimate& e, const std::vector<core::Explanation>& ex) {
  const AppState& s = app.state;
  const bool training = s.work.mode == core::Mode::Training;
  const core::ModeFigures& mf = core::mode_figures(s.work.mode);
  const core::ByteUnit u = s.unit;
  g_unit = u;
  const float col = 185 * app.scale;
  const core::i64 total = bytes_of(mf.total, e);
  const core::i64 cap = mf.capacity(e);
  const bool fits = mf.fits(e);
  const core::i64 min_gpus = mf.min_gpus->value(e).whole;

  for (const auto& n : e.notes) {  // valid but worth saying, e.g. a context beyond the trained positions
    const core::WorkloadField* f = core::find_field(n.field);
    const std::string text = (f ? std::string(field_words(*f).label) : n.field) + " " + core::message_in(n, ui_lang()) + ".";
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(error_colour(), "%s", text.c_str());
    ImGui::PopTextWrapPos();
  }

  const core::Explanation* total_ex = find_explanation(ex, mf.total->key);
  const std::string bound = total_ex ? std::string(bound_text(total_ex->bound)) : std::string();
  // llama.cpp without a GPU: the host is its one device (the figures are its buffers, the memory --host-mem-gib).
  const bool on_host = !training && s.work.llamacpp_on_host();
  big_number(app.fonts, T(training ? Str::mem_training_per_gpu : on_host ? Str::mem_inference_on_host : Str::mem_inference_per_gpu),
             core::format_bytes(total, u),
             bound.empty() ? std::string(T(Str::mem_fragmentation)) : printf_text(T(Str::mem_bound_fragmentation), bound.c_str()),
             col * 1.2f);
  mark("figure.memory");
  flow_same_line(col * 1.2f);
  const ImVec4 fit_colour = fits ? ok_colour() : error_colour();
  big_number(app.fonts, printf_text(T(Str::mem_on_gpu), on_host ? T(Str::mem_the_host) : e.gpu.name.c_str()).c_str(),
             T(fits ? Str::mem_fits : Str::mem_no_fit),
             printf_text(T(on_host ? Str::mem_usable_host : Str::mem_usable_per_gpu), core::format_bytes(cap, u).c_str()), col * 1.2f,
             &fit_colour);
  const bool layout_only = training && e.training.recipe && e.training.recipe->recipe != core::Recipe::Megatron;
  if (!on_host) {  // GPUs needed: none on the host alone
    flow_same_line(col * 0.75f);
    big_number(app.fonts, T(Str::mem_gpus_needed), min_gpus > 0 ? std::to_string(min_gpus) : "-",
               T(layout_only ? Str::mem_recipe_layout : Str::mem_ideal_split), col * 0.75f);
  }
  if (mf.max_context) {
    const core::i64 max_context = mf.max_context->value(e).whole;
    flow_same_line(col);
    big_number(app.fonts, T(Str::mem_max_context), max_context > 0 ? core::with_commas(max_context) : T(Str::mem_none),
               T(e.inference.max_context_is_model_limit ? Str::mem_trained_limit : Str::mem_tokens_per_seq), col);
  }

  section(T(on_host ? Str::mem_where_host : Str::mem_where));
  std::vector<plot::Segment> segs;
  int ci = 0;
  for (const auto& part : mf.parts)
    segs.push_back({std::string(tr_name("legend", part.figure->key, part.legend)), to_display(bytes_of(part.figure, e), u), series_colour(ci++),
                    explanation_tooltip(ex, part.figure->key)});
  const std::string cap_label = (on_host ? std::string(T(Str::mem_the_host)) : e.gpu.name) + " " + core::format_bytes(cap, u);
  plot::stacked_bar("mem_bar", segs, to_display(cap, u), cap_label.c_str(), fmt_bytes_plain, 34 * app.scale);
  mark("memory.bar");

  if (training && e.training.recipe) {  // --recipe: the live tensors at the recipe's own peak
    const core::RecipePeak& r = *e.training.recipe;
    section(T(Str::mem_recipe_peak));
    ImGui::TextDisabled("%s", r.version.c_str());
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(printf_text(T(Str::mem_recipe_allocated), core::format_bytes(r.peak_allocated_bytes, u).c_str(),
                                       T(core::recipe_phase_row(r.phase)))
                               .c_str());
    ImGui::PopTextWrapPos();
    std::vector<plot::Segment> live;
    int li = 0;
    auto formula_and_source = [](const core::RecipePart& p) {  // in the page's language
      return core::recipe_part_formula(p, ui_lang()) + "\n\n" + core::recipe_part_source(p, ui_lang());
    };
    for (const core::RecipePart& p : r.parts)
      live.push_back({T(p.label), to_display(p.bytes, u), series_colour(li++), formula_and_source(p)});
    plot::stacked_bar("recipe_bar", live, 0, "", fmt_bytes_plain, 28 * app.scale);
    if (ImGui::BeginTable("recipe_parts", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
      for (const core::RecipePart& p : r.parts) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Selectable(T(p.label), false, ImGuiSelectableFlags_SpanAllColumns);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", formula_and_source(p).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(core::format_bytes(p.bytes, u).c_str());
      }
      ImGui::EndTable();
    }
    mark("memory.recipe");
  }

  if (training && e.training.stages.size() > 1) {  // pipeline stages: every stage's GPU beside the most loaded one
    section(T(Str::mem_stages));
    if (ImGui::BeginTable("train_stages", 6, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
      for (Str heading : {Str::mem_stage_col_stage, Str::mem_stage_col_layers, Str::mem_stage_col_inflight, Str::mem_stage_col_params,
                      Str::mem_stage_col_peak, Str::mem_stage_col_total})
        ImGui::TableSetupColumn(T(heading));
      ImGui::TableHeadersRow();
      for (const core::TrainingStage& st : e.training.stages) {
        ImGui::TableNextRow();
        const std::string cells[] = {std::to_string(st.stage),
                                     std::to_string(st.first_layer) + "-" + std::to_string(st.last_layer()),
                                     std::to_string(st.inflight), core::with_commas(st.params_gpu),
                                     core::format_bytes(st.peak_allocated_bytes, u), core::format_bytes(st.total_bytes, u)};
        for (const std::string& cell : cells) {
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(cell.c_str());
        }
      }
      ImGui::EndTable();
    }
    mark("memory.stages");
  }

  if (e.llamacpp && !training) {  // runtime llamacpp: the lines llama-server prints for this model and flags
    section(printf_text(T(Str::mem_engine_prints), "llama.cpp").c_str());
    const core::LlamaCppMemory& l = *e.llamacpp;
    ImGui::TextDisabled("%s", (std::string(core::kLlamaCppVersion) + " · n_ctx " + core::with_commas(l.n_ctx) + " · " +
                               printf_text(T(l.n_seq == 1 ? Str::mem_llamacpp_slot : Str::mem_llamacpp_slots), core::with_commas(l.n_seq).c_str()) +
                               (l.unified ? T(Str::mem_llamacpp_unified) : "") + " · n_ubatch " +
                               core::with_commas(l.n_ubatch))
                                  .c_str());
    ImGui::PushFont(app.fonts.small);
    if (e.llamacpp_devices)
      for (const auto& line : core::llamacpp_buffer_log(*e.llamacpp_devices)) ImGui::TextUnformatted(line.c_str());
    for (const auto& line : core::llamacpp_log(l, s.work.kv_dtype, e.llamacpp_devices ? &*e.llamacpp_devices : nullptr)) ImGui::TextUnformatted(line.c_str());
    ImGui::PopFont();
    if (e.llamacpp_devices)
      for (const auto& note : core::llamacpp_buffer_notes(*e.llamacpp_devices, u, ui_lang())) ImGui::TextDisabled("%s", note.c_str());
    // The host's buffers (inference.host_bytes) and, on unified memory, those with the device's
    // (inference.unified_bytes): the last of them against --host-mem-gib where given.
    auto host_line = [&](std::string_view key, core::i64 bytes, bool checked) {
      const core::Figure* f = core::find_figure(key);
      std::string text = std::string(tr_name("figure", f->key, f->label)) + ": " + core::format_bytes(bytes, u);
      if (const core::Explanation* x = find_explanation(ex, f->key)) text += " (" + std::string(bound_text(x->bound)) + ")";
      if (checked)
        text += " · " + printf_text(T(Str::mem_host_of), core::format_bytes(e.host_capacity_bytes, u).c_str(),
                                    T(e.host_fits ? Str::mem_fits : Str::mem_no_fit));
      if (checked) ImGui::TextColored(e.host_fits ? ok_colour() : error_colour(), "%s", text.c_str());
      else ImGui::TextUnformatted(text.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", explanation_tooltip(ex, f->key).c_str());
    };
    if (e.llamacpp_devices) {
      const bool checked = e.host_capacity_bytes > 0;
      host_line("inference.host_bytes", e.llamacpp_devices->host_bytes(), checked && e.unified_bytes == 0);
      mark("memory.llamacpp_host");
      if (e.unified_bytes > 0) {
        host_line("inference.unified_bytes", e.unified_bytes, checked);
        mark("memory.llamacpp_unified");
      }
    }
    mark("memory.llamacpp");
  }
  if (s.model_file && !training) {  // a GGUF file read for its header: its bytes beside the estimate
    section(T(Str::mem_from_file));
    const core::GgufHeader& f = *s.model_file;
    ImGui::TextDisabled(T(Str::mem_file_read), file_size(s.model_file_read).c_str(), file_size(f.file_bytes).c_str());
    draw_report(app, core::gguf_estimate_text(f, s.model_file_name, s.work, e, u));
    mark("memory.file");
  }
  if (!s.model_safetensors.empty() && !training && app.prepared && app.prepared->inventory) {
    // A safetensors checkpoint read for its headers: its bytes beside the estimate.
    section(T(Str::mem_from_checkpoint));
    core::i64 file_bytes = 0;
    for (const auto& f : s.model_safetensors) file_bytes += f.file_bytes;
    ImGui::TextDisabled(T(s.model_safetensors.size() == 1 ? Str::mem_checkpoint_read_one : Str::mem_checkpoint_read),
                        file_size(s.model_file_read).c_str(), file_size(file_bytes).c_str(),
                        static_cast<int>(s.model_safetensors.size()));
    draw_report(app, core::safetensors_estimate_text(s.model_safetensors, *app.prepared->inventory, s.work, e, u));
    mark("memory.file");
  }
  if (s.projector_bytes >= 0 && !training) {  // an mmproj file: the vision encoder's bytes
    section(T(Str::mem_projector));
    ImGui::TextDisabled(T(Str::mem_projector_text), s.projector_name.c_str(), core::format_bytes(s.projector_bytes, u).c_str());
    mark("memory.projector");
  }
  if (e.vllm && !training) {  // runtime vllm: the lines vllm serve prints for this model and flags
    section(printf_text(T(Str::mem_engine_prints), "vLLM").c_str());
    const core::VllmMemory& v = *e.vllm;
    ImGui::TextDisabled("%s", (std::string(v.version()) + " · " + core::vllm_settings(v, " · ")).c_str());
    ImGui::PushFont(app.fonts.small);
    for (const auto& line : core::vllm_log(v)) ImGui::TextWrapped("%s", line.c_str());
    ImGui::PopFont();
    ImGui::PushTextWrapPos(0.0f);
    if (!v.startup_refused)  // stopped before loading: no graphs to speak of
      ImGui::TextDisabled(T(core::vllm_graphs_row(v)),
                          core::format_bytes(v.cuda_graph_estimate_bytes > 0 ? v.cuda_graph_estimate_bytes : v.total_bytes - v.budget_bytes, u).c_str());
    if (v.tq_workspace_bytes > 0 && v.error.empty())
      ImGui::TextDisabled(T(Str::rep_vllm_tq_workspace), core::format_bytes(v.tq_workspace_bytes, u).c_str());
    ImGui::PopTextWrapPos();
    mark("memory.vllm");
    draw_terms(core::vllm_terms(v, s.work, e.gpu, ui_lang()), u, "vllm_terms", printf_text(T(Str::mem_engine_terms), "vLLM").c_str());
  }

  if (e.sglang && !training) {  // runtime sglang: the lines sglang.launch_server prints for this model and flags
    section(printf_text(T(Str::mem_engine_prints), "SGLang").c_str());
    const core::SglangMemory& g = *e.sglang;
    ImGui::TextDisabled("%s", (std::string(g.version) + " · " + core::sglang_settings(g, " · ", ui_lang())).c_str());
    ImGui::PushFont(app.fonts.small);
    for (const auto& line : core::sglang_log(g)) ImGui::TextWrapped("%s", line.c_str());
    ImGui::PopFont();
    mark("memory.sglang");
    draw_terms(core::sglang_terms(g, s.work, e.gpu, ui_lang()), u, "sglang_terms", printf_text(T(Str::mem_engine_terms), "SGLang").c_str());
  }
  if (e.transformers && !training) {  // runtime transformers: what torch.cuda.max_memory_allocated() returns after generate()
    section(printf_text(T(Str::mem_engine_prints), "Transformers").c_str());
    const core::TransformersMemory& t = *e.transformers;
    ImGui::TextDisabled("%s", (std::string(core::kTransformersVersion) + " · " + core::transformers_settings(t, " · ")).c_str());
    ImGui::PushFont(app.fonts.small);
    for (const auto& line : core::transformers_log(t)) ImGui::TextWrapped("%s", line.c_str());
    ImGui::PopFont();
    mark("memory.transformers");
    draw_terms(core::transformers_terms(t, ui_lang()), u, "transformers_terms",
               printf_text(T(Str::mem_engine_terms), "Transformers").c_str());
  }
  draw_log_check(app);  // engines' start-up logs, and Megatron-LM's training log in either mode

  section(T(Str::mem_every_figure));
  ImGui::TextDisabled("%s", T(Str::mem_open_row));
  explanation_rows(ex, mf.section, s.work.mode, u);
}

void draw_scaling_results(App& app, const core::Estimate& e) {
  const AppState& s = app.state;
  const bool training = s.work.mode == core::Mode::Training;
  const core::ModeFigures& mf = core::mode_figures(s.work.mode);
  const core::ByteUnit u = s.unit;
  g_unit = u;
  auto total_of = [&](const core::Estimate& x) { return bytes_of(mf.total, x); };
  auto part_of = [&](const core::Estimate& x) { return bytes_of(mf.growth, x); };
  std::string part_label;  // the growth figure's legend in the stacked bar
  for (const auto& part : mf.parts)
    if (part.figure == mf.growth) part_label = tr_name("legend", part.figure->key, part.legend);

  // Capacity lines: the chosen GPU and the catalog's other memory sizes, largest few.
  auto capacity_lines = [&]() {
    const double own = to_display(mf.capacity(e), u);
    plot::plot_hline(printf_text(T(Str::plot_usable), e.gpu.name.c_str()).c_str(), own, ImGui::GetColorU32(ImGuiCol_Text), 1.6);
    std::vector<core::i64> seen = {e.gpu.memory_bytes};
    int shown = 0;
    for (const auto& g : core::gpu_catalog()) {
      if (shown >= 3 || std::find(seen.begin(), seen.end(), g.memory_bytes) != seen.end()) continue;
      if (g.vendor != "NVIDIA" && g.vendor != "AMD") continue;
      seen.push_back(g.memory_bytes);
      plot::plot_hline(g.name.c_str(), to_display(g.usable_bytes(), u), series_colour(4 + shown), 1.6);
      ++shown;
    }
  };

  const float h = std::max(220.0f * app.scale, (ImGui::GetContentRegionAvail().y - 80 * app.scale) / 2);
  // Memory against context length (powers of two up to twice the trained context).
  {
    section(T(training ? Str::scale_vs_seq : Str::scale_vs_context));
    std::vector<double> xs, total, part;
    const core::i64 top = std::min<core::i64>(1 << 22, std::max<core::i64>(s.cfg.max_positions * 2, s.work.seq * 2));
    for (core::i64 n = 128; n <= top; n *= 2) {
      core::Workload w = s.work;
      w.seq = n;
      auto r = estimate(app, w);
      if (!r) continue;
      xs.push_back(static_cast<double>(n));
      total.push_back(to_display(total_of(r.value()), u));
      part.push_back(to_display(part_of(r.value()), u));
    }
    if (plot::begin_plot("ctx", ImVec2(-1, h), T(training ? Str::scale_axis_seq : Str::scale_axis_context),
                         core::unit_label(u), plot::kLogX)) {
      plot::setup_format(fmt_tokens, fmt_bytes_axis);
      plot::plot_line(T(Str::plot_total_per_gpu), xs, total, series_colour(0));
      plot::plot_line(part_label.c_str(), xs, part, series_colour(1));
      plot::plot_vline(T(Str::plot_current), static_cast<double>(s.work.seq), text_weak());
      capacity_lines();
      plot::end_plot();
    }
    mark("plot.context");
  }
  // Memory against batch.
  {
    section(T(training ? Str::scale_vs_microbatch : Str::scale_vs_batch));
    std::vector<double> xs, total, part;
    const core::i64 top = std::max<core::i64>(64, s.work.batch * 4);
    for (core::i64 b = 1; b <= std::min<core::i64>(top, 4096); b *= 2) {
      core::Workload w = s.work;
      w.batch = b;
      auto r = estimate(app, w);
      if (!r) continue;
      xs.push_back(static_cast<double>(b));
      total.push_back(to_display(total_of(r.value()), u));
      part.push_back(to_display(part_of(r.value()), u));
    }
    if (plot::begin_plot("batch", ImVec2(-1, h), T(training ? Str::scale_axis_microbatch : Str::scale_axis_batch),
                         core::unit_label(u), plot::kLogX)) {
      plot::setup_format(fmt_int, fmt_bytes_axis);
      plot::plot_line(T(Str::plot_total_per_gpu), xs, total, series_colour(0));
      plot::plot_line(part_label.c_str(), xs, part, series_colour(1));
      plot::plot_vline(T(Str::plot_current), static_cast<double>(s.work.batch), text_weak());
      capacity_lines();
      plot::end_plot();
    }
    mark("plot.batch");
  }
}

// Results › Compare: case 1 (the configuration the inputs edit) and the cases added beside it —
// core::compare's rows in columns, differences highlighted, the memory bars on one scale and the
// memory-against-context curves overlaid. Every value is an estimate() of its case.
void draw_compare_results(App& app, const core::Estimate& first) {
  AppState& s = app.state;
  const core::ByteUnit u = s.unit;
  g_unit = u;
  const float sc = app.scale;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled(T(Str::cmp_intro), core::kMaxCompareCases);
  ImGui::PopTextWrapPos();
  const bool full = s.compare.size() + 1 >= static_cast<size_t>(core::kMaxCompareCases);
  if (full) ImGui::BeginDisabled();
  if (ImGui::Button(TL(Str::cmp_add, "add"))) add_compare_case(s);
  if (full) ImGui::EndDisabled();
  mark("compare.add");
  if (s.compare.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", T(Str::cmp_add_hint));
    ImGui::PopTextWrapPos();
    return;
  }
  ImGui::SameLine();
  if (ImGui::Button(TL(Str::cmp_copy_link, "copy"))) copy_link(app);
  mark("compare.copy_link");
  ImGui::SameLine();
  if (ImGui::Button(TL(Str::cmp_clear, "clear"))) {
    s.compare.clear();
    return;
  }
  mark("compare.clear");

  // Every case estimated; a case's buttons act after the table (the table reads the cases).
  const std::vector<core::ShareState> cases = compare_cases(s);
  const size_t n = cases.size();
  std::vector<core::Result<core::Estimate>> est;
  est.emplace_back(first);
  for (size_t k = 2; k <= n; ++k) est.push_back(estimate_case(app, k, cases[k - 1].workload));
  const core::Comparison c = core::compare(cases, est, ui_lang());
  size_t edit = 0, remove = 0;

  section(T(Str::cmp_figures));
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("compare_rows", static_cast<int>(n) + 1, flags)) {
    ImGui::TableSetupColumn(T(Str::col_figure), ImGuiTableColumnFlags_WidthStretch, 1.2f);
    for (size_t k = 0; k < n; ++k) ImGui::TableSetupColumn(std::to_string(k + 1).c_str(), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", T(Str::cmp_case));
    for (size_t k = 0; k < n; ++k) {
      ImGui::TableNextColumn();
      ImGui::PushID(static_cast<int>(k));
      ImGui::TextColored(series_colour_v(static_cast<int>(k)), "%d%s", static_cast<int>(k + 1), k == 0 ? T(Str::cmp_in_inputs) : "");
      ImGui::TextWrapped("%s", c.titles[k].c_str());
      for (const auto& is : c.issues[k]) error_text(printf_text(T(Str::cmp_no_estimate_why), core::to_string(is, ui_lang()).c_str()));
      if (k > 0) {
        if (ImGui::SmallButton(TL(Str::cmp_edit, "edit"))) edit = k + 1;
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", T(Str::cmp_edit_tip));
        mark(("compare.edit." + std::to_string(k + 1)).c_str());
        ImGui::SameLine();
        if (ImGui::SmallButton(TL(Str::cmp_remove, "remove"))) remove = k + 1;
        mark(("compare.remove." + std::to_string(k + 1)).c_str());
      }
      ImGui::PopID();
    }
    ImVec4 hi = series_colour_v(6);
    hi.w = theme_is_dark() ? 0.16f : 0.28f;
    for (const core::CompareRow& r : c.rows) {
      if (!core::row_present(r)) continue;
      ImGui::TableNextRow();
      if (r.differs) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, ImGui::GetColorU32(hi));
      ImGui::TableNextColumn();
      ImGui::TextWrapped("%s%s", r.differs ? "* " : "", core::compare_label(r, ui_lang()).c_str());
      for (size_t k = 0; k < n; ++k) {
        ImGui::TableNextColumn();
        ImGui::TextWrapped("%s", core::compare_cell(r, k, u, ui_lang()).c_str());
      }
    }
    ImGui::EndTable();
  }
  mark("compare.table");
  ImGui::TextDisabled("%s", T(Str::cmp_legend));

  // The memory of each case's most loaded GPU, every bar on the scale of the largest.
  section(T(Str::cmp_bars));
  double top = 0;
  for (size_t k = 0; k < n; ++k) {
    if (!est[k]) continue;
    const core::ModeFigures& mf = core::mode_figures(cases[k].workload.mode);
    top = std::max({top, to_display(bytes_of(mf.total, *est[k]), u), to_display(mf.capacity(*est[k]), u)});
  }
  for (size_t k = 0; k < n; ++k) {
    ImGui::TextColored(series_colour_v(static_cast<int>(k)), "%zu", k + 1);
    ImGui::SameLine();
    if (!est[k]) {
      ImGui::TextDisabled("%s", T(Str::cmp_no_estimate));
      continue;
    }
    const core::Estimate& e = *est[k];
    const core::ModeFigures& mf = core::mode_figures(cases[k].workload.mode);
    ImGui::TextUnformatted(printf_text(T(mf.fits(e) ? Str::cmp_bar_fits : Str::cmp_bar_no_fit),
                               core::format_bytes(bytes_of(mf.total, e), u).c_str(), e.gpu.name.c_str())
                               .c_str());
    std::vector<plot::Segment> segs;
    int ci = 0;
    for (const auto& part : mf.parts)
      segs.push_back({std::string(tr_name("legend", part.figure->key, part.legend)), to_display(bytes_of(part.figure, e), u),
                      series_colour(ci++), ""});
    const std::string cap_label = e.gpu.name + " " + core::format_bytes(mf.capacity(e), u);
    plot::stacked_bar(("compare_bar" + std::to_string(k)).c_str(), segs, to_display(mf.capacity(e), u), cap_label.c_str(),
                      fmt_bytes_plain, 22 * sc, top * 1.02);
  }
  mark("compare.bars");

  // Memory against context length, one curve per case, with each case's GPU capacity.
  section(T(Str::scale_vs_context));
  core::i64 longest = 0;
  for (const auto& cs : cases) longest = std::max({longest, cs.model.max_positions * 2, cs.workload.seq * 2});
  longest = std::min<core::i64>(longest, 1 << 22);
  const float h = std::max(220.0f * sc, ImGui::GetContentRegionAvail().y - 40 * sc);
  if (plot::begin_plot("compare_ctx", ImVec2(-1, h), T(Str::cmp_axis_context), core::unit_label(u), plot::kLogX)) {
    plot::setup_format(fmt_tokens, fmt_bytes_axis);
    std::vector<std::string> gpus_shown;
    for (size_t k = 0; k < n; ++k) {
      if (!est[k]) continue;
      const core::ModeFigures& mf = core::mode_figures(cases[k].workload.mode);
      std::vector<double> xs, ys;
      for (core::i64 len = 128; len <= longest; len *= 2) {
        core::Workload w = cases[k].workload;
        w.seq = len;
        auto r = estimate_case(app, k + 1, w);
        if (!r) continue;
        xs.push_back(static_cast<double>(len));
        ys.push_back(to_display(bytes_of(mf.total, *r), u));
      }
      const std::string name = cases[k].model.name.empty() ? std::string(T(Str::cmp_custom_model)) : cases[k].model.name;
      plot::plot_line((std::to_string(k + 1) + " " + name).c_str(), xs, ys, series_colour(static_cast<int>(k)));
      const std::string gpu = printf_text(T(Str::plot_usable), est[k]->gpu.name.c_str());
      if (std::find(gpus_shown.begin(), gpus_shown.end(), gpu) == gpus_shown.end()) {
        gpus_shown.push_back(gpu);
        plot::plot_hline(gpu.c_str(), to_display(mf.capacity(*est[k]), u), ImGui::GetColorU32(ImGuiCol_Text), 1.6);
      }
    }
    plot::end_plot();
  }
  mark("compare.curves");

  if (edit) edit_compare_case(s, edit);
  if (remove) remove_compare_case(s, remove);
}

}  // namespace llmsize::app
