// GGUF header reader (see gguf.hpp).
#include "gguf.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unordered_set>

#include "format.hpp"
#include "text_value.hpp"
#include "json_util.hpp"

namespace llmsize::core {

namespace {

// ggml.c type_traits (blck_size, type_size) with ggml-common.h's block structs, llama.cpp b10573.
constexpr GgmlType kTypes[] = {
    {0, "f32", 1, 4},         {1, "f16", 1, 2},         {2, "q4_0", 32, 18},     {3, "q4_1", 32, 20},
    {6, "q5_0", 32, 22},      {7, "q5_1", 32, 24},      {8, "q8_0", 32, 34},     {9, "q8_1", 32, 36},
    {10, "q2_K", 256, 84},    {11, "q3_K", 256, 110},   {12, "q4_K", 256, 144},  {13, "q5_K", 256, 176},
    {14, "q6_K", 256, 210},   {15, "q8_K", 256, 292},   {16, "iq2_xxs", 256, 66}, {17, "iq2_xs", 256, 74},
    {18, "iq3_xxs", 256, 98}, {19, "iq1_s", 256, 50},   {20, "iq4_nl", 32, 18},  {21, "iq3_s", 256, 110},
    {22, "iq2_s", 256, 82},   {23, "iq4_xs", 256, 136}, {24, "i8", 1, 1},        {25, "i16", 1, 2},
    {26, "i32", 1, 4},        {27, "i64", 1, 8},        {28, "f64", 1, 8},       {29, "iq1_m", 256, 56},
    {30, "bf16", 1, 2},       {34, "tq1_0", 256, 54},   {35, "tq2_0", 256, 66},  {39, "mxfp4", 32, 17},
    {40, "nvfp4", 64, 36},    {41, "q1_0", 128, 18},    {42, "q2_0", 64, 18},
};

constexpr std::string_view kKindNames[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};

// Bytes of one scalar of kind k; 0 for string and array (variable).
i64 scalar_bytes(GgufKind k) {
  switch (k) {
    case GgufKind::U8: case GgufKind::I8: case GgufKind::Bool: return 1;
    case GgufKind::U16: case GgufKind::I16: return 2;
    case GgufKind::U32: case GgufKind::I32: case GgufKind::F32: return 4;
    case GgufKind::U64: case GgufKind::I64: case GgufKind::F64: return 8;
    case GgufKind::String: case GgufKind::Array: return 0;
  }
  return 0;
}

bool is_integer_kind(GgufKind k) {
  return k != GgufKind::F32 && k != GgufKind::F64 && k != GgufKind::String && k != GgufKind::Array;
}

// A little-endian cursor over the bytes read so far. A read past them records how many bytes
// the header needs at least (`need`) and fails; a malformed field fails with a message.
struct Cursor {
  std::string_view head;
  i64 file_bytes = 0;
  i64 pos = 0;
  i64 need = 0;            // > 0: ran out of `head` here
  std::optional<Issue> error;  // set: malformed

