// The last Python traceback in a worker's output: from "Traceback (most recent call last):" to the exception
// line ("ValueError: bad shape"), chained tracebacks included, rank prefixes ("[rank1]: ") removed. Pure.
#pragma once
#include <string>
#include <vector>

namespace dd::logs {

// lines: the output, oldest first (a log's tail). Returns "" when there is no traceback.
std::string last_python_traceback(const std::vector<std::string>& lines);

// The exception line of a traceback ("RuntimeError: NCCL error ..."), "" when none.
std::string traceback_exception(const std::string& traceback);

}  // namespace dd::logs
