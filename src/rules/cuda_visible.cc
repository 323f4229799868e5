// Rule: CUDA_VISIBLE_DEVICES malformed, out of range, duplicated, or naming fewer GPUs than --nproc-per-node.
// Parsing follows the CUDA documentation (indices, GPU-UUID prefixes, MIG ids; enumeration stops at the first
// invalid entry) and PyTorch's mirror of the driver's behaviour (torch/cuda/__init__.py
// _parse_visible_devices, _transform_uuid_to_ordinals): strtoul-like numbers ("1gpu" is 1), a negative or
// non-number entry ends the list, an index >= the GPU count ends it, an ambiguous UUID prefix ends it, a
// repeated device empties the set.
#include "rules/cuda_visible.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

std::vector<std::string> split_commas(const std::string& s) {  // like Python's str.split(",")
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t end = s.find(',', start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) a++;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) b--;
  return s.substr(a, b - a);
}

// Leading (signed) digits as a number; -1 when there are none or it is negative. Capped to avoid overflow.
long long strtoul_like(const std::string& s, std::string* why) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  size_t digits = 0;
  long long v = 0;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); i++, digits++)
    v = std::min(v * 10 + (s[i] - '0'), 1LL << 40);
  if (s.empty())
    *why = "empty";
  else if (digits == 0)
    *why = "not a number";
  else if (neg && v != 0)
    *why = "negative";
  if (digits == 0 || (neg && v != 0)) return -1;
  return v;
}

}  // namespace

CudaVisible parse_cuda_visible_devices(const std::optional<std::string>& value,
                                       const std::vector<probe::Gpu>& gpus, int ngpu) {
  CudaVisible r;
  if (!value) {
    r.mode = CudaVisible::Mode::all;
    r.count = ngpu;
    for (int i = 0; i < std::max(ngpu, 0); i++) r.nvml_indices.push_back(i);
    return r;
  }
  auto entries = split_commas(*value);
  auto stop = [&](size_t pos, const std::string& why) {
    r.stop_pos = static_cast<int>(pos);
    r.stop_entry = entries[pos];
    r.stop_reason = why;
    r.ignored = static_cast<int>(entries.size() - pos - 1);
  };
  auto dup = [&](const std::string& e) {
    r.duplicate = true;
    r.duplicate_entry = e;
    r.nvml_indices.clear();
    r.mig_ids.clear();
    r.count = 0;
  };
  const std::string& v = *value;
  if (v.rfind("GPU-", 0) == 0 || v.rfind("MIG-", 0) == 0) {
    bool mig = v.rfind("MIG-", 0) == 0;
    r.mode = mig ? CudaVisible::Mode::mig : CudaVisible::Mode::uuids;
    std::string prefix = mig ? "MIG-" : "GPU-";
    std::vector<std::string> ids;
    for (size_t p = 0; p < entries.size(); p++) {
      if (std::find(ids.begin(), ids.end(), entries[p]) != ids.end()) {
        dup(entries[p]);
        return r;
      }
      if (entries[p].rfind(prefix, 0) != 0) {
        stop(p, entries[p].empty() ? "empty" : "not a " + prefix + " id");
        break;
      }
      ids.push_back(entries[p]);
    }
    if (mig) {
      r.mig_ids = ids;
      return r;  // count unknown: MIG instance ids are not in the facts
    }
    if (ngpu < 0) return r;
    for (size_t p = 0; p < ids.size(); p++) {
      int match = -1, n = 0;
      for (const auto& g : gpus) {
        if (g.uuid.rfind(ids[p], 0) == 0) {
          match = g.index;
          n++;
        }
      }
      if (n != 1) {
        stop(p, n == 0 ? "unknown UUID" : "ambiguous UUID prefix");
        break;
      }
      if (std::find(r.nvml_indices.begin(), r.nvml_indices.end(), match) != r.nvml_indices.end()) {
        dup(ids[p]);
        return r;
      }
      r.nvml_indices.push_back(match);
    }
    r.count = static_cast<int>(r.nvml_indices.size());
    return r;
  }
  r.mode = CudaVisible::Mode::indices;
  std::vector<long long> idx;
  for (size_t p = 0; p < entries.size(); p++) {
    std::string why;
    long long x = strtoul_like(trim(entries[p]), &why);
    if (x >= 0 && std::find(idx.begin(), idx.end(), x) != idx.end()) {
      dup(entries[p]);
      return r;
    }
    if (x < 0) {
      stop(p, why);
      break;
    }
    idx.push_back(x);
  }
  for (size_t p = 0; p < idx.size(); p++) {
    if (ngpu >= 0 && idx[p] >= ngpu) {
      if (r.stop_pos < 0 || static_cast<int>(p) < r.stop_pos)
        stop(p, fmt::format("out of range ({} GPUs)", ngpu));
      break;
    }
    r.nvml_indices.push_back(static_cast<int>(idx[p]));
  }
  r.count = ngpu >= 0 ? static_cast<int>(r.nvml_indices.size()) : -1;
  return r;
}

