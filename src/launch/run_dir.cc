// claim_run_dir, make_run_id and the checks and files made before workers start (see run_dir.h). A folder is
// ours when we created it (mkdir is the claim) or its marker names our run; a folder another node of our run
// has just made may not have its marker yet, so an empty one without a marker is waited for briefly.
#include "launch/run_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include "common/atomic_file.h"
#include "common/output_file.h"
#include "common/own_dir.h"
#include "probe/regular_file.h"
#include "probe/system_probe.h"

namespace dd::launch {

namespace {

namespace fs = std::filesystem;
constexpr int kMaxRuns = 1000;  // JOB, JOB.2 .. JOB.1000

// The marker's run id; "" when it is absent or unreadable.
std::string marker_of(const std::string& dir) {
  probe::ReadLimits lim;
  lim.max_bytes = 256;
  lim.deadline = std::chrono::milliseconds(1000);
  auto t = probe::read_regular_file(dir + "/" + kRunMarker, lim);
  if (!t) return "";
  std::string s = t->text;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// True when dir holds nothing but (temporary) markers: a folder that another node of a run has just created.
bool only_markers(const std::string& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (!it->path().filename().string().starts_with(kRunMarker)) return false;
  return !ec;
}

// The log directory, made when missing (its parents as the umask says, itself 0755).
Status make_log_dir(const std::string& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return Ok{};
  ec.clear();  // is_directory's ENOENT: the folder is made below
  const fs::path parent = fs::path(dir).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) return Error::sys(ec.value(), "cannot create the log folder " + dir);
  return make_own_dir(dir, 0755);
}

Status write_marker(const std::string& dir, const std::string& run_id) {
  return write_file_atomically(dir + "/" + kRunMarker, run_id + "\n", {.symlinks = Symlinks::refuse});
}

}  // namespace

Result<std::string> claim_run_dir(const std::string& log_dir, const std::string& job_id,
                                  const std::string& run_id) {
  if (auto made = make_log_dir(log_dir); !made) return made.error();
  for (int n = 1; n <= kMaxRuns; ++n) {
    std::string dir =
        n == 1 ? fmt::format("{}/{}", log_dir, job_id) : fmt::format("{}/{}.{}", log_dir, job_id, n);
    if (::mkdir(dir.c_str(), 0755) == 0) {
      if (auto st = write_marker(dir, run_id); !st)
        return Error::make(ErrorKind::io, write_problem(st.error(), dir));
      return dir;
    }
    if (errno != EEXIST)
      return Error::make(ErrorKind::io,
                         write_problem(Error::from_errno("cannot create the log folder " + dir), log_dir));
    std::string mark = marker_of(dir);
    // Made a moment ago by another node of (perhaps) this run on a shared filesystem: its marker comes next.
    for (int i = 0; mark.empty() && i < 50 && only_markers(dir); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      mark = marker_of(dir);
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

std::string log_dir_problem(const std::string& dir) {
  if (auto made = make_log_dir(dir); !made) return made.error().message() + " (--log-dir)";
  if (::access(dir.c_str(), W_OK) != 0)
    return fmt::format("cannot write the log directory {}: {} (--log-dir)", dir, std::strerror(errno));
  if (probe::no_free_inodes_at(dir))
    return fmt::format("cannot write the log directory {}: no free inodes on its filesystem (--log-dir)",
                       dir);
  return "";
}

Status prepare_attempt_logs(const std::string& attempt_dir, const std::vector<std::string>& log_paths) {
  if (auto made = make_own_dir(attempt_dir, 0755); !made)
    return Error::make(ErrorKind::io, write_problem(made.error(), fs::path(attempt_dir).parent_path()));
  for (const std::string& path : log_paths) {
    auto fd = open_output_file(path, {.truncate = true});
    if (!fd) return Error::make(fd.error().kind, write_problem(fd.error(), attempt_dir));
    ::close(*fd);
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
