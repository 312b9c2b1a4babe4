// A check shared by the file tests: two FileWeights hold the same bytes and type for every
// inventory tensor in every layer (a file's weights, and the same read back from a share link).
#pragma once
#include "core/file_weights.hpp"
#include "test_util.hpp"

inline void check_same_layers(const llmsize::core::FileWeights& a, const llmsize::core::FileWeights& b) {
  REQUIRE(a.kinds.size() == b.kinds.size());
  for (size_t k = 0; k < a.kinds.size(); ++k) {
    REQUIRE(a.kinds[k].size() == b.kinds[k].size());
    for (size_t i = 0; i < a.kinds[k].size(); ++i)
      for (size_t j = 0; j < a.kinds[k][i].size(); ++j) {
        CHECK(a.kinds[k][i][j].bytes == b.kinds[k][i][j].bytes);
        CHECK(a.kinds[k][i][j].type == b.kinds[k][i][j].type);
      }
  }
}
