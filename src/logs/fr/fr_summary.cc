// Digest of one rank's dump (fr_summary.h says what is kept and why) and the merge of node digests.
#include "logs/fr/fr_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace dd::logs {

namespace {

std::string fr_sizes_text(const std::vector<std::vector<int64_t>>& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i)
    s += (i ? "," : "") + fmt::format("[{}]", fmt::join(sizes[i], ","));
  return s + "]";
}

bool fr_torch_frame(const FrFrame& f) { return f.file.find("torch/") != std::string::npos; }

// The collective's API frame (innermost) first, then the frames outside torch in recorded order, capped;
// a stack wholly inside torch keeps its three innermost frames.
std::vector<FrFrame> fr_pick_frames(const std::vector<FrFrame>& frames) {
  bool user = std::any_of(frames.begin(), frames.end(), [](const FrFrame& f) { return !fr_torch_frame(f); });
  if (!user)
    return {frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(3, frames.size()))};
  std::vector<FrFrame> out;
  if (fr_torch_frame(frames[0])) out.push_back(frames[0]);
  for (const auto& f : frames)
    if (!fr_torch_frame(f) && out.size() < kSummaryFrames) out.push_back(f);
  return out;
}

FrSignature fr_signature(const std::vector<const FrEntry*>& es) {
  FrSignature s;
  for (const FrEntry* e : es) {
    std::string op = e->op.substr(e->op.find(':') == std::string::npos ? 0 : e->op.find(':') + 1);
    s.op += (s.op.empty() ? "" : "+") + op;
    s.sizes += (s.sizes.empty() ? "" : " + ") +
               fmt::format("in {} out {}", fr_sizes_text(e->input_sizes), fr_sizes_text(e->output_sizes));
    s.dtypes += (s.dtypes.empty() ? "" : "+") + fmt::format("{}", fmt::join(e->input_dtypes, ","));
  }
  return s;
}

FrOpBrief fr_brief(const FrEntry& e, const std::vector<const FrEntry*>& same_seq) {
  FrOpBrief b;
  b.pg_name = e.pg_name;
  b.is_p2p = e.is_p2p;
  b.seq = e.is_p2p ? e.p2p_seq_id : e.collective_seq_id;
  b.sig = fr_signature(same_seq.empty() ? std::vector<const FrEntry*>{&e} : same_seq);
  b.state = e.state;
  b.record_id = e.record_id;
  b.time_created_ns = e.time_created_ns;
  b.frames = fr_pick_frames(e.frames);
  return b;
}

struct TrackBuild {
  FrPgTrack t;
  std::map<int64_t, std::vector<const FrEntry*>> by_seq;
  std::vector<const FrEntry*> unfinished;
};

// A duration_ms as whole microseconds in ns (the JSON's unit); -1 for none, a negative or a non-number, or
// one past an hour (no collective the analysis compares runs that long).
int64_t fr_gpu_ns(double ms) {
  if (!(ms >= 0) || ms > 3'600'000.0) return -1;
  return static_cast<int64_t>(ms * 1000.0) * 1000;
}

void fr_finish_track(TrackBuild& b) {
  FrPgTrack& t = b.t;
  for (const auto& [seq, es] : b.by_seq) {
    t.issued = std::max(t.issued, seq);
    if (es.back()->completed()) t.completed = std::max(t.completed, seq);
  }
  for (auto it = b.by_seq.lower_bound(t.issued - kWindowSeqs + 1); it != b.by_seq.end(); ++it) {
    FrSignature sig = fr_signature(it->second);
    size_t k = std::find(t.sigs.begin(), t.sigs.end(), sig) - t.sigs.begin();
    if (k == t.sigs.size()) t.sigs.push_back(sig);
    if (!t.runs.empty() && t.runs.back().sig == k && t.runs.back().start + t.runs.back().count == it->first)
      ++t.runs.back().count;
    else
      t.runs.push_back({it->first, 1, k});
  }
  std::set<int64_t> seqs;  // the last kDetailOps seqs and the unfinished ones
  for (auto it = b.by_seq.rbegin(); it != b.by_seq.rend() && seqs.size() < kDetailOps; ++it)
    seqs.insert(it->first);
  for (const FrEntry* e : b.unfinished)
    if (seqs.size() < kDetailOps + kMaxUnfinished) seqs.insert(e->collective_seq_id);
  for (int64_t s : seqs) t.detail.push_back(fr_brief(*b.by_seq[s].back(), b.by_seq[s]));
  if (!b.by_seq.empty()) {
    t.arrival_first_seq = std::max(b.by_seq.begin()->first, t.issued - kArrivalSeqs + 1);
    bool timed = false;
    for (int64_t s = t.arrival_first_seq; s <= b.by_seq.rbegin()->first; ++s) {
      auto it = b.by_seq.find(s);
      const int64_t ns = it == b.by_seq.end() ? -1 : it->second.front()->time_created_ns;
      t.arrival_ns.push_back(ns < 0 ? -1 : ns / 1000 * 1000);  // to the microsecond, as the JSON carries it
      t.gpu_ns.push_back(it == b.by_seq.end() ? -1 : fr_gpu_ns(it->second.back()->duration_ms));
      timed = timed || t.gpu_ns.back() >= 0;
    }
    if (!timed) t.gpu_ns.clear();
  }
}

}  // namespace

