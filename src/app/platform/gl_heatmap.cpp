// Heat-map rendering with GL (see gl_heatmap.hpp). Shader bodies come from shaders/ via
// app/assets.hpp; this file prepends "#version 330 core" or "#version 300 es".
#include "gl_heatmap.hpp"

#include <cstdint>
#include <string>

#include "app/assets.hpp"
#include "gl.hpp"

namespace llmsize::platform {

namespace {
GLuint compile(GLenum type, std::string_view body, const char** error) {
  const std::string src = std::string(LLMSIZE_GLSL_PRELUDE) + std::string(body);
  const char* p = src.c_str();
  GLuint sh = glCreateShader(type);
  glShaderSource(sh, 1, &p, nullptr);
  glCompileShader(sh);
  GLint ok = 0;
  glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    static char log[1024];
    glGetShaderInfoLog(sh, sizeof log, nullptr, log);
    *error = log;
    glDeleteShader(sh);
    return 0;
  }
  return sh;
}
}  // namespace

unsigned compile_program(const char* vert_name, const char* frag_name, const char** error) {
  const auto vs_src = app::shader_source(vert_name), fs_src = app::shader_source(frag_name);
  if (vs_src.empty() || fs_src.empty()) {
    *error = "shader source missing from the build";
    return 0;
  }
  GLuint vs = compile(GL_VERTEX_SHADER, vs_src, error);
  GLuint fs = vs ? compile(GL_FRAGMENT_SHADER, fs_src, error) : 0;
  if (!vs || !fs) {
    if (vs) glDeleteShader(vs);
    return 0;
  }
  GLuint prog = glCreateProgram();
  glAttachShader(prog, vs);
  glAttachShader(prog, fs);
  glLinkProgram(prog);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(prog, GL_LINK_STATUS, &ok);
  if (!ok) {
    static char log[1024];
    glGetProgramInfoLog(prog, sizeof log, nullptr, log);
    *error = log;
    glDeleteProgram(prog);
    return 0;
  }
  return prog;
}

bool GlHeatmap::init() {
  tried_ = true;
  program_ = compile_program("heatmap.vert", "heatmap.frag", &error_);
  if (!program_) return false;
  glGenVertexArrays(1, &vao_);
  glGenFramebuffers(1, &fbo_);
  glGenTextures(1, &src_);
  glGenTextures(1, &dst_);
  return true;
}

GlHeatmap::~GlHeatmap() {
  if (program_) glDeleteProgram(program_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (fbo_) glDeleteFramebuffers(1, &fbo_);
  if (src_) glDeleteTextures(1, &src_);
  if (dst_) glDeleteTextures(1, &dst_);
}

ImTextureID GlHeatmap::render(const float* probs, int rows, int cols, float value_max, int out_w, int out_h,
                              ImVec4 masked) {
  if (!tried_) init();
  if (!program_ || rows <= 0 || cols <= 0 || out_w <= 0 || out_h <= 0) return nullptr;

  // Save the state ImGui's renderer relies on.
  GLint prev_fbo = 0, prev_prog = 0, prev_vao = 0, prev_tex = 0, prev_active = 0, prev_unpack = 0;
  GLint vp[4];
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &prev_fbo);
  glGetIntegerv(GL_CURRENT_PROGRAM, &prev_prog);
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &prev_vao);
  glGetIntegerv(GL_ACTIVE_TEXTURE, &prev_active);
  glActiveTexture(GL_TEXTURE0);
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &prev_tex);
  glGetIntegerv(GL_UNPACK_ALIGNMENT, &prev_unpack);
  glGetIntegerv(GL_VIEWPORT, vp);
  const GLboolean blend = glIsEnabled(GL_BLEND), scissor = glIsEnabled(GL_SCISSOR_TEST);

  // Source: (rows, cols) probabilities, one float per texel, width = keys.
  glBindTexture(GL_TEXTURE_2D, src_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, cols, rows, 0, GL_RED, GL_FLOAT, probs);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);

  // Destination: RGBA8 colour texture.
  glBindTexture(GL_TEXTURE_2D, dst_);
  if (out_w != dst_w_ || out_h != dst_h_) {
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, out_w, out_h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    dst_w_ = out_w;
    dst_h_ = out_h;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, dst_, 0);
  const bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  if (complete) {
    glViewport(0, 0, out_w, out_h);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glUseProgram(program_);
    glBindVertexArray(vao_);
    glBindTexture(GL_TEXTURE_2D, src_);
    glUniform1i(glGetUniformLocation(program_, "u_probs"), 0);
    glUniform1f(glGetUniformLocation(program_, "u_gamma"), 0.5f);
    glUniform1f(glGetUniformLocation(program_, "u_inv_max"), value_max > 0 ? 1.0f / value_max : 1.0f);
    glUniform3f(glGetUniformLocation(program_, "u_masked"), masked.x, masked.y, masked.z);
    glDrawArrays(GL_TRIANGLES, 0, 3);
  } else {
    error_ = "framebuffer incomplete";
  }

  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(prev_fbo));
  glUseProgram(static_cast<GLuint>(prev_prog));
  glBindVertexArray(static_cast<GLuint>(prev_vao));
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(prev_tex));
  glActiveTexture(static_cast<GLenum>(prev_active));
  glPixelStorei(GL_UNPACK_ALIGNMENT, prev_unpack);
  glViewport(vp[0], vp[1], vp[2], vp[3]);
  if (blend) glEnable(GL_BLEND);
  if (scissor) glEnable(GL_SCISSOR_TEST);
  return complete ? reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(dst_)) : nullptr;
}

}  // namespace llmsize::platform
