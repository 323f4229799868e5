// Per-rank progress facts of one input, gathered line by line beside the NCCL scan (file_scan.cc): which
// rank printed what, the first Python traceback of each rank, signs that a peer went away, init and launcher
// markers, and the exits launchers report. Lines go to the rank of their "[rankN]:" prefix; unprefixed lines
// to the file's rank (a "rankN" in the file name, else the one NCCL rank the file shows). The signs that a
// peer went away are the catalogue's peer_failure entries (lost_peer on any line, every kind in tracebacks).
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "logs/catalogue.h"
#include "logs/log_facts.h"

namespace dd::logs {

class ProgressScanner {
 public:
  // cat: its peer_failure entries are the signs that a peer went away (read once here, not per line).
  ProgressScanner(std::string file, const Catalogue& cat);

  // raw: the whole line; msg: NCCL's message (nccl) or the line without its rank prefix; fw_rank: the
  // prefix's rank or -1.
  void nccl_line(std::string_view raw, bool warn, std::string_view msg, int fw_rank, const Where& at);
  void other_line(std::string_view raw, std::string_view msg, int fw_rank, const Where& at);
  // An exit a launcher recorded in a line of its own (launch_end_line.h): not the rank's output.
  void add_exit(const ExitEvent& e) {
    if (exits_.size() < 4096) exits_.push_back(e);
  }

  // Resolves unprefixed lines to the file's rank and hands the results over.
  void finish(const std::vector<ProcessFacts>& procs, std::vector<RankProgress>& ranks,
              std::vector<ExitEvent>& exits);

  int64_t file_time() const { return file_time_; }  // the last timestamp seen (the current line's, if any)

 private:
  struct Bucket {
    RankProgress p;
    std::vector<std::string> tb;  // lines of a traceback being captured
    int tb_left = 0;              // lines still to capture
    Where tb_at;
    int64_t tb_time = -1;
    uint64_t last_line_no = 0;  // becomes p.last_at in finish()
  };
  Bucket& bucket(int fw_rank);
  Bucket& touch(std::string_view raw, int fw_rank, const Where& at);
  void markers(Bucket& b, std::string_view msg, const Where& at);
  void exit_line(std::string_view msg, const Where& at);
  void end_traceback(Bucket& b);
  bool lost_peer(std::string_view msg) const;    // holds a lost_peer needle
  bool peer_failure(std::string_view tb) const;  // holds any peer_failure needle

  std::vector<std::string_view> lost_peer_;     // the lost_peer needles (views into the catalogue)
  std::vector<std::string_view> peer_failure_;  // every peer_failure needle
  // Every lost_peer needle holds "peer" or "remote": a line without either (the markers look for both anyway)
  // needs no search for them.
  bool lost_peer_gated_ = true;

  std::string file_;
  std::map<int, Bucket> buckets_;
  Bucket* last_ = nullptr;
  int last_key_ = -2;
  int64_t file_time_ = -1;  // last timestamp seen in the file
  std::vector<ExitEvent> exits_;
};

// Adds b (seen after a) to a: counts summed, the earliest exception and peer loss kept.
void merge_progress(RankProgress& a, RankProgress&& b);

// The rank a file name gives ("kill.rank1.log", "worker-rank3.out"): -1 when none.
int rank_from_file_name(std::string_view path);

}  // namespace dd::logs
