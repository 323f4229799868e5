// Fuzz target: the NCCL/framework log reader (src/logs, nccl/log_line.h) on arbitrary text, split on '\f'
// into up to four per-rank files: scan, merge across ranks, findings, facts JSON, text and JSON reports, and
// `explain` on the same text. Checks: no crash, hang or runaway memory; the reader counts every byte, line
// and NUL; parsed header fields are views into their own line; the JSON report is valid JSON that parses
// back; the text report holds no raw control byte.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/safe_text.h"
#include "logs/analyze.h"
#include "logs/info_reading.h"
#include "nccl/info_line.h"
#include "nccl/log_line.h"
#include "report/report.h"

using namespace dd;

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

bool inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

// The header grammar on every line: each field a view into the line.
void check_lines(std::string_view text) {
  logs::ReadOptions ro;
  logs::read_lines_from_buffer(text, ro, [](std::string_view line, uint64_t) {
    nccl::NcclLine l = nccl::parse_nccl_line(line);
    check(inside(l.host, line) && inside(l.src, line) && inside(l.msg, line));
    logs::read_info_line(line);
  });
}

logs::FileResult scan(const std::string& name, std::string_view text) {
  logs::ScanOptions opt;
  opt.read.max_line = 512;  // small, so cut lines are reached
  opt.iteration_pattern = "iteration";
  logs::FileResult r = logs::scan_buffer(name, text, logs::Catalogue::builtin(), opt);
  size_t lines = 0, nuls = 0;
  for (char c : text) lines += c == '\n', nuls += c == '\0';
  if (!text.empty() && text.back() != '\n') ++lines;
  check(r.file.bytes == text.size() && r.file.lines == lines && r.file.nul_bytes == nuls);
  check(r.file.truncated_lines <= r.file.lines && r.file.nccl_lines <= r.file.lines);
  return r;
}

void check_reports(const logs::LogsResult& merged, std::string_view all) {
  const auto& cat = logs::Catalogue::builtin();
  report::Report rep;
  rep.title = "distdoctor logs";
  rep.findings = logs::logs_findings(merged, cat);
  for (auto& f : logs::match_text(all, cat)) rep.findings.push_back(std::move(f));
  rep.facts = logs::logs_facts_json(merged);
  std::string json = json_text(report::render_json(rep), 2);
  check(nlohmann::json::accept(json));
  std::ostringstream text;
  report::render_text(rep, text, {});
  for (unsigned char c : text.str()) check(c >= 0x20 || c == '\n');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view all(reinterpret_cast<const char*>(data), size);
  check_lines(all);
  std::vector<logs::FileResult> files;
  size_t start = 0;
  while (start <= all.size() && files.size() < 4) {
    size_t ff = files.size() == 3 ? std::string_view::npos : all.find('\f', start);
    std::string_view part =
        all.substr(start, ff == std::string_view::npos ? std::string_view::npos : ff - start);
    files.push_back(scan("rank" + std::to_string(files.size()) + ".log", part));
    if (ff == std::string_view::npos) break;
    start = ff + 1;
  }
  check_reports(logs::merge_results(std::move(files), logs::Catalogue::builtin()), all);
  return 0;
}
