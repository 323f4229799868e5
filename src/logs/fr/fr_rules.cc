// Flight Recorder findings: one per culprit of the analysis, titled with the rank, the op and the group,
// evidence with every rank's position, the disagreeing signatures and the culprit's Python stack.
#include "logs/fr/fr_rules.h"

#include <fmt/format.h>

#include "logs/log_finding_ids.h"
#include "logs/log_rules.h"

namespace dd::logs {

namespace {

using report::Finding;
using report::Severity;

std::string fr_group_name(const std::string& name, const std::string& desc) {
  return desc.empty() || desc == "undefined" ? fmt::format("process group {}", name)
                                             : fmt::format("process group {} ({})", name, desc);
}

std::string fr_ranks_word(const std::vector<int>& r) {
  return fmt::format("{} {}", r.size() == 1 ? "rank" : "ranks", rank_list(r));
}

const FrGroupReport* fr_group(const FrAnalysis& a, const std::string& name) {
  for (const auto& g : a.groups)
    if (g.pg_name == name) return &g;
  return nullptr;
}

// A sequence number as the evidence shows it: -1 (nothing issued, nothing completed) is "none".
std::string seq_or_none(int64_t seq) { return seq < 0 ? std::string("none") : std::to_string(seq); }

void fr_positions(const FrAnalysis& a, const FrCulprit& c, Finding& f) {
  const FrGroupReport* g = fr_group(a, c.pg_name);
  if (!g) return;
  std::string pos;
  for (const auto& p : g->positions) {
    if (pos.size() > 400) {
      pos += "; …";
      break;
    }
    pos += fmt::format("{}rank {} issued {} completed {}", pos.empty() ? "" : "; ", p.rank,
                       seq_or_none(p.issued), seq_or_none(p.completed));
  }
  f.evidence.push_back(
      fmt::format("{}, members {}: {}", fr_group_name(g->pg_name, g->pg_desc), rank_list(g->members), pos));
  if (g->has_mismatch)
    for (const auto& s : g->mismatch.sides)
      f.evidence.push_back(
          fmt::format("seq {}: {} {}", g->mismatch.seq, fr_ranks_word(s.ranks), signature_words(s.sig)));
  if (!g->ahead.empty())
    f.evidence.push_back(fmt::format("ahead (issued past seq {}): {}", g->frontier, fr_ranks_word(g->ahead)));
}

// The culprit's collective is the first of its group the ranks issued: none of the group completed.
bool first_hung(const FrAnalysis& a, const FrCulprit& c) {
  const FrGroupReport* g = fr_group(a, c.pg_name);
  return g && fr_none_completed(*g);
}

// "#0 all_reduce": the culprit's sequence number and the op the waiting ranks issued there.
std::string numbered(const FrCulprit& c) {
  return fmt::format("#{}{}", c.seq, c.expected.op.empty() ? "" : " " + c.expected.op);
}

// The id, severity, title and fix of a culprit finding, by its kind.
struct CulpritWords {
  std::string id, title, fix;
  Severity sev = Severity::fail;
};

// A rank that called another collective, or the same one with other sizes or dtypes.
CulpritWords mismatch_words(const FrCulprit& c, const std::string& who, const std::string& group) {
  std::string what =
      c.kind == "desync" ? fmt::format("called {} where the others called {}", c.did.op, c.expected.op)
      : c.kind == "size_mismatch" ? fmt::format("called {} with sizes {} where the others used {}", c.did.op,
                                                c.did.sizes, c.expected.sizes)
                                  : fmt::format("called {} with dtype {} where the others used {}", c.did.op,
                                                c.did.dtypes, c.expected.dtypes);
  return {
      "logs.fr." + c.kind, fmt::format("{} {} (collective #{} of {})", who, what, c.seq, group),
      "The ranks took different code paths: make every rank of the group issue the same collectives in the "
      "same "
      "order with the same shapes and dtypes (look for a rank-dependent branch, an uneven last batch, or a "
      "collective inside a condition at the stack below)."};
}

CulpritWords culprit_words(const FrAnalysis& a, const FrCulprit& c) {
  std::string group = fr_group_name(c.pg_name, c.pg_desc);
  std::string who = fr_ranks_word(c.ranks), waiters = fr_ranks_word(c.waiting);
  if (c.kind == "desync" || c.kind == "size_mismatch" || c.kind == "dtype_mismatch")
    return mismatch_words(c, who, group);
  if (c.kind == "pg_desync")
    return {
        "logs.fr.pg_desync",
        fmt::format("{} went into {} on process group {} while {} wait for it in {} #{} of {}", who, c.did.op,
                    c.where.pg_name, waiters, c.expected.op.empty() ? "collective" : c.expected.op, c.seq,
                    group),
        "Every member of a process group must call its collectives, and in the same order across groups: the "
        "stack below is where this rank entered the other group's collective."};
  if (c.kind == "behind")
    return {
        "logs.fr.behind",
        first_hung(a, c) ? fmt::format("{} never reached the first collective of {} ({}) that {} wait in; no "
                                       "collective completed",
                                       who, group, numbered(c), waiters)
                         : fmt::format("{} never reached collective #{} of {} that {} wait in", who, c.seq,
                                       group, waiters),
        "The rank is outside NCCL (compute, data loading, I/O, a sleep or a stuck thread): its Python stack "
        "at "
        "the time (faulthandler, py-spy) shows where; the Flight Recorder saw it last at the stack below."};
  if (c.kind == "missing_dump")
    return {"logs.fr.missing_dump",
            fmt::format("{} wait in collective #{} of {}; {} left no Flight Recorder dump", waiters, c.seq,
                        group, who),
            "A rank without a dump died, hung before the dump, or ran without TORCH_FR_BUFFER_SIZE and "
            "TORCH_NCCL_DUMP_ON_TIMEOUT: check its log; it is the likely one the others wait for.",
            Severity::warn};
  return {"logs.fr.stuck",
          first_hung(a, c) ? fmt::format("All of {} are inside the first collective of {} ({}) and none "
                                         "completed it: no collective completed",
                                         who, group, numbered(c))
                           : fmt::format("All of {} are inside collective #{} of {} and none completed it",
                                         who, c.seq, group),
          "The ranks agree on the collective: the hang is in the transport (network, NVLink/P2P, a GPU that "
          "stopped), "
          "not a desync. Check NCCL WARN lines, dmesg (Xid) and the network between the nodes."};
}

Finding fr_culprit_finding(const FrAnalysis& a, const FrCulprit& c) {
  const CulpritWords w = culprit_words(a, c);
  Finding f = logs_finding(w.id.c_str(), w.sev, w.title, w.fix);
  if (c.ranks.size() == 1) f.rank = c.ranks[0];
  f.evidence.push_back(c.detail);
  fr_positions(a, c, f);
  if (c.has_where)
    f.evidence.push_back(
        fmt::format("rank {} stack at {} #{} ({}, {}): {}", c.ranks[0], c.where.sig.op, c.where.seq,
                    fmt::format("process group {}", c.where.pg_name),
                    c.where.state.empty() ? "state unknown" : c.where.state,
                    c.where.frames.empty() ? "no frames recorded" : frames_text(c.where.frames, 6)));
  return f;
}

}  // namespace

Finding straggler_finding(const FrStraggler& g, const std::string& id) {
  Finding f{.id = id, .severity = Severity::warn, .rank = g.rank};
  f.title = straggler_text(g);
  const std::string group = fr_group_name(g.pg_name, g.pg_desc);
  if (g.on_gpu) {
    f.evidence.push_back(fmt::format(
        "collectives {}-{} of {}: rank {}'s kernel ran shortest in {} of the {} that one rank started last "
        "({} timed), by {:.1f} ms (median) less than the longest; over {:.1f} s",
        g.first_seq, g.last_seq, group, g.rank, g.last, g.compared, g.timed, g.late_ms, g.span_s));
    f.evidence.push_back(
        "from the Flight Recorder with NCCL timing on: each collective's time on the GPU (duration_ms, "
        "its start to its end event); a collective ends together on every rank, so the shortest started "
        "last. No clock is compared: ranks on every node count");
  } else {
    f.evidence.push_back(fmt::format(
        "collectives {}-{} of {}: rank {} created {} of {} last, by {:.1f} ms (median) after the first rank; "
        "over {:.1f} s",
        g.first_seq, g.last_seq, group, g.rank, g.last, g.compared, g.late_ms, g.span_s));
    f.evidence.push_back(
        g.node >= 0 ? fmt::format("compared on node {}'s clock (ranks {} and {})", g.node, g.rank,
                                  rank_list(g.others))
        : g.node == kClocksAligned
            ? "compared across nodes on node rank 0's clock: each node's times moved by its clock's offset, "
              "measured through the job's store when the nodes met"
            : "compared as one clock: the dumps' times of ranks on other nodes are only right if their "
              "clocks agree");
    f.evidence.push_back(
        "from the Flight Recorder: the time each rank's Python issued each collective (time_created_ns)");
  }
  f.fix = straggler_fix(g.rank, g.on_gpu);
  return f;
}

std::string straggler_fix(int rank, bool on_gpu) {
  if (on_gpu)
    return fmt::format(
        "Rank {}'s process keeps up, but its collectives start late on its GPU: the GPU work before each "
        "one takes longer there. Look at that GPU: another process on it (nvidia-smi), its clocks, "
        "temperature and power (nvidia-smi -q -d PERFORMANCE lists the throttle reasons), a GPU slower "
        "than the others; and at GPU work only that rank does (a larger batch or sequence, extra kernels).",
        rank);
  return fmt::format(
      "The others wait in each collective for rank {}: look at what it does between collectives that they do "
      "not (more data to load or decode, CPU work, a busy or throttled CPU, logging or checkpointing on "
      "that rank only) and at its GPU (nvidia-smi: clocks, temperature, another process on it). A rank "
      "that became slow during the run points at the machine (thermal throttling, a neighbour) more than "
      "at the code.",
      rank);
}

std::vector<Finding> fr_findings(const FrAnalysis& a) {
  std::vector<Finding> out;
  for (const auto& c : a.culprits) out.push_back(fr_culprit_finding(a, c));
  for (const auto& g : a.stragglers) out.push_back(straggler_finding(g, ids::kFrStraggler));
  if (!a.errors.empty()) {
    Finding f =
        logs_finding("logs.fr.unreadable", Severity::warn,
                     fmt::format("{} Flight Recorder dump(s) could not be read", a.errors.size()),
                     "A dump cut off while being written (the job was killed during the dump), not a "
                     "Flight Recorder dump, or one past the limits of what one run reads (the evidence says "
                     "which: give such dumps a few at a time); the others were analysed.");
    for (size_t i = 0; i < a.errors.size() && i < 8; ++i) f.evidence.push_back(a.errors[i]);
    out.push_back(std::move(f));
  }
  if (a.ranks.empty() || !a.culprits.empty()) return out;
  std::string dumps = fmt::format("{} dump(s), {}", a.ranks.size(), fr_ranks_word(a.ranks));
  if (a.groups.empty()) {
    out.push_back(
        logs_finding("logs.fr.no_collectives", Severity::info,
                     fmt::format("The Flight Recorder dumps hold no collectives ({})", dumps),
                     "No NCCL communicator was used yet: the job stopped before or inside "
                     "init_process_group, or the first collective; look at the rendezvous and init."));
  } else if (!a.unfinished) {
    Finding f =
        logs_finding("logs.fr.complete", Severity::ok,
                     fmt::format("Every collective the Flight Recorder kept completed ({})", dumps), "");
    for (const auto& g : a.groups) {
      int64_t last = -1;
      for (const auto& p : g.positions) last = std::max(last, p.completed);
      f.evidence.push_back(fmt::format("{}: last completed #{}", fr_group_name(g.pg_name, g.pg_desc), last));
    }
    out.push_back(std::move(f));
  }
  return out;
}

namespace {

// Over r.flight_records and r.flight_record_errors; appends nothing when neither holds anything.
void fr_rules(const LogsResult& r, std::vector<Finding>& out) {
  if (r.flight_records.empty() && r.flight_record_errors.empty()) return;
  FrAnalysis a = analyze_flight_records(r.flight_records);
  a.errors.insert(a.errors.end(), r.flight_record_errors.begin(), r.flight_record_errors.end());
  for (auto& f : fr_findings(a)) out.push_back(std::move(f));
}

}  // namespace

LogRule fr_log_rule() {
  return {.name = "fr",
          .fn = fr_rules,
          .docs = fr_finding_docs(),
          .culprit_ids = {"logs.fr.desync", "logs.fr.size_mismatch", "logs.fr.dtype_mismatch",
                          "logs.fr.pg_desync", "logs.fr.behind", "logs.fr.missing_dump"}};
}

}  // namespace dd::logs
