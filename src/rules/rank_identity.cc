// odd_settings and its text (see rank_identity.h).
#include "rules/rank_identity.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "report/rank_ranges.h"

namespace dd::rules {

namespace {

bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// The ranks of each node that took part, to tell a node's setting (every rank of it) from a rank's.
std::map<int, std::vector<int>> ranks_by_node(const std::vector<const RankIdentity*>& ranks) {
  std::map<int, std::vector<int>> out;
  for (const RankIdentity* r : ranks)
    if (r->node >= 0) out[r->node].push_back(r->rank);
  return out;
}

bool is_whole_nodes(const std::vector<int>& odd, const std::vector<const RankIdentity*>& ranks) {
  std::set<int> nodes;
  for (const RankIdentity* r : ranks)
    if (std::count(odd.begin(), odd.end(), r->rank)) {
      if (r->node < 0) return false;
      nodes.insert(r->node);
    }
  auto by_node = ranks_by_node(ranks);
  size_t covered = 0;
  for (int n : nodes) covered += by_node[n].size();
  return covered == odd.size() && by_node.size() > 1;
}

// No minority: the ranks whose value is not the one their launcher gave them changed it themselves (a
// wrapper script, a per-rank branch). Needs every rank's launcher environment; leaves s as it is otherwise.
void by_expected(const std::string& name, const std::vector<const RankIdentity*>& ranks, OddSetting& s) {
  std::vector<int> own, given;
  std::set<std::string> values;
  std::string expected;
  for (const RankIdentity* r : ranks) {
    if (!r->expected_known) return;
    auto it = r->items.find(name);
    auto ex = r->expected.find(name);
    const std::string mine = it == r->items.end() ? "" : it->second;
    const std::string theirs = ex == r->expected.end() ? "" : ex->second;
    if (mine == theirs) {
      given.push_back(r->rank);
      expected = theirs;
    } else {
      own.push_back(r->rank);
      values.insert(mine);
    }
  }
  if (own.empty() || given.empty()) return;
  s.singled_out = true;
  s.ranks = own;
  s.others = given;
  s.value.clear();
  for (const std::string& v : values) s.value += (s.value.empty() ? "" : " / ") + v;
  s.others_value = expected;
}

}  // namespace

bool affects_nccl(const OddSetting& s) {
  return s.name == kNcclLibraryItem || starts(s.name, "NCCL_") || s.name == "LD_PRELOAD" ||
         s.name == "LD_LIBRARY_PATH";
}

bool identity_variable(const std::string& n) {
  for (const char* p : {"NCCL_", "CUDA_", "TORCH_", "PYTORCH_", "NVIDIA_", "UCX_"})
    if (starts(n, p)) return true;
  return n == "LD_PRELOAD" || n == "LD_LIBRARY_PATH";
}

std::vector<OddSetting> odd_settings(const std::vector<RankIdentity>& all,
                                     const std::vector<std::string>& ignore) {
  std::vector<const RankIdentity*> ranks;
  std::set<std::string> names;
  for (const RankIdentity& r : all) {
    if (!r.known) continue;
    ranks.push_back(&r);
    for (const auto& [k, v] : r.items) names.insert(k);
  }
  std::vector<OddSetting> out;
  if (ranks.size() < 2) return out;
  for (const std::string& name : names) {
    if (std::count(ignore.begin(), ignore.end(), name)) continue;
    std::map<std::string, std::vector<int>> groups;  // value -> ranks
    size_t compared = 0;
    for (const RankIdentity* r : ranks) {
      auto it = r->items.find(name);
      // A library not (yet) loaded when the rank was read is unknown, not another one.
      if (it == r->items.end() && name == kNcclLibraryItem) continue;
      groups[it == r->items.end() ? std::string() : it->second].push_back(r->rank);
      ++compared;
    }
    // The same everywhere, or a value of its own on each of three or more ranks: made per rank on purpose.
    if (groups.size() < 2 || (groups.size() == compared && compared > 2)) continue;
    const std::vector<int>* small = nullptr;
    const std::vector<int>* big = nullptr;
    size_t ties = 0;
    for (const auto& [v, rs] : groups) {
      if (!small || rs.size() < small->size())
        small = &rs, ties = 0;
      else if (rs.size() == small->size())
        ++ties;
      if (!big || rs.size() > big->size()) big = &rs;
    }
    OddSetting s;
    s.name = name;
    s.singled_out = ties == 0 && small->size() < big->size();
    for (const auto& [v, rs] : groups) {
      const bool odd = s.singled_out ? &rs == small : &rs != big;
      (odd ? s.ranks : s.others).insert((odd ? s.ranks : s.others).end(), rs.begin(), rs.end());
      if (&rs == big) s.others_value = v;
      if (odd) s.value += (s.value.empty() ? "" : " / ") + (v.empty() && !s.singled_out ? "unset" : v);
    }
    if (!s.singled_out) by_expected(name, ranks, s);
    std::sort(s.ranks.begin(), s.ranks.end());
    std::sort(s.others.begin(), s.others.end());
    s.whole_node = is_whole_nodes(s.ranks, ranks);
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [](const OddSetting& a, const OddSetting& b) {
    return (a.name == kNcclLibraryItem) > (b.name == kNcclLibraryItem);
  });
  return out;
}

std::string odd_setting_text(const OddSetting& s) {
  const bool one = s.ranks.size() == 1, they_one = s.others.size() == 1;
  if (!s.singled_out) {  // no side to blame: both, side by side
    const auto shown = [](const std::string& v) { return v.empty() ? std::string("unset") : v; };
    return fmt::format("ranks disagree on {}: {} {}, {} {}",
                       s.name == kNcclLibraryItem ? std::string("the NCCL library") : s.name,
                       report::ranks_phrase(s.ranks), shown(s.value), report::ranks_phrase(s.others),
                       shown(s.others_value));
  }
  if (s.name == kNcclLibraryItem)
    return fmt::format("{} load{} NCCL {} where {} load{} {}", report::ranks_phrase(s.ranks), one ? "s" : "",
                       s.value.empty() ? std::string("(none)") : s.value, report::ranks_phrase(s.others),
                       they_one ? "s" : "", s.others_value.empty() ? std::string("none") : s.others_value);
  const std::string mine = s.value.empty() ? fmt::format("{} unset", s.name) : s.name + "=" + s.value;
  const std::string theirs = s.others_value.empty()
                                 ? fmt::format("leave{} it unset", they_one ? "s" : "")
                                 : fmt::format("ha{} {}={}", they_one ? "s" : "ve", s.name, s.others_value);
  return fmt::format("{} {} {} where {} {}", report::ranks_phrase(s.ranks), one ? "has" : "have", mine,
                     report::ranks_phrase(s.others), theirs);
}

}  // namespace dd::rules