  bool fail(Issue m) {
    if (!error && need == 0) error = std::move(m);
    return false;
  }
  bool have(i64 n) {
    if (error || need > 0) return false;
    if (n <= static_cast<i64>(head.size()) - pos) return true;
    const i64 want = pos + n;  // pos ≤ head size ≤ 2^28, n checked ≤ 2^27·… by callers
    if (file_bytes > 0 && want > file_bytes)
      return fail(issue_row("gguf", Str::rd_gguf_past_end, with_commas(file_bytes), with_commas(pos)));
    if (want > kGgufMaxHeaderBytes) return fail(issue_row("gguf", Str::rd_gguf_past_limit, with_commas(kGgufMaxHeaderBytes)));
    need = want;
    return false;
  }
  template <class T>
  bool raw(T& out) {
    if (!have(sizeof(T))) return false;
    std::uint8_t b[sizeof(T)];
    std::memcpy(b, head.data() + pos, sizeof(T));
    std::uint64_t v = 0;
    for (size_t k = 0; k < sizeof(T); ++k) v |= static_cast<std::uint64_t>(b[k]) << (8 * k);
    if constexpr (sizeof(T) == 8) out = static_cast<T>(v);
    else out = static_cast<T>(static_cast<std::uint64_t>(v));
    pos += static_cast<i64>(sizeof(T));
    return true;
  }
  // A u64 count or length within [0, limit] (GGUF stores them unsigned).
  bool count(i64& out, i64 limit, const RowArg& what) {
    std::uint64_t v = 0;
    if (!raw(v)) return false;
    if (v > static_cast<std::uint64_t>(limit))
      return fail(issue_row("gguf", Str::rd_gguf_beyond, what, std::to_string(v), with_commas(limit)));
    out = static_cast<i64>(v);
    return true;
  }
  bool string(std::string& out, i64 limit, const RowArg& what) {
    i64 n = 0;
    if (!count(n, limit, row_arg(Str::rd_gguf_what_length, what)) || !have(n)) return false;
    out.assign(head.data() + pos, static_cast<size_t>(n));
    pos += n;
    return true;
  }
  bool skip_string(const RowArg& what) {
    i64 n = 0;
    if (!count(n, kGgufMaxString, row_arg(Str::rd_gguf_what_length, what)) || !have(n)) return false;
    pos += n;
    return true;
  }
};

bool read_kind(Cursor& c, GgufKind& k, const RowArg& what) {
  std::uint32_t t = 0;
  if (!c.raw(t)) return false;
  if (t > static_cast<std::uint32_t>(GgufKind::F64)) return c.fail(issue_row("gguf", Str::rd_gguf_value_type, what, std::to_string(t)));
  k = static_cast<GgufKind>(t);
  return true;
}

// One scalar of kind k into v (integers into v.i, floats into v.f, strings into v.s).
bool read_scalar(Cursor& c, GgufKind k, GgufValue& v, const RowArg& what, bool keep_string) {
  switch (k) {
    case GgufKind::U8: { std::uint8_t x = 0; if (!c.raw(x)) return false; v.i = x; return true; }
    case GgufKind::I8: { std::uint8_t x = 0; if (!c.raw(x)) return false; v.i = static_cast<std::int8_t>(x); return true; }
    case GgufKind::Bool: {
      std::uint8_t x = 0;
      if (!c.raw(x)) return false;
      if (x > 1) return c.fail(issue_row("gguf", Str::rd_gguf_bool, what, std::to_string(x)));
      v.i = x;
      return true;
    }
    case GgufKind::U16: { std::uint16_t x = 0; if (!c.raw(x)) return false; v.i = x; return true; }
    case GgufKind::I16: { std::uint16_t x = 0; if (!c.raw(x)) return false; v.i = static_cast<std::int16_t>(x); return true; }
    case GgufKind::U32: { std::uint32_t x = 0; if (!c.raw(x)) return false; v.i = x; return true; }
    case GgufKind::I32: { std::uint32_t x = 0; if (!c.raw(x)) return false; v.i = static_cast<std::int32_t>(x); return true; }
    case GgufKind::U64: {
      std::uint64_t x = 0;
      if (!c.raw(x)) return false;
      if (x > static_cast<std::uint64_t>(INT64_MAX)) return c.fail(issue_row("gguf", Str::rd_gguf_int64, what, std::to_string(x)));
      v.i = static_cast<i64>(x);
      return true;
    }
    case GgufKind::I64: { std::uint64_t x = 0; if (!c.raw(x)) return false; v.i = static_cast<i64>(x); return true; }
    case GgufKind::F32: {
      std::uint32_t x = 0;
      if (!c.raw(x)) return false;
      float f = 0;
      std::memcpy(&f, &x, 4);
      v.f = f;
      return true;
    }
    case GgufKind::F64: {
      std::uint64_t x = 0;
      if (!c.raw(x)) return false;
      std::memcpy(&v.f, &x, 8);
      return true;
    }
    case GgufKind::String: return keep_string ? c.string(v.s, kGgufMaxString, what) : c.skip_string(what);
    case GgufKind::Array: return c.fail(issue_row("gguf", Str::rd_gguf_array_scalar, what));
  }
  return false;
}

bool read_value(Cursor& c, GgufKind k, GgufValue& v, const RowArg& what, i64 depth) {
  v.kind = k;
  if (k != GgufKind::Array) return read_scalar(c, k, v, what, true);
  if (depth >= kGgufMaxNesting) return c.fail(issue_row("gguf", Str::rd_gguf_nested, what, std::to_string(kGgufMaxNesting)));
  if (!read_kind(c, v.elem, what) || !c.count(v.count, kGgufMaxArray, row_arg(Str::rd_gguf_what_array_length, what))) return false;
  // Fixed-size elements: the whole array must be in the file before anything is kept of it.
  if (const i64 each = scalar_bytes(v.elem); each > 0) {
    if (!c.have(v.count * each)) return false;  // ≤ 2^27 · 8
    if (is_integer_kind(v.elem) && v.count <= kGgufKeptInts) {
      v.ints.reserve(static_cast<size_t>(v.count));
      for (i64 n = 0; n < v.count; ++n) {
        GgufValue e;
        if (!read_scalar(c, v.elem, e, what, false)) return false;
        v.ints.push_back(e.i);
      }
    } else {
      c.pos += v.count * each;
    }
    return true;
  }
  for (i64 n = 0; n < v.count; ++n) {  // strings or arrays: each at least 8 bytes, so bounded by the file
    GgufValue e;
    if (v.elem == GgufKind::String ? !c.skip_string(what) : !read_value(c, GgufKind::Array, e, what, depth + 1)) return false;
  }
  return true;
}

}  // namespace

std::span<const GgmlType> ggml_types() { return kTypes; }

std::string gguf_printable(std::string_view s) {
  std::string out(s.substr(0, 256));
  for (char& ch : out)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F) ch = '?';
  return out;
}

