// measure_clock_offsets (clock_offsets.h): node rank 0 asks, the others answer, node rank 0 publishes.
#include "launch/clock_offsets.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "common/wall_clock.h"

namespace dd::launch {

namespace {

// Microseconds of the wall clock, as text (the answer a node writes).
std::string now_us() { return std::to_string(static_cast<int64_t>(unix_seconds_now() * 1e6)); }

}  // namespace

void to_json(nlohmann::json& j, const ClockOffset& c) {
  j = nlohmann::json::array();
  if (std::isfinite(c.offset_ms) && std::isfinite(c.error_ms)) j = {c.offset_ms, c.error_ms};
}

void from_json(const nlohmann::json& j, ClockOffset& c) {
  c = {};
  if (j.is_array() && j.size() == 2 && j[0].is_number() && j[1].is_number() && j[1].get<double>() >= 0)
    c = {j[0].get<double>(), j[1].get<double>()};
}

Result<std::vector<ClockOffset>> measure_clock_offsets(rendezvous::Store& store,
                                                       const rendezvous::MeetingKeys& keys, int node_rank,
                                                       int nnodes,
                                                       std::chrono::steady_clock::time_point until) {
  const rendezvous::MeetingKeys k = keys.sub("clock");
  std::vector<ClockOffset> out(static_cast<size_t>(std::max(nnodes, 1)));
  out[0] = {0, 0};
  if (nnodes <= 1) return out;
  if (node_rank != 0) {
    // Answer the ping with this node's clock the moment it is read, then read every node's offset.
    if (Status st = store.wait({k.of("ping", node_rank)}, until); !st) return st.error();
    if (Status st = store.set(k.of("pong", node_rank), now_us(), until); !st) return st.error();
    auto all = store.get(k.at("offsets"), until);
    if (!all) return all.error();
    const nlohmann::json j = nlohmann::json::parse(*all, nullptr, false);
    if (!j.is_array()) return Error::make(ErrorKind::protocol, "node rank 0's clock offsets are unreadable");
    for (size_t i = 0; i < out.size() && i < j.size(); ++i) from_json(j[i], out[i]);
    return out;
  }
  // Node rank 0: one node at a time, so each round trip is that node's alone. A node that has not answered
  // by `until` keeps NaN; the round still ends (its ping stays: it answers into a key nobody reads).
  const auto asks_until = std::min(until, std::chrono::steady_clock::now() + kClockMeasureTime);
  for (int n = 1; n < nnodes; ++n) {
    const double sent = unix_seconds_now() * 1e6;
    if (!store.set(k.of("ping", n), "1", asks_until)) continue;
    auto pong = store.get(k.of("pong", n), asks_until);
    const double back = unix_seconds_now() * 1e6;
    int64_t theirs = 0;
    if (!pong || std::from_chars(pong->data(), pong->data() + pong->size(), theirs).ec != std::errc{})
      continue;
    out[static_cast<size_t>(n)] = {(static_cast<double>(theirs) - (sent + back) / 2) / 1e3,
                                   (back - sent) / 2e3};
  }
  nlohmann::json j = nlohmann::json::array();
  for (const auto& c : out) j.push_back(c);
  if (Status st = store.set(k.at("offsets"), j.dump(), until); !st) return st.error();
  return out;
}

bool align_fr_clocks(logs::FrSummary& s, const std::vector<ClockOffset>& offsets) {
  std::vector<int> nodes;
  for (const auto& r : s.ranks) {
    const bool known = r.node >= 0 && static_cast<size_t>(r.node) < offsets.size() &&
                       std::isfinite(offsets[static_cast<size_t>(r.node)].offset_ms) &&
                       offsets[static_cast<size_t>(r.node)].error_ms <= kAlignMaxErrorMs;
    if (!known) return false;
    if (std::find(nodes.begin(), nodes.end(), r.node) == nodes.end()) nodes.push_back(r.node);
  }
  if (nodes.size() < 2) return false;
  for (auto& r : s.ranks) {
    const auto shift =
        static_cast<int64_t>(std::llround(offsets[static_cast<size_t>(r.node)].offset_ms * 1e6));
    for (auto& g : r.groups)
      for (int64_t& t : g.arrival_ns)
        if (t >= 0) t = std::max<int64_t>(0, t - shift);
    r.node = logs::kClocksAligned;
  }
  return true;
}

}  // namespace dd::launch
