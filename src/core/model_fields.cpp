// The ModelConfig field table (see model_fields.hpp).
#include "model_fields.hpp"

#include <string>

#include "format.hpp"

namespace llmsize::core {

namespace {

#define AT(member) [](auto& c) -> auto& { return c.member; }

using M = ModelConfig;

FieldSpec spec(std::string_view key, std::string_view canonical, std::string_view label, std::string_view help) {
  FieldSpec s;
  s.key = key;
  s.canonical = canonical;
  s.label = label;
  s.help = help;
  return s;
}

// An integer field whose range is its row of field_limits(). It stores what the row allows,
// and also 0 where 0 means "feature off" (MoE and MLA fields of a dense model); validate()
// applies the semantic bounds.
template <class Ref>
ModelField limited(std::string_view key, std::string_view canonical, std::string_view label, std::string_view help,
                   Ref ref) {
  FieldSpec s = spec(key, canonical, label, help);
  const FieldLimit& l = *find_limit(canonical);
  s.min_int = l.zero_off ? 0 : l.min;
  s.max_int = l.max;
  return int_field<M>(s, ref);
}

// A real field whose range is its row of real_limits().
template <class Ref>
ModelField limited_real(std::string_view key, std::string_view canonical, std::string_view label,
                        std::string_view help, Ref ref) {
  FieldSpec s = spec(key, canonical, label, help);
  const RealLimit& l = *find_real_limit(canonical);
  s.min_real = l.min;
  s.max_real = l.max;
  return real_field<M>(s, ref);
}

// Bool and enum fields are named by their key in validate()'s issues too.
template <class Ref>
ModelField flag(std::string_view key, std::string_view label, std::string_view help, Ref ref) {
  return bool_field<M>(spec(key, key, label, help), ref);
}
template <class Ref>
ModelField choice(std::string_view key, std::string_view label, std::string_view help, Names names, Ref ref) {
  return enum_field<M>(spec(key, key, label, help), names, ref);
}

// A layer index: [0, layers - 1] of the num_hidden_layers row.
FieldSpec layer_index(FieldSpec s, FieldKind kind) {
  s.kind = kind;
  s.min_int = 0;
  s.max_int = find_limit("num_hidden_layers")->max - 1;
  return s;
}

// mlp_only_layers: comma-separated layer indices, at most one per layer.
ModelField dense_layers() {
  ModelField row{layer_index(spec("dl", "mlp_only_layers", "dense layers", "explicitly dense layers, comma separated"),
                             FieldKind::IntList)};
  row.get_text = [](const FieldSpec&, const M& c) {
    std::string s;
    for (i64 l : c.moe.dense_layers) s += (s.empty() ? "" : ",") + std::to_string(l);
    return s;
  };
  row.set_text = [](const FieldSpec& f, M& c, std::string_view t) -> std::optional<Issue> {
    std::vector<i64> out;
    while (!t.empty()) {
      const size_t comma = t.find(',');
      auto v = parse_int(t.substr(0, comma));
      if (!v || *v < f.min_int || *v > f.max_int || out.size() > static_cast<size_t>(f.max_int))
        return issue(std::string(f.key), [lo = f.min_int, hi = f.max_int](Lang l) {
          return printf_text(tr(Str::issue_layer_indices, l), std::to_string(lo).c_str(), std::to_string(hi).c_str());
        });
      out.push_back(*v);
      if (comma == std::string_view::npos) break;
      t.remove_prefix(comma + 1);
    }
    c.moe.dense_layers = std::move(out);
    return std::nullopt;
  };
  return row;
}

// A per-layer list (ModelConfig::layer_kv_heads, layer_ffn): comma-separated values, one per layer,
// each within the canonical field's limits; empty for a uniform model.
template <std::vector<i64> M::*member>
ModelField per_layer_list(std::string_view key, std::string_view canonical, std::string_view label, std::string_view help) {
  FieldSpec f = spec(key, canonical, label, help);
  f.kind = FieldKind::IntList;
  const FieldLimit& l = *find_limit(canonical);
  f.min_int = l.min;
  f.max_int = l.max;
  ModelField row{f};
  row.get_text = [](const FieldSpec&, const M& c) {
    std::string s;
    for (i64 v : c.*member) s += (s.empty() ? "" : ",") + std::to_string(v);
    return s;
  };
  row.set_text = [](const FieldSpec& s, M& c, std::string_view t) -> std::optional<Issue> {
    std::vector<i64> out;
    const i64 max_layers = find_limit("num_hidden_layers")->max;
    while (!t.empty()) {
      const size_t comma = t.find(',');
      auto v = parse_int(t.substr(0, comma));
      if (!v || *v < s.min_int || *v > s.max_int || static_cast<i64>(out.size()) >= max_layers)
        return issue(std::string(s.key), [lo = s.min_int, hi = s.max_int](Lang lg) {
          return printf_text(tr(Str::issue_per_layer_values, lg), std::to_string(lo).c_str(), std::to_string(hi).c_str());
        });
      out.push_back(*v);
      if (comma == std::string_view::npos) break;
      t.remove_prefix(comma + 1);
    }
    c.*member = std::move(out);
    return std::nullopt;
  };
  return row;
}

// hybrid_override_pattern: one character per layer, 'M', '*', '-', 'E', 'C', 'S' or 'P' (see ModelConfig::block_pattern).
ModelField block_pattern() {
  FieldSpec f = spec("bp", "hybrid_override_pattern", "block pattern",
                     "one block per layer, M Mamba-2, * attention, - MLP, E MoE, C short convolution, S Mamba-1, P attention beside Mamba-2 (empty: attention + FFN per layer)");
  f.kind = FieldKind::Text;
  f.max_int = find_limit("num_hidden_layers")->max;
  static constexpr std::string_view kBlocks[] = {"M", "*", "-", "E", "C", "S", "P"};
  f.choices = kBlocks;
  ModelField row{f};
  row.get_text = [](const FieldSpec&, const M& c) { return c.block_pattern; };
  row.set_text = [](const FieldSpec& s, M& c, std::string_view t) -> std::optional<Issue> {
    if (static_cast<i64>(t.size()) > s.max_int || t.find_first_not_of("M*-ECSP") != std::string_view::npos)
      return must_be(s);
    c.block_pattern = std::string(t);
    return std::nullopt;
  };
  return row;
}

// A real field where 0 also means "off" or "the default" (Llama 4's temperature, Granite's attention
// multiplier, the Mamba-2 dt floor), allowed beside its row's range.
template <class Ref>
ModelField zero_or_real(std::string_view key, std::string_view canonical, std::string_view label, std::string_view help,
                       Ref ref) {
  ModelField row = limited_real(key, canonical, label, help, ref);
  row.zero_is_default = true;
  return row;
}

// rope_theta's message writes its bound as "1e12" where allowed_text (LIMITS.md) writes
// "1e+12"; it is kept as it always read.
ModelField rope_theta() {
  ModelField row = limited_real("theta", "rope_theta", "RoPE base", "rotary base frequency theta", AT(rope_theta));
  row.set_text = [](const FieldSpec& f, M& c, std::string_view t) -> std::optional<Issue> {
    double v = 0;
    if (read_real(f, t, v)) {
      std::string hi = format_real(f.max_real);
      std::erase(hi, '+');
      return issue(std::string(f.key), [lo = format_real(f.min_real), hi, got = "\"" + std::string(t.substr(0, 40)) + "\""](Lang l) {
        const std::string range = printf_text(tr(Str::allow_real, l), lo.c_str(), hi.c_str());
        return printf_text(tr(Str::issue_must_be_got, l), range.c_str(), got.c_str());
      });
    }
    c.rope_theta = v;
    return std::nullopt;
  };
  return row;
}

std::vector<ModelField> build_fields() {
  return {
      choice("fam", "family", "Hugging Face model_type: decides tensor names", kFamilyNames, AT(family)),
      limited("L", "num_hidden_layers", "layers", "decoder layers", AT(n_layers)),
      limited("d", "hidden_size", "hidden size", "model width d", AT(d_model)),
      limited("H", "num_attention_heads", "heads", "query heads", AT(n_heads)),
      limited("KV", "num_key_value_heads", "KV heads", "key/value heads (H: MHA, 1: MQA, between: GQA)", AT(n_kv_heads)),
      limited("hd", "head_dim", "head dim", "dimension of one head", AT(head_dim)),
      limited("ff", "intermediate_size", "FFN width", "width of the dense FFN", AT(d_ff)),
      choice("ffk", "FFN kind", "classic: up+down; gated: gate+up+down (SwiGLU/GeGLU)", kFfnKindNames, AT(ffn_kind)),
      choice("act", "activation", "FFN activation", kActivationNames, AT(act)),
      limited("V", "vocab_size", "vocab", "vocabulary size", AT(vocab)),
      limited("P", "max_position_embeddings", "max positions", "trained context; rows of a learned position table",
              AT(max_positions)),
      choice("pos", "positions", "position encoding", kPosKindNames, AT(pos)),
      limited("rcp", "rope_cache_positions", "rotary cache rows",
              "rows vLLM and SGLang cache rotary cos/sin for, from rope_scaling: max_position × factor (linear, dynamic), "
              "original_max_position × factor (YaRN); 0: max_position_embeddings",
              AT(rope_cache_positions)),
      limited_real("rot", "partial_rotary_factor", "rotary fraction", "fraction of head dims rotated (partial RoPE)",
                   AT(rotary_fraction)),
      rope_theta(),
      flag("ropei", "adjacent RoPE pairs", "rotary pairs are dims 2i and 2i+1 (Llama 4; reference block only)",
           AT(rope_interleaved)),
      flag("nopef", "NoPE full layers", "layers without a window use no RoPE (Llama 4; reference block only)", AT(nope_full)),
      flag("qkl2", "q/k L2 norms", "weightless per-head RMS norm of q and k after RoPE (Llama 4; reference block only)",
           AT(qk_l2norm)),
      zero_or_real("tfs", "floor_scale", "temperature floor", "NoPE queries scaled by log1p(floor((pos+1)/floor))·scale+1; 0: off (Llama 4; reference block only)",
                   AT(attn_floor_scale)),
      zero_or_real("tsc", "attn_scale", "temperature scale", "the scale of that query temperature (Llama 4; reference block only)",
                   AT(attn_temp_scale)),
      limited("po", "position_offset", "position offset", "extra learned position rows (OPT: 2)", AT(pos_offset)),
      choice("norm", "norm", "normalization", kNormKindNames, AT(norm)),
      flag("par", "parallel block", "attention and FFN read the same input", AT(parallel_block)),
      flag("nf", "FFN norm", "a norm before the FFN", AT(norm_ffn_input)),
      flag("ns", "sandwich norms", "norms after attention and FFN (Gemma-2)", AT(norm_sandwich)),
      flag("nqk", "q/k norms", "per-head norms on q and k (Qwen3)", AT(norm_qk)),
      flag("nqkf", "full-width q/k norms", "the q/k norms span all heads (OLMo-2)", AT(norm_qk_full)),
      flag("nv", "value norm", "each value head is RMS-normalized, without a weight (Gemma 4's v_norm; reference block only)",
           AT(norm_v)),
      flag("npre", "pre norms", "norms before attention and FFN (OLMo-2 has only the post norms)", AT(norm_pre)),
      flag("sink", "attention sinks", "a learned softmax logit per head (gpt-oss)", AT(attn_sinks)),
      flag("og", "output gate", "q_proj also gives a sigmoid gate on the attention output (Qwen3-Next)",
           AT(attn_out_gate)),
      flag("ne", "embedding norm", "a norm after the embedding (BLOOM)", AT(norm_embed)),
      flag("nfin", "final norm", "a norm before the head", AT(norm_final)),
      flag("bqkv", "q/k/v bias", "biases on q, k, v", AT(bias_qkv)),
      flag("bo", "out bias", "bias on the attention output", AT(bias_o)),
      flag("bff", "FFN bias", "biases on the FFN matrices", AT(bias_ffn)),
      flag("bh", "head bias", "bias on the LM head", AT(bias_lm_head)),
      flag("fqkv", "fused qkv", "one qkv tensor (naming only)", AT(fused_qkv)),
      flag("fgu", "fused gate_up", "one gate_up tensor (naming only)", AT(fused_gate_up)),
      flag("tie", "tied embeddings", "the LM head shares the embedding matrix", AT(tie_embeddings)),
      limited("ep", "word_embed_proj_dim", "embedding width", "OPT word_embed_proj_dim (0: same as d)",
              AT(embed_proj_dim)),
      limited("sw", "sliding_window", "sliding window", "tokens kept by sliding layers (0: none)", AT(sliding_window)),
      limited("swp", "sliding_window_pattern", "window pattern", "1: every layer slides; n: every n-th is global",
              AT(sliding_pattern)),
      flag("chk", "chunked", "the window layers attend within fixed chunks, not a sliding window (Llama 4)",
           AT(window_chunked)),
      limited("E", "num_experts", "experts", "routed experts per MoE layer (0: dense)", AT(moe.num_experts)),
      limited("topk", "num_experts_per_tok", "top-k", "routed experts per token", AT(moe.top_k)),
      limited("fe", "moe_intermediate_size", "expert width", "width of one routed expert", AT(moe.expert_ffn)),
      limited("S", "n_shared_experts", "shared experts", "shared experts (count)", AT(moe.num_shared_experts)),
      limited("fs", "shared_expert_intermediate_size", "shared width", "total width of the shared-expert MLP",
              AT(moe.shared_ffn)),
      flag("sg", "shared gate", "sigmoid gate on the shared expert (Qwen2-MoE)", AT(moe.shared_gate)),
      flag("dmb", "dense MLP beside", "the shared-width MLP runs beside the experts, each with its own norms; the router is scaled (Gemma 4 enable_moe_block)",
           AT(moe.dense_beside)),
      limited("fd", "first_k_dense_replace", "first dense", "leading dense layers", AT(moe.first_dense)),
      limited("mf", "moe_layer_freq", "MoE every", "every n-th layer is MoE", AT(moe.freq)),
      int_field<M>(layer_index(spec("mp", "moe_layer_phase", "MoE phase", "layer i is MoE iff i % every == phase"),
                               FieldKind::Int),
                   AT(moe.phase)),
      flag("rb", "router bias", "bias on the router", AT(moe.router_bias)),
      flag("rcb", "correction bias", "router correction bias (DeepSeek-V3)", AT(moe.router_correction_bias)),
      flag("eb", "expert biases", "biases on every routed expert's matrices (gpt-oss)", AT(moe.expert_bias)),
      limited_real("emul", "embedding_multiplier", "embedding multiplier", "the embeddings are scaled by it (Granite; reference block only)",
                   AT(embed_mult)),
      limited_real("rmul", "residual_multiplier", "residual multiplier", "each block's output is scaled by it before the residual add (Granite; reference block only)",
                   AT(residual_mult)),
      zero_or_real("amul", "attention_multiplier", "attention multiplier", "the attention scores' scale instead of 1/sqrt(head_dim); 0: that (Granite; reference block only)",
                  AT(attn_mult)),
      limited_real("lsc", "logits_scaling", "logits divisor", "the logits are divided by it (Granite; reference block only)",
                   AT(logits_div)),
      flag("ntk", "renormalized top-k", "the chosen experts' weights are divided by their sum (norm_topk_prob)",
           AT(moe.norm_topk)),
      limited_real("rsf", "routed_scaling_factor", "routed scale", "factor on the routed experts' weights (DeepSeek-V3: 2.5)",
                   AT(moe.routed_scale)),
      flag("msi", "router scales inputs", "the chosen logits' sigmoid scales the experts' inputs (Llama 4; reference block only)",
           AT(moe.scale_input)),
      dense_layers(),
      flag("mla", "MLA", "multi-head latent attention (DeepSeek)", AT(mla.enabled)),
      limited("qlr", "q_lora_rank", "q LoRA rank", "MLA query bottleneck (0: none)", AT(mla.q_lora_rank)),
      limited("kvlr", "kv_lora_rank", "KV LoRA rank", "MLA latent width", AT(mla.kv_lora_rank)),
      limited("nope", "qk_nope_head_dim", "qk nope dim", "MLA non-rotary q/k head dims", AT(mla.qk_nope_dim)),
      limited("rope", "qk_rope_head_dim", "qk rope dim", "MLA rotary q/k head dims", AT(mla.qk_rope_dim)),
      limited("vhd", "v_head_dim", "v head dim", "MLA value head dims", AT(mla.v_head_dim)),
      limited("fai", "full_attention_interval", "full every", "linear attention but every n-th layer (0: none)",
              AT(linear.full_interval)),
      limited("lkh", "linear_num_key_heads", "linear k heads", "Gated DeltaNet key heads", AT(linear.k_heads)),
      limited("lvh", "linear_num_value_heads", "linear v heads", "Gated DeltaNet value heads", AT(linear.v_heads)),
      limited("lkd", "linear_key_head_dim", "linear k dim", "Gated DeltaNet key head dim", AT(linear.k_dim)),
      limited("lvd", "linear_value_head_dim", "linear v dim", "Gated DeltaNet value head dim", AT(linear.v_dim)),
      limited("lck", "linear_conv_kernel_dim", "conv width", "causal convolution width of linear layers",
              AT(linear.conv_kernel)),
      enum_field<M>(spec("lsd", "mamba_ssm_dtype", "SSM state dtype",
                         "the config's mamba_ssm_dtype: the dtype it gives the linear layers' recurrent state "
                         "(float32 in Qwen3.5's configs), which vLLM and SGLang read; auto: the config has none"),
                    kMambaDtypeNames, AT(linear.ssm_dtype)),
      choice("vis", "vision tower", "the multimodal wrapper's vision encoder (none: a text model)", kVisionKindNames,
             AT(vision.kind)),
      limited("vL", "vision_config.num_hidden_layers", "vision layers", "encoder layers of the vision tower",
              AT(vision.layers)),
      limited("vd", "vision_config.hidden_size", "vision width", "hidden size of the vision tower", AT(vision.hidden)),
      limited("vff", "vision_config.intermediate_size", "vision FFN", "MLP width of the vision tower", AT(vision.ffn)),
      limited("vH", "vision_config.num_attention_heads", "vision heads", "heads of the vision tower", AT(vision.heads)),
      limited("vp", "vision_config.patch_size", "patch", "patch size in pixels", AT(vision.patch)),
      limited("vimg", "vision_config.image_size", "image", "input image size in pixels", AT(vision.image)),
      limited("vch", "vision_config.num_channels", "channels", "image channels", AT(vision.channels)),
      choice("vpj", "projector", "mlp2: LLaVA's two linears; gemma3: norm and one matrix; qwen3_5_merger: norm and two linears over merged patches; mistral3: norm, patch merger and two linears; kimi_vl: norm and two linears over merged patches; gemma4_embedder: an unweighted norm and one linear", kProjectorKindNames,
             AT(vision.projector)),
      flag("vpb", "projector bias", "biases on LLaVA's or Mistral 3's projector", AT(vision.projector_bias)),
      flag("vstd", "standardize", "Gemma 4: the tower's std_bias and std_scale on its pooled output (vision_config.standardize)",
           AT(vision.standardize)),
      limited("vad", "vision_config.projector_input_dim", "adapter width", "Llama 4: the vision adapter's width",
              AT(vision.adapter_dim)),
      limited("vtp", "vision_config.temporal_patch_size", "temporal patch", "Qwen3.5: frames per patch of the Conv3d embedding",
              AT(vision.temporal_patch)),
      limited("vmg", "vision_config.spatial_merge_size", "merge", "Qwen3.5, Mistral 3, Kimi-VL: the merger joins merge × merge patches; Gemma 3: the projector's average pool (image_size / patch_size ÷ √mm_tokens_per_image); Gemma 4: the pooler's kernel (pooling_kernel_size)",
              AT(vision.merge)),
      limited("vpos", "vision_config.num_position_embeddings", "positions", "Qwen3.5: learned position rows of the tower; MoonViT: its position grid, height × width; Gemma 4: position_embedding_size, one table per axis",
              AT(vision.positions)),
      limited("ixh", "index_n_heads", "indexer heads", "DeepSeek-V3.2 lightning indexer heads (0: none)",
              AT(mla.index_heads)),
      limited("ixd", "index_head_dim", "indexer dim", "indexer head dim (its key is cached per token)", AT(mla.index_dim)),
      limited("ixk", "index_topk", "indexer top-k", "keys each query attends", AT(mla.index_topk)),
      block_pattern(),
      per_layer_list<&M::layer_kv_heads>("lkv", "num_key_value_heads_per_layer", "KV heads per layer",
                     "NAS models: each layer's K, 0 for a layer without attention (empty: KV heads in every layer)"),
      per_layer_list<&M::layer_ffn>("lff", "intermediate_size_per_layer", "FFN per layer",
                     "NAS models: each layer's FFN width, 0 for a layer without FFN (empty: the FFN width in every layer)"),
      limited("ghd", "global_head_dim", "global head dim", "Gemma 4: head size of the full-attention layers (0: head_dim)",
              AT(global_head_dim)),
      limited("gkv", "num_global_key_value_heads", "global KV heads", "Gemma 4: K of the full-attention layers (0: the model's)",
              AT(global_kv_heads)),
      flag("keqv", "K = V projection", "Gemma 4: full layers have no v_proj; V is read from k_proj's output", AT(k_eq_v)),
      limited("kvs", "num_kv_shared_layers", "KV-shared layers",
              "Gemma 4: the last n layers keep no K/V of their own and read an earlier layer's cache", AT(kv_shared)),
      flag("dwm", "double-wide MLP", "Gemma 4: the KV-shared layers' FFN is twice as wide", AT(double_wide)),
      limited("ple", "hidden_size_per_layer_input", "per-layer input", "Gemma 4: width of each layer's input embedding (0: none)",
              AT(ple_dim)),
      limited("plev", "vocab_size_per_layer_input", "per-layer vocab", "Gemma 4: rows of the per-layer embedding table",
              AT(ple_vocab)),
      limited("sex", "mamba_expand", "Mamba-1 expand", "Jamba: d_inner = expand · hidden_size of the 'S' layers",
              AT(mamba1.expand)),
      limited("sst", "mamba_d_state", "Mamba-1 state", "Jamba: SSM state per channel", AT(mamba1.state)),
      limited("sck", "mamba_d_conv", "Mamba-1 conv", "Jamba: width of the causal convolution", AT(mamba1.conv_kernel)),
      limited("sdr", "mamba_dt_rank", "Mamba-1 dt rank", "Jamba: rank of the time-step projection", AT(mamba1.dt_rank)),
      flag("scnb", "Mamba-1 conv bias", "Jamba: a bias on the convolution", AT(mamba1.conv_bias)),
      flag("spb", "Mamba-1 proj bias", "Jamba: biases on in_proj and out_proj", AT(mamba1.proj_bias)),
      flag("snm", "Mamba-1 dt/B/C norms", "Jamba: RMSNorms on dt, B and C", AT(mamba1.inner_norms)),
      limited("scv", "conv_L_cache", "short conv", "LFM2: width of the short convolutions of 'C' layers", AT(short_conv)),
      flag("scb", "short conv bias", "LFM2: biases on the short convolutions", AT(short_conv_bias)),
      flag("bpf", "blocks + FFN", "every layer is its pattern's mixer and the FFN (Granite-4.0-H)", AT(block_ffn)),
      limited("mnh", "mamba_num_heads", "Mamba heads", "Mamba-2 heads", AT(mamba.heads)),
      limited("mhd", "mamba_head_dim", "Mamba head dim", "Mamba-2 head dim", AT(mamba.head_dim)),
      limited("mst", "ssm_state_size", "SSM state", "Mamba-2 state size per head dim", AT(mamba.state)),
      limited("mng", "n_groups", "Mamba groups", "Mamba-2 B/C groups", AT(mamba.groups)),
      limited("mck", "conv_kernel", "Mamba conv", "Mamba-2 convolution width", AT(mamba.conv_kernel)),
      limited("mch", "chunk_size", "scan chunk", "Mamba-2 chunked scan length", AT(mamba.chunk)),
      flag("mcb", "conv bias", "a bias on the Mamba-2 convolution", AT(mamba.conv_bias)),
      zero_or_real("mdt", "time_step_min", "dt floor", "Mamba-2 time steps are at least this (Nemotron-H 0.001; 0: no floor; reference block only)",
                  AT(mamba.dt_floor)),
      flag("mgn", "gated norm", "the gated RMSNorm before the Mamba-2 out_proj (Falcon-H1: mamba_rms_norm)",
           AT(mamba.gated_norm)),
      flag("mpb", "Mamba proj bias", "biases on in_proj and out_proj", AT(mamba.proj_bias)),
      enum_field<M>(spec("msc", "mamba_ssm_cache_dtype", "Mamba SSM cache dtype",
                         "Nemotron-H: the config's mamba_ssm_cache_dtype, the Mamba-2 SSM state's dtype vLLM takes when "
                         "--mamba-ssm-cache-dtype is auto (float32 in Nemotron 3 Nano's config); auto: the config has none"),
                    kMambaDtypeNames, AT(mamba.ssm_cache_dtype)),
      flag("mnbg", "norm before gate", "the gated norm normalizes, then gates (Falcon-H1: mamba_norm_before_gate; reference block only)",
           AT(mamba.norm_before_gate)),
      // Falcon-H1's μP multipliers (MupConfig; reference block only)
      limited_real("aim", "attention_in_multiplier", "attention input ×", "the attention's input is scaled by it (Falcon-H1; reference block only)",
                   AT(mup.attn_in)),
      limited_real("kym", "key_multiplier", "key ×", "the keys are scaled by it after k_proj (Falcon-H1; reference block only)",
                   AT(mup.key)),
      limited_real("aom", "attention_out_multiplier", "attention output ×", "the attention's output is scaled by it (Falcon-H1; reference block only)",
                   AT(mup.attn_out)),
      limited_real("sim", "ssm_in_multiplier", "Mamba input ×", "the Mamba-2 mixer's input is scaled by it (Falcon-H1; reference block only)",
                   AT(mup.ssm_in)),
      limited_real("som", "ssm_out_multiplier", "Mamba output ×", "the Mamba-2 mixer's output is scaled by it (Falcon-H1; reference block only)",
                   AT(mup.ssm_out)),
      limited_real("smz", "ssm_multipliers[0]", "in_proj z ×", "in_proj's gate part z is scaled by it (Falcon-H1; reference block only)",
                   AT(mup.ssm[0])),
      limited_real("smx", "ssm_multipliers[1]", "in_proj x ×", "in_proj's x part is scaled by it (Falcon-H1; reference block only)",
                   AT(mup.ssm[1])),
      limited_real("smb", "ssm_multipliers[2]", "in_proj B ×", "in_proj's B part is scaled by it (Falcon-H1; reference block only)",
                   AT(mup.ssm[2])),
      limited_real("smc", "ssm_multipliers[3]", "in_proj C ×", "in_proj's C part is scaled by it (Falcon-H1; reference block only)",
                   AT(mup.ssm[3])),
      limited_real("smd", "ssm_multipliers[4]", "in_proj dt ×", "in_proj's dt part is scaled by it (Falcon-H1; reference block only)",
                   AT(mup.ssm[4])),
      limited_real("mgm", "mlp_multipliers[0]", "MLP gate ×", "the MLP's gate is scaled by it before the activation (Falcon-H1; reference block only)",
                   AT(mup.mlp_gate)),
      limited_real("mdm", "mlp_multipliers[1]", "MLP down ×", "the MLP's down_proj output is scaled by it (Falcon-H1; reference block only)",
                   AT(mup.mlp_down)),
      limited_real("lhm", "lm_head_multiplier", "logits ×", "the logits are scaled by it (Falcon-H1; reference block only)",
                   AT(mup.lm_head)),
      limited("mtp", "num_nextn_predict_layers", "MTP layers", "multi-token-prediction layers", AT(mtp_layers)),
  };
}

#undef AT

}  // namespace

std::optional<Family> family_from_id(std::string_view id) {
  auto i = index_of(kFamilyNames, id);
  if (!i) return std::nullopt;
  return static_cast<Family>(*i);
}

const std::vector<ModelField>& model_fields() {
  static const std::vector<ModelField> fields = build_fields();
  return fields;
}

const ModelField* find_model_field(std::string_view key) { return find_by_key(model_fields(), key); }

}  // namespace llmsize::core
