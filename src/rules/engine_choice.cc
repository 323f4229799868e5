// The engine and NCCL library choice: pure functions over NodeFacts.
#include "rules/engine_choice.h"

namespace dd::rules {

namespace {

bool loads(const probe::NcclLib& l) { return l.error.empty() && l.version_code > 0; }

bool framework_bundled(const probe::NcclLib& l) {
  return l.source.rfind("site-packages", 0) == 0 || l.source == "PYTHONPATH";
}

NcclLibChoice from_lib(const probe::NcclLib& l) { return {l.path, l.version, l.source, loads(l)}; }

}  // namespace

int visible_gpu_count(const probe::NodeFacts& f) {
  if (f.cuda.visible_devices_set) {
    const std::string& s = f.cuda.visible_devices;
    if (s.empty() || s == "-1" || s == "none" || s == "NoDevFiles") return 0;
    int n = 1;
    for (char c : s) n += c == ',';
    return n;
  }
  if (!f.gpu.gpus.empty()) return int(f.gpu.gpus.size());
  return f.cuda.device_count > 0 ? f.cuda.device_count : 0;
}

std::vector<std::string> visible_gpu_ids(const probe::NodeFacts& f) {
  std::vector<std::string> ids;
  const int n = visible_gpu_count(f);
  if (f.cuda.visible_devices_set && n > 0) {
    std::string item;
    for (char c : f.cuda.visible_devices + ",") {
      if (c != ',') {
        if (c != ' ') item += c;
        continue;
      }
      ids.push_back(item);
      item.clear();
    }
    return ids;
  }
  for (int i = 0; i < n; ++i) ids.push_back(std::to_string(i));
  return ids;
}

NcclLibChoice choose_nccl_lib(const probe::NodeFacts& f, const std::string& flag) {
  if (!flag.empty()) {
    for (const auto& l : f.nccl.libs)
      if (l.source == "--nccl-lib") return from_lib(l);
    return {flag, "", "--nccl-lib", false};
  }
  for (const auto& l : f.nccl.libs)
    if (framework_bundled(l) && loads(l)) return from_lib(l);
  for (const auto& l : f.nccl.libs)
    if (l.source == "loader" && loads(l)) return from_lib(l);
  for (const auto& l : f.nccl.libs)
    if (loads(l)) return from_lib(l);
  return {};
}

const char* engine_name(EngineKind k) { return k == EngineKind::nccl ? "nccl" : "gloo"; }

std::optional<EngineKind> engine_from_name(std::string_view name) {
  if (name == "nccl") return EngineKind::nccl;
  if (name == "gloo") return EngineKind::gloo;
  return std::nullopt;
}

EngineChoice choose_engine(const probe::NodeFacts& f, const std::string& requested, const std::string& flag,
                           bool nccl_engine_built) {
  if (auto kind = engine_from_name(requested)) return {*kind, "--engine " + requested};
  using enum EngineKind;
  int gpus = visible_gpu_count(f);
  if (gpus == 0) return {gloo, "no GPU visible"};
  if (!nccl_engine_built) return {gloo, "this build has no NCCL engine (built without CUDA)"};
  NcclLibChoice lib = choose_nccl_lib(f, flag);
  if (lib.loads) return {nccl, std::to_string(gpus) + " GPU(s) visible, NCCL " + lib.version + " loads"};
  return {gloo, std::to_string(gpus) + " GPU(s) visible but no libnccl loads"};
}

}  // namespace dd::rules
