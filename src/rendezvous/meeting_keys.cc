// The meeting key scheme (see meeting_keys.h).
#include "rendezvous/meeting_keys.h"

#include <fmt/format.h>

namespace dd::rendezvous {

MeetingKeys::MeetingKeys(std::string prefix) : prefix_(std::move(prefix)) {
  if (!prefix_.empty() && prefix_.back() != '/') prefix_ += '/';
}

std::string MeetingKeys::at(std::string_view what) const { return prefix_ + std::string(what); }

std::string MeetingKeys::of(std::string_view what, int rank) const {
  return fmt::format("{}{}/{}", prefix_, what, rank);
}

std::string MeetingKeys::dup(int rank, int64_t claim) const {
  return fmt::format("{}dup/{}/{}", prefix_, rank, claim);
}

MeetingKeys MeetingKeys::sub(std::string_view name) const { return MeetingKeys(at(name)); }

}  // namespace dd::rendezvous
