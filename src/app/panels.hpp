// One draw_* function per panel (one file each). They read and edit the App; every figure
// they show comes from a core call made in the same frame.
#pragma once
#include "app/app.hpp"
#include "core/estimate.hpp"
#include "core/params.hpp"

namespace llmsize::app {

void draw_top_bar(App& app);
void draw_banners(App& app);
void draw_model_panel(App& app);
// With a plan (an estimate was possible), the layer plan follows the per-layer table.
void draw_params_results(App& app, const core::ParamReport& p, const core::LayerPlan* plan = nullptr);
void draw_layer_plan(const core::LayerPlan& plan);
void draw_share_panel(App& app);
void draw_workload_panel(App& app, const std::vector<core::Issue>& issues);
void draw_memory_results(App& app, const core::Estimate& e, const std::vector<core::Explanation>& ex);
void draw_scaling_results(App& app, const core::Estimate& e);
// `first`: the current configuration's estimate (case 1).
void draw_compare_results(App& app, const core::Estimate& first);
void draw_gpu_table(App& app, const core::Estimate& e);
void draw_throughput_results(App& app, const core::Estimate& e, const std::vector<core::Explanation>& ex);
void copy_link(App& app);
void draw_demo_panel(App& app);

}  // namespace llmsize::app
