// Parser of NCCL debug logs: only lines NCCL prints itself, matched on their stable fragments.
#include "comm/nccl_log.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace dd::comm {

namespace {
std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  size_t b = s.find_first_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b);
}
}  // namespace

std::string transport_class(const std::string& t) { return t.substr(0, t.find('/')); }

NcclLogSummary parse_nccl_log(const std::string& text, NcclLogSummary s) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    ++s.lines;
    size_t p;
    if ((p = line.find("NCCL WARN ")) != std::string::npos) {
      std::string w = trim(line.substr(p + 10));
      if (std::find(s.warnings.begin(), s.warnings.end(), w) == s.warnings.end()) s.warnings.push_back(w);
      continue;
    }
    if ((p = line.find("NCCL version ")) != std::string::npos && s.version.empty()) {
      std::string v = line.substr(p + 13);
      s.version = trim(v.substr(0, v.find(' ')));
      continue;
    }
    // "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read" (also "Channel 00/1 : ... via NET/Socket/0")
    if (line.find("Channel ") != std::string::npos && (p = line.find(" via ")) != std::string::npos) {
      std::string t = trim(line.substr(p + 5));
      t = t.substr(0, t.find(' '));
      if (!t.empty()) s.transports[t]++;
      continue;
    }
    if ((p = line.find("Using network ")) != std::string::npos) {
      s.network = trim(line.substr(p + 14));
      continue;
    }
    // "NET/Socket : Using [0]eth0:10.0.0.2<0>" or "NET/IB : Using [0]mlx5_0:1/IB [1]..."
    if ((line.find("NET/Socket") != std::string::npos || line.find("NET/IB") != std::string::npos) &&
        (p = line.find(": Using ")) != std::string::npos) {
      std::istringstream parts(line.substr(p + 8));
      std::string nic;
      while (parts >> nic)
        if (nic.size() > 3 && nic[0] == '[' && std::isdigit(static_cast<unsigned char>(nic[1])) &&
            std::find(s.nics.begin(), s.nics.end(), nic) == s.nics.end())
          s.nics.push_back(nic);
      continue;
    }
    // "Bootstrap: Using eth0:10.0.0.2<0>" (2.2x) or "Bootstrap : Using eth0:..." (older)
    if ((p = line.find("Bootstrap")) != std::string::npos && line.find("Using ", p) != std::string::npos &&
        s.bootstrap.empty()) {
      std::string b = trim(line.substr(line.find("Using ", p) + 6));
      s.bootstrap = b.substr(0, b.find(' '));
    }
  }
  return s;
}

NcclLogSummary parse_nccl_log_dir(const std::string& dir) {
  NcclLogSummary s;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().filename().string().rfind("nccl.", 0) != 0) continue;
    std::ifstream in(e.path());
    std::ostringstream ss;
    ss << in.rdbuf();
    s = parse_nccl_log(ss.str(), std::move(s));
  }
  return s;
}

}  // namespace dd::comm
