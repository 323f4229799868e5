// The Gloo engine: CPU collectives over TCP (the interface or address the run's options name; the supervisor
// fills the interface from the node's GLOO_SOCKET_IFNAME), with the same data pattern and checks as NCCL.
// Meets the other ranks through a dd Store (adapted to Gloo's).
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/broadcast.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>

#include <thread>

#include "comm/engine/engine.h"
#include "comm/engine/gloo_store_adapter_gloo.h"
#include "comm/engine/host_data.h"

namespace dd::comm {

namespace {

using rendezvous::Clock;

class GlooEngine : public Engine {
 public:
  const char* name() const override { return "gloo"; }
  std::string describe() const override { return "Gloo (TCP, " + where_ + ")"; }
  bool reports_progress(const OpRequest&) const override { return true; }

  Status init(const EngineConfig& cfg) override {
    if (cfg.ranks.size() != 1) return Error{"the Gloo engine serves one rank per process (no --threads)"};
    if (!cfg.store) return Error{"the Gloo engine needs a store"};
    rank_ = cfg.ranks[0];
    world_ = cfg.world;
    auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(cfg.init_deadline - Clock::now());
    if (timeout.count() < 100) timeout = std::chrono::milliseconds(100);
    try {
      gloo::transport::tcp::attr attr;
      const std::string& iface = cfg.run->gloo_iface;
      if (!iface.empty()) {
        attr.iface = iface;
        where_ = "interface " + iface;
      } else {
        attr.hostname = cfg.run->gloo_host.empty() ? "127.0.0.1" : cfg.run->gloo_host;
        where_ = "address " + attr.hostname;
      }
      auto t = Clock::now();
      auto dev = gloo::transport::tcp::CreateDevice(attr);
      init_phases.emplace_back("Gloo device (bind)", seconds_since(t));
      t = Clock::now();
      ctx_ = std::make_shared<gloo::rendezvous::Context>(rank_, world_);
      ctx_->setTimeout(timeout);
      GlooStoreAdapter store(cfg.store, cfg.run->store_prefix + "gloo/", timeout);
      ctx_->connectFullMesh(store, dev);
      init_phases.emplace_back("Gloo connect (full mesh)", seconds_since(t));
    } catch (const std::exception& e) {
      return timeout_if_past(Error{std::string("Gloo connectFullMesh: ") + e.what()}, cfg.init_deadline);
    }
    return ok_status();
  }

  Result<std::vector<RankResult>> run(const OpRequest& req) override {
    const uint32_t tag = uint32_t(++seq_ & 0xffffff);
    RankResult rr;
    rr.rank = rank_;
    if (req.pair_a >= 0 && rank_ != req.pair_a && rank_ != req.pair_b) {
      rr.participated = false;
      return std::vector<RankResult>{rr};
    }
    const size_t es = dtype_size(req.dtype);
    auto t_alloc = Clock::now();
    Sizing s = coll_info(req.coll).size(req.bytes, es, world_, rank_);
    // The same sizes and offsets as the NCCL engine: in-place, one buffer holds input and output.
    BufferNeed need = buffer_need(s, req.in_place);
    // Buffers only grow (allocated and zeroed once per new largest size, not every run); a checked run
    // fills what it reads.
    grow(send_, std::max<size_t>(need.send * es, 8));
    grow(recv_, std::max<size_t>(need.recv * es, 8));
    rr.alloc_us = seconds_since(t_alloc) * 1e6;
    const bool check = data_checked(req);
    int runs = 0;
    try {
      if (check) prepare(req, s, need);
      progress(runs);
      if (check && !req.check_every) check_one(req, s, tag, rr), progress(++runs);
      for (int i = 0; i < req.warmup; ++i) issue(req, s, tag), progress(++runs);
      double total_us = 0;
      auto t0 = Clock::now();
      for (int i = 0; i < req.iters; ++i) {
        if (!(check && req.check_every)) {
          issue(req, s, tag);
          progress(++runs);  // a clock read when no report is due: no measurable cost per run
          continue;
        }
        prepare(req, s, need);  // --check all: fresh data, one timed run, its check
        auto t1 = Clock::now();
        issue(req, s, tag);
        total_us += std::chrono::duration<double, std::micro>(Clock::now() - t1).count();
        check_output(req, s, rr);
        progress(++runs);
      }
      if (!(check && req.check_every))
        total_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      rr.time_us = req.iters > 0 ? total_us / req.iters : 0;
    } catch (const std::exception& e) {
      // Gloo's calls give up after call_timeout (one run's deadline when measured): one that failed that
      // late ran out of time.
      return timeout_if_past(Error{std::string(coll_info(req.coll).name) + " (Gloo): " + e.what()},
                             issue_started_ + call_timeout(req));
    }
    return std::vector<RankResult>{rr};
  }

