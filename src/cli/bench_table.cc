// BenchTable: the sweep's rows as they are measured, nccl-tests' layout (see bench_table.h).
#include "cli/bench_table.h"

#include <cstdio>
#include <string>
#include <vector>

#include "comm/engine/units.h"
#include "comm/run/run_findings.h"
#include "common/redact.h"

namespace dd::cli {

using comm::OpOutcome;
using comm::OpStatus;

void BenchTable::header(const comm::BenchResult& head) {
  if (headed_) return;
  headed_ = true;
  const auto& run = head.run;
  out_ << "# distdoctor bench: " << run.world << " ranks, " << comm::dtype_name(b_.dtype) << ", warmup "
       << b_.warmup << ", iters " << b_.iters << (run.library.empty() ? "" : ", " + shown(run.library))
       << "\n";
  if (head.link.gbps > 0) out_ << "# link: " << shown(head.link.description) << "\n";
  if (run.world == 1)
    out_
        << "# one rank: busbw is 0 (no data crosses between ranks; nccl-tests says 0 too) and in-place algbw "
           "is 0 (the run copies nothing); out-of-place algbw is a local copy's rate\n";
  out_.flush();
}

void BenchTable::print_row(const Key& key, const Row& row) {
  char line[256];
  if (key.first != coll_) {
    coll_ = key.first;
    out_ << "#\n# " << comm::coll_info(comm::Coll(coll_)).name << "\n";
    snprintf(line, sizeof line, "# %12s %12s  %10s %8s %8s %7s  %10s %8s %8s %7s\n", "size(B)", "count",
             "time(us)", "algbw", "busbw", "#wrong", "time(us)", "algbw", "busbw", "#wrong");
    out_ << line;
    out_ << "#                            ---------- out-of-place ----------  ------------ in-place "
            "------------\n";
  }
  const OpOutcome* any = row.out_of_place ? row.out_of_place : row.in_place;
  const uint64_t count = any->bytes / comm::dtype_size(b_.dtype);
  auto cols = [](const OpOutcome* o) -> std::string {
    char c[96];
    if (!o) return "         -        -        -       -";
    if (!o->complete)
      return o->status == OpStatus::failed ? "    FAILED        -        -       -"
                                           : "   not run        -        -       -";
    snprintf(c, sizeof c, "%10.1f %8.2f %8.2f %7s", o->time_us, o->algbw, o->busbw,
             o->req.check ? std::to_string(o->wrong).c_str() : "N/A");
    return c;
  };
  snprintf(line, sizeof line, "  %12llu %12llu  %s  %s\n", (unsigned long long)any->bytes,
           (unsigned long long)count, cols(row.out_of_place).c_str(), cols(row.in_place).c_str());
  out_ << line;
  out_.flush();  // a row is out the moment it is measured, on a pipe too
  printed_.insert(key);
}

void BenchTable::on_op(const comm::BenchResult& head, const OpOutcome& op) {
  header(head);
  const Key key{int(op.req.coll), op.bytes};
  const bool in_place_runs = b_.in_place && comm::coll_info(op.req.coll).has_in_place;
  if (!op.req.in_place && in_place_runs) {  // the in-place run of this size comes next
    half_[key] = op;
    return;
  }
  auto it = half_.find(key);
  Row row;
  (op.req.in_place ? row.in_place : row.out_of_place) = &op;
  if (it != half_.end()) row.out_of_place = &it->second;
  print_row(key, row);
  if (it != half_.end()) half_.erase(it);
}

void BenchTable::finish(const comm::BenchResult& r) {
  header(r);
  std::map<Key, Row> rows;
  std::vector<Key> order;
  for (const auto& o : r.run.ops) {
    const Key key{int(o.req.coll), o.bytes};
    if (printed_.count(key)) continue;
    if (!rows.count(key)) order.push_back(key);
    (o.req.in_place ? rows[key].in_place : rows[key].out_of_place) = &o;
  }
  for (const auto& key : order) print_row(key, rows[key]);
  int64_t wrong = 0;
  for (const auto& o : r.run.ops) {
    if (o.status == OpStatus::failed)
      out_ << "# FAILED: " << comm::op_label(o.req) << ": " << shown(o.error) << "\n";
    if (o.complete && o.req.check) wrong += o.wrong;
  }
  out_ << "# Out of bounds values : " << wrong << (wrong == 0 ? " OK" : " FAILED") << "\n";
  char avg[64];
  snprintf(avg, sizeof avg, "%g", comm::avg_busbw(r.run));  // nccl-tests' format
  out_ << "# Avg bus bandwidth    : " << avg << "\n";
  out_.flush();
}

}  // namespace dd::cli
