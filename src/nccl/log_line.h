// Parser for one log line: framework prefixes ("[rank0]:", "[default1]:", "3: "), NCCL's optional timestamp,
// and NCCL's "host:pid:tid [dev] NCCL INFO|WARN ..." header (WARN with "file:line" and, since 2.2x,
// "(func)").
#pragma once
#include <cstdint>
#include <string_view>

namespace dd::nccl {

enum class NcclLevel : uint8_t { none, info, warn, trace, version };

struct NcclLine {
  NcclLevel level = NcclLevel::none;
  std::string_view host;
  int64_t pid = -1;
  int64_t tid = -1;
  int dev = -1;
  std::string_view src;  // "misc/socket.cc:484" on WARN lines
  std::string_view msg;  // the message after "NCCL INFO " / "NCCL WARN "; for level none, the whole line
  int fw_rank = -1;      // rank from a "[rankN]:" / "[defaultN]:" prefix
};

// Never fails: a line that is not NCCL output comes back with level none and msg = the line (prefix
// stripped).
NcclLine parse_nccl_line(std::string_view line);

// Parses a leading decimal integer; returns false if none.
bool parse_int(std::string_view s, int64_t& out, size_t* used = nullptr);

// The integer right after the first `key` in s, as parse_int reads it ("SeqNum=" in "WorkNCCL(SeqNum=7,
// ..."); `missing` when s has no key, or no number after it.
int64_t int_after(std::string_view s, std::string_view key, int64_t missing = -1);

}  // namespace dd::nccl
