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

Issue st(std::string m) { return Issue{"safetensors", std::move(m)}; }

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
  if (file_bytes < 0) return st("a file size cannot be negative");
  if (head.size() < 8) {
    if (file_bytes > 0 && file_bytes < 8) return st("the file holds " + std::to_string(file_bytes) + " bytes, fewer than the 8 of the header's length");
    if (more) *more = 8;
    return st("the header's length continues past the " + std::to_string(head.size()) + " bytes read");
  }
  std::uint64_t n = 0;
  for (int k = 0; k < 8; ++k) n |= static_cast<std::uint64_t>(static_cast<unsigned char>(head[static_cast<size_t>(k)])) << (8 * k);
  // ref: tensor.rs read_metadata: the header is at most MAX_HEADER_SIZE and inside the file.
  if (n > static_cast<std::uint64_t>(kSafetensorsMaxHeader))
    return st("the header's length " + std::to_string(n) + " is beyond the " + with_commas(kSafetensorsMaxHeader) + " bytes safetensors allows");
  SafetensorsHeader h;
  h.header_bytes = 8 + static_cast<i64>(n);
  h.file_bytes = file_bytes;
  if (file_bytes > 0 && h.header_bytes > file_bytes)
    return st("the header's length " + with_commas(static_cast<i64>(n)) + " runs past the end of the " + with_commas(file_bytes) + "-byte file");
  if (static_cast<i64>(head.size()) < h.header_bytes) {
    if (more) *more = h.header_bytes;
    return st("the header continues past the first " + with_commas(static_cast<i64>(head.size())) + " bytes read (" +
              with_commas(h.header_bytes) + " needed)");
  }
  auto doc = json_util::parse(head.substr(8, static_cast<size_t>(n)), "the safetensors header", static_cast<size_t>(n) + 1, 16);
  if (!doc) {
    std::vector<Issue> issues = doc.issues();
    for (auto& i : issues) i = st(i.field.empty() ? i.message : i.field + ": " + i.message);
    return issues;
  }
  const auto& j = *doc;
  if (!j.is_object()) return st("the header must be a JSON object, got " + json_util::type_name(j));
  if (static_cast<i64>(j.size()) > kSafetensorsMaxTensors) return st("more than " + with_commas(kSafetensorsMaxTensors) + " tensors");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& name = it.key();
    const auto& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) return st("__metadata__ must be an object of strings");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string()) return st("__metadata__." + printable(m.key()) + " must be a string, got " + json_util::type_name(m.value()));
        h.metadata.emplace_back(m.key(), m.value().get<std::string>());
      }
      continue;
    }
    const std::string who = "tensor \"" + printable(name) + "\"";
    if (!v.is_object()) return st(who + " must be an object with dtype, shape and data_offsets");
    SafetensorsTensor t;
    t.name = name;
    const auto dt = v.find("dtype");
    if (dt == v.end() || !dt->is_string()) return st(who + ": dtype must be a string");
    t.dtype = safetensors_dtype(dt->get<std::string>());
    if (!t.dtype) return st(who + ": dtype \"" + printable(dt->get<std::string>()) + "\" is not a safetensors dtype");
    const auto shape = v.find("shape");
    if (shape == v.end() || !shape->is_array() || shape->size() > 8) return st(who + ": shape must be an array of at most 8 sizes");
    Checked elements(1);
    for (const auto& d : *shape) {
      if (!d.is_number_unsigned()) return st(who + ": every size in shape must be a non-negative integer");
      const auto x = d.get<std::uint64_t>();
      if (x > static_cast<std::uint64_t>(INT64_MAX)) return st(who + ": a size beyond int64");
      t.shape.push_back(static_cast<i64>(x));
      elements *= Checked(static_cast<i64>(x));
    }
    const auto off = v.find("data_offsets");
    if (off == v.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() || !(*off)[1].is_number_unsigned())
      return st(who + ": data_offsets must be two non-negative integers [begin, end]");
    const auto b = (*off)[0].get<std::uint64_t>(), e = (*off)[1].get<std::uint64_t>();
    if (b > e || e > static_cast<std::uint64_t>(INT64_MAX)) return st(who + ": data_offsets must have begin ≤ end");
    t.begin = static_cast<i64>(b);
    t.end = static_cast<i64>(e);
    const Checked bits = elements * t.dtype->bits;
    if (!elements.ok() || !bits.ok()) return st(who + ": more elements than int64 holds");
    t.elements = elements.value();
    // ref: tensor.rs validate: the bytes are exactly the elements' (TensorInvalidInfo).
    if (bits.value() % 8 != 0 || bits.value() / 8 != t.bytes())
      return st(who + ": " + with_commas(t.elements) + " " + std::string(t.dtype->name) + " elements do not take the " +
                with_commas(t.bytes()) + " bytes its data_offsets give");
    h.tensors.push_back(std::move(t));
  }
  // ref: tensor.rs validate: the tensors tile the data from 0 without gap or overlap, to its end.
  std::vector<const SafetensorsTensor*> order;
  for (const auto& t : h.tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->begin < b->begin || (a->begin == b->begin && a->end < b->end); });
  i64 at = 0;
  for (const auto* t : order) {
    if (t->begin != at)
      return st("tensor \"" + printable(t->name) + "\" starts at " + with_commas(t->begin) + " where the data so far ends at " +
                with_commas(at) + " (tensors must tile the data without gaps or overlaps)");
    at = t->end;
  }
  if (file_bytes > 0 && at != file_bytes - h.header_bytes)
    return st("the tensors cover " + with_commas(at) + " bytes of data, the file holds " + with_commas(file_bytes - h.header_bytes));
  return h;
}

Result<SafetensorsIndex> read_safetensors_index(std::string_view json_text) {
  auto doc = json_util::parse(json_text, "model.safetensors.index.json", 64u << 20, 16);
  if (!doc) return doc.issues();
  const auto& j = *doc;
  if (!j.is_object()) return Issue{"weight_map", "the index must be a JSON object"};
  SafetensorsIndex out;
  if (const auto m = j.find("metadata"); m != j.end() && m->is_object())
    if (const auto t = m->find("total_size"); t != m->end() && t->is_number_unsigned() && t->get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX))
      out.total_size = static_cast<i64>(t->get<std::uint64_t>());
  const auto w = j.find("weight_map");
  if (w == j.end() || !w->is_object()) return Issue{"weight_map", "must be an object mapping each tensor name to its shard file"};
  std::unordered_set<std::string> seen;
  for (auto it = w->begin(); it != w->end(); ++it) {
    if (!it.value().is_string()) return Issue{"weight_map", "\"" + printable(it.key()) + "\" must name its shard as a string"};
    const std::string shard = it.value().get<std::string>();
    // A shard is a file beside the index: no directories, no way out of it.
    if (shard.empty() || shard.find('/') != std::string::npos || shard.find('\\') != std::string::npos || shard == "." || shard == "..")
      return Issue{"weight_map", "shard \"" + printable(shard) + "\" must be a file name beside the index"};
    if (seen.insert(shard).second) out.shards.push_back(shard);
    if (static_cast<i64>(out.shards.size()) > kSafetensorsMaxShards)
      return Issue{"weight_map", "names more than " + std::to_string(kSafetensorsMaxShards) + " shards"};
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
