// The one-line summary of a report (`check --summary`), made for a scheduler's drain reason: the verdict, the
// counts (findings that fail, warn, pass: ok and info) and the worst finding, with no quote, newline or
// control byte, at most kSummaryMax characters.
//   "distdoctor check: fail (2 fail, 2 warn, 10 pass): gpu7: NCCL_SOCKET_IFNAME holds an IP address
//   (10.0.0.1) [net.ifname.is_ip]"
//   "distdoctor check: pass (0 fail, 0 warn, 17 pass)"
#pragma once
#include <string>

#include "report/report.h"

namespace dd::report {

inline constexpr size_t kSummaryMax = 200;

std::string summary_line(const Report& r, const std::string& command);

}  // namespace dd::report
