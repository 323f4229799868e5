// Plan <-> JSON, and run_worker: the body of a worker process (engine init, runs, events on a pipe).
#include "comm/plan.h"

#include <signal.h>
#include <unistd.h>

#include <thread>

#include "comm/dir_store.h"
#include "rendezvous/open_store.h"

namespace dd::comm {

nlohmann::json op_to_json(const OpRequest& r) {
  return {{"coll", coll_info(r.coll).name},
          {"dtype", dtype_name(r.dtype)},
          {"bytes", r.bytes},
          {"in_place", r.in_place},
          {"warmup", r.warmup},
          {"iters", r.iters},
          {"check", r.check},
          {"root", r.root},
          {"pair_a", r.pair_a},
          {"pair_b", r.pair_b},
          {"timeout_ms", r.timeout.count()}};
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
  r.root = j.value("root", 0);
  r.pair_a = j.value("pair_a", -1);
  r.pair_b = j.value("pair_b", -1);
  r.timeout = std::chrono::milliseconds(j.value("timeout_ms", int64_t(10000)));
  return r;
}

nlohmann::json plan_to_json(const Plan& p) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& o : p.ops) ops.push_back(op_to_json(o));
  return {{"engine", p.engine},
          {"world", p.world},
          {"devices", p.devices},
          {"ops", ops},
          {"init_timeout_ms", p.init_timeout_ms},
          {"store_dir", p.store_dir},
          {"store_url", p.store_url},
          {"prefix", p.prefix},
          {"nccl_lib", p.nccl_lib},
          {"gloo_iface", p.gloo_iface},
          {"gloo_host", p.gloo_host},
          {"fault", p.fault},
          {"register_buffers", p.register_buffers},
          {"cuda_graph", p.cuda_graph}};
}

Plan plan_from_json(const nlohmann::json& j) {
  Plan p;
  p.engine = j.value("engine", "nccl");
  p.world = j.value("world", 1);
  p.devices = j.value("devices", std::vector<int>{});
  for (const auto& o : j.value("ops", nlohmann::json::array())) p.ops.push_back(op_from_json(o));
  p.init_timeout_ms = j.value("init_timeout_ms", int64_t(20000));
  p.store_dir = j.value("store_dir", "");
  p.store_url = j.value("store_url", "");
  p.prefix = j.value("prefix", "dd/comm/");
  p.nccl_lib = j.value("nccl_lib", "");
  p.gloo_iface = j.value("gloo_iface", "");
  p.gloo_host = j.value("gloo_host", "");
  p.fault = j.value("fault", "");
  p.register_buffers = j.value("register_buffers", false);
  p.cuda_graph = j.value("cuda_graph", false);
  return p;
}

namespace {

void emit(int fd, const nlohmann::json& j) {
  std::string s = j.dump() + "\n";
  const char* p = s.data();
  size_t left = s.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= size_t(n);
  }
}

// Parses the test hook "RANK:KIND[@OP]" and acts on it when it names one of our ranks at this point.
void maybe_fault(const std::string& fault, const std::vector<int>& ranks, const std::string& point, int op) {
  if (fault.empty()) return;
  auto colon = fault.find(':');
  if (colon == std::string::npos) return;
  int r = std::atoi(fault.substr(0, colon).c_str());
  bool mine = false;
  for (int x : ranks) mine |= x == r;
  if (!mine) return;
  std::string kind = fault.substr(colon + 1);
  int at = -1;
  if (auto a = kind.find('@'); a != std::string::npos) {
    at = std::atoi(kind.substr(a + 1).c_str());
    kind = kind.substr(0, a);
  }
  if (point == "init" && kind == "nojoin")
    for (;;) pause();
  if (point == "init" && kind == "exit") _exit(3);
  if (point == "op" && op == at && kind == "die") raise(SIGKILL);
  if (point == "op" && op == at && kind == "stall")
    for (;;) pause();
}

bool fault_matches(const std::string& fault, const std::vector<int>& ranks, const std::string& kind, int op) {
  std::string want = ":" + kind + "@" + std::to_string(op);
  auto colon = fault.find(':');
  if (colon == std::string::npos || fault.substr(colon) != want) return false;
  int r = std::atoi(fault.substr(0, colon).c_str());
  for (int x : ranks)
    if (x == r) return true;
  return false;
}

}  // namespace

