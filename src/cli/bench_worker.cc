// run_as_worker (see bench_worker.h).
#include "cli/bench_worker.h"

#include <unistd.h>

#include <iostream>

#include "comm/run/worker.h"
#include "common/json_limits.h"
#include "probe/regular_file.h"
#include "probe/tool_env.h"

namespace dd::cli {

int run_as_worker(const BenchArgs& a) {
  auto text = probe::read_regular_file(a.as_worker);  // the one safe opener: no FIFO, no endless file
  if (!text || text->truncated) {
    std::cerr << "worker: cannot read plan " << a.as_worker << ": "
              << (text ? "larger than a plan can be" : text.error().message()) << "\n";
    return 3;
  }
  nlohmann::json j;
  try {
    j = dd::parse_json(text->text);
  } catch (const std::exception& e) {
    std::cerr << "worker: bad plan " << a.as_worker << ": " << e.what() << "\n";
    return 3;
  }
  int rc =
      comm::run_worker(comm::plan_from_json(j), parse_ints(a.worker_ranks), probe::tool_env().store_token, 3);
  std::cout.flush();
  std::cerr.flush();
  _exit(rc);  // skip library destructors (NCCL, CUDA): the process is done
}

}  // namespace dd::cli
