// store_scale's fair client model: clients spread over P processes (threads inside each, many connections per
// process), pinned to other CPUs than the server, started together at one CLOCK_MONOTONIC instant. The same
// model drives PyTorch's TCPStore in tools/device/store_vs_torch.py.
#pragma once
#include <sched.h>

#include <string>

struct ProcsRun {
  int n = 0;      // clients
  int procs = 1;  // client processes
  std::string token;
  cpu_set_t server_cpus{};  // the server's thread(s): this process
  cpu_set_t client_cpus{};  // every client process
  bool pin = false;
  size_t server_threads = 0;  // ServerOptions::threads (0: its default)
  bool verdict_at_connect =
      false;                   // wait for the master's verdict in connect (default: with the first answer)
  bool one_by_one = false;     // publish and add as two round trips (before Store::pipeline), not one
  double start_delay_s = 1.5;  // between the go and the start (client threads are created meanwhile)
};

// Runs one round; prints one line "N=... procs=... join+publish+barrier X ms ..." and returns the wall time
// in ms, or a negative number when a client failed.
double run_procs_round(const ProcsRun& r);

// "0-3,8" -> CPU set; false when malformed.
bool parse_cpu_list(const std::string& s, cpu_set_t* out);
