// FlightRecord's own JSON form (distdoctor's, not PyTorch's): field names as in flight_recorder.h, every
// field written, absent fields read back as their defaults. from_json throws nlohmann's type errors on a
// wrong type, as nlohmann converters do; callers with untrusted JSON catch them (fr_summary.h does).
#include "logs/fr/flight_recorder.h"

namespace dd::logs {

namespace {

template <typename T>
void fr_get(const nlohmann::json& j, const char* key, T& out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) it->get_to(out);
}

}  // namespace

void to_json(nlohmann::json& j, const FrFrame& f) {
  j = {{"name", f.name}, {"file", f.file}, {"line", f.line}};
}

void from_json(const nlohmann::json& j, FrFrame& f) {
  fr_get(j, "name", f.name);
  fr_get(j, "file", f.file);
  fr_get(j, "line", f.line);
}

void to_json(nlohmann::json& j, const FrEntry& e) {
  j = {{"record_id", e.record_id},
       {"pg_id", e.pg_id},
       {"pg_name", e.pg_name},
       {"pg_desc", e.pg_desc},
       {"collective_seq_id", e.collective_seq_id},
       {"p2p_seq_id", e.p2p_seq_id},
       {"op_id", e.op_id},
       {"op", e.op},
       {"input_sizes", e.input_sizes},
       {"output_sizes", e.output_sizes},
       {"input_dtypes", e.input_dtypes},
       {"output_dtypes", e.output_dtypes},
       {"state", e.state},
       {"time_created_ns", e.time_created_ns},
       {"time_started_ns", e.time_started_ns},
       {"time_completed_ns", e.time_completed_ns},
       {"duration_ms", e.duration_ms},
       {"timeout_ms", e.timeout_ms},
       {"is_p2p", e.is_p2p},
       {"retired", e.retired},
       {"thread_name", e.thread_name},
       {"frames", e.frames}};
}

void from_json(const nlohmann::json& j, FrEntry& e) {
  fr_get(j, "record_id", e.record_id);
  fr_get(j, "pg_id", e.pg_id);
  fr_get(j, "pg_name", e.pg_name);
  fr_get(j, "pg_desc", e.pg_desc);
  fr_get(j, "collective_seq_id", e.collective_seq_id);
  fr_get(j, "p2p_seq_id", e.p2p_seq_id);
  fr_get(j, "op_id", e.op_id);
  fr_get(j, "op", e.op);
  fr_get(j, "input_sizes", e.input_sizes);
  fr_get(j, "output_sizes", e.output_sizes);
  fr_get(j, "input_dtypes", e.input_dtypes);
  fr_get(j, "output_dtypes", e.output_dtypes);
  fr_get(j, "state", e.state);
  fr_get(j, "time_created_ns", e.time_created_ns);
  fr_get(j, "time_started_ns", e.time_started_ns);
  fr_get(j, "time_completed_ns", e.time_completed_ns);
  fr_get(j, "duration_ms", e.duration_ms);
  fr_get(j, "timeout_ms", e.timeout_ms);
  fr_get(j, "is_p2p", e.is_p2p);
  fr_get(j, "retired", e.retired);
  fr_get(j, "thread_name", e.thread_name);
  fr_get(j, "frames", e.frames);
}

void to_json(nlohmann::json& j, const FrGroup& g) {
  j = {{"name", g.name}, {"desc", g.desc}, {"ranks", g.ranks}};
}

void from_json(const nlohmann::json& j, FrGroup& g) {
  fr_get(j, "name", g.name);
  fr_get(j, "desc", g.desc);
  fr_get(j, "ranks", g.ranks);
}

void to_json(nlohmann::json& j, const FrGroupStatus& s) {
  j = {{"pg_id", s.pg_id},
       {"last_enqueued", s.last_enqueued},
       {"last_started", s.last_started},
       {"last_completed", s.last_completed}};
}

void from_json(const nlohmann::json& j, FrGroupStatus& s) {
  fr_get(j, "pg_id", s.pg_id);
  fr_get(j, "last_enqueued", s.last_enqueued);
  fr_get(j, "last_started", s.last_started);
  fr_get(j, "last_completed", s.last_completed);
}

void to_json(nlohmann::json& j, const FlightRecord& r) {
  j = {{"rank", r.rank},
       {"source", r.source},
       {"format", r.format},
       {"version", r.version},
       {"comm_lib_version", r.comm_lib_version},
       {"groups", r.groups},
       {"status", r.status},
       {"entries", r.entries},
       {"warnings", r.warnings}};
}

void from_json(const nlohmann::json& j, FlightRecord& r) {
  fr_get(j, "rank", r.rank);
  fr_get(j, "source", r.source);
  fr_get(j, "format", r.format);
  fr_get(j, "version", r.version);
  fr_get(j, "comm_lib_version", r.comm_lib_version);
  fr_get(j, "groups", r.groups);
  fr_get(j, "status", r.status);
  fr_get(j, "entries", r.entries);
  fr_get(j, "warnings", r.warnings);
}

}  // namespace dd::logs
