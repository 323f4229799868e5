// JSON forms of the job settings and node hellos, the compared environment, and the store keys.
#include "launch/job_settings.h"

#include <fmt/format.h>

#include "cluster/job_spec.h"
#include "common/redact.h"
#include "launch/worker_env.h"
#include "rendezvous/auth.h"

namespace dd::launch {

void to_json(nlohmann::json& j, const JobSettings& s) {
  j = {{"job_id", s.job_id},
       {"run_id", s.run_id},
       {"command_digest", s.command_digest},
       {"max_restarts", s.max_restarts},
       {"hang_timeout_s", s.hang_timeout_s},
       {"grace_s", s.grace_s},
       {"job_port", s.job_port},
       {"master_addr", s.master_addr},
       {"bind_gpu", s.bind_gpu},
       {"preflight", s.preflight},
       {"flight_recorder", s.flight_recorder},
       {"straggler_interval_s", s.straggler_interval_s},
       {"nnodes", s.nnodes},
       {"conventions", s.conventions}};
}

void from_json(const nlohmann::json& j, JobSettings& s) {
  s.job_id = j.value("job_id", "");
  s.run_id = j.value("run_id", "");
  s.command_digest = j.value("command_digest", "");
  s.max_restarts = j.value("max_restarts", 0);
  s.hang_timeout_s = j.value("hang_timeout_s", 0.0);
  s.grace_s = j.value("grace_s", 5.0);
  s.job_port = j.value("job_port", 0);
  s.master_addr = j.value("master_addr", "");
  s.bind_gpu = j.value("bind_gpu", false);
  s.preflight = j.value("preflight", true);
  s.flight_recorder = j.value("flight_recorder", true);
  s.straggler_interval_s = j.value("straggler_interval_s", 0.0);  // a peer from before: none
  s.nnodes = j.value("nnodes", 0);
  s.conventions = j.value("conventions", std::vector<std::string>{});
}

void to_json(nlohmann::json& j, const NodeHello& h) {
  j = {{"node_rank", h.node_rank},
       {"host", h.host},
       {"addr", h.addr},
       {"nproc", h.nproc},
       {"gpu_ids", h.gpu_ids},
       {"env", h.env},
       {"pid", h.pid},
       {"nnodes", h.nnodes},
       {"command_digest", h.command_digest}};
}

void from_json(const nlohmann::json& j, NodeHello& h) {
  h.node_rank = j.value("node_rank", -1);
  h.host = j.value("host", "");
  h.addr = j.value("addr", "");
  h.nproc = j.value("nproc", 1);
  h.gpu_ids = j.value("gpu_ids", std::vector<std::string>{});
  h.env = j.value("env", std::map<std::string, std::string>{});
  h.pid = j.value("pid", int64_t(0));
  h.nnodes = j.value("nnodes", 0);
  h.command_digest = j.value("command_digest", "");
}

std::string command_digest(const std::vector<std::string>& command) {
  std::string framed;
  for (const auto& w : command) framed += std::to_string(w.size()) + ":" + w + "\n";
  return rendezvous::sha256_hex(framed);
}

std::map<std::string, std::string> env_for_compare(const std::map<std::string, std::string>& env) {
  static const char* const kPrefixes[] = {
      "NCCL_",   "CUDA_",   "GLOO_", "UCX_",        "FI_",     "TORCH",    "PYTORCH_", "OMP_",
      "PYTHON",  "NVIDIA_", "HF_",   "ACCELERATE_", "PADDLE_", "FLAGS_",   "MKL_",     "TRANSFORMERS_",
      "CUBLAS_", "CUDNN_",  "TF_",   "XLA_",        "MASTER_", "NVSHMEM_", "MS_"};
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : env) {
    bool keep = k == "LD_LIBRARY_PATH" || k == "PATH" || k == "LD_PRELOAD" || k == "VIRTUAL_ENV";
    for (const char* p : kPrefixes) keep |= k.rfind(p, 0) == 0;
    if (!keep || is_launcher_var(k)) continue;
    // A secret shows as a short hash of its value: two nodes with different secrets still differ.
    out[k] = is_secret_name(k) && !v.empty()
                 ? fmt::format("<redacted:{:04x}>", cluster::fnv1a("distdoctor env " + v) & 0xffff)
                 : redact_value(k, v);
  }
  return out;
}

rendezvous::MeetingKeys attempt_keys(int attempt) { return kLaunchKeys.sub(fmt::format("a{}", attempt)); }

}  // namespace dd::launch
