// Rule: CUDA_VISIBLE_DEVICES malformed, out of range, duplicated, or naming fewer GPUs than --nproc-per-node;
// GPU order and CUDA's own count. The parsing itself is in cuda_visible_parse.cc.
#include "rules/cuda_visible.h"

#include <fmt/format.h>

#include <algorithm>

#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

// What every finding of this rule is computed from.
struct VisibleView {
  std::optional<std::string> value;  // CUDA_VISIBLE_DEVICES, when set
  int ngpu = -1;                     // GPUs NVML (or CUDA, when unset) reports; -1 unknown
  CudaVisible cv;                    // the prediction from the value
  int visible = -1;                  // CUDA's own count when measured, else the prediction
  std::string shown;                 // CUDA_VISIBLE_DEVICES="..." / unset, for titles
  std::vector<std::string> ev;       // evidence shared by every finding
  std::string fix_all;               // the export line that fixes it
  bool short_of_procs = false;       // fewer visible GPUs than --nproc-per-node
};

std::vector<std::string> visible_evidence(const probe::NodeFacts& f, const VisibleView& v) {
  auto known = [](int n) { return n < 0 ? std::string("unknown") : std::to_string(n); };
  std::vector<std::string> ev = {v.shown, fmt::format("nvml_gpus={}", known(v.ngpu)),
                                 fmt::format("cuda_visible_count={}", known(v.visible))};
  ev.push_back(fmt::format("cvd_predicted_count={}", known(v.cv.count)));
  if (f.cuda.device_count >= 0) ev.push_back(fmt::format("cuDeviceGetCount={}", f.cuda.device_count));
  if (!f.cuda.driver_loaded && !f.cuda.driver_error.empty())
    ev.push_back("cuda_driver_error=" + f.cuda.driver_error);
  std::vector<std::string> idx;
  for (int i : v.cv.nvml_indices) idx.push_back(std::to_string(i));
  if (!idx.empty()) ev.push_back("visible NVML indices: " + join(idx, ","));
  return ev;
}

// "export CUDA_VISIBLE_DEVICES=0,1,...": every GPU, or the first --nproc-per-node of them.
std::string export_all_fix(int ngpu, const CheckOptions& opt) {
  std::string good = "0";
  if (ngpu > 0) {
    std::vector<std::string> all;
    for (int i = 0; i < (opt.nproc_per_node > 0 ? std::min(opt.nproc_per_node, ngpu) : ngpu); i++)
      all.push_back(std::to_string(i));
    good = join(all, ",");
  }
  return fmt::format("export CUDA_VISIBLE_DEVICES={}   (or unset it to use every GPU)", good);
}

VisibleView read_view(const probe::NodeFacts& f, const CheckOptions& opt) {
  VisibleView v;
  v.value = env_value(f, "CUDA_VISIBLE_DEVICES");
  if (!v.value && f.cuda.visible_devices_set) v.value = f.cuda.visible_devices;
  v.ngpu = f.gpu.nvml_loaded ? static_cast<int>(f.gpu.gpus.size()) : -1;
  if (v.ngpu < 0 && !v.value && f.cuda.device_count >= 0) v.ngpu = f.cuda.device_count;
  v.cv = parse_cuda_visible_devices(v.value, f.gpu.gpus, v.ngpu);
  // The count CUDA itself reported under this environment wins over the prediction.
  v.visible = f.cuda.device_count >= 0 ? f.cuda.device_count : v.cv.count;
  v.shown = v.value ? fmt::format("CUDA_VISIBLE_DEVICES=\"{}\"", *v.value) : "CUDA_VISIBLE_DEVICES unset";
  v.ev = visible_evidence(f, v);
  v.fix_all = export_all_fix(v.ngpu, opt);
  v.short_of_procs = opt.nproc_per_node > 0 && v.visible >= 0 && v.visible < opt.nproc_per_node;
  return v;
}

