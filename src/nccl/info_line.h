// What an NCCL information line tells (not an error): which interface or HCA NCCL's network transport chose,
// which bootstrap interface, which network plugin, which NCCL version: the ids, their long forms and what to
// compare. `explain` gives a reading (logs/info_reading.h) for a pasted line that matches no known error.
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

// What to compare across ranks and nodes for a line of that id, and what to change when it is wrong ("" for
// an id not of info_line_docs()). The line itself is read by logs/info_reading.h, on the INFO reader of
// `logs` (logs/nccl_facts.h): one reader of NCCL's lines.
std::string info_line_compare(std::string_view id);

// The long form of every id read_info_line() can return (for `explain ID` and `explain --list`).
const std::vector<report::FindingDoc>& info_line_docs();

}  // namespace dd::nccl
