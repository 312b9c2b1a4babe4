// Text and JSON reports (see report.hpp).
#include "report.hpp"

#include "lang.hpp"

#include <algorithm>
#include <cstdio>

#include "format.hpp"
#include "json_util.hpp"
#include "report_json.hpp"

namespace llmsize::core {

namespace {
using json_util::json;

json model_json(const ModelConfig& c) {
  json m = {{"family", std::string(family_id(c.family))},
            {"name", c.name},
            {"layers", c.n_layers},
            {"hidden_size", c.d_model},
            {"heads", c.n_heads},
            {"kv_heads", c.n_kv_heads},
            {"head_dim", c.head_dim},
            {"ffn_kind", std::string(to_string(c.ffn_kind))},
            {"intermediate_size", c.d_ff},
            {"vocab_size", c.vocab},
            {"max_positions", c.max_positions},
            {"tie_embeddings", c.tie_embeddings}};
  if (c.is_moe())
    m["moe"] = {{"experts", c.moe.num_experts}, {"top_k", c.moe.top_k}, {"expert_ffn", c.moe.expert_ffn},
                {"shared_ffn", c.moe.shared_ffn}, {"first_dense", c.moe.first_dense}};
  if (c.vision.enabled()) {
    m["vision"] = {{"kind", std::string(to_string(c.vision.kind))}, {"layers", c.vision.layers},
                   {"hidden_size", c.vision.hidden}, {"intermediate_size", c.vision.ffn},
                   {"patch_size", c.vision.patch}, {"image_size", c.vision.image}};
    if (c.vision.kind == VisionKind::Qwen35) {
      m["vision"]["temporal_patch_size"] = c.vision.temporal_patch;
      m["vision"]["spatial_merge_size"] = c.vision.merge;
      m["vision"]["num_position_embeddings"] = c.vision.positions;
    }
  }
  if (c.mla.enabled)
    m["mla"] = {{"q_lora_rank", c.mla.q_lora_rank}, {"kv_lora_rank", c.mla.kv_lora_rank},
                {"qk_nope_head_dim", c.mla.qk_nope_dim}, {"qk_rope_head_dim", c.mla.qk_rope_dim},
                {"v_head_dim", c.mla.v_head_dim}};
  return m;
}

std::string pct(i64 part, i64 whole) {
  return whole > 0 ? fixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + "%" : "";
}
std::string signed_commas(i64 v) { return (v > 0 ? "+" : "") + with_commas(v); }
}  // namespace

json params_object(const ModelConfig& c, const ParamReport& p) {
  json by_group = json::object();
  for (int g = 0; g < kGroupCount; ++g) {
    if (static_cast<Group>(g) == Group::Mtp) continue;
    by_group[std::string(to_string(static_cast<Group>(g)))] = p.by_group[g];
  }
  json kinds = json::array();
  for (const auto& k : p.kinds)
    kinds.push_back({{"kind", k.label}, {"layers", k.layers}, {"params_per_layer", k.params_per_layer},
                     {"active_per_layer", k.active_per_layer}});
  json gap = json::array();
  for (const auto& g : p.gap) gap.push_back({{"cause", g.cause}, {"delta", g.delta}, {"why", g.why}});
  json params = {{"total", p.total},
                 {"active", p.active},
                 {"mtp", p.mtp},
                 {"total_with_mtp", p.total + p.mtp},
                 {"vision", p.vision},
                 {"total_with_vision", p.total + p.vision},
                 // Every tensor a checkpoint stores: what the Hub's safetensors count gives.
                 {"checkpoint_total", p.total + p.mtp + p.vision},
                 {"by_group", by_group},
                 {"layer_kinds", kinds},
                 {"approx_12nd2_vd", p.approx_12nd2_vd},
                 {"approx", {{"attention_4nd2", p.approx_attention}, {"ffn_8nd2", p.approx_ffn},
                             {"embedding_vd", p.approx_embedding}}},
                 {"gap", gap}};
  return {{"model", model_json(c)}, {"params", params}};
}

std::string params_json(const ModelConfig& c, const ParamReport& p) {
  return params_object(c, p).dump(2, ' ', false, json::error_handler_t::replace);
}

std::string presets_json(const std::vector<Preset>& presets) {
  json out = json::array();
  for (const auto& p : presets) {
    auto counts = count_params(p.config);
    out.push_back({{"id", p.id}, {"name", p.name}, {"family", std::string(family_id(p.config.family))},
                   {"total", counts ? counts->total : 0}, {"active", counts ? counts->active : 0},
                   {"source", p.source}});
  }
  return out.dump(2, ' ', false, json::error_handler_t::replace);
}

std::string architecture_summary(const ModelConfig& c, Lang lang) {
  auto t = [lang](Str k) { return tr(k, lang); };
  const std::string sep = t(Str::arch_sep);
  std::string s = std::string(family_id(c.family)) + sep + printf_text(t(Str::arch_layers), with_commas(c.n_layers).c_str()) + sep +
                  "d " + with_commas(c.d_model) + sep;
  if (c.mla.enabled) s += printf_text(t(Str::arch_heads_mla), with_commas(c.n_heads).c_str(), with_commas(c.mla.kv_lora_rank).c_str());
  else if (c.n_kv_heads == c.n_heads) s += printf_text(t(Str::arch_heads), with_commas(c.n_heads).c_str());
  else s += printf_text(t(Str::arch_heads_kv), with_commas(c.n_heads).c_str(), with_commas(c.n_kv_heads).c_str());
  if (!c.mla.enabled) s += sep + "head_dim " + with_commas(c.head_dim);
  if (c.d_ff > 0)  // 0: experts in every layer (Qwen3.5 MoE configs give no dense width)
    s += sep + printf_text(t(c.ffn_kind == FfnKind::Gated ? Str::arch_ffn_gated : Str::arch_ffn_classic), with_commas(c.d_ff).c_str());
  if (c.is_moe()) {
    s += sep + "MoE " + with_commas(c.moe.num_experts) + "×" + with_commas(c.moe.expert_ffn) + " top-" + with_commas(c.moe.top_k);
    if (c.moe.shared_ffn) s += printf_text(t(Str::arch_shared), with_commas(c.moe.shared_ffn).c_str());
  }
  s += sep + printf_text(t(c.tie_embeddings ? Str::arch_vocab_tied : Str::arch_vocab_untied), with_commas(c.vocab).c_str());
  if (c.vision.enabled())
    s += sep + printf_text(t(Str::arch_vision), std::string(to_string(c.vision.kind)).c_str(), with_commas(c.vision.layers).c_str(),
                   with_commas(c.vision.hidden).c_str());
  return s;
}

std::string params_text(const ModelConfig& c, const ParamReport& p, Lang lang) {
  auto t = [lang](Str k) { return std::string(tr(k, lang)); };
  std::string o;
  o += (c.name.empty() ? t(Str::rep_custom_model) : c.name) + "\n  " + architecture_summary(c, lang) + "\n\n";
  o += pad_right(t(Str::rep_params_heading), 22) + pad_left(t(Str::rep_exact), 20) + pad_left(t(Str::rep_share), 9) + "\n";
  for (int g = 0; g < kGroupCount; ++g) {
    const auto grp = static_cast<Group>(g);
    if (grp == Group::Mtp) continue;
    const FieldText* name = field_text("group", to_string(grp), lang);
    o += "  " + pad_right(name ? std::string(name->label) : std::string(to_string(grp)), 20) +
         pad_left(with_commas(p.by_group[g]), 20) + pad_left(pct(p.by_group[g], p.total), 9) + "\n";
  }
  o += "  " + pad_right(t(Str::rep_total), 20) + pad_left(with_commas(p.total), 20) + "   (" + short_count(p.total) + ")\n";
  if (c.is_moe())
    o += "  " + pad_right(t(Str::rep_active_per_token), 20) + pad_left(with_commas(p.active), 20) + "   (" +
         short_count(p.active) + ", " + pct(p.active, p.total) + ")\n";
  if (p.vision > 0)
    o += "  " + pad_right(t(Str::rep_vision_not_in_total), 20) + pad_left(with_commas(p.vision), 20) + "   " +
         printf_text(tr(Str::rep_with_language_model, lang), with_commas(p.total + p.vision).c_str()) + "\n";
  if (p.mtp > 0)
    o += "  " + pad_right(t(Str::rep_mtp_not_in_total), 20) + pad_left(with_commas(p.mtp), 20) + "   " +
         printf_text(tr(Str::rep_total_with_mtp, lang), with_commas(p.total + p.mtp).c_str()) + "\n";
  if (p.mtp > 0 && p.vision > 0)
    o += "  " + pad_right(t(Str::rep_checkpoint_all), 20) + pad_left(with_commas(p.total + p.mtp + p.vision), 20) + "   (" +
         short_count(p.total + p.mtp + p.vision) + ") " + t(Str::rep_checkpoint_note) + "\n";
  o += "\n" + t(Str::rep_layers) + "\n";
  std::size_t kind_width = 8;  // the widest kind's label, in display columns
  for (const auto& k : p.kinds) kind_width = std::max(kind_width, display_width(kind_text(k, lang)));
  for (const auto& k : p.kinds) {
    o += "  " + pad_right(kind_text(k, lang), kind_width) + pad_left(with_commas(k.layers), 5) + " × " +
         pad_left(with_commas(k.params_per_layer), 16);
    if (k.active_per_layer != k.params_per_layer)
      o += "   " + printf_text(tr(Str::rep_active_n, lang), with_commas(k.active_per_layer).c_str());
    o += "\n";
  }
  const i64 diff = p.total - p.approx_12nd2_vd;
  o += "\n" + printf_text(tr(Str::rep_classic, lang), with_commas(p.approx_12nd2_vd).c_str(), signed_commas(diff).c_str(),
                          ((diff >= 0 ? "+" : "") + pct(diff, p.approx_12nd2_vd)).c_str()) + "\n";
  for (const auto& item : p.gap) {
    const GapItem g = gap_words(c, p, item, lang);
    o += "  " + pad_right(g.cause, 22) + pad_left(signed_commas(g.delta), 18) + "  " + g.why + "\n";
  }
  return o;
}

std::string inventory_text(const ModelConfig& c, const Inventory& inv, const ParamReport& p, Lang lang) {
  std::string o;
  auto row = [&](const Tensor& t, i64 times) {
    std::string shape = t.rows > 1 ? with_commas(t.rows) + " × " + with_commas(t.cols) : with_commas(t.cols);
    if (t.copies > 1) shape = with_commas(t.copies) + " × (" + shape + ")";
    o += "    " + pad_right(t.name, 58) + " " + pad_right(std::string(to_string(t.group)), 10) + " " +
         pad_left(shape, 28) + pad_left(with_commas(t.numel() * times), 20) + "\n";
  };
  o += std::string(tr(Str::rep_inventory_heading, lang)) + "\n";
  o += "  " + std::string(tr(Str::rep_inventory_global, lang)) + "\n";
  for (const auto& t : inv.global) row(t, 1);
  auto kinds = [&](const std::vector<LayerKind>& ks) {
    for (const auto& k : ks) {
      std::string idx = k.layers.size() == 1 ? std::to_string(k.layers[0])
                                              : std::to_string(k.layers.front()) + "…" + std::to_string(k.layers.back());
      o += "  " + printf_text(tr(Str::rep_inventory_kind, lang), kind_text(k, lang).c_str(),
                              with_commas(static_cast<i64>(k.layers.size())).c_str(), idx.c_str()) + "\n";
      for (const auto& t : k.tensors) row(t, static_cast<i64>(k.layers.size()));
    }
  };
  kinds(inv.kinds);
  if (!inv.mtp.empty()) {
    o += "  " + std::string(tr(Str::rep_inventory_mtp, lang)) + "\n";
    kinds(inv.mtp);
  }
  o += "\n" + printf_text(tr(Str::rep_classic_derivation, lang), with_commas(c.n_layers).c_str(), with_commas(c.d_model).c_str(),
                          with_commas(c.vocab).c_str()) +
       "\n  12·L·d² = 12 × " + with_commas(c.n_layers) + " × " + with_commas(c.d_model) + "² = " +
       with_commas(p.approx_attention + p.approx_ffn) + "  " +
       printf_text(tr(Str::rep_classic_terms, lang), with_commas(p.approx_attention).c_str(), with_commas(p.approx_ffn).c_str()) +
       "\n  v·d = " + with_commas(p.approx_embedding) + "\n  " + tr(Str::rep_sum, lang) + " = " + with_commas(p.approx_12nd2_vd) + "\n";
  return o;
}

}  // namespace llmsize::core
