// safetensors header reader and name matching (see safetensors.hpp).
#include "safetensors.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "format.hpp"
#include "json_util.hpp"
#include "text_value.hpp"

namespace llmsize::core {

namespace {

// safetensors/src/tensor.rs enum Dtype and Dtype::bitsize.
constexpr SafetensorsDtype kDtypes[] = {
    {"BOOL", 8},     {"F4", 4},       {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},    {"I8", 8},    {"F8_E5M2", 8},
    {"F8_E4M3", 8},  {"F8_E8M0", 8},  {"I16", 16},    {"U16", 16},    {"F16", 16},  {"BF16", 16}, {"I32", 32},
    {"U32", 32},     {"F32", 32},     {"C64", 64},    {"F64", 64},    {"I64", 64},  {"U64", 64},
};

template <class... A>
Issue st(Str row, A&&... args) {
  return issue_row("safetensors", row, std::forward<A>(args)...);
}

// A name from the file as it may be printed: at most 200 bytes, control bytes as '?'.
std::string printable(std::string_view s) {
  std::string out(s.substr(0, 200));
  for (char& ch : out)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F) ch = '?';
  return out;
}

}  // namespace

const SafetensorsDtype* safetensors_dtype(std::string_view name) {
  for (const SafetensorsDtype& d : kDtypes)
    if (d.name == name) return &d;
  return nullptr;
}

std::vector<const SafetensorsHeader*> pointers_to(const std::vector<SafetensorsHeader>& files) {
  std::vector<const SafetensorsHeader*> out;
  for (const auto& f : files) out.push_back(&f);
  return out;
}

i64 SafetensorsHeader::tensor_bytes() const {
  i64 sum = 0;
  for (const auto& t : tensors) sum += t.bytes();  // contiguous and within the data: no overflow
  return sum;
}

Result<SafetensorsHeader> read_safetensors_header(std::string_view head, i64 file_bytes, i64* more) {
  if (more) *more = 0;
  if (file_bytes < 0) return st(Str::rd_negative_size);
  if (head.size() < 8) {
    if (file_bytes > 0 && file_bytes < 8) return st(Str::rd_st_short, std::to_string(file_bytes));
    if (more) *more = 8;
    return st(Str::rd_st_length_continues, std::to_string(head.size()));
  }
  std::uint64_t n = 0;
  for (int k = 0; k < 8; ++k) n |= static_cast<std::uint64_t>(static_cast<unsigned char>(head[static_cast<size_t>(k)])) << (8 * k);
  // ref: tensor.rs read_metadata: the header is at most MAX_HEADER_SIZE and inside the file.
  if (n > static_cast<std::uint64_t>(kSafetensorsMaxHeader))
    return st(Str::rd_st_length_limit, std::to_string(n), with_commas(kSafetensorsMaxHeader));
  SafetensorsHeader h;
  h.header_bytes = 8 + static_cast<i64>(n);
  h.file_bytes = file_bytes;
  if (file_bytes > 0 && h.header_bytes > file_bytes)
    return st(Str::rd_st_length_past_end, with_commas(static_cast<i64>(n)), with_commas(file_bytes));
  if (static_cast<i64>(head.size()) < h.header_bytes) {
    if (more) *more = h.header_bytes;
    return st(Str::rd_st_continues, with_commas(static_cast<i64>(head.size())), with_commas(h.header_bytes));
  }
  auto doc = json_util::parse(head.substr(8, static_cast<size_t>(n)), "the safetensors header", static_cast<size_t>(n) + 1, 16);
  if (!doc) {
    std::vector<Issue> issues = doc.issues();
    // "the safetensors header: is not valid JSON: …", the JSON reader's message in the language.
    for (auto& i : issues)
      i = issue("safetensors", [m = i](Lang l) { return row_text(Str::rd_st_header, {message_in(m, l)}, l); });
    return issues;
  }
  const auto& j = *doc;
  if (!j.is_object()) return st(Str::rd_st_not_object, json_util::type_row(j));
  if (static_cast<i64>(j.size()) > kSafetensorsMaxTensors) return st(Str::rd_st_many, with_commas(kSafetensorsMaxTensors));
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& name = it.key();
    const auto& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) return st(Str::rd_st_metadata);
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string()) return st(Str::rd_st_metadata_value, printable(m.key()), json_util::type_row(m.value()));
        h.metadata.emplace_back(m.key(), m.value().get<std::string>());
      }
      continue;
    }
    const std::string who = printable(name);
    if (!v.is_object()) return st(Str::rd_st_tensor_object, who);
    SafetensorsTensor t;
    t.name = name;
    const auto dt = v.find("dtype");
    if (dt == v.end() || !dt->is_string()) return st(Str::rd_st_dtype_string, who);
    t.dtype = safetensors_dtype(dt->get<std::string>());
    if (!t.dtype) return st(Str::rd_st_dtype, who, printable(dt->get<std::string>()));
    const auto shape = v.find("shape");
    if (shape == v.end() || !shape->is_array() || shape->size() > 8) return st(Str::rd_st_shape, who);
    Checked elements(1);
    for (const auto& d : *shape) {
      if (!d.is_number_unsigned()) return st(Str::rd_st_shape_size, who);
      const auto x = d.get<std::uint64_t>();
      if (x > static_cast<std::uint64_t>(INT64_MAX)) return st(Str::rd_st_shape_int64, who);
      t.shape.push_back(static_cast<i64>(x));
      elements *= Checked(static_cast<i64>(x));
    }
    const auto off = v.find("data_offsets");
    if (off == v.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() || !(*off)[1].is_number_unsigned())
      return st(Str::rd_st_offsets, who);
    const auto b = (*off)[0].get<std::uint64_t>(), e = (*off)[1].get<std::uint64_t>();
    if (b > e || e > static_cast<std::uint64_t>(INT64_MAX)) return st(Str::rd_st_offsets_order, who);
    t.begin = static_cast<i64>(b);
    t.end = static_cast<i64>(e);
    const Checked bits = elements * t.dtype->bits;
    if (!elements.ok() || !bits.ok()) return st(Str::rd_st_elements, who);
    t.elements = elements.value();
    // ref: tensor.rs validate: the bytes are exactly the elements' (TensorInvalidInfo).
    if (bits.value() % 8 != 0 || bits.value() / 8 != t.bytes())
      return st(Str::rd_st_bytes, who, with_commas(t.elements), std::string(t.dtype->name), with_commas(t.bytes()));
    h.tensors.push_back(std::move(t));
  }
  // ref: tensor.rs validate: the tensors tile the data from 0 without gap or overlap, to its end.
  std::vector<const SafetensorsTensor*> order;
  for (const auto& t : h.tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->begin < b->begin || (a->begin == b->begin && a->end < b->end); });
  i64 at = 0;
  for (const auto* t : order) {
    if (t->begin != at)
      return st(Str::rd_st_tile, printable(t->name), with_commas(t->begin), with_commas(at));
    at = t->end;
  }
  if (file_bytes > 0 && at != file_bytes - h.header_bytes)
    return st(Str::rd_st_cover, with_commas(at), with_commas(file_bytes - h.header_bytes));
  return h;
}