namespace {

std::vector<Finding> check_cuda_visible(const probe::NodeFacts& f, const CheckOptions& opt) {
  auto value = env_value(f, "CUDA_VISIBLE_DEVICES");
  if (!value && f.cuda.visible_devices_set) value = f.cuda.visible_devices;
  int ngpu = f.gpu.nvml_loaded ? static_cast<int>(f.gpu.gpus.size()) : -1;
  if (ngpu < 0 && !value && f.cuda.device_count >= 0) ngpu = f.cuda.device_count;
  CudaVisible cv = parse_cuda_visible_devices(value, f.gpu.gpus, ngpu);
  // The count CUDA itself reported under this environment wins over the prediction.
  int visible = f.cuda.device_count >= 0 ? f.cuda.device_count : cv.count;
  std::string shown =
      value ? fmt::format("CUDA_VISIBLE_DEVICES=\"{}\"", *value) : "CUDA_VISIBLE_DEVICES unset";
  std::vector<std::string> ev = {
      shown, fmt::format("nvml_gpus={}", ngpu < 0 ? std::string("unknown") : std::to_string(ngpu)),
      fmt::format("cuda_visible_count={}", visible < 0 ? std::string("unknown") : std::to_string(visible))};
  ev.push_back(fmt::format("cvd_predicted_count={}",
                           cv.count < 0 ? std::string("unknown") : std::to_string(cv.count)));
  if (f.cuda.device_count >= 0) ev.push_back(fmt::format("cuDeviceGetCount={}", f.cuda.device_count));
  std::vector<std::string> idx;
  for (int i : cv.nvml_indices) idx.push_back(std::to_string(i));
  if (!idx.empty()) ev.push_back("visible NVML indices: " + join(idx, ","));
  std::vector<Finding> out;
  std::string good =
      ngpu > 0 ? join(
                     [&] {
                       std::vector<std::string> all;
                       for (int i = 0;
                            i < (opt.nproc_per_node > 0 ? std::min(opt.nproc_per_node, ngpu) : ngpu); i++)
                         all.push_back(std::to_string(i));
                       return all;
                     }(),
                     ",")
               : "0";
  std::string fix_all = fmt::format("export CUDA_VISIBLE_DEVICES={}   (or unset it to use every GPU)", good);
  bool short_of_procs = opt.nproc_per_node > 0 && visible >= 0 && visible < opt.nproc_per_node;
  if (cv.duplicate) {
    out.push_back({"cuda.visible_devices.duplicate", Severity::fail,
                   fmt::format("{} repeats device \"{}\": CUDA then fails to initialise (cuInit error 101)",
                               shown, cv.duplicate_entry),
                   ev, fix_all});
  } else if (value && cv.mode == CudaVisible::Mode::indices && cv.stop_pos == 0 && ngpu != 0) {
    out.push_back(
        {"cuda.visible_devices.empty",
         short_of_procs || opt.nproc_per_node > 0 ? Severity::fail : Severity::warn,
         fmt::format("{} hides every GPU (first entry \"{}\": {})", shown, cv.stop_entry, cv.stop_reason), ev,
         fix_all});
  } else if (cv.stop_pos >= 0) {
    bool range = cv.stop_reason.rfind("out of range", 0) == 0;
    out.push_back({range ? "cuda.visible_devices.out_of_range" : "cuda.visible_devices.malformed",
                   short_of_procs ? Severity::fail : Severity::warn,
                   fmt::format("{}: CUDA stops at entry {} (\"{}\": {}){}; {} GPU(s) visible", shown,
                               cv.stop_pos + 1, cv.stop_entry, cv.stop_reason,
                               cv.ignored > 0 ? fmt::format(" and ignores the {} after it", cv.ignored) : "",
                               visible < 0 ? std::string("?") : std::to_string(visible)),
                   ev, fix_all});
  }
  // CUDA numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID; NVML/nvidia-smi by PCI bus id.
  bool mixed = false;
  for (const auto& g : f.gpu.gpus) mixed = mixed || g.name != f.gpu.gpus[0].name;
  auto order = env_value(f, "CUDA_DEVICE_ORDER");
  if (mixed && (!order || *order != "PCI_BUS_ID") && cv.mode == CudaVisible::Mode::indices) {
    out.push_back(
        {"cuda.device_order", Severity::info,
         "GPUs of different models and CUDA_DEVICE_ORDER is not PCI_BUS_ID: CUDA's index N may not be "
         "nvidia-smi's GPU N",
         ev, "export CUDA_DEVICE_ORDER=PCI_BUS_ID"});
  }
  if (cv.mode == CudaVisible::Mode::mig) {
    out.push_back({"cuda.visible_devices.mig", Severity::info,
                   fmt::format("{} lists {} MIG instance(s); distdoctor cannot check MIG ids", shown,
                               cv.mig_ids.size()),
                   ev});
  }
  if (short_of_procs && !cv.duplicate) {
    out.push_back(
        {"cuda.visible_devices.too_few", Severity::fail,
         fmt::format("{} GPU(s) visible to CUDA but --nproc-per-node={}: {} fail with \"invalid device "
                     "ordinal\", the others wait forever in ncclCommInitRank",
                     visible, opt.nproc_per_node,
                     opt.nproc_per_node - visible == 1
                         ? fmt::format("local rank {}", visible)
                         : fmt::format("local ranks {}..{}", visible, opt.nproc_per_node - 1)),
         ev, fmt::format("Start at most {} processes on this node, or {}", visible, fix_all)});
  }
  if (f.cuda.device_count >= 0 && cv.count >= 0 && f.cuda.device_count != cv.count && !cv.duplicate) {
    out.push_back(
        {"cuda.device_count.mismatch", Severity::info,
         fmt::format("CUDA reports {} device(s) where {} predicts {}", f.cuda.device_count, shown, cv.count),
         ev});
  }
  if (out.empty() || (out.size() == 1 && out[0].severity == Severity::info)) {
    if (value || opt.nproc_per_node > 0 || ngpu > 0)
      out.push_back(
          {"cuda.visible_devices.ok", Severity::ok,
           fmt::format("{}: {} GPU(s) visible to CUDA{}", shown,
                       visible < 0 ? std::string("?") : std::to_string(visible),
                       opt.nproc_per_node > 0 ? fmt::format(" for {} process(es)", opt.nproc_per_node) : ""),
           ev});
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
