// Reads facts out of NCCL INFO messages (the text after "NCCL INFO "): version, driver, bootstrap interface,
// network and plugin, GDR, channel transports, communicator init, Init COMPLETE and timings, COLL op counts.
#pragma once
#include <string_view>

#include "logs/log_facts.h"

namespace dd::logs {

// Updates p from one INFO message. Cheap on lines it does not care about (one switch on the first byte).
// Returns the collective's name when the line is a COLL line ("AllReduce"), else empty.
std::string_view absorb_nccl_info(ProcessFacts& p, std::string_view msg, const Where& at);

// Parses "AllReduce: opCount ..." and returns "AllReduce", or empty.
std::string_view coll_op_name(std::string_view msg);

// The transport of a channel line as NCCL writes it: "P2P/CUMEM/read" from "Channel 00/0 : 0[0] -> 1[1] via
// P2P/CUMEM/read" (also "NET/Socket/0", "NET/IB/0/GDRDMA"); empty for any other line.
std::string_view channel_transport(std::string_view msg);

// Splits "eth0:10.0.0.1<0>" into interface and address.
void split_if_addr(std::string_view tok, std::string& ifname, std::string& addr);

}  // namespace dd::logs
