// claim_run_dir and make_run_id (see run_dir.h). A folder is ours when we created it (mkdir is the claim) or
// its marker names our run; a folder another node of our run has just made may not have its marker yet, so an
// empty one without a marker is waited for briefly.
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

#include "probe/regular_file.h"

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

Status write_marker(const std::string& dir, const std::string& run_id) {
  std::string tmp = fmt::format("{}/{}.{}", dir, kRunMarker, ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error::from_errno("cannot write " + tmp);
  std::string text = run_id + "\n";
  bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  int err = errno;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), (dir + "/" + kRunMarker).c_str()) != 0) {
    err = ok ? errno : err;
    ::unlink(tmp.c_str());
    return Error::sys(err, "cannot write " + dir + "/" + kRunMarker);
  }
  return Ok{};
}

}  // namespace

Result<std::string> claim_run_dir(const std::string& log_dir, const std::string& job_id, const std::string& run_id) {
  std::error_code ec;
  fs::create_directories(log_dir, ec);
  if (ec) return Error::sys(ec.value(), "cannot create the log folder " + log_dir);
  for (int n = 1; n <= kMaxRuns; ++n) {
    std::string dir = n == 1 ? fmt::format("{}/{}", log_dir, job_id) : fmt::format("{}/{}.{}", log_dir, job_id, n);
    if (::mkdir(dir.c_str(), 0755) == 0) {
      if (auto st = write_marker(dir, run_id); !st) return st.error();
      return dir;
    }
    if (errno != EEXIST) return Error::from_errno("cannot create the log folder " + dir);
    std::string mark = marker_of(dir);
    // Made a moment ago by another node of (perhaps) this run on a shared filesystem: its marker comes next.
    for (int i = 0; mark.empty() && i < 50 && only_markers(dir); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      mark = marker_of(dir);
    }
    if (mark == run_id) return dir;
  }
  return Error::invalid(fmt::format("{}/{} and {} numbered folders beside it hold other runs' logs: pick "
                                    "another --job-id or --log-dir",
                                    log_dir, job_id, kMaxRuns - 1));
}

std::string make_run_id() {
  std::random_device rd;
  return fmt::format("{:08x}{:08x}", rd(), rd());
}

}  // namespace dd::launch
