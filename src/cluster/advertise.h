// The address other nodes use to reach this one when it serves the rendezvous by hand (the printed command).
#pragma once
#include <string>

#include "probe/facts.h"

namespace dd::cluster {

// The default-route interface's first IPv4, else the first IPv4 interface NCCL would use (not loopback),
// else 127.0.0.1.
std::string pick_advertise_addr(const probe::NodeFacts& facts);

}  // namespace dd::cluster
