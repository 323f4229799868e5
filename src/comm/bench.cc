// run_bench and its companions: sweeps, JSON, SVG, link comparison, pair matrix, NET probe, tune.
#include "comm/bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "comm/engine/units.h"
#include "comm/op_json.h"
#include "comm/run/comm_finding.h"
#include "comm/run/run_findings.h"
#include "comm/run/run_setup.h"
#include "comm/svg_plot.h"
#include "common/redact.h"
#include "common/safe_text.h"
#include "report/comm_ids.h"

namespace dd::comm {

using report::Finding;
using report::Severity;

std::chrono::milliseconds auto_timeout(uint64_t bytes, int runs) {
  return std::chrono::milliseconds(10000 + int64_t(double(bytes) * std::max(runs, 1) / 5e9 * 1000));
}

std::vector<OpRequest> build_sweep(const BenchOptions& b, int world) {
  std::vector<OpRequest> ops;
  const size_t es = dtype_size(b.dtype);
  for (Coll c : b.colls) {
    const CollInfo& ci = coll_info(c);
    uint64_t last = 0;
    for (double x = double(std::max<uint64_t>(b.min_bytes, 1)); x <= double(b.max_bytes) * 1.0000001;
         x *= std::max(b.step_factor, 1.0001)) {
      uint64_t bytes = uint64_t(x);
      // Round down to whole elements per rank, as the collective's sizing does, and skip duplicates.
      Sizing s = ci.size(bytes, es, world, 0);
      if (s.bytes == 0 || s.bytes == last) continue;
      last = s.bytes;
      for (int mode = 0; mode < 2; ++mode) {
        bool inplace = mode == 1;
        if (inplace && (!b.in_place || !ci.has_in_place)) continue;
        if (!inplace && !b.out_of_place) continue;
        OpRequest r;
        r.coll = c;
        r.dtype = b.dtype;
        r.bytes = s.bytes;
        r.in_place = inplace;
        r.warmup = b.warmup;
        r.iters = b.iters;
        r.check = b.check && (!inplace || ci.in_place_checked);  // else "N/A", as nccl-tests reports it
        r.check_every = b.check_all;
        r.timeout =
            b.op_timeout.count() > 0 ? b.op_timeout : auto_timeout(s.bytes * 2, b.warmup + b.iters + 1);
        r.measured_deadline = b.op_timeout.count() == 0;  // --op-timeout not given: from the speed warm-up
        ops.push_back(r);
      }
      if (b.step_factor <= 1.0) break;
    }
  }
  return ops;
}

OpRequest single_op(const BenchOptions& b, Coll c, uint64_t bytes, bool check) {
  OpRequest r;
  r.coll = c;
  r.dtype = b.dtype;
  r.bytes = bytes;
  r.warmup = b.warmup;
  r.iters = b.iters;
  r.check = check;
  r.timeout = b.op_timeout.count() > 0 ? b.op_timeout : auto_timeout(bytes * 2, b.warmup + b.iters + 1);
  r.measured_deadline = b.op_timeout.count() == 0;
  return r;
}

BenchResult run_bench(const BenchOptions& b, const NodeContext& node, const OnBenchOp& on_op) {
  BenchResult r;
  RunOptions ro = b.run;
  int world = local_rank_count(ro, node.facts);
  ro.nproc = world;
  ro.ops = build_sweep(b, world);
  if (ro.engine == rules::EngineKind::nccl) {
    r.link_facts = link_facts_from(node.facts.gpu);
    r.link = intra_node_limit(r.link_facts, world);
  }
  OnOpDone told;
  if (on_op)
    told = [&](const OpOutcome& op, int run_world, const std::string& library) {
      r.run.world = run_world;
      r.run.library = library;
      on_op(r, op);
    };
  r.run = run_collectives(ro, node, told);
  r.findings = r.run.findings;
  if (ro.engine == rules::EngineKind::nccl)
    for (auto& f : link_findings(r.run, r.link)) r.findings.push_back(f);
  if (r.run.ok) {
    size_t checked = 0;
    for (const auto& o : r.run.ops) checked += o.req.check ? 1 : 0;
    // By default the data check covers one run of each size (before the warm-up); warm-up and timed runs
    // are not compared. --check all compares every timed run too.
    const std::string which = b.check_all ? "of every timed run" : "of their first run";
    r.findings.insert(
        r.findings.begin(),
        comm_finding(report::comm_id::kCollectivesOk, Severity::ok,
                     std::to_string(r.run.ops.size()) + " runs on " + std::to_string(world) + " ranks, " +
                         std::to_string(checked) + " with every output element " + which + " verified",
                     {r.run.library}));
  }
  return r;
}

namespace {

// The share of the link under which busbw is "far below" it. At 64-255 MiB the transfers have not reached the
// link's rate yet: on 4x H100 (NVLink 450 GB/s) a healthy sendrecv gave 155 GB/s at 64 MiB (34%; nccl-tests'
// sendrecv_perf the same) and 360 GB/s at 1 GiB, while NCCL_P2P_DISABLE=1 gave 22 GB/s at every size (5%).
// bench/results/sendrecv_h100x4.md has the figures (tools/device/sendrecv_vs_nccl_tests.sh).
double low_share(uint64_t bytes) { return bytes >= (256ull << 20) ? 0.4 : 0.2; }

}  // namespace

std::vector<Finding> link_findings(const RunOutcome& run, const LinkLimit& link) {
  std::vector<Finding> out;
  if (link.gbps <= 0 || run.world < 2) return out;
  std::map<Coll, const OpOutcome*> largest;
  for (const auto& o : run.ops) {
    if (!o.complete || o.req.in_place || o.req.pair_a >= 0) continue;
    auto& cur = largest[o.req.coll];
    if (!cur || o.bytes > cur->bytes) cur = &o;
  }
  for (const auto& [c, o] : largest) {
    if (o->bytes < (64ull << 20)) continue;  // small sizes measure latency, not the link
    double frac = o->busbw / link.gbps;
    std::string title = std::string(coll_info(c).name) + " busbw " + gbps_text(o->busbw) + " GB/s at " +
                        bytes_text(o->bytes) + " = " + std::to_string(int(std::lround(frac * 100))) +
                        "% of " + link.description;
    if (frac < low_share(o->bytes))
      out.push_back(comm_finding(
          report::comm_id::kBwLow, Severity::warn, title,
          {"limit " + gbps_text(link.gbps) + " GB/s",
           fmt::format("under {:.0f}% of the link at this size counts as far below",
                       100 * low_share(o->bytes))},
          "Bus bandwidth far below the link: check `nvidia-smi topo -m`, that P2P is allowed "
          "(NCCL_P2P_DISABLE unset, IOMMU/ACS off), and which transport NCCL chose (bench --transport)."));
    else
      out.push_back(comm_finding(report::comm_id::kBwLink, Severity::info, title));
  }
  return out;
}

double avg_busbw(const RunOutcome& run) {
  double sum = 0;
  int n = 0;
  for (const auto& o : run.ops)
    if (o.complete) sum += o.busbw, ++n;
  return n > 0 ? sum / n : 0;
}

nlohmann::json bench_json(const BenchResult& r, const BenchOptions& b) {
  nlohmann::json res = nlohmann::json::array();
  for (const auto& o : r.run.ops) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& rr : o.ranks)
      ranks.push_back(
          {{"rank", rr.rank}, {"time_us", rr.time_us}, {"wrong", rr.wrong}, {"checked", rr.checked}});
    nlohmann::json op = op_outcome_json(o);
    op["in_place"] = o.req.in_place;
    op["ranks"] = std::move(ranks);
    res.push_back(std::move(op));
  }
  nlohmann::json transports = nlohmann::json::object();
  for (const auto& [t, n] : r.run.nccl_log.transports) transports[t] = n;
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : r.findings) findings.push_back(f);
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : r.link_facts.gpus)
    gpus.push_back({{"index", g.index},
                    {"name", g.name},
                    {"nvlinks_active", g.nvlinks_active},
                    {"nvlink_version", g.nvlink_version},
                    {"pcie_gen", g.pcie_gen},
                    {"pcie_width", g.pcie_width}});
  return {{"engine", rules::engine_name(b.run.engine)},
          {"library", r.run.library},
          {"world", r.run.world},
          {"link_facts", {{"nvml_ok", r.link_facts.nvml_ok}, {"error", r.link_facts.error}, {"gpus", gpus}}},
          {"warmup", b.warmup},
          {"iters", b.iters},
          {"ok", r.run.ok},
          {"wall_s", r.run.wall_s},
          {"link", {{"gbps", r.link.gbps}, {"description", r.link.description}}},
          {"nccl",
           {{"version", r.run.nccl_log.version},
            {"transports", transports},
            {"network", r.run.nccl_log.network},
            {"nics", r.run.nccl_log.nics},
            {"warnings", r.run.nccl_log.warnings}}},
          {"results", res},
          {"avg_busbw_gbps", avg_busbw(r.run)},
          {"findings", findings}};
}

std::string bench_svg(const BenchResult& r, const BenchOptions& b) {
  std::map<std::string, PlotSeries> series;
  std::vector<std::string> order;
  for (const auto& o : r.run.ops) {
    if (!o.complete) continue;
    std::string label = std::string(coll_info(o.req.coll).name) + (o.req.in_place ? " in-place" : "");
    if (!series.count(label)) order.push_back(label);
    series[label].label = label;
    series[label].points.push_back({double(o.bytes), o.busbw});
  }
  std::vector<PlotSeries> v;
  for (const auto& l : order) v.push_back(series[l]);
  std::string title = "busbw vs size: " + std::to_string(r.run.world) + " ranks, " + dtype_name(b.dtype) +
                      (r.run.library.empty() ? "" : ", " + r.run.library.substr(0, r.run.library.find(" (")));
  return render_busbw_svg(v, title, r.link.gbps, r.link.description);
}

}  // namespace dd::comm
