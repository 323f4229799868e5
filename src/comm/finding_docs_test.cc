// Every comm.* id the code emits has a doc, and ids are unique.
#include "comm/finding_docs.h"

#include <gtest/gtest.h>

#include <set>

namespace dd::comm {

TEST(CommFindingDocs, UniqueAndComplete) {
  std::set<std::string> ids;
  for (const auto& d : comm_finding_docs()) {
    EXPECT_TRUE(ids.insert(d.id).second) << "duplicate " << d.id;
    EXPECT_FALSE(d.title.empty()) << d.id;
    EXPECT_FALSE(d.explanation.empty()) << d.id;
  }
  for (const char* id : {"comm.bw.link",
                         "comm.bw.low",
                         "comm.bw.slow_pair",
                         "comm.collectives.ok",
                         "comm.cuda.unavailable",
                         "comm.data.wrong",
                         "comm.error",
                         "comm.gpu.duplicate",
                         "comm.gpu.none",
                         "comm.gpu.too_few",
                         "comm.init.timeout",
                         "comm.nccl.missing",
                         "comm.net.connect",
                         "comm.net.no_interface",
                         "comm.op.timeout",
                         "comm.peer.gone",
                         "comm.transport.default",
                         "comm.transport.net",
                         "comm.transport.net_failed",
                         "comm.tune.better",
                         "comm.tune.default_best",
                         "comm.worker.died",
                         "comm.worker.stopped",
                         "comm.worker.stuck"})
    EXPECT_TRUE(ids.count(id)) << id;
}

}  // namespace dd::comm
