// run_collectives: the supervising side of a collective test. Starts one worker process per rank (or
// one for all ranks with --threads), feeds them a Plan, gathers their results, and turns every way a
// run can go wrong (init error or timeout, a dead or stalled worker, wrong data) into findings.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "comm/engine/run_options.h"
#include "comm/run/nccl_log.h"
#include "comm/run/run_timing.h"
#include "common/progress_sink.h"
#include "probe/facts.h"
#include "probe/self_probe.h"
#include "probe/tool_env.h"
#include "report/finding.h"

namespace dd::comm {

// How one op of a run ended: ok, wrong (complete, some element wrong), failed (the run failed during this
// op: OpOutcome::error says how) or not_run (an earlier op failed, so this one never ran).
enum class OpStatus { ok, wrong, failed, not_run };
const char* op_status_name(OpStatus s);  // "ok", "wrong", "failed", "not_run" (the JSON's words)

struct OpOutcome {
  OpRequest req;
  bool complete = false;  // every participating rank reported a result
  std::vector<RankResult> ranks;
  uint64_t bytes = 0;           // reported size
  double time_us = 0;           // mean over participating ranks (nccl-tests -a 1)
  double algbw = 0, busbw = 0;  // GB/s
  int64_t wrong = 0;
  OpStatus status = OpStatus::not_run;
  std::string error;
};

struct RunOutcome {
  bool ok = false;  // all ops complete on all ranks with no wrong element
  int world = 0;
  std::string library;  // "NCCL 2.28.9 (/path)"
  std::vector<OpOutcome> ops;
  std::vector<report::Finding> findings;  // failures (and nothing else)
  NcclLogSummary nccl_log;
  double wall_s = 0;
  RunTiming timing;  // where the time went (--timing); empty when the run did not start workers
};

// What the supervising side knows: this node's facts (GPU count, CUDA_VISIBLE_DEVICES, the job's NCCL_* and
// GLOO_* settings, GPU links) and distdoctor's own settings (DD_KEEP_TMP). Probed once by the command.
struct NodeContext {
  const probe::NodeFacts& facts;
  const probe::ToolEnv& tool;
  const probe::SelfProcess& self;  // own executable (workers are copies of it) and environment
  ProgressSink store_log;          // the embedded store's log when this node serves it (store_master)
};

// Told of each op as soon as every rank of this node reported it (in op order, while the run goes on), with
// the run's world size and the library the workers named; ops that fail are not told (the outcome has them).
using OnOpDone = std::function<void(const OpOutcome& op, int world, const std::string& library)>;

RunOutcome run_collectives(const RunOptions& opt, const NodeContext& node, const OnOpDone& on_done = {});

}  // namespace dd::comm
