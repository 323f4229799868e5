// An SVG chart of each rank's lateness over a run (fr_lateness.h), written by launch beside an attempt's logs
// (ATTEMPT/lateness.svg): one panel per process group and clock (and one from GPU times where the dumps have
// them), x the seconds since the panel's first compared collective, y each rank's lateness in ms, one line
// per rank. Pure.
#pragma once
#include <string>
#include <vector>

#include "logs/fr/fr_lateness.h"

namespace dd::logs {

inline constexpr size_t kLatenessPanels = 4;  // panels drawn at most (the groups with the most ranks first)
inline constexpr size_t kLatenessLines = 16;  // lines per panel at most (the latest ranks first)

// "" when there is nothing to draw (no group with two ranks compared).
std::string render_lateness_svg(const std::vector<FrRankLateness>& ranks, const std::string& title);

}  // namespace dd::logs
