// NCCL debug logs of a collective run, read line by line with NCCL's log-line grammar (nccl/log_line.h); what
// each INFO message says (version, network, NICs, bootstrap interface, a channel's transport) is read by the
// log analysis' own reader (logs/nccl_facts.h), so there is one grammar of NCCL's messages. Transports keep
// NCCL's own token ("P2P/CUMEM/read"), as bench prints and reports them.
#include "comm/run/nccl_log.h"

#include <algorithm>
#include <sstream>

#include "logs/nccl_facts.h"
#include "nccl/log_line.h"
#include "probe/fs.h"

namespace dd::comm {

namespace {

void add_unique(std::vector<std::string>& to, std::string v) {
  if (!v.empty() && std::find(to.begin(), to.end(), v) == to.end()) to.push_back(std::move(v));
}

}  // namespace

std::string transport_class(const std::string& t) { return t.substr(0, t.find('/')); }

NcclLogSummary parse_nccl_log(const std::string& text, NcclLogSummary s) {
  logs::ProcessFacts facts;  // one file is one process
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    ++s.lines;
    nccl::NcclLine l = nccl::parse_nccl_line(line);
    if (l.level == nccl::NcclLevel::warn) {
      std::string_view w = l.msg;
      while (!w.empty() && (w.back() == '\r' || w.back() == ' ')) w.remove_suffix(1);
      while (!w.empty() && w.front() == ' ') w.remove_prefix(1);
      add_unique(s.warnings, std::string(w));
    }
    if (l.level != nccl::NcclLevel::info && l.level != nccl::NcclLevel::version) continue;
    logs::absorb_nccl_info(facts, l.msg, logs::Where{});
    if (std::string_view t = logs::channel_transport(l.msg); !t.empty()) s.transports[std::string(t)]++;
  }
  if (s.version.empty()) s.version = facts.nccl_version;
  if (s.network.empty()) s.network = facts.network;
  for (auto& nic : facts.net_devices) add_unique(s.nics, std::move(nic));
  if (s.bootstrap.empty() && !facts.bootstrap_if.empty())
    s.bootstrap = facts.bootstrap_if + (facts.bootstrap_ip.empty() ? "" : ":" + facts.bootstrap_ip);
  return s;
}

NcclLogSummary parse_nccl_log_dir(const std::string& dir, const probe::Fs& fs) {
  NcclLogSummary s;
  auto names = fs.list(dir);
  if (!names) return s;
  for (const std::string& name : *names) {
    if (name.rfind("nccl.", 0) != 0) continue;
    // The one safe opener; a log past its cap (64 MiB) is read to there.
    if (auto text = fs.read_capped(dir + "/" + name, probe::kMaxConfigBytes))
      s = parse_nccl_log(text->text, std::move(s));
  }
  return s;
}

}  // namespace dd::comm
