// Cross-rank rule: processes that started NCCL init but never printed Init COMPLETE, and communicators whose
// init began without completing.
#include <fmt/format.h>

#include "logs/log_finding_ids.h"
#include "logs/log_rules.h"

namespace dd::logs {

using report::Finding;
using report::Severity;

namespace {

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

// Evidence for a process that never reached Init COMPLETE: its last line, first WARN, error trace.
std::string never_completed_evidence(const LogsResult& r, const ProcessFacts& p) {
  std::string ev =
      fmt::format("{} in {}: no Init COMPLETE; last NCCL line {}", p.label(), p.file, p.last_at.line);
  if (!p.first_warn.empty())
    ev += fmt::format("; first WARN at line {}: {}", p.first_warn_at.line, p.first_warn);
  if (!p.error_trace.empty())
    ev += "; NCCL error trace: " + p.error_trace[0] + nccl_result_name(p.error_trace[0]);
  for (const auto& f : r.files)
    if (f.path == p.file && !f.error.empty())
      ev += " (this file could not be read to its end: " + f.error + ")";
  return ev;
}

void init_rules(const LogsResult& r, std::vector<Finding>& out) {
  Finding never = logs_finding(
      ids::kInitIncomplete, Severity::fail, "",
      "Look at these ranks' last lines and first WARN: they stopped during NCCL init (a peer that never "
      "arrived, a network that cannot connect, or a crash). Every rank must call init with the same "
      "world size and rendezvous.");
  Finding partial = logs_finding(
      ids::kInitPartial, Severity::warn, "",
      "A communicator began init but its Init COMPLETE is missing: the job stopped (or the log was cut) "
      "while creating it. Check that every rank creates the same process groups in the same order.");
  for (const auto& p : r.processes) {
    // Init COMPLETE is an INFO line: without INFO output (NCCL_DEBUG=WARN) its absence says nothing.
    if (p.nccl_lines == 0 || p.infos == 0) continue;
    bool started = p.comm_inits > 0 || !p.bootstrap_if.empty() || !p.nccl_version.empty() || p.warns > 0;
    if (p.init_complete == 0 && started) {
      never.evidence.push_back(never_completed_evidence(r, p));
      never.rank = never.evidence.size() == 1 ? p.rank : -1;
    } else if (p.init_complete > 0 && p.comm_inits > p.init_complete) {
      partial.evidence.push_back(fmt::format("{}: {} communicator init(s) started, {} completed", p.label(),
                                             p.comm_inits, p.init_complete));
    }
  }
  size_t complete = 0;
  for (const auto& p : r.processes) complete += p.init_complete > 0 ? 1 : 0;
  if (never.evidence.empty() && complete > 0)
    out.push_back(logs_finding("logs.init.complete", Severity::ok,
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

}  // namespace

LogRule init_log_rule() {
  return {
      .name = "init",
      .fn = init_rules,
      .docs =
          {
              {ids::kInitIncomplete, "A process printed NCCL INFO output but never reached Init COMPLETE",
               "NCCL prints '... - Init COMPLETE' (an INFO line) when a communicator is ready. A process "
               "that printed INFO lines of init (bootstrap, version, comm lines) but never that one stopped "
               "or hung inside ncclCommInitRank: a peer never arrived, sockets could not connect, or it "
               "crashed. Its last line and first WARN are the evidence. Under NCCL_DEBUG=WARN no INFO line "
               "is printed, so nothing is judged."},
              {ids::kInitPartial, "A communicator init began without its Init COMPLETE",
               "More communicator inits started than completed in one process: the job stopped while "
               "creating a process group (often ranks creating different groups), or the log was cut."},
              {"logs.init.complete", "Every NCCL process reached Init COMPLETE",
               "Initialisation finished on every rank seen."},
          },
  };
}

}  // namespace dd::logs
