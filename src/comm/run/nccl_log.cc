// NCCL debug logs of a collective run, read line by line with NCCL's log-line grammar (nccl/log_line.h);
// version and network come from the same INFO-message reader the log analysis uses (logs/nccl_facts.h).
// Transports, NICs and the bootstrap interface keep NCCL's own tokens ("P2P/CUMEM/read", "[0]eth0:ip<0>"),
// as bench prints and reports them.
#include "comm/run/nccl_log.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

#include "logs/nccl_facts.h"
#include "nccl/log_line.h"
#include "probe/regular_file.h"

namespace dd::comm {

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.remove_suffix(1);
  size_t b = s.find_first_not_of(' ');
  return b == std::string_view::npos ? "" : std::string(s.substr(b));
}

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string first_word(std::string_view s) {
  std::string t = trim(s);
  return t.substr(0, t.find(' '));
}

// "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read" (also "... [receive] via NET/Socket/0").
void absorb_channel(NcclLogSummary& s, std::string_view msg) {
  size_t p = msg.find(" via ");
  if (p == std::string_view::npos) return;
  std::string t = first_word(msg.substr(p + 5));
  if (!t.empty()) s.transports[t]++;
}

// "NET/Socket : Using [0]eth0:10.0.0.2<0>" or "NET/IB : Using [0]mlx5_0:1/IB [1]...".
void absorb_nics(NcclLogSummary& s, std::string_view msg) {
  size_t p = msg.find(": Using ");
  if (p == std::string_view::npos) return;
  std::istringstream parts{std::string(msg.substr(p + 8))};
  std::string nic;
  while (parts >> nic)
    if (nic.size() > 3 && nic[0] == '[' && std::isdigit(static_cast<unsigned char>(nic[1])) &&
        std::find(s.nics.begin(), s.nics.end(), nic) == s.nics.end())
      s.nics.push_back(nic);
}

void absorb_info(NcclLogSummary& s, logs::ProcessFacts& facts, std::string_view msg) {
  logs::absorb_nccl_info(facts, msg, logs::Where{});
  if (starts(msg, "Channel ")) {
    absorb_channel(s, msg);
  } else if (starts(msg, "NET/Socket") || starts(msg, "NET/IB")) {
    absorb_nics(s, msg);
  } else if (starts(msg, "Bootstrap") && s.bootstrap.empty()) {
    // "Bootstrap: Using eth0:10.0.0.2<0>" (2.2x) or "Bootstrap : Using eth0:..." (older)
    if (size_t u = msg.find("Using "); u != std::string_view::npos)
      s.bootstrap = first_word(msg.substr(u + 6));
  }
}

void absorb_warning(NcclLogSummary& s, std::string_view msg) {
  std::string w = trim(msg);
  if (std::find(s.warnings.begin(), s.warnings.end(), w) == s.warnings.end()) s.warnings.push_back(w);
}

}  // namespace

std::string transport_class(const std::string& t) { return t.substr(0, t.find('/')); }

NcclLogSummary parse_nccl_log(const std::string& text, NcclLogSummary s) {
  logs::ProcessFacts facts;
  facts.nccl_version = s.version;
  facts.network = s.network;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    ++s.lines;
    nccl::NcclLine l = nccl::parse_nccl_line(line);
    if (l.level == nccl::NcclLevel::warn) absorb_warning(s, l.msg);
    if (l.level == nccl::NcclLevel::info) absorb_info(s, facts, l.msg);
    if (l.level == nccl::NcclLevel::version) logs::absorb_nccl_info(facts, l.msg, logs::Where{});
  }
  s.version = facts.nccl_version;
  s.network = facts.network;
  return s;
}

NcclLogSummary parse_nccl_log_dir(const std::string& dir) {
  NcclLogSummary s;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().filename().string().rfind("nccl.", 0) != 0) continue;
    // The one safe opener; a log past its cap (64 MiB) is read to there.
    if (auto text = probe::read_regular_file(e.path().string())) s = parse_nccl_log(text->text, std::move(s));
  }
  return s;
}

}  // namespace dd::comm
