// Which collective engine and which libnccl a run uses, decided once from the node's facts: the rules that
// `check --collectives` and `bench` share (no finding of their own; their answer is reported as a note and
// in the run's library line).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probe/facts.h"

namespace dd::rules {

// The collective engines: NCCL on GPUs, Gloo over TCP (CPUs, or GPUs without a loadable NCCL).
enum class EngineKind { nccl, gloo };
const char* engine_name(EngineKind k);  // "nccl", "gloo"
std::optional<EngineKind> engine_from_name(std::string_view name);
// In JSON (plans, the cross-node view) by name; a name it does not know reads as nccl, as nlohmann does.
NLOHMANN_JSON_SERIALIZE_ENUM(EngineKind, {{EngineKind::nccl, "nccl"}, {EngineKind::gloo, "gloo"}})

// GPUs a process started here may use: the CUDA_VISIBLE_DEVICES entries when it is set ("", "-1", "none",
// "NoDevFiles": none), else the GPUs NVML lists, else CUDA's device count when it was probed.
int visible_gpu_count(const probe::NodeFacts& f);

// The ids a launcher hands out one per worker (--bind-gpu): the CUDA_VISIBLE_DEVICES entries as written when
// it is set, else "0" .. "n-1" for the visible GPUs.
std::vector<std::string> visible_gpu_ids(const probe::NodeFacts& f);

struct NcclLibChoice {
  std::string path;     // library to dlopen; "" = none found (the worker then tries libnccl.so.2)
  std::string version;  // "2.28.9" ("" when unknown)
  std::string source;   // facts' source label: "--nccl-lib", "site-packages ...", "loader", ...
  bool loads = false;   // the probe loaded it and read its version
};

// The libnccl to load: the --nccl-lib flag first (even when it did not load: the run then names why), then
// the NCCL a Python framework ships (site-packages, PYTHONPATH), then the dynamic loader's choice, then any
// other copy on the node that loads.
NcclLibChoice choose_nccl_lib(const probe::NodeFacts& f, const std::string& nccl_lib_flag);

struct EngineChoice {
  EngineKind engine = EngineKind::gloo;
  std::string reason;  // "--engine gloo", "no GPU visible", "2 GPU(s) visible, NCCL 2.28.9 loads", ...
};

// `requested` ("nccl", "gloo") wins; otherwise NCCL when GPUs are visible, this build has the NCCL engine
// and a libnccl loads, else Gloo over TCP on this node.
EngineChoice choose_engine(const probe::NodeFacts& f, const std::string& requested,
                           const std::string& nccl_lib_flag, bool nccl_engine_built);

}  // namespace dd::rules
