// One editable input as a row of a table: Field<T> describes a value inside a T (ModelConfig,
// Workload, the demo's settings) by its names, kind, range or choices, and strict text
// get/set. model_fields(), workload_fields() and ref::demo_fields() are tables of it; share
// links, CLI flags, UI editors, the JS API, validation and docs/LIMITS.md iterate them.
// The text setters (int, real, bool, enum, flags) are written once, here, and read the
// range or choices from the row, so a bound or a name has one home.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "checked.hpp"
#include "issue.hpp"
#include "text_value.hpp"

namespace llmsize::core {

// Flags: a ','-joined subset of `choices` (the LoRA targets). IntList, RealList: ','-joined
// integers or numbers (RealList: each in [min_real, max_real], at most max_int of them).
// EnumList: a ','-joined sequence of `choices`, repeats allowed, at most max_int.
enum class FieldKind : std::uint8_t { Int, Bool, Enum, Real, IntList, Flags, Text, RealList, EnumList };  // Text: characters of `choices`
// The workload mode a field belongs to; model and demo fields are all Both.
enum class FieldScope : std::uint8_t { Both, Inference, Training };

// An enum's names in enum order (kActivationNames, …) or a runtime list (GPU ids).
using Names = std::span<const std::string_view>;
inline constexpr std::string_view kBoolNames[] = {"0", "1"};

// What a field is, without the type it lives in.
struct FieldSpec {
  std::string_view key;        // share-link key and Issue::field ("L", "seq", "prompt"); one namespace per table
  std::string_view canonical;  // model fields: validate()'s name ("num_hidden_layers"); empty elsewhere
  std::string_view flag;       // CLI flag ("--seq"); empty where the CLI takes none
  std::string_view label;      // UI label
  std::string_view help;       // one sentence
  FieldKind kind = FieldKind::Int;
  FieldScope scope = FieldScope::Both;
  i64 min_int = 0, max_int = 0;       // Int, IntList: inclusive
  double min_real = 0, max_real = 0;  // Real: (min_real, max_real], the minimum excluded
  bool zero_is_default = false;       // Real: 0 is also accepted, meaning "the engine's default"
  Names choices{};                    // Enum, Flags; Bool: "0", "1"
};

template <class T>
struct Field : FieldSpec {
  std::string (*get_text)(const FieldSpec&, const T&) = nullptr;
  std::optional<Issue> (*set_text)(const FieldSpec&, T&, std::string_view) = nullptr;
  // Whether the stored value is one `set` would accept, without text (validate() runs every
  // estimate); null where only the text round trip can tell. A false goes on to the round trip,
  // which words the Issue.
  bool (*in_range)(const FieldSpec&, const T&) = nullptr;

