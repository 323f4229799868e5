// The per-collective table: sizes, in-place offsets and bus-bandwidth factors of each collective.
// Factors follow nccl-tests' doc/PERFORMANCE.md: all_reduce 2(n-1)/n; all_gather, reduce_scatter and
// alltoall (n-1)/n; broadcast, reduce and send/recv 1. Sizes and in-place offsets follow nccl-tests'
// *GetCollByteCount (reduce_scatter in-place: input at the buffer's start, output at rank*chunk;
// all_gather in-place: input at rank*chunk of the output), except that per-rank chunks are not rounded
// down to 16 bytes (sizes differ from nccl-tests only when bytes/n is not a multiple of 16).
#include "comm/engine/collective.h"

#include <algorithm>

namespace dd::comm {

namespace {

double factor_one(int) { return 1.0; }
double factor_allreduce(int n) { return n > 0 ? 2.0 * (n - 1) / n : 0; }
double factor_nm1(int n) { return n > 0 ? double(n - 1) / n : 0; }

Sizing whole(uint64_t bytes, size_t es, int, int) {
  Sizing s;
  s.send_count = s.recv_count = s.chunk = s.check_count = bytes / es;
  s.bytes = s.send_count * es;
  s.inplace_count = s.send_count;
  return s;
}

Sizing gather(uint64_t bytes, size_t es, int n, int rank) {  // send one chunk, receive n
  Sizing s;
  s.chunk = s.send_count = bytes / es / n;
  s.recv_count = s.check_count = s.chunk * n;
  s.bytes = s.recv_count * es;
  s.inplace_send_offset = uint64_t(rank) * s.chunk;
  s.inplace_count = s.recv_count;
  return s;
}

Sizing scatter(uint64_t bytes, size_t es, int n, int rank) {  // send n chunks, receive one
  Sizing s;
  s.chunk = s.recv_count = s.check_count = bytes / es / n;
  s.send_count = s.chunk * n;
  s.bytes = s.send_count * es;
  s.inplace_check_offset = uint64_t(rank) * s.chunk;
  s.inplace_count = s.send_count;  // the input, n chunks, is the buffer; the output is one chunk of it
  return s;
}

Sizing alltoall(uint64_t bytes, size_t es, int n, int) {
  Sizing s;
  s.chunk = bytes / es / n;
  s.send_count = s.recv_count = s.check_count = s.chunk * n;
  s.bytes = s.send_count * es;
  s.inplace_count = s.send_count;
  return s;
}

}  // namespace

const std::vector<CollInfo>& collectives() {
  static const std::vector<CollInfo> table = {
      {Coll::all_reduce, "all_reduce", true, factor_allreduce, whole},
      {Coll::all_gather, "all_gather", true, factor_nm1, gather},
      {Coll::reduce_scatter, "reduce_scatter", true, factor_nm1, scatter},
      {Coll::broadcast, "broadcast", true, factor_one, whole},
      {Coll::reduce, "reduce", true, factor_one, whole},
      {Coll::alltoall, "alltoall", true, factor_nm1, alltoall, /*in_place_checked=*/false},
      {Coll::sendrecv, "sendrecv", true, factor_one, whole, /*in_place_checked=*/false},
  };
  return table;
}

BufferNeed buffer_need(const Sizing& s, bool in_place) {
  if (!in_place) return {s.send_count, s.recv_count};
  uint64_t need = std::max({s.inplace_count, s.inplace_send_offset + s.send_count,
                            s.inplace_check_offset + s.check_count, s.recv_count});
  return {0, need};
}

const CollInfo& coll_info(Coll c) { return collectives().at(size_t(c)); }

std::optional<Coll> coll_from_name(const std::string& name) {
  std::string n = name;
  std::replace(n.begin(), n.end(), '-', '_');
  if (n == "allreduce") n = "all_reduce";
  if (n == "allgather") n = "all_gather";
  if (n == "reducescatter") n = "reduce_scatter";
  if (n == "all_to_all") n = "alltoall";
  if (n == "send_recv" || n == "p2p") n = "sendrecv";
  for (const auto& c : collectives())
    if (n == c.name) return c.coll;
  return std::nullopt;
}

double algbw_gbps(uint64_t bytes, double seconds) { return seconds > 0 ? double(bytes) / seconds / 1e9 : 0; }

double busbw_gbps(Coll c, int nranks, uint64_t bytes, double seconds) {
  return algbw_gbps(bytes, seconds) * coll_info(c).busbw_factor(nranks);
}

}  // namespace dd::comm
