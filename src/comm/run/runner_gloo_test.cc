// Multi-process tests of the collective runner with the Gloo engine (no GPU): every collective verified
// across worker processes, and the failure paths (killed, never joins, stalls, exits, wrong data) each
// named within their deadline.
#include <gtest/gtest.h>

#include "comm/run/runner.h"
#include "comm/run/test_node.h"

namespace dd::comm {

using testing::bare_node;

namespace {

RunOptions gloo_options(int nproc) {
  RunOptions o;
  o.engine = rules::EngineKind::gloo;
  o.nproc = nproc;
  o.self_exe = DD_BINARY;
  o.init_timeout = std::chrono::milliseconds(5000);
  return o;
}

OpRequest op(Coll c, uint64_t bytes, Dtype t = Dtype::f32, bool in_place = false) {
  OpRequest r;
  r.coll = c;
  r.bytes = bytes;
  r.dtype = t;
  r.in_place = in_place;
  r.warmup = 1;
  r.iters = 2;
  r.timeout = std::chrono::milliseconds(3000);
  return r;
}

const report::Finding* find(const RunOutcome& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

std::string all_text(const RunOutcome& r) {
  std::string s;
  for (const auto& f : r.findings) {
    s += f.id + ": " + f.title + "\n";
    for (const auto& e : f.evidence) s += "  " + e + "\n";
  }
  return s;
}

}  // namespace

TEST(GlooRunner, EveryCollectiveVerifiedAcrossProcesses) {
  RunOptions o = gloo_options(3);
  for (const auto& ci : collectives())
    for (uint64_t bytes : {uint64_t(4096), uint64_t(96 * 1024)}) o.ops.push_back(op(ci.coll, bytes));
  for (Dtype t : kAllDtypes) o.ops.push_back(op(Coll::all_reduce, 8192, t));
  o.ops.push_back(op(Coll::all_reduce, 8192, Dtype::bf16, true));
  RunOutcome r = run_collectives(o, bare_node());
  ASSERT_TRUE(r.ok) << all_text(r);
  EXPECT_EQ(r.world, 3);
  for (const auto& oc : r.ops) {
    EXPECT_TRUE(oc.complete);
    EXPECT_EQ(oc.wrong, 0);
    EXPECT_GT(oc.time_us, 0);
    EXPECT_GT(oc.busbw, 0);
    int64_t checked = 0;
    for (const auto& rr : oc.ranks) checked += rr.checked;
    EXPECT_GT(checked, 0) << coll_info(oc.req.coll).name;
  }
}

TEST(GlooRunner, PairSendRecvOnlyInvolvesThePair) {
  RunOptions o = gloo_options(3);
  OpRequest r = op(Coll::sendrecv, 65536);
  r.pair_a = 0;
  r.pair_b = 2;
  o.ops = {r};
  RunOutcome out = run_collectives(o, bare_node());
  ASSERT_TRUE(out.ok) << all_text(out);
  for (const auto& rr : out.ops[0].ranks) EXPECT_EQ(rr.participated, rr.rank != 1);
}

TEST(GlooRunner, WrongDataIsAFail) {
  RunOptions o = gloo_options(2);
  o.ops = {op(Coll::all_reduce, 4096), op(Coll::all_gather, 4096)};
  o.fault = "1:corrupt@0";
  RunOutcome r = run_collectives(o, bare_node());
  EXPECT_FALSE(r.ok);
  const auto* f = find(r, "comm.data.wrong");
  ASSERT_NE(f, nullptr) << all_text(r);
  EXPECT_NE(f->title.find("all_reduce"), std::string::npos);
  ASSERT_EQ(f->evidence.size(), 1u);
  EXPECT_NE(f->evidence[0].find("rank 1: 1 of 1024 elements wrong, the first at element 0"),
            std::string::npos)
      << f->evidence[0];
}

TEST(GlooRunner, KilledWorkerIsNamedAtOnce) {
  RunOptions o = gloo_options(3);
  o.ops = {op(Coll::all_reduce, 4096), op(Coll::all_reduce, 4096), op(Coll::all_gather, 4096)};
  for (auto& x : o.ops) x.timeout = std::chrono::milliseconds(20000);
  o.fault = "1:die@1";
  RunOutcome r = run_collectives(o, bare_node());
  EXPECT_FALSE(r.ok);
  const auto* f = find(r, "comm.worker.died");
  ASSERT_NE(f, nullptr) << all_text(r);
  EXPECT_EQ(f->rank, 1);
  EXPECT_NE(f->title.find("signal 9"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("all_reduce"), std::string::npos) << f->title;
  EXPECT_LT(r.wall_s, 5.0);  // noticed at once, not at the 20 s op deadline
}

TEST(GlooRunner, WorkerThatNeverJoinsIsNamed) {
  RunOptions o = gloo_options(3);
  o.init_timeout = std::chrono::milliseconds(1500);
  o.ops = {op(Coll::all_reduce, 4096)};
  o.fault = "2:nojoin";
  RunOutcome r = run_collectives(o, bare_node());
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.findings.empty());
  std::string text = all_text(r);
  EXPECT_NE(text.find("2 never joined"), std::string::npos) << text;
  EXPECT_LT(r.wall_s, 1.5 + 3.0 + 3.0 + 1.0);
}

TEST(GlooRunner, StalledWorkerIsNamed) {
  RunOptions o = gloo_options(2);
  o.ops = {op(Coll::all_reduce, 4096), op(Coll::all_reduce, 4096)};
  o.ops[1].timeout = std::chrono::milliseconds(1500);
  o.fault = "1:stall@1";
  RunOutcome r = run_collectives(o, bare_node());
  EXPECT_FALSE(r.ok);
  std::string text = all_text(r);
  EXPECT_NE(text.find("rank(s) 1 stalled"), std::string::npos) << text;
  EXPECT_LT(r.wall_s, 1.5 + 5.0);
}

// A rank whose process is stopped (SIGSTOP, state T) in the middle of a run with a long measured deadline:
// the supervisor reads it in /proc and names it as the cause within about 2 s; the others only waited.
TEST(GlooRunner, StoppedWorkerIsNamedAsTheCause) {
  RunOptions o = gloo_options(3);
  o.ops = {op(Coll::all_reduce, 4096), op(Coll::all_reduce, 1 << 20)};
  o.ops[1].iters = 100000;  // minutes if nothing stopped it
  for (auto& x : o.ops) x.measured_deadline = true;
  o.fault = "2:sigstop@1";
  RunOutcome r = run_collectives(o, bare_node());
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(r.findings.size(), 1u) << all_text(r);
  const auto& f = r.findings[0];
  EXPECT_EQ(f.id, "comm.worker.stopped") << all_text(r);
  EXPECT_EQ(f.rank, 2);
  EXPECT_EQ(f.title.rfind("rank 2 stopped (state T, SIGSTOP) \u2014 ranks 0, 1 waited for it ", 0), 0u)
      << f.title;
  EXPECT_EQ(r.ops[1].status, OpStatus::failed);
  EXPECT_LT(r.wall_s, 8.0);
}

// A rank that stalls in its own code (state S: no /proc sign) before a long timed loop: the others' calls
// are bounded by one run's measured deadline (at least 5 s), not by the whole loop's; the stalled rank is
// named as the cause, the one that timed out as waiting.
TEST(GlooRunner, StallInALongLoopEndsAtOneRunsDeadline) {
  RunOptions o = gloo_options(2);
  o.ops = {op(Coll::all_reduce, 1 << 20)};
  o.ops[0].iters = 100000;
  o.ops[0].measured_deadline = true;
  o.fault = "1:stall@0";
  RunOutcome r = run_collectives(o, bare_node());
  EXPECT_FALSE(r.ok);
  const auto* f = find(r, "comm.op.timeout");
  ASSERT_NE(f, nullptr) << all_text(r);
  EXPECT_EQ(f->rank, 1);
  EXPECT_EQ(f->title.rfind("rank 1 stalled", 0), 0u) << f->title;
  EXPECT_NE(f->title.find("rank 0 timed out waiting for it"), std::string::npos) << f->title;
  EXPECT_LT(r.wall_s, 12.0);
}

// A rank frozen in an op with no peer to report a timeout (a one-rank run): the supervisor's per-op watchdog
// names it shortly after the op's own deadline, long before the whole run's deadline.
TEST(GlooRunner, FrozenOpIsNamedNearItsDeadline) {
  RunOptions o = gloo_options(1);
  o.ops = {op(Coll::all_reduce, 4096), op(Coll::all_reduce, 4096), op(Coll::all_reduce, 4096)};
  o.ops[1].timeout = std::chrono::milliseconds(1000);
  o.ops[2].timeout = std::chrono::milliseconds(60000);  // the whole run's deadline is over a minute
  o.fault = "0:stall@1";
  RunOutcome r = run_collectives(o, bare_node());
  EXPECT_FALSE(r.ok);
  const auto* f = find(r, "comm.op.timeout");
  ASSERT_NE(f, nullptr) << all_text(r);
  EXPECT_NE(f->title.find("did not finish within its deadline of 1.0 s"), std::string::npos) << f->title;
  EXPECT_LT(r.wall_s, 1.0 + 5.0);
}

// An op planned with a measured deadline: the worker times a small warm-up and both it and the supervisor's
// watchdog use the deadline that gives (the 5 s floor for a tiny op), not the 60 s planned before the run.
TEST(GlooRunner, MeasuredDeadlineNamesFrozenOp) {
  RunOptions o = gloo_options(1);
  o.ops = {op(Coll::all_reduce, 4096), op(Coll::all_reduce, 4096)};
  for (auto& x : o.ops) {
    x.timeout = std::chrono::milliseconds(60000);
    x.measured_deadline = true;
  }
  o.fault = "0:stall@1";
  RunOutcome r = run_collectives(o, bare_node());
  EXPECT_FALSE(r.ok);
  const auto* f = find(r, "comm.op.timeout");
  ASSERT_NE(f, nullptr) << all_text(r);
  EXPECT_NE(f->title.find("did not finish within its deadline of 5.0 s"), std::string::npos) << f->title;
  bool warmed = false;
  for (const auto& p : r.timing.phases) warmed |= p.name.find("link speed warm-up") != std::string::npos;
  EXPECT_TRUE(warmed) << "no warm-up phase in the run's timing";
}

TEST(GlooRunner, WorkerExitIsNamedWithStatus) {
  RunOptions o = gloo_options(2);
  o.ops = {op(Coll::all_reduce, 4096)};
  o.fault = "0:exit";
  RunOutcome r = run_collectives(o, bare_node());
  const auto* f = find(r, "comm.worker.died");
  ASSERT_NE(f, nullptr) << all_text(r);
  EXPECT_NE(f->title.find("exit status 3"), std::string::npos) << f->title;
}

}  // namespace dd::comm
