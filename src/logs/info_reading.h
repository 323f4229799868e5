// What an NCCL information line tells (nccl/info_line.h: the ids and what to compare), read by the same INFO
// reader `logs` uses for its facts (nccl_facts.h): `explain` gives this reading for a pasted line that
// matches no known error. Pure.
#pragma once
#include <optional>
#include <string_view>

#include "nccl/info_line.h"

namespace dd::logs {

// The reading of one line, or nullopt when it is not one of the information lines NCCL prints at init.
std::optional<nccl::InfoReading> read_info_line(std::string_view line);

}  // namespace dd::logs
