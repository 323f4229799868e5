// NCCL list grammar, following NCCL v2.28.9 (same code since 2.8):
//   src/misc/utils.cc   parseStringList() lines 136-166, matchIf() 168-172, matchPort() 174-179,
//                       matchIfList() 182-193;
//   src/misc/socket.cc  findInterfaces() lines 135-139 ('^' then '=' stripped, then parseStringList), 168
//                       (matchIfList(...) ^ searchNot);
//   src/transport/net_ib.cc ncclIbInitDevices() lines 703-708 and 740 (same grammar with the port number).
#include "nccl/if_list.h"

#include <cctype>
#include <climits>

namespace dd::nccl {

namespace {

// atoi() as NCCL calls it on the text after ':' (leading blanks, a sign, digits; anything else gives 0).
int nccl_atoi(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) i++;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  long long v = 0;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); i++) {
    v = v * 10 + (s[i] - '0');
    if (v > INT_MAX) v = INT_MAX;  // atoi overflow is undefined in C; clamp
  }
  return static_cast<int>(neg ? -v : v);
}

}  // namespace

IfList parse_if_list(std::string_view s, int max_entries) {
  IfList l;
  if (!s.empty() && s[0] == '^') {
    l.exclude = true;
    s.remove_prefix(1);
  }
  if (!s.empty() && s[0] == '=') {
    l.exact = true;
    s.remove_prefix(1);
  }
  // parseStringList: characters accumulate into the current entry; ':' closes it (port = atoi of the rest, up
  // to ','), ',' or end closes it with port -1; an entry with no characters is skipped.
  std::string cur;
  size_t i = 0;
  auto close = [&](int port) {
    if (cur.empty()) return;
    if (cur.size() > kNcclPrefixMax) l.overlong = true;
    if (static_cast<int>(l.entries.size()) < max_entries) {
      l.entries.push_back({cur, port});
    } else {
      l.dropped++;
    }
    cur.clear();
  };
  while (i <= s.size()) {
    char c = i < s.size() ? s[i] : '\0';
    if (c == ':') {
      size_t end = s.find(',', i);
      if (end == std::string_view::npos) end = s.size();
      close(nccl_atoi(s.substr(i + 1, end - i - 1)));
      cur.clear();
      i = end + 1;
      continue;
    }
    if (c == ',' || c == '\0') {
      close(-1);
    } else {
      cur.push_back(c);
    }
    i++;
  }
  return l;
}

bool if_list_selects(const IfList& l, std::string_view name, int port) {
  bool match = l.entries.empty();  // matchIfList: "no user list" matches everything
  for (const auto& e : l.entries) {
    bool name_ok = l.exact ? name == e.prefix : name.substr(0, e.prefix.size()) == e.prefix;
    bool port_ok = port == -1 || e.port == -1 || port == e.port;
    if (name_ok && port_ok) {
      match = true;
      break;
    }
  }
  return match != l.exclude;
}

std::string if_list_to_string(const IfList& l) {
  std::string out = l.exclude ? "^" : "";
  if (l.exact) out += "=";
  // A first entry starting with '^' or '=' would read back as the list's own markers: an empty entry first.
  if (!l.entries.empty() && (l.entries[0].prefix[0] == '^' || l.entries[0].prefix[0] == '=')) out += ",";
  for (size_t i = 0; i < l.entries.size(); i++) {
    if (i) out += ",";
    out += l.entries[i].prefix;
    if (l.entries[i].port != -1) out += ":" + std::to_string(l.entries[i].port);
  }
  return out;
}

}  // namespace dd::nccl
