// The per-line hot path: parse the NCCL header, update facts, and run the catalogue only where it can match.
#include "logs/file_scan.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstring>
#include <unordered_map>

#include "common/redact.h"
#include "logs/framework.h"
#include "logs/launch_end_line.h"
#include "logs/nccl_facts.h"
#include "logs/progress_scan.h"
#include "nccl/log_line.h"
#include "probe/regular_file.h"

namespace dd::logs {

namespace {

constexpr size_t kMaxIterations = 20000;  // per process, with --iteration-pattern

class Scanner {
 public:
  Scanner(const std::string& name, const Catalogue& cat, const ScanOptions& opt)
      : cat_(cat), opt_(opt), fw_(cat), progress_(name, cat) {
    res_.file.path = name;
    at_.file = name;
    if (opt.budget) fw_.run_records = &opt.budget->watchdogs;
  }

  // A log line is untrusted text: its secrets ("Authorization: Bearer X", "--api-key X") are hidden here,
  // where it enters, before any finding quotes it (the outputs only redact what needs no context).
  void line(std::string_view text, uint64_t lineno) {
    // `distdoctor launch`'s stack file (stacks/nodeN.rankR.txt, first line "# distdoctor: stack hook pid P"):
    // faulthandler's dumps of that rank, not its output, so not where its log ends.
    if (lineno == 1 && text.starts_with(kStackHookMarker)) stack_file_ = true;
    if (stack_file_) return;
    if (is_launch_end_line(text)) {  // how launch saw the rank end: an exit, not the rank's own output
      at_.line = lineno;
      if (auto e = read_launch_end_line(text, at_)) progress_.add_exit(*e);
      return;
    }
    std::string_view raw = text;
    if (might_hold_secret(text)) {
      redacted_ = redact_text(std::string(text));
      raw = redacted_;
    }
    at_.line = lineno;
    nccl::NcclLine l = nccl::parse_nccl_line(raw);
    if (l.level == nccl::NcclLevel::none) {
      progress_.other_line(raw, l.msg, l.fw_rank, at_);
      other_line(l, raw);
      return;
    }
    ++res_.file.nccl_lines;
    if (l.level == nccl::NcclLevel::version) {  // bare "NCCL version" line: belongs to the last process seen
      progress_.nccl_line(raw, false, l.msg, l.fw_rank, at_);
      if (last_ >= 0 && procs_[last_].nccl_version.empty())
        procs_[last_].nccl_version = std::string(l.msg.substr(13));
      else if (pending_version_.empty())
        pending_version_ = std::string(l.msg.substr(13));
      return;
    }
    bool glued = false;
    int idx = process_index(l, glued);
    if (glued) l.fw_rank = -1;  // the "[rankN]:" prefix belonged to the other process's unfinished line
    progress_.nccl_line(raw, l.level == nccl::NcclLevel::warn, l.msg, l.fw_rank, at_);
    ProcessFacts& p = procs_[idx];
    ++p.nccl_lines;
    p.last_at.line = lineno;
    if (l.fw_rank >= 0 && p.rank < 0) p.rank = l.fw_rank;
    if (p.cuda_dev < 0 && l.dev >= 0) p.cuda_dev = l.dev;
    if (l.level == nccl::NcclLevel::info) {
      ++p.infos;
      absorb_nccl_info(p, l.msg, at_);
      if (cat_.has_info_entries()) {
        matches_.clear();
        cat_.match(l.msg, true, matches_);
        record(matches_, raw, idx, l.fw_rank);
      }
    } else if (l.level == nccl::NcclLevel::warn) {
      if (p.warns++ == 0) {
        p.first_warn = std::string(l.msg.substr(0, 300));
        p.first_warn_at = at_;
      }
      matches_.clear();
      cat_.match(raw, false, matches_);  // the whole line: some entries key on the source file ("nvls.cc:")
      if (matches_.empty()) add_sample(res_.unmatched_warns, raw, idx, l.fw_rank, {});
      record(matches_, raw, idx, l.fw_rank);
    }
  }

