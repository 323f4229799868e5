// Small shared pieces of the launch report: signal names, how a rank ended, node labels, rank ranges, the
// redacted command line, and where the root-cause rank's record is.
#include "launch/report_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "cluster/join.h"
#include "common/redact.h"
#include "common/signal_name.h"
#include "launch/launcher_convention.h"

namespace dd::launch::parts {

std::string end_text(const RankRecord& r) {
  if (r.running) return "still running";
  if (!r.start_error.empty()) return "could not be started: " + r.start_error;
  if (r.signal != 0) return fmt::format("killed by signal {} ({})", r.signal, signal_name(r.signal));
  if (r.exit_code < 0) return "ended (status unknown)";
  return fmt::format("exited with status {}", r.exit_code);
}

const NodeRecord* find_node(const AttemptRecord& a, int node_rank) {
  for (const auto& n : a.nodes)
    if (n.node_rank == node_rank) return &n;
  return nullptr;
}

std::string host_of(const AttemptRecord& a, int node_rank) {
  const NodeRecord* n = find_node(a, node_rank);
  return n ? n->host : "";
}

std::string node_label(const AttemptRecord& a, int node_rank) {
  const std::string host = host_of(a, node_rank);
  return host.empty() ? fmt::format("node {}", node_rank) : fmt::format("node {} ({})", node_rank, host);
}

std::string rank_ranges(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return report::rank_ranges(ranks);  // the one compressor, shared with the cluster join's messages
}

std::string ranks_phrase(const std::vector<int>& ranks) { return report::ranks_phrase(ranks); }

std::string shown_line(const std::string& line) {
  std::string l = line;
  while (!l.empty() && (l.back() == '\r' || l.back() == '\n')) l.pop_back();
  const size_t cr = l.rfind('\r');  // a progress bar redrawn in place: only its last state
  if (cr != std::string::npos) l.erase(0, cr + 1);
  constexpr size_t kMaxShown = 300;
  if (l.size() > kMaxShown) l = l.substr(0, kMaxShown) + fmt::format("... ({} bytes)", line.size());
  return redact_text(l);
}

std::string last_line(const RankRecord& r) {
  for (auto it = r.tail.rbegin(); it != r.tail.rend(); ++it)
    if (it->find_first_not_of(" \t\r") != std::string::npos) return shown_line(*it);
  return "";
}

// Each argument on its own (so "--token X" and NAME=VALUE inside one argument are both caught), then
// quoted for the shell where it holds spaces or quotes.
std::string command_text(const std::vector<std::string>& argv) {
  std::string out;
  for (std::string shown : redact_argv(argv)) {
    if (shown.empty() || shown.find_first_of(" \t\n'\"$\\") != std::string::npos) {
      std::string q = "'";
      for (char c : shown) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      shown = q + "'";
    }
    out += (out.empty() ? "" : " ") + shown;
  }
  return out;
}

std::vector<const RankRecord*> all_ranks(const AttemptRecord& a) {
  std::vector<const RankRecord*> out;
  for (const auto& n : a.nodes)
    for (const auto& r : n.ranks) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(),
                   [](const RankRecord* x, const RankRecord* y) { return x->rank < y->rank; });
  return out;
}

RankRecord root_record(const AttemptRecord& a) {
  RankRecord root = a.stop.root;
  if (root.rank < 0)
    for (const RankRecord* r : all_ranks(a))
      if (r->rank == a.stop.rank) root = *r;
  if (root.rank < 0) root.rank = a.stop.rank;
  if (root.node_rank < 0) root.node_rank = a.stop.node_rank;
  return root;
}

int root_node(const AttemptRecord& a) {
  if (a.stop.cause == StopCause::worker_failed) {
    const int n = root_record(a).node_rank;
    if (n >= 0) return n;
  }
  if (a.stop.node_rank >= 0) return a.stop.node_rank;
  return a.nodes.empty() ? 0 : a.nodes.front().node_rank;
}

int interrupt_signal(const std::string& detail) {
  for (size_t p = detail.find("SIG"); p != std::string::npos; p = detail.find("SIG", p + 3)) {
    size_t e = p + 3;
    while (e < detail.size() && std::isupper(static_cast<unsigned char>(detail[e]))) ++e;
    if (const int s = signal_number(std::string_view(detail).substr(p, e - p))) return s;
  }
  if (const size_t p = detail.find("signal "); p != std::string::npos) {
    const int s = std::atoi(detail.c_str() + p + 7);
    if (s > 0 && s < 65) return s;
  }
  return SIGINT;
}

const LauncherConvention* companion_convention() {
  for (const auto* c : launcher_conventions())
    if (c->companion) return c;
  return nullptr;
}

std::string companion_who() {
  const LauncherConvention* c = companion_convention();
  return c ? std::string(c->companion->who) : "the companion process";
}

}  // namespace dd::launch::parts
