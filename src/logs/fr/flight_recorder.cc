// Reads a decoded Flight Recorder dump (pickle or JSON, any version seen: 2.x) into a FlightRecord, field by
// field and tolerant of absence and of the JSON form's strings-for-numbers; names the rank from the file.
#include "logs/fr/flight_recorder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "common/json_limits.h"
#include "common/release_memory.h"

namespace dd::logs {

namespace {

using nlohmann::json;

constexpr size_t kMaxFrWarnings = 16;
constexpr size_t kMaxFrText = 4096;  // one name, path or op

void fr_warn(FlightRecord& r, std::string w) {
  if (r.warnings.size() < kMaxFrWarnings) r.warnings.push_back(std::move(w));
}

// An integer from a number, a bool or a decimal string ("12" in the JSON dump's pg_status); else dflt.
int64_t fr_int(const json& j, int64_t dflt = -1) {
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number_unsigned()) return static_cast<int64_t>(std::min<uint64_t>(j.get<uint64_t>(), INT64_MAX));
  if (j.is_number_float()) {  // NaN and out-of-range floats are not integers (the cast would be undefined)
    double d = j.get<double>();
    if (!(d >= -9.2e18 && d <= 9.2e18)) return dflt;
    return static_cast<int64_t>(d);
  }
  if (j.is_boolean()) return j.get<bool>() ? 1 : 0;
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && p == s.data() + s.size()) return v;
  }
  return dflt;
}

int64_t fr_int_at(const json& o, const char* key, int64_t dflt = -1) {
  auto it = o.find(key);
  return it == o.end() ? dflt : fr_int(*it, dflt);
}

std::string fr_str(const json& j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    size_t n = std::min(s.size(), kMaxFrText);
    while (n < s.size() && n > 0 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80)
      --n;  // keep UTF-8 whole
    return s.substr(0, n);
  }
  if (j.is_number()) return j.dump();
  return "";
}

std::string fr_str_at(const json& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() ? std::string() : fr_str(*it);
}

// "[0, 1, 2]" (the form pg_config uses), "0,1", or a list of ints.
std::vector<int> fr_ranks(const json& j) {
  std::vector<int> out;
  if (j.is_array()) {
    for (const auto& v : j)
      if (int64_t r = fr_int(v); r >= 0 && r <= INT32_MAX && out.size() < kMaxFrGroups) out.push_back(int(r));
    return out;
  }
  std::string s = fr_str(j);
  for (size_t i = 0; i < s.size() && out.size() < kMaxFrGroups;) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) {
      ++i;
      continue;
    }
    int v = 0;
    auto [p, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v);
    if (ec == std::errc()) out.push_back(v);
    i = static_cast<size_t>(p - s.data()) + (ec == std::errc() ? 0 : 1);
  }
  return out;
}

std::vector<std::vector<int64_t>> fr_sizes(const json& j) {
  std::vector<std::vector<int64_t>> out;
  if (!j.is_array()) return out;
  for (const auto& t : j) {
    out.emplace_back();
    if (t.is_array())
      for (const auto& d : t) out.back().push_back(fr_int(d, 0));
  }
  return out;
}

std::vector<std::string> fr_strings(const json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (const auto& v : j) out.push_back(fr_str(v));
  return out;
}

