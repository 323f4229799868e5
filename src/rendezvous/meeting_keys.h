// MeetingKeys: the one key scheme of a rendezvous (check's join, launch's node agents, launch's preflight and
// attempts), every key under one prefix that the command chooses ("dd/", "launch/", "launch/preflight/"):
// claim/R (counter), member/R (the member's record), ~live/R (gone with its connection: is_live_key),
// dup/R/N, per-rank keys WHAT/R, and single keys such as "go". Two meetings with two prefixes share a store
// without seeing each other's keys.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace dd::rendezvous {

class MeetingKeys {
 public:
  // A '/' is appended to a prefix that does not end with one ("" stays "": keys at the top).
  explicit MeetingKeys(std::string prefix);

  const std::string& prefix() const { return prefix_; }
  std::string at(std::string_view what) const;                       // "dd/go"
  std::string of(std::string_view what, int rank) const;             // "dd/mesh/3"
  std::string claim(int rank) const { return of("claim", rank); }    // counter: >1 = claimed twice
  std::string member(int rank) const { return of("member", rank); }  // the member's record (JSON)
  std::string live(int rank) const { return of("~live", rank); }     // lives as long as its connection
  std::string dup(int rank, int64_t claim) const;                    // "dd/dup/R/N": an extra claimer
  // The keys of a part of the meeting under their own prefix: sub("a3").of("beat", 1) = "launch/a3/beat/1".
  MeetingKeys sub(std::string_view name) const;

 private:
  std::string prefix_;
};

}  // namespace dd::rendezvous