  FileResult finish(const ReadStats& st) {
    FileFacts& f = res_.file;
    f.bytes = st.bytes;
    f.lines = st.lines;
    f.truncated_lines = st.truncated_lines;
    f.longest_line = st.longest_line;
    f.nul_bytes = st.nul_bytes;
    f.gzip = st.gzip;
    f.error = st.error;
    f.last_line = st.last_line;
    for (auto& p : procs_) {
      if (p.nccl_version.empty()) p.nccl_version = pending_version_;
      p.last_at.file = f.path;
      f.init_complete += p.init_complete;
      f.processes.push_back(p.label());
    }
    // Resolve evidence labels now that ranks are known.
    auto label = [&](Hit& h, int idx) {
      if (idx >= 0) {
        if (h.rank < 0) h.rank = procs_[idx].rank;
        h.who = procs_[idx].label();
      }  // framework lines carry their own "[rankN]:" prefix in the excerpt
    };
    for (auto& [i, eh] : res_.hits)
      for (size_t k = 0; k < eh.samples.size(); ++k) label(eh.samples[k], sample_proc_[key(i, k)]);
    for (size_t k = 0; k < res_.unmatched_warns.samples.size(); ++k)
      label(res_.unmatched_warns.samples[k], sample_proc_[key(SIZE_MAX, k)]);
    progress_.finish(procs_, res_.ranks, res_.exits);
    res_.processes = std::move(procs_);
    if (f.capped.empty()) f.capped = fw_.capped;
    res_.watchdogs = std::move(fw_.watchdogs);
    res_.child_failures = std::move(fw_.child_failures);
    return std::move(res_);
  }

 private:
  static uint64_t key(size_t entry, size_t k) { return (static_cast<uint64_t>(entry) << 8) ^ k; }

  // Interleaved stdout glues an unfinished line to NCCL's header ("[rank1]: iteration: 4vm:2317:2317 [0]
  // NCCL INFO ..."): an unknown host that ends with a known process's host, same pid, is that process.
  int process_index(const nccl::NcclLine& l, bool& glued) {
    if (last_ >= 0 && l.pid == last_pid_ && l.host == last_host_) return last_;
    std::string k(l.host);
    k += ':';
    k += std::to_string(l.pid);
    auto it = index_.find(k);
    if (it == index_.end())  // only the processes with this pid can be the glued one (linear in the input)
      for (auto [p, end] = by_pid_.equal_range(l.pid); p != end; ++p) {
        const std::string& h = procs_[p->second].host;
        if (!h.empty() && l.host.size() > h.size() &&
            l.host.compare(l.host.size() - h.size(), h.size(), h) == 0) {
          glued = true;
          return p->second;
        }
      }
    int idx;
    if (it == index_.end() && !room_for_process()) {
      idx = static_cast<int>(procs_.size()) - 1;  // pathological input: keep memory bounded, lump the rest
    } else if (it == index_.end()) {
      idx = static_cast<int>(procs_.size());
      ProcessFacts p;
      p.file = res_.file.path;
      p.host = std::string(l.host);
      p.pid = l.pid;
      procs_.push_back(std::move(p));
      index_.emplace(std::move(k), idx);
      by_pid_.emplace(l.pid, idx);
    } else {
      idx = it->second;
    }
    last_ = idx;
    last_pid_ = l.pid;
    last_host_ = procs_[idx].host;
    return idx;
  }

  // A new process may be kept while the run (every file, every thread: opt_.budget) has kept fewer than
  // RunBudget::kMaxProcesses; the first of a file always is, so the rest have one to be lumped into.
  bool room_for_process() {
    bool run_room = !opt_.budget || opt_.budget->processes.take();
    if (procs_.empty() || (run_room && procs_.size() < RunBudget::kMaxProcesses)) return true;
    if (res_.file.capped.empty())
      res_.file.capped = fmt::format(
          "more than {} processes in the run's inputs (the limit for all files together): the processes "
          "this file named after line {} are counted with its last one",
          RunBudget::kMaxProcesses, at_.line);
    return false;
  }