std::string signature_text(const FrSignature& s) { return fmt::format("{} {} {}", s.op, s.sizes, s.dtypes); }

FrRankSummary summarize_flight_record(const FlightRecord& r) {
  FrRankSummary out;
  out.rank = r.rank;
  out.source = r.source;
  out.version = r.version;
  out.comm_lib_version = r.comm_lib_version;
  out.warnings = r.warnings;
  std::map<std::string, TrackBuild> tracks;
  for (const auto& g : r.groups) {
    auto& t = tracks[g.name].t;
    t.pg_name = g.name;
    t.pg_desc = g.desc;
    t.members = g.ranks;
  }
  std::map<int64_t, std::string> pg_names;  // pg_id -> name, for pg_status
  const FrEntry* last = nullptr;
  for (const auto& e : r.entries) {
    if (!last || e.record_id >= last->record_id) last = &e;
    auto& b = tracks[e.pg_name];
    b.t.pg_name = e.pg_name;
    if (b.t.pg_desc.empty()) b.t.pg_desc = e.pg_desc;
    pg_names[e.pg_id] = e.pg_name;
    if (e.is_p2p || e.collective_seq_id < 0) continue;
    b.by_seq[e.collective_seq_id].push_back(&e);
    if (!e.completed()) b.unfinished.push_back(&e);
  }
  for (auto& [name, b] : tracks) {
    fr_finish_track(b);
    for (const auto& st : r.status)
      if (auto it = pg_names.find(st.pg_id); it != pg_names.end() && it->second == name) {
        b.t.issued = std::max(b.t.issued, st.last_enqueued);
        b.t.completed = std::max(b.t.completed, st.last_completed);
      }
    out.groups.push_back(std::move(b.t));
  }
  if (last) {
    out.has_last = true;
    std::vector<const FrEntry*> same;
    for (const auto& e : r.entries)
      if (!last->is_p2p && e.pg_name == last->pg_name && e.collective_seq_id == last->collective_seq_id &&
          !e.is_p2p)
        same.push_back(&e);
    out.last = fr_brief(*last, same);
  }
  return out;
}

FrSummary summarize_flight_records(const std::vector<FlightRecord>& records) {
  FrSummary s;
  for (const auto& r : records) s.ranks.push_back(summarize_flight_record(r));
  return merge_fr_summaries({s});
}

FrSummary merge_fr_summaries(const std::vector<FrSummary>& parts) {
  FrSummary out;
  std::map<int, FrRankSummary> by_rank;
  std::vector<FrRankSummary> unknown;
  auto weight = [](const FrRankSummary& r) {
    size_t n = r.groups.size();
    for (const auto& g : r.groups) n += g.detail.size();
    return n;
  };
  for (const auto& p : parts) {
    out.errors.insert(out.errors.end(), p.errors.begin(), p.errors.end());
    for (const auto& r : p.ranks) {
      if (r.rank < 0) {
        unknown.push_back(r);
        continue;
      }
      auto it = by_rank.find(r.rank);
      if (it == by_rank.end() || weight(r) > weight(it->second)) by_rank[r.rank] = r;
    }
  }
  for (auto& [rank, r] : by_rank) out.ranks.push_back(std::move(r));
  for (auto& r : unknown) out.ranks.push_back(std::move(r));
  return out;
}

}  // namespace dd::logs
