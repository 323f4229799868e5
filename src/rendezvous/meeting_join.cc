// Claiming a rank and publishing a member (see meeting_join.h).
#include "rendezvous/meeting_join.h"

namespace dd::rendezvous {

Result<int64_t> claim_rank(Store& s, const MeetingKeys& keys, int rank, Deadline deadline) {
  return s.add(keys.claim(rank), 1, deadline);
}

Status publish_member(Store& s, const MeetingKeys& keys, int rank, const std::string& record,
                      const std::vector<StoreOp>& before, Deadline deadline) {
  std::vector<StoreOp> ops{StoreOp::set(keys.live(rank), "1")};
  ops.insert(ops.end(), before.begin(), before.end());
  ops.push_back(StoreOp::set(keys.member(rank), record));
  auto r = s.pipeline(ops, deadline);
  if (!r) return r.error();
  return ok_status();
}

}  // namespace dd::rendezvous
