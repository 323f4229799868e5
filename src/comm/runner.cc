// run_collectives: spawns and watches the workers, aggregates their results, names what went wrong.
#include "comm/runner.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "comm/plan.h"
#include "launch/worker_supervisor.h"
#include "rendezvous/open_store.h"

namespace dd::comm {

using report::Finding;
using report::Severity;

int visible_gpu_count() {
  if (const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::string s = cvd;
    if (s.empty() || s == "-1" || s == "none" || s == "NoDevFiles") return 0;
    int n = 1;
    for (char c : s) n += c == ',';
    return n;
  }
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", ec)) {
    (void)e;
    ++n;
  }
  if (n > 0) return n;
  for (int i = 0; i < 64; ++i)
    if (::access(("/dev/nvidia" + std::to_string(i)).c_str(), F_OK) == 0) ++n;
  return n;
}

ErrorCause classify_comm_error(const std::string& msg, const std::vector<std::string>& warnings) {
  std::string all = msg;
  for (const auto& w : warnings) all += "\n" + w;
  auto has = [&](const char* s) { return all.find(s) != std::string::npos; };
  if (has("Duplicate GPU detected"))
    return {
        "comm.gpu.duplicate",
        "Two ranks share one GPU. Give each rank its own device (torch.cuda.set_device(LOCAL_RANK), or one "
        "CUDA_VISIBLE_DEVICES entry per process) and start no more ranks per node than GPUs."};
  if (has("GPU(s) are visible") || has("invalid device ordinal"))
    return {
        "comm.gpu.too_few",
        "More ranks than visible GPUs on this node: widen CUDA_VISIBLE_DEVICES or lower --nproc-per-node."};
  if (has("no socket interface") || has("No socket interface") || has("NCCL_SOCKET_IFNAME") ||
      has("no usable bootstrap interface"))
    return {"comm.net.no_interface",
            "NCCL found no network interface to use. Set NCCL_SOCKET_IFNAME to an interface that exists and "
            "is up "
            "on every node (see `ip -br addr`), or unset it."};
  if (has("cannot load NCCL"))
    return {"comm.nccl.missing",
            "Install NCCL (libnccl2) or pass --nccl-lib with the libnccl.so.2 your framework uses."};
  if (has("cudaGetDeviceCount") || has("CUDA driver") || has("no CUDA-capable device"))
    return {"comm.cuda.unavailable",
            "The CUDA driver or GPUs are not usable here; see the gpu findings of `check`."};
  if (has("Connection refused") || has("Connection timed out") || has("connectFullMesh") || has("Socket"))
    return {"comm.net.connect",
            "Ranks could not connect to each other: check firewalls and the interface chosen."};
  return {"comm.error",
          "Read the NCCL warnings in the evidence; rerun with NCCL_DEBUG=INFO for the full log."};
}

namespace {

struct RankState {
  bool ready = false, init_done = false, done = false;
  int last_op = -1;
  std::string error;
  std::string error_stage;
  int worker = -1;
};

bool is_timeout(const std::string& msg) {
  return msg.find("deadline") != std::string::npos || msg.find("imed out") != std::string::npos;
}

std::string human_bytes(uint64_t b) {
  const char* u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  double v = double(b);
  while (v >= 1024 && i < 4 && std::fmod(v, 1024) == 0) {
    v /= 1024;
    ++i;
  }
  char buf[32];
  snprintf(buf, sizeof buf, "%g %s", v, u[i]);
  return buf;
}

std::string op_label(const OpRequest& r) {
  std::string s =
      std::string(coll_info(r.coll).name) + " " + human_bytes(r.bytes) + " " + dtype_name(r.dtype);
  if (r.pair_a >= 0) s += " (ranks " + std::to_string(r.pair_a) + "<->" + std::to_string(r.pair_b) + ")";
  if (r.in_place) s += " in-place";
  return s;
}

std::string join_ranks(const std::vector<int>& v) {
  std::string s;
  for (int r : v) s += (s.empty() ? "" : ", ") + std::to_string(r);
  return s;
}

std::string tail_of_file(const std::string& path, size_t max_lines) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  std::string l;
  while (std::getline(in, l)) {
    if (l.empty()) continue;
    lines.push_back(l);
    if (lines.size() > max_lines) lines.erase(lines.begin());
  }
  std::string s;
  for (auto& x : lines) s += (s.empty() ? "" : " | ") + x;
  return s;
}

}  // namespace

