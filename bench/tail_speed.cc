// tail_speed: how fast launch's OutputTail follows a worker's log. (1) a prewritten file read through poll()
// with every line echoed (to /dev/null); (2) a live writer process writing the same amount in 64 KiB
// blocks while the tail polls every 10 ms with launch's 4 MiB cap: the writer's time with and without the
// tail, and how long the tail needs after the writer ends. Usage: tail_speed [MB] (default 200)
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "process/output_tail.h"

using dd::process::OutputTail;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string log_block() {  // ~64 KiB of training-log-like lines (about 90 bytes each)
  std::string block;
  for (int i = 0; block.size() < 65536 - 128; ++i)
    block += "step " + std::to_string(i) + " | loss 2.3456 | lr 3.0e-04 | tokens/s 123456 | " +
             std::string(30, '.') + "\n";
  return block;
}

// Writes mb MiB into path (a child process); its wall time in seconds is returned through the exit pipe.
pid_t start_writer(const std::string& path, size_t bytes, int result_fd) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  std::string block = log_block();
  int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_APPEND | O_TRUNC, 0644);
  auto t0 = Clock::now();
  for (size_t done = 0; done < bytes; done += block.size())
    if (::write(fd, block.data(), block.size()) < 0) _exit(1);
  ::close(fd);
  double s = seconds_since(t0);
  if (::write(result_fd, &s, sizeof s) != sizeof s) _exit(1);
  _exit(0);
}

double run_writer(const std::string& path, size_t bytes, OutputTail* tail, double* catch_up_s) {
  int p[2];
  if (::pipe(p) != 0) return -1;
  pid_t w = start_writer(path, bytes, p[1]);
  ::close(p[1]);
  while (tail && ::waitpid(w, nullptr, WNOHANG) == 0) {
    tail->poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!tail) ::waitpid(w, nullptr, 0);
  auto t_end = Clock::now();
  if (tail) tail->finish(0);
  if (catch_up_s) *catch_up_s = seconds_since(t_end);
  double s = -1;
  if (::read(p[0], &s, sizeof s) != sizeof s) s = -1;
  ::close(p[0]);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t mb = argc > 1 ? size_t(std::atol(argv[1])) : 200;
  const size_t bytes = mb << 20;
  std::string dir = std::string(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp") + "/dd_tail_speed_XXXXXX";
  if (!mkdtemp(dir.data())) return 1;
  const std::string path = dir + "/0.0.log";
  int devnull = ::open("/dev/null", O_WRONLY);

  double alone = run_writer(path, bytes, nullptr, nullptr);
  {
    OutputTail tail({{path, "[0:0] ", true}}, devnull);
    auto t0 = Clock::now();
    while (tail.poll()) {
    }
    double s = seconds_since(t0);
    std::printf("prewritten: %zu MiB tailed in %.3f s = %.0f MiB/s (every line echoed to /dev/null)\n", mb, s,
                double(mb) / s);
  }
  OutputTail tail({{path, "[0:0] ", true}}, devnull);
  double catch_up = 0;
  double with_tail = run_writer(path, bytes, &tail, &catch_up);
  std::printf(
      "live writer: %zu MiB in %.3f s alone, %.3f s while tailed; tail done %.3f s after the writer "
      "(read %llu bytes)\n",
      mb, alone, with_tail, catch_up, (unsigned long long)tail.bytes_read(0));
  ::close(devnull);
  ::unlink(path.c_str());
  ::rmdir(dir.c_str());
  return tail.bytes_read(0) >= bytes ? 0 : 1;
}
