// StuckWatch: which worker process cannot move, from samples of its /proc state that the supervisor takes
// while it waits: stopped by a signal (T, t), a zombie whose threads cannot finish (Z), or stuck in the
// kernel (D). Such a rank is the silent cause of a hang; the ranks waiting for it are its witnesses, never
// the cause.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "probe/proc_probe.h"
#include "rendezvous/store.h"

namespace dd::comm {

struct StuckWorker {
  int worker = -1;
  pid_t pid = -1;
  char state = '?';
  std::string state_name;                 // "T (stopped)"
  int stop_signal = 0;                    // T: SIGSTOP, SIGTSTP, ... (0 unknown)
  std::string wchan;                      // D: where in the kernel
  rendezvous::Clock::time_point since{};  // the first sample in that state
};

// A process that cannot run: stopped, tracing stop, zombie (D is only stuck once long and with no progress).
inline bool cannot_run(char state) { return state == 'T' || state == 't' || state == 'Z'; }

class StuckWatch {
 public:
  // How long a worker must stay stopped (or a zombie) before the run is stopped for it: a stop that a
  // debugger or a job controller lifts at once is not a hang.
  static constexpr std::chrono::milliseconds kStoppedFor{1500};
  // How long a worker must stay in D (uninterruptible sleep) with no rank making progress meanwhile: a
  // driver call or a page fault of a healthy rank can take seconds.
  static constexpr std::chrono::milliseconds kBlockedFor{8000};

  // One sample of worker `w` (process `pid`) at `now`; a failed read (the process is gone) forgets it.
  void sample(int w, pid_t pid, const probe::ProcSnapshot& s, rendezvous::Clock::time_point now);
  // The worker stuck longest among those past their bound (D: only when `last_progress`, the latest event
  // of any rank, came before it entered D); nullopt when none.
  std::optional<StuckWorker> stuck(rendezvous::Clock::time_point now,
                                   rendezvous::Clock::time_point last_progress) const;
  // At the run's end, whatever the reason it ended: the worker that could not run at the latest sample
  // (stopped, however briefly; a zombie or D only past its bound), the longest first.
  std::optional<StuckWorker> at_end(rendezvous::Clock::time_point now,
                                    rendezvous::Clock::time_point last_progress) const;

 private:
  std::map<int, StuckWorker> cur_;  // by worker: the state it is in now, when not running or sleeping
};

// "stopped (state T, SIGSTOP)", "stuck in the kernel (state D, in nfs_wait)", "a zombie (state Z)".
std::string stuck_text(const StuckWorker& s);

}  // namespace dd::comm
