// The one-line summary of a report (`check --summary`), made for a scheduler's drain reason: the verdict, the
// counts and the worst finding, with no quote, newline or control byte, at most kSummaryMax characters.
//   "distdoctor check: fail: NCCL_SOCKET_IFNAME holds an IP address (10.0.0.1) [net.ifname.is_ip]; +1 fail, 2
//   warn" "distdoctor check: pass (14 ok, 3 info)"
#pragma once
#include <string>

#include "report/report.h"

namespace dd::report {

inline constexpr size_t kSummaryMax = 200;

std::string summary_line(const Report& r, const std::string& command);

}  // namespace dd::report
