// Per-GPU readers of the GPU probe: one NVML device handle -> the fields of one Gpu record (identity, memory,
// processes, health, NVLinks, PCIe, NUMA). Missing symbols and failing calls leave -1 / "".
#pragma once
#include <map>
#include <string>

#include "dynlib/nvml.h"
#include "probe/facts.h"
#include "probe/fs.h"

namespace dd::probe {

// Links of one GPU: active NVLinks per remote PCI bus id, and links that end at an NVSwitch.
struct LinkMap {
  std::map<std::string, int> to_bus;
  int to_switch = 0;
  int type_unknown = 0;  // links whose remote type NVML could not say (old driver): decided after all GPUs
};

// NUL-terminated text of at most n bytes.
std::string trim_nul(const char* s, size_t n);

// Reads everything about GPU `d` into g (g.index set by the caller) and its NVLinks into links.
void read_gpu(const dynlib::Nvml& n, dynlib::nvmlDevice_t d, const Fs& fs, Gpu& g, LinkMap& links);

}  // namespace dd::probe
