// The two hang-culprit methods that find the rank that is different rather than stuck (hang_culprit.h,
// methods 2 and 5): a rank that left while the others wait, and a rank that runs another NCCL or NCCL
// setting.
#include <fmt/format.h>

#include "launch/culprit_methods.h"
#include "launch/report_parts.h"
#include "logs/hang_verdict_text.h"
#include "rules/rank_identity.h"

namespace dd::launch::culprit {

using parts::ranks_phrase;

// A rank that ended (status 0, or a failure launch did not stop the job for) while the others went on and now
// wait: it left, so it will never enter the collective they wait in. Only when those that left are not more
// than those still there (three ranks done and one stuck in its teardown: the stuck one is the odd one).
bool by_early_exit(const AttemptRecord& a, HangCulprit& c) {
  std::vector<const RankRecord*> left;
  std::vector<int> waiting;
  for (const RankRecord* r : parts::all_ranks(a)) {
    if (r->running)
      waiting.push_back(r->rank);
    else if (!r->stopped_by_us && r->end_s >= 0)
      left.push_back(r);
  }
  if (left.empty() || waiting.empty() || left.size() > waiting.size()) return false;
  for (const RankRecord* r : left) {
    c.ranks.push_back(r->rank);
    const std::string last = parts::last_line(*r);
    c.evidence.push_back(
        fmt::format("rank {} {} at {:.1f} s{}", r->rank, parts::end_text(*r), r->end_s,
                    last.empty() ? "" : "; its last line: \"" + parts::shown_line(last) + "\""));
  }
  const RankRecord& first = *left.front();
  c.method = "exit";
  c.why = fmt::format(
      "{} {} at {:.1f} s while {} went on: {} wait{} for {} in a collective it will never enter",
      ranks_phrase(c.ranks), parts::end_text(first), first.end_s, ranks_phrase(waiting),
      waiting.size() == 1 ? "it" : "they", waiting.size() == 1 ? "s" : "", left.size() == 1 ? "it" : "them");
  // What they wait in, when the Flight Recorder or a watchdog line says it.
  if (HangCulprit fr; by_flight_recorder(a, fr)) c.collective = fr.collective;
  if (const auto verdicts = watchdog_verdicts(a); c.collective.empty() && !verdicts.empty())
    c.collective = logs::hang_verdict_collective(verdicts.front());
  return true;
}

// A rank that loads another NCCL, or has an NCCL variable or LD_PRELOAD of its own (rules/rank_identity.h):
// ranks that disagree on the library or its protocol, transports or algorithms can wait for each other
// forever.
bool by_identity(const AttemptRecord& a, HangCulprit& c) {
  for (const rules::OddSetting& odd : rules::odd_settings(parts::rank_identities(a))) {
    if (!rules::affects_nccl(odd) || !odd.singled_out) continue;
    if (c.ranks.empty()) {
      c.ranks = odd.ranks;
      c.method = "identity";
      c.why = rules::odd_setting_text(odd) + ": ranks that disagree on NCCL can wait for each other forever";
    }
    if (odd.ranks == c.ranks) c.evidence.push_back(rules::odd_setting_text(odd));
  }
  return !c.ranks.empty();
}

}  // namespace dd::launch::culprit
