// NCCL INFO message -> ProcessFacts. Formats follow NCCL's sources (init.cc, bootstrap.cc, transport/*.cc,
// plugin/*.cc, enqueue.cc) from 2.1x to 2.30; unknown lines are ignored.
#include "logs/nccl_facts.h"

#include <cstring>

#include "nccl/log_line.h"

namespace dd::logs {

namespace {

bool starts(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}
bool ends(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

// The word after key ("busId 60" -> "60"), "" when key is absent.
std::string_view word_after(std::string_view s, std::string_view key) {
  size_t k = s.find(key);
  if (k == std::string_view::npos) return {};
  std::string_view rest = s.substr(k + key.size());
  return rest.substr(0, rest.find(' '));
}

// Value of the integer after `key` (e.g. " rank "), or -1.
std::string_view first_token(std::string_view s) {
  size_t sp = s.find(' ');
  return sp == std::string_view::npos ? s : s.substr(0, sp);
}

void set_rank(ProcessFacts& p, std::string_view msg, std::string_view rank_key, std::string_view nranks_key) {
  int64_t r = nccl::int_after(msg, rank_key), n = nccl::int_after(msg, nranks_key);
  if (p.rank < 0 && r >= 0) p.rank = static_cast<int>(r);
  if (p.nranks < 0 && n > 0) p.nranks = static_cast<int>(n);
}

// "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>"
void absorb_net_using(ProcessFacts& p, std::string_view name, std::string_view list) {
  std::vector<std::string> devs;
  size_t i = 0;
  while (i < list.size()) {
    size_t j = list.find(' ', i);
    if (j == std::string_view::npos) j = list.size();
    std::string_view tok = list.substr(i, j - i);
    if (tok.size() > 3 && tok[0] == '[' && tok[1] >= '0' && tok[1] <= '9') {
      size_t rb = tok.find(']');
      if (rb != std::string_view::npos) {
        std::string_view dev = tok.substr(rb + 1);
        if (size_t lt = dev.find('<'); lt != std::string_view::npos) dev = dev.substr(0, lt);
        if (!dev.empty() && dev.back() == ';') dev.remove_suffix(1);
        devs.emplace_back(dev);
      }
    } else if (tok == "OOB" && j < list.size()) {
      std::string_view rest = first_token(list.substr(j + 1));
      split_if_addr(rest, p.oob_if, p.oob_ip);
    }
    i = j + 1;
  }
  if (name == "IB") {
    if (p.ib_devices.empty()) p.ib_devices = devs;
  }
  if (p.net_devices.empty()) p.net_devices = std::move(devs);
  if (p.network.empty()) p.network = std::string(name);
}

void absorb_channel(ProcessFacts& p, std::string_view msg) {
  std::string_view t = channel_transport(msg);
  if (t.empty()) return;
  // Keep two components: P2P/CUMEM, P2P/IPC, P2P/direct, SHM/direct, NET/IB, NET/Socket, CollNet/...
  size_t s1 = t.find('/');
  std::string_view key = t;
  if (s1 != std::string_view::npos) {
    size_t s2 = t.find('/', s1 + 1);
    if (s2 != std::string_view::npos) key = t.substr(0, s2);
  }
  if (starts(t, "NET/") && t.find("GDRDMA") != std::string_view::npos) p.gdr = 1;
  if (p.channel_transports.size() < 32) ++p.channel_transports[std::string(key)];
}

}  // namespace

std::string_view channel_transport(std::string_view msg) {
  size_t v = msg.find(" via ");
  return v == std::string_view::npos ? std::string_view{} : first_token(msg.substr(v + 5));
}

void split_if_addr(std::string_view tok, std::string& ifname, std::string& addr) {
  size_t c = tok.find(':');
  if (c == std::string_view::npos) {
    ifname = std::string(tok);
    return;
  }
  ifname = std::string(tok.substr(0, c));
  std::string_view a = tok.substr(c + 1);
  if (size_t lt = a.find('<'); lt != std::string_view::npos) a = a.substr(0, lt);
  addr = std::string(a);
}

std::string_view coll_op_name(std::string_view msg) {
  // "AllReduce: opCount 3 sendbuff ..."; op names are short words without spaces.
  size_t n = msg.size() < 32 ? msg.size() : 32;
  const void* c = memchr(msg.data(), ':', n);
  if (!c) return {};
  size_t k = static_cast<const char*>(c) - msg.data();
  if (k == 0 || msg.compare(k, 10, ": opCount ") != 0) return {};
  return msg.substr(0, k);
}

namespace {

// A COLL line: one more call of `op`, in the totals and in the current iteration.
void count_coll(ProcessFacts& p, std::string_view op) {
  // A walk with the length and the last letter compared first, not the map's own look-up: its string compares
  // were 4% of `logs` on a COLL log (issue 38). A map holds a handful of ops, 64 at most.
  auto bump = [op](OpCounts& m) {
    for (auto& [name, calls] : m)
      if (name.size() == op.size() && name.back() == op.back() && name == op) {
        ++calls;
        return;
      }
    if (m.size() < 64) m.emplace(std::string(op), 1);
  };
  bump(p.coll_counts);
  if (!p.iterations.empty()) bump(p.iterations.back());
}

// "NET/Plugin: ..." (the text after "NET/Plugin"): no plugin (internal), or the loaded plugin's name.
void absorb_net_plugin(ProcessFacts& p, std::string_view r) {
  if (r.find("No plugin found") != std::string_view::npos ||
      r.find("Could not find") != std::string_view::npos || r.find("internal") != std::string_view::npos) {
    if (p.net_plugin.empty()) p.net_plugin = "internal";
  } else if (size_t k = r.find("Loaded net plugin "); k != std::string_view::npos) {
    p.net_plugin = std::string(first_token(r.substr(k + 18)));
  }
}

// "NCCL_PROTO set by environment to LL", "NCCL_P2P_DISABLE set by environment to 1." (param.cc prints
// integers as "%lld.", the others as they were given): name -> value.
void absorb_env_setting(ProcessFacts& p, std::string_view msg) {
  constexpr std::string_view kSet = " set by environment to ";
  size_t k = msg.find(' ');
  if (k == std::string_view::npos || k > 64 || msg.compare(k, kSet.size(), kSet) != 0) return;
  std::string_view name = msg.substr(0, k), value = msg.substr(k + kSet.size(), 256);
  if (value.size() > 1 && value.back() == '.' && value.find_first_not_of("-0123456789") == value.size() - 1)
    value.remove_suffix(1);
  auto it = p.env_settings.find(name);
  if (it != p.env_settings.end())
    it->second = std::string(value);
  else if (p.env_settings.size() < kMaxEnvSettings)
    p.env_settings.emplace(std::string(name), std::string(value));
}

// Lines starting with 'N': "NCCL version ...", "NCCL_X set by environment to Y", "NET/Plugin ...",
// "NET/<name> : Using ..." / GDR state.
void absorb_n_line(ProcessFacts& p, std::string_view msg) {
  if (starts(msg, "NCCL_")) {
    absorb_env_setting(p, msg);
  } else if (starts(msg, "NCCL version ")) {
    if (p.nccl_version.empty()) p.nccl_version = std::string(first_token(msg.substr(13)));
  } else if (starts(msg, "NET/Plugin")) {
    absorb_net_plugin(p, msg.substr(10));
  } else if (starts(msg, "NET/")) {
    size_t sep = msg.find(" : ");
    if (sep == std::string_view::npos) return;
    std::string_view name = msg.substr(4, sep - 4), rest = msg.substr(sep + 3);
    if (starts(rest, "Using "))
      absorb_net_using(p, name, rest.substr(6));
    else if (starts(rest, "GPU Direct RDMA Enabled"))
      p.gdr = 1;
    else if (starts(rest, "GPU Direct RDMA Disabled") && p.gdr < 0)
      p.gdr = 0;
  }
}

// Lines starting with 'c': cudaDriverVersion, and a communicator init start ("comm 0x... nRanks ...
// localRank ..."). Returns true when the line is fully handled (no Init COMPLETE / trace check after it).
bool absorb_c_line(ProcessFacts& p, std::string_view msg) {
  if (starts(msg, "cudaDriverVersion ")) {
    int64_t v;
    if (nccl::parse_int(msg.substr(18), v)) p.cuda_driver = static_cast<int>(v);
  } else if (starts(msg, "comm 0x") && msg.find(" nRanks ") != std::string_view::npos &&
             msg.find(" localRank") != std::string_view::npos) {
    ++p.comm_inits;
    set_rank(p, msg, " rank ", " nRanks ");
    return true;
  }
  return false;  // 2.1x: "comm 0x... rank 0 nranks 2 ... - Init COMPLETE"
}

void absorb_init_timings(ProcessFacts& p, std::string_view msg) {
  set_rank(p, msg, " rank ", " nranks ");
  size_t t = msg.find(" total ");
  if (t != std::string_view::npos) {
    p.init_timings = std::string(msg.substr(t + 1, 200));
    p.init_total_s = std::strtod(std::string(first_token(msg.substr(t + 7))).c_str(), nullptr);
  }
}

// Dispatches on the first byte. Returns true when the line was handled; false lets the caller look for
// Init COMPLETE and error-trace lines.
bool absorb_by_first_byte(ProcessFacts& p, std::string_view msg) {
  switch (msg[0]) {
    case 'C':
      if (starts(msg, "Channel "))
        absorb_channel(p, msg);
      else if (starts(msg, "Connected all rings")) {
        // A comm-wide flag, not per NIC; NET/Socket moves host memory only, so it never means GDR there.
        int64_t g = nccl::int_after(msg, " GDR ");
        if (g >= 0 && p.gdr < 0) p.gdr = g && p.network != "Socket" ? 1 : 0;
      }
      return true;
    case 'c':
      return absorb_c_line(p, msg);
    case 'N':
      absorb_n_line(p, msg);
      return true;
    case 'B':
      if (starts(msg, "Bootstrap")) {
        size_t u = msg.find("Using ");
        if (u != std::string_view::npos && u < 14 && p.bootstrap_if.empty())
          split_if_addr(first_token(msg.substr(u + 6)), p.bootstrap_if, p.bootstrap_ip);
      }
      return true;
    case 'U':
      if (starts(msg, "Using network ")) p.network = std::string(msg.substr(14));
      return true;
    case 'I':
      if (starts(msg, "Init timings")) absorb_init_timings(p, msg);
      return true;
    case 'G':
      if (starts(msg, "GPU Direct RDMA Enabled"))
        p.gdr = 1;
      else if (starts(msg, "GPU Direct RDMA Disabled") && p.gdr < 0)
        p.gdr = 0;
      return true;
    case 'S':
      if (starts(msg, "Successfully loaded external network plugin "))
        p.net_plugin = std::string(msg.substr(44));
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string_view absorb_nccl_info(ProcessFacts& p, std::string_view msg, const Where& at) {
  if (msg.empty()) return {};
  if (std::string_view op = coll_op_name(msg); !op.empty()) {
    count_coll(p, op);
    return op;
  }
  if (absorb_by_first_byte(p, msg)) return {};
  if (ends(msg, "Init START") &&
      p.bus_id.empty()) {  // "... cudaDev 0 nvmlDev 0 busId 60 commId 0x... - Init START"
    p.bus_id = std::string(word_after(msg, " busId "));
    p.comm_id = std::string(word_after(msg, " commId "));
    set_rank(p, msg, " rank ", " nranks ");
    return {};
  }
  if (ends(msg, "Init COMPLETE")) {
    if (p.init_complete++ == 0) p.first_init_complete = at;
    set_rank(p, msg, " rank ", " nranks ");
    return {};
  }
  // Error trace "init.cc:1234 -> 2" (NCCLCHECK on the way up from a failure).
  size_t sp = msg.find(' ');
  if (sp != std::string_view::npos && sp < 64 && msg.compare(sp, 4, " -> ") == 0 &&
      msg.substr(0, sp).find(':') != std::string_view::npos) {
    if (p.error_trace.size() < 8) p.error_trace.emplace_back(msg.substr(0, 120));
  }
  return {};
}

}  // namespace dd::logs
