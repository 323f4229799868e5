// Timestamps at the start of log lines, as a key that orders events across ranks: NCCL's "[2026-11-23
// 15:02:00] ", glog's "E1123 15:02:00.551802" (PyTorch C++, torchrun, Paddle), Python logging's
// "2022-07-20 09:46:51,333" and Paddle's "LAUNCH INFO 2022-07-20 09:38:33,358". Pure.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace dd::logs {

// Microseconds since 1 January of an unnamed year (glog prints no year, so the year is dropped everywhere);
// -1 when the line does not start with a timestamp. "[rank1]:" / "[default0]:" prefixes are skipped.
int64_t log_time_key(std::string_view line);

// "11-23 15:02:00.551" for a key (as evidence text); "" for -1.
std::string log_time_text(int64_t key);

}  // namespace dd::logs
