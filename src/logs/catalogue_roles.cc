// Catalogue roles: their JSON names, the checks an entry's roles must pass, the needle lists each role's
// reader takes (built once per catalogue), and how `explain` says them.
#include "logs/catalogue_roles.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <string>

namespace dd::logs {

namespace {

constexpr std::array<const char*, kCatalogueRoles> kRoleNames = {"cause", "consequence", "hang_trigger",
                                                                 "peer_failure"};
constexpr std::array<const char*, 4> kHangKindNames = {"watchdog_timeout", "dump_signal", "abort",
                                                       "comm_error"};
constexpr std::array<const char*, 2> kPeerKindNames = {"lost_peer", "survivor_error"};

// The index of `name` in `names`, or -1.
template <size_t N>
int name_index(const std::array<const char*, N>& names, const std::string& name) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i]) return static_cast<int>(i);
  return -1;
}

template <size_t N>
std::string names_list(const std::array<const char*, N>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

Error entry_error(const CatalogueEntry& e, const std::string& what) {
  return Error{"catalogue entry " + e.id + ": " + what};
}

// A role's kind field ("hang_kind", "peer_kind"): required with the role, refused without it.
template <typename Kind, size_t N>
Status read_kind(const nlohmann::json& j, CatalogueEntry& e, CatalogueRole role, const char* field,
                 const std::array<const char*, N>& names, Kind& out) {
  const std::string role_name = kRoleNames[static_cast<size_t>(role)];
  if (!e.has_role(role)) {
    if (j.contains(field)) return entry_error(e, std::string(field) + " needs the role " + role_name);
    return ok_status();
  }
  const std::string name = j.value(field, "");
  const int k = name_index(names, name);
  if (k < 0)
    return entry_error(e, "role " + role_name + " needs " + field + ": one of " + names_list(names) +
                              (name.empty() ? "" : ", not \"" + name + "\""));
  out = static_cast<Kind>(k);
  return ok_status();
}

}  // namespace

const char* hang_trigger_kind_name(HangTriggerKind k) { return kHangKindNames[static_cast<size_t>(k)]; }
const char* peer_kind_name(PeerKind k) { return kPeerKindNames[static_cast<size_t>(k)]; }

Status read_roles(const nlohmann::json& j, CatalogueEntry& e) {
  std::vector<std::string> names;
  if (!j.contains("role"))
    names = {"cause"};
  else if (j["role"].is_string())
    names = {j["role"].get<std::string>()};
  else
    names = j["role"].get<std::vector<std::string>>();  // throws on another type: the caller names the entry
  e.roles = 0;
  for (const auto& n : names) {
    const int r = name_index(kRoleNames, n);
    if (r < 0) return entry_error(e, "role must be one of " + names_list(kRoleNames) + ", not \"" + n + "\"");
    e.roles |= static_cast<uint8_t>(1u << r);
  }
  if (e.roles == 0) return entry_error(e, "role must name at least one role");
  if (e.has_role(CatalogueRole::cause) && e.has_role(CatalogueRole::consequence))
    return entry_error(e, "role may be cause or consequence, not both");
  e.consequence_of = j.value("consequence_of", std::vector<std::string>{});
  if (!e.consequence_of.empty() && !e.has_role(CatalogueRole::consequence))
    return entry_error(e, "consequence_of needs the role consequence");
  if (auto s = read_kind(j, e, CatalogueRole::hang_trigger, "hang_kind", kHangKindNames, e.hang_kind);
      !s.ok())
    return s;
  return read_kind(j, e, CatalogueRole::peer_failure, "peer_kind", kPeerKindNames, e.peer_kind);
}

Status check_consequence_of(const Catalogue& c) {
  for (const auto& e : c.entries())
    for (const auto& id : e.consequence_of) {
      const CatalogueEntry* of = c.find(id);
      if (!of) return entry_error(e, "consequence_of names " + id + ", which is no entry of the catalogue");
      if (of == &e || !of->is_finding())
        return entry_error(e, "consequence_of names " + id + ", which is not another entry's finding");
    }
  return ok_status();
}

void Catalogue::build_role_needles() {
  for (auto& list : role_needles_) list.clear();
  for (size_t r = 0; r < kCatalogueRoles; ++r)
    for (size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].has_role(static_cast<CatalogueRole>(r)))
        for (const auto& n : entries_[i].needles) role_needles_[r].push_back({n, static_cast<uint32_t>(i)});
  // The kind that wins first comes first (HangTriggerKind's order); within a kind, catalogue order.
  auto& hang = role_needles_[static_cast<size_t>(CatalogueRole::hang_trigger)];
  std::stable_sort(hang.begin(), hang.end(), [this](const RoleNeedle& a, const RoleNeedle& b) {
    return entries_[a.entry].hang_kind < entries_[b.entry].hang_kind;
  });
}

std::string role_words(const CatalogueEntry& e) {
  std::vector<std::string> said;
  if (e.has_role(CatalogueRole::consequence)) {
    const std::string of = fmt::format("{}", fmt::join(e.consequence_of, ", "));
    said.push_back(
        "a consequence: this line usually follows from another failure (a peer that died or hung, an error a "
        "more specific line explains)" +
        (of.empty() ? std::string() : " such as " + of) +
        "; `logs` names that cause first and marks this line as its consequence");
  }
  if (e.has_role(CatalogueRole::hang_trigger))
    said.push_back(
        std::string("a hang trigger (") + hang_trigger_kind_name(e.hang_kind) +
        "): a worker prints it once a collective failed or timed out; `launch` stops the job at the "
        "first one and diagnoses the hang");
  if (e.has_role(CatalogueRole::peer_failure))
    said.push_back(std::string("a peer failure (") + peer_kind_name(e.peer_kind) + "): " +
                   (e.peer_kind == PeerKind::lost_peer
                        ? "the rank lost a peer; `logs` counts the rank as a survivor, not the failed one"
                        : "a traceback holding it is a survivor's, not the rank's own error"));
  if (!e.is_finding()) said.push_back("never a finding of its own");
  return fmt::format("{}", fmt::join(said, "; "));
}

}  // namespace dd::logs
