// Fuzz target: the env grammars (src/nccl, src/rules) on one arbitrary value: CUDA_VISIBLE_DEVICES,
// NCCL_SOCKET_IFNAME / NCCL_IB_HCA lists, NCCL_ALGO / NCCL_PROTO, the path levels, NCCL_DEBUG(_SUBSYS), typo
// lookup; then every node rule over a made-up node with the value in each of those variables. Checks: no
// crash; lists stay within NCCL's caps and round-trip through if_list_to_string; a list selects the names it
// lists; CUDA's visible set is in range, unique and counted; interface and HCA selections are subsets of what
// exists; every finding id is documented and the text report holds no raw control byte.
#include "nccl/env_grammar.h"

#include <cstddef>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>

#include "nccl/env_names.h"
#include "nccl/ib_select.h"
#include "nccl/if_list.h"
#include "nccl/if_select.h"
#include "report/report.h"
#include "rules/cuda_visible.h"
#include "rules/engine_choice.h"
#include "rules/test_facts.h"

using namespace dd;
namespace t = dd::rules::testing;

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// A node with 4 GPUs, a few interfaces and three HCAs (one a prefix of another).
probe::NodeFacts base_node() {
  probe::NodeFacts f;
  f.host.hostname = "fuzz-node";
  t::set_gpus(f, 4);
  f.net = t::net({t::lo(), t::iface("eth0", {"198.18.0.1/24"}),
                  t::iface("ib0", {"198.19.0.1/24"}, {}, true, "ipoib"),
                  t::iface("docker0", {"172.17.0.1/16"}, {}, true, "docker")});
  f.ib.sysfs_present = true;
  f.ib.devices = {t::ib_dev("mlx5_0", "InfiniBand"), t::ib_dev("mlx5_1", "Ethernet"),
                  t::ib_dev("mlx5_10", "InfiniBand", "1: DOWN")};
  t::set_nccl_lib(f, "2.28.9");
  f.nccl.libs[0].version_code = 22809;
  return f;
}

void check_if_list(const std::string& v, int max) {
  nccl::IfList l = nccl::parse_if_list(v, max);
  check(static_cast<int>(l.entries.size()) <= max);
  nccl::IfList back = nccl::parse_if_list(nccl::if_list_to_string(l), max);
  check(back.exclude == l.exclude && back.exact == l.exact && back.entries.size() == l.entries.size());
  for (size_t i = 0; i < l.entries.size(); i++) {
    check(!l.entries[i].prefix.empty());
    check(back.entries[i].prefix == l.entries[i].prefix && back.entries[i].port == l.entries[i].port);
    check(nccl::if_list_selects(l, l.entries[i].prefix, l.entries[i].port) != l.exclude);
  }
}

void check_cuda_visible(const std::string& v, const probe::NodeFacts& f) {
  for (int ngpu : {-1, 0, 4}) {  // the GPU list as the rule passes it: none when the count is 0 or unknown
    rules::CudaVisible c =
        rules::parse_cuda_visible_devices(v, ngpu > 0 ? f.gpu.gpus : std::vector<probe::Gpu>{}, ngpu);
    std::set<int> seen(c.nvml_indices.begin(), c.nvml_indices.end());
    check(seen.size() == c.nvml_indices.size());
    for (int i : c.nvml_indices) check(i >= 0 && (ngpu < 0 || i < ngpu));
    if (ngpu >= 0 && c.mode != rules::CudaVisible::Mode::mig)
      check(c.count == static_cast<int>(c.nvml_indices.size()));
    size_t entries = 1;
    for (char ch : v) entries += ch == ',';
    if (c.stop_pos >= 0)
      check(static_cast<size_t>(c.stop_pos) + 1 + static_cast<size_t>(c.ignored) == entries);
    if (c.duplicate) check(c.count == 0 && c.nvml_indices.empty());
  }
}

void check_selections(const std::string& v, const probe::NodeFacts& f) {
  nccl::IbSelection ib = nccl::nccl_select_ib_ports(f.ib, v);
  check(ib.selected.size() <= ib.active.size());
  nccl::IfSelectInput in;
  in.net = &f.net;
  in.socket_ifname = v;
  in.socket_family = v;
  in.comm_id = v;
  for (int max_ifs : {1, 16}) {
    nccl::IfSelection s = nccl::nccl_select_interfaces(in, max_ifs);
    check(s.matched.size() <= static_cast<size_t>(max_ifs));
    for (const auto& m : s.matched) check(m.iface != nullptr);
  }
  nccl::nccl_bootstrap_interface(in);
  nccl::nccl_if_list_selects(v, "eth0");
}

void check_words(const std::string& v) {
  for (int version : {21903, 22400, 0})
    for (auto kind : {nccl::TuneKind::algo, nccl::TuneKind::proto}) nccl::check_tune_list(v, kind, version);
  nccl::check_path_level(v);
  nccl::nccl_debug_level_known(v);
  nccl::nccl_debug_subsys_unknown(v);
  nccl::nccl_env_name_known(v);
  nccl::nccl_env_name_retired(v);
  nccl::nccl_env_nearest_name(v);
}

// Every rule over the node with `v` in each variable the grammars read.
void check_rules(const std::string& v, probe::NodeFacts f) {
  for (const char* name : {"NCCL_SOCKET_IFNAME", "NCCL_IB_HCA", "NCCL_ALGO", "NCCL_PROTO", "NCCL_P2P_LEVEL",
                           "NCCL_NET_GDR_LEVEL", "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_SOCKET_FAMILY",
                           "NCCL_COMM_ID", "NCCL_NET", "NCCL_IB_GID_INDEX", "NCCL_BUFFSIZE"}) {
    t::set_nccl(f, name, v);
    t::set_env(f, name, v);
  }
  t::set_nccl(f, "NCCL_" + v.substr(0, 40), "1");
  t::set_env(f, "GLOO_SOCKET_IFNAME", v);
  f.cuda.visible_devices_set = true;
  f.cuda.visible_devices = v;
  t::set_env(f, "CUDA_VISIBLE_DEVICES", v);
  rules::visible_gpu_count(f);
  rules::visible_gpu_ids(f);
  rules::CheckOptions opt;
  opt.nproc_per_node = 2;
  report::Report r;
  r.findings = rules::run_node_rules(f, opt);
  std::set<std::string> ids;
  for (const auto& d : rules::all_rule_docs()) ids.insert(d.id);
  for (const auto& fi : r.findings) check(ids.count(fi.id) > 0);
  std::ostringstream text;
  report::render_text(r, text, {});
  for (unsigned char c : text.str()) check(c >= 0x20 || c == '\n');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An environment value ends at its first NUL byte.
  std::string v(reinterpret_cast<const char*>(data), size);
  v = v.substr(0, v.find('\0'));
  static const probe::NodeFacts node = base_node();
  check_if_list(v, nccl::kNcclMaxIfs);
  check_if_list(v, nccl::kNcclMaxIbDevs);
  check_cuda_visible(v, node);
  check_selections(v, node);
  check_words(v);
  check_rules(v, node);
  return 0;
}
