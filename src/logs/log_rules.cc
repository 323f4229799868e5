// Cross-rank rules over what the logs say: ranks that never finished init, ranks that disagree (transport,
// interface, NCCL version, collective counts), suspicious interfaces, and the framework failure summaries.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "logs/analyze.h"
#include "rules/rule_util.h"

namespace dd::logs {

namespace {

using report::Finding;
using report::Severity;

Finding make(const char* id, Severity sev, std::string title, std::string fix) {
  Finding f;
  f.id = id;
  f.severity = sev;
  f.title = std::move(title);
  f.fix = std::move(fix);
  f.area = "logs";
  return f;
}

// Groups processes by a value; returns a finding when not all agree (minority groups listed first).
void disagreement(const LogsResult& r, std::vector<Finding>& out, const char* id, Severity sev,
                  const char* what, std::string (*value)(const ProcessFacts&), const char* fix) {
  std::map<std::string, std::vector<const ProcessFacts*>> groups;
  for (const auto& p : r.processes) {
    std::string v = value(p);
    if (!v.empty()) groups[v].push_back(&p);
  }
  if (groups.size() < 2) return;
  std::vector<std::pair<std::string, std::vector<const ProcessFacts*>>> g(groups.begin(), groups.end());
  std::sort(g.begin(), g.end(), [](auto& a, auto& b) { return a.second.size() < b.second.size(); });
  Finding f = make(id, sev, fmt::format("Ranks disagree on {}: {}", what, g.front().first), fix);
  for (const auto& [v, ps] : g) {
    std::string who;
    for (size_t i = 0; i < ps.size() && i < 8; ++i) who += (i ? ", " : "") + ps[i]->label();
    if (ps.size() > 8) who += fmt::format(", … ({} in all)", ps.size());
    f.evidence.push_back(fmt::format("{} = {}: {}", what, v, who));
  }
  if (g.front().second.size() == 1) f.rank = g.front().second[0]->rank;
  out.push_back(std::move(f));
}

// " (invalid usage)" for a trace line ending in "-> 5" (ncclResult_t values from nccl.h).
std::string nccl_result_name(const std::string& trace) {
  static const char* names[] = {"success",          "unhandled cuda error", "system error", "internal error",
                                "invalid argument", "invalid usage",        "remote error", "in progress"};
  size_t k = trace.find("-> ");
  if (k == std::string::npos || k + 3 >= trace.size()) return "";
  int v = trace[k + 3] - '0';
  if (v < 0 || v > 7 || (k + 4 < trace.size() && trace[k + 4] >= '0' && trace[k + 4] <= '9')) return "";
  return std::string(" (") + names[v] + ")";
}

bool bad_iface(const std::string& n) { return rules::iface_name_is_local_only(n); }

void init_rules(const LogsResult& r, std::vector<Finding>& out) {
  Finding never =
      make("logs.init.incomplete", Severity::fail, "",
           "Look at these ranks' last lines and first WARN: they stopped during NCCL init (a peer that never "
           "arrived, a network that cannot connect, or a crash). Every rank must call init with the same "
           "world size and rendezvous.");
  Finding partial =
      make("logs.init.partial", Severity::warn, "",
           "A communicator began init but its Init COMPLETE is missing: the job stopped (or the log was cut) "
           "while creating it. Check that every rank creates the same process groups in the same order.");
  for (const auto& p : r.processes) {
    if (p.nccl_lines == 0) continue;
    bool started = p.comm_inits > 0 || !p.bootstrap_if.empty() || !p.nccl_version.empty() || p.warns > 0;
    if (p.init_complete == 0 && started) {
      std::string ev =
          fmt::format("{} in {}: no Init COMPLETE; last NCCL line {}", p.label(), p.file, p.last_at.line);
      if (!p.first_warn.empty())
        ev += fmt::format("; first WARN at line {}: {}", p.first_warn_at.line, p.first_warn);
      if (!p.error_trace.empty())
        ev += "; NCCL error trace: " + p.error_trace[0] + nccl_result_name(p.error_trace[0]);
      for (const auto& f : r.files)
        if (f.path == p.file && !f.error.empty())
          ev += " (this file could not be read to its end: " + f.error + ")";
      never.evidence.push_back(std::move(ev));
      if (never.evidence.size() == 1)
        never.rank = p.rank;
      else
        never.rank = -1;
    } else if (p.init_complete > 0 && p.comm_inits > p.init_complete) {
      partial.evidence.push_back(fmt::format("{}: {} communicator init(s) started, {} completed", p.label(),
                                             p.comm_inits, p.init_complete));
    }
  }
  size_t complete = 0;
  for (const auto& p : r.processes) complete += p.init_complete > 0 ? 1 : 0;
  if (never.evidence.empty() && complete > 0)
    out.push_back(make("logs.init.complete", Severity::ok,
                       fmt::format("All {} NCCL process(es) reached Init COMPLETE", complete), ""));
  if (!never.evidence.empty()) {
    never.title = fmt::format("{} process(es) never reached NCCL Init COMPLETE", never.evidence.size());
    out.push_back(std::move(never));
  }
  if (!partial.evidence.empty()) {
    partial.title =
        fmt::format("{} process(es) have a communicator init without Init COMPLETE", partial.evidence.size());
    out.push_back(std::move(partial));
  }
}

void net_rules(const LogsResult& r, std::vector<Finding>& out) {
  disagreement(
      r, out, "logs.net.transport_mismatch", Severity::warn, "network transport",
      [](const ProcessFacts& p) { return p.network; },
      "All ranks should use the same inter-node network (e.g. all IB). A rank on Socket is usually missing "
      "IB devices/drivers in its container, or has NCCL_IB_DISABLE / NCCL_NET set differently.");
  disagreement(
      r, out, "logs.net.plugin_mismatch", Severity::warn, "net plugin",
      [](const ProcessFacts& p) { return p.net_plugin; },
      "Install the same NCCL net plugin (or none) on every node; set NCCL_NET_PLUGIN the same everywhere.");
  disagreement(
      r, out, "logs.nccl.version_mismatch", Severity::fail, "NCCL version",
      [](const ProcessFacts& p) { return p.nccl_version; },
      "Use one NCCL build on all nodes (same framework wheel or container image); mixed versions can hang "
      "or fail in init.");
  disagreement(
      r, out, "logs.cuda.driver_mismatch", Severity::warn, "CUDA driver version",
      [](const ProcessFacts& p) { return p.cuda_driver > 0 ? std::to_string(p.cuda_driver) : std::string(); },
      "Nodes run different NVIDIA drivers; align them to rule out driver-specific behaviour.");
  disagreement(
      r, out, "logs.net.gdr_mismatch", Severity::info, "GPU Direct RDMA",
      [](const ProcessFacts& p) { return p.gdr < 0 ? std::string()
                                         : p.gdr   ? "on"
                                                   : "off"; }, "");
  // Bootstrap interface names: only compare across processes that printed one.
  disagreement(
      r, out, "logs.net.bootstrap_if_mismatch", Severity::warn, "bootstrap interface",
      [](const ProcessFacts& p) { return p.bootstrap_if; },
      "Set NCCL_SOCKET_IFNAME to the interface (or a prefix) that every node has and that routes between "
      "nodes, e.g. NCCL_SOCKET_IFNAME=eth0 or =ib0.");

  Finding bad =
      make("logs.net.bad_interface", Severity::warn, "",
           "NCCL picked a loopback/container-bridge interface. Set NCCL_SOCKET_IFNAME to the real data "
           "interface (e.g. =eth0 or =^docker,lo to exclude) on every node.");
  Finding bond = make("logs.net.bond_interface", Severity::info, "NCCL uses a bonded interface", "");
  Finding sock =
      make("logs.net.socket_with_ib", Severity::warn, "",
           "IB devices were found but NCCL used TCP sockets: check NCCL_IB_DISABLE, NCCL_NET, NCCL_IB_HCA, "
           "and that the container has /dev/infiniband and the rdma libraries (libibverbs).");
  for (const auto& p : r.processes) {
    std::vector<std::string> ifs;
    if (!p.bootstrap_if.empty()) ifs.push_back(p.bootstrap_if);
    if (p.network == "Socket")
      for (const auto& d : p.net_devices) ifs.push_back(d.substr(0, d.find(':')));
    std::set<std::string> seen;
    for (const auto& n : ifs) {
      if (!seen.insert(n).second) continue;
      if (bad_iface(n)) bad.evidence.push_back(fmt::format("{}: {}", p.label(), n));
      if (n.rfind("bond", 0) == 0) bond.evidence.push_back(fmt::format("{}: {}", p.label(), n));
    }
    if (p.network == "Socket" && !p.ib_devices.empty()) {
      std::string devs;
      for (const auto& d : p.ib_devices) devs += (devs.empty() ? "" : " ") + d;
      sock.evidence.push_back(
          fmt::format("{}: Using network Socket; IB devices listed: {}", p.label(), devs));
    }
  }
  if (!bad.evidence.empty()) {
    bad.title = fmt::format("NCCL uses a loopback/docker interface on {} process(es)", bad.evidence.size());
    out.push_back(std::move(bad));
  }
  if (!bond.evidence.empty()) out.push_back(std::move(bond));
  if (!sock.evidence.empty()) {
    sock.title = fmt::format("NCCL fell back to Socket although IB devices exist ({} process(es))",
                             sock.evidence.size());
    out.push_back(std::move(sock));
  }
}

void coll_rules(const LogsResult& r, std::vector<Finding>& out) {
  std::vector<const ProcessFacts*> ps;
  std::set<std::string> ops;
  for (const auto& p : r.processes)
    if (!p.coll_counts.empty()) {
      ps.push_back(&p);
      for (const auto& [op, n] : p.coll_counts) ops.insert(op);
    }
  if (ps.size() < 2) return;
  Finding f =
      make("logs.coll.desync", Severity::fail, "",
           "Ranks issued different numbers of collectives: some code path (a data-dependent branch, an "
           "uneven last batch, a rank-0-only call) runs a collective on some ranks only. The job hangs "
           "at the first unmatched call. TORCH_DISTRIBUTED_DEBUG=DETAIL reports the mismatching op. (Logs "
           "cut at different "
           "moments, e.g. a job killed mid-step, also differ by the few calls in flight.)");
  for (const auto& op : ops) {
    // Point-to-point counts differ by design between pipeline stages: only collectives must agree.
    if (op == "Send" || op == "Recv") continue;
    std::map<uint64_t, std::vector<const ProcessFacts*>> by;
    for (const auto* p : ps) {
      auto it = p->coll_counts.find(op);
      by[it == p->coll_counts.end() ? 0 : it->second].push_back(p);
    }
    if (by.size() < 2) continue;
    std::string ev = op + ":";
    for (const auto& [n, who] : by) {
      ev += fmt::format(" {} call(s) on", n);
      for (size_t i = 0; i < who.size() && i < 6; ++i) ev += (i ? ", " : " ") + who[i]->label();
      if (who.size() > 6) ev += fmt::format(" … ({} in all)", who.size());
      ev += ";";
    }
    f.evidence.push_back(ev);
  }
  // With --iteration-pattern: the first iteration where the counts split.
  size_t iters = SIZE_MAX;
  for (const auto* p : ps) iters = std::min(iters, p->iterations.size());
  if (iters != SIZE_MAX && iters > 0) {
    for (size_t it = 0; it < iters; ++it) {
      const auto& ref = ps[0]->iterations[it];
      for (const auto* p : ps) {
        if (p->iterations[it] == ref) continue;
        auto show = [](const OpCounts& m) {
          std::string s;
          for (const auto& [op, n] : m) s += fmt::format("{}{}={}", s.empty() ? "" : " ", op, n);
          return s.empty() ? std::string("none") : s;
        };
        f.evidence.insert(f.evidence.begin(),
                          fmt::format("first differing iteration: #{} ({}: {} vs {}: {})", it + 1,
                                      ps[0]->label(), show(ref), p->label(), show(p->iterations[it])));
        if (f.evidence.size() == 1)
          f.evidence.push_back("(per-op totals agree; the order within iterations differs)");
        it = iters;
        break;
      }
    }
  }
  if (f.evidence.empty()) return;
  f.title = fmt::format("Collective counts differ between ranks ({} op type(s)): the job is desynchronised",
                        f.evidence.size());
  out.push_back(std::move(f));
}

void framework_rules(const LogsResult& r, std::vector<Finding>& out) {
  // Watchdog: who timed out on what, and which rank is furthest behind.
  std::vector<const WatchdogTimeout*> timeouts, all;
  for (const auto& w : r.watchdogs) {
    all.push_back(&w);
    if (!w.op.empty()) timeouts.push_back(&w);
  }
  if (!timeouts.empty()) {
    const auto* w0 = timeouts.front();
    Finding f = make(
        "logs.pytorch.watchdog_summary", Severity::fail,
        fmt::format("{} rank(s) hit the ProcessGroupNCCL watchdog: {} SeqNum={} after {} ms", timeouts.size(),
                    w0->op, w0->seq, w0->ran_ms),
        "Look at the rank with the lowest last completed work: it did not join the collective the others "
        "wait in (stuck, slower, or on another code path). Raising the timeout only helps for slow I/O.");
    for (const auto* w : all)
      if (f.evidence.size() < 16)
        f.evidence.push_back(
            fmt::format("{} rank {}: {}{}last enqueued {}, last completed {}", w->at.str(), w->rank,
                        w->op.empty() ? "" : w->op + " SeqNum=" + std::to_string(w->seq) + " ",
                        w->timeout_ms > 0 ? "timeout " + std::to_string(w->timeout_ms) + " ms, " : "",
                        w->last_enqueued, w->last_completed));
    // The rank that enqueued least never issued the collective the others wait in (skipped or stuck before
    // it).
    int64_t elo = INT64_MAX, ehi = INT64_MIN;
    for (const auto* w : all)
      if (w->last_enqueued >= 0) {
        elo = std::min(elo, w->last_enqueued);
        ehi = std::max(ehi, w->last_enqueued);
      }
    if (elo != INT64_MAX && elo < ehi) {
      std::string who;
      for (const auto* w : all)
        if (w->last_enqueued == elo) who += (who.empty() ? "" : ", ") + std::to_string(w->rank);
      f.evidence.insert(
          f.evidence.begin(),
          fmt::format("never issued the awaited collective: rank(s) {} (last enqueued {}, others {}); "
                      "look at what it did instead",
                      who, elo, ehi));
    }
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const auto* w : all)
      if (w->last_completed >= -1 && w->last_enqueued >= 0) {
        lo = std::min(lo, w->last_completed);
        hi = std::max(hi, w->last_completed);
      }
    if (lo != INT64_MAX && lo < hi) {
      std::string who;
      for (const auto* w : all)
        if (w->last_completed == lo) who += (who.empty() ? "" : ", ") + std::to_string(w->rank);
      f.evidence.insert(
          f.evidence.begin(),
          fmt::format("furthest behind: rank(s) {} (last completed {}, others up to {})", who, lo, hi));
    }
    out.push_back(std::move(f));
  }
  if (!r.child_failures.empty()) {
    // The "Root Cause (first observed failure)" entry when torchrun marked one, else the first listed.
    auto root = std::find_if(r.child_failures.begin(), r.child_failures.end(),
                             [](const ChildFailure& c) { return c.root_cause; });
    const bool marked = root != r.child_failures.end();
    const auto& c0 = marked ? *root : r.child_failures.front();
    Finding f =
        make("logs.torchrun.failures", Severity::fail,
             fmt::format("torchrun reports {} failed worker(s); {}: rank {} (local_rank {}) exitcode {}",
                         r.child_failures.size(), marked ? "root cause" : "first", c0.rank, c0.local_rank,
                         c0.exitcode),
             "The root-cause rank's own output (its traceback, its first NCCL WARN) says why it exited; the "
             "others were usually stopped by torchrun after it. Negative exit codes are signals (-9 SIGKILL: "
             "often the OOM killer; -6 SIGABRT: NCCL/watchdog abort).");
    for (const auto& c : r.child_failures)
      if (f.evidence.size() < 16)
        f.evidence.push_back(fmt::format("{}: host {} rank {} local_rank {} exitcode {} pid {}{}", c.at.str(),
                                         c.host, c.rank, c.local_rank, c.exitcode, c.pid,
                                         c.root_cause ? " (root cause)" : ""));
    f.rank = r.child_failures.size() == 1 ? c0.rank : -1;
    out.push_back(std::move(f));
  }
}

}  // namespace

