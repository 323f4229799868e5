// JSON forms of LogFacts and the process label used in evidence.
#include "logs/log_facts.h"

#include "logs/log_time.h"

namespace dd::logs {

std::string ProcessFacts::label() const {
  std::string s = host.empty() ? std::string("?") : host;
  s += ":" + std::to_string(pid);
  if (rank >= 0) s += " (rank " + std::to_string(rank) + ")";
  return s;
}

void to_json(nlohmann::json& j, const ProcessFacts& p) {
  j = nlohmann::json{{"file", p.file},
                     {"host", p.host},
                     {"pid", p.pid},
                     {"rank", p.rank},
                     {"nranks", p.nranks},
                     {"cuda_dev", p.cuda_dev},
                     {"bus_id", p.bus_id},
                     {"comm_id", p.comm_id},
                     {"nccl_version", p.nccl_version},
                     {"env_settings", p.env_settings},
                     {"cuda_driver", p.cuda_driver},
                     {"bootstrap_if", p.bootstrap_if},
                     {"bootstrap_ip", p.bootstrap_ip},
                     {"network", p.network},
                     {"net_devices", p.net_devices},
                     {"ib_devices", p.ib_devices},
                     {"oob_if", p.oob_if},
                     {"net_plugin", p.net_plugin},
                     {"gdr", p.gdr},
                     {"channel_transports", p.channel_transports},
                     {"comm_inits", p.comm_inits},
                     {"init_complete", p.init_complete},
                     {"init_total_s", p.init_total_s},
                     {"init_timings", p.init_timings},
                     {"coll_counts", p.coll_counts},
                     {"nccl_lines", p.nccl_lines},
                     {"infos", p.infos},
                     {"warns", p.warns},
                     {"first_warn", p.first_warn},
                     {"error_trace", p.error_trace}};
  if (p.init_complete) j["first_init_complete"] = p.first_init_complete.str();
  if (p.warns) j["first_warn_at"] = p.first_warn_at.str();
  if (!p.iterations.empty()) j["iterations"] = p.iterations.size();
}

void to_json(nlohmann::json& j, const RankProgress& r) {
  j = nlohmann::json{{"rank", r.rank},           {"file", r.file},
                     {"lines", r.lines},         {"last_at", r.last_at.str()},
                     {"nccl_seen", r.nccl_seen}, {"last_line", r.last_line}};
  if (r.last_time >= 0) j["last_time"] = log_time_text(r.last_time);
  if (!r.exception.empty()) j["exception"] = r.exception, j["exception_at"] = r.exception_at.str();
  if (!r.peer_lost.empty()) j["peer_lost"] = r.peer_lost, j["peer_lost_at"] = r.peer_lost_at.str();
  if (!r.waiting_in.empty()) j["waiting_in"] = r.waiting_in;
  if (r.waiting_peers) j["waiting_peers"] = true;
  if (r.init_marker_at.line > 0) j["init_marker_at"] = r.init_marker_at.str();
}

void to_json(nlohmann::json& j, const ExitEvent& e) {
  j = nlohmann::json{{"at", e.at.str()},
                     {"rank", e.rank},
                     {"local_rank", e.local_rank},
                     {"pid", e.pid},
                     {"code", e.code},
                     {"by_launcher", e.by_launcher},
                     {"time", log_time_text(e.time)}};
}

void to_json(nlohmann::json& j, const FileFacts& f) {
  j = nlohmann::json{{"path", f.path},
                     {"bytes", f.bytes},
                     {"lines", f.lines},
                     {"nccl_lines", f.nccl_lines},
                     {"gzip", f.gzip},
                     {"truncated_lines", f.truncated_lines},
                     {"longest_line", f.longest_line},
                     {"nul_bytes", f.nul_bytes},
                     {"last_line", f.last_line},
                     {"init_complete", f.init_complete},
                     {"processes", f.processes}};
  if (!f.error.empty()) j["error"] = f.error;
  if (!f.capped.empty()) j["capped"] = f.capped;
}

void to_json(nlohmann::json& j, const WatchdogTimeout& w) {
  j = nlohmann::json{{"at", w.at.str()},
                     {"rank", w.rank},
                     {"seq", w.seq},
                     {"op", w.op},
                     {"timeout_ms", w.timeout_ms},
                     {"ran_ms", w.ran_ms},
                     {"last_enqueued", w.last_enqueued},
                     {"last_completed", w.last_completed},
                     {"numel_in", w.numel_in},
                     {"numel_out", w.numel_out},
                     {"pg", w.pg},
                     {"dump_only", w.dump_only},
                     {"dump_prepared", w.dump_prepared},
                     {"dump_path", w.dump_path}};
}

void to_json(nlohmann::json& j, const ChildFailure& c) {
  j = nlohmann::json{
      {"at", c.at.str()},       {"host", c.host}, {"rank", c.rank}, {"local_rank", c.local_rank},
      {"exitcode", c.exitcode}, {"pid", c.pid},   {"time", c.time}, {"root_cause", c.root_cause}};
}

}  // namespace dd::logs
