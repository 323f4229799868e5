// `distdoctor logs PATH...`: read NCCL/framework logs (files, directories, .gz, "-") and report what went
// wrong.
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <map>

#include "cli/command.h"
#include "logs/analyze.h"
#include "probe/tool_env.h"
#include "report/report.h"

namespace dd::cli {

namespace {

struct LogsArgs {
  std::vector<std::string> paths;
  std::string iteration_pattern;
  bool json = false;
  bool brief = false;
  int jobs = 0;
  size_t max_line = 64 * 1024;
  size_t max_rows = 40;
};

std::string short_line(std::string s, size_t n) {
  if (s.size() > n) s = s.substr(0, n) + "…";
  return s;
}

void print_summary(const logs::LogsResult& r, const LogsArgs& a, std::ostream& out) {
  out << "\nfiles\n";
  size_t shown = 0;
  for (const auto& f : r.files) {
    if (shown++ == a.max_rows) {
      out << fmt::format("  … {} more files (--json lists all)\n", r.files.size() - a.max_rows);
      break;
    }
    out << fmt::format("  {}  {} lines, {} NCCL, Init COMPLETE {}{}\n      last: {}\n", f.path, f.lines,
                       f.nccl_lines, f.init_complete, f.error.empty() ? "" : "  (" + f.error + ")",
                       short_line(f.last_line, 150));
  }
  std::vector<std::string> lacking;
  for (const auto& f : r.files)
    if (f.init_complete == 0 && !f.processes.empty()) lacking.push_back(f.path);  // not a bare banner
  if (!lacking.empty()) {
    out << fmt::format("  files with NCCL output but no \"Init COMPLETE\" ({}):", lacking.size());
    for (size_t i = 0; i < lacking.size() && i < a.max_rows; ++i) out << " " << lacking[i];
    out << "\n";
  }
  if (!r.processes.empty()) out << "\nranks (NCCL processes)\n";
  shown = 0;
  for (const auto& p : r.processes) {
    if (shown++ == a.max_rows) {
      out << fmt::format("  … {} more processes (--json lists all)\n", r.processes.size() - a.max_rows);
      break;
    }
    std::string ch;
    for (const auto& [t, n] : p.channel_transports) ch += fmt::format("{}{}x{}", ch.empty() ? "" : " ", t, n);
    std::string devs;
    for (size_t i = 0; i < p.net_devices.size() && i < 4; ++i) devs += (i ? " " : "") + p.net_devices[i];
    if (p.net_devices.size() > 4) devs += " …";
    out << fmt::format("  {}  dev {}  NCCL {}  driver {}\n", p.label(), p.cuda_dev,
                       p.nccl_version.empty() ? "?" : p.nccl_version, p.cuda_driver);
    out << fmt::format("      bootstrap {} {}  net {}{}  plugin {}  GDR {}\n",
                       p.bootstrap_if.empty() ? "?" : p.bootstrap_if, p.bootstrap_ip,
                       p.network.empty() ? "?" : p.network, devs.empty() ? "" : " [" + devs + "]",
                       p.net_plugin.empty() ? "?" : p.net_plugin,
                       p.gdr < 0 ? "?"
                       : p.gdr   ? "on"
                                 : "off");
    out << fmt::format("      channels {}  Init COMPLETE {}/{}{}\n", ch.empty() ? "?" : ch, p.init_complete,
                       p.comm_inits,
                       p.init_total_s >= 0 ? fmt::format("  init {:.2f} s", p.init_total_s) : "");
  }
  std::map<std::string, std::vector<std::pair<std::string, uint64_t>>> ops;
  for (const auto& p : r.processes)
    for (const auto& [op, n] : p.coll_counts)
      ops[op].emplace_back(p.rank >= 0 ? std::to_string(p.rank) : p.label(), n);
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

}  // namespace

Runner setup_logs(CLI::App& sub) {
  auto a = std::make_shared<LogsArgs>();
  sub.add_option("paths", a->paths, "Log files, directories (recursive), .gz files, or - for stdin")
      ->required();
  sub.add_option(
      "--iteration-pattern", a->iteration_pattern,
      "Text that marks a new training iteration (e.g. 'iteration: '); collective counts are split on it");
  sub.add_option("--jobs,-j", a->jobs, "Files read in parallel (default: one per core)")
      ->check(CLI::Range(1, 256));
  sub.add_option("--max-line-bytes", a->max_line, "Longer lines are cut (and reported)")
      ->check(CLI::Range(size_t{256}, size_t{64} << 20));
  sub.add_flag("--json", a->json, "Print the report (findings + facts per file and rank) as JSON");
  sub.add_flag("--brief", a->brief, "Findings only: no summary, no info findings");
  return [a]() -> int {
    auto t0 = std::chrono::steady_clock::now();
    logs::LogsOptions opt;
    opt.paths = a->paths;
    opt.jobs = a->jobs;
    opt.scan.iteration_pattern = a->iteration_pattern;
    opt.scan.read.max_line = a->max_line;
    const auto& cat = logs::Catalogue::builtin();
    logs::LogsResult r = logs::analyze_logs(opt, cat);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint64_t bytes = 0;
    for (const auto& f : r.files) bytes += f.bytes;
    report::Report rep;
    rep.title = "distdoctor logs";
    rep.notes.push_back(fmt::format("{} file(s), {:.1f} MB, {} NCCL process(es), read in {:.2f} s",
                                    r.files.size(), bytes / 1e6, r.processes.size(), secs));
    rep.findings = logs::logs_findings(r, cat);
    bool nothing_read = true;
    for (const auto& f : r.files)
      if (f.error.empty() || f.bytes > 0) nothing_read = false;
    if (nothing_read && !a->json) {
      std::cerr << "distdoctor logs: "
                << (r.files.empty() && r.input_errors.empty() ? "no files found under the given paths"
                                                              : "none of the inputs could be read")
                << "\n";
      for (const auto& e : r.input_errors) std::cerr << "  " << e << "\n";
      for (const auto& f : r.files) std::cerr << "  " << f.path << ": " << f.error << "\n";
      return report::kExitCannotRun;
    }
    if (a->json) {
      rep.facts = logs::logs_facts_json(r);
      auto j = report::render_json(rep);
      if (nothing_read) j["verdict"] = "could not run";
      std::cout << j.dump(2) << "\n";
    } else {
      report::TextOptions to;
      to.color = report::want_color(1, probe::tool_env().no_color, probe::tool_env().term);
      to.show_ok = to.show_info = !a->brief;
      if (!a->brief) print_summary(r, *a, std::cout);
      report::render_text(rep, std::cout, to);
    }
    std::cout.flush();
    if (nothing_read) return report::kExitCannotRun;
    return rep.exit_code();
  };
}

}  // namespace dd::cli
