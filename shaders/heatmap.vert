// Attention heat map, vertex stage: one full-screen triangle generated from gl_VertexID,
// no vertex buffer. v_uv spans [0, 1] over the target texture.
out vec2 v_uv;

void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));  // (0,0) (2,0) (0,2)
  v_uv = p;
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