// The list itself: a repeated device, every GPU hidden, or CUDA stopping at an entry.
void add_list_problem(const VisibleView& v, const CheckOptions& opt, std::vector<Finding>& out) {
  const CudaVisible& cv = v.cv;
  if (cv.duplicate) {
    out.push_back({"cuda.visible_devices.duplicate", Severity::fail,
                   fmt::format("{} repeats device \"{}\": CUDA then fails to initialise (cuInit error 101)",
                               v.shown, cv.duplicate_entry),
                   v.ev, v.fix_all});
  } else if (v.value && cv.mode == CudaVisible::Mode::indices && cv.stop_pos == 0 && v.ngpu != 0) {
    out.push_back(
        {"cuda.visible_devices.empty",
         v.short_of_procs || opt.nproc_per_node > 0 ? Severity::fail : Severity::warn,
         fmt::format("{} hides every GPU (first entry \"{}\": {})", v.shown, cv.stop_entry, cv.stop_reason),
         v.ev, v.fix_all});
  } else if (cv.stop_pos >= 0) {
    bool range = cv.stop_reason.rfind("out of range", 0) == 0;
    out.push_back({range ? "cuda.visible_devices.out_of_range" : "cuda.visible_devices.malformed",
                   v.short_of_procs ? Severity::fail : Severity::warn,
                   fmt::format("{}: CUDA stops at entry {} (\"{}\": {}){}; {} GPU(s) visible", v.shown,
                               cv.stop_pos + 1, cv.stop_entry, cv.stop_reason,
                               cv.ignored > 0 ? fmt::format(" and ignores the {} after it", cv.ignored) : "",
                               v.visible < 0 ? std::string("?") : std::to_string(v.visible)),
                   v.ev, v.fix_all});
  }
}

// CUDA numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID; NVML/nvidia-smi by PCI bus id.
void add_device_order(const probe::NodeFacts& f, const VisibleView& v, std::vector<Finding>& out) {
  bool mixed = false;
  for (const auto& g : f.gpu.gpus) mixed = mixed || g.name != f.gpu.gpus[0].name;
  auto order = env_value(f, "CUDA_DEVICE_ORDER");
  if (mixed && (!order || *order != "PCI_BUS_ID") && v.cv.mode == CudaVisible::Mode::indices) {
    out.push_back(
        {"cuda.device_order", Severity::info,
         "GPUs of different models and CUDA_DEVICE_ORDER is not PCI_BUS_ID: CUDA's index N may not be "
         "nvidia-smi's GPU N",
         v.ev, "export CUDA_DEVICE_ORDER=PCI_BUS_ID"});
  }
}

// MIG ids, too few GPUs for the processes, CUDA's count differing from the prediction.
void add_count_findings(const probe::NodeFacts& f, const VisibleView& v, const CheckOptions& opt,
                        std::vector<Finding>& out) {
  const CudaVisible& cv = v.cv;
  if (cv.mode == CudaVisible::Mode::mig) {
    out.push_back({"cuda.visible_devices.mig", Severity::info,
                   fmt::format("{} lists {} MIG instance(s); distdoctor cannot check MIG ids", v.shown,
                               cv.mig_ids.size()),
                   v.ev});
  }
  if (v.short_of_procs && !cv.duplicate) {
    int missing_from = v.visible, n = opt.nproc_per_node;
    out.push_back(
        {"cuda.visible_devices.too_few", Severity::fail,
         fmt::format("{} GPU(s) visible to CUDA but --nproc-per-node={}: {} fail with \"invalid device "
                     "ordinal\", the others wait forever in ncclCommInitRank",
                     v.visible, n,
                     n - missing_from == 1 ? fmt::format("local rank {}", missing_from)
                                           : fmt::format("local ranks {}..{}", missing_from, n - 1)),
         v.ev, fmt::format("Start at most {} processes on this node, or {}", v.visible, v.fix_all)});
  }
  if (f.cuda.device_count >= 0 && cv.count >= 0 && f.cuda.device_count != cv.count && !cv.duplicate) {
    out.push_back({"cuda.device_count.mismatch", Severity::info,
                   fmt::format("CUDA reports {} device(s) where {} predicts {}", f.cuda.device_count, v.shown,
                               cv.count),
                   v.ev});
  }
}

