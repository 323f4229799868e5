// The sentences of hang_verdict_text.h.
#include "logs/hang_verdict_text.h"

#include <fmt/format.h>

#include "logs/log_time.h"

namespace dd::logs {

namespace {

std::string sig_words(const HangVerdict& v) {
  std::string s = v.op;
  if (v.numel_in >= 0) s += fmt::format(" NumelIn={}", v.numel_in);
  if (v.numel_out >= 0) s += fmt::format(" NumelOut={}", v.numel_out);
  return s;
}

std::string desync_title(const HangVerdict& v) {
  const std::string c = rank_words(v.culprits), w = rank_words(v.waiters), pg = pg_suffix(v);
  const std::string c_op = v.culprit_op.substr(0, v.culprit_op.find(' '));
  if (v.op.empty())
    return fmt::format(
        "{} stayed in {} SeqNum={}{} while {} went on to SeqNum {}: {} issued another collective there "
        "than they did",
        c, c_op, v.seq, pg, w, v.culprit_seq, c);
  if (c_op != v.op)
    return fmt::format("{} called {} where {} called {} at SeqNum {}{}: {} took another code path", c, c_op,
                       w, v.op, v.seq, pg, c);
  return fmt::format("{} called {} where {} called {} at SeqNum {}{}: the sizes differ", c, v.culprit_op, w,
                     sig_words(v), v.seq, pg);
}

std::string late_title(const HangVerdict& v) {
  const std::string c = rank_words(v.culprits), w = rank_words(v.waiters);
  // Seconds only: PyTorch's glog lines carry sub-seconds that do not follow the seconds across ranks.
  const std::string when = v.first_time >= 0 ? " at " + log_time_text(v.first_time).substr(0, 14) : "";
  const std::string had = v.culprit_enqueued >= 0
                              ? fmt::format(", when {} had enqueued only up to {}", c, v.culprit_enqueued)
                              : "";
  const std::string later = v.culprit_time >= 0 && v.first_time >= 0
                                ? fmt::format(" {} s later", (v.culprit_time - v.first_time) / 1000000)
                                : " later";
  return fmt::format(
      "{} was late to {} SeqNum={}{}: {} timed out waiting for it{}{}; {} timed out{} in {} SeqNum={}", c,
      v.op, v.seq, pg_suffix(v), w, when, had, c, later, v.culprit_seq_op, v.culprit_seq);
}

}  // namespace

std::string rank_words(const std::vector<int>& ranks) {
  return fmt::format("rank{} {}", ranks.size() == 1 ? "" : "s", rank_commas(ranks));
}

std::string pg_suffix(const HangVerdict& v) {
  const std::string pg = pg_name(v.pg);
  return pg.empty() ? "" : " on " + pg;
}

std::string hang_verdict_title(const HangVerdict& v) {
  const std::string c = rank_words(v.culprits), w = rank_words(v.waiters), pg = pg_suffix(v);
  switch (v.kind) {
    case HangKind::desync:
      return desync_title(v);
    case HangKind::ahead:
      return fmt::format(
          "{} went past {} SeqNum={}{} (it timed out in {} SeqNum={}) while {} wait in it: {} took "
          "another code path at SeqNum {}",
          c, v.op, v.seq, pg, v.culprit_seq_op, v.culprit_seq, w, c, v.seq);
    case HangKind::late:
      return late_title(v);
    case HangKind::missing:
      if (v.culprit_silent)
        return fmt::format(
            "{} printed no watchdog line while {} timed out in {} SeqNum={}{}: {} never reached that "
            "collective",
            c, w, v.op, v.seq, pg, c);
      return fmt::format(
          "{} never issued {} SeqNum={}{} that {} timed out in: its last enqueued work was {}, and it had no "
          "timeout of its own",
          c, v.op, v.seq, pg, w, v.culprit_enqueued);
    default:
      return "";
  }
}

std::string hang_verdict_collective(const HangVerdict& v) {
  if (v.kind == HangKind::desync && !v.culprit_op.empty())
    return fmt::format("{} SeqNum={}", v.culprit_op.substr(0, v.culprit_op.find(' ')), v.seq);
  if (v.kind == HangKind::ahead) return fmt::format("{} SeqNum={}", v.culprit_seq_op, v.culprit_seq);
  return v.op.empty() ? "" : fmt::format("{} SeqNum={}", v.op, v.seq);
}

}  // namespace dd::logs
