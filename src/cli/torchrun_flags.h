// torchrun's --master_addr and --master_port (or --master-addr, --master-port), which together are
// distdoctor's --master HOST:PORT. torchrun's other spellings that mean the same (--nproc_per_node,
// --node_rank,
// --max_restarts, --log_dir; --nnodes is spelt alike) are second names of distdoctor's options where they are
// declared (cli/check.cc, cli/launch.cc). torchrun flags with no distdoctor meaning (--standalone, --rdzv_*,
// --tee's stream numbers) are not taken.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "common/result.h"

namespace dd::cli {

// --master_addr HOST and --master_port PORT as one HOST:PORT (an IPv6 host bracketed); either alone is an
// error naming the other (`alone_port_hint`, when not empty, is said after a port given alone).
Result<std::string> torchrun_master(const std::string& addr, int port, const std::string& alone_port_hint);

// Adds --master-addr/--master_addr and --master-port/--master_port to `sub`, excluding `master`; once the
// subcommand is parsed they set `master_value` to HOST:PORT (refused as the --master validator would).
void add_torchrun_master(CLI::App& sub, CLI::Option* master, std::string& master_value,
                         const std::string& alone_port_hint = "");

}  // namespace dd::cli