std::vector<Finding> check_cuda_visible(const probe::NodeFacts& f, const CheckOptions& opt) {
  VisibleView v = read_view(f, opt);
  std::vector<Finding> out;
  add_list_problem(v, opt, out);
  add_device_order(f, v, out);
  add_count_findings(f, v, opt, out);
  if (out.empty() || (out.size() == 1 && out[0].severity == Severity::info)) {
    if (v.value || opt.nproc_per_node > 0 || v.ngpu > 0)
      out.push_back(
          {"cuda.visible_devices.ok", Severity::ok,
           fmt::format("{}: {} GPU(s) visible to CUDA{}", v.shown,
                       v.visible < 0 ? std::string("?") : std::to_string(v.visible),
                       opt.nproc_per_node > 0 ? fmt::format(" for {} process(es)", opt.nproc_per_node) : ""),
           v.ev});
  }
  return out;
}

}  // namespace

NodeRule cuda_visible_rule() {
  return {
      "cuda.visible_devices",
      check_cuda_visible,
      {{"cuda.visible_devices.ok", "CUDA_VISIBLE_DEVICES is well formed",
        "CUDA_VISIBLE_DEVICES parses cleanly and exposes enough GPUs for the processes of this node."},
       {"cuda.visible_devices.malformed", "CUDA_VISIBLE_DEVICES has an invalid entry",
        "CUDA reads CUDA_VISIBLE_DEVICES left to right as a comma list of indices, GPU-UUIDs (a unique "
        "prefix "
        "is enough) or MIG ids, and stops at the first entry it cannot use: everything after it is silently "
        "ignored. \"0,,2\" or \"0,x,2\" therefore shows one GPU. Rank processes that then call "
        "cudaSetDevice(local_rank) fail with \"invalid device ordinal\"."},
       {"cuda.visible_devices.out_of_range", "CUDA_VISIBLE_DEVICES names a GPU that does not exist",
        "An index at or above the number of GPUs ends the list for CUDA; it and the entries after it are "
        "ignored. Typical after copying a launch script from a machine with more GPUs."},
       {"cuda.visible_devices.duplicate", "CUDA_VISIBLE_DEVICES repeats a device",
        "A device listed twice (by index or by UUID, or both) makes the whole list invalid: cuInit fails "
        "with CUDA_ERROR_INVALID_DEVICE (101; seen with driver 580 / CUDA 13 on H200), so no device is "
        "usable and torch.cuda.device_count() returns 0."},
       {"cuda.visible_devices.empty", "CUDA_VISIBLE_DEVICES hides every GPU",
        "An empty CUDA_VISIBLE_DEVICES, or one whose first entry is invalid (\"-1\", \"none\"), hides all "
        "GPUs: "
        "CUDA reports no device and GPU jobs fail with \"no CUDA-capable device is detected\"."},
       {"cuda.visible_devices.too_few", "Fewer visible GPUs than processes",
        "The job starts more processes on this node than CUDA exposes GPUs. The ranks beyond the last GPU "
        "fail "
        "with \"invalid device ordinal\" (MindSpore: SetDevice ... ret[101]); the ranks that did start wait "
        "forever in ncclCommInitRank for the missing ones. Match --nproc-per-node to the GPUs listed."},
       {"cuda.visible_devices.mig", "CUDA_VISIBLE_DEVICES lists MIG instances",
        "MIG ids are passed through to CUDA; distdoctor cannot verify them. NCCL does not support "
        "communication "
        "between MIG instances of the same GPU."},
       {"cuda.device_order", "CUDA and nvidia-smi number GPUs differently",
        "By default CUDA enumerates the fastest GPU first; nvidia-smi and NVML use PCI bus order. On a "
        "machine "
        "with different GPU models the indices in CUDA_VISIBLE_DEVICES then name other GPUs than nvidia-smi "
        "shows. Set CUDA_DEVICE_ORDER=PCI_BUS_ID (or use GPU UUIDs)."},
       {"cuda.device_count.mismatch", "CUDA's device count differs from the prediction",
        "cuDeviceGetCount under the current environment returned a different count than distdoctor's reading "
        "of CUDA_VISIBLE_DEVICES; the measured count is used."}}};
}

}  // namespace dd::rules
