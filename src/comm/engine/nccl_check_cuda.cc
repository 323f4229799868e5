// NcclGroup's data check: poisoned outputs and known inputs before a run, the on-device comparison of every
// output element after it, and the wrong-element counts read back. Buffer extents come from the collective
// table (buffer_need): in-place, the input lies inside the receive buffer.
#include "comm/engine/kernels_cuda.h"
#include "comm/engine/nccl_group_cuda.h"

namespace dd::comm {

// Adds each active rank's wrong-element count, its first wrong element and the elements it compared to its
// result.
void NcclGroup::collect_wrong(const OpRequest& req, const std::vector<NcclRank*>& active,
                              std::vector<RankResult>& out) {
  const CollInfo& info = coll_info(req.coll);
  for (NcclRank* r : active) {
    unsigned long long wrong[2] = {0, ~0ull};  // count, first wrong element
    cudaSetDevice(r->dev);
    cudaMemcpy(wrong, r->d_wrong, sizeof(wrong), cudaMemcpyDeviceToHost);
    for (auto& rr : out)
      if (rr.rank == r->rank) {
        rr.wrong += int64_t(wrong[0]);
        if (wrong[0] > 0) rr.note_wrong_at(int64_t(wrong[1]));
        bool root_only = req.coll == Coll::reduce && r->rank != req.root;
        rr.checked +=
            root_only ? 0 : int64_t(info.size(req.bytes, dtype_size(req.dtype), world, r->rank).check_count);
      }
  }
}

// The whole buffer the run uses poisoned, then the input written where the run reads it.
Status NcclGroup::prepare_data(const OpRequest& req, const std::vector<NcclRank*>& active) {
  const size_t es = dtype_size(req.dtype);
  for (NcclRank* r : active) {
    Sizing s = coll_info(req.coll).size(req.bytes, es, world, r->rank);
    BufferNeed need = buffer_need(s, req.in_place);
    cudaSetDevice(r->dev);
    char* sendp = req.in_place ? r->recv + s.inplace_send_offset * es : r->send;
    cudaError_t e = launch_fill_const(req.dtype, r->recv, need.recv, kPoison, r->stream);
    if (e == cudaSuccess) e = launch_fill_input(req.dtype, sendp, s.send_count, req.coll, r->rank, r->stream);
    if (e == cudaSuccess) e = cudaMemsetAsync(r->d_wrong, 0, sizeof(unsigned long long), r->stream);
    if (e == cudaSuccess) e = cudaMemsetAsync(r->d_wrong + 1, 0xff, sizeof(unsigned long long), r->stream);
    if (e != cudaSuccess)
      return Error{"preparing data on GPU " + std::to_string(r->dev) + ": " + cuda_msg(e)};
  }
  return ok_status();
}

Status NcclGroup::launch_checks(const OpRequest& req, const std::vector<NcclRank*>& active) {
  const size_t es = dtype_size(req.dtype);
  for (NcclRank* r : active) {
    Sizing s = coll_info(req.coll).size(req.bytes, es, world, r->rank);
    ExpectCtx x{req.coll, r->rank, world, req.root, 0, s.chunk};
    x.peer =
        req.pair_a >= 0 ? (r->rank == req.pair_a ? req.pair_b : req.pair_a) : (r->rank - 1 + world) % world;
    cudaSetDevice(r->dev);
    const char* checkp = r->recv + (req.in_place ? s.inplace_check_offset * es : 0);
    if (req.corrupt) launch_fill_const(req.dtype, const_cast<char*>(checkp), 1, kPoison, r->stream);
    cudaError_t e = launch_check(req.dtype, checkp, s.check_count, x, r->d_wrong, r->stream);
    if (e != cudaSuccess) return Error{"check kernel on GPU " + std::to_string(r->dev) + ": " + cuda_msg(e)};
  }
  return ok_status();
}

}  // namespace dd::comm
