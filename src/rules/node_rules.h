// Declarations of the single-node rules; each is defined in its own file in src/rules/.
#pragma once
#include "rules/rule.h"

namespace dd::rules {

NodeRule gpu_presence_rule();  // gpu_presence.cc: NVML/driver/GPU missing

}  // namespace dd::rules
