// The per-collective table (as nccl-tests has one file per collective): how a size maps to element
// counts, where in-place buffers sit, how large each buffer must be in each mode, and the bus-bandwidth
// factor of nccl-tests' doc/PERFORMANCE.md. Both engines size and address their buffers from it alone.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "comm/engine/pattern.h"

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
  // In-place: elements of the one (receive) buffer that holds both the input and the output. For
  // reduce_scatter that is the whole n*chunk input, not the chunk it outputs (nccl-tests: recvbuff =
  // sendbuff + rank*recvcount); for all_gather the n*chunk output that holds the input at rank*chunk.
  uint64_t inplace_count = 0;
};

// Elements each buffer of one run must hold: out-of-place the send and the receive buffer; in-place
// only the receive buffer (the input lies inside it), `send` is 0.
struct BufferNeed {
  uint64_t send = 0, recv = 0;
};
BufferNeed buffer_need(const Sizing& s, bool in_place);

struct CollInfo {
  Coll coll;
  const char* name;
  bool has_in_place;  // an in-place form is run (nccl-tests runs one for every collective)
  double (*busbw_factor)(int nranks);
  Sizing (*size)(uint64_t bytes, size_t elem_size, int nranks, int rank);
  // The in-place result is checked. nccl-tests times in-place alltoall and sendrecv (send buffer = receive
  // buffer) but reports no error count for them ("N/A"): the output overwrites input still being sent.
  bool in_place_checked = true;
};

const std::vector<CollInfo>& collectives();
const CollInfo& coll_info(Coll c);
std::optional<Coll> coll_from_name(const std::string& name);

// algbw = bytes / time; busbw = algbw * factor (GB/s, 1e9 bytes per s).
double algbw_gbps(uint64_t bytes, double seconds);
double busbw_gbps(Coll c, int nranks, uint64_t bytes, double seconds);

}  // namespace dd::comm
