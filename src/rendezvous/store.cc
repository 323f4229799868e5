// Store's default pipeline: the ops one call at a time, for stores that cannot send several requests at once.
#include "rendezvous/store.h"

#include <optional>

namespace dd::rendezvous {

Result<std::vector<int64_t>> Store::pipeline(const std::vector<StoreOp>& ops, Deadline deadline) {
  std::vector<int64_t> out;
  out.reserve(ops.size());
  std::optional<Error> first;
  for (const auto& op : ops) {
    int64_t n = 0;
    if (op.kind == StoreOp::Kind::kAdd) {
      auto r = add(op.key, op.delta, deadline);
      if (r)
        n = *r;
      else if (!first)
        first = r.error();
    } else if (auto s = set(op.key, op.value, deadline); !s && !first) {
      first = s.error();
    }
    out.push_back(n);
  }
  if (first) return *first;
  return out;
}

}  // namespace dd::rendezvous