const GgmlType* ggml_type(std::uint32_t id) {
  for (const GgmlType& t : kTypes)
    if (t.id == id) return &t;
  return nullptr;
}

std::string_view to_string(GgufKind k) { return kKindNames[static_cast<size_t>(k)]; }

bool GgufValue::is_integer() const { return is_integer_kind(kind); }

const GgufValue* GgufHeader::find(std::string_view key) const {
  for (const auto& [k, v] : kv)
    if (k == key) return &v;
  return nullptr;
}

std::string GgufHeader::string_of(std::string_view key) const {
  const GgufValue* v = find(key);
  return v && v->kind == GgufKind::String ? v->s : std::string();
}

i64 GgufHeader::tensor_bytes() const {
  i64 sum = 0;
  for (const auto& t : tensors) sum = sat_add(sum, t.bytes);
  return sum;
}

i64 GgufHeader::elements() const {
  i64 sum = 0;
  for (const auto& t : tensors) sum = sat_add(sum, t.elements);
  return sum;
}

Result<GgufHeader> read_gguf_header(std::string_view head, i64 file_bytes, i64* more) {
  if (more) *more = 0;
  auto bad = [](Str row, auto&&... args) { return issue_row("gguf", row, std::forward<decltype(args)>(args)...); };
  if (file_bytes < 0) return bad(Str::rd_negative_size);
  Cursor c;
  c.head = head.substr(0, static_cast<size_t>(std::min<i64>(static_cast<i64>(head.size()), kGgufMaxHeaderBytes)));
  c.file_bytes = file_bytes;
  GgufHeader h;
  h.file_bytes = file_bytes;
  auto stop = [&]() -> Result<GgufHeader> {
    if (c.error) return *c.error;
    if (more) *more = c.need;
    return bad(Str::rd_gguf_continues, with_commas(static_cast<i64>(head.size())), with_commas(c.need));
  };
  // ref: gguf_init_from_file_impl: magic, version, tensor and key counts.
  if (!c.have(4)) return stop();
  if (head.substr(0, 4) != "GGUF") return bad(Str::rd_gguf_magic);
  c.pos = 4;
  std::uint32_t version = 0;
  if (!c.raw(version)) return stop();
  if (version == 1) return bad(Str::rd_gguf_v1);
  if ((version & 0xFFFF) == 0 && version != 0) return bad(Str::rd_gguf_big_endian, std::to_string(version >> 24));
  if (version < 2 || version > 3) return bad(Str::rd_gguf_version, std::to_string(version));
  h.version = version;
  i64 n_tensors = 0, n_kv = 0;
  if (!c.count(n_tensors, kGgufMaxTensors, Str::rd_gguf_what_tensor_count) || !c.count(n_kv, kGgufMaxKeys, Str::rd_gguf_what_key_count))
    return stop();
  // Every key/value takes at least 8 + 4 + 1 bytes and every tensor info 8 + 4 + 8 + 4 + 8: a
  // count the rest of the file cannot hold is refused before anything is sized by it.
  if (file_bytes > 0 && (n_kv * 13 + n_tensors * 32 > file_bytes - c.pos))
    return bad(Str::rd_gguf_counts, with_commas(file_bytes), with_commas(n_kv), with_commas(n_tensors));
  h.kv.reserve(static_cast<size_t>(std::min<i64>(n_kv, 4096)));
  std::unordered_set<std::string> keys, names;  // repeats are refused in linear time
  for (i64 k = 0; k < n_kv; ++k) {
    std::string key;
    if (!c.string(key, 65535, row_arg(Str::rd_gguf_what_key, std::to_string(k)))) return stop();
    GgufKind kind{};
    const RowArg name(gguf_printable(key));
    if (!read_kind(c, kind, name)) return stop();
    GgufValue v;
    if (!read_value(c, kind, v, name, 0)) return stop();
    if (!keys.insert(key).second) return bad(Str::rd_gguf_key_twice, gguf_printable(key));
    h.kv.emplace_back(std::move(key), std::move(v));
  }
  // ref: gguf.cpp: general.alignment, a power of two (GGUF_DEFAULT_ALIGNMENT 32 without it).
  if (const GgufValue* a = h.find("general.alignment")) {
    if (a->kind != GgufKind::U32) return bad(Str::rd_gguf_alignment_type, std::string(to_string(a->kind)));
    if (a->i == 0 || (a->i & (a->i - 1)) != 0) return bad(Str::rd_gguf_alignment_pow2, std::to_string(a->i));
    h.alignment = a->i;
  }
  h.tensors.reserve(static_cast<size_t>(std::min<i64>(n_tensors, 65536)));
  for (i64 t = 0; t < n_tensors; ++t) {
    GgufTensor info;
    if (!c.string(info.name, kGgufMaxName - 1, row_arg(Str::rd_gguf_what_tensor_name, std::to_string(t)))) return stop();
    std::uint32_t n_dims = 0;
    if (!c.raw(n_dims)) return stop();
    const std::string name = gguf_printable(info.name);
    if (n_dims < 1 || n_dims > kGgufMaxDims) return bad(Str::rd_gguf_dims, name, std::to_string(n_dims));
    Checked elements(1);
    for (std::uint32_t d = 0; d < n_dims; ++d) {
      i64 ne = 0;
      if (!c.count(ne, INT64_MAX, row_arg(Str::rd_gguf_what_dimension, name, std::to_string(d)))) return stop();
      info.ne.push_back(ne);
      elements *= Checked(ne);
    }
    std::uint32_t type = 0;
    std::uint64_t offset = 0;
    if (!c.raw(type) || !c.raw(offset)) return stop();
    info.type = ggml_type(type);
    if (!info.type) return bad(Str::rd_gguf_type, name, std::to_string(type));
    if (!elements.ok()) return bad(Str::rd_gguf_elements, name);
    info.elements = elements.value();
    // ref: gguf.cpp: the row (ne[0]) is whole blocks of the type.
    if (info.ne[0] % info.type->block != 0)
      return bad(Str::rd_gguf_blocks, name, std::to_string(info.ne[0]), std::string(info.type->name), std::to_string(info.type->block));
    const Checked bytes = Checked(info.elements / info.type->block) * info.type->bytes;
    if (!bytes.ok()) return bad(Str::rd_gguf_bytes, name);
    info.bytes = bytes.value();
    if (offset > static_cast<std::uint64_t>(INT64_MAX) || offset % static_cast<std::uint64_t>(h.alignment) != 0)
      return bad(Str::rd_gguf_offset, name, std::to_string(offset), std::to_string(h.alignment));
    info.offset = static_cast<i64>(offset);
    if (!names.insert(info.name).second) return bad(Str::rd_gguf_name_twice, name);
    h.tensors.push_back(std::move(info));
  }
  h.data_offset = ceil_div(c.pos, h.alignment) * h.alignment;
  // ref: gguf.cpp: every tensor's data lies within the file.
  if (file_bytes > 0)
    for (const auto& t : h.tensors)
      if (t.offset > file_bytes - h.data_offset || t.bytes > file_bytes - h.data_offset - t.offset)
        return bad(Str::rd_gguf_beyond_file, gguf_printable(t.name), with_commas(t.bytes), with_commas(t.offset), with_commas(file_bytes));
  return h;
}

