// Plan <-> JSON: the run options a worker needs, its devices and store; the token travels in the
// environment (DD_STORE_TOKEN), never in the plan file.
#include "comm/run/plan.h"

namespace dd::comm {

namespace {

nlohmann::json run_to_json(const RunOptions& r) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& o : r.ops) ops.push_back(op_to_json(o));
  return {{"engine", rules::engine_name(r.engine)},
          {"ops", ops},
          {"init_timeout_ms", r.init_timeout.count()},
          {"store_url", r.store_url},
          {"prefix", r.store_prefix},
          {"nccl_lib", r.nccl_lib},
          {"gloo_iface", r.gloo_iface},
          {"gloo_host", r.gloo_host},
          {"fault", r.fault},
          {"register_buffers", r.register_buffers},
          {"symmetric_windows", r.symmetric_windows},
          {"cuda_graph", r.cuda_graph}};
}

RunOptions run_from_json(const nlohmann::json& j) {
  RunOptions r;
  r.engine = rules::engine_from_name(j.value("engine", "nccl")).value_or(rules::EngineKind::nccl);
  for (const auto& o : j.value("ops", nlohmann::json::array())) r.ops.push_back(op_from_json(o));
  r.init_timeout = std::chrono::milliseconds(j.value("init_timeout_ms", int64_t(20000)));
  r.store_url = j.value("store_url", "");
  r.store_prefix = j.value("prefix", "dd/comm/");
  r.nccl_lib = j.value("nccl_lib", "");
  r.gloo_iface = j.value("gloo_iface", "");
  r.gloo_host = j.value("gloo_host", "");
  r.fault = j.value("fault", "");
  r.register_buffers = j.value("register_buffers", false);
  r.symmetric_windows = j.value("symmetric_windows", false);
  r.cuda_graph = j.value("cuda_graph", false);
  return r;
}

}  // namespace

nlohmann::json op_to_json(const OpRequest& r) {
  return {{"coll", coll_info(r.coll).name},
          {"dtype", dtype_name(r.dtype)},
          {"bytes", r.bytes},
          {"in_place", r.in_place},
          {"warmup", r.warmup},
          {"iters", r.iters},
          {"check", r.check},
          {"check_every", r.check_every},
          {"root", r.root},
          {"pair_a", r.pair_a},
          {"pair_b", r.pair_b},
          {"timeout_ms", r.timeout.count()},
          {"measured_deadline", r.measured_deadline}};
}

OpRequest op_from_json(const nlohmann::json& j) {
  OpRequest r;
  r.coll = coll_from_name(j.at("coll").get<std::string>()).value_or(Coll::all_reduce);
  r.dtype = dtype_from_name(j.at("dtype").get<std::string>()).value_or(Dtype::f32);
  r.bytes = j.at("bytes").get<uint64_t>();
  r.in_place = j.value("in_place", false);
  r.warmup = j.value("warmup", 1);
  r.iters = j.value("iters", 1);
  r.check = j.value("check", true);
  r.check_every = j.value("check_every", false);
  r.root = j.value("root", 0);
  r.pair_a = j.value("pair_a", -1);
  r.pair_b = j.value("pair_b", -1);
  r.timeout = std::chrono::milliseconds(j.value("timeout_ms", int64_t(10000)));
  r.measured_deadline = j.value("measured_deadline", false);
  return r;
}

nlohmann::json plan_to_json(const Plan& p) {
  nlohmann::json j = {{"run", run_to_json(p.run)},
                      {"world", p.world},
                      {"devices", p.devices},
                      {"store_dir", p.store_dir},
                      {"cuda_visible_devices", nullptr},
                      {"own_gpu", p.own_gpu}};
  if (p.cuda_visible_devices) j["cuda_visible_devices"] = *p.cuda_visible_devices;
  return j;
}

Plan plan_from_json(const nlohmann::json& j) {
  Plan p;
  p.run = run_from_json(j.value("run", nlohmann::json::object()));
  p.world = j.value("world", 1);
  p.devices = j.value("devices", std::vector<int>{});
  p.store_dir = j.value("store_dir", "");
  if (j.contains("cuda_visible_devices") && j["cuda_visible_devices"].is_string())
    p.cuda_visible_devices = j["cuda_visible_devices"].get<std::string>();
  p.own_gpu = j.value("own_gpu", false);
  return p;
}

}  // namespace dd::comm
