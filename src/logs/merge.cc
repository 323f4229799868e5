// Merge of per-file scan results: one ProcessFacts per host:pid across files, catalogue hits summed, ranks
// filled in from torchrun's summary, processes sorted by rank.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "logs/analyze.h"
#include "logs/progress_scan.h"

namespace dd::logs {

namespace {

void merge_into(ProcessFacts& a, ProcessFacts&& b) {
  auto fill = [](auto& x, auto& y, auto empty) {
    if (x == empty) x = std::move(y);
  };
  fill(a.rank, b.rank, -1);
  fill(a.nranks, b.nranks, -1);
  fill(a.cuda_dev, b.cuda_dev, -1);
  fill(a.bus_id, b.bus_id, std::string());
  fill(a.comm_id, b.comm_id, std::string());
  fill(a.nccl_version, b.nccl_version, std::string());
  for (auto& [k, v] : b.env_settings)
    if (a.env_settings.size() < kMaxEnvSettings) a.env_settings.emplace(k, std::move(v));
  fill(a.cuda_driver, b.cuda_driver, -1);
  fill(a.bootstrap_if, b.bootstrap_if, std::string());
  fill(a.bootstrap_ip, b.bootstrap_ip, std::string());
  fill(a.network, b.network, std::string());
  if (a.net_devices.empty()) a.net_devices = std::move(b.net_devices);
  if (a.ib_devices.empty()) a.ib_devices = std::move(b.ib_devices);
  fill(a.oob_if, b.oob_if, std::string());
  fill(a.oob_ip, b.oob_ip, std::string());
  fill(a.net_plugin, b.net_plugin, std::string());
  if (a.gdr < 0 || b.gdr == 1) a.gdr = b.gdr < 0 ? a.gdr : b.gdr;
  for (auto& [k, v] : b.channel_transports) a.channel_transports[k] += v;
  a.comm_inits += b.comm_inits;
  if (a.init_complete == 0) a.first_init_complete = b.first_init_complete;
  a.init_complete += b.init_complete;
  if (a.init_total_s < 0) {
    a.init_total_s = b.init_total_s;
    a.init_timings = std::move(b.init_timings);
  }
  for (auto& [k, v] : b.coll_counts) a.coll_counts[k] += v;
  if (a.iterations.empty()) a.iterations = std::move(b.iterations);
  a.nccl_lines += b.nccl_lines;
  a.infos += b.infos;
  if (a.warns == 0) {
    a.first_warn = std::move(b.first_warn);
    a.first_warn_at = b.first_warn_at;
  }
  a.warns += b.warns;
  for (auto& t : b.error_trace)
    if (a.error_trace.size() < 8) a.error_trace.push_back(std::move(t));
  a.last_at = b.last_at;
}

// One RankProgress per rank across files (files of unknown rank stay apart), sorted by rank.
void merge_ranks(LogsResult& r, std::vector<RankProgress>&& ranks) {
  std::map<int, size_t> index;
  for (auto& p : r.ranks)
    if (p.rank >= 0) index.emplace(p.rank, &p - r.ranks.data());
  for (auto& p : ranks) {
    auto it = p.rank >= 0 ? index.find(p.rank) : index.end();
    if (it != index.end()) {
      merge_progress(r.ranks[it->second], std::move(p));
    } else {
      if (p.rank >= 0) index.emplace(p.rank, r.ranks.size());
      r.ranks.push_back(std::move(p));
    }
  }
}

// A launcher names a worker by pid or local rank: the rank comes from NCCL's pid, then torchrun's summary.
void resolve_exit_ranks(LogsResult& r) {
  for (auto& e : r.exits) {
    if (e.rank >= 0 || e.pid <= 0) continue;
    for (const auto& p : r.processes)
      if (p.pid == e.pid && p.rank >= 0) e.rank = p.rank;
    for (const auto& c : r.child_failures)
      if (e.rank < 0 && c.pid == e.pid && c.rank >= 0) e.rank = c.rank;
  }
}

// A worker that printed nothing before it died (SIGKILLed on 4x H100 with NCCL_DEBUG=WARN) is known only from
// the launcher's account (torchrun's summary, a launcher's exit line): it gets a RankProgress of no lines, so
// the progress rules can name it.
void add_silent_ranks(LogsResult& r) {
  std::set<int> known;
  for (const auto& p : r.ranks)
    if (p.rank >= 0) known.insert(p.rank);
  const auto add = [&](int rank, const std::string& file) {
    if (rank < 0 || !known.insert(rank).second) return;
    RankProgress p;
    p.rank = rank;
    p.file = file;
    r.ranks.push_back(std::move(p));
  };
  for (const auto& c : r.child_failures) add(c.rank, c.at.file);
  for (const auto& e : r.exits)
    if (e.code != 0) add(e.rank, e.at.file);
}

void merge_hits(EntryHits& a, EntryHits&& b, size_t cap) {
  a.count += b.count;
  for (auto& h : b.samples)
    if (a.samples.size() < cap) a.samples.push_back(std::move(h));
}

}  // namespace

LogsResult merge_results(std::vector<FileResult> files, const Catalogue& cat) {
  LogsResult r;
  std::unordered_map<std::string, size_t> index;
  std::map<size_t, EntryHits> hits;
  for (auto& f : files) {
    for (auto& p : f.processes) {
      std::string key = p.host + ":" + std::to_string(p.pid);
      auto it = index.find(key);
      if (it == index.end() || p.pid < 0) {
        index.emplace(key, r.processes.size());
        r.processes.push_back(std::move(p));
      } else {
        merge_into(r.processes[it->second], std::move(p));
      }
    }
    for (auto& [i, eh] : f.hits) merge_hits(hits[i], std::move(eh), 8);
    merge_hits(r.unmatched_warns, std::move(f.unmatched_warns), 8);
    for (auto& w : f.watchdogs) r.watchdogs.push_back(std::move(w));
    for (auto& c : f.child_failures) r.child_failures.push_back(std::move(c));
    merge_ranks(r, std::move(f.ranks));
    for (auto& e : f.exits) r.exits.push_back(e);
    for (auto& fr : f.flight_records) r.flight_records.push_back(std::move(fr));
    for (auto& e : f.flight_record_errors) r.flight_record_errors.push_back(std::move(e));
    r.files.push_back(std::move(f.file));
  }
  for (auto& [i, eh] : hits) r.hits.emplace_back(i, std::move(eh));
  // A process that died before NCCL printed its rank: torchrun's summary gives rank and pid of each worker.
  for (auto& p : r.processes) {
    if (p.rank >= 0 || p.pid <= 0) continue;
    int rank = -1, n = 0;
    for (const auto& c : r.child_failures)
      if (c.pid == p.pid && c.rank >= 0) rank = n++ == 0 ? c.rank : -1;
    if (n == 1) p.rank = rank;
  }
  std::stable_sort(r.processes.begin(), r.processes.end(), [](const ProcessFacts& a, const ProcessFacts& b) {
    if ((a.rank < 0) != (b.rank < 0)) return a.rank >= 0;
    return a.rank < b.rank;
  });
  resolve_exit_ranks(r);
  add_silent_ranks(r);
  std::stable_sort(r.ranks.begin(), r.ranks.end(), [](const RankProgress& a, const RankProgress& b) {
    if ((a.rank < 0) != (b.rank < 0)) return a.rank >= 0;
    return a.rank < b.rank;
  });
  (void)cat;
  return r;
}

}  // namespace dd::logs
