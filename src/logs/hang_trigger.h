// Lines a worker prints once a collective has already failed or timed out (PyTorch's ProcessGroupNCCL
// watchdog, its dump signal, NCCL's async errors and the aborts that follow): `launch` starts its diagnosis
// and stops the job at the first one instead of waiting for PyTorch's own teardown (which took 60 s after a
// 10 s timeout on PyTorch 2.11). Pure: one line in, a verdict out. The lines are the catalogue's entries with
// the role hang_trigger (data/known_errors.json): a new one is a catalogue entry, not code here.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "logs/catalogue.h"

namespace dd::logs {

struct HangTrigger {
  using Kind = HangTriggerKind;  // the entry's hang_kind
  Kind kind = Kind::watchdog_timeout;
  int rank = -1;     // from "[rankN]:" or "[... Rank N]", -1 unknown
  int64_t seq = -1;  // WorkNCCL(SeqNum=N) or "work sequence id: N", -1 unknown
  std::string op;    // OpType=ALLREDUCE, "" unknown
  std::string text;  // the line without its "[rankN]:" prefix, cut at 400 bytes
};

// hang_trigger_kind_name(kind) (catalogue.h): "watchdog_timeout", ...

// A line PyTorch prints because a Flight Recorder dump was asked for ("ProcessGroupNCCL preparing to dump
// debug info", "dumping nccl trace to ..."): an echo of launch's own request, not a sign of progress.
bool is_dump_echo(std::string_view line);

// The trigger a line carries, if any: the first hang_trigger needle of `cat` it holds (HangTriggerKind's
// order). "preparing to dump debug info" is not one: it follows any dump request, launch's own on-demand dump
// included.
std::optional<HangTrigger> hang_trigger(std::string_view line, const Catalogue& cat);
// The same with the embedded catalogue.
std::optional<HangTrigger> hang_trigger(std::string_view line);

}  // namespace dd::logs
