// The digest's JSON form, as nodes publish it through the store: short keys, signatures as [op, sizes,
// dtypes] and runs as [start, count, signature index]. Reading is untrusted: every nlohmann exception and
// every out-of-range index becomes an Error, sizes are capped.
#include <fmt/format.h>

#include <cstdint>

#include "logs/fr/fr_summary.h"

namespace dd::logs {

namespace {

using nlohmann::json;

constexpr size_t kMaxSummaryRanks = 1 << 20;

json fr_sig_json(const FrSignature& s) { return json::array({s.op, s.sizes, s.dtypes}); }

FrSignature fr_sig_from(const json& j) {
  return {j.at(0).get<std::string>(), j.at(1).get<std::string>(), j.at(2).get<std::string>()};
}

json fr_brief_json(const FrOpBrief& b) {
  return {{"pg", b.pg_name},  {"seq", b.seq},       {"p2p", b.is_p2p},        {"sig", fr_sig_json(b.sig)},
          {"state", b.state}, {"rid", b.record_id}, {"t", b.time_created_ns}, {"frames", b.frames}};
}

FrOpBrief fr_brief_from(const json& j) {
  FrOpBrief b;
  j.at("pg").get_to(b.pg_name);
  j.at("seq").get_to(b.seq);
  j.at("p2p").get_to(b.is_p2p);
  b.sig = fr_sig_from(j.at("sig"));
  j.at("state").get_to(b.state);
  j.at("rid").get_to(b.record_id);
  j.at("t").get_to(b.time_created_ns);
  j.at("frames").get_to(b.frames);
  return b;
}

json fr_track_json(const FrPgTrack& t) {
  json sigs = json::array(), runs = json::array(), detail = json::array();
  for (const auto& s : t.sigs) sigs.push_back(fr_sig_json(s));
  for (const auto& r : t.runs) runs.push_back({r.start, r.count, r.sig});
  for (const auto& d : t.detail) detail.push_back(fr_brief_json(d));
  json out = {{"pg", t.pg_name},          {"desc", t.pg_desc}, {"members", t.members}, {"issued", t.issued},
              {"completed", t.completed}, {"sigs", sigs},      {"runs", runs},         {"detail", detail}};
  // Arrivals as [first seq, base ns, microseconds after base (-1 absent)...]: about 8 bytes a collective.
  if (!t.arrival_ns.empty()) {
    int64_t base = -1;
    for (int64_t v : t.arrival_ns)
      if (v >= 0 && (base < 0 || v < base)) base = v;
    json arr = json::array({t.arrival_first_seq, base});
    for (int64_t v : t.arrival_ns) arr.push_back(v < 0 ? int64_t{-1} : (v - base) / 1000);
    out["arr"] = std::move(arr);
  }
  // GPU times as microseconds (-1 absent), one per arrival.
  if (!t.gpu_ns.empty()) {
    json gpu = json::array();
    for (int64_t v : t.gpu_ns) gpu.push_back(v < 0 ? int64_t{-1} : v / 1000);
    out["gpu"] = std::move(gpu);
  }
  return out;
}

FrPgTrack fr_track_from(const json& j) {
  FrPgTrack t;
  j.at("pg").get_to(t.pg_name);
  j.at("desc").get_to(t.pg_desc);
  j.at("members").get_to(t.members);
  j.at("issued").get_to(t.issued);
  j.at("completed").get_to(t.completed);
  for (const auto& s : j.at("sigs")) t.sigs.push_back(fr_sig_from(s));
  for (const auto& r : j.at("runs")) {
    FrRun run{r.at(0).get<int64_t>(), r.at(1).get<int64_t>(), r.at(2).get<size_t>()};
    if (run.sig >= t.sigs.size() || run.count < 0 || run.count > kWindowSeqs)
      throw std::out_of_range("a run names a signature or length out of range");
    t.runs.push_back(run);
  }
  for (const auto& d : j.at("detail")) t.detail.push_back(fr_brief_from(d));
  if (j.contains("arr")) {  // older digests have none
    const json& arr = j.at("arr");
    if (arr.size() < 2 || arr.size() > 2 + static_cast<size_t>(kArrivalSeqs))
      throw std::out_of_range("arrivals of a length out of range");
    t.arrival_first_seq = arr.at(0).get<int64_t>();
    const int64_t base = arr.at(1).get<int64_t>();
    for (size_t i = 2; i < arr.size(); ++i) {
      const int64_t us = arr[i].get<int64_t>();
      // Any time to_json can write: base >= 0 and base + us * 1000 within int64 (none past it is a time).
      if (us < -1 || (us >= 0 && (base < 0 || us > (INT64_MAX - base) / 1000)))
        throw std::out_of_range("an arrival time out of range");
      t.arrival_ns.push_back(us < 0 ? -1 : base + us * 1000);
    }
  }
  if (j.contains("gpu")) {  // digests of runs without NCCL timing have none
    const json& gpu = j.at("gpu");
    if (gpu.size() != t.arrival_ns.size()) throw std::out_of_range("GPU times not one per arrival");
    for (const json& v : gpu) {
      const int64_t us = v.get<int64_t>();
      if (us < -1 || us > 3'600'000'000) throw std::out_of_range("a GPU time out of range");
      t.gpu_ns.push_back(us < 0 ? -1 : us * 1000);
    }
  }
  return t;
}

}  // namespace

json fr_summary_to_json(const FrSummary& s) {
  json ranks = json::array();
  for (const auto& r : s.ranks) {
    json groups = json::array();
    for (const auto& g : r.groups) groups.push_back(fr_track_json(g));
    json jr = {{"rank", r.rank},
               {"node", r.node},
               {"source", r.source},
               {"version", r.version},
               {"comm", r.comm_lib_version},
               {"groups", groups},
               {"warnings", r.warnings}};
    if (r.has_last) jr["last"] = fr_brief_json(r.last);
    ranks.push_back(std::move(jr));
  }
  return {{"fr_summary", 1}, {"ranks", ranks}, {"errors", s.errors}};
}

Result<FrSummary> fr_summary_from_json(const json& j) {
  try {
    if (!j.is_object() || j.value("fr_summary", 0) != 1)
      return Error::invalid("not a Flight Recorder summary");
    FrSummary s;
    j.at("errors").get_to(s.errors);
    if (j.at("ranks").size() > kMaxSummaryRanks)
      return Error::invalid("Flight Recorder summary: too many ranks");
    for (const auto& jr : j.at("ranks")) {
      FrRankSummary r;
      jr.at("rank").get_to(r.rank);
      r.node = jr.value("node", -1);
      jr.at("source").get_to(r.source);
      jr.at("version").get_to(r.version);
      jr.at("comm").get_to(r.comm_lib_version);
      jr.at("warnings").get_to(r.warnings);
      for (const auto& g : jr.at("groups")) r.groups.push_back(fr_track_from(g));
      if (jr.contains("last")) {
        r.has_last = true;
        r.last = fr_brief_from(jr.at("last"));
      }
      s.ranks.push_back(std::move(r));
    }
    return s;
  } catch (const std::exception& e) {
    return Error::invalid(fmt::format("Flight Recorder summary unreadable: {}", e.what()));
  }
}

}  // namespace dd::logs