int run_worker(const Plan& plan, const std::vector<int>& ranks, int fd) {
  maybe_fault(plan.fault, ranks, "init", -1);
  auto eng = make_engine(plan.engine);
  if (!eng) {
    emit(fd, {{"ev", "error"}, {"stage", "init"}, {"ranks", ranks}, {"msg", eng.error().message()}});
    return 4;
  }
  // Never destroyed: the process exits right after, and ncclCommDestroy would only add seconds.
  Engine* engine = eng->release();
  std::shared_ptr<rendezvous::Store> store_owner;
  if (plan.store_url.empty()) {
    store_owner = std::make_shared<DirStore>(plan.store_dir);
  } else {
    const char* token = std::getenv("DD_STORE_TOKEN");
    auto opened =
        rendezvous::open_store(plan.store_url, token ? token : "", rendezvous::StoreRole::kClient,
                               rendezvous::deadline_in(std::chrono::milliseconds(plan.init_timeout_ms)));
    if (!opened) {
      emit(fd, {{"ev", "error"},
                {"stage", "init"},
                {"ranks", ranks},
                {"msg", "cannot reach the store " + plan.store_url + ": " + opened.error().message()}});
      return 4;
    }
    store_owner = opened->store;
  }
  rendezvous::Store& store = *store_owner;
  EngineConfig cfg;
  cfg.world = plan.world;
  cfg.ranks = ranks;
  for (int r : ranks) cfg.devices.push_back(r < int(plan.devices.size()) ? plan.devices[r] : r);
  cfg.store = &store;
  cfg.prefix = plan.prefix;
  cfg.init_deadline = rendezvous::deadline_in(std::chrono::milliseconds(plan.init_timeout_ms));
  cfg.nccl_lib = plan.nccl_lib;
  cfg.gloo_iface = plan.gloo_iface;
  cfg.gloo_host = plan.gloo_host;
  cfg.register_buffers = plan.register_buffers;
  cfg.cuda_graph = plan.cuda_graph;
  emit(fd, {{"ev", "ready"}, {"ranks", ranks}, {"devices", cfg.devices}});
  auto st = engine->init(cfg);
  if (!st) {
    emit(fd, {{"ev", "error"}, {"stage", "init"}, {"ranks", ranks}, {"msg", st.error().message()}});
    return 4;
  }
  emit(fd, {{"ev", "init_done"}, {"ranks", ranks}, {"lib", engine->describe()}});
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    emit(fd, {{"ev", "op_start"}, {"op", i}, {"ranks", ranks}});
    maybe_fault(plan.fault, ranks, "op", int(i));
    OpRequest op = plan.ops[i];
    op.corrupt = fault_matches(plan.fault, ranks, "corrupt", int(i));
    auto res = engine->run(op);
    if (!res) {
      emit(fd,
           {{"ev", "error"}, {"stage", "op"}, {"op", i}, {"ranks", ranks}, {"msg", res.error().message()}});
      return 4;
    }
    nlohmann::json rr = nlohmann::json::array();
    for (const auto& r : *res)
      rr.push_back({{"rank", r.rank},
                    {"time_us", r.time_us},
                    {"wrong", r.wrong},
                    {"checked", r.checked},
                    {"participated", r.participated}});
    emit(fd, {{"ev", "result"}, {"op", i}, {"ranks", rr}});
  }
  emit(fd, {{"ev", "done"}, {"ranks", ranks}});
  // Leave together: a rank that exits early closes its sockets under peers still at work (Gloo aborts).
  std::vector<std::string> keys;
  for (int r = 0; r < plan.world; ++r) keys.push_back(plan.prefix + "exit/" + std::to_string(r));
  auto exit_deadline = rendezvous::deadline_in(std::chrono::seconds(10));
  for (int r : ranks) store.set(keys[r], "1", exit_deadline);
  store.wait(keys, exit_deadline);
  return 0;
}

}  // namespace dd::comm