Result<SafetensorsIndex> read_safetensors_index(std::string_view json_text) {
  auto doc = json_util::parse(json_text, "model.safetensors.index.json", 64u << 20, 16);
  if (!doc) return doc.issues();
  const auto& j = *doc;
  if (!j.is_object()) return issue_row("weight_map", Str::rd_index_object);
  SafetensorsIndex out;
  if (const auto m = j.find("metadata"); m != j.end() && m->is_object())
    if (const auto t = m->find("total_size"); t != m->end() && t->is_number_unsigned() && t->get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX))
      out.total_size = static_cast<i64>(t->get<std::uint64_t>());
  const auto w = j.find("weight_map");
  if (w == j.end() || !w->is_object()) return issue_row("weight_map", Str::rd_index_map);
  std::unordered_set<std::string> seen;
  for (auto it = w->begin(); it != w->end(); ++it) {
    if (!it.value().is_string()) return issue_row("weight_map", Str::rd_index_shard_string, printable(it.key()));
    const std::string shard = it.value().get<std::string>();
    // A shard is a file beside the index: no directories, no way out of it.
    if (shard.empty() || shard.find('/') != std::string::npos || shard.find('\\') != std::string::npos || shard == "." || shard == "..")
      return issue_row("weight_map", Str::rd_index_shard_name, printable(shard));
    if (seen.insert(shard).second) out.shards.push_back(shard);
    if (static_cast<i64>(out.shards.size()) > kSafetensorsMaxShards)
      return issue_row("weight_map", Str::rd_index_shards, std::to_string(kSafetensorsMaxShards));
  }
  return out;
}

