// Text rendering of the mesh: one matrix per interface name, rows connect from, columns connect to.
#include <fmt/format.h>

#include <set>

#include "cluster/mesh.h"

namespace dd::cluster {

namespace {
std::string cell(const MeshProbe& p) {
  if (p.ok)
    return p.mbps_send > 0 ? fmt::format("{:.2f}ms {:.0f}MB/s", p.connect_ms, p.mbps_send)
                           : fmt::format("{:.2f}ms", p.connect_ms);
  if (p.error == "no route") return "NOROUTE";
  if (p.error == "wrong peer") return "WRONGPEER";
  std::string e = p.error;
  for (auto& ch : e) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return e;
}
}  // namespace

std::vector<std::string> render_mesh_matrix(const ClusterView& v) {
  std::vector<std::string> out;
  if (!v.mesh.ran) return out;
  std::set<std::string> ifnames;
  std::map<std::tuple<int, int, std::string>, const MeshProbe*> idx;
  for (const auto& p : v.mesh.probes) {
    ifnames.insert(p.to_if);
    idx[{p.from, p.to, p.to_if}] = &p;
  }
  size_t width = 9;
  for (const auto& n : v.nodes) width = std::max(width, n.hostname.size() + 5);
  for (const auto& [k, p] : idx) width = std::max(width, cell(*p).size() + 1);
  for (const auto& ifn : ifnames) {
    out.push_back(fmt::format("mesh to {} (rows connect to columns; connect time or error):", ifn));
    std::string head = fmt::format("  {:<{}}", "from\\to", width);
    for (const auto& n : v.nodes)
      head += fmt::format("{:<{}}", fmt::format("{}({})", n.hostname, n.node_rank), width);
    out.push_back(head);
    for (size_t i = 0; i < v.nodes.size(); ++i) {
      std::string row =
          fmt::format("  {:<{}}", fmt::format("{}({})", v.nodes[i].hostname, v.nodes[i].node_rank), width);
      for (size_t j = 0; j < v.nodes.size(); ++j) {
        auto it = idx.find({static_cast<int>(i), static_cast<int>(j), ifn});
        row += fmt::format("{:<{}}", i == j ? "-" : it == idx.end() ? "." : cell(*it->second), width);
      }
      out.push_back(row);
    }
  }
  return out;
}

}  // namespace dd::cluster
