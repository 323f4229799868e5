// `distdoctor logs PATH...`: read NCCL/framework logs (files, directories, .gz, "-") and report what went
// wrong. What comes from the logs goes through shown(): secrets redacted, no raw control bytes.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>

#include "cli/command.h"
#include "cli/print_report.h"
#include "cli/run_records.h"
#include "cli/verbatim_args.h"
#include "common/redact.h"
#include "common/safe_text.h"
#include "common/units.h"
#include "launch/failure_report.h"
#include "logs/analyze.h"
#include "logs/diagnosable.h"
#include "probe/tool_env.h"
#include "report/report.h"

namespace dd::cli {

namespace {

// Everything `logs` was asked, parsed once: the analysis options as the engine takes them, and how to show
// it.
struct LogsCommandOptions {
  logs::LogsOptions analysis;  // paths, --jobs, --iteration-pattern, --max-line-bytes
  bool json = false;
  bool brief = false;
  bool verbose = false;
  size_t max_rows = 40;  // rows per table in the text summary
};

// The first n bytes of a log line (cut on a UTF-8 boundary), made printable.
std::string short_line(const std::string& s, size_t n) {
  if (s.size() <= n) return shown(s);
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return shown(s.substr(0, n)) + "…";
}

// One row per file, then the files with NCCL output but no Init COMPLETE.
void print_files(const logs::LogsResult& r, const LogsCommandOptions& a, std::ostream& out) {
  out << "\nfiles\n";
  size_t rows = 0;
  for (const auto& f : r.files) {
    if (rows++ == a.max_rows) {
      out << fmt::format("  … {} more files (--json lists all)\n", r.files.size() - a.max_rows);
      break;
    }
    const auto dump = std::find_if(r.flight_records.begin(), r.flight_records.end(),
                                   [&](const logs::FlightRecord& fr) { return fr.source == f.path; });
    if (dump != r.flight_records.end()) {  // a dump has entries, not lines
      out << fmt::format("  {}  Flight Recorder dump ({}), {} entries{}\n", shown(f.path),
                         shown(dump->format), dump->entries.size(),
                         dump->rank >= 0 ? fmt::format(", rank {}", dump->rank) : "");
      continue;
    }
    out << fmt::format("  {}  {} lines, {} NCCL, Init COMPLETE {}{}\n      last: {}\n", shown(f.path),
                       f.lines, f.nccl_lines, f.init_complete,
                       f.error.empty() ? "" : "  (" + shown(f.error) + ")", short_line(f.last_line, 150));
  }
  std::vector<std::string> lacking;
  for (const auto& f : r.files)
    if (f.init_complete == 0 && !f.processes.empty()) lacking.push_back(f.path);  // not a bare banner
  if (!lacking.empty()) {
    out << fmt::format("  files with NCCL output but no \"Init COMPLETE\" ({}):", lacking.size());
    for (size_t i = 0; i < lacking.size() && i < a.max_rows; ++i) out << " " << shown(lacking[i]);
    out << "\n";
  }
}

// Three lines per NCCL process: device and versions, bootstrap and network, channels and init.
void print_ranks(const logs::LogsResult& r, const LogsCommandOptions& a, std::ostream& out) {
  if (!r.processes.empty()) out << "\nranks (NCCL processes)\n";
  size_t rows = 0;
  for (const auto& p : r.processes) {
    if (rows++ == a.max_rows) {
      out << fmt::format("  … {} more processes (--json lists all)\n", r.processes.size() - a.max_rows);
      break;
    }
    std::string ch;
    for (const auto& [t, n] : p.channel_transports)
      ch += fmt::format("{}{}x{}", ch.empty() ? "" : " ", shown(t), n);
    std::string devs;
    for (size_t i = 0; i < p.net_devices.size() && i < 4; ++i)
      devs += (i ? " " : "") + shown(p.net_devices[i]);
    if (p.net_devices.size() > 4) devs += " …";
    out << fmt::format("  {}  dev {}  NCCL {}  CUDA driver {}\n", shown(p.label()), p.cuda_dev,
                       p.nccl_version.empty() ? "?" : shown(p.nccl_version),
                       cuda_version_in_words(p.cuda_driver));
    out << fmt::format("      bootstrap {} {}  net {}{}  plugin {}  GDR {}\n",
                       p.bootstrap_if.empty() ? "?" : shown(p.bootstrap_if), shown(p.bootstrap_ip),
                       p.network.empty() ? "?" : shown(p.network), devs.empty() ? "" : " [" + devs + "]",
                       p.net_plugin.empty() ? "?" : shown(p.net_plugin),
                       p.gdr < 0 ? "?"
                       : p.gdr   ? "on"
                                 : "off");
    out << fmt::format("      channels {}  Init COMPLETE {}/{}{}\n", ch.empty() ? "?" : ch, p.init_complete,
                       p.comm_inits,
                       p.init_total_s >= 0 ? fmt::format("  init {:.2f} s", p.init_total_s) : "");
  }
}

// NCCL_DEBUG_SUBSYS=COLL counts, per op and rank.
void print_collectives(const logs::LogsResult& r, std::ostream& out) {
  std::map<std::string, std::vector<std::pair<std::string, uint64_t>>> ops;
  for (const auto& p : r.processes)
    for (const auto& [op, n] : p.coll_counts)
      ops[shown(op)].emplace_back(p.rank >= 0 ? std::to_string(p.rank) : shown(p.label()), n);
  if (!ops.empty()) {
    out << "\ncollectives (NCCL_DEBUG_SUBSYS=COLL), calls per rank\n";
    for (const auto& [op, v] : ops) {
      out << "  " << op << ":";
      for (size_t i = 0; i < v.size() && i < 32; ++i) out << fmt::format(" r{}={}", v[i].first, v[i].second);
      if (v.size() > 32) out << " …";
      out << "\n";
    }
  }
}

void print_summary(const logs::LogsResult& r, const LogsCommandOptions& a, std::ostream& out) {
  print_files(r, a, out);
  print_ranks(r, a, out);
  print_collectives(r, out);
}

// "none of the inputs could be read": the reasons on stderr.
void print_nothing_read(const logs::LogsResult& r) {
  std::cerr << "distdoctor logs: "
            << (r.files.empty() && r.input_errors.empty() ? "no files found under the given paths"
                                                          : "none of the inputs could be read")
            << "\n";
  for (const auto& e : r.input_errors) std::cerr << "  " << shown(e) << "\n";
  for (const auto& f : r.files) std::cerr << "  " << shown(f.path) << ": " << shown(f.error) << "\n";
}

// "nothing to diagnose: PATHS hold no NCCL, framework or Flight Recorder lines".
std::string nothing_known_text(const logs::LogsResult& r) {
  std::string paths;
  for (size_t i = 0; i < r.files.size() && i < 3; ++i) paths += (i ? ", " : "") + shown(r.files[i].path);
  if (r.files.size() > 3) paths += fmt::format(" and {} more", r.files.size() - 3);
  return fmt::format("nothing to diagnose: {} {} no NCCL, framework or Flight Recorder lines", paths,
                     r.files.size() == 1 ? "holds" : "hold");
}

void print_nothing_known(const logs::LogsResult& r) {
  std::cerr << "distdoctor logs: " << nothing_known_text(r)
            << "\n  (give the job's output: NCCL_DEBUG=INFO logs, the launcher's console, the per-rank logs "
               "or a run folder of `distdoctor launch`)\n";
}

int run_logs(const LogsCommandOptions& opt) {
  auto t0 = std::chrono::steady_clock::now();
  const auto& cat = logs::Catalogue::builtin();
  const RunRecords run = take_attempt_records(opt.analysis.paths);
  logs::LogsOptions what = opt.analysis;
  what.paths = run.other_paths;
  logs::LogsResult r = logs::analyze_logs(what, cat);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  uint64_t bytes = 0;
  for (const auto& f : r.files) bytes += f.bytes;
  report::Report rep;
  rep.title = "distdoctor logs";
  rep.notes.push_back(fmt::format("{} file(s), {:.1f} MB, {} NCCL process(es), read in {:.2f} s",
                                  r.files.size(), bytes / 1e6, r.processes.size(), secs));
  rep.findings = logs::logs_findings(r, cat);
  if (!run.attempts.empty()) {  // a launch run folder: launch's own findings first, the logs' after them
    rep.findings = run_findings(launch::build_launch_report(run.attempts).findings, rep.findings);
    rep.notes.push_back(
        fmt::format("a distdoctor launch run: {} attempt record(s) (attempt.json) lead with the findings "
                    "launch gave; the "
                    "log reading follows",
                    run.attempts.size()));
  }
  if (run.jobs > 1)
    rep.notes.push_back(
        fmt::format("{} launch jobs in the inputs: read the newest, {} (`distdoctor logs DIR/JOB` "
                    "reads another)",
                    run.jobs, run.job_dir));
  for (const auto& e : run.errors) rep.notes.push_back("not read as a launch record: " + e);
  bool nothing_read = true;
  for (const auto& f : r.files)
    if (f.error.empty() || f.bytes > 0) nothing_read = false;
  if (nothing_read && !opt.json) {
    print_nothing_read(r);
    return report::kExitCannotRun;
  }
  // Read, but nothing in it is a log this tool knows (a config file, a hostname): no pass for it.
  const bool nothing_known = !nothing_read && run.attempts.empty() && !logs::holds_diagnosable(r);
  if (nothing_known && !opt.json) {
    print_nothing_known(r);
    return report::kExitCannotRun;
  }
  if (opt.json) {
    // The facts moved in: one tree of every process, not two.
    nlohmann::json extra{{"facts", logs::logs_facts_json(r)}};
    if (nothing_read || nothing_known) extra["verdict"] = "could not run";
    if (nothing_known) extra["error"] = nothing_known_text(r);
    show_report(rep, {.json = true,
                      .envelope = {.command = "logs",
                                   .exit_code = nothing_read || nothing_known ? report::kExitCannotRun
                                                                              : rep.exit_code()},
                      .extra = std::move(extra)});
  } else {
    // The answer first: the verdict and the findings, root cause first; the tables per file and rank are
    // details, after them (--brief: none).
    show_report(rep, {.brief = opt.brief, .verbose = opt.verbose});
    if (!opt.brief) print_summary(r, opt, std::cout);
  }
  if (nothing_read || nothing_known) return report::kExitCannotRun;
  return rep.exit_code();
}

}  // namespace

Runner setup_logs(CLI::App& sub) {
  auto opt = std::make_shared<LogsCommandOptions>();
  auto& a = opt->analysis;
  accept_verbatim_args(sub, "PATHS", "log files, directories (recursive), .gz files, or - for stdin");
  sub.add_option(
      "--iteration-pattern", a.scan.iteration_pattern,
      "Text that marks a new training iteration (e.g. 'iteration: '); collective counts are split on it");
  sub.add_option("--jobs,-j", a.jobs, "Files read in parallel (default: one per core)")
      ->check(CLI::Range(1, 256));
  sub.add_option("--max-line-bytes", a.scan.read.max_line, "Longer lines are cut (and reported)")
      ->check(CLI::Range(size_t{256}, size_t{64} << 20));
  sub.add_flag("--json", opt->json, "Print the report (findings + facts per file and rank) as JSON");
  sub.add_flag("--brief", opt->brief, "Findings only: no tables per file and rank, no info findings");
  sub.add_flag("-v,--verbose", opt->verbose, "Every finding's details too (--json holds them always)");
  return [opt, &sub]() -> int {
    auto words = verbatim_args(sub);
    if (!words || words->empty()) {
      std::cerr << "distdoctor logs: "
                << (words ? "give log files, directories or - (see --help)" : words.error().message())
                << "\n";
      return report::kExitCannotRun;
    }
    opt->analysis.paths = std::move(*words);
    return run_logs(*opt);
  };
}

}  // namespace dd::cli
