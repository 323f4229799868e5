// The sweep's buffers per rank and the fit test (see bench_memory.h).
#include "comm/bench_memory.h"

#include <algorithm>

#include "comm/engine/collective.h"

namespace dd::comm {

SweepMemory sweep_memory(const BenchOptions& b, int world) {
  SweepMemory m;
  const bool gloo = b.run.engine == rules::EngineKind::gloo;
  for (const OpRequest& op : build_sweep(b, world)) {
    const size_t es = dtype_size(op.dtype);
    const CollInfo& ci = coll_info(op.coll);
    for (int rank = 0; rank < world; ++rank) {
      const Sizing s = ci.size(op.bytes, es, world, rank);
      const BufferNeed n = buffer_need(s, op.in_place);
      m.send = std::max<uint64_t>(m.send, n.send * es);
      m.recv = std::max<uint64_t>(m.recv, n.recv * es);
      if (!gloo) continue;
      if (op.in_place && (op.coll == Coll::alltoall || op.coll == Coll::sendrecv))
        m.stage = std::max<uint64_t>(m.stage, s.recv_count * es);
      if (!op.in_place && op.coll == Coll::reduce_scatter)
        m.temp = std::max<uint64_t>(m.temp, s.send_count * es);
    }
  }
  m.buffers = (m.send > 0) + (m.recv > 0) + (m.stage > 0) + (m.temp > 0);
  return m;
}

bool fits(uint64_t per_rank, int ranks, uint64_t available) {
  return double(per_rank) * std::max(ranks, 0) <= kBufferShare * double(available);
}

}  // namespace dd::comm
