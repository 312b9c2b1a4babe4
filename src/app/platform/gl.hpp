// The one place that includes OpenGL headers: WebGL2 through Emscripten's GLES3 headers,
// desktop OpenGL 3.3 core through the system's prototypes (libGL exports them on Linux).
#pragma once
#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#define LLMSIZE_GLSL_PRELUDE "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;\n"
#else
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#define LLMSIZE_GLSL_PRELUDE "#version 330 core\n"
#endif