FrEntry fr_entry(const json& e) {
  FrEntry x;
  x.record_id = fr_int_at(e, "record_id");
  x.pg_id = fr_int_at(e, "pg_id");
  if (auto pg = e.find("process_group"); pg != e.end()) {
    if (pg->is_array() && !pg->empty()) {
      x.pg_name = fr_str((*pg)[0]);
      if (pg->size() > 1) x.pg_desc = fr_str((*pg)[1]);
    } else {
      x.pg_name = fr_str(*pg);
    }
  }
  x.collective_seq_id = fr_int_at(e, "collective_seq_id");
  x.p2p_seq_id = fr_int_at(e, "p2p_seq_id");
  x.op_id = fr_int_at(e, "op_id");
  x.op = fr_str_at(e, "profiling_name");
  if (auto it = e.find("input_sizes"); it != e.end()) x.input_sizes = fr_sizes(*it);
  if (auto it = e.find("output_sizes"); it != e.end()) x.output_sizes = fr_sizes(*it);
  if (auto it = e.find("input_dtypes"); it != e.end()) x.input_dtypes = fr_strings(*it);
  if (auto it = e.find("output_dtypes"); it != e.end()) x.output_dtypes = fr_strings(*it);
  x.state = fr_str_at(e, "state");
  x.time_created_ns = fr_int_at(e, "time_created_ns");
  // The JSON dump writes 0 where the pickle writes None: both mean "not seen".
  x.time_started_ns = fr_int_at(e, "time_discovered_started_ns");
  x.time_completed_ns = fr_int_at(e, "time_discovered_completed_ns");
  if (x.time_started_ns == 0) x.time_started_ns = -1;
  if (x.time_completed_ns == 0) x.time_completed_ns = -1;
  if (auto it = e.find("duration_ms"); it != e.end() && it->is_number()) x.duration_ms = it->get<double>();
  x.timeout_ms = fr_int_at(e, "timeout_ms");
  x.is_p2p = fr_int_at(e, "is_p2p", 0) == 1;
  x.retired = fr_int_at(e, "retired", 0) == 1;
  x.thread_name = fr_str_at(e, "thread_name");
  if (auto fr = e.find("frames"); fr != e.end() && fr->is_array())
    for (const auto& f : *fr) {
      if (x.frames.size() >= kMaxFrames) break;
      if (f.is_object())
        x.frames.push_back({fr_str_at(f, "name"), fr_str_at(f, "filename"), fr_int_at(f, "line")});
    }
  return x;
}

void fr_groups(const json& cfg, FlightRecord& r) {
  if (!cfg.is_object()) {
    if (!cfg.is_null()) fr_warn(r, "pg_config is not a dict");
    return;
  }
  for (const auto& [key, g] : cfg.items()) {
    if (r.groups.size() >= kMaxFrGroups) break;
    FrGroup x;
    x.name = g.is_object() && g.contains("name") ? fr_str_at(g, "name") : key.substr(0, kMaxFrText);
    if (g.is_object()) {
      x.desc = fr_str_at(g, "desc");
      if (auto it = g.find("ranks"); it != g.end()) x.ranks = fr_ranks(*it);
    }
    r.groups.push_back(std::move(x));
  }
}

void fr_status(const json& st, FlightRecord& r) {
  if (!st.is_object()) return;
  for (const auto& [key, s] : st.items()) {
    if (r.status.size() >= kMaxFrGroups || !s.is_object()) break;
    r.status.push_back({fr_int(json(key)), fr_int_at(s, "last_enqueued_collective"),
                        fr_int_at(s, "last_started_collective"), fr_int_at(s, "last_completed_collective")});
  }
}

}  // namespace

Result<FlightRecord> flight_record_from_dump(const json& dump) {
  if (!dump.is_object()) return Error::protocol("not a Flight Recorder dump: the value is not a dict");
  bool has_any = dump.contains("version") || dump.contains("pg_config") || dump.contains("entries");
  if (!has_any) return Error::protocol("not a Flight Recorder dump: no version, pg_config or entries");
  FlightRecord r;
  r.version = fr_str_at(dump, "version");
  r.comm_lib_version = fr_str_at(dump, "comm_lib_version");
  if (r.comm_lib_version.empty()) r.comm_lib_version = fr_str_at(dump, "nccl_version");  // 2.5 - 2.7
  if (r.version.empty()) fr_warn(r, "no version field");
  if (auto it = dump.find("pg_config"); it != dump.end()) fr_groups(*it, r);
  if (auto it = dump.find("pg_status"); it != dump.end()) fr_status(*it, r);
  if (auto it = dump.find("entries"); it != dump.end()) {
    if (!it->is_array()) fr_warn(r, "entries is not a list");
    for (const auto& e : it->is_array() ? *it : json::array()) {
      if (r.entries.size() >= kMaxFrEntries) {
        fr_warn(r, fmt::format("more than {} entries: the rest are ignored", kMaxFrEntries));
        break;
      }
      if (e.is_object()) r.entries.push_back(fr_entry(e));
    }
  }  // no entries: TORCH_INCLUDE_COLLECTIVES off, or nothing recorded yet (the JSON form drops the key)
  for (const auto& e : r.entries)
    if (e.state.empty() || (e.collective_seq_id < 0 && e.p2p_seq_id < 0)) {
      fr_warn(r, "entries without state or sequence ids");
      break;
    }
  return r;
}