GgufGroups gguf_groups(const GgufHeader& h) {
  GgufGroups g;
  const std::string arch = h.string_of("general.architecture");
  i64 blocks = -1, nextn = 0;
  if (const GgufValue* v = h.find(arch + ".block_count"); v && v->is_integer()) blocks = v->i;
  if (const GgufValue* v = h.find(arch + ".nextn_predict_layers"); v && v->is_integer()) nextn = v->i;
  auto starts = [](std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; };
  for (const GgufTensor& t : h.tensors) {
    std::string_view name = t.name;
    std::optional<Group> group;
    i64 block = -1;
    if (starts(name, "blk.")) {  // blk.<N>.<tensor>
      const size_t dot = name.find('.', 4);
      if (dot != std::string_view::npos) {
        const auto n = parse_int(name.substr(4, dot - 4));
        if (n) block = *n;
        name.remove_prefix(dot + 1);
      }
    }
    if (block < 0 && (starts(name, "token_embd.") || starts(name, "position_embd.") || starts(name, "per_layer_token_embd.") ||
                      starts(name, "per_layer_model_proj.")))
      group = Group::Embedding;
    else if (block >= 0 && (starts(name, "inp_gate.") || starts(name, "proj.")))  // Gemma 4's per-layer embedding gate and projection
      group = Group::Embedding;
    else if (block < 0 && starts(name, "output.")) group = Group::LmHead;
    else if (name.find("norm") != std::string_view::npos) group = Group::Norm;
    else if (block >= 0 && (starts(name, "ffn_gate_inp.") || starts(name, "exp_probs_b."))) group = Group::Router;
    else if (block >= 0 && (starts(name, "attn_") || starts(name, "ssm_") || starts(name, "time_mix_") || starts(name, "shortconv.") ||
                            starts(name, "indexer.")))
      group = Group::Attention;
    else if (block >= 0 && starts(name, "ffn_")) group = Group::Ffn;
    if (group && block >= 0 && blocks >= 0 && nextn > 0 && block >= blocks - nextn) group = Group::Mtp;
    if (!group) {
      if (g.unmatched.size() < 32) g.unmatched.push_back(gguf_printable(t.name));
      ++g.unmatched_count;
      g.unmatched_params = sat_add(g.unmatched_params, t.elements);
      g.unmatched_bytes = sat_add(g.unmatched_bytes, t.bytes);
      continue;
    }
    const size_t k = static_cast<size_t>(*group);
    g.params[k] = sat_add(g.params[k], t.elements);
    g.bytes[k] = sat_add(g.bytes[k], t.bytes);
    if (g.first[k].empty()) g.first[k] = gguf_printable(t.name);
  }
  return g;
}

