// Test helper: a NodeContext for a node with no GPU and no job settings (the Gloo runs need nothing from the
// facts), whose workers are started from this process's own environment.
#pragma once
#include "comm/run/runner.h"
#include "probe/self_probe.h"

namespace dd::comm::testing {

inline NodeContext bare_node() {
  static const probe::NodeFacts facts;
  static const probe::ToolEnv tool;
  static const probe::SelfProcess self = probe::read_self_process();
  return {facts, tool, self};
}

}  // namespace dd::comm::testing
