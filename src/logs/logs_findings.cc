// Findings of `distdoctor logs`: input problems, catalogue matches, unexplained NCCL WARNs and the cross-rank
// rules (log_rules.h), root cause first (finding_order.h); and match_text, the catalogue match of a pasted
// message.
#include <fmt/format.h>

#include <algorithm>

#include "logs/analyze.h"
#include "logs/finding_fold.h"
#include "logs/finding_order.h"
#include "logs/log_finding_ids.h"
#include "logs/oom_cause.h"
#include "logs/rank_state.h"

namespace dd::logs {

namespace {

std::string hit_line(const Hit& h) {
  std::string s = fmt::format("{}:{}", h.file, h.line);
  if (!h.who.empty()) s += " " + h.who;
  std::string_view ex = h.excerpt;
  if (ex.size() > 160) ex = ex.substr(0, 160);
  return s + ": " + std::string(ex) + (h.excerpt.size() > 160 ? "…" : "");
}

report::Finding entry_finding(const CatalogueEntry& e, const EntryHits& eh) {
  report::Finding f;
  f.id = e.id;
  f.severity = e.severity;
  f.title =
      Catalogue::render_title(e, eh.samples.empty() ? std::vector<std::string>{} : eh.samples[0].captures);
  f.fix = e.fix;
  int rank = eh.samples.empty() ? -1 : eh.samples[0].rank;
  for (const auto& h : eh.samples) {
    f.evidence.push_back(hit_line(h));
    if (h.rank != rank) rank = -1;
  }
  f.rank = rank;
  if (eh.count > eh.samples.size()) f.evidence.push_back(fmt::format("… {} matching lines in all", eh.count));
  if (!e.cause.empty()) f.evidence.push_back("likely cause: " + e.cause);
  f.area = "logs";
  return f;
}

void add_input_finding(std::vector<report::Finding>& out, const char* id, report::Severity sev,
                       std::string title, std::vector<std::string> ev, std::string fix) {
  if (ev.empty()) return;
  report::Finding f{
      .id = id, .severity = sev, .title = std::move(title), .evidence = std::move(ev), .fix = std::move(fix)};
  f.area = "input";
  out.push_back(std::move(f));
}

// Inputs that could not be read, are empty, hold binary data or over-long lines.
void input_findings(const LogsResult& r, std::vector<report::Finding>& out) {
  std::vector<std::string> unreadable = r.input_errors, empty, binary, longl, capped;
  for (const auto& f : r.files) {
    if (!f.capped.empty()) capped.push_back(f.path + ": " + f.capped);
    if (!f.error.empty())
      unreadable.push_back(f.path + ": " + f.error);
    else if (f.bytes == 0)
      empty.push_back(f.path);
    if (f.nul_bytes > 0)
      binary.push_back(fmt::format("{}: {} NUL bytes (binary data mixed in)", f.path, f.nul_bytes));
    if (f.truncated_lines > 0)
      longl.push_back(
          fmt::format("{}: {} lines cut (longest {} bytes)", f.path, f.truncated_lines, f.longest_line));
  }
  add_input_finding(
      out, "logs.input.unreadable", report::Severity::warn,
      fmt::format("{} input(s) could not be read completely", unreadable.size()), unreadable,
      "Check the paths and permissions; a truncated .gz was cut off while copying (its start is "
      "still read).");
  add_input_finding(out, "logs.input.empty", report::Severity::info,
                    fmt::format("{} empty file(s)", empty.size()), empty, "");
  add_input_finding(out, "logs.input.binary", report::Severity::info,
                    fmt::format("{} file(s) hold binary data", binary.size()), binary, "");
  add_input_finding(out, "logs.input.long_lines", report::Severity::info,
                    fmt::format("{} file(s) have over-long lines (cut)", longl.size()), longl, "");
  add_input_finding(
      out, "logs.input.capped", report::Severity::warn,
      fmt::format(
          "{} file(s) passed a limit on what one run keeps (part of them lumped together or left out)",
          capped.size()),
      capped,
      "Give the logs of one job at a time: no real job prints this many processes. If it is one "
      "job, name its files in smaller groups.");
}

report::Finding unexplained_warns_finding(const EntryHits& warns) {
  report::Finding f;
  f.id = ids::kNcclWarn;
  f.severity = report::Severity::warn;
  f.title = fmt::format("NCCL printed {} WARN line(s) that the catalogue does not explain", warns.count);
  for (const auto& h : warns.samples) f.evidence.push_back(hit_line(h));
  f.fix =
      "Read the first WARN of the first failing rank: later ones are usually consequences. "
      "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET shows what led to it.";
  f.area = "logs";
  return f;
}

// The pids the logs show for the job's ranks: NCCL's processes, torchrun's summary, the launchers' exits.
std::vector<std::pair<int64_t, int>> job_pids(const LogsResult& r) {
  std::vector<std::pair<int64_t, int>> out;
  for (const auto& p : r.processes) out.emplace_back(p.pid, p.rank);
  for (const auto& c : r.child_failures) out.emplace_back(c.pid, c.rank);
  for (const auto& e : r.exits) out.emplace_back(e.pid, e.rank);
  return out;
}

// A GPU out-of-memory whose message shows another process holding most of the GPU: that process is the cause,
// in the title. A rank the line does not name is the one torchrun saw fail by itself, when only one did.
void oom_cause(const LogsResult& r, const EntryHits& eh, report::Finding& f) {
  for (const auto& h : eh.samples) {
    auto holder = oom_other_holder(h.excerpt);
    if (!holder) continue;
    f.title += ": " + oom_holder_text(*holder, job_pids(r));
    if (f.rank < 0 && h.rank < 0) {
      int rank = -1, failed = 0;
      for (const auto& c : r.child_failures)
        if (c.exitcode > 0) ++failed, rank = c.rank;
      if (failed == 1) f.rank = rank;
    }
    f.fix =
        "Stop the other process or move the job to free GPUs (nvidia-smi lists what holds each GPU; "
        "and `distdoctor launch` checks the GPUs before it starts the job). " +
        f.fix;
    return;
  }
}

// When the first of these lines happened (-1 unknown).
int64_t earliest(const EntryHits& eh) {
  int64_t t = -1;
  for (const auto& h : eh.samples)
    if (h.time >= 0 && (t < 0 || h.time < t)) t = h.time;
  return t;
}

}  // namespace

std::vector<report::Finding> logs_findings(const LogsResult& r, const Catalogue& cat) {
  std::vector<report::Finding> inputs;
  input_findings(r, inputs);
  std::vector<TimedFinding> timed;
  for (auto& f : inputs) timed.push_back({.finding = std::move(f)});
  for (const auto& [i, eh] : r.hits) {
    report::Finding f = entry_finding(cat.entries()[i], eh);
    if (f.id == "cuda.out_of_memory") oom_cause(r, eh, f);
    timed.push_back({.finding = std::move(f), .time = earliest(eh), .from_catalogue = true});
  }
  if (r.unmatched_warns.count > 0)
    timed.push_back(
        {.finding = unexplained_warns_finding(r.unmatched_warns), .time = earliest(r.unmatched_warns)});
  std::vector<RankState> states = rank_states(r);
  auto stopped_at = [&](int rank) {  // when that rank stopped by itself (-1 unknown)
    for (const auto& s : states)
      if (s.progress->rank == rank && rank >= 0) return s.stopped_time;
    return int64_t{-1};
  };
  for (auto& f : cross_rank_findings(r)) {
    const int64_t t = f.id == ids::kRankStoppedFirst ? stopped_at(f.rank) : -1;
    timed.push_back({.finding = std::move(f), .time = t});
  }
  // An out-of-memory that names another process is why its rank stopped: it stands with (before) that stop.
  for (auto& t : timed)
    if (t.finding.id == "cuda.out_of_memory" && t.finding.title.find(" holds ") != std::string::npos) {
      const int64_t s = stopped_at(t.finding.rank);
      if (s >= 0 && (t.time < 0 || s < t.time)) t.time = s;
    }
  // So does a known error of no known time (a traceback's last line has no timestamp) that may be the one the
  // rank that stopped first stopped on: it leads, the stop is its evidence (fold_same_failure).
  const auto stop = std::find_if(timed.begin(), timed.end(), [](const TimedFinding& t) {
    return t.finding.id == ids::kRankStoppedFirst;
  });
  if (stop != timed.end() && stop->time >= 0)
    for (auto& t : timed)
      if (t.from_catalogue && t.time < 0 && may_be_error_of(t.finding, stop->finding, cat))
        t.time = stop->time;
  std::vector<report::Finding> out = root_cause_first(std::move(timed), true);
  fold_same_failure(out, cat);
  return out;
}

std::vector<report::Finding> match_text(std::string_view text, const Catalogue& cat) {
  ScanOptions opt;
  FileResult fr = scan_buffer("<text>", text, cat, opt);
  std::vector<TimedFinding> timed;
  for (const auto& [i, eh] : fr.hits)
    timed.push_back(
        {.finding = entry_finding(cat.entries()[i], eh), .time = earliest(eh), .from_catalogue = true});
  // The first cause first, as `logs` orders them: most severe first, then earliest, then catalogue order
  // (specific causes such as a duplicate GPU stand before the generic errors they lead to, which follow).
  return root_cause_first(std::move(timed), false);
}

}  // namespace dd::logs
