// The GPU catalog: memory, memory bandwidth and dense bf16/fp8 tensor throughput per
// accelerator, from vendor data sheets, stored in presets/gpus.json and compiled in.
// Memory sizes are binary (a "80 GB" HBM part holds 80 GiB); bandwidth is decimal (GB/s =
// 1e9 bytes/s); TFLOPS are dense (no 2:4 sparsity), 10^12 FLOP/s.
#pragma once
#include <string>
#include <vector>

#include "checked.hpp"
#include "issue.hpp"

namespace llmsize::core {

struct Gpu {
  std::string id;      // "h100-sxm"
  std::string name;    // "NVIDIA H100 SXM 80GB"
  std::string vendor;  // "NVIDIA", "AMD", "Apple"
  i64 memory_bytes = 0;         // as sold: GiB × 2^30
  double usable_fraction = 1.0; // share a workload may use (Apple unified memory: GPU wired limit)
  double bandwidth_gbs = 0;     // memory bandwidth, 1e9 bytes/s
  double bf16_tflops = 0;       // dense bf16/fp16 tensor throughput (fp32 accumulate)
  double fp8_tflops = 0;        // dense fp8 tensor throughput; 0 = no fp8 tensor cores
  bool unified = false;         // memory shared with the CPU
  bool nvlink = false;          // an SXM/HGX part: its GPUs talk over NVLink, not PCIe alone
  std::string source;           // vendor data sheet the numbers come from
  std::string note;             // caveats (e.g. how the usable fraction is set)
  // The total the CUDA driver reports (cudaMemGetInfo, torch.cuda.mem_get_info, deviceQuery's
  // "Total amount of global memory"): what engines multiply by their memory fraction. Less than
  // memory_bytes (the driver reserves some); 0 = not published for this card. It varies by a few
  // MiB between driver versions; the source names the one recorded.
  i64 cuda_total_bytes = 0;
  std::string cuda_total_source;
  i64 smi_total_mib = 0;   // nvidia-smi's memory.total (MiB), which SGLang's defaults read; 0 = not recorded
  std::string smi_total_source;
  i64 sm_count = 0;        // streaming multiprocessors (deviceQuery "Multiprocessors"); 0 = not recorded
  double cuda_cc = 0;      // CUDA compute capability (9.0 = Hopper); 0 = not recorded

  // What a program may allocate: the driver's total where the catalog records it (an "80 GB"
  // H100 gives CUDA 79.19 GiB), else memory_bytes, times usable_fraction.
  i64 usable_bytes() const;
  // The total usable_bytes takes its share of: the driver's where recorded, else as sold.
  i64 total_bytes() const { return cuda_total_bytes > 0 ? cuda_total_bytes : memory_bytes; }
};

// Every catalog entry, in file order; parsed once. A broken catalog gives Issues here and
// an empty gpu_catalog() (the tests load it).
Result<std::vector<Gpu>> load_gpus();
const std::vector<Gpu>& gpu_catalog();
const Gpu* find_gpu(std::string_view id);

}  // namespace llmsize::core
