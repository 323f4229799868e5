// TCP mesh test: every node listens on its candidate interface addresses (MeshServer) and connects to every
// other node's (run_mesh), all in parallel with a short deadline; optional bandwidth per pair.
// A small handshake (magic, job tag, rank) tells whether the connection reached the intended node.
#pragma once
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "cluster/view.h"
#include "common/result.h"
#include "probe/facts.h"

namespace dd::cluster {

// Addresses a node tests: one per interface that is up (carrier or not), not loopback, not local-only
// (rules::iface_is_local_only: docker, virbr...) unless NCCL_SOCKET_IFNAME (`nccl_setting`) selects them;
// IPv4 first, global IPv6 otherwise.
std::vector<MeshEndpoint> mesh_candidates(const probe::NetFacts& net, const std::string& nccl_setting);

class MeshServer {
 public:
  // Listens on every candidate (port 0 = any); candidates that cannot be bound are skipped.
  static Result<std::unique_ptr<MeshServer>> start(const std::vector<MeshEndpoint>& candidates,
                                                   uint64_t job_tag, int rank);
  ~MeshServer();
  const std::vector<MeshEndpoint>& endpoints() const { return endpoints_; }
  void stop();

 private:
  MeshServer() = default;
  void accept_loop();
  void serve(int fd);
  std::vector<MeshEndpoint> endpoints_;
  std::vector<int> fds_;
  int wake_[2] = {-1, -1};
  uint64_t tag_ = 0;
  int rank_ = 0;
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<std::thread> handlers_;
  std::atomic<int> active_{0};
  bool stopped_ = false;
};

struct MeshTarget {
  int to_node = -1;      // index into ClusterView::nodes
  int expect_rank = -1;  // rank of the process that listens there
  MeshEndpoint ep;
  bool bandwidth = false;  // also measure bandwidth on this one
};

struct MeshRunOptions {
  std::chrono::milliseconds connect_timeout{2000};
  size_t bandwidth_bytes = 0;  // per direction; 0 = no bandwidth test
  uint64_t job_tag = 0;
  int from_node = -1;
};

// Connects to every target in parallel; returns one probe per target (never blocks past the timeouts).
std::vector<MeshProbe> run_mesh(const std::vector<MeshTarget>& targets, const MeshRunOptions& opt);

// Text matrix for the report: rows = from, columns = to, cell = connect ms or the error, per interface.
std::vector<std::string> render_mesh_matrix(const ClusterView& v);

}  // namespace dd::cluster