 private:
  static void grow(std::vector<char>& buf, size_t bytes) {
    if (buf.size() < bytes) buf.resize(bytes);
  }

  // The whole buffer the run uses poisoned, then the input written where the run reads it.
  void prepare(const OpRequest& req, const Sizing& s, const BufferNeed& need) {
    const size_t es = dtype_size(req.dtype);
    host_fill_const(req.dtype, recv_.data(), need.recv, kPoison);
    host_fill_input(req.dtype, input(req, s, es), s.send_count, req.coll, rank_);
  }

  char* input(const OpRequest& req, const Sizing& s, size_t es) {
    return req.in_place ? recv_.data() + s.inplace_send_offset * es : send_.data();
  }
  char* output(const OpRequest& req, const Sizing& s, size_t es) {
    return recv_.data() + (req.in_place ? s.inplace_check_offset * es : 0);
  }

  // One run on fresh data, then its output compared.
  void check_one(const OpRequest& req, const Sizing& s, uint32_t tag, RankResult& rr) {
    issue(req, s, tag);
    check_output(req, s, rr);
  }

  void check_output(const OpRequest& req, const Sizing& s, RankResult& rr) {
    char* out = output(req, s, dtype_size(req.dtype));
    if (req.corrupt) host_fill_const(req.dtype, out, 1, kPoison);
    ExpectCtx x{req.coll, rank_, world_, req.root, 0, s.chunk};
    x.peer =
        req.pair_a >= 0 ? (rank_ == req.pair_a ? req.pair_b : req.pair_a) : (rank_ - 1 + world_) % world_;
    int64_t first = -1;
    rr.wrong += host_check(req.dtype, out, s.check_count, x, &first);
    if (first >= 0) rr.note_wrong_at(first);
    rr.checked += (req.coll == Coll::reduce && rank_ != req.root) ? 0 : int64_t(s.check_count);
  }

  // Input/output buffers, tag and timeout of one Gloo call (16-bit dtypes as uint16_t, others as uint32_t).
  template <typename Opts>
  void set_io(Opts& opts, const OpRequest& req, uint32_t tag, char* in, size_t nin, char* out, size_t nout) {
    if (dtype_size(req.dtype) == 2) {
      if (in) opts.template setInput<uint16_t>(reinterpret_cast<uint16_t*>(in), nin);
      opts.template setOutput<uint16_t>(reinterpret_cast<uint16_t*>(out), nout);
    } else {
      if (in) opts.template setInput<uint32_t>(reinterpret_cast<uint32_t*>(in), nin);
      opts.template setOutput<uint32_t>(reinterpret_cast<uint32_t*>(out), nout);
    }
    opts.setTag(tag);
    opts.setTimeout(call_timeout(req));
  }

  // In-place, `sp` lies inside the output buffer (nccl-tests' offsets): all_gather's own chunk is already
  // in place, so Gloo gets no input; reduce_scatter reduces the whole buffer and keeps its chunk there.
  void issue(const OpRequest& req, const Sizing& s, uint32_t tag) {
    issue_started_ = Clock::now();
    const Dtype t = req.dtype;
    const size_t es = dtype_size(t);
    const bool in_place = req.in_place;
    auto sum = [t](void* o, const void* a, const void* b, size_t n) { host_sum(t, o, a, b, n); };
    char* sp = input(req, s, es);
    char* rp = recv_.data();
    switch (req.coll) {
      case Coll::all_reduce: {
        gloo::AllreduceOptions o(ctx_);
        set_io(o, req, tag, sp, s.send_count, rp, s.recv_count);
        o.setReduceFunction(sum);
        return gloo::allreduce(o);
      }
      case Coll::reduce_scatter:
        return reduce_scatter(req, s, tag, sp, output(req, s, es));
      case Coll::all_gather: {
        gloo::AllgatherOptions o(ctx_);
        set_io(o, req, tag, in_place ? nullptr : sp, s.chunk, rp, s.recv_count);
        return gloo::allgather(o);
      }
      case Coll::broadcast: {
        gloo::BroadcastOptions o(ctx_);  // only the root may name an input; in place, the output is the input
        set_io(o, req, tag, rank_ == req.root && !in_place ? sp : nullptr, s.send_count, rp, s.recv_count);
        o.setRoot(req.root);
        return gloo::broadcast(o);
      }
      case Coll::reduce: {
        gloo::ReduceOptions o(ctx_);
        set_io(o, req, tag, in_place ? nullptr : sp, s.send_count, rp, s.recv_count);
        o.setRoot(req.root);
        o.setReduceFunction(sum);
        return gloo::reduce(o);
      }
      case Coll::alltoall: {
        gloo::AlltoallOptions o(ctx_);
        set_io(o, req, tag, sp, s.send_count, landing(req, s, rp), s.recv_count);
        gloo::alltoall(o);
        return land(req, s, rp);
      }
      case Coll::sendrecv:
        sendrecv(req, s, tag, sp, landing(req, s, rp));
        return land(req, s, rp);
    }
  }