std::optional<GgufSplit> gguf_split(const GgufHeader& h) {
  const GgufValue* count = h.find("split.count");
  if (!count || !count->is_integer() || count->i <= 1) return std::nullopt;
  GgufSplit s;
  s.count = count->i;
  if (const GgufValue* no = h.find("split.no"); no && no->is_integer()) s.no = no->i;
  else s.no = -1;  // named by merge_gguf_shards
  if (const GgufValue* t = h.find("split.tensors.count"); t && t->is_integer()) s.tensors = t->i;
  return s;
}

std::vector<std::string> gguf_shard_paths(std::string_view path, i64 count) {
  // ref: llama_split_path: "%s-%05d-of-%05d.gguf" (split numbers from 1).
  constexpr std::string_view tail = ".gguf";
  if (count < 2 || count > kGgufMaxShards || path.size() < 20 || path.substr(path.size() - tail.size()) != tail) return {};
  const std::string_view stem = path.substr(0, path.size() - tail.size());  // …-00001-of-00003
  const std::string_view end = stem.substr(stem.size() - 15);                // -00001-of-00003
  auto digits = [](std::string_view x) { return x.size() == 5 && std::all_of(x.begin(), x.end(), [](char c) { return c >= '0' && c <= '9'; }); };
  if (end[0] != '-' || end.substr(6, 4) != "-of-" || !digits(end.substr(1, 5)) || !digits(end.substr(10, 5))) return {};
  if (parse_int(end.substr(10, 5)) != count) return {};
  const std::string prefix(stem.substr(0, stem.size() - 15));
  std::vector<std::string> out;
  for (i64 k = 1; k <= count; ++k) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "-%05lld-of-%05lld.gguf", static_cast<long long>(k), static_cast<long long>(count));
    out.push_back(prefix + buf);
  }
  return out;
}

