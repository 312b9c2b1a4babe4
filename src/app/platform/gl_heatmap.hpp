// The attention heat map renderer: uploads probabilities as an R32F texture and draws them
// with shaders/heatmap.{vert,frag} into an RGBA8 texture that ImGui::Image shows.
#pragma once
#include "app/app.hpp"

namespace llmsize::platform {

class GlHeatmap final : public app::HeatmapRenderer {
 public:
  ~GlHeatmap() override;
  ImTextureID render(const float* probs, int rows, int cols, float value_max, int out_w, int out_h,
                     ImVec4 masked) override;
  const char* error() const { return error_; }

 private:
  bool init();
  unsigned program_ = 0, vao_ = 0, fbo_ = 0, src_ = 0, dst_ = 0;
  int dst_w_ = 0, dst_h_ = 0;
  bool tried_ = false;
  const char* error_ = nullptr;
};

// Compiles a shader from shaders/ with the platform's #version line prepended; 0 on error.
unsigned compile_program(const char* vert_name, const char* frag_name, const char** error);

}  // namespace llmsize::platform
