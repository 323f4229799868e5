// The log rule table (log_rules.h), as NodeRules.HostileFactsAndDocumentedIds does for the node rules: every
// row runs on empty, hostile and recorded inputs (every fixture folder of fixtures/logs and fixtures/launch)
// without throwing, and every id it emits is documented in its own row; a row's culprit ids are its own; the
// registry (logs_finding_docs) holds every row's docs once.
#include "logs/log_rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace dd::logs {
namespace {

using report::Severity;

// Facts no real log gives: negative and huge ranks, empty and odd strings, watchdogs out of order.
LogsResult hostile_facts() {
  LogsResult r;
  for (int rank : {-1, 0, 0, 1, 1 << 30}) {
    ProcessFacts p;
    p.rank = rank;
    p.nranks = rank == 0 ? 0 : -7;
    p.host = rank < 0 ? "" : "h";
    p.nccl_lines = 3;
    p.infos = 2;
    p.comm_inits = rank > 0 ? 5 : 0;
    p.bootstrap_if = rank == 1 ? "lo" : "";
    p.network = rank == 1 ? "Socket" : "IB";
    p.ib_devices = {"", ":"};
    p.net_devices = {":", ""};
    p.bus_id = "0";
    p.comm_id = "x";
    p.env_settings = {{"NCCL_PROTO", rank == 1 ? "LL" : ""}};
    r.processes.push_back(p);
    WatchdogTimeout w;
    w.rank = rank;
    w.seq = rank == 1 ? -5 : 1;
    w.last_enqueued = rank;
    w.op = rank == 0 ? "" : "ALLREDUCE";
    r.watchdogs.push_back(w);
    RankProgress g;
    g.rank = rank;
    g.lines = 1;
    g.exception = rank == 1 ? "RuntimeError" : "";
    r.ranks.push_back(g);
    r.exits.push_back(ExitEvent{.rank = rank, .pid = rank, .code = -9});
    r.child_failures.push_back(ChildFailure{.rank = rank, .exitcode = rank});
  }
  r.flight_record_errors.push_back("dump: cut");
  return r;
}

std::vector<LogsResult> recorded_inputs() {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs;
  for (const char* top : {"/logs", "/launch"})
    for (const auto& set : fs::directory_iterator(std::string(DD_FIXTURE_DIR) + top)) {
      if (!set.is_directory()) continue;
      dirs.push_back(set.path().string());
      for (const auto& kase : fs::directory_iterator(set.path()))
        if (kase.is_directory()) dirs.push_back(kase.path().string());
    }
  std::sort(dirs.begin(), dirs.end());
  std::vector<LogsResult> out;
  for (const auto& d : dirs) {
    LogsOptions opt;
    opt.paths = {d};
    opt.jobs = 1;
    out.push_back(analyze_logs(opt, Catalogue::builtin()));
  }
  return out;
}

TEST(LogRules, HostileInputsAndDocumentedIds) {
  std::set<std::string> registry;
  for (const auto& d : logs_finding_docs()) {
    EXPECT_TRUE(registry.insert(d.id).second) << "duplicate doc " << d.id;
    EXPECT_FALSE(d.explanation.empty()) << d.id;
  }
  std::vector<LogsResult> cases = recorded_inputs();
  EXPECT_GT(cases.size(), 40u);
  cases.push_back(LogsResult{});
  cases.push_back(hostile_facts());
  std::set<std::string> emitted;
  for (const auto& row : log_rules()) {
    std::set<std::string> own;
    for (const auto& d : row.docs) {
      own.insert(d.id);
      EXPECT_TRUE(registry.count(d.id)) << row.name << ": " << d.id << " is not in logs_finding_docs()";
    }
    for (const auto& id : row.culprit_ids) EXPECT_TRUE(own.count(std::string(id))) << row.name << ": " << id;
    for (size_t c = 0; c < cases.size(); ++c) {
      std::vector<report::Finding> out;
      ASSERT_NO_THROW(row.fn(cases[c], out)) << row.name << ", case " << c;
      for (const auto& f : out) {
        emitted.insert(f.id);
        EXPECT_TRUE(own.count(f.id)) << row.name << " emits " << f.id << ", which its row does not document";
        EXPECT_FALSE(f.title.empty()) << f.id;
      }
    }
  }
  // The recorded inputs reach the rules that name culprits (a table that ran nothing would pass the above).
  for (const char* id : {"logs.hang.desync", "logs.rank.stopped_first", "logs.rank.env_differs",
                         "logs.init.late_rank", "logs.fr.desync", "logs.net.bad_interface"})
    EXPECT_TRUE(emitted.count(id)) << id;
}

}  // namespace
}  // namespace dd::logs