const std::vector<LogsDoc>& logs_finding_docs() {
  static const std::vector<LogsDoc> docs = {
      {"logs.init.incomplete", "A process printed NCCL output but never reached Init COMPLETE",
       "NCCL prints '... - Init COMPLETE' when a communicator is ready. A process that started init "
       "(bootstrap, "
       "version, comm lines) but never printed it stopped or hung inside ncclCommInitRank: a peer never "
       "arrived, "
       "sockets could not connect, or it crashed. Its last line and first WARN are the evidence."},
      {"logs.init.partial", "A communicator init began without its Init COMPLETE",
       "More communicator inits started than completed in one process: the job stopped while creating a "
       "process "
       "group (often ranks creating different groups), or the log was cut."},
      {"logs.init.complete", "Every NCCL process reached Init COMPLETE",
       "Initialisation finished on every rank seen."},
      {"logs.net.transport_mismatch", "Ranks use different network transports",
       "'Using network X' differs between ranks (e.g. IB on most, Socket on one): that rank lacks IB devices "
       "or "
       "drivers in its container, or runs with different NCCL_IB_DISABLE / NCCL_NET settings."},
      {"logs.net.plugin_mismatch", "Ranks load different NCCL net plugins",
       "Some ranks load an external net plugin and others do not; install the same plugin (or none) "
       "everywhere."},
      {"logs.net.bootstrap_if_mismatch", "Ranks bootstrap over different interfaces",
       "NCCL chose different bootstrap interfaces on different ranks; fine when names differ by node type, "
       "wrong "
       "when one of them cannot reach the others. Pin NCCL_SOCKET_IFNAME."},
      {"logs.net.bad_interface", "NCCL uses a loopback or container-bridge interface",
       "lo, docker*, veth*, virbr* or br-* do not route between nodes; NCCL_SOCKET_IFNAME should name the "
       "real "
       "data interface."},
      {"logs.net.bond_interface", "NCCL uses a bonded interface", "Informational: traffic goes over a bond."},
      {"logs.net.socket_with_ib", "NCCL fell back to TCP sockets although IB devices exist",
       "NCCL listed IB HCAs but used the Socket transport; check NCCL_IB_DISABLE, NCCL_NET, NCCL_IB_HCA, "
       "/dev/infiniband in the container and libibverbs."},
      {"logs.net.gdr_mismatch", "GPU Direct RDMA is on for some ranks and off for others",
       "Usually nvidia-peermem (or DMA-BUF support) is missing on some nodes."},
      {"logs.nccl.version_mismatch", "Ranks print different NCCL versions",
       "Processes of one job loaded different libnccl builds; use one container image / framework build."},
      {"logs.cuda.driver_mismatch", "Ranks run different CUDA drivers",
       "cudaDriverVersion differs between nodes."},
      {"logs.coll.desync", "Ranks issued different numbers of collectives",
       "Counted from NCCL_DEBUG_SUBSYS=COLL lines per rank and operation; with --iteration-pattern the first "
       "iteration where the counts split is named. A rank-dependent branch or an uneven last batch is the "
       "usual "
       "cause; the job hangs at the first unmatched call."},
      {"logs.nccl.warn", "NCCL WARN lines the catalogue does not know",
       "NCCL printed WARN lines that no catalogue entry explains; the first WARN of the first failing rank "
       "is "
       "usually the cause."},
      {"logs.pytorch.watchdog_summary", "ProcessGroupNCCL watchdog timeouts, per rank",
       "Collects the watchdog lines of all ranks: op, SeqNum, timeout, last enqueued and completed work. The "
       "rank "
       "with the lowest last completed work is the one the others wait for."},
      {"logs.torchrun.failures", "torchrun's ChildFailedError summary",
       "Rank, local rank, exit code, pid and host of each failed worker, from the summary torchrun prints."},
      {"logs.input.unreadable", "An input could not be read (completely)",
       "A path does not exist, cannot be opened, or a .gz is truncated or corrupt (its readable part is "
       "used)."},
      {"logs.input.empty", "An input file is empty", "Nothing was logged, or logging went elsewhere."},
      {"logs.input.binary", "An input holds binary data", "NUL bytes were found; lines are still scanned."},
      {"logs.input.long_lines", "Over-long lines were cut",
       "Lines longer than --max-line-bytes are cut there."},
  };
  return docs;
}

std::vector<report::Finding> cross_rank_findings(const LogsResult& r) {
  std::vector<Finding> out;
  init_rules(r, out);
  net_rules(r, out);
  coll_rules(r, out);
  framework_rules(r, out);
  return out;
}

}  // namespace dd::logs
