// The editable fields of a ModelConfig as one table of Field<ModelConfig> (field.hpp): short
// key (share links), canonical name (the one validate() reports), UI label and help, kind,
// range and choices, and strict text get/set. Integer ranges come from field_limits() and
// enum choices from the enums' name arrays (model.hpp), so nothing here re-types a bound or
// a name. Share links, the UI's Model panel and the JS API iterate this table; nothing else
// lists model fields.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "field.hpp"
#include "model.hpp"

namespace llmsize::core {

using ModelField = Field<ModelConfig>;

const std::vector<ModelField>& model_fields();
const ModelField* find_model_field(std::string_view key);

// Family from its model_type id ("llama", …, "custom"); nullopt when unknown.
std::optional<Family> family_from_id(std::string_view id);

}  // namespace llmsize::core