  // Canonical text of the current value.
  std::string get(const T& obj) const { return get_text(*this, obj); }
  // Strict parse of `text` into the field; on error `obj` is unchanged and the Issue names
  // the key and the allowed range or values. Never clamps.
  std::optional<Issue> set(T& obj, std::string_view text) const { return set_text(*this, obj, text); }
};

// The row of `fields` with this key, or with this CLI flag ("--seq"; rows without a flag never
// match), or null: the one lookup of every field table.
template <class T>
const Field<T>* find_by_key(const std::vector<Field<T>>& fields, std::string_view key) {
  for (const auto& f : fields)
    if (f.key == key) return &f;
  return nullptr;
}
template <class T>
const Field<T>* find_by_flag(const std::vector<Field<T>>& fields, std::string_view flag) {
  for (const auto& f : fields)
    if (!f.flag.empty() && f.flag == flag) return &f;
  return nullptr;
}

// The shared text setters: parse `text` as field `f` allows, or an Issue naming f.key.
std::optional<Issue> read_int(const FieldSpec& f, std::string_view text, i64& out);
std::optional<Issue> read_real(const FieldSpec& f, std::string_view text, double& out);
std::optional<Issue> read_bool(const FieldSpec& f, std::string_view text, bool& out);
std::optional<Issue> read_choice(const FieldSpec& f, std::string_view text, size_t& index);
std::optional<Issue> read_flags(const FieldSpec& f, std::string_view text, std::uint32_t& bits);
std::string flags_text(const FieldSpec& f, std::uint32_t bits);  // "q,v", or "all"

// "an integer in [1, 10000]", "one of bf16, fp16", … for docs, help and messages.
std::string allowed_text(const FieldSpec& f, Lang lang = Lang::En);
// "must be <allowed_text>" for field `f`, in every language.
Issue must_be(const FieldSpec& f);
// A stored integer against [lo, hi]: "must be an integer in [lo, hi], got v", or nullopt.
std::optional<Issue> check_range(std::string_view field, i64 lo, i64 hi, i64 value);
// Position of `name` in `names`, or nullopt; and the reverse, "" when out of range.
std::optional<size_t> index_of(Names names, std::string_view name);
std::string_view name_at(Names names, size_t index);
std::string join_names(Names names, std::string_view sep = ", ");

// Typed rows. `ref` is a captureless lambda naming the member, [](auto& o) -> auto& { return o.seq; }:
// it is rebuilt inside the setters, so a row stays a plain value with function pointers.
template <class T, class Ref>
Field<T> int_field(FieldSpec s, Ref) {
  s.kind = FieldKind::Int;
  return {s, [](const FieldSpec&, const T& o) { return std::to_string(Ref{}(o)); },
          [](const FieldSpec& f, T& o, std::string_view t) -> std::optional<Issue> {
            i64 v = 0;
            if (auto issue = read_int(f, t, v)) return issue;
            Ref{}(o) = v;
            return std::nullopt;
          },
          [](const FieldSpec& f, const T& o) { return Ref{}(o) >= f.min_int && Ref{}(o) <= f.max_int; }};
}

template <class T, class Ref>
Field<T> real_field(FieldSpec s, Ref) {
  s.kind = FieldKind::Real;
  return {s, [](const FieldSpec&, const T& o) { return format_real(Ref{}(o)); },
          [](const FieldSpec& f, T& o, std::string_view t) -> std::optional<Issue> {
            double v = 0;
            if (auto issue = read_real(f, t, v)) return issue;
            Ref{}(o) = v;
            return std::nullopt;
          },
          [](const FieldSpec& f, const T& o) {
            const double v = Ref{}(o);
            return (v > f.min_real && v <= f.max_real) || (f.zero_is_default && v == 0);
          }};
}

template <class T, class Ref>
Field<T> bool_field(FieldSpec s, Ref) {
  s.kind = FieldKind::Bool;
  s.choices = kBoolNames;
  return {s, [](const FieldSpec&, const T& o) { return std::string(Ref{}(o) ? "1" : "0"); },
          [](const FieldSpec& f, T& o, std::string_view t) -> std::optional<Issue> {
            bool v = false;
            if (auto issue = read_bool(f, t, v)) return issue;
            Ref{}(o) = v;
            return std::nullopt;
          },
          [](const FieldSpec&, const T&) { return true; }};
}

// An enum stored as itself; `names` is the enum's name table, in enum order.
template <class T, class Ref>
Field<T> enum_field(FieldSpec s, Names names, Ref) {
  s.kind = FieldKind::Enum;
  s.choices = names;
  return {s, [](const FieldSpec& f, const T& o) { return std::string(name_at(f.choices, static_cast<size_t>(Ref{}(o)))); },
          [](const FieldSpec& f, T& o, std::string_view t) -> std::optional<Issue> {
            size_t i = 0;
            if (auto issue = read_choice(f, t, i)) return issue;
            using E = std::remove_cvref_t<decltype(Ref{}(o))>;
            Ref{}(o) = static_cast<E>(i);
            return std::nullopt;
          },
          [](const FieldSpec& f, const T& o) { return static_cast<size_t>(Ref{}(o)) < f.choices.size(); }};
}

// A bit set: bit i is names[i].
template <class T, class Ref>
Field<T> flags_field(FieldSpec s, Names names, Ref) {
  s.kind = FieldKind::Flags;
  s.choices = names;
  return {s, [](const FieldSpec& f, const T& o) { return flags_text(f, Ref{}(o)); },
          [](const FieldSpec& f, T& o, std::string_view t) -> std::optional<Issue> {
            std::uint32_t v = 0;
            if (auto issue = read_flags(f, t, v)) return issue;
            Ref{}(o) = v;
            return std::nullopt;
          }};
}

}  // namespace llmsize::core