Result<GgufHeader> merge_gguf_shards(std::vector<GgufHeader> shards) {
  auto bad = [](Str row, auto&&... args) { return Result<GgufHeader>(issue_row("gguf", row, std::forward<decltype(args)>(args)...)); };
  const i64 n = static_cast<i64>(shards.size());
  if (n == 0) return bad(Str::rd_shards_none);
  if (n == 1 && !gguf_split(shards.front())) return std::move(shards.front());
  if (n > kGgufMaxShards) return bad(Str::rd_shards_many, std::to_string(kGgufMaxShards));
  std::vector<GgufHeader*> by_no(static_cast<size_t>(n), nullptr);
  for (GgufHeader& h : shards) {
    const auto sp = gguf_split(h);
    if (!sp || sp->count != n)
      return sp ? bad(Str::rd_split_count, std::to_string(n), std::to_string(sp->count))
                : bad(Str::rd_split_count, std::to_string(n), Str::rd_none);
    if (sp->no < 0 || sp->no >= n) return bad(Str::rd_split_no, std::to_string(n - 1), std::to_string(sp->no));
    if (by_no[static_cast<size_t>(sp->no)]) return bad(Str::rd_split_no_twice, std::to_string(sp->no));
    by_no[static_cast<size_t>(sp->no)] = &h;
  }
  GgufHeader out = std::move(*by_no.front());
  const i64 expected = gguf_split(out)->tensors;
  out.shards = n;
  std::unordered_set<std::string> names;
  for (const auto& t : out.tensors) names.insert(t.name);
  for (i64 k = 1; k < n; ++k) {
    GgufHeader& h = *by_no[static_cast<size_t>(k)];
    out.data_offset = sat_add(out.data_offset, h.data_offset);
    out.file_bytes = out.file_bytes > 0 && h.file_bytes > 0 ? sat_add(out.file_bytes, h.file_bytes) : 0;
    for (auto& t : h.tensors) {
      if (!names.insert(t.name).second) return bad(Str::rd_shards_tensor_twice, gguf_printable(t.name));
      out.tensors.push_back(std::move(t));
    }
  }
  if (expected >= 0 && expected != static_cast<i64>(out.tensors.size()))
    return bad(Str::rd_split_tensors, std::to_string(expected), std::to_string(out.tensors.size()));
  return out;
}

std::vector<GgufTypeCount> gguf_type_counts(const GgufHeader& h) {
  std::vector<GgufTypeCount> out;
  for (const GgmlType& t : kTypes) {
    GgufTypeCount n{&t, 0, 0, 0};
    for (const auto& x : h.tensors)
      if (x.type == &t) {
        ++n.tensors;
        n.elements = sat_add(n.elements, x.elements);
        n.bytes = sat_add(n.bytes, x.bytes);
      }
    if (n.tensors > 0) out.push_back(n);
  }
  return out;
}

