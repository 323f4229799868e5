// Long forms of the logs.* ids that logs_findings.cc emits itself (inputs that could not be read fully, NCCL
// WARNs the catalogue does not explain): data only. The cross-rank rules' ids are documented in their rows
// (log_rules.h); logs_finding_docs() (log_rules.cc) lists both.
#include "logs/log_finding_ids.h"
#include "logs/log_rules.h"

namespace dd::logs {

const std::vector<report::FindingDoc>& logs_input_docs() {
  static const std::vector<report::FindingDoc> docs = {
      {ids::kNcclWarn, "NCCL WARN lines the catalogue does not know",
       "NCCL printed WARN lines that no catalogue entry explains; the first WARN of the first failing rank "
       "is usually the cause."},
      {"logs.input.unreadable", "An input could not be read (completely)",
       "A path does not exist, cannot be opened, or a .gz is truncated or corrupt (its readable part is "
       "used)."},
      {"logs.input.empty", "An input file is empty", "Nothing was logged, or logging went elsewhere."},
      {"logs.input.binary", "An input holds binary data", "NUL bytes were found; lines are still scanned."},
      {"logs.input.long_lines", "Over-long lines were cut",
       "Lines longer than --max-line-bytes are cut there."},
      {"logs.input.capped", "An input passed a limit that holds for the whole run",
       "One run keeps at most 65,536 processes over all its files and threads together (a cap per file would "
       "multiply by the number of files: twenty such files took 2.76 GB). Past it, each file's further "
       "processes are counted with its last one, so their facts are merged and findings about them may be "
       "wrong. Likewise at most 65,536 PyTorch watchdog records are kept over all files (1,024 per rank in "
       "one file); the rest are left out. The evidence names the files, the limit and the line where it was "
       "reached."},
  };
  return docs;
}

}  // namespace dd::logs
