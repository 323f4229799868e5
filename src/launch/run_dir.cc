// claim_run_dir, make_run_id and the checks and files made before workers start (see run_dir.h). A folder is
// ours when we created it (mkdir is the claim) or its marker names our run; a folder another node of our run
// has just made may not have its marker yet, so an empty one without a marker is waited for briefly.
#include "launch/run_dir.h"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include "probe/system_probe.h"

namespace dd::launch {

namespace {

constexpr int kMaxRuns = 1000;  // JOB, JOB.2 .. JOB.1000

// The marker's run id; "" when it is absent or unreadable (Fs reads only a regular file, within a deadline).
std::string marker_of(const probe::Fs& fs, const std::string& dir) {
  auto t = fs.read_capped(dir + "/" + kRunMarker, 256);
  if (!t) return "";
  std::string s = t->text;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// True when dir holds nothing but (temporary) markers: a folder that another node of a run has just created.
bool only_markers(const probe::Fs& fs, const std::string& dir) {
  auto names = fs.list(dir);
  if (!names) return false;
  for (const std::string& n : *names)
    if (!n.starts_with(kRunMarker)) return false;
  return true;
}

// The log directory, made when missing (its parents as the umask says, itself 0755 and ours: not a link).
Status make_log_dir(probe::Fs& fs, const std::string& dir) {
  if (fs.is_dir(dir)) return Ok{};
  const std::string parent = std::filesystem::path(dir).parent_path().string();
  if (auto made = probe::make_dirs(fs, parent, 0777); !made) {
    // EEXIST: a file where a folder of the path goes, which is what "Not a directory" says.
    const int e = made.error().err == EEXIST ? ENOTDIR : made.error().err;
    return Error::sys(e, "cannot create the log folder " + dir);
  }
  return fs.make_dir(dir, 0755, /*own=*/true);
}

Status write_marker(probe::Fs& fs, const std::string& dir, const std::string& run_id) {
  return fs.write_atomically(dir + "/" + kRunMarker, run_id + "\n", {.symlinks = Symlinks::refuse});
}

}  // namespace

Result<std::string> claim_run_dir(const std::string& log_dir, const std::string& job_id,
                                  const std::string& run_id, probe::Fs& fs) {
  if (auto made = make_log_dir(fs, log_dir); !made) return made.error();
  for (int n = 1; n <= kMaxRuns; ++n) {
    std::string dir =
        n == 1 ? fmt::format("{}/{}", log_dir, job_id) : fmt::format("{}/{}.{}", log_dir, job_id, n);
    const Status claimed = fs.make_new_dir(dir, 0755);  // of the nodes making it, one succeeds
    if (claimed) {
      if (auto st = write_marker(fs, dir, run_id); !st)
        return Error::make(ErrorKind::io, write_problem(st.error(), dir));
      return dir;
    }
    if (claimed.error().err != EEXIST)
      return Error::make(
          ErrorKind::io,
          write_problem(Error::sys(claimed.error().err, "cannot create the log folder " + dir), log_dir));
    std::string mark = marker_of(fs, dir);
    // Made a moment ago by another node of (perhaps) this run on a shared filesystem: its marker comes next.
    for (int i = 0; mark.empty() && i < 50 && only_markers(fs, dir); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      mark = marker_of(fs, dir);
    }
    if (mark == run_id) return dir;
  }
  return Error::invalid(
      fmt::format("{}/{} and {} numbered folders beside it hold other runs' logs: pick "
                  "another --job-id or --log-dir",
                  log_dir, job_id, kMaxRuns - 1));
}

std::string make_run_id() {
  std::random_device rd;
  return fmt::format("{:08x}{:08x}", rd(), rd());
}

std::string log_dir_problem(const std::string& dir, probe::Fs& fs) {
  if (auto made = make_log_dir(fs, dir); !made) return made.error().message() + " (--log-dir)";
  if (const Status room = fs.can_add_to(dir); !room)
    return fmt::format("cannot write the log directory {}: {} (--log-dir)", dir,
                       std::strerror(room.error().err));
  if (probe::no_free_inodes_at(dir))
    return fmt::format("cannot write the log directory {}: no free inodes on its filesystem (--log-dir)",
                       dir);
  return "";
}

Status prepare_attempt_logs(const std::string& attempt_dir, const std::vector<std::string>& log_paths,
                            probe::Fs& fs) {
  if (auto made = fs.make_dir(attempt_dir, 0755, /*own=*/true); !made)
    return Error::make(ErrorKind::io,
                       write_problem(made.error(), std::filesystem::path(attempt_dir).parent_path()));
  for (const std::string& path : log_paths) {
    // Empty and new (an earlier run's log is replaced, never truncated through a link or a FIFO).
    const Status made = fs.write_atomically(path, "", {.symlinks = Symlinks::refuse, .sync = false});
    if (!made) return Error::make(made.error().kind, write_problem(made.error(), attempt_dir));
  }
  return Ok{};
}

std::string write_problem(const Error& e, const std::string& dir) {
  if (e.err != ENOSPC) return e.message();
  return fmt::format("{}: {} on the filesystem of {} ({})", e.what,
                     probe::no_free_inodes_at(dir) ? "no free inodes" : "no space", dir,
                     std::strerror(e.err));
}

}  // namespace dd::launch
