// Per-op aggregation: each op's time (mean over ranks), bandwidth and wrong elements, and its comm.data.wrong
// finding.
#include "comm/run/run_findings.h"

#include "comm/engine/units.h"
#include "comm/run/comm_finding.h"
#include "report/comm_ids.h"

namespace dd::comm {

using report::Finding;

namespace {

// An op's time is the mean over its ranks of each rank's mean iteration time: nccl-tests' definition
// (its -a 1, the default), so algbw and busbw compare one to one.
void add_op_outcome(OpOutcome& o, const std::map<int, RankResult>& m, int world) {
  double sum_us = 0;
  int timed = 0;
  for (const auto& [r, rr] : m) {
    o.ranks.push_back(rr);
    if (!rr.participated) continue;
    sum_us += rr.time_us;
    ++timed;
    o.wrong += rr.wrong;
  }
  o.time_us = timed > 0 ? sum_us / timed : 0;
  const CollInfo& ci = coll_info(o.req.coll);
  o.bytes = ci.size(o.req.bytes, dtype_size(o.req.dtype), world, 0).bytes;
  if (o.complete && o.time_us > 0) {
    o.algbw = algbw_gbps(o.bytes, o.time_us * 1e-6);
    o.busbw = o.algbw * (o.req.pair_a >= 0 ? 1.0 : ci.busbw_factor(world));
  }
  // One rank: nothing crosses between ranks, so there is no bus bandwidth (nccl-tests' factors give 0 for
  // most collectives, but 1 for broadcast and reduce); in place it copies nothing at all, and bytes over a
  // no-op's time (288206 GB/s seen) is no bandwidth either. Out of place, algbw stays: a local copy's rate.
  if (world < 2) {
    o.busbw = 0;
    if (o.req.in_place) o.algbw = 0;
  }
}

Finding wrong_data_finding(const OpOutcome& o) {
  std::vector<std::string> ev;
  for (const auto& rr : o.ranks)
    if (rr.wrong > 0)
      ev.push_back("rank " + std::to_string(rr.rank) + ": " + std::to_string(rr.wrong) + " of " +
                   std::to_string(rr.checked) + " elements wrong" +
                   (rr.first_wrong >= 0 ? ", the first at element " + std::to_string(rr.first_wrong) : ""));
  return comm_failure(
      report::comm_id::kDataWrong, op_label(o.req) + " returned wrong data", ev,
      "Wrong results with no error usually mean faulty GPU memory, a broken link or a NCCL bug: run "
      "`distdoctor bench` on subsets of GPUs to isolate it, check ECC/Xid errors, and try another NCCL "
      "version.");
}

}  // namespace

std::string op_label(const OpRequest& r) {
  std::string s =
      std::string(coll_info(r.coll).name) + " " + exact_bytes_text(r.bytes) + " " + dtype_name(r.dtype);
  if (r.pair_a >= 0) s += " (ranks " + std::to_string(r.pair_a) + "<->" + std::to_string(r.pair_b) + ")";
  if (r.in_place) s += " in-place";
  return s;
}

namespace {

// Why op `i` did not complete, root cause first: a rank that died in it (a survivor's error, such as the
// connection its dead peer closed, follows as a consequence); else the error of the first rank that failed
// in it; else, when the run was cut short (a timeout) while ranks were in it, which rank stopped there; ""
// when op `i` was never started.
std::string error_during(const RunRecord& rec, int i) {
  const auto& ranks = rec.watch.ranks();
  std::string first_error;
  for (int r : rec.layout.local)
    if (ranks[r].last_op == i && !ranks[r].error.empty() && ranks[r].error_stage == "op") {
      first_error = "rank " + std::to_string(r) + ": " + ranks[r].error;
      break;
    }
  if (const auto& st = rec.watch.stuck_worker())  // the cause, whichever rank's error came first
    for (int r : rec.layout.local)
      if (ranks[r].last_op == i && !ranks[r].done)
        return "rank " + std::to_string(rec.layout.groups[st->worker][0]) + " " + stuck_text(*st) +
               " during this run (see the findings)";
  const int died = rec.watch.died_worker();
  if (died >= 0)
    for (int r : rec.layout.groups[died])
      if (ranks[r].last_op == i)
        return "rank " + std::to_string(r) + " died during this run (see the findings)" +
               (first_error.empty() ? "" : "; then " + first_error);
  for (int r : rec.layout.local)
    if (ranks[r].last_op == i && !ranks[r].error.empty() && ranks[r].error_stage == "op")
      return ranks[r].error;
  for (int r : rec.layout.local)
    if (ranks[r].last_op == i && !ranks[r].done)
      return "rank " + std::to_string(r) + " was stopped during this run (see the findings)";
  return "";
}

void set_status(OpOutcome& o, const RunRecord& rec, int i) {
  if (o.complete) {
    o.status = o.wrong > 0 ? OpStatus::wrong : OpStatus::ok;
    return;
  }
  o.error = error_during(rec, i);
  o.status = o.error.empty() ? OpStatus::not_run : OpStatus::failed;
}

}  // namespace

OpOutcome complete_op(const OpRequest& req, const std::map<int, RankResult>& m, int world) {
  OpOutcome o;
  o.req = req;
  o.complete = true;
  add_op_outcome(o, m, world);
  o.status = o.wrong > 0 ? OpStatus::wrong : OpStatus::ok;
  return o;
}

bool aggregate_ops(RunOutcome& out, const RunRecord& rec) {
  bool all_complete = true;
  const int nlocal = int(rec.layout.local.size());
  out.ops.resize(rec.opt.ops.size());
  for (size_t i = 0; i < out.ops.size(); ++i) {
    OpOutcome& o = out.ops[i];
    o.req = rec.opt.ops[i];
    auto it = rec.watch.results().find(int(i));
    static const std::map<int, RankResult> kNone;
    const auto& m = it == rec.watch.results().end() ? kNone : it->second;
    o.complete = int(m.size()) == nlocal;
    all_complete &= o.complete;
    add_op_outcome(o, m, rec.layout.world);
    set_status(o, rec, int(i));
    if (o.wrong > 0) out.findings.push_back(wrong_data_finding(o));
  }
  return all_complete;
}

const char* op_status_name(OpStatus s) {
  switch (s) {
    case OpStatus::ok:
      return "ok";
    case OpStatus::wrong:
      return "wrong";
    case OpStatus::failed:
      return "failed";
    case OpStatus::not_run:
      break;
  }
  return "not_run";
}

}  // namespace dd::comm
