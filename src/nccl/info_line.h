// What an NCCL information line tells (not an error): which interface or HCA NCCL's network transport chose,
// which bootstrap interface, which network plugin, which NCCL version. `explain` gives this reading for a
// pasted line that matches no known error.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/finding_doc.h"

namespace dd::nccl {

struct InfoReading {
  std::string id;       // "nccl.line.net_socket", ...: one of info_line_docs()
  std::string title;    // the reading of this line: "NCCL's socket transport uses eth0 (10.10.10.1)"
  std::string compare;  // what to compare across ranks and nodes, and what to change when it is wrong
};

// The reading of one line, or nullopt when it is not one of the information lines NCCL prints at init.
std::optional<InfoReading> read_info_line(std::string_view line);

// The long form of every id read_info_line() can return (for `explain ID` and `explain --list`).
const std::vector<report::FindingDoc>& info_line_docs();

}  // namespace dd::nccl