// A dump's values, measured before they are built: counted against what all the dumps of the run may hold
// (limits.kept), then built only once they fit the run's room for dumps decoded at once (limits.in_flight),
// held until the JSON is gone. `what` names the format in the refusals.
template <class Build>
static Result<FlightRecord> build_within_room(const char* what, size_t values, const PickleLimits& limits,
                                              Build&& build_json) {
  if (limits.kept && !limits.kept->take(values))
    return Error::invalid(
        fmt::format("{}: its {} values would pass the {} that all the dumps of one run may hold together: "
                    "not read (give fewer dumps at a time)",
                    what, values, limits.kept->cap()));
  auto build = [&]() -> Result<FlightRecord> {
    InFlightGate::Hold room(limits.in_flight, values,
                            std::chrono::steady_clock::now() + limits.in_flight_wait);
    if (!room.ok())
      return Error::invalid(
          fmt::format("{}: its {} values did not fit in memory beside the other dumps read at once (at "
                      "most {} values in all) within {} s: not read",
                      what, values, limits.in_flight->cap(), limits.in_flight_wait.count() / 1000));
    Result<json> dump = build_json();
    if (!dump) return dump.error();
    return flight_record_from_dump(*dump);
  };
  auto r = build();
  if (values > 500'000) release_freed_memory();  // its JSON, freed in this thread's arena
  if (r) r->format = what;
  return r;
}

// A pickled dump: decode_pickle measures it first (it refuses one whose shared values expand past the
// limits).
static Result<FlightRecord> parse_pickled_record(std::string_view bytes, const PickleLimits& limits) {
  auto decoded = decode_pickle(bytes, limits);
  if (!decoded) return decoded.error();
  return build_within_room("pickle", decoded->values(), limits, [&] { return decoded->to_json(); });
}

// A JSON dump: measured in one pass that builds nothing (a 512 MB text of small numbers would build 250
// million values, gigabytes), with the same limits as a pickle's result.
static Result<FlightRecord> parse_json_record(std::string_view bytes, const PickleLimits& limits) {
  if (bytes.size() > limits.max_input_bytes) return Error::invalid("Flight Recorder JSON dump too large");
  const JsonSize size = measure_json(bytes, limits.max_output_nodes, limits.max_output_bytes);
  if (!size.valid) return Error::protocol("not a Flight Recorder dump: neither a pickle nor JSON");
  if (size.over)
    return Error::invalid(
        fmt::format("json: more than {} values or {} MiB of strings, the limits of one dump: not read",
                    limits.max_output_nodes, limits.max_output_bytes >> 20));
  return build_within_room("json", size.values, limits, [&]() -> Result<json> {
    json dump = dd::parse_json_or_discarded(bytes);  // no exceptions
    if (dump.is_discarded()) return Error::protocol("not a Flight Recorder dump: neither a pickle nor JSON");
    return dump;
  });
}

Result<FlightRecord> parse_flight_record(std::string_view bytes, const PickleLimits& limits) {
  return looks_like_pickle(bytes) ? parse_pickled_record(bytes, limits) : parse_json_record(bytes, limits);
}

bool looks_like_flight_record(std::string_view head) {
  if (looks_like_pickle(head)) return true;
  size_t i = 0;
  while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
  return i < head.size() && head[i] == '{' &&
         head.substr(0, 65536).find("\"pg_config\"") != std::string_view::npos;
}

int rank_from_dump_name(std::string_view path) {
  std::string_view base = path.substr(path.find_last_of('/') + 1);
  size_t dot = base.find_last_of('.');
  if (dot != std::string_view::npos && dot > 0 &&
      !std::isdigit(static_cast<unsigned char>(base[dot + 1 < base.size() ? dot + 1 : dot])))
    base = base.substr(0, dot);  // "dump_7.json", "fr_trace_3.pkl"; "trace_1.5" keeps its digits
  size_t end = base.size(), start = end;
  while (start > 0 && std::isdigit(static_cast<unsigned char>(base[start - 1]))) --start;
  if (start == end || end - start > 9) return -1;
  int v = -1;
  std::from_chars(base.data() + start, base.data() + end, v);
  return v;
}

}  // namespace dd::logs
