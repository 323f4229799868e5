// Text forms of the numbers comm prints: bandwidth and sizes (one formatter each, shared by the runner,
// bench and its extra passes).
#pragma once
#include <cstdint>
#include <string>

namespace dd::comm {

// "12.3" (GB/s, one decimal; callers add the unit where they want it).
std::string gbps_text(double gbps);
// "12.3 GB/s".
std::string gbps_with_unit(double gbps);
// "64 MiB", "1.5 KiB": the size in the largest binary unit (B .. GiB).
std::string bytes_text(uint64_t bytes);
// "64 MiB", "1000 B": a unit only when the size is a whole number of it (run labels: sizes stay exact).
std::string exact_bytes_text(uint64_t bytes);

}  // namespace dd::comm
