// The sweep's table in nccl-tests' layout, printed row by row while the sweep runs: a header, one row per
// size of each collective (out-of-place and in-place side by side) as soon as both are measured, then at
// the end the rows that failed or never ran, the failures, and nccl-tests' closing lines ("# Out of bounds
// values", "# Avg bus bandwidth").
#pragma once
#include <map>
#include <ostream>
#include <set>
#include <utility>

#include "comm/bench.h"

namespace dd::cli {

class BenchTable {
 public:
  BenchTable(const comm::BenchOptions& b, std::ostream& out) : b_(b), out_(out) {}
  // One finished op (run_bench's OnBenchOp): its row is printed once every mode of its size is in.
  void on_op(const comm::BenchResult& head, const comm::OpOutcome& op);
  // After the sweep: the rows not printed yet (failed, not run, or half done), the failures, the averages.
  void finish(const comm::BenchResult& r);

 private:
  using Key = std::pair<int, uint64_t>;  // collective, size
  struct Row {
    const comm::OpOutcome* out_of_place = nullptr;
    const comm::OpOutcome* in_place = nullptr;
  };
  void header(const comm::BenchResult& head);
  void print_row(const Key& key, const Row& row);

  const comm::BenchOptions& b_;
  std::ostream& out_;
  bool headed_ = false;
  int coll_ = -1;                        // the collective whose column heads were printed last
  std::set<Key> printed_;                // rows already out
  std::map<Key, comm::OpOutcome> half_;  // a size's out-of-place result waiting for its in-place one
};

}  // namespace dd::cli