  // In-place alltoall and sendrecv send from and receive into the same bytes at once: Gloo's loop thread
  // would recv() into memory the caller's writev() is still reading (TSan: data race). They receive into a
  // staging buffer instead, copied into place after the call (their in-place output is not verified, as in
  // nccl-tests).
  char* landing(const OpRequest& req, const Sizing& s, char* rp) {
    if (!req.in_place) return rp;
    grow(stage_, std::max<size_t>(s.recv_count * dtype_size(req.dtype), 8));
    return stage_.data();
  }
  void land(const OpRequest& req, const Sizing& s, char* rp) {
    if (req.in_place) std::memcpy(rp, stage_.data(), s.recv_count * dtype_size(req.dtype));
  }

  // Gloo has no typed reduce-scatter: all-reduce the n chunks (a copy, or in place the buffer itself),
  // keep this rank's chunk at `out`.
  void reduce_scatter(const OpRequest& req, const Sizing& s, uint32_t tag, char* sp, char* out) {
    const Dtype t = req.dtype;
    const size_t es = dtype_size(t);
    std::vector<char> tmp;
    char* buf = sp;
    if (!req.in_place) {
      tmp.assign(sp, sp + s.send_count * es);
      buf = tmp.data();
    }
    gloo::AllreduceOptions o(ctx_);
    set_io(o, req, tag, buf, s.send_count, buf, s.send_count);
    o.setReduceFunction([t](void* o, const void* a, const void* b, size_t n) { host_sum(t, o, a, b, n); });
    gloo::allreduce(o);
    if (!req.in_place) std::memcpy(out, buf + size_t(rank_) * s.chunk * es, s.chunk * es);
  }

  void sendrecv(const OpRequest& req, const Sizing& s, uint32_t tag, char* sp, char* rp) {
    const size_t es = dtype_size(req.dtype);
    int to = (rank_ + 1) % world_, from = (rank_ - 1 + world_) % world_;
    if (req.pair_a >= 0) to = from = rank_ == req.pair_a ? req.pair_b : req.pair_a;
    auto sb = ctx_->createUnboundBuffer(sp, s.send_count * es);
    auto rb = ctx_->createUnboundBuffer(rp, s.recv_count * es);
    rb->recv(from, uint64_t(tag));
    sb->send(to, uint64_t(tag));
    bool sent = false, received = false;
    std::string why = "timed out";
    try {
      sent = sb->waitSend(call_timeout(req));
      received = sent && rb->waitRecv(call_timeout(req));
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (sent && received) return;
    // A failed transfer may still be pending in Gloo's loop thread, which signals its buffers when the peer's
    // connection ends (UnboundBuffer::signalException): destroying them here would free what that thread is
    // about to touch. Kept until the process exits (the worker stops after a failed op).
    abandoned_.push_back(std::move(sb));
    abandoned_.push_back(std::move(rb));
    throw gloo::IoException(
        (!sent ? "send to rank " + std::to_string(to) : "recv from rank " + std::to_string(from)) + ": " +
        why);
  }

  int rank_ = 0, world_ = 1;
  Clock::time_point issue_started_;  // start of the latest Gloo call (a failure this late is a timeout)
  uint64_t seq_ = 0;
  std::string where_;
  std::shared_ptr<gloo::rendezvous::Context> ctx_;
  std::vector<char> send_, recv_, stage_;  // stage_: in-place alltoall/sendrecv receive here (landing())
  std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>>
      abandoned_;  // of failed transfers (sendrecv())
};

}  // namespace

std::unique_ptr<Engine> make_gloo_engine() { return std::make_unique<GlooEngine>(); }

}  // namespace dd::comm
