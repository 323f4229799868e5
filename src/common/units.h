// Numbers in the words a person reads: sizes in KiB/MiB/GiB (never "0 B" for a size above zero) and CUDA
// versions as major.minor, for every message that would otherwise print a raw count ("memlock 8388608",
// "driver 12080").
#pragma once
#include <cstdint>
#include <string>

namespace dd {

// The binary units a size is written in, smallest first.
enum class SizeUnit { B, KiB, MiB, GiB, TiB, PiB };

struct ScaledSize {
  double value = 0;  // the size in `unit`: 1.5 for 1.5 GiB
  const char* unit = "B";
};

// The one ladder of binary units every size in words climbs: the largest unit the size reaches, up to
// `largest`; whole_only: climb only while the size is a whole number of the next unit (1536 B stays B).
ScaledSize scale_size(double bytes, SizeUnit largest, bool whole_only = false);

// "8 MiB", "1.5 GiB", "512 B", "0 B" (three significant digits, up to TiB); negative (unknown) -> "?".
std::string size_in_words(int64_t bytes);

// A size as an estimate: "about 64 MiB"; zero -> "nothing"; above zero and under 1 KiB -> "under 1 KiB".
std::string estimate_in_words(int64_t bytes);

// CUDA's version number (cudaDriverGetVersion, NCCL's "cudaDriverVersion 12080"): "12.8 (12080)"; zero or
// negative (unknown) -> "?".
std::string cuda_version_in_words(int version);

}  // namespace dd
