// The estimator's JavaScript API (Embind), shared by the page module and the API-only
// module (no GL) that documentation pages load. Objects in, objects out:
//   presets()                      → [{id, name, family, total, active}, …]
//   estimate(model, workload)      → the figures as an object; model: {preset: "llama-3-8b"}
//                                    or a Hugging Face config.json object
//   version()                      → "0.1.0"
// Failures come back as {issues: [{field, message}, …]}, never as exceptions.
#pragma once
