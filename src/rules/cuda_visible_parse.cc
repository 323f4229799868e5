// CUDA_VISIBLE_DEVICES as CUDA reads it. Parsing follows the CUDA documentation (indices, GPU-UUID prefixes,
// MIG ids; enumeration stops at the first invalid entry) and PyTorch's mirror of the driver's behaviour
// (torch/cuda/__init__.py _parse_visible_devices, _transform_uuid_to_ordinals): strtoul-like numbers ("1gpu"
// is 1), a negative or non-number entry ends the list, an index >= the GPU count ends it, an ambiguous UUID
// prefix ends it, a repeated device empties the set.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "rules/cuda_visible.h"

namespace dd::rules {

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

// CUDA stops reading at entry `pos` for reason `why`; the entries after it are ignored.
void stop_at(CudaVisible& r, const std::vector<std::string>& entries, size_t pos, const std::string& why) {
  r.stop_pos = static_cast<int>(pos);
  r.stop_entry = entries[pos];
  r.stop_reason = why;
  r.ignored = static_cast<int>(entries.size() - pos - 1);
}

// A repeated device: CUDA then shows no device at all.
void mark_duplicate(CudaVisible& r, const std::string& entry) {
  r.duplicate = true;
  r.duplicate_entry = entry;
  r.nvml_indices.clear();
  r.mig_ids.clear();
  r.count = 0;
}

// GPU-UUID prefixes (already checked for form) -> NVML indices; stops at an unknown or ambiguous prefix.
void resolve_uuids(CudaVisible& r, const std::vector<std::string>& entries,
                   const std::vector<std::string>& ids, const std::vector<probe::Gpu>& gpus) {
  for (size_t p = 0; p < ids.size(); p++) {
    int match = -1, n = 0;
    for (const auto& g : gpus) {
      if (g.uuid.rfind(ids[p], 0) == 0) {
        match = g.index;
        n++;
      }
    }
    if (n != 1) {
      stop_at(r, entries, p, n == 0 ? "unknown UUID" : "ambiguous UUID prefix");
      break;
    }
    if (std::find(r.nvml_indices.begin(), r.nvml_indices.end(), match) != r.nvml_indices.end()) {
      mark_duplicate(r, ids[p]);
      return;
    }
    r.nvml_indices.push_back(match);
  }
  r.count = static_cast<int>(r.nvml_indices.size());
}

// A list that starts with "GPU-" or "MIG-": every entry must carry the same prefix.
CudaVisible parse_id_list(const std::vector<std::string>& entries, bool mig,
                          const std::vector<probe::Gpu>& gpus, int ngpu) {
  CudaVisible r;
  r.mode = mig ? CudaVisible::Mode::mig : CudaVisible::Mode::uuids;
  std::string prefix = mig ? "MIG-" : "GPU-";
  std::vector<std::string> ids;
  for (size_t p = 0; p < entries.size(); p++) {
    if (std::find(ids.begin(), ids.end(), entries[p]) != ids.end()) {
      mark_duplicate(r, entries[p]);
      return r;
    }
    if (entries[p].rfind(prefix, 0) != 0) {
      stop_at(r, entries, p, entries[p].empty() ? "empty" : "not a " + prefix + " id");
      break;
    }
    ids.push_back(entries[p]);
  }
  if (mig) {
    r.mig_ids = ids;
    return r;  // count unknown: MIG instance ids are not in the facts
  }
  if (ngpu >= 0) resolve_uuids(r, entries, ids, gpus);
  return r;
}

// A list of indices: strtoul-like numbers, then a range check against the GPU count.
CudaVisible parse_index_list(const std::vector<std::string>& entries, int ngpu) {
  CudaVisible r;
  r.mode = CudaVisible::Mode::indices;
  std::vector<long long> idx;
  for (size_t p = 0; p < entries.size(); p++) {
    std::string why;
    long long x = strtoul_like(trim(entries[p]), &why);
    if (x >= 0 && std::find(idx.begin(), idx.end(), x) != idx.end()) {
      mark_duplicate(r, entries[p]);
      return r;
    }
    if (x < 0) {
      stop_at(r, entries, p, why);
      break;
    }
    idx.push_back(x);
  }
  for (size_t p = 0; p < idx.size(); p++) {
    // With the GPU count unknown, an index no int holds is still out of range (it never became an index).
    if (ngpu >= 0 ? idx[p] >= ngpu : idx[p] > std::numeric_limits<int>::max()) {
      if (r.stop_pos < 0 || static_cast<int>(p) < r.stop_pos)
        stop_at(r, entries, p, ngpu >= 0 ? fmt::format("out of range ({} GPUs)", ngpu) : "out of range");
      break;
    }
    r.nvml_indices.push_back(static_cast<int>(idx[p]));
  }
  r.count = ngpu >= 0 ? static_cast<int>(r.nvml_indices.size()) : -1;
  return r;
}

}  // namespace

CudaVisible parse_cuda_visible_devices(const std::optional<std::string>& value,
                                       const std::vector<probe::Gpu>& gpus, int ngpu) {
  if (!value) {
    CudaVisible r;
    r.mode = CudaVisible::Mode::all;
    r.count = ngpu;
    for (int i = 0; i < std::max(ngpu, 0); i++) r.nvml_indices.push_back(i);
    return r;
  }
  auto entries = split_commas(*value);
  const std::string& v = *value;
  if (v.rfind("GPU-", 0) == 0 || v.rfind("MIG-", 0) == 0)
    return parse_id_list(entries, v.rfind("MIG-", 0) == 0, gpus, ngpu);
  return parse_index_list(entries, ngpu);
}

}  // namespace dd::rules