RunOutcome run_collectives(const RunOptions& opt) {
  auto t0 = rendezvous::Clock::now();
  RunOutcome out;
  const int nlocal = opt.nproc > 0 ? opt.nproc : (opt.engine == "nccl" ? visible_gpu_count() : 2);
  const int world = opt.world > 0 ? opt.world : nlocal;
  const int first = opt.first_rank;
  std::vector<int> local;  // global ranks run on this node
  for (int i = 0; i < nlocal; ++i) local.push_back(first + i);
  out.world = world;
  auto fail = [&](std::string id, std::string title, std::vector<std::string> ev, std::string fix,
                  int rank = -1) {
    Finding f;
    f.id = std::move(id);
    f.severity = Severity::fail;
    f.title = std::move(title);
    f.evidence = std::move(ev);
    f.fix = std::move(fix);
    f.rank = rank;
    f.area = "comm";
    out.findings.push_back(std::move(f));
  };
  if (nlocal <= 0 || first < 0 || first + nlocal > world) {
    fail("comm.gpu.none", "No GPU visible for the NCCL collective test", {},
         "Run on a GPU node, or use --engine gloo.");
    return out;
  }
  if (opt.engine == "nccl" && std::getenv("CUDA_VISIBLE_DEVICES")) {
    int vis = visible_gpu_count();
    int need = 0;
    for (int i = 0; i < nlocal; ++i)
      need = std::max(need, 1 + (i < int(opt.devices.size()) ? opt.devices[i] : i));
    if (need > vis) {
      fail("comm.gpu.too_few",
           std::to_string(nlocal) + " ranks need " + std::to_string(need) +
               " GPUs but CUDA_VISIBLE_DEVICES shows " + std::to_string(vis),
           {std::string("CUDA_VISIBLE_DEVICES=") + std::getenv("CUDA_VISIBLE_DEVICES")},
           classify_comm_error("GPU(s) are visible", {}).fix);
      return out;
    }
  }
  std::optional<rendezvous::OpenedStore> served;  // kept alive until the run ends
  if (opt.store_master && !opt.store_url.empty()) {
    auto o = rendezvous::open_store(opt.store_url, opt.store_token, rendezvous::StoreRole::kMaster,
                                    t0 + opt.init_timeout);
    if (!o) {
      fail("comm.error", "cannot serve the store " + opt.store_url, {o.error().message()},
           "Pick a free port on an address of this node.");
      return out;
    }
    served = std::move(*o);
  }
  char tmpl[] = "/tmp/distdoctor-comm-XXXXXX";
  if (!::mkdtemp(tmpl)) {
    fail("comm.error", "cannot create a temporary directory", {std::strerror(errno)}, "");
    return out;
  }
  const std::string dir = tmpl;
  std::filesystem::create_directory(dir + "/store");
  Plan plan;
  plan.engine = opt.engine;
  plan.world = world;
  plan.devices.assign(world, 0);  // indexed by global rank; this node's ranks use local devices 0..nlocal-1
  for (int i = 0; i < nlocal; ++i) plan.devices[first + i] = i < int(opt.devices.size()) ? opt.devices[i] : i;
  plan.store_url = opt.store_url;
  plan.prefix = opt.store_prefix;
  plan.ops = opt.ops;
  plan.init_timeout_ms = opt.init_timeout.count();
  plan.store_dir = dir + "/store";
  plan.nccl_lib = opt.nccl_lib;
  plan.gloo_iface = opt.gloo_iface;
  plan.gloo_host = opt.gloo_host;
  plan.fault = opt.fault;
  plan.register_buffers = opt.register_buffers;
  plan.cuda_graph = opt.cuda_graph;
  const std::string plan_path = dir + "/plan.json";
  std::ofstream(plan_path) << plan_to_json(plan).dump();

  std::string exe = opt.self_exe;
  if (exe.empty()) {
    std::error_code ec;
    exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  }
  std::vector<std::vector<int>> groups;  // ranks per worker
  if (opt.threads) {
    groups.push_back(local);
  } else {
    for (int r : local) groups.push_back({r});
  }
  std::vector<launch::WorkerSpec> specs;
  for (size_t w = 0; w < groups.size(); ++w) {
    launch::WorkerSpec s;
    std::string ranks;
    for (int r : groups[w]) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
    for (std::string a : opt.wrap) {
      for (size_t p; (p = a.find("{rank}")) != std::string::npos;)
        a.replace(p, 6, std::to_string(groups[w][0]));
      s.argv.push_back(a);
    }
    for (const char* a : {exe.c_str(), "bench", "--as-worker", plan_path.c_str(), "--worker-ranks"})
      s.argv.push_back(a);
    s.argv.push_back(ranks);
    if (s.argv[0].find('/') == std::string::npos) s.argv.insert(s.argv.begin(), "/usr/bin/env");
    s.log_path = dir + "/worker." + std::to_string(w) + ".log";
    if (opt.engine == "nccl" && opt.capture_nccl_log) {
      if (!std::getenv("NCCL_DEBUG")) s.env.push_back({"NCCL_DEBUG", "INFO"});
      if (!std::getenv("NCCL_DEBUG_SUBSYS")) s.env.push_back({"NCCL_DEBUG_SUBSYS", "INIT,NET,GRAPH,ENV"});
      s.env.push_back({"NCCL_DEBUG_FILE", dir + "/nccl." + std::to_string(w) + ".%p.log"});
    }
    for (const auto& kv : opt.env) s.env.push_back(kv);
    if (!opt.store_token.empty()) s.env.push_back({"DD_STORE_TOKEN", opt.store_token});
    specs.push_back(std::move(s));
  }

  std::vector<RankState> st(world);
  for (size_t w = 0; w < groups.size(); ++w)
    for (int r : groups[w]) st[r].worker = int(w);
  std::map<int, std::map<int, RankResult>> results;  // op -> rank -> result
  out.ops.resize(opt.ops.size());
  for (size_t i = 0; i < opt.ops.size(); ++i) out.ops[i].req = opt.ops[i];

  launch::WorkerSupervisor sup;
  if (auto s = sup.start(specs); !s) {
    fail("comm.error", "cannot start worker processes", {s.error().message()}, "");
    return out;
  }
  auto total = opt.init_timeout + std::chrono::milliseconds(3000);
  for (const auto& o : opt.ops) total += o.timeout;
  rendezvous::Deadline deadline = t0 + total;
  std::optional<rendezvous::Clock::time_point> first_trouble;
  int died_worker = -1;

  auto on_line = [&](int w, const std::string& line) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (...) {
      return;
    }
    std::string ev = j.value("ev", "");
    if (ev == "result") {
      int op = j.value("op", -1);
      for (const auto& r : j["ranks"]) {
        RankResult rr;
        rr.rank = r.value("rank", -1);
        rr.time_us = r.value("time_us", 0.0);
        rr.wrong = r.value("wrong", int64_t(0));
        rr.checked = r.value("checked", int64_t(0));
        rr.participated = r.value("participated", true);
        if (rr.rank >= 0 && rr.rank < world) results[op][rr.rank] = rr;
      }
      return;
    }
    std::vector<int> ranks;
    if (j.contains("ranks") && j["ranks"].is_array())
      for (const auto& x : j["ranks"])
        if (x.is_number_integer()) ranks.push_back(x.get<int>());
    for (int r : ranks) {
      if (r < 0 || r >= world) continue;
      if (ev == "ready") st[r].ready = true;
      if (ev == "init_done") {
        st[r].init_done = true;
        out.library = j.value("lib", "");
      }
      if (ev == "op_start") st[r].last_op = j.value("op", -1);
      if (ev == "done") st[r].done = true;
      if (ev == "error") {
        st[r].error = j.value("msg", "");
        st[r].error_stage = j.value("stage", "");
        if (!first_trouble) first_trouble = rendezvous::Clock::now();
      }
    }
  };
  // The first worker to die abnormally is the cause; Gloo peers abort (SIGABRT) when a connection
  // drops, so an abort right after another death, or after another rank's error, is a consequence.
  rendezvous::Clock::time_point died_at;
  auto aborted = [&](int w) {
    int s = sup.workers()[w].wait_status;
    return WIFSIGNALED(s) && WTERMSIG(s) == SIGABRT;
  };
  auto on_exit = [&](int w) {
    const auto& ws = sup.workers()[w];
    bool clean = WIFEXITED(ws.wait_status) && WEXITSTATUS(ws.wait_status) == 0;
    bool had_error = false;
    for (int r : groups[w]) had_error |= !st[r].error.empty();
    auto now = rendezvous::Clock::now();
    if (!clean && !had_error) {
      if (died_worker < 0 && !(first_trouble && aborted(w))) {
        died_worker = w;
        died_at = now;
      } else if (died_worker >= 0 && aborted(died_worker) && !aborted(w) &&
                 now - died_at < std::chrono::milliseconds(100)) {
        died_worker = w;
      }
    }
    if (!clean && !first_trouble) first_trouble = now;
  };
  auto stop = [&]() {
    if (died_worker >= 0)  // a dead worker: stop the others at once (after 100 ms if it only aborted,
      return !aborted(died_worker) ||  // to see whether another rank's death caused that)
             rendezvous::Clock::now() - died_at > std::chrono::milliseconds(100);
    return first_trouble && rendezvous::Clock::now() > *first_trouble + std::chrono::milliseconds(300);
  };
  bool finished = sup.watch(deadline, on_line, on_exit, stop);
  std::vector<bool> alive_at_stop;
  for (const auto& w : sup.workers()) alive_at_stop.push_back(!w.exited);
  sup.stop_all();

  if (opt.engine == "nccl" && opt.capture_nccl_log) out.nccl_log = parse_nccl_log_dir(dir);
  const auto& warns = out.nccl_log.warnings;
  std::vector<std::string> warn_ev;
  for (size_t i = 0; i < warns.size() && i < 6; ++i) warn_ev.push_back("NCCL WARN " + warns[i]);

  // Aggregate per-op results.
  bool all_complete = true;
  for (size_t i = 0; i < out.ops.size(); ++i) {
    OpOutcome& o = out.ops[i];
    const auto& m = results[int(i)];
    o.complete = int(m.size()) == nlocal;
    all_complete &= o.complete;
    for (const auto& [r, rr] : m) {
      o.ranks.push_back(rr);
      if (!rr.participated) continue;
      o.time_us = std::max(o.time_us, rr.time_us);
      o.wrong += rr.wrong;
    }
    const CollInfo& ci = coll_info(o.req.coll);
    Sizing s = ci.size(o.req.bytes, dtype_size(o.req.dtype), world, 0);
    o.bytes = s.bytes;
    if (o.complete && o.time_us > 0) {
      o.algbw = algbw_gbps(o.bytes, o.time_us * 1e-6);
      o.busbw = o.algbw * (o.req.pair_a >= 0 ? 1.0 : ci.busbw_factor(world));
    }
    if (o.wrong > 0) {
      std::vector<std::string> ev;
      for (const auto& rr : o.ranks)
        if (rr.wrong > 0)
          ev.push_back("rank " + std::to_string(rr.rank) + ": " + std::to_string(rr.wrong) + " of " +
                       std::to_string(rr.checked) + " elements wrong");
      fail("comm.data.wrong", op_label(o.req) + " returned wrong data", ev,
           "Wrong results with no error usually mean faulty GPU memory, a broken link or a NCCL bug: run "
           "`distdoctor bench` on subsets of GPUs to isolate it, check ECC/Xid errors, and try another NCCL "
           "version.");
    }
  }

  // Name what went wrong.
  std::vector<int> not_ready, not_init, errored;
  for (int r : local) {
    if (!st[r].ready) not_ready.push_back(r);
    if (!st[r].init_done) not_init.push_back(r);
    if (!st[r].error.empty()) errored.push_back(r);
  }
  const std::string eng = opt.engine == "nccl" ? "NCCL" : "Gloo";
  if (died_worker >= 0) {
    const auto& ws = sup.workers()[died_worker];
    int r = groups[died_worker][0];
    std::string during = st[r].last_op >= 0 ? "during " + op_label(opt.ops[st[r].last_op])
                                            : (st[r].init_done ? "after init" : "during communicator init");
    std::string tail = tail_of_file(specs[died_worker].log_path, 3);
    std::vector<std::string> ev = {"pid " + std::to_string(ws.pid) + ", " +
                                   launch::describe_wait_status(ws.wait_status)};
    if (!tail.empty()) ev.push_back("its last output: " + tail);
    if (opt.engine == "gloo" && WIFSIGNALED(ws.wait_status) && WTERMSIG(ws.wait_status) == SIGABRT &&
        !st[r].init_done)
      ev.push_back(
          "Gloo aborts a process that cannot connect to a peer: check that the interface (" +
          (opt.gloo_iface.empty() ? std::string("GLOO_SOCKET_IFNAME or --gloo-host") : opt.gloo_iface) +
          ") is up on every node and routes to the other ranks");
    ev.push_back("the other ranks were stopped");
    fail(
        "comm.worker.died",
        "rank " + join_ranks(groups[died_worker]) + " died (" + launch::describe_wait_status(ws.wait_status) +
            ") " + during,
        ev,
        "A rank that dies takes the whole job down: look at its log (OOM killer: dmesg; Xid errors; a signal "
        "sent by the scheduler).",
        r);
  }
  for (int r : errored) {
    if (died_worker >= 0) break;  // the others' errors are consequences
    auto cause = classify_comm_error(st[r].error, warns);
    std::string where =
        st[r].error_stage == "init"
            ? eng + " communicator init failed on rank " + std::to_string(r)
            : op_label(opt.ops[std::max(0, st[r].last_op)]) + " failed on rank " + std::to_string(r);
    std::vector<std::string> ev = {st[r].error};
    for (auto& w : warn_ev) ev.push_back(w);
    // A stalled rank: alive, no error, no result for the op the others gave up on.
    std::vector<int> stalled, never;  // only a timeout makes the silent ranks suspects
    const bool timed_out = is_timeout(st[r].error);
    for (int q : local) {
      if (!timed_out) break;
      if (!st[q].error.empty() || st[q].done || !alive_at_stop[st[q].worker]) continue;
      (st[q].ready ? stalled : never).push_back(q);
    }
    if (!never.empty()) ev.push_back("rank(s) " + join_ranks(never) + " never joined (started, no answer)");
    if (!stalled.empty())
      ev.push_back("rank(s) " + join_ranks(stalled) + " stalled: alive, last seen " +
                   (st[stalled[0]].last_op >= 0
                        ? "starting " + op_label(opt.ops[st[stalled[0]].last_op])
                        : std::string(st[stalled[0]].init_done ? "after init" : "in init")));
    std::string id = cause.id;
    if (id == "comm.error" && timed_out)
      id = st[r].error_stage == "init" ? "comm.init.timeout" : "comm.op.timeout";
    std::string title = where;
    if (id == "comm.net.no_interface" && std::getenv("NCCL_SOCKET_IFNAME"))
      title += ": NCCL_SOCKET_IFNAME=" + std::string(std::getenv("NCCL_SOCKET_IFNAME")) +
               " matches no usable interface";
    else if (id == "comm.gpu.duplicate")
      title += ": two ranks on the same GPU (Duplicate GPU detected)";
    if (!never.empty())
      title += ": rank(s) " + join_ranks(never) + " never joined";
    else if (!stalled.empty())
      title += ": rank(s) " + join_ranks(stalled) + " stalled";
    fail(id, title, ev, cause.fix, r);
    break;  // one finding for the root cause; the others' errors are in the evidence of later runs
  }
  if (!finished && died_worker < 0 && errored.empty()) {
    std::vector<std::string> ev;
    std::vector<int> stuck;
    for (int r : local)
      if (!st[r].done) stuck.push_back(r);
    if (!not_ready.empty()) ev.push_back("never joined: rank(s) " + join_ranks(not_ready));
    if (!not_init.empty()) ev.push_back("did not finish communicator init: rank(s) " + join_ranks(not_init));
    for (int r : stuck)
      if (st[r].last_op >= 0)
        ev.push_back("rank " + std::to_string(r) + " last started " + op_label(opt.ops[st[r].last_op]));
    for (auto& w : warn_ev) ev.push_back(w);
    fail(not_init.empty() ? "comm.op.timeout" : "comm.init.timeout",
         eng + " test did not finish within " + std::to_string(total.count() / 1000) + " s: rank(s) " +
             join_ranks(stuck) + " did not finish",
         ev,
         "A rank that never joins or stalls hangs every other rank: check that all ranks start, reach each "
         "other (firewall, NCCL_SOCKET_IFNAME), and are not stuck in their own code.");
  }
  for (size_t w = 0; w < groups.size() && died_worker < 0 && errored.empty() && finished; ++w) {
    const auto& ws = sup.workers()[w];
    if (!(WIFEXITED(ws.wait_status) && WEXITSTATUS(ws.wait_status) == 0))
      fail("comm.worker.died",
           "worker of rank " + join_ranks(groups[w]) + " ended with " +
               launch::describe_wait_status(ws.wait_status),
           {tail_of_file(specs[w].log_path, 3)}, "");
  }
  out.ok = out.findings.empty() && all_complete;
  out.wall_s = std::chrono::duration<double>(rendezvous::Clock::now() - t0).count();
  if (!std::getenv("DD_KEEP_TMP")) std::filesystem::remove_all(dir);
  return out;
}

}  // namespace dd::comm
