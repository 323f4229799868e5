// Hang detection: each node samples its workers' CPU time and log growth and sends a heartbeat; node rank 0
// reads every heartbeat and declares the job hung when, for the whole --hang-timeout window, no worker on any
// node wrote a byte. Idle ranks (almost no CPU) are named as suspects, but a job whose ranks all spin (a desync:
// every rank waits inside NCCL) is hung too, once every worker has printed its first line. A node whose
// heartbeat stops is lost.
// Pure over the samples; the caller reads /proc and the store.
#pragma once
#include <chrono>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dd::launch {

using HangClock = std::chrono::steady_clock;

// CPU seconds of one worker over time.
class CpuWindow {
 public:
  void sample(HangClock::time_point t, double cpu_s);
  // CPU seconds used over the last `window` before now; -1 while the samples span less than the window.
  double used_over(double window_s, HangClock::time_point now) const;

 private:
  std::deque<std::pair<HangClock::time_point, double>> samples_;
};

// Below this share of one core over the window a worker counts as idle (sleeping or blocked).
inline constexpr double kIdleCpuShare = 0.02;

struct Beat {
  int64_t seq = 0;        // increases with every heartbeat
  double silent_s = 0;    // seconds since any worker of the node wrote to its log
  std::vector<int> idle;  // global ranks idle over the whole window
  int alive = 0;          // live workers
  bool done = false;      // every worker of the node exited 0
  bool all_spoke = true;  // every live worker has printed something (its start-up is over)
};
void to_json(nlohmann::json& j, const Beat& b);
void from_json(const nlohmann::json& j, Beat& b);

// Node rank 0's view of the heartbeats.
class BeatBoard {
 public:
  BeatBoard(int nnodes, HangClock::time_point start);
  void update(int node, const Beat& b, HangClock::time_point now);
  // A node whose heartbeat has not advanced for lost_after_s (and that is not done): its rank, else -1.
  int lost_node(double lost_after_s, HangClock::time_point now, double* silent_for) const;
  // Hung: every node with live workers silent for window_s, and either some rank idle or every worker past
  // its start-up (it printed something): ranks that all spin before their first line are still importing or
  // initialising (a slow start on a loaded machine, seen on 4x H100), not waiting in NCCL. *why says so.
  bool hung(double window_s, std::string* why) const;

 private:
  struct Seen {
    Beat beat;
    HangClock::time_point changed;
    bool any = false;
  };
  std::vector<Seen> nodes_;
};

}  // namespace dd::launch
