// The worker process: store, engine init, the ordered runs, and a common exit with the other ranks.
#include "comm/run/worker.h"

#include <algorithm>
#include <memory>

#include "comm/engine/engine.h"
#include "comm/run/op_deadline.h"
#include "comm/run/worker_events.h"
#include "comm/run/worker_fault.h"
#include "rendezvous/dir_store.h"
#include "rendezvous/open_store.h"

namespace dd::comm {

namespace {

Result<std::shared_ptr<rendezvous::Store>> open_run_store(const Plan& plan, const std::string& token) {
  if (plan.run.store_url.empty())
    return std::shared_ptr<rendezvous::Store>(new rendezvous::DirStore(plan.store_dir));
  auto deadline = rendezvous::deadline_in(plan.run.init_timeout);
  // The token is checked here: a refusal inside the engine's own rendezvous would read as an engine failure.
  auto opened = rendezvous::open_store(plan.run.store_url, token, rendezvous::StoreRole::kClient, deadline,
                                       rendezvous::OpenOptions{.verdict_at_open = true});
  if (!opened) {
    Error e = opened.error();
    e.what = "cannot reach the store " + plan.run.store_url + ": " + e.message();
    e.err = 0;
    return timeout_if_past(std::move(e), deadline);
  }
  return opened->store;
}

EngineConfig engine_config(const Plan& plan, const std::vector<int>& ranks, rendezvous::Store* store) {
  EngineConfig cfg;
  cfg.run = &plan.run;
  cfg.world = plan.world;
  cfg.ranks = ranks;
  for (int r : ranks) cfg.devices.push_back(r < int(plan.devices.size()) ? plan.devices[r] : r);
  cfg.store = store;
  cfg.init_deadline = rendezvous::deadline_in(plan.run.init_timeout);
  cfg.cuda_visible_devices = plan.cuda_visible_devices;
  cfg.own_gpu = plan.own_gpu && ranks.size() == 1;
  return cfg;
}

// Ops planned with measured deadlines get them from a small all_reduce timed here, within what is left of
// the init deadline (at least 5 s); the step is reported as an init phase.
Status measure_deadlines(Engine& engine, std::vector<OpRequest>& ops, int world,
                         rendezvous::Deadline init_deadline) {
  if (std::none_of(ops.begin(), ops.end(), [](const OpRequest& o) { return o.measured_deadline; }))
    return ok_status();
  const auto t0 = rendezvous::Clock::now();
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(init_deadline - t0);
  auto res = engine.run(speed_probe_op(std::max(left, std::chrono::milliseconds(5000))));
  if (!res) return res.error();
  double probe_s = 0;
  for (const auto& rr : *res) probe_s = std::max(probe_s, rr.time_us * 1e-6);
  for (auto& o : ops)
    if (o.measured_deadline) {
      o.timeout = measured_deadline(o, world, probe_s);
      o.run_timeout = measured_run_deadline(o, world, probe_s);
    }
  engine.init_phases.emplace_back("link speed warm-up (sets the op deadlines)", seconds_since(t0));
  return ok_status();
}

// How often a worker tells its supervisor that the runs of a long op still complete.
constexpr auto kProgressEvery = std::chrono::milliseconds(500);

// Runs every op in order, one result event each; false after an error event. While an op runs, the engine's
// completed runs go out as progress events (at most one per kProgressEvery), so the supervisor bounds each
// run, not the whole op.
bool run_ops(Engine& engine, const Plan& plan, const std::vector<OpRequest>& ops,
             const std::vector<int>& ranks, int fd) {
  size_t cur = 0;
  auto last_sent = std::chrono::steady_clock::now();
  engine.on_progress = [&](int runs) {
    if (std::chrono::steady_clock::now() - last_sent < kProgressEvery) return;
    last_sent = std::chrono::steady_clock::now();
    emit_event(fd, {{"ev", "progress"}, {"op", cur}, {"runs", runs}, {"ranks", ranks}});
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    cur = i;
    nlohmann::json start = {
        {"ev", "op_start"}, {"op", i}, {"ranks", ranks}, {"timeout_ms", ops[i].timeout.count()}};
    if (ops[i].run_timeout.count() > 0 && engine.reports_progress(ops[i]))
      start["run_timeout_ms"] = ops[i].run_timeout.count();
    emit_event(fd, start);
    maybe_fault(plan.run.fault, ranks, "op", int(i));
    emit_event(fd, {{"ev", "op_enter"}, {"op", i}, {"ranks", ranks}});  // about to call the collective
    OpRequest op = ops[i];
    op.corrupt = fault_matches(plan.run.fault, ranks, "corrupt", int(i));
    const auto op_began = std::chrono::steady_clock::now();
    auto res = engine.run(op);
    if (!res) {
      emit_event(fd, error_event(ranks, "op", int(i), res.error()));
      return false;
    }
    const double wall_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - op_began).count();
    for (auto& rr : *res) rr.wall_us = wall_us;
    emit_event(fd, result_event(int(i), *res));
  }
  return true;
}

// Leave together: a rank that exits early closes its sockets under peers still at work (Gloo aborts).
void leave_together(rendezvous::Store& store, const Plan& plan, const std::vector<int>& ranks) {
  std::vector<std::string> keys;
  for (int r = 0; r < plan.world; ++r) keys.push_back(plan.run.store_prefix + "exit/" + std::to_string(r));
  const auto exit_deadline = rendezvous::deadline_in(std::chrono::seconds(10));
  for (int r : ranks) store.set(keys[r], "1", exit_deadline);
  store.wait(keys, exit_deadline);
}

}  // namespace

int run_worker(const Plan& plan, const std::vector<int>& ranks, const std::string& store_token, int fd) {
  maybe_fault(plan.run.fault, ranks, "init", -1);
  auto eng = make_engine(plan.run.engine);
  if (!eng) {
    emit_event(fd, error_event(ranks, "init", -1, eng.error()));
    return 4;
  }
  // Never destroyed: the process exits right after, and ncclCommDestroy would only add seconds.
  Engine* engine = eng->release();
  auto store = open_run_store(plan, store_token);
  if (!store) {
    emit_event(fd, error_event(ranks, "init", -1, store.error()));
    return 4;
  }
  EngineConfig cfg = engine_config(plan, ranks, store->get());
  emit_event(fd, {{"ev", "ready"}, {"ranks", ranks}, {"devices", cfg.devices}});
  std::vector<OpRequest> ops = plan.run.ops;
  if (auto st = engine->init(cfg);
      !st || !(st = measure_deadlines(*engine, ops, plan.world, cfg.init_deadline))) {
    emit_event(fd, error_event(ranks, "init", -1, st.error()));
    return 4;
  }
  nlohmann::json phases = nlohmann::json::array();
  for (const auto& [name, s] : engine->init_phases) phases.push_back({name, s});
  emit_event(fd, {{"ev", "init_done"}, {"ranks", ranks}, {"lib", engine->describe()}, {"phases", phases}});
  if (!run_ops(*engine, plan, ops, ranks, fd)) return 4;
  emit_event(fd, {{"ev", "done"}, {"ranks", ranks}});
  leave_together(**store, plan, ranks);
  emit_event(fd, {{"ev", "left"}, {"ranks", ranks}});  // what follows is process exit (--timing)
  return 0;
}

}  // namespace dd::comm
