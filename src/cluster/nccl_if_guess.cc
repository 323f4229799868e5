// NCCL interface prediction (see nccl_if_guess.h), following NCCL's ncclFindInterfaces order.
#include "cluster/nccl_if_guess.h"

#include <algorithm>

namespace dd::cluster {
namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t c = s.find(',', start);
    std::string item = s.substr(start, c == std::string::npos ? std::string::npos : c - start);
    auto colon = item.find(':');  // "eth0:1234" names a port too; the name part is what matters
    if (colon != std::string::npos) item = item.substr(0, colon);
    if (!item.empty()) out.push_back(item);
    if (c == std::string::npos) break;
    start = c + 1;
  }
  return out;
}

bool usable(const probe::NetInterface& i) {
  return i.up && i.running && (!i.ipv4.empty() || !i.ipv6.empty());
}

std::vector<probe::NetInterface> select(const probe::NetFacts& net, const std::string& list) {
  std::vector<probe::NetInterface> out;
  for (const auto& i : net.interfaces)
    if (usable(i) && nccl_if_matches(i.name, list)) out.push_back(i);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
  return out;
}

}  // namespace

bool nccl_if_matches(const std::string& name, const std::string& list_in) {
  std::string list = list_in;
  bool negate = !list.empty() && list[0] == '^';
  if (negate) list = list.substr(1);
  bool exact = !list.empty() && list[0] == '=';
  if (exact) list = list.substr(1);
  bool hit = false;
  for (const auto& p : split_list(list))
    if (exact ? name == p : name.compare(0, p.size(), p) == 0) hit = true;
  return hit != negate;
}

std::vector<probe::NetInterface> guess_nccl_ifs(const probe::NetFacts& net, const std::string& setting) {
  if (setting.size() > 1) return select(net, setting);  // NCCL ignores values of length <= 1
  for (const char* step : {"ib", "^docker,lo,virbr", "docker", "lo", "virbr"}) {
    auto r = select(net, step);
    if (!r.empty()) return r;
  }
  return {};
}

std::string first_addr(const probe::NetInterface& i) {
  std::string a = !i.ipv4.empty() ? i.ipv4.front() : (!i.ipv6.empty() ? i.ipv6.front() : "");
  auto slash = a.find('/');
  return slash == std::string::npos ? a : a.substr(0, slash);
}

}  // namespace dd::cluster
