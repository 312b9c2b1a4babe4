// The editable fields of a ModelConfig as one table: short key (share links), canonical
// name (the one validate() reports), UI label and help, kind and choices, and strict text
// get/set. Share links, the UI's Model panel and the JS API iterate this table; nothing
// else lists model fields.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace llmsize::core {

// Flags: a ',' -joined subset of `choices`/`values` (workload.hpp's LoRA targets).
enum class FieldKind : std::uint8_t { Int, Bool, Enum, Real, IntList, Flags };

struct ModelField {
  std::string_view key;        // share-link key, e.g. "L"
  std::string_view canonical;  // validate()'s field name, e.g. "num_hidden_layers"
  std::string_view label;      // UI label, e.g. "layers"
  std::string_view help;       // one sentence
  FieldKind kind;
  std::vector<std::string_view> choices;  // Enum values; Bool is "0"/"1"
  i64 min_int = 0, max_int = 0;           // Int: the storable range (validate() may narrow it)
  double min_real = 0, max_real = 0;      // Real: (min_real, max_real]
  std::string (*get)(const ModelConfig&);
  // Parses and stores the value. Refuses malformed text, unknown choices and values
  // outside the field's bounds (field_limits()) with an Issue naming `key`.
  std::optional<Issue> (*set)(ModelConfig&, std::string_view text);
};

const std::vector<ModelField>& model_fields();

// "an integer in [1, 10000]", "one of bf16, fp16", … — shared by both field tables.
std::string allowed_text(FieldKind kind, const std::vector<std::string_view>& choices, i64 min_int, i64 max_int,
                         double min_real, double max_real);
std::string allowed_text(const ModelField& f);
const ModelField* find_model_field(std::string_view key);

// Family from its model_type id ("llama", …, "custom"); nullopt when unknown.
std::optional<Family> family_from_id(std::string_view id);

}  // namespace llmsize::core
