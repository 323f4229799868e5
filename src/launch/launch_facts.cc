// JSON form of the launch records (RankRecord, NodeRecord, StopEvent, AttemptRecord) and the stop-cause
// names. Missing fields read as their defaults, so records from older or newer node agents still load.
#include "launch/launch_facts.h"

namespace dd::launch {

namespace {

constexpr std::pair<StopCause, const char*> kCauseNames[] = {
    {StopCause::none, "none"},
    {StopCause::worker_failed, "worker_failed"},
    {StopCause::hang, "hang"},
    {StopCause::interrupted, "interrupted"},
    {StopCause::node_lost, "node_lost"},
    {StopCause::master_lost, "master_lost"},
    {StopCause::scheduler_failed, "scheduler_failed"},
    {StopCause::cannot_start, "cannot_start"},
};

}  // namespace

const char* stop_cause_name(StopCause c) {
  for (const auto& [cause, name] : kCauseNames)
    if (cause == c) return name;
  return "none";
}

StopCause stop_cause_from_name(const std::string& s) {
  for (const auto& [cause, name] : kCauseNames)
    if (s == name) return cause;
  return StopCause::none;
}

void to_json(nlohmann::json& j, const RankRecord& r) {
  j = nlohmann::json{{"rank", r.rank},
                     {"local_rank", r.local_rank},
                     {"node_rank", r.node_rank},
                     {"pid", r.pid},
                     {"running", r.running},
                     {"stopped_by_us", r.stopped_by_us},
                     {"exit_code", r.exit_code},
                     {"signal", r.signal},
                     {"end_s", r.end_s},
                     {"end_wall_ms", r.end_wall_ms},
                     {"log_path", r.log_path},
                     {"tail", r.tail},
                     {"traceback", r.traceback},
                     {"start_error", r.start_error},
                     {"proc_state", r.proc_state},
                     {"wchan", r.wchan},
                     {"cpu_s", r.cpu_s},
                     {"cpu_window_s", r.cpu_window_s},
                     {"silent_s", r.silent_s},
                     {"collectives", r.collectives},
                     {"stack", r.stack},
                     {"stack_source", r.stack_source},
                     {"stack_error", r.stack_error},
                     {"fr_dump", r.fr_dump},
                     {"ending_state", r.ending_state},
                     {"identity", r.identity},
                     {"identity_read", r.identity_read}};
}

void from_json(const nlohmann::json& j, RankRecord& r) {
  const RankRecord d;
  r.rank = j.value("rank", d.rank);
  r.local_rank = j.value("local_rank", d.local_rank);
  r.node_rank = j.value("node_rank", d.node_rank);
  r.pid = j.value("pid", d.pid);
  r.running = j.value("running", d.running);
  r.stopped_by_us = j.value("stopped_by_us", d.stopped_by_us);
  r.exit_code = j.value("exit_code", d.exit_code);
  r.signal = j.value("signal", d.signal);
  r.end_s = j.value("end_s", d.end_s);
  r.end_wall_ms = j.value("end_wall_ms", d.end_wall_ms);
  r.log_path = j.value("log_path", d.log_path);
  r.tail = j.value("tail", d.tail);
  r.traceback = j.value("traceback", d.traceback);
  r.start_error = j.value("start_error", d.start_error);
  r.proc_state = j.value("proc_state", d.proc_state);
  r.wchan = j.value("wchan", d.wchan);
  r.cpu_s = j.value("cpu_s", d.cpu_s);
  r.cpu_window_s = j.value("cpu_window_s", d.cpu_window_s);
  r.silent_s = j.value("silent_s", d.silent_s);
  r.collectives = j.value("collectives", d.collectives);
  r.stack = j.value("stack", d.stack);
  r.stack_error = j.value("stack_error", d.stack_error);
  r.stack_source = j.value("stack_source", d.stack_source);
  r.fr_dump = j.value("fr_dump", d.fr_dump);
  r.ending_state = j.value("ending_state", d.ending_state);
  if (auto it = j.find("identity"); it != j.end() && it->is_object())
    for (const auto& [k, v] : it->items())
      if (v.is_string()) r.identity[k] = v.get<std::string>();
  r.identity_read = j.value("identity_read", d.identity_read);
}

void to_json(nlohmann::json& j, const NodeRecord& n) {
  j = nlohmann::json{
      {"node_rank", n.node_rank},           {"host", n.host},    {"ranks", n.ranks}, {"env", n.env},
      {"log_free_bytes", n.log_free_bytes}, {"strays", n.strays}};
  if (n.strays_more > 0) j["strays_more"] = n.strays_more;
  if (!n.signals.empty()) j["signals"] = n.signals;
  if (!n.stragglers_seen.empty()) j["stragglers_seen"] = n.stragglers_seen;
  if (!n.flight_recorder.is_null()) j["flight_recorder"] = n.flight_recorder;
  if (n.scheduler.pid > 0) j["scheduler"] = n.scheduler;
}

void to_json(nlohmann::json& j, const StragglerSeen& s) {
  j = {{"at", s.at}, {"rank", s.rank}, {"text", s.text}};
  if (s.on_gpu) j["on_gpu"] = true;
}

void from_json(const nlohmann::json& j, StragglerSeen& s) {
  s.at = j.value("at", "");
  s.rank = j.value("rank", -1);
  s.text = j.value("text", "");
  s.on_gpu = j.value("on_gpu", false);
}

void from_json(const nlohmann::json& j, NodeRecord& n) {
  n.node_rank = j.value("node_rank", -1);
  n.host = j.value("host", "");
  n.ranks = j.value("ranks", std::vector<RankRecord>{});
  n.env = j.value("env", std::map<std::string, std::string>{});
  n.log_free_bytes = j.value("log_free_bytes", int64_t(-1));
  n.strays = j.value("strays", std::vector<std::string>{});
  n.strays_more = j.value("strays_more", size_t(0));
  n.signals = j.value("signals", std::vector<std::string>{});
  n.stragglers_seen = j.value("stragglers_seen", std::vector<StragglerSeen>{});
  n.flight_recorder = j.contains("flight_recorder") ? j["flight_recorder"] : nlohmann::json();
  n.scheduler = j.value("scheduler", RankRecord{});
}

void to_json(nlohmann::json& j, const StopEvent& s) {
  j = nlohmann::json{{"cause", stop_cause_name(s.cause)},
                     {"node_rank", s.node_rank},
                     {"rank", s.rank},
                     {"detail", s.detail},
                     {"trigger_rank", s.trigger_rank},
                     {"trigger", s.trigger},
                     {"wall_ms", s.wall_ms},
                     {"root", s.root},
                     {"diagnosis", s.diagnosis}};
}

void from_json(const nlohmann::json& j, StopEvent& s) {
  s.cause = stop_cause_from_name(j.value("cause", "none"));
  s.node_rank = j.value("node_rank", -1);
  s.rank = j.value("rank", -1);
  s.detail = j.value("detail", "");
  s.trigger_rank = j.value("trigger_rank", -1);
  s.trigger = j.value("trigger", "");
  s.wall_ms = j.value("wall_ms", int64_t{0});
  s.root = j.value("root", RankRecord{});
  s.diagnosis = j.value("diagnosis", std::vector<report::Finding>{});
}

void to_json(nlohmann::json& j, const AttemptRecord& a) {
  j = nlohmann::json{{"attempt", a.attempt},
                     {"command", a.command},
                     {"stop", a.stop},
                     {"nodes", a.nodes},
                     {"silent_nodes", a.silent_nodes},
                     {"duration_s", a.duration_s},
                     {"stop_latency_s", a.stop_latency_s}};
  if (!a.clock_offsets.empty()) j["clock_offsets"] = a.clock_offsets;
}

void from_json(const nlohmann::json& j, AttemptRecord& a) {
  a.attempt = j.value("attempt", 0);
  a.command = j.value("command", std::vector<std::string>{});
  a.stop = j.value("stop", StopEvent{});
  a.nodes = j.value("nodes", std::vector<NodeRecord>{});
  a.silent_nodes = j.value("silent_nodes", std::vector<int>{});
  a.duration_s = j.value("duration_s", 0.0);
  a.stop_latency_s = j.value("stop_latency_s", -1.0);
  a.clock_offsets = j.value("clock_offsets", std::vector<ClockOffset>{});
}

}  // namespace dd::launch
