// The estimator's JavaScript API (Embind), shared by the page module and the API-only
// module (no GL) that documentation pages load. Objects in, objects out:
//   presets()                       → [{id, name, family, total, active}, …]
//   estimate(model, workload)       → the CLI's --json report: {model, params, workload, inference,
//                                     training, fit, throughput, bounds}
//       model: {preset: "llama-3-8b"}, a Hugging Face config.json object, or its JSON text
//       workload: {seq: 8192, batch: 4, w: "q4_k_m", …} with the share-link keys ({} = defaults)
//   encodeLink(model, workload)     → "#v=1&…"
//   decodeLink("#v=1&…")            → {model: {preset} or {L, d, …}, workload: {changed keys}, ui}
//   cliCommand(model, workload)     → "llmsize estimate --preset … --seq …"
//   compare(link | [{model, workload}, …]) → `llmsize compare --json` (cases, rows with values,
//                                     vs_first, differs) and the comparison's link
//   version()                       → "0.1.0"
// Failures come back as {issues: [{field, message}, …]}, never as exceptions.
#pragma once