  void other_line(const nccl::NcclLine& l, std::string_view raw) {
    if (l.msg.empty()) return;
    matches_.clear();
    cat_.match(l.msg, false, matches_);
    record(matches_, raw, -1, l.fw_rank);
    fw_.line(l.msg, l.fw_rank, at_);
    if (!opt_.iteration_pattern.empty() &&
        memmem(l.msg.data(), l.msg.size(), opt_.iteration_pattern.data(), opt_.iteration_pattern.size())) {
      int idx = last_;
      if (l.fw_rank >= 0)
        for (size_t i = 0; i < procs_.size(); ++i)
          if (procs_[i].rank == l.fw_rank) idx = static_cast<int>(i);
      if (idx >= 0 && procs_[idx].iterations.size() < kMaxIterations) procs_[idx].iterations.emplace_back();
    }
  }

  void record(const std::vector<CatalogueMatch>& ms, std::string_view raw, int idx, int fw_rank) {
    for (const auto& m : ms) add_sample(res_.hits[m.entry], raw, idx, fw_rank, m.captures, m.entry);
  }

  void add_sample(EntryHits& eh, std::string_view raw, int idx, int fw_rank,
                  const std::vector<std::string>& caps, size_t entry = SIZE_MAX) {
    ++eh.count;
    if (eh.samples.size() >= opt_.max_samples) return;
    Hit h;
    h.file = res_.file.path;
    h.line = at_.line;
    h.rank = fw_rank;
    h.excerpt = std::string(raw.substr(0, 300));
    h.time = progress_.file_time();
    h.captures = caps;
    sample_proc_[key(entry, eh.samples.size())] = idx;
    eh.samples.push_back(std::move(h));
  }

  const Catalogue& cat_;
  const ScanOptions& opt_;
  FileResult res_;
  Where at_;
  std::vector<ProcessFacts> procs_;
  std::unordered_map<std::string, int> index_;
  std::unordered_multimap<int64_t, int> by_pid_;  // pid -> indexes in procs_
  std::unordered_map<uint64_t, int> sample_proc_;
  int last_ = -1;
  int64_t last_pid_ = -1;
  std::string last_host_;
  std::string pending_version_;
  std::string redacted_;     // the current line, when redaction changed it
  bool stack_file_ = false;  // launch's stack file: its lines are not read as log output
  std::vector<CatalogueMatch> matches_;
  FrameworkScanner fw_;
  ProgressScanner progress_;
};

}  // namespace

// Flight Recorder dumps: recognised by their first bytes, read whole (pickle_reader.h limits apply). A JSON
// file that names pg_config but is no dump falls back to the text scan.
static bool scan_flight_record(const std::string& path, RunBudget* budget, FileResult& out) {
  if (path == "-") return false;
  auto f = probe::open_regular_file(path);
  if (!f) return false;
  char head[4096];
  ssize_t n = ::read(f->fd(), head, sizeof head);  // a file that blocks answers EAGAIN: not a dump
  if (n <= 0 || !looks_like_flight_record(std::string_view(head, static_cast<size_t>(n)))) return false;
  PickleLimits limits;
  if (budget) {
    limits.in_flight = &budget->fr_values;
    limits.kept = &budget->fr_values_kept;
  }
  auto r = read_flight_record_file(path, limits);
  // A JSON text that is no dump is read as text; one refused for its size says so (it was read as one long
  // line before, its refusal unsaid).
  if (!r && r.error().kind == ErrorKind::protocol &&
      !looks_like_pickle(std::string_view(head, static_cast<size_t>(n))))
    return false;
  out.file.path = path;
  out.file.bytes = f->size();
  if (r)
    out.flight_records.push_back(std::move(*r));
  else
    out.flight_record_errors.push_back(r.error().message());
  return true;
}

FileResult scan_file(const std::string& path, const Catalogue& cat, const ScanOptions& opt) {
  if (FileResult fr; scan_flight_record(path, opt.budget, fr)) return fr;
  Scanner sc(path == "-" ? std::string("<stdin>") : path, cat, opt);
  ReadStats st = read_lines(path, opt.read, [&](std::string_view l, uint64_t n) { sc.line(l, n); });
  return sc.finish(st);
}

FileResult scan_buffer(const std::string& name, std::string_view text, const Catalogue& cat,
                       const ScanOptions& opt) {
  Scanner sc(name, cat, opt);
  ReadStats st =
      read_lines_from_buffer(text, opt.read, [&](std::string_view l, uint64_t n) { sc.line(l, n); });
  return sc.finish(st);
}

}  // namespace dd::logs
