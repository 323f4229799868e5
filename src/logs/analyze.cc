// Parallel scan of many inputs (an atomic work index over N threads), the merge, and catalogue findings.
#include "logs/analyze.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <thread>
#include <unordered_map>

namespace dd::logs {

namespace fs = std::filesystem;

std::vector<std::string> expand_inputs(const std::vector<std::string>& paths,
                                       std::vector<std::string>& errors) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    if (p == "-") {
      out.push_back(p);
      continue;
    }
    std::error_code ec;
    auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) {
      errors.push_back(p + ": " + (ec ? ec.message() : std::string("no such file or directory")));
      continue;
    }
    if (fs::is_directory(st)) {
      std::vector<std::string> found;
      fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
      if (ec) {
        errors.push_back(p + ": " + ec.message());
        continue;
      }
      for (; it != end; it.increment(ec)) {
        if (ec) {
          errors.push_back(p + ": " + ec.message());
          break;
        }
        std::error_code e2;
        if (it->is_regular_file(e2)) found.push_back(it->path().string());
      }
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else {
      out.push_back(p);  // regular file, fifo, /dev/stdin...: read it
    }
  }
  return out;
}

namespace {

void merge_into(ProcessFacts& a, ProcessFacts&& b) {
  auto fill = [](auto& x, auto& y, auto empty) {
    if (x == empty) x = std::move(y);
  };
  fill(a.rank, b.rank, -1);
  fill(a.nranks, b.nranks, -1);
  fill(a.cuda_dev, b.cuda_dev, -1);
  fill(a.nccl_version, b.nccl_version, std::string());
  fill(a.cuda_driver, b.cuda_driver, -1);
  fill(a.bootstrap_if, b.bootstrap_if, std::string());
  fill(a.bootstrap_ip, b.bootstrap_ip, std::string());
  fill(a.network, b.network, std::string());
  if (a.net_devices.empty()) a.net_devices = std::move(b.net_devices);
  if (a.ib_devices.empty()) a.ib_devices = std::move(b.ib_devices);
  fill(a.oob_if, b.oob_if, std::string());
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
  if (a.warns == 0) {
    a.first_warn = std::move(b.first_warn);
    a.first_warn_at = b.first_warn_at;
  }
  a.warns += b.warns;
  for (auto& t : b.error_trace)
    if (a.error_trace.size() < 8) a.error_trace.push_back(std::move(t));
  a.last_at = b.last_at;
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
  (void)cat;
  return r;
}

LogsResult analyze_logs(const LogsOptions& opt, const Catalogue& cat) {
  std::vector<std::string> errors;
  std::vector<std::string> inputs = expand_inputs(opt.paths, errors);
  std::vector<FileResult> results(inputs.size());
  unsigned jobs =
      opt.jobs > 0 ? static_cast<unsigned>(opt.jobs) : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, std::max<size_t>(1, inputs.size()));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < inputs.size();) results[i] = scan_file(inputs[i], cat, opt.scan);
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  LogsResult r = merge_results(std::move(results), cat);
  r.input_errors = std::move(errors);
  return r;
}

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

}  // namespace

std::vector<report::Finding> logs_findings(const LogsResult& r, const Catalogue& cat) {
  std::vector<report::Finding> out;
  auto input_finding = [&](const char* id, report::Severity sev, std::string title,
                           std::vector<std::string> ev, std::string fix) {
    if (ev.empty()) return;
    report::Finding f{.id = id,
                      .severity = sev,
                      .title = std::move(title),
                      .evidence = std::move(ev),
                      .fix = std::move(fix)};
    f.area = "input";
    out.push_back(std::move(f));
  };
  std::vector<std::string> unreadable = r.input_errors, empty, binary, longl;
  for (const auto& f : r.files) {
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
  input_finding("logs.input.unreadable", report::Severity::warn,
                fmt::format("{} input(s) could not be read completely", unreadable.size()), unreadable,
                "Check the paths and permissions; a truncated .gz was cut off while copying (its start is "
                "still read).");
  input_finding("logs.input.empty", report::Severity::info, fmt::format("{} empty file(s)", empty.size()),
                empty, "");
  input_finding("logs.input.binary", report::Severity::info,
                fmt::format("{} file(s) hold binary data", binary.size()), binary, "");
  input_finding("logs.input.long_lines", report::Severity::info,
                fmt::format("{} file(s) have over-long lines (cut)", longl.size()), longl, "");

  for (const auto& [i, eh] : r.hits) out.push_back(entry_finding(cat.entries()[i], eh));
  if (r.unmatched_warns.count > 0) {
    report::Finding f;
    f.id = "logs.nccl.warn";
    f.severity = report::Severity::warn;
    f.title = fmt::format("NCCL printed {} WARN line(s) that the catalogue does not explain",
                          r.unmatched_warns.count);
    for (const auto& h : r.unmatched_warns.samples) f.evidence.push_back(hit_line(h));
    f.fix =
        "Read the first WARN of the first failing rank: later ones are usually consequences. "
        "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET shows what led to it.";
    f.area = "logs";
    out.push_back(std::move(f));
  }
  auto more = cross_rank_findings(r);
  out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  std::stable_sort(out.begin(), out.end(), [](const report::Finding& a, const report::Finding& b) {
    return a.severity > b.severity;
  });
  return out;
}

nlohmann::json logs_facts_json(const LogsResult& r) {
  nlohmann::json j;
  j["files"] = r.files;
  j["processes"] = r.processes;
  std::map<std::string, uint64_t> totals;
  for (const auto& p : r.processes)
    for (const auto& [op, n] : p.coll_counts) totals[op] += n;
  j["collectives_total"] = totals;
  j["watchdog_timeouts"] = r.watchdogs;
  j["child_failures"] = r.child_failures;
  j["input_errors"] = r.input_errors;
  return j;
}

std::vector<report::Finding> match_text(std::string_view text, const Catalogue& cat) {
  ScanOptions opt;
  FileResult fr = scan_buffer("<text>", text, cat, opt);
  std::vector<report::Finding> out;
  for (const auto& [i, eh] : fr.hits) out.push_back(entry_finding(cat.entries()[i], eh));
  return out;
}

}  // namespace dd::logs
