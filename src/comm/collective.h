// The per-collective table (as nccl-tests has one file per collective): how a size maps to element
// counts, where in-place buffers sit, and the bus-bandwidth factor of nccl-tests' doc/PERFORMANCE.md.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "comm/pattern.h"

namespace dd::comm {

// Element counts of one run. `bytes` is the size the table reports (nccl-tests' "size" column).
struct Sizing {
  uint64_t send_count = 0;  // elements in the send buffer
  uint64_t recv_count = 0;  // elements in the receive buffer
  uint64_t chunk = 0;       // per-rank chunk (all_gather, reduce_scatter, alltoall); else = send_count
  uint64_t bytes = 0;       // reported size: max(send, recv) bytes
  // In-place: element offsets of the send buffer and of the checked output inside the receive buffer.
  uint64_t inplace_send_offset = 0;
  uint64_t inplace_check_offset = 0;
  uint64_t check_count = 0;  // elements of the output that hold the result
};

struct CollInfo {
  Coll coll;
  const char* name;
  bool has_in_place;  // NCCL defines an in-place form
  double (*busbw_factor)(int nranks);
  Sizing (*size)(uint64_t bytes, size_t elem_size, int nranks, int rank);
};

const std::vector<CollInfo>& collectives();
const CollInfo& coll_info(Coll c);
std::optional<Coll> coll_from_name(const std::string& name);

// algbw = bytes / time; busbw = algbw * factor (GB/s, 1e9 bytes per s).
double algbw_gbps(uint64_t bytes, double seconds);
double busbw_gbps(Coll c, int nranks, uint64_t bytes, double seconds);

}  // namespace dd::comm