SafetensorsMatcher::SafetensorsMatcher(const Inventory& inv) : inv_(&inv) {
  for (size_t i = 0; i < inv.global.size(); ++i) names_[inv.global[i].name].push_back({-1, static_cast<int>(i), false});
  for (size_t k = 0; k < inv.kinds.size(); ++k)
    for (size_t i = 0; i < inv.kinds[k].tensors.size(); ++i)
      names_[inv.kinds[k].tensors[i].name].push_back({static_cast<int>(k), static_cast<int>(i), false});
  for (size_t k = 0; k < inv.mtp.size(); ++k)
    for (size_t i = 0; i < inv.mtp[k].tensors.size(); ++i)
      names_[inv.mtp[k].tensors[i].name].push_back({static_cast<int>(k), static_cast<int>(i), true});
}

std::optional<SafetensorsMatch> SafetensorsMatcher::match(std::string_view name) const {
  // The layer and expert indices as the inventory writes them.
  std::string p;
  i64 layer = -1;
  for (size_t at = 0; at < name.size();) {
    bool replaced = false;
    for (std::string_view key : {std::string_view("layers."), std::string_view("experts.")}) {
      if (name.substr(at, key.size()) != key) continue;
      size_t q = at + key.size();
      while (q < name.size() && name[q] >= '0' && name[q] <= '9') ++q;
      if (q == at + key.size() || q - at - key.size() > 9 || q >= name.size() || name[q] != '.') continue;
      if (key == "layers.") layer = parse_int(name.substr(at + key.size(), q - at - key.size())).value_or(-1);
      p += std::string(key) + (key == "layers." ? "{i}" : "{e}");
      at = q;
      replaced = true;
      break;
    }
    if (!replaced) p += name[at++];
  }
  // Scales, zero points and packings belong to the weight they quantize.
  constexpr std::pair<std::string_view, std::string_view> kBelongs[] = {
      {".weight_scale_inv", ".weight"}, {".weight_scale", ".weight"},  {".weight_packed", ".weight"},
      {".weight_zero_point", ".weight"}, {".weight_shape", ".weight"}, {".weight_global_scale", ".weight"},
      {".input_scale", ".weight"},      {".input_global_scale", ".weight"}, {".qweight", ".weight"},
      {".qzeros", ".weight"},           {".scales", ".weight"},        {".g_idx", ".weight"},
      {".weight.absmax", ".weight"},    {".weight.quant_map", ".weight"}, {".weight.nested_absmax", ".weight"},
      {".weight.nested_quant_map", ".weight"}, {".weight.quant_state.bitsandbytes__nf4", ".weight"},
      {".weight.quant_state.bitsandbytes__fp4", ".weight"}, {"_blocks", ""}, {"_scales", ""}};
  bool primary = true;
  auto found = names_.find(p);
  if (found == names_.end())
    for (const auto& [suffix, base] : kBelongs)
      if (p.size() > suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0) {
        const std::string b = p.substr(0, p.size() - suffix.size()) + std::string(base);
        if ((found = names_.find(b)) != names_.end()) {
          primary = false;
          break;
        }
      }
  if (found == names_.end()) return std::nullopt;
  for (const Entry& c : found->second) {
    const LayerKind* kind = c.kind < 0 ? nullptr : &(c.mtp ? inv_->mtp : inv_->kinds)[static_cast<size_t>(c.kind)];
    const Tensor& t = kind ? kind->tensors[static_cast<size_t>(c.index)] : inv_->global[static_cast<size_t>(c.index)];
    if (!kind ? layer < 0 : std::find(kind->layers.begin(), kind->layers.end(), layer) != kind->layers.end())
      return SafetensorsMatch{c.kind, c.index, c.mtp, layer, primary, c.mtp ? Group::Mtp : t.group, t.numel_one()};
  }
  return std::nullopt;
}

SafetensorsGroups safetensors_groups(const std::vector<const SafetensorsHeader*>& files, const Inventory& inv) {
  const SafetensorsMatcher matcher(inv);
  SafetensorsGroups g;
  for (const SafetensorsHeader* f : files)
    for (const SafetensorsTensor& t : f->tensors) {
      const auto m = matcher.match(t.name);
      if (!m) {
        if (g.unmatched.size() < 32) g.unmatched.push_back(printable(t.name));
        ++g.unmatched_count;
        g.unmatched_bytes += t.bytes();
        continue;
      }
      ++g.matched;
      g.bytes[static_cast<size_t>(m->group)] += t.bytes();
      // A float or plain integer tensor under the weight's own name holds the model's elements.
      if (m->primary && t.dtype->bits >= 8 && t.elements != m->elements_one && g.differ.size() < 8)
        g.differ.push_back(printable(t.name) + ": " + with_commas(t.elements) + " elements, the model's " + with_commas(m->elements_one));
    }
  return g;
}

}  // namespace llmsize::core
