// ProgressSink: where a lower layer (cluster/, launch/, rendezvous/) sends the lines it has to say while it
// works (waiting for nodes, a warning, a restart), so that only cli/ writes to the terminal. cli/ makes the
// sink (cli/progress_printer.h: stderr, with the command's prefix, the live status line erased first); a test
// gives one that collects the lines. An empty sink drops them.
#pragma once
#include <functional>
#include <string>
#include <utility>

namespace dd {

enum class ProgressKind {
  progress,  // a step or a wait: "waiting for nodes: 1/2 joined"
  warning,   // something the user should read now: "warning: NCCL_SOCKET_IFNAME differs between ranks"
};

struct ProgressLine {
  ProgressKind kind = ProgressKind::progress;
  std::string
      text;  // one line, no trailing newline, without the "distdoctor CMD: " prefix (the sink adds it)
};

using ProgressSink = std::function<void(const ProgressLine&)>;

// Sends `text` to `sink` when there is one.
inline void say(const ProgressSink& sink, ProgressKind kind, std::string text) {
  if (sink) sink(ProgressLine{kind, std::move(text)});
}

}  // namespace dd
