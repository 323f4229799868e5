// The wall clock as Unix seconds (with a fraction): what metrics and recorded times carry.
#pragma once
#include <chrono>

namespace dd {

inline double unix_seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace dd
