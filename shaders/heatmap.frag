// Attention heat map, fragment stage: maps one attention probability per (query, key) cell
// to a perceptually uniform, colour-blind-safe colour map (viridis, polynomial fit).
// u_probs: (queries, keys) R32F texture; a negative value marks a masked (future) key.
uniform sampler2D u_probs;
uniform float u_gamma;       // < 1 lifts small probabilities so that structure shows
uniform float u_inv_max;     // 1 / the largest probability shown: colours span [0, max]
uniform vec3 u_masked;       // colour of masked cells (theme background)
in vec2 v_uv;
out vec4 frag_color;

// ref: Matt Zucker's polynomial fit of matplotlib's viridis (shadertoy WlfXRN), 6th order.
vec3 viridis(float t) {
  const vec3 c0 = vec3(0.2777273272234177, 0.005407344544966578, 0.3340998053353061);
  const vec3 c1 = vec3(0.1050930431085774, 1.404613529898575, 1.384590162594685);
  const vec3 c2 = vec3(-0.3308618287255563, 0.214847559468213, 0.09509516302823659);
  const vec3 c3 = vec3(-4.634230498983486, -5.799100973351585, -19.33244095627987);
  const vec3 c4 = vec3(6.228269936347081, 14.17993336680509, 56.69055260068105);
  const vec3 c5 = vec3(4.776384997670288, -13.74514537774601, -65.35303263337234);
  const vec3 c6 = vec3(-5.435455855934631, 4.645852612178535, 26.3124352495832);
  return c0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * (c5 + t * c6)))));
}

void main() {
  ivec2 size = textureSize(u_probs, 0);                       // (keys, queries)
  ivec2 cell = ivec2(v_uv * vec2(size));                       // x: key, y: query
  cell = clamp(cell, ivec2(0), size - 1);
  float p = texelFetch(u_probs, cell, 0).r;
  if (p < 0.0) {
    frag_color = vec4(u_masked, 1.0);
    return;
  }
  frag_color = vec4(clamp(viridis(pow(clamp(p * u_inv_max, 0.0, 1.0), u_gamma)), 0.0, 1.0), 1.0);
}