std::string gguf_text(const GgufHeader& h, std::string_view path, Lang l) {
  std::string o = std::string(path) + ": GGUF v" + std::to_string(h.version);
  const std::string arch = h.string_of("general.architecture"), name = h.string_of("general.name");
  if (!arch.empty()) o += printf_text(tr(Str::cli_gguf_arch, l), gguf_printable(arch).c_str());
  if (!name.empty()) o += ", \"" + gguf_printable(name) + "\"";
  if (h.shards > 1) o += printf_text(tr(Str::cli_gguf_split, l), std::to_string(h.shards).c_str());
  const std::string of_file =
      h.file_bytes > 0 ? printf_text(tr(Str::cli_gguf_of_file, l), with_commas(h.file_bytes).c_str(), format_bytes(h.file_bytes, ByteUnit::GB).c_str())
                       : std::string();
  o += "\n  " + printf_text(tr(h.shards > 1 ? Str::cli_gguf_headers : Str::cli_gguf_header, l), with_commas(h.data_offset).c_str(), of_file.c_str(),
                           with_commas(static_cast<i64>(h.kv.size())).c_str(), with_commas(static_cast<i64>(h.tensors.size())).c_str(),
                           std::to_string(h.alignment).c_str()) +
       "\n";
  const std::string bits =
      h.elements() > 0 ? fixed(8.0 * static_cast<double>(h.tensor_bytes()) / static_cast<double>(h.elements()), 2) : std::string("0");
  o += "  " + printf_text(tr(Str::cli_gguf_params, l), with_commas(h.elements()).c_str(), with_commas(h.tensor_bytes()).c_str(),
                          format_bytes(h.tensor_bytes(), ByteUnit::GB).c_str(), bits.c_str()) +
       "\n";
  o += "  " + pad_right(tr(Str::cli_col_type, l), 10) + pad_left(tr(Str::cli_col_tensors, l), 9) + pad_left(tr(Str::cli_col_parameters, l), 20) +
       pad_left(tr(Str::cli_col_bytes, l), 17) + "\n";
  for (const auto& n : gguf_type_counts(h)) {
    std::string line = "  " + std::string(n.type->name);
    line.resize(12, ' ');
    std::string a = with_commas(n.tensors), b = with_commas(n.elements), cc = with_commas(n.bytes);
    line += std::string(a.size() < 7 ? 7 - a.size() : 0, ' ') + a + std::string(b.size() < 20 ? 20 - b.size() : 0, ' ') + b +
            std::string(cc.size() < 17 ? 17 - cc.size() : 0, ' ') + cc;
    o += line + "\n";
  }
  return o;
}

std::string gguf_json(const GgufHeader& h, bool tensor_list) {
  using json_util::json;
  json j;
  j["format"] = "gguf";
  j["version"] = h.version;
  j["architecture"] = h.string_of("general.architecture");
  j["name"] = h.string_of("general.name");
  j["header_bytes"] = h.data_offset;
  j["shards"] = h.shards;
  j["file_bytes"] = h.file_bytes;
  j["alignment"] = h.alignment;
  j["tensors"] = static_cast<i64>(h.tensors.size());
  j["params"] = h.elements();
  j["weights_bytes"] = h.tensor_bytes();
  j["types"] = json::object();
  for (const auto& n : gguf_type_counts(h))
    j["types"][std::string(n.type->name)] = {{"tensors", n.tensors}, {"params", n.elements}, {"bytes", n.bytes}};
  // Scalar metadata as read (strings, numbers, bools); arrays by their length and element type.
  j["metadata"] = json::object();
  for (const auto& [k, v] : h.kv) {
    if (v.kind == GgufKind::String) j["metadata"][k] = v.s.size() <= 256 ? v.s : v.s.substr(0, 256) + "…";
    else if (v.kind == GgufKind::Bool) j["metadata"][k] = v.i != 0;
    else if (v.kind == GgufKind::F32 || v.kind == GgufKind::F64) j["metadata"][k] = v.f;
    else if (v.kind == GgufKind::Array) j["metadata"][k] = {{"array", std::string(to_string(v.elem))}, {"length", v.count}};
    else j["metadata"][k] = v.i;
  }
  if (tensor_list) {  // the table as the file holds it: ne in ggml order, offsets from the data section
    j["tensor_list"] = json::array();
    for (const GgufTensor& t : h.tensors)
      j["tensor_list"].push_back({{"name", t.name}, {"ne", t.ne}, {"type", std::string(t.type->name)}, {"type_id", t.type->id},
                                  {"offset", t.offset}, {"bytes", t.bytes}});
  }
  // Keys and strings are the file's bytes: invalid UTF-8 is replaced, never a failure.
  return j.dump(-1, ' ', false, json_util::json::error_handler_t::replace);
}

}  // namespace llmsize::core
